// The atomics lesson without a GPU: the bin rule on its edges, the reference histograms, the
// atomics each step issues, the warp-aggregation replay, the inputs and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "atomics/atomics.hpp"

using namespace cudalab;
using namespace cudalab::atomics;

TEST(AtomicsBins, FloatEdgesOutOfRangeAndNaN) {
  // [0, 8) in 8 bins of exactly 1: every edge is a whole number.
  const BinRule r{0.0f, 8.0f, 1.0f, 8};
  EXPECT_EQ(binOf(0.0f, r), 0);
  EXPECT_EQ(binOf(-0.0f, r), 0);
  EXPECT_EQ(binOf(3.0f, r), 3);  // on an edge: the bin above
  EXPECT_EQ(binOf(std::nextafter(3.0f, 0.0f), r), 2);
  EXPECT_EQ(binOf(std::nextafter(8.0f, 0.0f), r), 7);
  EXPECT_EQ(binOf(8.0f, r), -1);    // xmax itself is outside [xmin, xmax)
  EXPECT_EQ(binOf(-1e-7f, r), -1);  // below xmin: dropped (the course's int() would say bin 0)
  EXPECT_EQ(binOf(std::numeric_limits<float>::quiet_NaN(), r), -1);
  EXPECT_EQ(binOf(std::numeric_limits<float>::infinity(), r), -1);
  EXPECT_EQ(binOf(-std::numeric_limits<float>::infinity(), r), -1);
  EXPECT_EQ(binOf(1e30f, r), -1);
  // The course's range: [-4, 4) in 10 bins of 0.8. -3.2 is an edge on paper but not in float32:
  // (-3.2f + 4) x 1.25 is just under 1.
  HistParams p;
  p.bins = 10;
  const BinRule c = binRule(p);
  EXPECT_FLOAT_EQ(c.scale, 1.25f);
  EXPECT_EQ(binOf(-4.0f, c), 0);
  EXPECT_EQ(binOf(-3.2f, c), 0);
  EXPECT_EQ(binOf(std::nextafter(-3.2f, 0.0f), c), 1);
  EXPECT_EQ(binOf(0.0f, c), 5);
  EXPECT_EQ(binOf(3.9f, c), 9);
  // The last float below 4 is inside [-4, 4), but (x + 4) rounds to 8 and 8 x 1.25 is 10: it is
  // not counted, by the course's float32 arithmetic (8 / 0.8f) as by the kernels' and CUB's.
  EXPECT_EQ(binOf(std::nextafter(4.0f, 0.0f), c), -1);
  EXPECT_EQ(courseCpuHistogram({std::nextafter(4.0f, 0.0f)}, -4.0f, 4.0f, 10)[9], 0u);
}

TEST(AtomicsBins, EightBitValues) {
  BinRule r;
  r.bins = 256;
  for (int v = 0; v < 256; ++v)
    EXPECT_EQ(binOf(std::uint8_t(v), r), v);
  r.bins = 10;  // (v * 10) / 256
  EXPECT_EQ(binOf(std::uint8_t(0), r), 0);
  EXPECT_EQ(binOf(std::uint8_t(25), r), 0);
  EXPECT_EQ(binOf(std::uint8_t(26), r), 1);
  EXPECT_EQ(binOf(std::uint8_t(255), r), 9);
  r.bins = 1;
  EXPECT_EQ(binOf(std::uint8_t(200), r), 0);
  r.bins = 4096;  // more bins than values: every 16th bin used
  EXPECT_EQ(binOf(std::uint8_t(1), r), 16);
}

TEST(AtomicsReference, OneThreadAndAllCoresAgree) {
  for (Source s : {Source::Normal, Source::Pixels, Source::Uniform}) {
    HistParams p;
    p.source = s;
    p.n = (1 << 20) + 7;
    p.bins = 97;
    p.skew = 0.3;
    const HistInput in = makeInput(p, 1234);
    ASSERT_EQ(in.size(), p.n);
    const std::vector<std::uint32_t> one = cpuHistogram(in, binRule(p), 1);
    const std::vector<std::uint32_t> all = cpuHistogram(in, binRule(p), 0);
    const std::vector<std::uint32_t> three = cpuHistogram(in, binRule(p), 3);
    EXPECT_EQ(one, all);
    EXPECT_EQ(one, three);
    long long total = 0;
    for (std::uint32_t c : one)
      total += c;
    if (s == Source::Normal)
      EXPECT_LT(total, p.n);  // a few normals lie outside [-4, 4)
    else
      EXPECT_EQ(total, p.n);  // every byte is in [0, 256)
  }
}

