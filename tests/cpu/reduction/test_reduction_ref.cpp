// The reduction lesson's CPU reference, checked without a GPU: the random inputs (sizes, one
// seed's numbers, float64 and int32 derived from the float32 ones), the exact sum and the CPU's
// float sums on hand-made data where the order of additions shows, int32 sums past 2^31 and
// their 32-bit wrap, the float sums on fresh random data within their textbook bounds, the
// rounding depths and error bounds of each step's order, and a CPU emulation of the tree model's
// additions (one block, then whole launch plans) that must reproduce the sum within the bound.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "precision/summation.hpp"
#include "reduction/reduction.hpp"

namespace cudalab::reduction {
namespace {

// The float64 pairwise sum: precision::sumPairwise's float64 overload, which cpuSums uses.
double sumPairwise64(std::span<const double> x) {
  return precision::sumPairwise(x);
}

constexpr double kU32 = 0x1p-24;  // float32's unit roundoff
constexpr double kU64 = 0x1p-53;  // float64's

std::uint64_t freshSeed() {
  std::random_device rd;
  return (std::uint64_t{rd()} << 32) | rd();
}

HostData floats(std::vector<float> v) {
  HostData d;
  d.type = DataType::Float32;
  d.f32 = std::move(v);
  return d;
}
HostData doubles(std::vector<double> v) {
  HostData d;
  d.type = DataType::Float64;
  d.f64 = std::move(v);
  return d;
}
HostData ints(std::vector<std::int32_t> v) {
  HostData d;
  d.type = DataType::Int32;
  d.i32 = std::move(v);
  return d;
}

double err(double value, long double exact) {
  return static_cast<double>(std::fabs(static_cast<long double>(value) - exact));
}

// One block's sum in the order the tree model gives: slot[dst] = slot[dst] + slot[src], level by
// level, op by op (within a level no slot is both written and read, so the order inside a level
// does not matter).
template <class T>
T runTree(const TreeModel& m, std::vector<T> slot) {
  for (const TreeLevel& l : m.levels)
    for (const TreeOp& op : l.ops) {
      const auto d = static_cast<std::size_t>(op.dst), s = static_cast<std::size_t>(op.src);
      slot[d] = slot[d] + slot[s];
    }
  return slot[0];
}

// ---------------------------------------------------------------------------------------------
// makeData
// ---------------------------------------------------------------------------------------------

TEST(ReductionData, Sizes) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (DataType t : kTypes) {
    SCOPED_TRACE(typeLabel(t));
    for (long long n : {0LL, 1LL, 7LL, 1000LL, 12345LL}) {
      const HostData d = makeData(t, n, seed);
      EXPECT_EQ(d.type, t);
      EXPECT_EQ(d.size(), n);
      EXPECT_EQ(d.f32.size(), t == DataType::Float32 ? static_cast<std::size_t>(n) : 0u);
      EXPECT_EQ(d.f64.size(), t == DataType::Float64 ? static_cast<std::size_t>(n) : 0u);
      EXPECT_EQ(d.i32.size(), t == DataType::Int32 ? static_cast<std::size_t>(n) : 0u);
      if (n > 0) {
        const void* want = t == DataType::Float32   ? static_cast<const void*>(d.f32.data())
                           : t == DataType::Float64 ? static_cast<const void*>(d.f64.data())
                                                    : static_cast<const void*>(d.i32.data());
        EXPECT_EQ(d.data(), want);
      }
    }
  }
}

TEST(ReductionData, OneSeedOneSequence) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostData a = makeData(DataType::Float32, 5000, seed);
  const HostData b = makeData(DataType::Float32, 5000, seed);
  EXPECT_EQ(a.f32, b.f32);
  const HostData c = makeData(DataType::Float32, 5000, seed + 1);
  int same = 0;
  for (std::size_t i = 0; i < a.f32.size(); ++i)
    same += a.f32[i] == c.f32[i] ? 1 : 0;
  EXPECT_LT(same, 10) << "seeds " << seed << " and " << seed + 1 << " give the same numbers";
  for (float v : a.f32)
    EXPECT_TRUE(std::isfinite(v));
}

