// The counters module without a GPU: the metric table, the sentence for each failure, and a
// profile request that cannot run saying why instead of crashing.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "common/runtime_info.hpp"
#include "counters/counters.hpp"
#include "counters/pc_sampling.hpp"
#include "counters/source_lines.hpp"

using namespace cudalab;
using namespace cudalab::counters;

TEST(Counters, MetricTable) {
  std::set<std::string> keys, names;
  for (const MetricInfo& m : metrics()) {
    EXPECT_TRUE(keys.insert(m.key).second) << m.key;
    EXPECT_TRUE(names.insert(m.cupti).second) << m.cupti;
    EXPECT_NE(std::string(m.cupti).find("__"), std::string::npos) << m.cupti;
    EXPECT_GT(std::string(m.meaning).size(), 20u) << m.key;
    EXPECT_EQ(findMetric(m.key), &m);
  }
  for (const char* k :
       {"global_load_sectors", "global_load_requests", "shared_load_wavefronts", "l1_hit_rate",
        "l2_hit_rate", "dram_bytes_read", "achieved_occupancy", "warp_efficiency", "instructions"})
    EXPECT_NE(findMetric(k), nullptr) << k;
  EXPECT_EQ(findMetric("nope"), nullptr);
}

TEST(Counters, FailuresSaySoWithTheFix) {
  const std::string p = failureSentence(kCuptiInsufficientPrivileges, "cuptiRangeProfilerEnable");
  EXPECT_NE(p.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << p;
  EXPECT_NE(p.find("administrators"), std::string::npos);
  EXPECT_NE(failureSentence(kCuptiNotSupported, "x").find("not supported"), std::string::npos);
  EXPECT_NE(failureSentence(999, "cuptiX").find("cuptiX"), std::string::npos);
}

TEST(Counters, RefusedRequestsAreSentences) {
  EXPECT_FALSE(profile({}, [] { return Status{}; }));
  const auto unknown = profile({"nope"}, [] { return Status{}; });
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.status().sentence().find("nope"), std::string::npos);
  // Without a GPU (or without CUPTI) profiling says why; it never crashes.
  if (!queryRuntime().hasDevice()) {
    bool ran = false;
    const auto r = profile({"instructions"}, [&] {
      ran = true;
      return Status{};
    });
    EXPECT_FALSE(r);
    EXPECT_FALSE(r.status().sentence().empty());
  }
}

// Ratios are asked for like metrics: both halves are collected once, the quotient read back, and
// a zero or missing denominator gives no value rather than an infinity.
TEST(Counters, Ratios) {
  for (const RatioInfo& r : ratios()) {
    EXPECT_NE(findMetric(r.num), nullptr) << r.key;
    EXPECT_NE(findMetric(r.den), nullptr) << r.key;
    EXPECT_EQ(findRatio(r.key), &r);
    EXPECT_EQ(findMetric(r.key), nullptr) << "a ratio and a metric share the name " << r.key;
  }
  Result<std::vector<std::string>> raw =
      rawKeys({"global_load_sectors_per_request", "global_load_sectors", "instructions",
               "global_store_sectors_per_request"});
  ASSERT_TRUE(raw);
  EXPECT_EQ(*raw,
            (std::vector<std::string>{"global_load_sectors", "global_load_requests", "instructions",
                                      "global_store_sectors", "global_store_requests"}));
  EXPECT_FALSE(rawKeys({"instructions", "sectors_per_nothing"}));

  LaunchCounters c;
  c.keys = {"global_load_sectors", "global_load_requests", "global_store_sectors",
            "global_store_requests", "instructions"};
  c.values = {4096, 1024, 77, 0, NAN};
  EXPECT_DOUBLE_EQ(*c.value("global_load_sectors_per_request"), 4.0);
  EXPECT_FALSE(c.value("global_store_sectors_per_request"));    // no stores
  EXPECT_FALSE(c.value("instructions"));                        // not read (NaN)
  EXPECT_FALSE(c.value("shared_load_wavefronts_per_request"));  // not collected

  StepReading s;
  s.model = {{"achieved_occupancy", 50.0}};
  EXPECT_EQ(s.modelValue("achieved_occupancy"), 50.0);
  EXPECT_FALSE(s.modelValue("sm_busy"));
}