TEST(AtomicsReference, HandCountedAndTheCourseQuirk) {
  HistInput in;
  in.source = Source::Normal;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  in.f = {-4.0f, -3.99f, -4.1f, 0.0f, 0.5f, 3.99f, 4.0f, nan, -0.5f};
  HistParams p;
  p.bins = 8;  // [-4, 4) in bins of 1
  const std::vector<std::uint32_t> h = cpuHistogram(in, binRule(p), 1);
  const std::vector<std::uint32_t> want = {2, 0, 0, 1, 2, 0, 0, 1};
  EXPECT_EQ(h, want);
  // The course's np.int32 truncates toward zero: -4.1 gives -0.1 -> 0, so it lands in bin 0.
  const std::vector<std::uint32_t> course = courseCpuHistogram(in.f, -4.0f, 4.0f, 8);
  std::vector<std::uint32_t> courseWant = want;
  courseWant[0] = 3;
  EXPECT_EQ(course, courseWant);
}

TEST(AtomicsReference, InputsAreSeededAndSkewed) {
  HistParams p;
  p.source = Source::Uniform;
  p.n = 100000;
  p.skew = 1;
  const HistInput all = makeInput(p, 7);
  for (std::uint8_t v : all.u8)
    ASSERT_EQ(v, 0);
  p.skew = 0;
  const HistInput a = makeInput(p, 7), b = makeInput(p, 7), c = makeInput(p, 8);
  EXPECT_EQ(a.u8, b.u8);
  EXPECT_NE(a.u8, c.u8);
  p.source = Source::Normal;
  const HistInput n = makeInput(p, 9);
  double mean = 0;
  for (float x : n.f)
    mean += x;
  EXPECT_NEAR(mean / double(p.n), 0.0, 0.02);
}

TEST(AtomicsModel, AtomicsPerElement) {
  const long long n = 1 << 20;
  EXPECT_EQ(atomicsPerElement(HistStepId::Global, n, 256, 4096).global, 1);
  EXPECT_EQ(atomicsPerElement(HistStepId::Global, n, 256, 4096).shared, 0);
  // 1,056 blocks (132 SMs x 8) each merging 256 bins: 270,336 global atomics for 2^20 values.
  const AtomicsPerElement s = atomicsPerElement(HistStepId::Shared, n, 256, 1056);
  EXPECT_DOUBLE_EQ(s.global, 1056.0 * 256 / n);
  EXPECT_EQ(s.shared, 1);
  EXPECT_DOUBLE_EQ(atomicsPerElement(HistStepId::Aggregated, n, 256, 1056, 1).shared, 1.0 / 32);
  EXPECT_DOUBLE_EQ(atomicsPerElement(HistStepId::Aggregated, n, 256, 1056, 32).shared, 1.0);
  EXPECT_EQ(atomicsPerElement(HistStepId::CpuAll, n, 256, 0).global, 0);
  EXPECT_LT(atomicsPerElement(HistStepId::Cub, n, 256, 0).global, 0);  // the library's own
  EXPECT_EQ(subHistograms(4096, 256, 227 * 1024), 8);   // 16 KiB each: all 8 warps fit
  EXPECT_EQ(subHistograms(4096, 256, 48 * 1024), 3);    // only 3 copies fit in 48 KiB
  EXPECT_EQ(subHistograms(256, 1024, 227 * 1024), 32);  // one per warp
  EXPECT_EQ(subHistograms(4096, 32, 1024), 1);          // never less than one
  EXPECT_EQ(laneColumns(256, 227 * 1024), 32);          // 32 KiB: one column per lane
  EXPECT_EQ(laneColumns(4096, 227 * 1024), 14);         // 16 KiB per column
  EXPECT_EQ(laneColumns(4096, 1024), 1);
  EXPECT_EQ(atomicsPerElement(HistStepId::Lanes, n, 256, 1056).shared, 1);
}

TEST(AtomicsModel, DistinctBinsPerWarpInstruction) {
  HistParams p;
  p.source = Source::Uniform;
  p.bins = 256;
  p.n = 1 << 20;
  p.skew = 1;
  EXPECT_DOUBLE_EQ(distinctPerWarp(makeInput(p, 1), binRule(p)), 1.0);
  p.skew = 0;
  // 32 uniform bytes among 256 values: 256 (1 - (255/256)^32) = 30.2 distinct on average.
  EXPECT_NEAR(distinctPerWarp(makeInput(p, 1), binRule(p)), 30.2, 0.2);
  // By hand: 64 bytes = 4 chunks of 16, one warp instruction per byte position j holding the
  // j-th byte of each of the 4 chunks. Chunk c's bytes are all c, so each instruction has 4
  // distinct bins.
  HistInput in;
  in.source = Source::Uniform;
  for (int c = 0; c < 4; ++c)
    for (int j = 0; j < 16; ++j)
      in.u8.push_back(std::uint8_t(c));
  EXPECT_DOUBLE_EQ(distinctPerWarp(in, binRule(p)), 4.0);
  // Plus a tail of 3 equal bytes: one more instruction with 1 distinct bin.
  in.u8.insert(in.u8.end(), {9, 9, 9});
  EXPECT_DOUBLE_EQ(distinctPerWarp(in, binRule(p)), (16 * 4.0 + 1) / 17);
}

