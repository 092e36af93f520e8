// The architecture table and the theoretical peaks, checked against numbers worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "models/arch.hpp"

namespace cudalab {
namespace {

// H100 SXM5: 132 SMs x 128 FP32 cores x 2 flops per FMA x 1.980 GHz = 66 908.16 GFLOP/s.
TEST(ArchPeaks, Fp32PeakOfH100Sxm) {
  Peak p = fp32Peak(132, 128, 1980000.0);
  ASSERT_TRUE(p.known);
  EXPECT_NEAR(p.value, 66908.16, 0.01);
  EXPECT_NEAR(p.value / 1000.0, 66.9, 0.05);
  EXPECT_STREQ(p.unit, "GFLOP/s");
  // The formula shows the substituted numbers, so a learner can redo it.
  EXPECT_NE(p.formula.find("132"), std::string::npos) << p.formula;
  EXPECT_NE(p.formula.find("128"), std::string::npos) << p.formula;
  EXPECT_NE(p.formula.find("1980 MHz"), std::string::npos) << p.formula;
  EXPECT_NE(p.formula.find("66.9 TFLOP/s"), std::string::npos) << p.formula;
}

// H100 SXM5 HBM3: 2 x 2619 MHz x 5120 bit / 8 = 2 x 2.619e9 x 640 bytes = 3352.32 GB/s.
TEST(ArchPeaks, MemoryBandwidthOfH100Sxm) {
  Peak p = memoryBandwidthPeak(2619000.0, 5120);
  ASSERT_TRUE(p.known);
  EXPECT_NEAR(p.value, 3352.32, 0.01);
  EXPECT_STREQ(p.unit, "GB/s");
  EXPECT_EQ(p.formula, "2 x 2619 MHz x 5120 bit / 8 = 3352.3 GB/s");
}

// H100 SXM5 FP64: 132 x 64 x 2 x 1.98 GHz = 33 454.08 GFLOP/s, half the FP32 peak.
TEST(ArchPeaks, Fp64PeakOfH100SxmIsHalfOfFp32) {
  auto a = archInfo(9, 0);
  ASSERT_TRUE(a.has_value());
  Peak f64 = fp64Peak(132, a->fp64UnitsPerSM, 1980000.0);
  Peak f32 = fp32Peak(132, a->fp32CoresPerSM, 1980000.0);
  ASSERT_TRUE(f64.known);
  EXPECT_NEAR(f64.value, 33454.08, 0.01);
  EXPECT_NEAR(f32.value / f64.value, 2.0, 1e-12);
}

TEST(ArchPeaks, UnknownInputsGiveUnknownPeaks) {
  Peak noCores = fp32Peak(132, 0, 1980000.0);
  EXPECT_FALSE(noCores.known);
  EXPECT_TRUE(std::isnan(noCores.value));
  EXPECT_NE(noCores.formula.find("FP32 cores per SM"), std::string::npos) << noCores.formula;

  Peak noSms = fp64Peak(0, 64, 1980000.0);
  EXPECT_FALSE(noSms.known);
  EXPECT_NE(noSms.formula.find("SMs"), std::string::npos) << noSms.formula;

  Peak noClock = fp32Peak(132, 128, 0.0);
  EXPECT_FALSE(noClock.known);
  EXPECT_NE(noClock.formula.find("clock"), std::string::npos) << noClock.formula;

  Peak noMemClock = memoryBandwidthPeak(0.0, 5120);
  EXPECT_FALSE(noMemClock.known);
  EXPECT_NE(noMemClock.formula.find("memory clock"), std::string::npos) << noMemClock.formula;

  Peak noBus = memoryBandwidthPeak(2619000.0, 0);
  EXPECT_FALSE(noBus.known);
  EXPECT_NE(noBus.formula.find("bus width"), std::string::npos) << noBus.formula;

  EXPECT_FALSE(memoryBandwidthPeak(NAN, 5120).known);
  EXPECT_FALSE(fp32Peak(-1, 128, 1980000.0).known);
}

TEST(ArchTable, KnownComputeCapabilities) {
  auto h = archInfo(9, 0);
  ASSERT_TRUE(h.has_value());
  EXPECT_STREQ(h->family, "Hopper");
  EXPECT_EQ(h->fp32CoresPerSM, 128);
  EXPECT_EQ(h->fp64UnitsPerSM, 64);
  EXPECT_NE(std::string(h->examples).find("H100"), std::string::npos);

  // The course's own table (PyCUDA device query) for Maxwell and Pascal.
  EXPECT_EQ(archInfo(5, 0)->fp32CoresPerSM, 128);
  EXPECT_EQ(archInfo(5, 2)->fp32CoresPerSM, 128);
  EXPECT_EQ(archInfo(6, 0)->fp32CoresPerSM, 64);
  EXPECT_EQ(archInfo(6, 1)->fp32CoresPerSM, 128);
  EXPECT_EQ(archInfo(6, 2)->fp32CoresPerSM, 128);

  const std::pair<std::pair<int, int>, std::pair<int, int>> cases[] = {
      {{7, 0}, {64, 32}}, {{7, 5}, {64, 2}},   {{8, 0}, {64, 32}},   {{8, 6}, {128, 2}},
      {{8, 9}, {128, 2}}, {{9, 0}, {128, 64}}, {{10, 0}, {128, 64}}, {{12, 0}, {128, 2}},
      {{6, 0}, {64, 32}}, {{3, 5}, {192, 64}},
  };
  for (const auto& [cc, units] : cases) {
    auto a = archInfo(cc.first, cc.second);
    ASSERT_TRUE(a.has_value()) << cc.first << "." << cc.second;
    EXPECT_EQ(a->fp32CoresPerSM, units.first) << cc.first << "." << cc.second;
    EXPECT_EQ(a->fp64UnitsPerSM, units.second) << cc.first << "." << cc.second;
  }
}

TEST(ArchTable, UnknownComputeCapabilityIsNotGuessed) {
  EXPECT_FALSE(archInfo(9, 9).has_value());
  EXPECT_FALSE(archInfo(13, 0).has_value());
  EXPECT_FALSE(archInfo(2, 0).has_value());  // Fermi: older than any CUDA 13 target
  EXPECT_FALSE(archInfo(0, 0).has_value());
  EXPECT_FALSE(archInfo(-1, 5).has_value());
}

TEST(ArchTable, CoversEveryComputeCapabilityFromKeplerToCuda13) {
  const std::pair<int, int> expected[] = {
      {3, 0}, {3, 2}, {3, 5}, {3, 7},  {5, 0},  {5, 2},  {5, 3},  {6, 0},
      {6, 1}, {6, 2}, {7, 0}, {7, 2},  {7, 5},  {8, 0},  {8, 6},  {8, 7},
      {8, 8}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {11, 0}, {12, 0}, {12, 1},
  };
  for (auto [major, minor] : expected)
    EXPECT_TRUE(archInfo(major, minor).has_value()) << major << "." << minor;
  EXPECT_EQ(archTable().size(), std::size(expected));
}

TEST(ArchTable, EntriesAreConsistentSortedAndUnique) {
  auto t = archTable();
  ASSERT_FALSE(t.empty());
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i < t.size(); ++i) {
    const ArchInfo& a = t[i];
    std::string cc = computeCapabilityString(a.major, a.minor);
    EXPECT_GE(a.major, 3) << cc;
    EXPECT_GE(a.minor, 0) << cc;
    EXPECT_LT(a.minor, 10) << cc;
    ASSERT_NE(a.family, nullptr) << cc;
    EXPECT_GT(std::string(a.family).size(), 0u) << cc;
    ASSERT_NE(a.examples, nullptr) << cc;
    EXPECT_GT(std::string(a.examples).size(), 0u) << cc;
    // The table knows every unit count, and FP32 lanes fill whole warps (32 lanes).
    EXPECT_GT(a.fp32CoresPerSM, 0) << cc;
    EXPECT_EQ(a.fp32CoresPerSM % 32, 0) << cc;
    EXPECT_GT(a.fp64UnitsPerSM, 0) << cc;
    EXPECT_LE(a.fp64UnitsPerSM, a.fp32CoresPerSM) << cc;
    EXPECT_TRUE(seen.insert({a.major, a.minor}).second) << "duplicate " << cc;
    if (i > 0) {
      std::pair<int, int> prev{t[i - 1].major, t[i - 1].minor};
      EXPECT_LT(prev, (std::pair<int, int>{a.major, a.minor})) << "not sorted at " << cc;
    }
    // archInfo finds exactly this entry.
    auto found = archInfo(a.major, a.minor);
    ASSERT_TRUE(found.has_value()) << cc;
    EXPECT_EQ(found->fp32CoresPerSM, a.fp32CoresPerSM) << cc;
  }
}

TEST(ArchTable, Fp64Ratios) {
  EXPECT_EQ(fp64RatioText(*archInfo(9, 0)), "1:2");
  EXPECT_EQ(fp64RatioText(*archInfo(8, 6)), "1:64");
  EXPECT_EQ(fp64RatioText(*archInfo(8, 0)), "1:2");
  EXPECT_EQ(fp64RatioText(*archInfo(7, 5)), "1:32");
  EXPECT_EQ(fp64RatioText(*archInfo(3, 0)), "1:24");
  EXPECT_EQ(fp64RatioText(*archInfo(3, 5)), "1:3");
  // Ratio from the raw counts too: 128 / 64 = 2 on Hopper, 128 / 2 = 64 on GA10x.
  EXPECT_EQ(archInfo(9, 0)->fp32CoresPerSM / archInfo(9, 0)->fp64UnitsPerSM, 2);
  EXPECT_EQ(archInfo(8, 6)->fp32CoresPerSM / archInfo(8, 6)->fp64UnitsPerSM, 64);
  ArchInfo unknown{1, 0, "x", 0, 0, "x"};
  EXPECT_EQ(fp64RatioText(unknown), "unknown");
}

TEST(ArchTable, ComputeCapabilityString) {
  EXPECT_EQ(computeCapabilityString(9, 0), "9.0");
  EXPECT_EQ(computeCapabilityString(12, 1), "12.1");
}

// Dense FP16 tensor peaks of the datasheets: V100 SXM2 80 SMs x 512 FMAs x 2 x 1.53 GHz = 125.3
// TFLOP/s; A100 108 x 1024 x 2 x 1.41 GHz = 311.9; H100 SXM 132 x 2048 x 2 x 1.83 GHz = 989.4.
// Parts the table was not checked against stay unknown.
TEST(ArchPeaks, TensorPeaksOfTheDataCentreParts) {
  EXPECT_NEAR(tensorPeak(80, tensorFmaPerSM(7, 0), 1530000.0).value, 125337.6, 0.1);
  EXPECT_NEAR(tensorPeak(108, tensorFmaPerSM(8, 0), 1410000.0).value, 311869.4, 0.1);
  const Peak h = tensorPeak(132, tensorFmaPerSM(9, 0), 1830000.0);
  ASSERT_TRUE(h.known);
  EXPECT_NEAR(h.value, 989429.8, 0.1);
  EXPECT_NE(h.formula.find("989.4 TFLOP/s"), std::string::npos) << h.formula;
  EXPECT_EQ(tensorFmaPerSM(8, 9), 0);
  EXPECT_FALSE(tensorPeak(84, tensorFmaPerSM(8, 9), 2520000.0).known);
}

}  // namespace
}  // namespace cudalab
