// The reduction lesson's reference: random inputs, the exact sum, the CPU's float sums and the
// error bounds each step's order of additions must stay within.
//
// Compiled with -ffp-contract=off: Kahan's compensation and TwoSum depend on every `a + b` being
// one rounded addition in the order written.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <thread>

#include "common/host_parallel.hpp"
#include "precision/summation.hpp"
#include "reduction/reduction.hpp"
#include "models/floats.hpp"

namespace cudalab::reduction {

long long HostData::size() const {
  switch (type) {
    case DataType::Int32:
      return static_cast<long long>(i32.size());
    case DataType::Float32:
      return static_cast<long long>(f32.size());
    case DataType::Float64:
      return static_cast<long long>(f64.size());
  }
  return 0;
}

const void* HostData::data() const {
  switch (type) {
    case DataType::Int32:
      return i32.data();
    case DataType::Float32:
      return f32.data();
    case DataType::Float64:
      return f64.data();
  }
  return nullptr;
}

HostData makeData(DataType type, long long n, std::uint64_t seed, const std::atomic<bool>* cancel) {
  const HostData none{type, {}, {}, {}};
  std::vector<float> x =
      precision::normalFloats(static_cast<std::size_t>(std::max(0LL, n)), seed, cancel);
  auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
  if (cancelled()) return none;
  // The float64 and int32 copies are made block by block: for 2^28 numbers, touching 2 GiB of
  // fresh pages on one thread takes seconds, and a Cancel must not wait for all of it. False when
  // cancelled.
  auto copyInBlocks = [&](auto& out, auto convert) {
    constexpr std::size_t kCopyBlock = std::size_t{1} << 22;
    out.reserve(x.size());
    for (std::size_t i = 0; i < x.size(); i += kCopyBlock) {
      if (cancelled()) return false;
      const std::size_t end = std::min(x.size(), i + kCopyBlock);
      out.resize(end);  // reserved: no move, only this block's pages touched
      std::transform(x.begin() + static_cast<std::ptrdiff_t>(i),
                     x.begin() + static_cast<std::ptrdiff_t>(end),
                     out.begin() + static_cast<std::ptrdiff_t>(i), convert);
    }
    return true;
  };
  HostData d = none;
  bool whole = true;
  switch (type) {
    case DataType::Float32:
      d.f32 = std::move(x);
      break;
    case DataType::Float64:
      whole = copyInBlocks(d.f64, [](float v) { return static_cast<double>(v); });
      break;
    case DataType::Int32:
      whole = copyInBlocks(
          d.i32, [](float v) { return static_cast<std::int32_t>(std::lround(v * 100.0f)); });
      break;
  }
  if (!whole) return none;
  return d;  // moved (a conditional expression would copy the gigabytes)
}

namespace {

using floats::twoSum;

struct DoubleDouble {
  double hi = 0, lo = 0;
};

DoubleDouble exactChunk(const double* x, std::size_t n) {
  DoubleDouble r;
  for (std::size_t i = 0; i < n; ++i) {
    double s, e;
    twoSum(r.hi, x[i], s, e);
    r.hi = s;
    r.lo += e;
  }
  return r;
}

// Double-double accumulation over fixed chunks on all cores, the chunks added in order: the same
// bits whatever the number of cores. Its error is far below float64's rounding of the sum.
long double exactSum(std::span<const double> x) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  const std::size_t chunks = (x.size() + kChunk - 1) / kChunk;
  std::vector<DoubleDouble> part(chunks);
  const unsigned workers = std::max(
      1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(chunks)));
  std::vector<std::future<void>> jobs;
  for (unsigned w = 0; w < workers; ++w)
    jobs.push_back(std::async(std::launch::async, [&, w] {
      for (std::size_t c = w; c < chunks; c += workers)
        part[c] = exactChunk(x.data() + c * kChunk, std::min(kChunk, x.size() - c * kChunk));
    }));
  for (auto& j : jobs)
    j.get();
  long double total = 0;
  for (const DoubleDouble& p : part)
    total += static_cast<long double>(p.hi) + p.lo;
  return total;
}

// NumPy's pairwise_sum (numpy/_core/src/umath/loops_utils.h.src): fewer than 8 numbers in a
// loop; up to 128 in 8 accumulators combined as a tree; above, split in two at a multiple of 8.
template <class T>
T numpyPairwise(const T* a, std::size_t n) {
  if (n < 8) {
    T res = 0;
    for (std::size_t i = 0; i < n; ++i)
      res += a[i];
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j)
      r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t j = 0; j < 8; ++j)
        r[j] += a[i + j];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i)
      res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpyPairwise(a, n2) + numpyPairwise(a + n2, n - n2);
}