TEST(ReductionData, Float64AndInt32FollowFloat32) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const long long n = 20000;
  const HostData f = makeData(DataType::Float32, n, seed);
  const HostData d = makeData(DataType::Float64, n, seed);
  const HostData i = makeData(DataType::Int32, n, seed);
  ASSERT_EQ(d.f64.size(), f.f32.size());
  ASSERT_EQ(i.i32.size(), f.f32.size());
  int mismatchF64 = 0, mismatchI32 = 0, farI32 = 0;
  for (std::size_t k = 0; k < f.f32.size(); ++k) {
    // Widened exactly: the same number.
    mismatchF64 += d.f64[k] == static_cast<double>(f.f32[k]) ? 0 : 1;
    // 100 x in float32, rounded to the nearest integer...
    mismatchI32 += i.i32[k] == std::lround(100.0f * f.f32[k]) ? 0 : 1;
    // ... so within half a unit (and float32's rounding of 100 x) of the exact 100 x.
    farI32 += std::fabs(static_cast<double>(i.i32[k]) - 100.0 * f.f32[k]) <= 0.5 + 1e-4 ? 0 : 1;
  }
  EXPECT_EQ(mismatchF64, 0);
  EXPECT_EQ(mismatchI32, 0);
  EXPECT_EQ(farI32, 0);
}

// Past one block of the copies (2^22 numbers), and on several threads: the numbers are the ones a
// single float32 draw gives. A cancel gives no numbers at all, never some of them.
TEST(ReductionData, LargeDataIsWholeOrCancelledToNothing) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const long long n = (1LL << 22) + 12345;
  const std::vector<float> x = precision::normalFloats(static_cast<std::size_t>(n), seed);
  ASSERT_EQ(x.size(), static_cast<std::size_t>(n));
  const HostData d = makeData(DataType::Float64, n, seed);
  const HostData i = makeData(DataType::Int32, n, seed);
  ASSERT_EQ(d.f64.size(), x.size());
  ASSERT_EQ(i.i32.size(), x.size());
  long long mismatches = 0;
  for (std::size_t k = 0; k < x.size(); ++k)
    mismatches += (d.f64[k] == static_cast<double>(x[k]) ? 0 : 1) +
                  (i.i32[k] == std::lround(100.0f * x[k]) ? 0 : 1);
  EXPECT_EQ(mismatches, 0);

  std::atomic<bool> stop{true};
  EXPECT_TRUE(precision::normalFloats(static_cast<std::size_t>(n), seed, &stop).empty());
  for (DataType t : {DataType::Float32, DataType::Float64, DataType::Int32}) {
    const HostData c = makeData(t, n, seed, &stop);
    EXPECT_EQ(c.size(), 0) << typeLabel(t);
    EXPECT_EQ(c.type, t);
  }
  // A cancel at some moment during the work: everything or nothing.
  for (int delayUs : {0, 200, 2000, 20000}) {
    std::atomic<bool> later{false};
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(delayUs));
      later = true;
    });
    const HostData c = makeData(DataType::Float64, n, seed, &later);
    canceller.join();
    SCOPED_TRACE("cancelled after " + std::to_string(delayUs) + " us");
    if (c.size() == 0) continue;
    ASSERT_EQ(c.f64.size(), x.size());
    EXPECT_EQ(c.f64.front(), static_cast<double>(x.front()));
    EXPECT_EQ(c.f64.back(), static_cast<double>(x.back()));
  }
}

TEST(ReductionData, StandardNormal) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const long long n = 1000000;
  const HostData d = makeData(DataType::Float32, n, seed);
  double sum = 0, squares = 0;
  for (float v : d.f32) {
    sum += v;
    squares += double(v) * v;
  }
  const double mean = sum / double(n), var = squares / double(n) - mean * mean;
  // Standard errors: 1 / sqrt(n) = 0.001 for the mean, sqrt(2 / n) = 0.0014 for the variance.
  EXPECT_LT(std::fabs(mean), 0.006);
  EXPECT_LT(std::fabs(var - 1.0), 0.01);
}

// ---------------------------------------------------------------------------------------------
// cpuSums on hand-made data
// ---------------------------------------------------------------------------------------------

