// The atomics lesson on the CPU: its tables, validation, the story of a lost update, the atomics
// each step issues, the inputs and the reference histograms. Plain C++: it all works without a GPU.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>

#include "atomics/atomics.hpp"
#include "common/format.hpp"
#include "common/table.hpp"

namespace cudalab::atomics {

// ---------------------------------------------------------------------------------------------
// [SECTION] Race lab
// ---------------------------------------------------------------------------------------------

namespace {

const CounterInfo kCounters[] = {
    {CounterId::Plain, "plain", N_("counter += 1 (the course's race)"), false, 5,
     N_("global_counter[0] += 1 is three steps: read the counter, add 1, write it back. Between "
        "one "
        "thread's read and its write, others read the same old value, and their writes overwrite "
        "each other: updates are lost, a different number each run.")},
    {CounterId::Global, "global", N_("atomicAdd on the global counter"), true, 0,
     N_("atomicAdd(counter, 1) reads, adds and writes as one indivisible operation in the memory "
        "system (the L2 cache): no update is lost. Every thread's atomic goes to the same address, "
        "so they are done one after another there.")},
    {CounterId::Shared, "shared", N_("shared counter per block, one global atomic per block"), true,
     1,
     N_("Each block counts its threads with atomicAdd on a counter in shared memory (inside the "
        "SM, "
        "close by), then one thread adds the block's total to the global counter: one global "
        "atomic "
        "per block instead of one per thread.")},
    {CounterId::Warp, "warp", N_("one atomic per warp (__reduce_add_sync)"), true, 2,
     N_("The 32 threads of a warp add their 1s together with __reduce_add_sync (registers, no "
        "memory), and one lane adds the warp's total: 32 times fewer atomics. The compiler itself "
        "does this for simple atomicAdd(counter, 1) on recent GPUs, which is why the two can time "
        "alike.")},
};

}  // namespace

const KeyedTable<CounterInfo> kCounterTable{kCounters};

long long globalAtomics(CounterId id, long long blocks, int threads) {
  const long long warps = blocks * ((threads + 31) / 32);
  switch (id) {
    case CounterId::Plain:
      return 0;
    case CounterId::Global:
      return blocks * threads;
    case CounterId::Shared:
      return blocks;
    case CounterId::Warp:
      return warps;
  }
  return 0;
}

long long sharedAtomics(CounterId id, long long blocks, int threads) {
  return id == CounterId::Shared ? blocks * threads : 0;
}

Status validate(const RaceParams& p) {
  if (Status s = checkRange(kRaceBlocks, double(p.blocks)); !s) return s;
  if (Status s = checkRange(kRaceThreads, p.threads); !s) {
    if (p.threads > 1024)
      return Status::errorf(N_("A block holds at most 1,024 threads on every CUDA GPU; %s cannot "
                               "be launched. Use more blocks for more threads."),
                            {thousands(p.threads)});
    return s;
  }
  return checkRange(kRaceRepeats, p.repeats);
}

RaceStory raceStory(bool interleaved) {
  RaceStory s;
  s.expected = 64;
  auto read = [&](int w, long long v) {
    s.events.push_back(
        {w, false, v,
         "warp " + std::string(w ? "B" : "A") + ": all 32 threads read " + std::to_string(v)});
  };
  auto write = [&](int w, long long v) {
    s.events.push_back({w, true, v,
                        "warp " + std::string(w ? "B" : "A") + ": all 32 threads write " +
                            std::to_string(v) + " (31 of the 32 updates vanish)"});
  };
  if (interleaved) {
    read(0, 0);
    read(1, 0);
    write(0, 1);
    write(1, 1);  // overwrites warp A's 1 with the same 1: A's update is lost too
    s.result = 1;
  } else {
    read(0, 0);
    write(0, 1);
    read(1, 1);
    write(1, 2);
    s.result = 2;
  }
  return s;
}

long long RaceVariant::minCount() const {
  return counts.empty() ? 0 : *std::min_element(counts.begin(), counts.end());
}
long long RaceVariant::maxCount() const {
  return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}
double RaceVariant::meanCount() const {
  if (counts.empty()) return 0;
  return std::accumulate(counts.begin(), counts.end(), 0.0) / double(counts.size());
}
int RaceVariant::distinct() const {
  std::vector<long long> c = counts;
  std::sort(c.begin(), c.end());
  return int(std::unique(c.begin(), c.end()) - c.begin());
}

std::vector<long long> defaultThreadCounts() {
  std::vector<long long> v;
  for (long long t = 1LL << 10; t <= (1LL << 24); t *= 4)
    v.push_back(t);
  return v;
}

std::vector<long long> defaultAddressCounts(long long threads) {
  std::vector<long long> v;
  for (long long a = 1; a <= threads; a *= 2)
    v.push_back(a);
  return v;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Histogram
// ---------------------------------------------------------------------------------------------

namespace {

const SourceInfo kSources[] = {
    {Source::Normal, "normal", N_("the course's: normal float32 numbers"), 4,
     N_("Random normal numbers (mean 0, deviation 1) in float32, counted between xmin and xmax as "
        "the course's cpu_histogram does: most fall in the middle bins.")},
    {Source::Pixels, "pixels", N_("8-bit pixels of a generated image"), 1,
     N_("The grey levels of a picture the app draws (gradients, discs, noise), one byte per pixel: "
        "real images have large areas of similar values.")},
    {Source::Uniform, "uniform", N_("uniform 8-bit values (skew: a share in one bin)"), 1,
     N_("Random bytes, every value equally likely, with a share of them (the skew) replaced by 0: "
        "at skew 1 every value falls in bin 0, the worst case for atomics.")},
};

const HistStepInfo kSteps[] = {
    {HistStepId::CpuOne, "cpu-1", N_("CPU, one thread"), false, 7,
     N_("The course's cpu_histogram: one loop over every value, one bin incremented at a time. The "
        "reference every other step is compared with.")},
    {HistStepId::CpuAll, "cpu-all", N_("CPU, all cores"), false, 7,
     N_("Each core counts its share of the values into a histogram of its own; the histograms are "
        "added at the end. No core waits for another: privatisation, the idea the GPU steps use "
        "too.")},
    {HistStepId::Global, "global", N_("one global atomicAdd per value"), true, 5,
     N_("The course exercise's natural answer: one thread per value, atomicAdd(&hist[bin], 1) in "
        "global memory. Correct, unlike += 1, but every atomic goes to the L2 cache, and when many "
        "values share a bin their atomics on that one counter are done one at a time.")},
    {HistStepId::Shared, "shared", N_("a histogram per block in shared memory"), true, 0,
     N_("Global atomics are far away and contended. Each block now counts into its own histogram "
        "in "
        "shared memory (on the SM: shared atomics are much cheaper) and adds it to the global one "
        "at the end, one atomic per bin per block. A grid that fills the GPU once, each thread "
        "looping over many values, keeps those merges few.")},
    {HistStepId::Warps, "warps", N_("a sub-histogram per warp"), true, 1,
     N_("In one block's histogram, all its warps still contend for the same counters. Each warp "
        "now "
        "gets its own copy (as many as shared memory holds), so only the 32 lanes of one warp can "
        "collide; the copies are added before the merge.")},
    {HistStepId::Vector, "vector", N_("per warp, 16-byte loads"), true, 2,
     N_("The previous steps load one value per instruction: 1 byte for 8-bit data, far too little "
        "to keep the memory busy. Each thread now loads 16 bytes at once (16 pixels or 4 floats) "
        "and counts them from registers.")},
    {HistStepId::Aggregated, "aggregated", N_("per warp, 16-byte loads, equal bins combined"), true,
     3,
     N_("When many lanes of a warp hit the same bin (skewed data, or an image with flat areas), "
        "their shared atomics on one counter are serialised. __match_any_sync finds the lanes with "
        "the same bin; one of them adds the group's count: one atomic per distinct bin. Finding "
        "the groups costs instructions on every value, which uniform data does not repay.")},
    {HistStepId::Lanes, "lanes", N_("16-byte loads, a column of counters per lane"), true, 6,
     N_("Two problems remained inside a warp: lanes counting the same bin wait for each other, and "
        "lanes counting different bins in the same shared-memory bank wait too. Each bin now has "
        "32 counters side by side, one per lane: lane l always uses word bin x 32 + l, which lies "
        "in bank l. When 32 columns fit in shared memory (up to about 1,800 bins on an H100), no "
        "two lanes of a warp ever touch the same counter or the same bank, whatever the data; "
        "with more bins fewer columns fit and lanes share them. The columns are added at the end. "
        "(Warps of a block share the columns.)")},
    {HistStepId::Cub, "cub", N_("CUB DeviceHistogram::HistogramEven"), true, 4,
     N_("NVIDIA's library: privatised histograms in shared memory, tuned per GPU. The reference "
        "for "
        "speed.")},
};

constexpr HistStepId kAll[] = {HistStepId::CpuOne,     HistStepId::CpuAll, HistStepId::Global,
                               HistStepId::Shared,     HistStepId::Warps,  HistStepId::Vector,
                               HistStepId::Aggregated, HistStepId::Lanes,  HistStepId::Cub};
constexpr HistStepId kGpu[] = {HistStepId::Global, HistStepId::Shared,     HistStepId::Warps,
                               HistStepId::Vector, HistStepId::Aggregated, HistStepId::Lanes,
                               HistStepId::Cub};

}  // namespace

const KeyedTable<SourceInfo> kSourceTable{kSources};

const KeyedTable<HistStepInfo> kHistStepTable{kSteps};
std::span<const HistStepId> allHistSteps() {
  return kAll;
}
std::span<const HistStepId> gpuHistSteps() {
  return kGpu;
}

Status validate(const HistParams& p, long long freeBytes) {
  if (Status s = checkRange(kHistN, double(p.n)); !s) return s;
  if (Status s = checkRange(kHistBins, p.bins); !s) return s;
  if (Status s = checkRange(kHistBlock, p.block); !s) return s;
  if (p.block % 32 != 0)
    return Status::errorf(N_("Threads per block must be a multiple of 32 here: the per-warp steps "
                             "give each warp of 32 threads its own sub-histogram, and %s threads "
                             "leave a partial warp."),
                          {std::to_string(p.block)});
  if (p.source == Source::Normal) {
    if (!std::isfinite(p.xmin) || !std::isfinite(p.xmax) || !(p.xmin < p.xmax))
      return Status::error(N_("The range needs xmin < xmax, both finite numbers."));
    const float w = (p.xmax - p.xmin) / float(p.bins);
    if (!(w > 0) || !std::isfinite(float(p.bins) / (p.xmax - p.xmin)))
      return Status::errorf(
          N_("The range is too narrow for %s bins in float32: a bin would have no width."),
          {std::to_string(p.bins)});
  }
  if (p.source == Source::Uniform && !(p.skew >= 0 && p.skew <= 1))
    return Status::error(N_("The share in one bin is a fraction between 0 and 1."));
  // The input and a copy of it (the copy ceiling is measured on the same bytes), and room for
  // the library's scratch space.
  const long long bytes = p.n * sourceInfo(p.source).elementBytes;
  if (freeBytes >= 0 && 2 * bytes + (64LL << 20) > freeBytes)
    return Status::errorf(N_("The input needs %s on the GPU, twice over (the copy ceiling copies "
                             "it), and only %s is free: choose a smaller N."),
                          {mib(double(bytes)), mib(double(freeBytes))});
  return {};
}

BinRule binRule(const HistParams& p) {
  BinRule r;
  r.bins = p.bins;
  r.lo = p.xmin;
  r.hi = p.xmax;
  r.scale = float(p.bins) / (p.xmax - p.xmin);  // in float, as CUB computes it
  return r;
}

int subHistograms(int bins, int block, long long sharedLimit) {
  const int warps = std::max(1, block / 32);
  const long long one = 4LL * bins;
  const long long fit = one > 0 ? sharedLimit / one : 1;
  return int(std::max<long long>(1, std::min<long long>(warps, fit)));
}

int laneColumns(int bins, long long sharedLimit) {
  const long long one = 4LL * bins;
  return int(std::max<long long>(1, std::min<long long>(32, one > 0 ? sharedLimit / one : 1)));
}

AtomicsPerElement atomicsPerElement(HistStepId step, long long n, int bins, long long blocks,
                                    double distinct) {
  const double merges = n > 0 ? double(blocks) * bins / double(n) : 0;
  switch (step) {
    case HistStepId::CpuOne:
    case HistStepId::CpuAll:
      return {0, 0};
    case HistStepId::Global:
      return {1, 0};
    case HistStepId::Shared:
    case HistStepId::Warps:
    case HistStepId::Vector:
    case HistStepId::Lanes:
      return {merges, 1};
    case HistStepId::Aggregated:
      return {merges, distinct / 32.0};
    case HistStepId::Cub:
      return {-1, -1};  // the library's own
  }
  return {0, 0};
}

namespace {

// A fast seeded generator (splitmix64): each thread of makeInput starts from its own seed, so the
// values depend only on the seed and the index range, not on the number of threads.
struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
};

int cpuThreads() {
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

// Runs f(begin, end, chunkIndex) over [0, n) in chunks of 2^20 on all cores.
template <class F>
void parallelChunks(long long n, F f) {
  constexpr long long kChunk = 1LL << 20;
  const long long chunks = (n + kChunk - 1) / kChunk;
  std::atomic<long long> next{0};
  auto work = [&] {
    for (long long c; (c = next++) < chunks;)
      f(c * kChunk, std::min(n, (c + 1) * kChunk), c);
  };
  const int t = int(std::min<long long>(cpuThreads(), std::max(1LL, chunks)));
  std::vector<std::thread> pool;
  for (int i = 1; i < t; ++i)
    pool.emplace_back(work);
  work();
  for (std::thread& th : pool)
    th.join();
}

// The generated picture's grey level at pixel i of a 4096-wide image: a diagonal gradient, three
// discs of flat grey, and noise.
std::uint8_t pixel(long long i, SplitMix& g) {
  const double x = double(i % 4096), y = double(i / 4096 % 4096);
  double v = 40 + 150 * (x + y) / 8192.0;
  const double discs[3][4] = {{1000, 800, 400, 230}, {2800, 1500, 700, 30}, {1800, 3000, 500, 128}};
  for (const auto& d : discs)
    if ((x - d[0]) * (x - d[0]) + (y - d[1]) * (y - d[1]) < d[2] * d[2]) v = d[3];
  v += 12 * (g.uniform() - 0.5);
  return std::uint8_t(std::clamp(v, 0.0, 255.0));
}

}  // namespace

HistInput makeInput(const HistParams& p, std::uint64_t seed) {
  HistInput in;
  in.source = p.source;
  if (p.source == Source::Normal)
    in.f.resize(size_t(p.n));
  else
    in.u8.resize(size_t(p.n));
  parallelChunks(p.n, [&](long long b, long long e, long long chunk) {
    SplitMix g{seed * 0x100000001B3ull + std::uint64_t(chunk) * 0x9E3779B97F4A7C15ull + 1};
    for (long long i = b; i < e; ++i) {
      switch (p.source) {
        case Source::Normal: {
          // Box-Muller, one of the pair.
          const double u1 = std::max(g.uniform(), 1e-300), u2 = g.uniform();
          in.f[size_t(i)] = float(std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2));
          break;
        }
        case Source::Pixels:
          in.u8[size_t(i)] = pixel(i, g);
          break;
        case Source::Uniform:
          in.u8[size_t(i)] = g.uniform() < p.skew ? 0 : std::uint8_t(g.next() >> 56);
          break;
      }
    }
  });
  return in;
}

std::vector<std::uint32_t> cpuHistogram(const HistInput& in, const BinRule& r, int threads) {
  const long long n = in.size();
  auto count = [&](long long b, long long e, std::vector<std::uint32_t>& h) {
    if (in.source == Source::Normal) {
      for (long long i = b; i < e; ++i)
        if (const int k = binOf(in.f[size_t(i)], r); k >= 0) ++h[size_t(k)];
    } else {
      for (long long i = b; i < e; ++i)
        if (const int k = binOf(in.u8[size_t(i)], r); k >= 0) ++h[size_t(k)];
    }
  };
  std::vector<std::uint32_t> hist(size_t(r.bins), 0);
  if (threads <= 0) threads = cpuThreads();
  if (threads == 1 || n < (1LL << 16)) {
    count(0, n, hist);
    return hist;
  }
  std::vector<std::vector<std::uint32_t>> priv(size_t(threads),
                                               std::vector<std::uint32_t>(size_t(r.bins), 0));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { count(n * t / threads, n * (t + 1) / threads, priv[size_t(t)]); });
  for (std::thread& th : pool)
    th.join();
  for (const auto& h : priv)
    for (size_t k = 0; k < hist.size(); ++k)
      hist[k] += h[k];
  return hist;
}

