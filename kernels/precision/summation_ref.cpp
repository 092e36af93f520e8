// Summation error, the pure part: the methods table, the random inputs, the CPU methods, the
// exact sum, the GPU's tree order emulated on the CPU, validation, and the errors at one N and
// their growth with N. The kernels and sumTreeGpu are in summation.cu.
//
// This file is compiled with -ffp-contract=off and without -ffast-math: every `a + b` below is
// one float addition rounded once, in the order written. Kahan's compensation and TwoSum depend on
// it, and so does the tree emulation, which must give the GPU's result bit for bit.
//
// eps is the unit roundoff throughout (the help texts, the bounds and the tests): u = 2^-24 for
// float32, half the gap between 1 and the next float (floats.hpp's FormatInfo::epsilon is that
// gap, 2^-23). One correctly rounded addition a + b returns (a + b)(1 + d) with |d| <= u.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <numbers>
#include <string>
#include <thread>
#include <utility>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "precision/summation.hpp"
#include "precision/summation_internal.hpp"
#include "models/floats.hpp"

namespace cudalab::precision {

namespace {

// From this many numbers on, work is spread over all cores (below it, starting threads costs
// more than it saves).
constexpr size_t kParallelMin = size_t{1} << 20;

int workersFor(size_t n) {
  if (n < kParallelMin) return 1;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Runs f(task) for task = 0 .. tasks-1 on `workers` threads (the caller's included), each thread
// taking the next task from a counter. Tasks write disjoint outputs, so the result does not
// depend on which thread ran which task.
template <class F>
void parallelFor(size_t tasks, int workers, const F& f) {
  const size_t w = std::min(tasks, static_cast<size_t>(std::max(workers, 1)));
  if (w <= 1) {
    for (size_t i = 0; i < tasks; ++i)
      f(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < tasks; i = next.fetch_add(1))
      f(i);
  };
  std::vector<std::jthread> pool;
  pool.reserve(w - 1);
  for (size_t i = 1; i < w; ++i)
    pool.emplace_back(work);
  work();
}  // the pool joins here

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Inputs
// ---------------------------------------------------------------------------------------------

namespace {

// The k-th output (k = 0, 1, ...) of SplitMix64 started from `seed`: its state after k + 1 steps
// is seed + (k + 1) * gamma, so any element can be drawn without drawing the ones before it.
uint64_t splitMix64(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// 53 random bits as a double in (0, 1]: never 0, so the logarithm below is finite.
double unitInterval(uint64_t z) {
  return static_cast<double>((z >> 11) + 1) * 0x1p-53;
}

// Box-Muller pairs p = first .. last-1: elements 2p and 2p + 1 come from outputs 2p and 2p + 1.
void fillNormalPairs(float* out, size_t n, uint64_t seed, size_t first, size_t last) {
  for (size_t p = first; p < last; ++p) {
    const double u1 = unitInterval(splitMix64(seed, 2 * p));
    const double u2 = unitInterval(splitMix64(seed, 2 * p + 1));
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * std::numbers::pi * u2;
    out[2 * p] = static_cast<float>(r * std::cos(a));
    if (2 * p + 1 < n) out[2 * p + 1] = static_cast<float>(r * std::sin(a));
  }
}

}  // namespace

std::vector<float> normalFloats(size_t n, uint64_t seed, const std::atomic<bool>* cancel) {
  const size_t pairs = (n + 1) / 2;
  constexpr size_t kPairsPerTask = size_t{1} << 16;
  const size_t tasks = (pairs + kPairsPerTask - 1) / kPairsPerTask;
  const int workers = workersFor(n);
  auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
  std::vector<float> x;
  if (workers <= 1) {
    x.resize(n);
    // Task by task as below (the numbers depend only on their pair's index), to see a cancel.
    for (size_t first = 0; first < pairs; first += kPairsPerTask) {
      if (cancelled()) return {};
      fillNormalPairs(x.data(), n, seed, first, std::min(pairs, first + kPairsPerTask));
    }
    return x;
  }
  // The vector zero-fills its elements on one thread, and for half a gigabyte that first touch of
  // every page takes about as long as drawing the numbers on all cores. So the storage is
  // reserved (it does not move again), this thread creates the elements task by task, and the
  // other threads fill each task's numbers as soon as its elements exist.
  x.reserve(n);
  float* const out = x.data();
  std::atomic<size_t> created{0};  // tasks whose elements exist
  std::atomic<size_t> next{0};
  // After a cancel the elements stop being created: a worker waiting for them gives up.
  auto work = [&] {
    for (size_t k = next.fetch_add(1); k < tasks; k = next.fetch_add(1)) {
      while (created.load(std::memory_order_acquire) <= k) {
        if (cancelled()) return;
        std::this_thread::yield();
      }
      if (cancelled()) return;
      const size_t first = k * kPairsPerTask;
      fillNormalPairs(out, n, seed, first, std::min(pairs, first + kPairsPerTask));
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int w = 1; w < workers; ++w)
      pool.emplace_back(work);
    for (size_t k = 0; k < tasks && !cancelled(); ++k) {
      x.resize(std::min(n, 2 * kPairsPerTask * (k + 1)));
      created.store(k + 1, std::memory_order_release);
    }
    work();
  }  // joins
  if (cancelled()) return {};
  return x;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Methods
// ---------------------------------------------------------------------------------------------

namespace {

// N_(): names, help and worded bounds, translated where the app shows them; the bounds written
// only in symbols read the same in every language.
constexpr SumMethodInfo kMethods[] = {
    {SumMethod::Sequential, "sequential", N_("Sequential float32"),
     N_("One float32 variable adds the numbers one after another, like a plain loop. Once the "
        "running sum is large, every addition rounds away the low digits of the new number, and "
        "the N - 1 rounding errors add up: the error can grow in proportion to N."),
     "(N - 1) eps sum|x|", false},
    {SumMethod::GpuTree, "gpu_tree", N_("GPU tree order"),
     N_("How a GPU reduction adds: each of the blocks x threads threads sums its own strided slice "
        "of about N / (blocks x threads) numbers, each block adds its threads' sums in a tree, and "
        "a second pass adds the block sums the same way. A number takes part in far fewer rounded "
        "additions than in one long chain, so the error is much smaller. Without a GPU the same "
        "additions run on the CPU in the same order and give the same bits."),
     "(N/(blocks*threads) + blocks/threads + 2 log2(threads)) eps sum|x|", true},
    {SumMethod::Pairwise, "pairwise", N_("Pairwise float32"),
     N_("Splits the numbers into two halves, sums each half the same way and adds the two sums; "
        "pieces of 8 or fewer numbers are added in a plain loop. A number takes part in only about "
        "log2(N) additions, so the error grows like log N instead of N. NumPy's sum uses a variant "
        "of this."),
     N_("about log2(N) eps sum|x|"), false},
    {SumMethod::Kahan, "kahan", N_("Kahan compensated float32"),
     N_("Kahan's compensated summation: a second float32 variable keeps the low-order digits that "
        "each addition rounds away and adds them back with the next number. The error stays about "
        "2 eps sum|x| however large N is, for four operations per number instead of one. A "
        "compiler allowed to reorder floating-point operations (fast-math) would remove the "
        "correction."),
     "2 eps sum|x| (+ N eps^2 sum|x|)", false},
    {SumMethod::Float64, "f64", N_("Float64"),
     N_("A plain loop in float64, which keeps 53 significant bits instead of 24. The chain of "
        "roundings is as long as in float32, but each error is 2^29 times smaller, so rounded to "
        "float32 the result is almost always the float nearest to the exact sum."),
     N_("(N - 1) 2^-53 sum|x|, then one float32 rounding if rounded"), false},
};
static_assert(std::size(kMethods) == kSumMethodCount);

}  // namespace

std::span<const SumMethodInfo> sumMethods() {
  return kMethods;
}

const SumMethodInfo& sumMethodInfo(SumMethod m) {
  return kMethods[static_cast<size_t>(m)];
}

float sumSequential(std::span<const float> x) {
  float s = 0.0f;
  for (float v : x)
    s += v;
  return s;
}

namespace {
template <class T>
T pairwise(const T* x, size_t n) {
  if (n <= 8) {
    T s = 0;
    for (size_t i = 0; i < n; ++i)
      s += x[i];
    return s;
  }
  const size_t half = n / 2;
  return pairwise(x, half) + pairwise(x + half, n - half);
}

template <class T>
T kahan(std::span<const T> x) {
  T s = 0;
  T c = 0;  // what the last addition rounded away, with the opposite sign
  for (T v : x) {
    const T y = v - c;
    const T t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return s;
}
}  // namespace

float sumPairwise(std::span<const float> x) {
  return pairwise(x.data(), x.size());
}
double sumPairwise(std::span<const double> x) {
  return pairwise(x.data(), x.size());
}

float sumKahan(std::span<const float> x) {
  return kahan(x);
}
double sumKahan(std::span<const double> x) {
  return kahan(x);
}

double sumDouble(std::span<const float> x) {
  double s = 0.0;
  for (float v : x)
    s += static_cast<double>(v);
  return s;
}

namespace {

using floats::twoSum;

ExactSum addExact(ExactSum a, ExactSum b) {
  double s = 0, e = 0;
  twoSum(a.hi, b.hi, s, e);
  e += a.lo + b.lo;
  ExactSum r;
  twoSum(s, e, r.hi, r.lo);
  return r;
}

// One chunk: hi is the running double sum, and every rounding error TwoSum finds goes into lo.
// The errors are tiny (each at most half an ulp of hi), so adding them up in double loses at most
// about chunk^2 2^-106 sum|x|: with chunks of 2^14 numbers, 2^-78 sum|x|, some 10^16 times
// below a float32 summation's error. The dependency chain is one addition per number (the error
// terms are off it), so this is about as fast as a plain double loop.
constexpr size_t kExactChunk = size_t{1} << 14;

ExactSum exactChunk(const float* x, size_t n) {
  double hi = 0, lo = 0;
  for (size_t i = 0; i < n; ++i) {
    double s = 0, e = 0;
    twoSum(hi, static_cast<double>(x[i]), s, e);
    hi = s;
    lo += e;
  }
  ExactSum r;
  twoSum(hi, lo, r.hi, r.lo);
  return r;
}

}  // namespace

ExactSum sumExact(std::span<const float> x) {
  // Fixed chunks added in index order: the same bits whatever the number of cores.
  const size_t chunks = (x.size() + kExactChunk - 1) / kExactChunk;
  std::vector<ExactSum> part(chunks);
  parallelFor(chunks, workersFor(x.size()), [&](size_t c) {
    const size_t first = c * kExactChunk;
    part[c] = exactChunk(x.data() + first, std::min(kExactChunk, x.size() - first));
  });
  ExactSum total;
  for (const ExactSum& p : part)
    total = addExact(total, p);
  return total;
}

double sumAbs(std::span<const float> x) {
  double s = 0.0;
  for (float v : x)
    s += std::fabs(static_cast<double>(v));
  return s;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The GPU's tree order
// ---------------------------------------------------------------------------------------------

TreeShape defaultTreeShape() {
  return TreeShape{};
}

Status validate(const TreeShape& t) {
  if (t.blocks < 1 || t.blocks > 65535) {
    return Status::errorf(
        N_("Blocks must be between 1 and 65,535; %s is not. A launch needs at least one block, "
           "and more than 65,535 gain nothing: a GPU runs a few thousand blocks at once at most, "
           "and the second pass, a single block, has to add up one partial sum per block."),
        {thousands(t.blocks)});
  }
  if (t.threads < 32 || t.threads > 1024) {
    return Status::errorf(
        N_("Threads per block must be between 32 and 1024; %s is not. A warp has 32 threads, so "
           "a smaller block leaves part of every warp idle, and 1024 is the largest block CUDA "
           "can launch."),
        {thousands(t.threads)});
  }
  if ((t.threads & (t.threads - 1)) != 0) {
    return Status::errorf(
        N_("Threads per block must be a power of two (32, 64, ..., 1024); %s is not. The tree "
           "halves the number of adding threads at every step (threads/2, threads/4, ..., 1), "
           "which pairs up every partial sum only when the count is a power of two."),
        {std::to_string(t.threads)});
  }
  return {};
}

namespace {

// The block's shared-memory tree, as the kernel runs it: at stride h, thread i < h adds the sum
// of thread i + h to its own. a[i + h] is not written at that step, so the sequential loop reads
// what the GPU's threads read after the barrier.
void blockTree(float* a, size_t threads) {
  for (size_t h = threads / 2; h > 0; h /= 2)
    for (size_t i = 0; i < h; ++i)
      a[i] += a[i + h];
}

// Adjacent blocks emulated together: their threads' slices lie side by side in every row of
// blocks*threads numbers, so one row of the group is a contiguous run of about 64 KiB.
constexpr size_t kTreeGroupFloats = size_t{1} << 14;

}  // namespace

// A shape that validate() refuses (one the kernels could not run) gives NaN.
float sumTreeOrderCpu(std::span<const float> x, TreeShape t) {
  if (!validate(t)) return std::numeric_limits<float>::quiet_NaN();
  const size_t n = x.size();
  const size_t threads = static_cast<size_t>(t.threads);
  const size_t blocks = static_cast<size_t>(t.blocks);
  const size_t grid = blocks * threads;  // the grid-stride step

  // Pass 1. Block b, thread j adds x[b*threads + j + k*grid], k = 0, 1, ..., starting from 0.0f.
  // Blocks whose first index is past the end have only empty threads: their sum is 0.0f.
  std::vector<float> partial(blocks, 0.0f);
  const size_t busyBlocks = std::min(blocks, (n + threads - 1) / threads);
  const size_t groupBlocks = std::max<size_t>(1, kTreeGroupFloats / threads);
  const size_t groups = (busyBlocks + groupBlocks - 1) / groupBlocks;
  parallelFor(groups, workersFor(n), [&](size_t g) {
    const size_t b0 = g * groupBlocks;
    const size_t b1 = std::min(busyBlocks, b0 + groupBlocks);
    const size_t width = (b1 - b0) * threads;
    std::vector<float> acc(width, 0.0f);  // acc[(b - b0)*threads + j]: thread j of block b
    for (size_t row = b0 * threads; row < n; row += grid) {
      const float* r = x.data() + row;
      const size_t len = std::min(width, n - row);
      for (size_t i = 0; i < len; ++i)
        acc[i] += r[i];  // each thread's own additions, in its order (k increasing)
    }
    for (size_t b = b0; b < b1; ++b) {
      float* a = acc.data() + (b - b0) * threads;
      blockTree(a, threads);
      partial[b] = a[0];
    }
  });

  // Pass 2: one block; thread j adds partial[j], partial[j + threads], ..., then the tree.
  std::vector<float> acc(threads, 0.0f);
  for (size_t i = 0; i < blocks; ++i)
    acc[i % threads] += partial[i];
  blockTree(acc.data(), threads);
  return acc[0];
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Errors at one N and their growth with N
// ---------------------------------------------------------------------------------------------

namespace {

// value - exact, with the subtraction itself done without loss: the float64 method's error is
// far below a double's resolution of the sum, and long double is only double on some platforms.
double errorAgainst(double value, const ExactSum& e) {
  double d = 0, r = 0;
  twoSum(value, -e.hi, d, r);
  return d + (r - e.lo);
}

// The methods that add in index order, at once: a prefix's value is the running value where the
// prefix ends, bit for bit what a pass over the prefix alone gives.
struct InOrderSums {
  float sequential = 0;
  float kahan = 0;
  double f64 = 0;
  ExactSum exact;
  double abs = 0;
};

// All five methods on x, with the tree's sum from `tree` (which runs on the calling thread while
// the CPU methods run on their own threads when x is large). With `inOrder`, the methods that add
// in index order are taken from it instead of summed again.
template <class TreeFn>
Result<SumResults> evaluate(std::span<const float> x, bool onGpu, const TreeFn& tree,
                            const InOrderSums* inOrder = nullptr) {
  const auto policy = x.size() >= kParallelMin ? std::launch::async : std::launch::deferred;
  auto pairwise = std::async(policy, [x] { return sumPairwise(x); });
  InOrderSums o;
  if (inOrder) {
    o = *inOrder;
  } else {
    auto sequential = std::async(policy, [x] { return sumSequential(x); });
    auto kahan = std::async(policy, [x] { return sumKahan(x); });
    auto f64 = std::async(policy, [x] { return sumDouble(x); });
    auto exact = std::async(policy, [x] { return sumExact(x); });
    auto absSum = std::async(policy, [x] { return sumAbs(x); });
    o = {sequential.get(), kahan.get(), f64.get(), exact.get(), absSum.get()};
  }
  const Result<float> t = tree();

  SumResults r;
  r.n = x.size();
  r.exact = o.exact.value();
  r.absSum = o.abs;
  r.treeOnGpu = onGpu;
  auto set = [&](SumMethod m, double v) {
    r.value[static_cast<int>(m)] = v;
    r.error[static_cast<int>(m)] = errorAgainst(v, o.exact);
  };
  set(SumMethod::Sequential, o.sequential);
  set(SumMethod::Pairwise, pairwise.get());
  set(SumMethod::Kahan, o.kahan);
  set(SumMethod::Float64, o.f64);
  if (!t) return t.status();
  set(SumMethod::GpuTree, *t);
  return r;
}

// The in-order methods at every prefix x[0, sizes[k]) in one pass each (the five passes on their
// own threads when x is large), where summing each prefix again would read the numbers some six
// times over (four sizes per octave). The exact sum keeps sumExact's fixed chunks: the prefix's
// whole chunks folded in index order, then its last, partial one. Empty after a cancel.
std::vector<InOrderSums> inOrderPrefixes(std::span<const float> x, std::span<const size_t> sizes,
                                         const std::function<bool()>& cancelled) {
  std::vector<size_t> order(sizes.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] < sizes[b]; });
  std::vector<InOrderSums> out(sizes.size());
  // One running pass: `step(i)` adds x[i]; `keep(k)` stores the running value for prefix k.
  auto pass = [&](auto step, auto keep) {
    size_t i = 0;
    for (size_t k : order) {
      for (; i < sizes[k]; ++i)
        step(x[i]);
      keep(out[k]);
    }
  };
  const auto policy = x.size() >= kParallelMin ? std::launch::async : std::launch::deferred;
  auto seq = std::async(policy, [&] {
    float s = 0;
    pass([&](float v) { s += v; }, [&](InOrderSums& o) { o.sequential = s; });
  });
  auto kah = std::async(policy, [&] {
    float s = 0, c = 0;  // as kahan() above
    pass(
        [&](float v) {
          const float y = v - c;
          const float t = s + y;
          c = (t - s) - y;
          s = t;
        },
        [&](InOrderSums& o) { o.kahan = s; });
  });
  auto dbl = std::async(policy, [&] {
    double s = 0, a = 0;
    pass(
        [&](float v) {
          s += static_cast<double>(v);
          a += std::fabs(static_cast<double>(v));
        },
        [&](InOrderSums& o) {
          o.f64 = s;
          o.abs = a;
        });
  });
  // The exact sum: every whole chunk of x once, on all cores; then per prefix the fold of its
  // whole chunks (running, in index order) and its partial chunk.
  const size_t chunks = x.size() / kExactChunk;
  std::vector<ExactSum> part(chunks);
  parallelFor(chunks, workersFor(x.size()), [&](size_t c) {
    if (!cancelled()) part[c] = exactChunk(x.data() + c * kExactChunk, kExactChunk);
  });
  ExactSum folded;
  size_t c = 0;
  for (size_t k : order) {
    for (; c < sizes[k] / kExactChunk; ++c)
      folded = addExact(folded, part[c]);
    const size_t rest = sizes[k] - c * kExactChunk;
    out[k].exact = rest ? addExact(folded, exactChunk(x.data() + c * kExactChunk, rest)) : folded;
  }
  seq.get();
  kah.get();
  dbl.get();
  if (cancelled()) return {};
  return out;
}

}  // namespace

Result<SumResults> sumAll(std::span<const float> x, bool useGpu) {
  const TreeShape shape = defaultTreeShape();
  if (useGpu) return evaluate(x, true, [&] { return sumTreeGpu(x, shape); });
  return evaluate(x, false, [&] { return Result<float>(sumTreeOrderCpu(x, shape)); });
}

std::vector<size_t> growthSizes(size_t n) {
  std::vector<size_t> sizes;
  for (int k = 0;; ++k) {
    // 1024 * 2^(k/4): four sizes per octave; exp2 of a whole number is exact.
    const double s = std::round(std::ldexp(std::exp2(k / 4.0), 10));
    if (!(s < static_cast<double>(n))) break;
    const size_t v = static_cast<size_t>(s);
    if (sizes.empty() || v > sizes.back()) sizes.push_back(v);
  }
  sizes.push_back(n);
  return sizes;
}

Result<std::vector<SumResults>> sumGrowth(std::span<const float> x, std::span<const size_t> sizes,
                                          bool useGpu, const std::function<void(double)>& progress,
                                          const std::atomic<bool>* cancel) {
  double total = 0;
  for (size_t s : sizes) {
    if (s > x.size())
      return Status::error("sumGrowth: a prefix of " + thousands(static_cast<long long>(s)) +
                           " numbers was asked for, but only " +
                           thousands(static_cast<long long>(x.size())) + " were given.");
    total += static_cast<double>(s);
  }
  auto cancelled = [cancel] { return cancel && cancel->load(); };
  if (cancelled()) return Status::error(N_("Cancelled."));
  if (progress) progress(0.0);

  // On the GPU every prefix is summed up front from one copy of x on the device (a fraction of
  // the time the CPU methods take); the CPU methods then run prefix by prefix.
  const TreeShape shape = defaultTreeShape();
  std::vector<float> gpuTree;
  if (useGpu) {
    Result<std::vector<float>> g = detail::sumTreeGpuPrefixes(x, sizes, shape);
    if (!g) return g.status();
    gpuTree = std::move(*g);
  }

  const std::vector<InOrderSums> inOrder = inOrderPrefixes(x, sizes, cancelled);
  std::vector<SumResults> out;
  out.reserve(sizes.size());
  double done = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (cancelled()) return Status::error(N_("Cancelled."));
    const std::span<const float> prefix = x.first(sizes[k]);
    Result<SumResults> r =
        useGpu ? evaluate(
                     prefix, true, [&] { return Result<float>(gpuTree[k]); }, &inOrder[k])
               : evaluate(
                     prefix, false, [&] { return Result<float>(sumTreeOrderCpu(prefix, shape)); },
                     &inOrder[k]);
    if (!r) return r.status();
    out.push_back(*r);
    done += static_cast<double>(sizes[k]);
    if (progress) progress(total > 0 ? done / total : 1.0);
  }
  return out;
}

}  // namespace cudalab::precision