// 1e8 + 1 rounds back to 1e8 in float32 (its spacing there is 8): the 1 is lost in sequential
// and pairwise order (3 numbers: one chain). The exact sum keeps it. Kahan loses it too: the
// compensation -1 is folded into the next term, -1e8 + 1, which rounds back to -1e8 (Kahan's
// known weakness when a later term is much larger than the running sum; Neumaier's variant would
// keep it).
TEST(ReductionCpuSums, CancellationInFloat32) {
  const CpuSums r = cpuSums(floats({1e8f, 1.0f, -1e8f}));
  EXPECT_EQ(r.exact, 1.0L);
  EXPECT_EQ(r.sequential, 0.0);
  EXPECT_EQ(r.pairwise, 0.0);
  EXPECT_EQ(r.kahan, 0.0);
  EXPECT_EQ(r.absSum, 200000001.0);
  EXPECT_GE(r.sequentialMs, 0.0);
}

// 1e8 followed by a thousand 1s: exact 100,001,000 (a float32: 12,500,125 x 8). Sequential
// loses every 1 (1e8 + 1 rounds to 1e8); Kahan carries them in its compensation and lands within
// one spacing (8) of the exact sum. Pairwise: 1e8 lands in a first block of 7 (1001 halves 7
// times: 500, 250, 125, 62, 31, 15, 7), losing its six 1s; the other blocks' 1s add exactly, and
// each of the 7 additions back up to the whole rounds 1e8 + k by at most 4: error <= 6 + 28.
TEST(ReductionCpuSums, KahanKeepsSmallTerms) {
  std::vector<float> x(1001, 1.0f);
  x[0] = 1e8f;
  const CpuSums r = cpuSums(floats(x));
  EXPECT_EQ(r.exact, 100001000.0L);
  EXPECT_EQ(r.sequential, 1e8);
  EXPECT_LE(err(r.kahan, r.exact), 8.0);
  EXPECT_LE(err(r.pairwise, r.exact), 34.0);
  EXPECT_EQ(r.absSum, 100001000.0);
}

// float64: 2^53 + 1 rounds back to 2^53 (ties to even; spacing 2).
TEST(ReductionCpuSums, Float64Order) {
  std::vector<double> x(16, 1.0);
  x[0] = 0x1p53;
  const CpuSums r = cpuSums(doubles(x));
  EXPECT_EQ(r.exact, 0x1p53L + 15);
  EXPECT_EQ(r.sequential, 0x1p53);
  // Pairwise: two blocks of 8: 2^53 (its seven 1s lost) + 8.
  EXPECT_EQ(r.pairwise, 0x1p53 + 8);
  EXPECT_LE(err(r.kahan, r.exact), 2.0);
  // sum |x| is itself a float64 sum in index order: its 1s are lost the same way. It only
  // scales bounds, so being within a few units of 2^53 + 15 is all it needs.
  EXPECT_NEAR(r.absSum, 0x1p53 + 15, 16.0);
}

TEST(ReductionCpuSums, Int32IsExactPast32Bits) {
  const CpuSums r = cpuSums(ints({2000000000, 2000000000, 2000000000}));
  EXPECT_EQ(r.exact, 6000000000.0L);
  EXPECT_EQ(r.sequential, 6e9);
  EXPECT_EQ(r.pairwise, 6e9);
  EXPECT_EQ(r.kahan, 6e9);
  EXPECT_EQ(r.absSum, 6e9);
  // The GPU's int32 sum wraps: 3 x 2e9 in uint32 arithmetic.
  const std::uint32_t wrapped = 2000000000u + 2000000000u + 2000000000u;
  EXPECT_EQ(wrapInt32(r.exact), static_cast<std::int32_t>(wrapped));
  EXPECT_EQ(wrapInt32(r.exact), 1705032704);  // 6e9 - 2^32

  const CpuSums neg = cpuSums(ints({-5, 3, -2000000000, -2000000000}));
  EXPECT_EQ(neg.exact, -4000000002.0L);
  EXPECT_EQ(neg.absSum, 4000000008.0);
  const std::uint32_t negWrapped = std::uint32_t(-5) + std::uint32_t(3) +
                                   std::uint32_t(-2000000000) + std::uint32_t(-2000000000);
  EXPECT_EQ(wrapInt32(neg.exact), static_cast<std::int32_t>(negWrapped));
  EXPECT_EQ(wrapInt32(neg.exact), 294967294);  // -4,000,000,002 + 2^32
}

