// Summation error: the sum of N random normal float32 numbers computed five ways.
//
// The course sums 2^27 - 157 normal numbers. In float32 a running sum soon becomes so large that
// each new term loses most of its digits; the order of the additions decides how much error
// piles up. The methods, from worst to best:
//   - sequential float32: one accumulator, N - 1 roundings in a chain (error grows like N eps);
//   - the GPU's tree order: each thread sums a strided slice, then blocks add in a tree (error
//     grows like (N / threads + log2 threads) eps: already much better);
//   - pairwise float32: halves summed recursively (error grows like log2 N eps);
//   - Kahan compensated float32: a second float carries the lost low-order bits (error about
//     2 eps, independent of N);
//   - float64: sequential in double, then rounded (the float32 result is almost always the
//     correctly rounded sum).
// The error is measured against the exact sum, accumulated in double-double (about 106 bits).
//
// [SECTION] Inputs
//   std::vector<float> x = normalFloats(kCourseSumCount, 42);   // N(0, 1), same for a seed
//
// [SECTION] Methods
//   for (const SumMethodInfo& m : sumMethods()) ...   // the one table: UI rows, exports, tests
//   float s = sumPairwise(x);
//   ExactSum e = sumExact(x);                          // e.value() as long double
//
// [SECTION] The GPU's tree order
//   TreeShape t = defaultTreeShape();
//   Result<float> g = sumTreeGpu(x, t);               // on the GPU (needs a device)
//   float c = sumTreeOrderCpu(x, t);                  // the same additions in the same order
//   // g and c are equal bit for bit: float addition is deterministic, only the order matters.
//
// [SECTION] Errors at one N and their growth with N
//   Result<SumResults> r = sumAll(x, /*useGpu=*/true);
//   Result<std::vector<SumResults>> g = sumGrowth(x, growthSizes(x.size()), true, &progress);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/params.hpp"
#include "common/status.hpp"
#include "precision/precision.hpp"

namespace cudalab::precision {

// ---------------------------------------------------------------------------------------------
// [SECTION] Inputs
// ---------------------------------------------------------------------------------------------

inline constexpr size_t kCourseSumCount = (size_t{1} << 27) - 157;

inline constexpr ParamSpec kSumCount{
    .id = "sum_n",
    .label = "Numbers summed",
    .min = 1024,
    .max = 134217728,
    .defaultValue = static_cast<double>(kCourseSumCount),
    .help =
        "How many random normal float32 numbers are added up. The course uses 2^27 - 157 "
        "(134,217,571), about half a gigabyte of floats.",
    .logScale = true};

// n numbers drawn from the standard normal distribution N(0, 1), rounded to float32;
// deterministic for a seed (SplitMix64 and the Box-Muller transform, so every platform gets the
// same numbers). Filled on all cores for large n. Setting `*cancel` stops it within a block of
// numbers (2^28 of them take seconds on a laptop): it then returns an empty vector.
std::vector<float> normalFloats(size_t n, uint64_t seed, const std::atomic<bool>* cancel = nullptr);

// ---------------------------------------------------------------------------------------------
// [SECTION] Methods
// ---------------------------------------------------------------------------------------------

enum class SumMethod { Sequential, GpuTree, Pairwise, Kahan, Float64 };
inline constexpr int kSumMethodCount = 5;

struct SumMethodInfo {
  SumMethod method;
  const char* id;     // "sequential", "gpu_tree", "pairwise", "kahan", "f64"
  const char* label;  // "Sequential float32", ...
  const char* help;   // for a learner: what the method does and why its error behaves as it does
  const char* bound;  // the error bound as a formula: "(N - 1) eps sum|x|"
  bool gpu;           // computed on the GPU (GpuTree; without a device its CPU emulation is shown)
};
// In the order of the enum.
std::span<const SumMethodInfo> sumMethods();
const SumMethodInfo& sumMethodInfo(SumMethod m);

// Each function reads the numbers in index order and returns the float32 (or float64) sum.
float sumSequential(std::span<const float> x);
// Recursive halving down to blocks of at most 8 numbers, which are added sequentially.
float sumPairwise(std::span<const float> x);
double sumPairwise(std::span<const double> x);  // the same order in float64
// Kahan's compensated summation in float32 (the file is compiled without reassociation, which
// would optimise the compensation away).
float sumKahan(std::span<const float> x);
double sumKahan(std::span<const double> x);  // the same in float64
// Sequential in float64, not rounded.
double sumDouble(std::span<const float> x);

// The exact sum as an unevaluated sum hi + lo of two doubles (error-free TwoSum at every step):
// its error is far below anything float32 or float64 summation can show.
struct ExactSum {
  double hi = 0;
  double lo = 0;
  long double value() const { return static_cast<long double>(hi) + lo; }
};
ExactSum sumExact(std::span<const float> x);
// sum |x_i| in double: with it, |error| / sum|x| is the quantity the bounds speak of.
double sumAbs(std::span<const float> x);

// ---------------------------------------------------------------------------------------------
// [SECTION] The GPU's tree order
// ---------------------------------------------------------------------------------------------
// Pass 1: block b, thread t adds x[i] for i = b*threads + t, + blocks*threads, ... sequentially
// in float32, then the block's threads add their partial sums in a shared-memory tree (stride
// threads/2, threads/4, ..., 1); thread 0 writes the block's sum. Pass 2: one block of `threads`
// threads does the same over the `blocks` partial sums. No atomics, so the result is
// deterministic.

struct TreeShape {
  int blocks = 1024;  // 1 .. 65535
  int threads = 256;  // a power of two, 32 .. 1024
};
TreeShape defaultTreeShape();
// Refuses shapes the kernels cannot run, with a sentence that says why.
Status validate(const TreeShape& t);
float sumTreeOrderCpu(std::span<const float> x, TreeShape t);
// Copies x to the device, runs the two passes and copies the sum back.
Result<float> sumTreeGpu(std::span<const float> x, TreeShape t);

// ---------------------------------------------------------------------------------------------
// [SECTION] Errors at one N and their growth with N
// ---------------------------------------------------------------------------------------------

struct SumResults {
  size_t n = 0;
  long double exact = 0;
  double absSum = 0;
  double value[kSumMethodCount] = {};  // each method's sum (float32 results widened)
  double error[kSumMethodCount] = {};  // value - exact
  bool treeOnGpu = false;              // GpuTree ran on the GPU (else: its CPU emulation)
};

// All five methods on x. With useGpu the tree order runs on the GPU, else on the CPU.
Result<SumResults> sumAll(std::span<const float> x, bool useGpu);

// log-spaced sizes from 1024 to n (4 per octave, n itself last), for the growth plot.
std::vector<size_t> growthSizes(size_t n);
// sumAll over the prefixes x[0, size) for each size. `progress` (may be null) receives the
// fraction done; `cancel` (may be null) stops early with an error Status that says so.
Result<std::vector<SumResults>> sumGrowth(std::span<const float> x, std::span<const size_t> sizes,
                                          bool useGpu,
                                          const std::function<void(double)>& progress = {},
                                          const std::atomic<bool>* cancel = nullptr);

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kPrecisionParams[] = {kChosenX, kPointsPerDecade, kSumCount};

}  // namespace cudalab::precision