TEST(AtomicsModel, Comparison) {
  const std::vector<std::uint32_t> a = {1, 2, 3, 4};
  EXPECT_TRUE(compareHistograms(a, a).ok());
  EXPECT_EQ(compareHistograms(a, a).counted, 10);
  const HistCheck c = compareHistograms(a, {1, 2, 0xFFFFFFFFu, 5});
  EXPECT_EQ(c.wrongBins, 2);
  EXPECT_EQ(c.firstWrong, 2);
  EXPECT_EQ(c.expected, 3u);
  EXPECT_EQ(c.got, 0xFFFFFFFFu);
  EXPECT_FALSE(compareHistograms(a, {1, 2}).ok());
}

TEST(AtomicsValidation, RefusalsTeach) {
  HistParams p;
  EXPECT_TRUE(validate(p));
  p.bins = 0;
  EXPECT_NE(validate(p).sentence().find("Bins"), std::string::npos);
  p.bins = 4097;
  EXPECT_FALSE(validate(p));
  p.bins = 256;
  p.block = 100;
  EXPECT_NE(validate(p).sentence().find("multiple of 32"), std::string::npos);
  p.block = 256;
  p.n = 0;
  EXPECT_FALSE(validate(p));
  p.n = (1LL << 28) + 1;
  EXPECT_FALSE(validate(p));
  p.n = 1 << 20;
  p.xmin = 4;
  p.xmax = 4;
  EXPECT_NE(validate(p).sentence().find("xmin < xmax"), std::string::npos);
  p.xmin = -4;
  p.n = 1LL << 28;
  const Status mem = validate(p, 1LL << 30);  // 1 GiB of floats, twice, does not fit in 1 GiB
  EXPECT_NE(mem.sentence().find("smaller N"), std::string::npos) << mem.sentence();
  p.source = Source::Uniform;
  p.skew = 1.5;
  EXPECT_FALSE(validate(p));

  RaceParams r;
  EXPECT_TRUE(validate(r));
  EXPECT_EQ(r.expected(), 4096);
  r.threads = 2000;
  EXPECT_NE(validate(r).sentence().find("1,024"), std::string::npos);
  r.threads = 64;
  r.repeats = 1001;
  EXPECT_FALSE(validate(r));
}

TEST(AtomicsRace, StoryAndAtomicCounts) {
  const RaceStory apart = raceStory(false), mixed = raceStory(true);
  EXPECT_EQ(apart.expected, 64);
  EXPECT_EQ(apart.result, 2);  // each warp adds 1, not 32
  EXPECT_EQ(mixed.result, 1);  // and warp B overwrote warp A's write
  ASSERT_EQ(mixed.events.size(), 4u);
  EXPECT_FALSE(mixed.events[1].write);
  EXPECT_EQ(mixed.events[1].value, 0);  // B read before A wrote
  // The course's 64 x 64.
  EXPECT_EQ(globalAtomics(CounterId::Plain, 64, 64), 0);
  EXPECT_EQ(globalAtomics(CounterId::Global, 64, 64), 4096);
  EXPECT_EQ(globalAtomics(CounterId::Shared, 64, 64), 64);
  EXPECT_EQ(globalAtomics(CounterId::Warp, 64, 64), 128);
  EXPECT_EQ(globalAtomics(CounterId::Warp, 1, 33), 2);  // a partial warp is a warp
  EXPECT_EQ(sharedAtomics(CounterId::Shared, 64, 64), 4096);
  EXPECT_EQ(defaultAddressCounts(8), (std::vector<long long>{1, 2, 4, 8}));
}

TEST(AtomicsTables, KeysAreUniqueAndExplained) {
  std::set<std::string> keys;
  for (const HistStepInfo& s : histSteps()) {
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_GT(std::string(s.help).size(), 40u);
    EXPECT_EQ(histStepByKey(s.key), s.id);
  }
  EXPECT_EQ(allHistSteps().size(), histSteps().size());
  for (const CounterInfo& c : counters())
    EXPECT_EQ(counterByKey(c.key), c.id);
  for (const SourceInfo& s : sources())
    EXPECT_EQ(sourceByKey(s.key), s.id);
  EXPECT_FALSE(histStepByKey("nope"));
}