TEST(ReductionCpuSums, WrapInt32) {
  EXPECT_EQ(wrapInt32(0), 0);
  EXPECT_EQ(wrapInt32(-1), -1);
  EXPECT_EQ(wrapInt32(2147483647.0L), 2147483647);
  EXPECT_EQ(wrapInt32(2147483648.0L), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(wrapInt32(4000000000.0L), -294967296);  // 4e9 - 2^32
  EXPECT_EQ(wrapInt32(-4000000000.0L), 294967296);
  EXPECT_EQ(wrapInt32(4294967296.0L), 0);
}

TEST(ReductionCpuSums, EmptyIsZero) {
  for (DataType t : kTypes) {
    HostData d;
    d.type = t;
    const CpuSums r = cpuSums(d);
    EXPECT_EQ(r.exact, 0.0L) << typeLabel(t);
    EXPECT_EQ(r.sequential, 0.0);
    EXPECT_EQ(r.pairwise, 0.0);
    EXPECT_EQ(r.kahan, 0.0);
    EXPECT_EQ(r.absSum, 0.0);
  }
}

// ---------------------------------------------------------------------------------------------
// cpuSums on fresh random data, against the textbook bounds
// ---------------------------------------------------------------------------------------------

TEST(ReductionCpuSums, RandomFloat32WithinBounds) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const long long n = 1000000;
  const HostData d = makeData(DataType::Float32, n, seed);
  const CpuSums r = cpuSums(d);
  double abs = 0;
  long double exact = 0;
  for (float v : d.f32) {
    abs += std::fabs(double(v));
    exact += v;
  }
  EXPECT_NEAR(r.absSum, abs, 1e-9 * abs);
  // The exact sum agrees with an 80-bit (or wider) running sum far below float32's errors.
  EXPECT_LE(static_cast<double>(std::fabs(r.exact - exact)), 1e-9 * abs);
  // Sequential: (n - 1) roundings in a chain.
  const double seqBound = double(n - 1) * kU32 * r.absSum;
  EXPECT_LE(err(r.sequential, r.exact), seqBound);
  // Pairwise: blocks of 8 (7 roundings) then ceil(log2(n / 8)) = 17 levels: 24 roundings.
  EXPECT_LE(err(r.pairwise, r.exact), 25 * kU32 * r.absSum);
  EXPECT_LE(err(r.pairwise, r.exact), seqBound / 1000);
  // Kahan: (2u + O(n u^2)) sum |x|.
  EXPECT_LE(err(r.kahan, r.exact), (2 * kU32 + double(n) * kU32 * kU32) * r.absSum);
  // The float sums are float32 numbers.
  EXPECT_EQ(r.sequential, double(float(r.sequential)));
  EXPECT_EQ(r.pairwise, double(float(r.pairwise)));
  EXPECT_EQ(r.kahan, double(float(r.kahan)));
}

TEST(ReductionCpuSums, RandomFloat64AndInt32) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const long long n = 300000;
  const HostData f = makeData(DataType::Float32, n, seed);
  const CpuSums r32 = cpuSums(f);
  const HostData d = makeData(DataType::Float64, n, seed);
  const CpuSums r = cpuSums(d);
  // The same numbers: the same exact sum and sum |x|.
  EXPECT_EQ(r.exact, r32.exact);
  EXPECT_EQ(r.absSum, r32.absSum);
  EXPECT_LE(err(r.sequential, r.exact), double(n - 1) * kU64 * r.absSum);
  EXPECT_LE(err(r.pairwise, r.exact), 25 * kU64 * r.absSum);
  EXPECT_LE(err(r.kahan, r.exact), (2 * kU64 + double(n) * kU64 * kU64) * r.absSum);
  EXPECT_EQ(r.pairwise, sumPairwise64(d.f64));

  const HostData i = makeData(DataType::Int32, n, seed);
  const CpuSums ri = cpuSums(i);
  long long sum = 0, abs = 0;
  for (std::int32_t v : i.i32) {
    sum += v;
    abs += v < 0 ? -static_cast<long long>(v) : v;
  }
  EXPECT_EQ(ri.exact, static_cast<long double>(sum));
  EXPECT_EQ(ri.sequential, double(sum));
  EXPECT_EQ(ri.pairwise, double(sum));
  EXPECT_EQ(ri.kahan, double(sum));
  EXPECT_EQ(ri.absSum, double(abs));
}