// Under Nsight Compute the app only marks the kernels: no CUPTI call, one launch without values.
TEST(Counters, MarkOnlyRunsTheWorkAndReadsNothing) {
  setMarkOnly(true);
  int runs = 0;
  const auto r = profile({"global_load_sectors_per_request"}, [&] {
    ++runs;
    return Status{};
  });
  setMarkOnly(false);
  EXPECT_EQ(runs, 1);
  if (!queryRuntime().hasDevice()) return;  // cudaDeviceSynchronize fails without a GPU
  ASSERT_TRUE(r) << r.status().sentence();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_FALSE(r->front().value("global_load_sectors_per_request"));
}

TEST(Counters, SassMetricTable) {
  std::set<std::string> names;
  int i = 0;
  for (const SassMetricInfo& m : sassMetrics()) {
    EXPECT_EQ(int(m.id), i++);
    ASSERT_FALSE(m.cupti.empty());
    for (const auto& alternative : m.cupti) {
      ASSERT_FALSE(alternative.empty());
      for (const char* name : alternative) {
        EXPECT_TRUE(names.insert(name).second) << name;
        EXPECT_EQ(std::string(name).rfind("smsp__sass_", 0), 0u) << name;
      }
    }
    EXPECT_GT(std::string(m.meaning).size(), 20u);
  }
  EXPECT_EQ(i, int(SassMetric::Count));
}

// Canned SASS records, as CUPTI reports them per instruction, summed per source line: two
// instructions of line 3, one of line 5 (also named with a directory in front), one from a header
// and one with no line go to line 0.
TEST(Counters, SourceLineMappingOnCannedRecords) {
  auto rec = [](const char* fn, std::uint64_t pc, std::uint64_t inst, std::uint64_t threads,
                std::uint64_t sectors, std::uint64_t requests) {
    SassRecord r;
    r.function = fn;
    r.pcOffset = pc;
    r.values[int(SassMetric::Instructions)] = inst;
    r.values[int(SassMetric::ThreadInstructions)] = threads;
    r.values[int(SassMetric::GlobalSectors)] = sectors;
    r.values[int(SassMetric::GlobalRequests)] = requests;
    return r;
  };
  const std::vector<SassRecord> records = {
      rec("k", 0x10, 100, 3200, 400, 100),   // line 3: a coalesced load
      rec("k", 0x20, 100, 3200, 3200, 100),  // line 3: a scattered store
      rec("k", 0x30, 50, 800, 0, 0),         // line 5, a diverged branch, named with a folder
      rec("k", 0x40, 7, 224, 0, 0),          // cuda_fp16.hpp
      rec("k", 0x50, 1, 32, 0, 0),           // no line
  };
  const std::map<std::uint64_t, SourcePlace> places = {{0x10, {"kernel.cu", 3}},
                                                       {0x20, {"kernel.cu", 3}},
                                                       {0x30, {"/tmp/build/kernel.cu", 5}},
                                                       {0x40, {"cuda_fp16.hpp", 120}},
                                                       {0x50, {"kernel.cu", 0}}};
  const std::vector<LineCounters> lines = countersByLine(
      records, "kernel.cu", [&](const SassRecord& r) { return places.at(r.pcOffset); });
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].line, 0);
  EXPECT_EQ(lines[0].instructionsOnLine, 2);
  EXPECT_EQ(lines[0].value(SassMetric::Instructions), 8u);
  EXPECT_EQ(lines[1].line, 3);
  EXPECT_EQ(lines[1].instructionsOnLine, 2);
  EXPECT_DOUBLE_EQ(lines[1].sectorsPerRequest(), 18.0);  // (400 + 3200) / 200
  EXPECT_DOUBLE_EQ(lines[1].threadsPerInstruction(), 32.0);
  EXPECT_EQ(lines[2].line, 5);
  EXPECT_DOUBLE_EQ(lines[2].threadsPerInstruction(), 16.0);
  EXPECT_DOUBLE_EQ(lines[2].sectorsPerRequest(), 0.0);  // no global access
  EXPECT_DOUBLE_EQ(lines[2].wavefrontsPerRequest(), 0.0);
  // A file that only ends like the program's is not the program.
  const std::vector<LineCounters> other =
      countersByLine(std::vector<SassRecord>{records[0]}, "kernel.cu", [](const SassRecord&) {
        return SourcePlace{"mykernel.cu", 3};
      });
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].line, 0);
}