std::vector<std::uint32_t> courseCpuHistogram(const std::vector<float>& x, float xmin, float xmax,
                                              int bins) {
  std::vector<std::uint32_t> h(size_t(std::max(bins, 0)), 0);
  const float w = (xmax - xmin) / float(bins);
  for (float e : x) {
    const float q = (e - xmin) / w;
    // np.int32 of NaN or of a float past the int32 range is undefined in C++; NumPy gives a
    // negative number there, which the course's test drops.
    if (!(q > -2147483648.0f && q < 2147483648.0f)) continue;
    const int k = int(q);  // toward zero, as np.int32
    if (k >= 0 && k < bins) ++h[size_t(k)];
  }
  return h;
}

double distinctPerWarp(const HistInput& in, const BinRule& r) {
  const long long n = in.size();
  if (n == 0) return 0;
  const int per = in.source == Source::Normal ? 4 : 16;  // values in one 16-byte load
  const long long chunks = n / per;
  auto bin = [&](long long i) {
    return in.source == Source::Normal ? binOf(in.f[size_t(i)], r) : binOf(in.u8[size_t(i)], r);
  };
  // stamp[k + 1] == group: bin k already seen in this warp instruction (k = -1: not counted).
  std::vector<long long> stamp(size_t(r.bins) + 1, -1);
  long long group = 0, groups = 0, distinct = 0;
  auto lanes = [&](auto index, long long firstLane, long long count) {
    ++group;
    ++groups;
    for (long long l = 0; l < count; ++l) {
      const int k = bin(index(firstLane + l));
      if (k >= 0 && stamp[size_t(k) + 1] != group) {
        stamp[size_t(k) + 1] = group;
        ++distinct;
      }
    }
  };
  // Whole chunks: thread t takes chunks t, t + threads, ...; a warp's instruction j holds value j
  // of 32 neighbouring threads' chunks.
  for (long long base = 0; base < chunks; base += 32) {
    const long long count = std::min<long long>(32, chunks - base);
    // Warps never straddle the grid's end: threads is a multiple of 32.
    for (int j = 0; j < per; ++j)
      lanes([&](long long c) { return c * per + j; }, base, count);
  }
  // The tail, one value per thread.
  const long long tail = n - chunks * per;
  for (long long base = 0; base < tail; base += 32)
    lanes([&](long long t) { return chunks * per + t; }, base,
          std::min<long long>(32, tail - base));
  return groups ? double(distinct) / double(groups) : 0;
}

HistCheck compareHistograms(const std::vector<std::uint32_t>& expected,
                            const std::vector<std::uint32_t>& got) {
  HistCheck c;
  for (std::uint32_t v : expected)
    c.counted += v;
  if (got.size() != expected.size()) {
    c.wrongBins = (long long)std::max(got.size(), expected.size());
    c.firstWrong = 0;
    return c;
  }
  for (size_t k = 0; k < expected.size(); ++k)
    if (expected[k] != got[k]) {
      if (c.wrongBins++ == 0) {
        c.firstWrong = int(k);
        c.expected = expected[k];
        c.got = got[k];
      }
    }
  return c;
}

std::vector<double> defaultSkews() {
  return {0, 0.25, 0.5, 0.75, 0.9, 0.99, 1};
}

}  // namespace cudalab::atomics