// np.add.reduce over a large array: the first number, then each buffer of 8,192 numbers summed
// pairwise and added to the running result.
template <class T>
T numpyOrder(std::span<const T> x) {
  if (x.empty()) return T(0);
  constexpr std::size_t kBuffer = 8192;
  T out = x[0];
  for (std::size_t i = 1; i < x.size(); i += kBuffer)
    out += numpyPairwise(x.data() + i, std::min(kBuffer, x.size() - i));
  return out;
}

}  // namespace

double sumNumpyOrder(std::span<const float> x) {
  return numpyOrder(x);
}

double sumNumpyOrder(std::span<const double> x) {
  return numpyOrder(x);
}

CpuSums cpuSums(const HostData& d) {
  CpuSums r;
  switch (d.type) {
    case DataType::Float32: {
      const std::span<const float> x = d.f32;
      auto exact = std::async(std::launch::async, [x] { return precision::sumExact(x); });
      auto pair = std::async(std::launch::async, [x] { return precision::sumPairwise(x); });
      auto kahan = std::async(std::launch::async, [x] { return precision::sumKahan(x); });
      auto abs = std::async(std::launch::async, [x] { return precision::sumAbs(x); });
      auto numpy = std::async(std::launch::async, [x] { return numpyOrder(x); });
      const auto t0 = std::chrono::steady_clock::now();
      r.sequential = precision::sumSequential(x);
      r.sequentialMs = msSince(t0);
      r.pairwise = pair.get();
      r.kahan = kahan.get();
      r.absSum = abs.get();
      r.numpy = numpy.get();
      r.exact = exact.get().value();
      break;
    }
    case DataType::Float64: {
      const std::span<const double> x = d.f64;
      auto pair = std::async(std::launch::async, [x] { return precision::sumPairwise(x); });
      auto kahan = std::async(std::launch::async, [x] { return precision::sumKahan(x); });
      const auto t0 = std::chrono::steady_clock::now();
      double s = 0, a = 0;
      for (double v : x)
        s += v;
      r.sequentialMs = msSince(t0);
      for (double v : x)
        a += std::fabs(v);
      r.sequential = s;
      r.absSum = a;
      r.exact = exactSum(x);
      r.pairwise = pair.get();
      r.kahan = kahan.get();
      r.numpy = numpyOrder(x);
      break;
    }
    case DataType::Int32: {
      const auto t0 = std::chrono::steady_clock::now();
      long long s = 0, a = 0;
      for (std::int32_t v : d.i32) {
        s += v;
        a += v < 0 ? -static_cast<long long>(v) : v;
      }
      r.sequentialMs = msSince(t0);
      r.exact = static_cast<long double>(s);
      r.absSum = static_cast<double>(a);
      r.sequential = r.pairwise = r.kahan = r.numpy = static_cast<double>(s);
      break;
    }
  }
  return r;
}

long long roundingDepth(StepId step, DataType type, long long n, int block,
                        long long residentBlocks) {
  const StepInfo& s = stepInfo(step);
  if (s.shape == Shape::Library) {
    // CUB's own arrangement, assumed rather than derived (its order is not documented): each
    // thread's share of a grid of at least 4,096 threads, plus its trees.
    return n / 4096 + 128;
  }
  long long depth = 0;
  const std::vector<Pass> plan = passPlan(step, type, n, block, residentBlocks);
  for (const Pass& p : plan) {
    // The thread's own loop, plus 4 for what surrounds it (a vector's lanes added first, the
    // scalar tail, the four accumulators combined), then the block's tree.
    depth += p.perThread() + 4;
    long long levels = 0;
    for (int b = p.block; b > 1; b /= 2)
      ++levels;
    depth += levels;
  }
  if (s.shape == Shape::Atomic && !plan.empty()) depth += plan.front().grid;
  if (s.shape == Shape::Course && !plan.empty()) {
    // The CPU adds the partial sums in NumPy's order: one addition per 8,192-number buffer in a
    // chain, and inside a buffer at most 6 halvings down to 128 numbers, 15 additions in an
    // accumulator, 3 to combine the 8 accumulators and 7 for the remainder (33 with the first).
    depth += (plan.front().grid + 8191) / 8192 + 33;
  }
  return depth;
}

double errorBound(StepId step, DataType type, long long n, int block, long long residentBlocks,
                  double absSum) {
  if (type == DataType::Int32) return 0;
  const double u = type == DataType::Float32 ? 0x1p-24 : 0x1p-53;
  const double d = static_cast<double>(roundingDepth(step, type, n, block, residentBlocks));
  if (d * u >= 1) return std::numeric_limits<double>::infinity();
  return d * u / (1 - d * u) * absSum;
}

std::int32_t wrapInt32(long double exact) {
  const auto v = static_cast<long long>(exact);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<unsigned long long>(v)));
}

}  // namespace cudalab::reduction
