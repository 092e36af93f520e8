// The atomics lesson: why `counter += 1` from many threads loses updates, what atomic operations
// cost as more threads aim at one address, and how histogram kernels avoid that contention.
//
// [SECTION] Race lab      the counter variants (the course's plain `+= 1`, a global atomic, a
//                         shared-memory counter per block, one atomic per warp), the story of a
//                         lost update, validation, the repeated runs and the contention sweeps
// [SECTION] Histogram     the inputs, the bin rule every step shares, the ladder of steps (one
//                         table for the UI, the benchmark and the tests), atomics per element,
//                         validation, the CPU reference
// [SECTION] Measurement   the ladder, the sweep over how skewed the data is
//
// Typical use (the panel, on its worker thread):
//
//   RaceParams r{.blocks = 64, .threads = 64, .repeats = 100};
//   if (Status s = validate(r); !s) return show(s.sentence());
//   Result<RaceReport> race = runRace(r, cancel, progress);   // counts of every repeat
//
//   HistParams h{.source = Source::Normal, .n = 1 << 20, .bins = 10};
//   Result<HistReport> ladder = measureHistLadder(h, allHistSteps(), cancel, progress);
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "atomics/atomics_bin.cuh"
#include "common/params.hpp"
#include "common/table.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"  // N_(): labels and help, translated where shown