TEST(Counters, SassWithoutAGpuIsASentence) {
  if (queryRuntime().hasDevice()) GTEST_SKIP() << "checks the machine without a GPU";
  const auto r = profileSass([] { return Status{}; });
  ASSERT_FALSE(r);
  EXPECT_FALSE(r.status().sentence().empty());
  EXPECT_FALSE(sourcePlace("not a cubin", "k", 0));
}

// PC samples summed per reason and in all; the reason with the most samples; every reason Hopper
// samples has words for the learner, and an unknown one has none (shown by its CUPTI name).
TEST(Counters, StallTotalsAndTexts) {
  const std::vector<StallRecord> records = {{"k", 0x10, 3, {{0, 5}, {2, 40}}},
                                            {"k", 0x20, 3, {{2, 1}}},
                                            {"k", 0x30, 0, {{1, 7}, {9, 100}}}};
  const StallTotals t = stallTotals(records, 3);  // reason 9 is past the names: not counted
  EXPECT_EQ(t.byReason, (std::vector<std::uint64_t>{5, 7, 41}));
  EXPECT_EQ(t.total, 53u);
  EXPECT_EQ(t.top(), 2);
  EXPECT_EQ(StallTotals{}.top(), -1);
  EXPECT_EQ(records[0].total(), 45u);
  for (const char* reason :
       {"long_scoreboard", "barrier", "short_scoreboard", "mio_throttle", "lg_throttle",
        "math_pipe_throttle", "wait", "not_selected", "selected", "branch_resolving",
        "dispatch_stall", "no_instructions", "membar", "drain", "sleeping", "tex_throttle",
        "imc_miss", "warpgroup_arrive", "misc"}) {
    const StallText* text = stallText(reason);
    ASSERT_TRUE(text) << reason;
    EXPECT_GT(std::string(text->label).size(), 2u);
    EXPECT_GT(std::string(text->meaning).size(), std::string(text->label).size());
  }
  EXPECT_EQ(stallText("warp_was_bored"), nullptr);
}

// Samples without a GPU: a sentence, never a crash.
TEST(Counters, PcSamplingWithoutAGpuIsASentence) {
  if (queryRuntime().hasDevice()) GTEST_SKIP() << "checks the machine without a GPU";
  bool ran = false;
  const auto r = samplePcs([&] {
    ran = true;
    return Status{};
  });
  ASSERT_FALSE(r);
  EXPECT_FALSE(ran);
  EXPECT_FALSE(r.status().sentence().empty());
}

// Two kernels' lines joined (the element-wise exercise's float and double kernels, each read in a
// worker run of its own): a line both have adds its counts and instructions, the others stay,
// in ascending order.
TEST(Counters, LinesOfTwoKernelsJoin) {
  LineCounters a3, a7, b3, b9;
  a3.line = 3;
  a3.instructionsOnLine = 2;
  a3.values[int(SassMetric::Instructions)] = 100;
  a7.line = 7;
  a7.values[int(SassMetric::GlobalSectors)] = 5;
  b3.line = 3;
  b3.instructionsOnLine = 4;
  b3.values[int(SassMetric::Instructions)] = 50;
  b9.line = 9;
  b9.instructionsOnLine = 1;
  const std::vector<LineCounters> j =
      joinLines(std::vector<LineCounters>{a3, a7}, std::vector<LineCounters>{b3, b9});
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0].line, 3);
  EXPECT_EQ(j[0].instructionsOnLine, 6);
  EXPECT_EQ(j[0].value(SassMetric::Instructions), 150u);
  EXPECT_EQ(j[1].line, 7);
  EXPECT_EQ(j[1].value(SassMetric::GlobalSectors), 5u);
  EXPECT_EQ(j[2].line, 9);
  EXPECT_EQ(joinLines({}, {}).size(), 0u);
}
