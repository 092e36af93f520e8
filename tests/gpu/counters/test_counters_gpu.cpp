// The GPU's counters read in-process: for every kernel of the memory lesson's model check, the
// measured sectors per request (global) and wavefronts per request (shared) equal the access
// model's, as tools/ncu_memory_check.py found with Nsight Compute; the padded transpose has no
// shared bank conflicts and the unpadded one has them; a kernel profiled twice gives the same
// counters. Without permission to read counters the tests say why and skip.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <thread>

#include <cuda_runtime.h>

#include "common/cuda_raii.hpp"
#include "counters/counters.hpp"
#include "memory/access_patterns.hpp"
#include "memory/memory.hpp"
#include "launch_config/launch_config.hpp"
#include "core/counters_helper.hpp"
#include "matmul/matmul.hpp"
#include "reduction/reduction.hpp"
#include "tests/gpu/sanitizing.hpp"
#include "tests/worker_binary.hpp"

namespace cudalab {

using namespace launch_config;
using namespace memory;
namespace {

const std::vector<std::string> kKeys = {"global_load_sectors",          "global_load_requests",
                                        "global_store_sectors",         "global_store_requests",
                                        "shared_load_wavefronts_sass",  "shared_load_requests",
                                        "shared_store_wavefronts_sass", "shared_store_requests"};

Result<counters::LaunchCounters> profileCase(const memory::ModelCheckCase& c) {
  Result<std::vector<counters::LaunchCounters>> r =
      counters::profile(kKeys, [&] { return memory::runModelKernel(c); });
  if (!r) return r.status();
  // The case's own kernel: the last launch (fills and poisons come first).
  if (r->empty()) return Status::error("No kernel was profiled for " + c.label + ".");
  return r->back();
}

// Every case in one profile: each profile() sets the profiler up and takes it down again, about
// 1.3 s on an H100, so 36 cases one at a time took 51 s of the suite. Each case launches
// kModelCaseLaunches kernels, its own last (CUPTI names the ranges by their order, not the kernel).
Result<std::vector<counters::LaunchCounters>> profileAllCases(
    const std::vector<memory::ModelCheckCase>& cases) {
  Result<std::vector<counters::LaunchCounters>> r = counters::profile(
      kKeys,
      [&]() -> Status {
        for (const memory::ModelCheckCase& c : cases)
          if (Status s = memory::runModelKernel(c); !s) return s;
        return {};
      },
      int(cases.size()) * memory::kModelCaseLaunches + 16);
  if (!r) return r.status();
  if (r->size() != cases.size() * memory::kModelCaseLaunches)
    return Status::error("FAIL: " + std::to_string(r->size()) + " kernels profiled for " +
                         std::to_string(cases.size()) + " cases of " +
                         std::to_string(memory::kModelCaseLaunches) + " launches.");
  std::vector<counters::LaunchCounters> own;
  for (size_t i = 0; i < cases.size(); ++i)
    own.push_back(std::move((*r)[(i + 1) * memory::kModelCaseLaunches - 1]));
  return own;
}

TEST(CountersGpu, MemoryModelAgreesWithTheHardware) {
  int compared = 0, mismatches = 0;
  const std::vector<memory::ModelCheckCase> cases = memory::modelCheckCases();
  Result<std::vector<counters::LaunchCounters>> all = profileAllCases(cases);
  if (!all && all.status().message().rfind("FAIL: ", 0) == 0) FAIL() << all.status().message();
  if (!all) GTEST_SKIP() << all.status().sentence();  // no permission, or no CUPTI for this GPU
  // The model walks every warp's addresses: seconds for the largest cases, so all at once.
  std::vector<std::future<memory::TotalsByKind>> models;
  for (const memory::ModelCheckCase& c : cases)
    models.push_back(
        std::async(std::launch::async, [&c] { return memory::kernelTotalsByKind(c.kernel, c.p); }));
  for (size_t i = 0; i < cases.size(); ++i) {
    const memory::ModelCheckCase& c = cases[i];
    const counters::LaunchCounters* m = &(*all)[i];
    const memory::TotalsByKind byKind = models[i].get();
    const struct {
      memory::Space space;
      memory::Op op;
      const char *num, *den;
    } kinds[] = {
        {memory::Space::Global, memory::Op::Load, "global_load_sectors", "global_load_requests"},
        {memory::Space::Global, memory::Op::Store, "global_store_sectors", "global_store_requests"},
        {memory::Space::Shared, memory::Op::Load, "shared_load_wavefronts_sass",
         "shared_load_requests"},
        {memory::Space::Shared, memory::Op::Store, "shared_store_wavefronts_sass",
         "shared_store_requests"},
    };
    for (const auto& k : kinds) {
      const memory::InstructionTotals model = byKind[int(k.space)][int(k.op)];
      if (model.requests == 0) continue;
      // The shared-strided kernel fills its buffer with shared stores the model leaves out.
      if (memory::kernelInfo(c.kernel).name == std::string("shared_strided") &&
          k.space == memory::Space::Shared && k.op == memory::Op::Store)
        continue;
      const double modelRatio = k.space == memory::Space::Global ? model.sectorsPerRequest()
                                                                 : model.wavefrontsPerRequest();
      const double den = m->value(k.den).value_or(0), num = m->value(k.num).value_or(0);
      ASSERT_GT(den, 0) << c.label << " " << k.den << " range " << m->range;
      const double measured = num / den;
      ++compared;
      const bool ok = std::fabs(measured - modelRatio) <= 0.005 * std::max(modelRatio, 1e-9);
      mismatches += !ok;
      EXPECT_TRUE(ok) << c.label << ": " << k.num << " / " << k.den << " measured " << measured
                      << ", model " << modelRatio << " (range " << m->range << ")";
    }
  }
  EXPECT_GT(compared, 10);
  EXPECT_EQ(mismatches, 0);
}

// The transpose's tile read down a column: 32-way bank conflicts without padding (32 wavefronts
// per request), none with a 33-column tile (1), measured.
TEST(CountersGpu, PaddingRemovesTheTransposeBankConflicts) {
  for (const memory::ModelCheckCase& c : memory::modelCheckCases()) {
    if (c.label != "transpose_tiled e=1" && c.label != "transpose_tiled padded e=1") continue;
    Result<counters::LaunchCounters> m = profileCase(c);
    if (!m) GTEST_SKIP() << m.status().sentence();
    const double perRequest = m->value("shared_load_wavefronts_sass").value_or(0) /
                              m->value("shared_load_requests").value_or(1);
    if (c.p.padded)
      EXPECT_EQ(perRequest, 1.0) << c.label;
    else
      EXPECT_GE(perRequest, 16.0) << c.label;
  }
}

// Harris's steps measured: step 1's divergent tree executes more warp instructions than step 3,
// step 2's strided index makes far more bank conflicts than step 3's sequential addressing.
TEST(CountersGpu, ReductionDivergenceAndBankConflicts) {
  using namespace reduction;
  Result<std::vector<counters::StepReading>> r = measureCounters(
      ReduceParams{DataType::Float32, 1 << 20, 256}, allStepIds(), nullptr, nullptr);
  if (!r) GTEST_SKIP() << r.status().sentence();
  auto find = [&](StepId id) -> const counters::StepReading* {
    for (const counters::StepReading& s : *r)
      if (s.key == stepInfo(id).key) return &s;
    return nullptr;
  };
  const counters::StepReading *one = find(StepId::Interleaved), *two = find(StepId::Strided),
                              *three = find(StepId::Sequential);
  ASSERT_TRUE(one && two && three);
  auto v = [](const counters::StepReading* s, const char* key) {
    return s->measured.value(key).value_or(-1);
  };
  // Counts of work, not times: step 1's divergent tree keeps every warp executing every level.
  EXPECT_GT(v(one, "instructions"), v(three, "instructions"))
      << v(one, "instructions") << " against " << v(three, "instructions");
  const double conflicts2 =
      v(two, "shared_load_bank_conflicts") + v(two, "shared_store_bank_conflicts");
  const double conflicts3 =
      v(three, "shared_load_bank_conflicts") + v(three, "shared_store_bank_conflicts");
  EXPECT_GT(conflicts2, 20 * (conflicts3 + 1)) << conflicts2 << " against " << conflicts3;
  EXPECT_GT(v(three, "achieved_occupancy"), 0.0);
  EXPECT_EQ(one->launches, 3);  // 2^20 numbers in blocks of 256: 4,096 sums, 16, then 1
}

TEST(CountersGpu, ProfiledTwiceTheSame) {
  const memory::ModelCheckCase c = memory::modelCheckCases().front();
  Result<counters::LaunchCounters> a = profileCase(c);
  if (!a) GTEST_SKIP() << a.status().sentence();
  Result<counters::LaunchCounters> b = profileCase(c);
  ASSERT_TRUE(b) << b.status().sentence();
  ASSERT_EQ(a->values.size(), b->values.size());
  for (size_t i = 0; i < a->values.size(); ++i)
    EXPECT_EQ(a->values[i], b->values[i]) << a->keys[i];
}

}  // namespace
// The transpose ladder's counters equal the access model's totals at the same size, for the
// lesson's default and for an odd shape; the tile's column read conflicts 32 ways until padded.
TEST(CountersGpu, TransposeLadderAgreesWithTheModel) {
  for (const memory::TransposeParams p :
       {memory::TransposeParams{8192, 8192}, memory::TransposeParams{1000, 17}}) {
    SCOPED_TRACE(std::to_string(p.rows) + " x " + std::to_string(p.cols));
    Result<std::vector<counters::StepReading>> r = memory::measureTransposeCounters(p);
    if (!r) GTEST_SKIP() << r.status().sentence();
    ASSERT_EQ(r->size(), memory::transposeSteps().size() - 1);  // every step but cudaMemcpy
    for (const counters::StepReading& s : *r) {
      EXPECT_FALSE(s.model.empty()) << s.label;
      for (const Phrase& m : s.mismatches)
        ADD_FAILURE() << s.label << ": " << m.english();
    }
  }
  Result<std::vector<counters::StepReading>> r =
      memory::measureTransposeCounters(memory::TransposeParams{1024, 1024});
  ASSERT_TRUE(r);
  auto find = [&](const char* key) -> const counters::StepReading& {
    for (const counters::StepReading& s : *r)
      if (s.key == key) return s;
    ADD_FAILURE() << key;
    return r->front();
  };
  const double tiled = *find("tiled").measured.value("shared_load_wavefronts_per_request");
  const double padded = *find("padded").measured.value("shared_load_wavefronts_per_request");
  EXPECT_NEAR(tiled, 32.0, 0.5);
  EXPECT_NEAR(padded, 1.0, 0.05);
}

// The matmul ladder: the course's mapping spreads a warp's loads over far more sectors than the
// swapped one, and no step reaches more occupancy than the calculator allows it.
TEST(CountersGpu, MatmulLadderSectorsAndOccupancy) {
  using namespace matmul;
  Result<std::vector<counters::StepReading>> r =
      measureCounters(MatmulParams{512, 512, 512}, allStepIds(), nullptr, nullptr);
  if (!r) GTEST_SKIP() << r.status().sentence();
  int handWrittenSteps = 0;
  for (const StepInfo& s : steps())
    handWrittenSteps += handWritten(s);
  ASSERT_EQ(int(r->size()), handWrittenSteps);
  const counters::StepReading *naive = nullptr, *swapped = nullptr;
  for (const counters::StepReading& s : *r) {
    if (s.key == "naive") naive = &s;
    if (s.key == "swapped") swapped = &s;
    const std::optional<double> reached = s.measured.value("achieved_occupancy");
    const std::optional<double> promised = s.modelValue("achieved_occupancy");
    ASSERT_TRUE(reached && promised) << s.label;
    EXPECT_GT(*promised, 0.0) << s.label;
    EXPECT_LE(*reached, *promised + 1.0) << s.label;
  }
  ASSERT_TRUE(naive && swapped);
  const double a = *naive->measured.value("global_load_sectors_per_request");
  const double b = *swapped->measured.value("global_load_sectors_per_request");
  EXPECT_GT(a, 3 * b) << a << " against " << b;
}

// One block walking n elements with a grid-stride loop: the smallest grid a learner can choose.
LaunchConfig oneBlock(long long n, int threadsPerBlock) {
  LaunchConfig c;
  c.n = n;
  c.threadsPerBlock = threadsPerBlock;
  c.autoBlocks = false;
  c.blocks = 1;
  c.gridStride = true;
  return c;
}

// One block of 128 threads on a GPU of many SMs: the calculator promises full occupancy of an
// SM, the counters see how little of the GPU the launch used.
TEST(CountersGpu, LaunchOccupancyReachedAgainstPromised) {
  Result<DeviceLimits> limits = queryLimits(0);
  if (!limits) GTEST_SKIP() << limits.status().sentence();
  const LaunchConfig c = oneBlock(1 << 20, 128);
  Result<std::vector<counters::StepReading>> r =
      measureLaunchCounters(c, *limits, nullptr, nullptr);
  if (!r) GTEST_SKIP() << r.status().sentence();
  ASSERT_EQ(r->size(), countersConfigs(c).size());
  const counters::StepReading& mine = r->front();
  const double busy = *mine.measured.value("sm_busy");
  EXPECT_LT(busy, 10.0);  // one SM of many had work
  EXPECT_NEAR(*mine.modelValue("sm_busy"), 100.0 / limits->smCount, 1e-9);
  EXPECT_GT(*mine.modelValue("achieved_occupancy"), 0.0);
  // Each row's name is a format and its numbers, which the app translates; the English label is
  // the same sentence filled in.
  EXPECT_EQ(mine.labelPhrase.format, "yours: %s threads x %s blocks");
  EXPECT_EQ(mine.labelPhrase.values, (std::vector<std::string>{"128", "1"}));
  EXPECT_EQ(mine.label, "yours: 128 threads x 1 blocks");
  for (size_t i = 1; i < r->size(); ++i) {
    EXPECT_EQ((*r)[i].labelPhrase.format, "%s threads x %s blocks");
    EXPECT_EQ((*r)[i].label, (*r)[i].labelPhrase.english());
  }
}

}  // namespace cudalab