// ---------------------------------------------------------------------------------------------
// The float64 pairwise sum (precision::sumPairwise's float64 overload, which cpuSums uses)
// ---------------------------------------------------------------------------------------------

TEST(ReductionPairwise64, HandWorked) {
  EXPECT_EQ(sumPairwise64({}), 0.0);
  const std::vector<double> one{2.5};
  EXPECT_EQ(sumPairwise64(one), 2.5);
  // 9 numbers: halves of 4 and 5. {2^53, 1, 1, 1}: each 1 is lost (2^53 + 1 ties to 2^53);
  // {1, 1, 1, 1, 1} = 5; 2^53 + 5 is a tie between 2^53 + 4 and 2^53 + 6: to even, 2^53 + 4.
  std::vector<double> nine(9, 1.0);
  nine[0] = 0x1p53;
  EXPECT_EQ(sumPairwise64(nine), 0x1p53 + 4);
  // 16 numbers: two blocks of 8: 2^53 and 8.
  std::vector<double> sixteen(16, 1.0);
  sixteen[0] = 0x1p53;
  EXPECT_EQ(sumPairwise64(sixteen), 0x1p53 + 8);
  // The 1s first: {1 x 8} = 8; {1 x 7, 2^53}: 7 exactly, then 7 + 2^53 rounds to 2^53 + 8 (the
  // nearer of 2^53 + 6 and 2^53 + 8); 8 + 2^53 + 8 = 2^53 + 16.
  sixteen[0] = 1.0;
  sixteen[15] = 0x1p53;
  EXPECT_EQ(sumPairwise64(sixteen), 0x1p53 + 16);
  // Up to 8 numbers: one chain, in order.
  const std::vector<double> eight{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  double chain = 0;
  for (double v : eight)
    chain += v;
  EXPECT_EQ(sumPairwise64(eight), chain);
}

TEST(ReductionPairwise64, RandomWithinLogBound) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::size_t n : {std::size_t{1000}, std::size_t{65537}, std::size_t{1} << 20}) {
    std::vector<double> x(n);
    for (double& v : x)
      v = u(rng) * std::exp2(u(rng) * 20);
    const CpuSums r = cpuSums(doubles(x));
    // Roundings along a path: 7 in a block of 8, one per halving: ceil(log2(n / 8)) <= log2 n.
    const double depth = std::ceil(std::log2(double(n))) + 7;
    EXPECT_LE(err(sumPairwise64(x), r.exact), depth * kU64 * r.absSum) << n;
  }
}

// ---------------------------------------------------------------------------------------------
// Rounding depths and error bounds
// ---------------------------------------------------------------------------------------------

TEST(ReductionBounds, HandWorkedDepths) {
  // Interleaved, course N, 256: 4 passes (see the plan test), each 1 number per thread + 4 + 8
  // levels = 13: 52.
  EXPECT_EQ(roundingDepth(StepId::Interleaved, DataType::Float32, kCourseN, 256, 1056), 52);
  // Multiple, 2^28, 256, 1,056 resident: pass 1 993 per thread + 4 + 8 = 1,005; pass 2
  // ceil(1056 / 256) = 5 + 4 + 8 = 17: 1,022. Shuffle has the same plan.
  EXPECT_EQ(roundingDepth(StepId::Multiple, DataType::Float32, 1LL << 28, 256, 1056), 1022);
  EXPECT_EQ(roundingDepth(StepId::Shuffle, DataType::Float32, 1LL << 28, 256, 1056), 1022);
  // Atomic: pass 1 (1,005), then the 1,056 blocks' atomicAdds in a chain: 2,061.
  EXPECT_EQ(roundingDepth(StepId::Atomic, DataType::Float32, 1LL << 28, 256, 1056), 2061);
  // Course: 1 + 4 + 7 = 12 on the GPU; the CPU's pairwise sum of 1,048,575 partial sums halves
  // 17 times to 8 and adds 8 in a chain: 12 + 17 + 8 = 37.
  // One partial sum per 128 numbers (1 + 4 for the load, 7 levels), then the CPU's NumPy order
  // over 1,048,575 partial sums: 128 buffers in a chain plus 33 inside one.
  EXPECT_EQ(roundingDepth(StepId::Course, DataType::Float32, kCourseN, 256, 1056),
            1 + 4 + 7 + 128 + 33);
  // CUB: n / 4096 + 128.
  EXPECT_EQ(roundingDepth(StepId::Cub, DataType::Float32, 1LL << 28, 256, 1056), 65536 + 128);
  EXPECT_EQ(roundingDepth(StepId::Cub, DataType::Float32, 1000, 256, 1056), 128);
}

