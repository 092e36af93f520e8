// The counters module without a GPU: the metric table, the sentence for each failure, and a
// profile request that cannot run saying why instead of crashing.
#include <gtest/gtest.h>

#include <set>

#include "common/runtime_info.hpp"
#include "counters/counters.hpp"

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