namespace cudalab {

namespace {

// The panels read counters in `cudalab counters-helper` (core/counters_helper.hpp), a process
// that ends after each reading and takes the driver's leftover memory with it. Its readings must
// be the app's own: the same steps, the same model and mismatches, and the same counts of work
// (sectors, requests and instructions are the same in every run; occupancy, rates and bank
// conflicts, which the hardware counts with other L1 traffic, are not).
// Cancelling ends the helper at once.
TEST(CountersHelperGpu, TheHelperReadsWhatTheAppWouldAndCancelEndsIt) {
  using namespace reduction;
  const ReduceParams p{DataType::Float32, 1 << 20, 256};
  Result<std::vector<counters::StepReading>> inApp =
      measureCounters(p, allStepIds(), nullptr, nullptr);
  if (!inApp) GTEST_SKIP() << inApp.status().sentence();
  std::vector<float> progress;
  Result<CountersReadings> inHelper = measureInHelper(
      "reduction", p, nullptr, [&](float f, const std::string&) { progress.push_back(f); },
      cudalabBinary());
  ASSERT_TRUE(inHelper) << inHelper.status().sentence();
  ASSERT_EQ(inHelper->size(), inApp->size());
  EXPECT_FALSE(progress.empty()) << "the helper's progress reached the app";
  for (size_t i = 0; i < inApp->size(); ++i) {
    const counters::StepReading &a = (*inApp)[i], &h = (*inHelper)[i];
    SCOPED_TRACE(a.key);
    EXPECT_EQ(h.key, a.key);
    EXPECT_EQ(h.label, a.label);
    EXPECT_EQ(h.launches, a.launches);
    EXPECT_EQ(h.measured.keys, a.measured.keys);
    EXPECT_EQ(h.model, a.model);
    EXPECT_EQ(h.mismatches, a.mismatches);
    for (const char* key : {"global_load_sectors", "global_load_requests", "instructions"})
      if (a.measured.value(key)) {
        EXPECT_EQ(h.measured.value(key), a.measured.value(key)) << key;
      }
    // Bank conflicts are left out: the hardware counts them with other L1 traffic, and on steps
    // without real conflicts they vary by tens of percent from run to run in either process
    // (measured on an H100: 324 and 390, 14 and 18). Whether a step has the conflicts the model
    // says is in `mismatches`, compared above.
  }

  // The matmul ladder at 1024^3 takes seconds under the profiler: cancelled after a moment.
  matmul::MatmulParams m;
  m.M = m.N = m.K = 1024;
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  Result<CountersReadings> cancelled = measureInHelper("matmul", m, &cancel, {}, cudalabBinary());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stopper.join();
  ASSERT_FALSE(cancelled.ok()) << "finished in " << seconds << " s, before the cancel";
  EXPECT_NE(cancelled.status().message().find("Cancelled"), std::string::npos)
      << cancelled.status().sentence();
  std::printf("counters helper: cancelled after %.2f s (cancel set at 1.5 s)\n", seconds);
}

// A launch the learner may choose, one block of 32 threads walking 64 million elements, takes 0.2 s
// per kernel on an H200, and seconds for the reading's seven launches replayed. Cancelling it
// must end the helper; how long that takes beside one kernel's time is printed (the soak judges
// it), never asserted.
TEST(CountersHelperGpu, CancellingASlowLaunchEndsTheHelper) {
  if (testing_support::underSanitizer())
    GTEST_SKIP() << "a kernel of a second, slowed a hundredfold; the helper is not watched anyway";
  const LaunchConfig c = oneBlock(1 << 26, 32);
  Result<DeviceLimits> limits = queryLimits(0);
  if (!limits) GTEST_SKIP() << limits.status().sentence();
  Result<launch_config::LaunchShape> shape = shapeFor(c, *limits);
  ASSERT_TRUE(shape) << shape.status().sentence();
  DeviceArray<float> in, out;
  ASSERT_TRUE(in.allocate(size_t(shape->allocationElements)));
  ASSERT_TRUE(out.allocate(size_t(shape->allocationElements)));
  ASSERT_EQ(cudaMemset(in.get(), 0, in.bytes()), cudaSuccess);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(launchDouble(c, *shape, in.get(), out.get(), nullptr));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double kernel =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::atomic<bool> cancel{false};
  std::atomic<double> firstProgress{-1};
  const auto start = std::chrono::steady_clock::now();
  auto since = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::thread stopper([&] {
    // Into the first profiled kernel's replays (its progress line comes just before), then
    // cancel: seven launches replayed take seconds even where one kernel takes 0.2 s (an H200).
    while (firstProgress.load() < 0 && since() < 60)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  double cancelledAt = 0;
  Result<CountersReadings> r = measureInHelper(
      "launch-config", c, &cancel,
      [&](float, const std::string&) {
        if (firstProgress.load() < 0) firstProgress = since();
      },
      cudalabBinary());
  const double ended = since();
  stopper.join();
  ASSERT_GE(firstProgress.load(), 0) << "the helper sent no progress";
  cancelledAt = firstProgress.load() + 0.3;
  ASSERT_FALSE(r.ok()) << "finished in " << ended << " s, before the cancel";
  EXPECT_NE(r.status().message().find("Cancelled"), std::string::npos) << r.status().sentence();
  std::printf(
      "slow launch: one kernel %.2f s; reading cancelled at %.2f s, ended at %.2f s "
      "(%.2f s after the cancel)\n",
      kernel, cancelledAt, ended, ended - cancelledAt);
}

}  // namespace
}  // namespace cudalab