// Atomic's plan is Shuffle's first pass; instead of Shuffle's second pass (ceil(grid / block)
// per thread + 4 + log2 block) it adds one rounding per block. With a single block Shuffle has no
// second pass and Atomic's one atomicAdd is the only difference.
TEST(ReductionBounds, AtomicAgainstShuffle) {
  for (long long n : {1000LL, 100000LL, 1LL << 24, kCourseN}) {
    for (int block : {64, 256, 1024}) {
      for (long long resident : {1LL, 132LL, 1056LL}) {
        SCOPED_TRACE("n " + std::to_string(n) + " block " + std::to_string(block) + " resident " +
                     std::to_string(resident));
        const long long grid =
            passPlan(StepId::Atomic, DataType::Float32, n, block, resident)[0].grid;
        long long log2Block = 0;
        for (int b = block; b > 1; b /= 2)
          ++log2Block;
        const long long secondPass = grid > 1 ? (grid + block - 1) / block + 4 + log2Block : 0;
        EXPECT_EQ(roundingDepth(StepId::Atomic, DataType::Float32, n, block, resident) -
                      roundingDepth(StepId::Shuffle, DataType::Float32, n, block, resident),
                  grid - secondPass);
      }
    }
  }
}

TEST(ReductionBounds, Int32IsExact) {
  for (StepId id : allStepIds())
    EXPECT_EQ(errorBound(id, DataType::Int32, kCourseN, 256, 1056, 1e9), 0.0) << stepInfo(id).key;
}

TEST(ReductionBounds, PrecisionAndN) {
  for (StepId id : allStepIds()) {
    SCOPED_TRACE(stepInfo(id).key);
    const double f32 = errorBound(id, DataType::Float32, kCourseN, 256, 1056, 1e8);
    const double f64 = errorBound(id, DataType::Float64, kCourseN, 256, 1056, 1e8);
    EXPECT_GT(f32, 0.0);
    EXPECT_GT(f64, 0.0);
    // u differs by 2^29 (5.4e8) and the depths are the same here (the 16-byte loads' grid is
    // the 1,056 resident blocks for both types).
    EXPECT_GT(f32, f64 * 1e8);
    // gamma_d sum|x|, d the depth.
    const double d = double(roundingDepth(id, DataType::Float32, kCourseN, 256, 1056));
    EXPECT_DOUBLE_EQ(f32, d * kU32 / (1 - d * kU32) * 1e8);
    // Linear in sum |x|.
    EXPECT_DOUBLE_EQ(errorBound(id, DataType::Float32, kCourseN, 256, 1056, 2e8), 2 * f32);
    // More numbers, a bound at least as large; much more, strictly larger (every step's chain
    // grows somewhere: the plan's passes, the per-thread loop, the atomics or CUB's share).
    EXPECT_LE(errorBound(id, DataType::Float32, 1000, 256, 1056, 1e8),
              errorBound(id, DataType::Float32, 1LL << 20, 256, 1056, 1e8));
    EXPECT_LT(errorBound(id, DataType::Float32, 1000, 256, 1056, 1e8),
              errorBound(id, DataType::Float32, 1LL << 29, 256, 1056, 1e8));
  }
}

