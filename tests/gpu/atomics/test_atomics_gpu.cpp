// The atomics lesson's kernels on a real GPU: every histogram step equal to the CPU's histogram
// bin by bin for N = 1, 7, 2^20 + 1 and 2^24 + 3, random bin counts, every source and skews from
// uniform to all in one bin (outputs poisoned before each run, every run checked); the atomic
// counters always exact; the plain counter losing updates at the course's 64 x 64 in some runs;
// the contention sweeps counting exactly; refusals before any launch.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "atomics/atomics.hpp"

namespace cudalab::atomics {
namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 g{std::random_device{}()};
  return g;
}

void expectLadderExact(const HistParams& p) {
  const std::string at = std::string(sourceInfo(p.source).key) + " N = " + std::to_string(p.n) +
                         " bins " + std::to_string(p.bins) + " block " + std::to_string(p.block) +
                         " skew " + std::to_string(p.skew);
  Result<HistReport> r = measureHistLadder(p, allHistSteps(), nullptr, nullptr);
  ASSERT_TRUE(r) << at << ": " << r.status().sentence();
  ASSERT_EQ(r->steps.size(), allHistSteps().size()) << at;
  for (const HistStepResult& s : r->steps) {
    EXPECT_TRUE(s.check.ok()) << at << ", step " << histStepInfo(s.step).key << ": "
                              << s.check.wrongBins << " bins differ, first bin "
                              << s.check.firstWrong << " expected " << s.check.expected << " got "
                              << s.check.got;
    EXPECT_EQ(s.histogram, r->reference) << at << ", step " << histStepInfo(s.step).key;
  }
}

TEST(AtomicsGpu, EveryStepEqualsTheCpu) {
  std::uniform_int_distribution<int> bins(1, 4096);
  const int blocks[] = {32, 128, 256, 1024};
  int i = 0;
  for (long long n : {1LL, 7LL, (1LL << 20) + 1, (1LL << 24) + 3})
    for (Source s : {Source::Normal, Source::Pixels, Source::Uniform}) {
      HistParams p;
      p.source = s;
      p.n = n;
      p.bins = (i % 3 == 0) ? 256 : bins(rng());
      p.block = blocks[i++ % 4];
      p.skew = s == Source::Uniform ? 0.5 : 0;
      p.runs = 2;
      p.warmup = 0;
      expectLadderExact(p);
    }
}

// Float data into bin counts whose width is not exact in float32 (100, 1,000, 4,000 bins), where
// a rule other than CUB's would put values near an edge in the neighbouring bin.
TEST(AtomicsGpu, NormalNumbersIntoAnyNumberOfBins) {
  for (int bins : {100, 1000, 4000, 7}) {
    HistParams p;
    p.n = 1 << 24;
    p.bins = bins;
    p.runs = 1;
    p.warmup = 0;
    expectLadderExact(p);
  }
}

TEST(AtomicsGpu, EverySkewFromUniformToOneBin) {
  for (double skew : defaultSkews()) {
    HistParams p;
    p.source = Source::Uniform;
    p.n = (1 << 22) + 5;
    p.bins = 256;
    p.skew = skew;
    p.runs = 2;
    p.warmup = 0;
    expectLadderExact(p);
  }
}

TEST(AtomicsGpu, TheCoursesCase) {
  // 10,000 normal numbers in 10 bins between -4 and 4, and the same at many more bins.
  for (int bins : {10, 4096}) {
    HistParams p;
    p.n = 10000;
    p.bins = bins;
    p.runs = 3;
    expectLadderExact(p);
  }
}

// Small inputs of every source through every kernel (both element types): what the sanitizers
// run, where the large cases would take too long.
TEST(AtomicsGpu, SmallInputsEverySource) {
  for (Source s : {Source::Normal, Source::Pixels, Source::Uniform})
    for (int bins : {256, 4096}) {
      HistParams p;
      p.source = s;
      p.n = 4099;
      p.bins = bins;
      p.skew = 0.5;
      p.runs = 1;
      p.warmup = 0;
      expectLadderExact(p);
    }
}

TEST(AtomicsGpu, AtomicCountersAreExact) {
  for (long long blocks : {64LL, 1LL, 1000LL})
    for (int threads : {64, 33, 1024}) {
      RaceParams p{blocks, threads, 30};
      Result<RaceReport> r = runRace(p, nullptr, nullptr);
      ASSERT_TRUE(r) << r.status().sentence();
      for (const RaceVariant& v : r->variants) {
        ASSERT_EQ(v.counts.size(), 30u);
        if (!counterInfo(v.id).exact) continue;
        for (long long c : v.counts)
          EXPECT_EQ(c, p.expected()) << counterInfo(v.id).key << " " << blocks << " x " << threads;
      }
    }
}

TEST(AtomicsGpu, ThePlainCounterLosesUpdates) {
  // The course's 64 x 64: no value is asserted, only that runs lose updates and never count
  // more than there were. (On an H100 all 64 blocks run at once and every run ends at 1.)
  RaceParams course{kCourseBlocks, kCourseThreads, 200};
  Result<RaceReport> r = runRace(course, nullptr, nullptr);
  ASSERT_TRUE(r) << r.status().sentence();
  const RaceVariant* plain = r->find(CounterId::Plain);
  ASSERT_NE(plain, nullptr);
  EXPECT_LT(plain->minCount(), course.expected());
  EXPECT_LE(plain->maxCount(), course.expected());
  EXPECT_GE(plain->minCount(), 1);
  // More blocks than the GPU holds at once: later blocks read earlier blocks' writes, and the
  // count spreads from run to run.
  RaceParams waves{16384, 256, 100};
  Result<RaceReport> w = runRace(waves, nullptr, nullptr);
  ASSERT_TRUE(w) << w.status().sentence();
  const RaceVariant* spread = w->find(CounterId::Plain);
  ASSERT_NE(spread, nullptr);
  EXPECT_GT(spread->distinct(), 1) << "every run gave " << spread->minCount();
  EXPECT_LT(spread->maxCount(), waves.expected());
}

TEST(AtomicsGpu, ContentionSweepsCountExactly) {
  Result<std::vector<ContentionPoint>> t = measureThreadSweep({1 << 10, 1 << 16}, nullptr, nullptr);
  ASSERT_TRUE(t) << t.status().sentence();
  for (const ContentionPoint& c : *t) {
    if (counterInfo(c.id).exact) {
      EXPECT_TRUE(c.ok) << counterInfo(c.id).key << " " << c.threads;
    }
  }
  Result<std::vector<ContentionPoint>> a =
      measureAddressSweep(1 << 16, defaultAddressCounts(1 << 16), nullptr, nullptr);
  ASSERT_TRUE(a) << a.status().sentence();
  ASSERT_EQ(a->size(), 17u);
  for (const ContentionPoint& c : *a)
    EXPECT_TRUE(c.ok) << c.addresses << " counters";
  EXPECT_FALSE(measureAddressSweep(1 << 16, {3}, nullptr, nullptr));  // does not divide
}

TEST(AtomicsGpu, RefusedBeforeAnyLaunch) {
  HistParams p;
  p.block = 100;
  EXPECT_FALSE(measureHistLadder(p, allHistSteps(), nullptr, nullptr));
  p.block = 256;
  p.bins = 5000;
  EXPECT_FALSE(measureHistLadder(p, allHistSteps(), nullptr, nullptr));
  EXPECT_FALSE(runRace(RaceParams{64, 2048, 1}, nullptr, nullptr));
}

}  // namespace
}  // namespace cudalab::atomics