namespace cudalab::atomics {

// Called on the measuring thread with the fraction done and what runs now (a step's label or a
// fixed phrase marked N_(), which the app translates; phrases with numbers stay in English).
using Progress = std::function<void(float fraction, const std::string& what)>;

// ---------------------------------------------------------------------------------------------
// [SECTION] Race lab
// ---------------------------------------------------------------------------------------------

enum class CounterId {
  Plain,   // the course's `global_counter[0] += 1`: read, add, write; updates are lost
  Global,  // atomicAdd on the one global counter: every thread's update arrives
  Shared,  // each block counts in shared memory, then one global atomicAdd per block
  Warp,    // each warp adds its count with __reduce_add_sync, one global atomicAdd per warp
};

struct CounterInfo {
  CounterId id;
  const char* key;    // stable id for the CLI, JSON and tests: "plain", "warp"
  const char* label;  // what the UI shows
  bool exact;         // always gives blocks x threads
  int colour;         // palette index: the variant's colour in every panel
  const char* help;   // for learners: what it does and what it costs
};

extern const KeyedTable<CounterInfo> kCounterTable;  // common/table.hpp
CUDALAB_KEYED_LOOKUPS(kCounterTable, counters, counterInfo, counterByKey)

// Atomic operations one launch of `blocks` blocks of `threads` issues on global memory and on
// shared memory (the plain counter issues none: that is its bug).
long long globalAtomics(CounterId id, long long blocks, int threads);
long long sharedAtomics(CounterId id, long long blocks, int threads);

inline constexpr long long kCourseBlocks = 64;  // the course's thread_counter[64, 64]
inline constexpr int kCourseThreads = 64;

inline constexpr ParamSpec kRaceBlocks{
    .id = "race_blocks",
    .label = "Blocks",
    .min = 1,
    .max = 65536,
    .defaultValue = 64,
    .help = "Blocks in the grid. The course launches 64 blocks of 64 threads: 4,096 increments.",
    .logScale = true};
inline constexpr ParamSpec kRaceThreads{
    .id = "race_threads",
    .label = "Threads per block",
    .min = 1,
    .max = 1024,
    .defaultValue = 64,
    .help = "Threads in each block, at most 1,024. Each thread adds 1 to the counter once.",
    .logScale = true};
inline constexpr ParamSpec kRaceRepeats{.id = "repeats",
                                        .label = "Runs",
                                        .min = 1,
                                        .max = 1000,
                                        .defaultValue = 200,
                                        .help =
                                            "How many times each variant runs, from a counter of 0 "
                                            "each time: the plain counter's result "
                                            "changes from run to run, the atomics' never.",
                                        .logScale = true};

struct RaceParams {
  long long blocks = kCourseBlocks;
  int threads = kCourseThreads;
  int repeats = 200;
  long long expected() const { return blocks * threads; }
};
// Refuses what cannot run, with a sentence that teaches why.
Status validate(const RaceParams& p);

// How an update is lost, told for two warps of 32 threads adding 1 to a counter that starts at 0:
// each warp's 32 threads read the same value and write the same value + 1 (31 of their updates
// vanish at once), and when the two warps' reads come before either write, one warp's write
// overwrites the other's.
struct RaceEvent {
  int warp;         // 0 or 1
  bool write;       // false: read
  long long value;  // the value read, or the value written
  std::string what;
};
struct RaceStory {
  std::vector<RaceEvent> events;
  long long result = 0;
  long long expected = 0;
};
RaceStory raceStory(bool interleaved);

struct RaceVariant {
  CounterId id;
  std::vector<long long> counts;  // the counter after each run
  double medianMs = 0;            // one launch, CUDA events
  long long minCount() const;
  long long maxCount() const;
  double meanCount() const;
  int distinct() const;  // how many different results the runs gave
};
struct RaceReport {
  RaceParams p;
  std::string device;
  std::vector<RaceVariant> variants;  // in counters() order
  const RaceVariant* find(CounterId id) const { return findRow(variants, &RaceVariant::id, id); }
};
Result<RaceReport> runRace(const RaceParams& p, const std::atomic<bool>* cancel,
                           const Progress& progress);

// Contention made visible. Threads: every variant with all threads on one counter, for a growing
// number of threads. Addresses: global atomicAdd from a fixed number of threads spread over 1 to
// `threads` counters (thread t adds to counter t / (threads / addresses): neighbours share).
struct ContentionPoint {
  CounterId id;
  long long threads = 0;
  long long addresses = 1;
  double ms = 0;
  bool ok = false;  // every counter holds its exact count (always false for the plain counter)
  double nsPerUpdate() const { return threads > 0 ? ms * 1e6 / double(threads) : 0; }
};
std::vector<long long> defaultThreadCounts();  // 2^10 to 2^24
Result<std::vector<ContentionPoint>> measureThreadSweep(const std::vector<long long>& threads,
                                                        const std::atomic<bool>* cancel,
                                                        const Progress& progress);
inline constexpr long long kAddressSweepThreads = 1LL << 22;
std::vector<long long> defaultAddressCounts(long long threads);  // 1, 2, 4, ..., threads
Result<std::vector<ContentionPoint>> measureAddressSweep(long long threads,
                                                         const std::vector<long long>& addresses,
                                                         const std::atomic<bool>* cancel,
                                                         const Progress& progress);

// ---------------------------------------------------------------------------------------------
// [SECTION] Histogram
// ---------------------------------------------------------------------------------------------

enum class Source {
  Normal,   // the course's: float32 normal random numbers, counted between xmin and xmax
  Pixels,   // 8-bit grey pixels of a generated image (gradients, shapes, noise)
  Uniform,  // uniform random 8-bit values, a share `skew` of them replaced by one value
};
struct SourceInfo {
  Source id;
  const char* key;
  const char* label;
  int elementBytes;  // 4 (float32) or 1 (uint8)
  const char* help;
};
extern const KeyedTable<SourceInfo> kSourceTable;  // common/table.hpp
CUDALAB_KEYED_LOOKUPS(kSourceTable, sources, sourceInfo, sourceByKey)

enum class HistStepId {
  CpuOne,      // one CPU thread, the course's cpu_histogram loop
  CpuAll,      // every CPU core, a private histogram each, added at the end
  Global,      // the course exercise's natural answer: one global atomicAdd per element
  Shared,      // one histogram per block in shared memory, added to the global one at the end
  Warps,       // one sub-histogram per warp in shared memory: less contention per counter
  Vector,      // the same with 16-byte loads and a grid that fills the GPU once
  Aggregated,  // the same, lanes with equal bins combined by __match_any_sync first
  Lanes,       // 16-byte loads, a column of counters per lane: no two lanes of a warp collide
  Cub,         // cub::DeviceHistogram::HistogramEven
};
struct HistStepInfo {
  HistStepId id;
  const char* key;
  const char* label;
  bool gpu;
  int colour;
  const char* help;  // what was wrong with the previous step and what this one changes
};
extern const KeyedTable<HistStepInfo> kHistStepTable;  // common/table.hpp
CUDALAB_KEYED_LOOKUPS(kHistStepTable, histSteps, histStepInfo, histStepByKey)
std::span<const HistStepId> allHistSteps();
std::span<const HistStepId> gpuHistSteps();  // the GPU steps and CUB, for sweeps

inline constexpr ParamSpec kHistN{
    .id = "hist_n",
    .label = "N",
    .min = 1,
    .max = 268435456,
    .defaultValue = 16777216,
    .help =
        "How many values are counted, up to 2^28 (the benchmark's size). Any N works: the vector "
        "steps count the few values past the last whole 16 bytes one by one.",
    .logScale = true};
inline constexpr ParamSpec kHistBins{.id = "bins",
                                     .label = "Bins",
                                     .min = 1,
                                     .max = 4096,
                                     .defaultValue = 256,
                                     .help =
                                         "How many bins the range is cut into, 1 to 4,096. 8-bit "
                                         "data is counted over 0..255, so 256 "
                                         "bins give one per value.",
                                     .logScale = true};
inline constexpr ParamSpec kHistBlock{.id = "hist_block",
                                      .label = "Threads per block",
                                      .min = 32,
                                      .max = 1024,
                                      .defaultValue = 256,
                                      .help =
                                          "Threads per block for the GPU steps: a multiple of 32 "
                                          "(the per-warp steps give each warp its "
                                          "own sub-histogram).",
                                      .logScale = true};
inline constexpr ParamSpec kSkew{
    .id = "skew",
    .label = "Share in one bin",
    .min = 0,
    .max = 1,
    .defaultValue = 0,
    .help =
        "The share of the uniform values replaced by one value (bin 0 of 8-bit data): 0 is "
        "uniform, "
        "1 puts every value in the same bin, where every thread's atomic hits one counter.",
    .integer = false};

struct HistParams {
  Source source = Source::Normal;
  long long n = 1LL << 24;
  int bins = 256;
  int block = 256;
  double skew = 0;  // Source::Uniform only
  // The counted range: the course's [-4, 4) for normal numbers, [0, 256) for 8-bit values.
  float xmin = -4.0f, xmax = 4.0f;
  std::uint64_t seed = 0;  // 0: a fresh seed each time
  int runs = 10, warmup = 2;
};
// N, bins, block and range; `freeBytes` (when known) refuses inputs the GPU cannot hold.
Status validate(const HistParams& p, long long freeBytes = -1);
BinRule binRule(const HistParams& p);

// Sub-histograms per block the Warps, Vector and Aggregated steps keep: one per warp, as many as
// shared memory holds (at `sharedLimit` bytes per block).
int subHistograms(int bins, int block, long long sharedLimit);
// Columns of counters the Lanes step interleaves: 32 (one per lane, each in its own bank) when
// shared memory holds them, fewer for many bins (lanes then share columns).
int laneColumns(int bins, long long sharedLimit);

// The atomics a step issues per input element, computed, not measured. Global counts atomics on
// global memory (the merges of the shared steps included: bins per block), shared those on
// shared memory. `blocks` is the grid the step launches; `distinctPerWarp` the mean number of
// different bins among the 32 values a warp's instruction holds (the Aggregated step issues one
// shared atomic per distinct bin; aggregatedShare() computes it from the data).
struct AtomicsPerElement {
  double global = 0;
  double shared = 0;
};
AtomicsPerElement atomicsPerElement(HistStepId step, long long n, int bins, long long blocks,
                                    double distinctPerWarp = 32);

// The inputs, made on the CPU with a seed (several threads, the same values for the same seed).
// Float data for Source::Normal, 8-bit data otherwise.
struct HistInput {
  Source source = Source::Normal;
  std::vector<float> f;
  std::vector<std::uint8_t> u8;
  long long size() const {
    return source == Source::Normal ? (long long)f.size() : (long long)u8.size();
  }
  const void* data() const {
    return source == Source::Normal ? (const void*)f.data() : (const void*)u8.data();
  }
  long long bytes() const { return size() * (source == Source::Normal ? 4 : 1); }
};
HistInput makeInput(const HistParams& p, std::uint64_t seed);

// The reference: every value's bin by binOf (the rule the kernels share), out-of-range and NaN
// values dropped. One thread, or `threads` threads with a private histogram each (0: all cores).
std::vector<std::uint32_t> cpuHistogram(const HistInput& in, const BinRule& r, int threads = 1);
// The course's cpu_histogram exactly as written: np.int32 truncates toward zero, so values up to
// one bin width below xmin are counted in bin 0. Shown beside the lesson's rule.
std::vector<std::uint32_t> courseCpuHistogram(const std::vector<float>& x, float xmin, float xmax,
                                              int bins);

// Mean distinct bins per warp instruction of the Aggregated step, from the data: the kernel's own
// assignment of 16-byte chunks to lanes replayed (a warp's 32 lanes hold 32 neighbouring chunks
// whatever the grid, since the grid is a whole number of warps).
double distinctPerWarp(const HistInput& in, const BinRule& r);

// Bins that differ, and the first of them.
struct HistCheck {
  long long wrongBins = 0;
  int firstWrong = -1;
  std::uint32_t expected = 0, got = 0;
  long long counted = 0;  // values the histogram holds (in range)
  bool ok() const { return wrongBins == 0; }
};
HistCheck compareHistograms(const std::vector<std::uint32_t>& expected,
                            const std::vector<std::uint32_t>& got);

// ---------------------------------------------------------------------------------------------
// [SECTION] Measurement
// ---------------------------------------------------------------------------------------------

struct HistStepResult {
  HistStepId step;
  double ms = 0;
  double gbps = 0;  // input bytes / time
  long long blocks = 0;
  int subHistograms = 0;
  HistCheck check;
  AtomicsPerElement atomics;
  double ofCopy = 0;  // gbps / the copy ceiling
  double ofCub = 0;   // CUB's time / this step's
  std::vector<std::uint32_t> histogram;
};
struct HistReport {
  HistParams p;
  std::string device;
  double copyGBps = 0;  // device-to-device copy of the input's size, bytes read + written
  std::vector<std::uint32_t> reference;  // the CPU's histogram
  long long dropped = 0;                 // values outside the range (and NaN)
  double distinctPerWarp = 32;
  std::vector<HistStepResult> steps;
  const HistStepResult* find(HistStepId id) const {
    return findRow(steps, &HistStepResult::step, id);
  }
};
Result<HistReport> measureHistLadder(const HistParams& p, std::span<const HistStepId> steps,
                                     const std::atomic<bool>* cancel, const Progress& progress);
// Without a GPU: the CPU steps only.
Result<HistReport> measureHistCpu(const HistParams& p, const std::atomic<bool>* cancel,
                                  const Progress& progress);

struct SkewPoint {
  HistStepId step;
  double skew = 0;
  double ms = 0;
  double gbps = 0;
  bool ok = false;
};
std::vector<double> defaultSkews();  // 0 to 1
Result<std::vector<SkewPoint>> measureSkewSweep(const HistParams& p,
                                                const std::vector<double>& skews,
                                                std::span<const HistStepId> steps,
                                                const std::atomic<bool>* cancel,
                                                const Progress& progress);

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).

// The histogram's input as the panel chooses it (sources(), in its order), for presets and plans.
inline constexpr ParamSpec kSourceChoice{
    .id = "source",
    .label = "Histogram input",
    .min = 0,
    .max = 2,
    .defaultValue = 0,
    .help =
        "What is counted: the course's normal float32 numbers, the 8-bit pixels of a generated "
        "image, or uniform 8-bit values with a share of them in one bin (skew)."};

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kAtomicsParams[] = {kRaceBlocks, kRaceThreads, kRaceRepeats, kHistN,
                                               kHistBins,   kHistBlock,   kSkew};

}  // namespace cudalab::atomics