TEST(ReductionBounds, InfiniteWhenDepthTimesUReachesOne) {
  // CUB, float32: d = n / 4096 + 128. At the largest N (2^29), d = 131,200: finite.
  EXPECT_TRUE(std::isfinite(errorBound(StepId::Cub, DataType::Float32, 1LL << 29, 256, 1, 1.0)));
  // d = 2^24 exactly: d u = 1, no bound.
  const long long nInf = ((1LL << 24) - 128) * 4096;
  ASSERT_EQ(roundingDepth(StepId::Cub, DataType::Float32, nInf, 256, 1), 1LL << 24);
  EXPECT_EQ(errorBound(StepId::Cub, DataType::Float32, nInf, 256, 1, 1.0),
            std::numeric_limits<double>::infinity());
  // float64's u is 2^29 times smaller: finite.
  EXPECT_TRUE(std::isfinite(errorBound(StepId::Cub, DataType::Float64, nInf, 256, 1, 1.0)));
  // One less: d = 2^24 - 1, 1 - d u = 2^-24, so the bound is d sum|x|.
  const long long nBig = nInf - 4096;
  EXPECT_EQ(errorBound(StepId::Cub, DataType::Float32, nBig, 256, 1, 3.0),
            double((1LL << 24) - 1) * 3.0);
  // Multiple with one resident block of 64 threads: 2^30 / 64 = 2^24 numbers per thread.
  EXPECT_EQ(errorBound(StepId::Multiple, DataType::Float32, 1LL << 30, 64, 1, 1.0),
            std::numeric_limits<double>::infinity());
  // Within the app's ranges (N <= 2^29, block >= 64) every float32 bound stays finite, even
  // with one resident block: the longest chain is 2^29 / 64 = 2^23 per thread.
  for (StepId id : allStepIds())
    EXPECT_TRUE(std::isfinite(errorBound(id, DataType::Float32, 1LL << 29, 64, 1, 1.0)))
        << stepInfo(id).key;
}

// ---------------------------------------------------------------------------------------------
// The tree model's additions, emulated on the CPU
// ---------------------------------------------------------------------------------------------

// One block of 64 fresh random floats, added in float32 in the order the model's levels and ops
// give: slot 0 must end as the sum of all 64, within (levels) u sum|x| of the exact sum (each
// input goes through at most one rounding per level). The same additions in int64 are exact.
TEST(ReductionEmulation, OneBlockMatchesTheExactSum) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> integer(-1000000, 1000000);
  for (const StepInfo& s : steps()) {
    if (!handWritten(s)) continue;
    SCOPED_TRACE(s.key);
    for (int block : {64, 256, 1024}) {
      SCOPED_TRACE("block " + std::to_string(block));
      Result<TreeModel> m = treeModel(s.id, block, DataType::Float32);
      ASSERT_TRUE(m.ok()) << m.status().message();
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<float> x(static_cast<std::size_t>(block));
        std::vector<std::int64_t> k(x.size());
        for (float& v : x)
          v = normal(rng);
        for (std::int64_t& v : k)
          v = integer(rng);
        const CpuSums r = cpuSums(floats(x));
        const float tree = runTree(*m, x);
        EXPECT_LE(err(tree, r.exact), double(m->levels.size()) * kU32 * r.absSum)
            << "tree " << tree << ", exact " << static_cast<double>(r.exact);
        std::int64_t want = 0;
        for (std::int64_t v : k)
          want += v;
        EXPECT_EQ(runTree(*m, k), want);
      }
    }
  }
}

// The brief's two cases in detail: Interleaved and Sequential, 64 threads. Their trees add in
// different orders, so they may differ in the last bits, but each is within 6 u sum|x|.
TEST(ReductionEmulation, InterleavedAndSequentialBlock64) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(64);
  for (float& v : x)
    v = u(rng) * std::exp2(u(rng) * 10.0f);
  const CpuSums r = cpuSums(floats(x));
  for (StepId id : {StepId::Interleaved, StepId::Sequential}) {
    Result<TreeModel> m = treeModel(id, 64, DataType::Float32);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->levels.size(), 6u);
    EXPECT_LE(err(runTree(*m, x), r.exact), 6 * kU32 * r.absSum) << stepInfo(id).key;
  }
  // Interleaved's first level adds neighbours: slot 0 = x0 + x1. Sequential's adds x0 + x32.
  Result<TreeModel> inter = treeModel(StepId::Interleaved, 64, DataType::Float32);
  Result<TreeModel> seq = treeModel(StepId::Sequential, 64, DataType::Float32);
  ASSERT_TRUE(inter.ok() && seq.ok());
  EXPECT_EQ(inter->levels[0].ops[0].src, 1);
  EXPECT_EQ(seq->levels[0].ops[0].src, 32);
}

// Whole launch plans of the tree-shaped steps, emulated pass by pass: each block loads its
// numbers (one per thread, or x[i] + x[i + blockDim] from step 4 on; past the end, 0), runs the
// model's tree, and its sum is the next pass's input. The result must be within errorBound.
// The course's kernel likewise: blocks of 128, then the CPU's sum of the partial sums in NumPy's
// order.
TEST(ReductionEmulation, WholePlansWithinTheBound) {
  const std::uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const long long n = 200000 + static_cast<long long>(rng() % 1000);
  SCOPED_TRACE("n " + std::to_string(n));
  const HostData d = makeData(DataType::Float32, n, seed);
  const CpuSums r = cpuSums(d);
  for (const StepInfo& s : steps()) {
    if (s.shape != Shape::Tree && s.shape != Shape::Course) continue;
    SCOPED_TRACE(s.key);
    for (int block : {64, 256, 1024}) {
      SCOPED_TRACE("block " + std::to_string(block));
      std::vector<float> in = d.f32;
      const std::vector<Pass> plan = passPlan(s.id, DataType::Float32, n, block, 1);
      ASSERT_FALSE(plan.empty());
      for (const Pass& p : plan) {
        ASSERT_EQ(p.n, static_cast<long long>(in.size()));
        Result<TreeModel> m = treeModel(s.id, p.block, DataType::Float32);
        ASSERT_TRUE(m.ok()) << m.status().message();
        const auto pb = static_cast<std::size_t>(p.block);
        const std::size_t loads = s.loadsPerThread == 2 ? 2 : 1;
        std::vector<float> out(static_cast<std::size_t>(p.grid));
        for (std::size_t b = 0; b < out.size(); ++b) {
          std::vector<float> slot(pb, 0.0f);
          for (std::size_t t = 0; t < pb; ++t) {
            const std::size_t i = b * pb * loads + t;
            const float a = i < in.size() ? in[i] : 0.0f;
            const float c = loads == 2 && i + pb < in.size() ? in[i + pb] : 0.0f;
            slot[t] = loads == 2 ? a + c : a;
          }
          out[b] = runTree(*m, slot);
        }
        in = std::move(out);
      }
      // The course's partial sums are added on the CPU in NumPy's order, as the step does.
      const float sum = s.shape == Shape::Course
                            ? static_cast<float>(sumNumpyOrder(std::span<const float>(in)))
                            : in.at(0);
      if (s.shape != Shape::Course) {
        EXPECT_EQ(in.size(), 1u);
      }
      const double bound = errorBound(s.id, DataType::Float32, n, block, 1, r.absSum);
      EXPECT_LE(err(sum, r.exact), bound)
          << "sum " << sum << ", exact " << static_cast<double>(r.exact);
    }
  }
}

}  // namespace
}  // namespace cudalab::reduction

namespace cudalab::reduction {
namespace {

// NumPy's order: the first number, then each 8,192-number buffer summed pairwise (8 accumulators
// for up to 128 numbers) and added. 2^24 followed by eight 1s: the buffer's pairwise sum is 8,
// exact, and 2^24 + 8 is a float; one accumulator instead adds each 1 to 2^24, where the half-way
// 2^24 + 1 rounds back to 2^24 (ties to even) every time.
TEST(ReductionCpuSums, NumpyOrderSumsEachBufferPairwise) {
  HostData d;
  d.type = DataType::Float32;
  d.f32 = {16777216.0f, 1, 1, 1, 1, 1, 1, 1, 1};
  const CpuSums s = cpuSums(d);
  EXPECT_EQ(s.numpy, 16777224.0);
  EXPECT_EQ(s.sequential, 16777216.0);
  EXPECT_EQ(static_cast<double>(s.exact), 16777224.0);
  // Past one buffer the buffers' sums are added one after another: 1 + 8,192 ones + 3 ones.
  HostData e;
  e.type = DataType::Float32;
  e.f32.assign(1 + 8192 + 3, 1.0f);
  EXPECT_EQ(cpuSums(e).numpy, 8196.0);
}

}  // namespace
}  // namespace cudalab::reduction
