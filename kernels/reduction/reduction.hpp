// The reduction lesson: the sum of N numbers, from Mark Harris's first kernel to CUB, every step
// its own kernel, checked against the exact sum before it is timed.
//
// [SECTION] Ladder       the table of steps: drives the UI rows, the benchmark rows and the tests
// [SECTION] Validation   N, block size, device memory
// [SECTION] Launch plan  the passes each step makes (grid, block, elements in and out): pure C++,
//                        so the tables, the error bounds and the tests work without a GPU
// [SECTION] Tree model   one block's shared-memory tree, level by level: active threads, divergent
//                        warps, bank conflicts (what the pictures draw and the CPU tests check)
// [SECTION] Reference    the random inputs, the exact sum, error bounds, the CPU's float sums
// [SECTION] Measurement  one reduction, the measured ladder, the bandwidth sweep
//
// Typical use (the panel, on its worker thread):
//
//   ReduceParams p{.type = DataType::Float32, .n = 1 << 28, .block = 256};
//   if (Status s = validate(p); !s) return show(s.sentence());
//   Result<LadderReport> r = measureLadder(p, allStepIds(), cancel, progress);
//   for (const StepResult& s : r->steps) show(stepInfo(s.step).label, s.gbps, s.error);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/sweep.hpp"
#include "common/table.hpp"
#include "common/measurement.hpp"
#include "common/params.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"
#include "counters/counters.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab::reduction {

// Called on the measuring thread with the fraction done and what runs now.
using Progress = std::function<void(float fraction, const std::string& what)>;

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder
// ---------------------------------------------------------------------------------------------

enum class DataType { Int32, Float32, Float64 };
const char* typeLabel(DataType t);  // "int32", "float32", "float64"
int typeBytes(DataType t);          // 4, 4, 8
std::optional<DataType> typeByLabel(const std::string& label);
inline constexpr DataType kTypes[] = {DataType::Int32, DataType::Float32, DataType::Float64};

enum class StepId {
  Interleaved,  // 1. tid % (2s) == 0: divergent branches
  Strided,      // 2. index = 2 s tid: no divergence, bank conflicts
  Sequential,   // 3. stride halves from blockDim / 2: conflict-free
  FirstAdd,     // 4. two elements added while loading: half the blocks
  UnrollLast,   // 5. the last warp without barriers
  Unrolled,     // 6. block size a template parameter: every loop unrolled
  Multiple,     // 7. many elements per thread (grid-stride), one launch plus a tiny second pass
  Shuffle,      // warp shuffles, 16-byte loads
  Atomic,       // the shuffle kernel with one atomicAdd per block: a single launch
  Course,       // the course's kernel: in place in global memory, finished on the CPU
  Cub,          // cub::DeviceReduce::Sum
};

// How a step gets from N numbers to one.
enum class Shape {
  Tree,        // each block sums blockDim (or 2 blockDim) numbers; passes repeat until one is left
  GridStride,  // a grid that fits the GPU once; each thread sums many; one block finishes
  Atomic,      // a grid that fits the GPU once; blocks add their sums into the result atomically
  Course,      // one pass of blocks of 128; the partial sums are copied back and added on the CPU
  Library,     // CUB decides
};

struct StepInfo {
  StepId id;
  const char* key;    // stable id for the CLI, JSON and tests: "interleaved", "cub"
  const char* label;  // what the UI shows
  int harris;         // the step's number in Harris's ladder (1..7), 0 for the others
  Shape shape;
  // Numbers each thread loads per block before the tree: 1 (steps 1-3 and the course's), 2
  // (steps 4-7); 0 where the thread's share is not a fixed count (shuffle, atomic, CUB).
  int loadsPerThread;
  bool sharedTree;  // the block's sum is a shared-memory tree (the tree model applies)
  int colour;       // palette index: the step's colour in every panel
  // What was wrong with the previous step and what this one changes, for learners.
  const char* help;
};

// In ladder order: Harris's seven, shuffle, atomic, the course's, CUB.
extern const KeyedTable<StepInfo> kStepTable;  // common/table.hpp
CUDALAB_KEYED_LOOKUPS(kStepTable, steps, stepInfo, stepByKey)
bool handWritten(const StepInfo& s);  // not CUB
std::span<const StepId> allStepIds();
// The steps the bandwidth sweep measures: one line per idea (steps 1, 3, 4, 6, 7, shuffle, atomic,
// CUB), without the course's kernel, which its copy to the host limits, not the GPU.
std::span<const StepId> sweepStepIds();

// ---------------------------------------------------------------------------------------------
// [SECTION] Validation
// ---------------------------------------------------------------------------------------------

inline constexpr long long kCourseN = (1LL << 27) - 157;  // the course's 134,217,571
inline constexpr int kCourseBlock = 128;                  // the course's threadsperblock

inline constexpr ParamSpec kCount{
    .id = "n",
    .label = "N",
    .min = 1,
    .max = 536870912,
    .defaultValue = static_cast<double>(kCourseN),
    .help =
        "How many numbers are summed. Any N works, powers of two or not: threads past the end load "
        "0, which changes no sum (in the course's kernel they add nothing). The course sums 2^27 - "
        "157; the benchmark 2^28.",
    .logScale = true};
inline constexpr ParamSpec kBlock{
    .id = "block",
    .label = "Threads per block",
    .min = 64,
    .max = 1024,
    .defaultValue = 256,
    .help =
        "A power of two from 64 to 1024: the trees halve the number of active threads at every "
        "level, and from step 5 on the last 64 numbers are summed by one warp. The course's kernel "
        "always uses its own 128.",
    .logScale = true};

struct ReduceParams {
  DataType type = DataType::Float32;
  long long n = kCourseN;
  int block = 256;
  int warmup = 2, runs = 10;
};

// Refused with a sentence that says why: N out of range, a block that is not a power of two.
Status validate(const ReduceParams& p);
// The input, two buffers of partial sums and the course's scratch copy must fit.
Status checkMemory(const ReduceParams& p, std::size_t freeDeviceBytes);

// ---------------------------------------------------------------------------------------------
// [SECTION] Launch plan
// ---------------------------------------------------------------------------------------------

// One kernel launch: `grid` blocks of `block` threads reduce `n` numbers to `grid` partial sums
// (or, for Atomic, add them into the result).
struct Pass {
  long long n = 0;
  long long grid = 0;
  int block = 0;
  long long perThread() const;  // numbers each thread loads, at most
};

// The passes a step makes for n numbers with `block` threads per block. `residentBlocks` is how
// many blocks of the grid-stride kernels the GPU holds at once (SMs x blocks per SM); their grid
// is at most that. Library steps have no plan. For Course, the one GPU pass (the CPU adds its
// `grid` partial sums).
std::vector<Pass> passPlan(StepId step, DataType type, long long n, int block,
                           long long residentBlocks);
// "524,288 → 2,048 → 8 → 1 blocks of 256" for the table: one launch per grid. Without the
// block size: "524,288 → 2,048 → 8 → 1".
std::string describePlan(std::span<const Pass> plan, bool withBlock = true);
// Numbers the shuffle and atomic kernels load with one 16-byte load: 4 (int32, float32), 2.
int vectorWidth(DataType t);

// ---------------------------------------------------------------------------------------------
// [SECTION] Tree model
// ---------------------------------------------------------------------------------------------
// One block's sum, as the pictures draw it. Slots are the block's shared-memory array (or, for
// the shuffle kernels, its threads' registers; for the course's kernel, its part of the array in
// global memory). Level 0 is the load; each later level is one round of additions.

struct TreeOp {
  int thread = 0;  // threadIdx.x doing the addition
  int dst = 0;     // slot written: slot[dst] = slot[dst] + slot[src]
  int src = 0;
};

struct WarpAtLevel {
  int warp = 0;
  int useful = 0;     // lanes whose addition is part of the sum
  int executing = 0;  // lanes that execute the addition (the unrolled warp adds unused lanes too)
  bool divergent = false;  // some lanes take the branch and some do not: two passes
  // Shared-memory requests of the warp's additions (read dst, read src, write dst): the
  // worst conflict degree and the wavefronts they take in all (0 when none).
  int conflictDegree = 0;
  int wavefronts = 0;
};

struct TreeLevel {
  int stride = 0;                  // src - dst, or the shuffle offset
  std::string what;                // "s = 64: tid < 64 adds slot tid + 64"
  std::vector<TreeOp> ops;         // the useful additions, in thread order
  std::vector<WarpAtLevel> warps;  // warps with at least one executing lane
  int activeThreads = 0;           // useful additions
  int divergentWarps = 0;
  int worstConflict = 0;      // the largest conflict degree of any warp (0: no shared memory)
  int wavefronts = 0;         // summed over warps
  bool barrier = false;       // __syncthreads after the level
  bool shuffle = false;       // registers through __shfl_down_sync, not shared memory
  bool globalMemory = false;  // the course's kernel: the slots are in global memory
};

struct TreeModel {
  StepId step;
  int block = 0;
  int slots = 0;
  int elementBytes = 4;
  std::string load;          // what level 0 does: "slot[tid] = x[i]"
  bool loadBarrier = false;  // __syncthreads between the load and level 1 (shared-memory trees)
  std::string note;          // what the picture cannot show (an atomicAdd, an unrolled loop)
  std::vector<TreeLevel> levels;  // level 1 onwards
  int totalDivergent() const;     // divergent warp-levels
  int totalWavefronts() const;
  int barriers() const;  // __syncthreads the block passes, the one after the load included
};

// Refused for CUB (its internals are its own) and for blocks that are not a power of two from 32
// (64 for the unrolled, grid-stride, shuffle and atomic steps) to 1024.
Result<TreeModel> treeModel(StepId step, int block, DataType type);

// ---------------------------------------------------------------------------------------------
// [SECTION] Reference
// ---------------------------------------------------------------------------------------------

// N random numbers: float32 standard normals (the course's data); float64 the same numbers
// widened (so the exact sum is the same); int32 those numbers times 100, rounded.
struct HostData {
  DataType type = DataType::Float32;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<std::int32_t> i32;
  long long size() const;
  const void* data() const;
};
// Setting `*cancel` stops it within a block of numbers; it then returns empty data.
HostData makeData(DataType type, long long n, std::uint64_t seed,
                  const std::atomic<bool>* cancel = nullptr);

// The exact sum (double-double for floats, int64 for int32), sum |x| and the CPU's float sums,
// for the accuracy panel and every check.
struct CpuSums {
  long double exact = 0;
  double absSum = 0;
  // In the data's own precision, in index order: sequential (one accumulator, a loop), pairwise
  // (halves summed recursively, as NumPy's sum does), Kahan (compensated). For int32 all three
  // are the exact int64 sum.
  double sequential = 0, pairwise = 0, kahan = 0;
  // In NumPy's order for np.sum of a large array: pairwise (blocks of 128 numbers in 8
  // accumulators, then halving) inside each 8,192-number buffer, the buffers' sums added one after
  // another, starting from the first number.
  double numpy = 0;
  double sequentialMs = 0;  // one thread, wall time
};
CpuSums cpuSums(const HostData& d);
// NumPy's order for np.sum (CpuSums::numpy): the CPU's part of the course's kernel.
double sumNumpyOrder(std::span<const float> x);
double sumNumpyOrder(std::span<const double> x);

// The most a correct float sum may differ from the exact sum with step `step`'s order of
// additions: gamma_d sum|x|, d the longest chain of roundings any number goes through (the
// plan's per-thread loop plus each tree's depth plus, for Atomic, one addition per block), u the
// precision's unit roundoff. 0 for int32 (exact).
double errorBound(StepId step, DataType type, long long n, int block, long long residentBlocks,
                  double absSum);
// The longest chain d itself, for the table's tooltip.
long long roundingDepth(StepId step, DataType type, long long n, int block,
                        long long residentBlocks);

// The int32 sum as the GPU computes it: the exact sum wrapped to 32 bits (two's complement).
std::int32_t wrapInt32(long double exact);

// ---------------------------------------------------------------------------------------------
// [SECTION] Measurement
// ---------------------------------------------------------------------------------------------

// How many blocks of `block` threads of the step's grid-stride kernel the current device holds at
// once (SMs x blocks per SM, from the occupancy calculator): passPlan's `residentBlocks`. 1 for
// steps whose grid does not depend on it.
Result<long long> residentBlocks(StepId step, DataType type, int block);

// One reduction of host data on the GPU (copy in, reduce with the step, copy the sum back), with
// the output and partial sums poisoned first. For tests and the command line.
Result<double> reduceOnce(StepId step, const HostData& d, int block);

// What the GPU's counters (CUPTI, kernels/counters) say of a step's first kernel: the pass over
// all N numbers, where the tree's divergence and bank conflicts are. Profiling replays kernels:
// these runs are apart from the timed ones.
inline const std::vector<std::string> kCounterKeys = {"warp_efficiency",
                                                      "divergent_branches",
                                                      "shared_load_bank_conflicts",
                                                      "shared_store_bank_conflicts",
                                                      "shared_load_requests",
                                                      "achieved_occupancy",
                                                      "instructions"};
// Every step in `steps` but CUB on `p` (fresh numbers; N is usually smaller than for timing,
// since each kernel runs once per pass of the profiler), reading kCounterKeys of each step's first
// kernel.
Result<std::vector<counters::StepReading>> measureCounters(const ReduceParams& p,
                                                           std::span<const StepId> steps,
                                                           const std::atomic<bool>* cancel,
                                                           const Progress& progress);

struct StepResult {
  StepId step;
  Measurement m;  // kernel phase: the step's passes (the course's: its one kernel)
  double ms = 0;  // time until the sum exists: kernel median (course: + copy back + CPU sum)
  double cpuFinishMs = 0;        // the course's copy back and CPU sum
  double gbps = 0;               // N x element bytes / ms
  double stepSpeedup = 0;        // over the previous hand-written step measured (0: first)
  double totalSpeedup = 0;       // over step 1 (0: step 1 not measured)
  double ofPeak = 0;             // gbps over the device's theoretical bandwidth
  double ofLibrary = 0;          // gbps over CUB's
  double value = 0;              // the sum (the last run's)
  double error = 0;              // value - exact
  double bound = 0;              // errorBound for the step
  std::string plan;              // describePlan
  long long residentBlocks = 0;  // the grid-stride kernels' grid limit on this device
  bool ok = false;               // every run within the bound (int32: equal)
};

// A step's measured values by their export names ("ms", "gbps", "step_speedup", ..., "correct"
// as 1 or 0), in one place for the lesson's CSV and JSON and the benchmark's JSON.
std::vector<std::pair<std::string, double>> stepValues(const StepResult& s);

struct LadderReport {
  ReduceParams p;
  std::string device;
  double peakGBps = 0;  // theoretical (memory clock x bus width), 0 when unknown
  int sms = 0;
  CpuSums cpu;
  std::vector<StepResult> steps;  // in the order asked
  const StepResult* find(StepId id) const { return findRow(steps, &StepResult::step, id); }
};

// Measures `which` (ladder order) on fresh random numbers: outputs poisoned before every run, every
// run checked against the exact sum.
Result<LadderReport> measureLadder(const ReduceParams& p, std::span<const StepId> which,
                                   const std::atomic<bool>* cancel = nullptr,
                                   const Progress& progress = {});

// GB/s against N.
struct SweepPoint {
  long long n = 0;
  StepId step;
  double gbps = 0;
  bool ok = false;
};
// A point as the lesson's export and the benchmark write it: n, the step's key, GB/s, correct.
nlohmann::json toJson(const SweepPoint& p);
std::vector<long long> defaultSweepSizes();  // 2^10 ... 2^28, every 2 octaves
// Each point: fresh numbers, 1 warm-up and 5 timed runs, checked like the ladder.
// Stops at the first size that fails (out of memory, cancelled), keeping the points before it.
SweepRun<SweepPoint> measureSweep(DataType type, int block, std::span<const long long> sizes,
                                  std::span<const StepId> which,
                                  const std::atomic<bool>* cancel = nullptr,
                                  const Progress& progress = {});

// The CPU side alone (no GPU needed): fresh data, the exact sum and the CPU's float sums.
struct CpuReport {
  ReduceParams p;
  CpuSums cpu;
};
Result<CpuReport> measureCpu(const ReduceParams& p, const std::atomic<bool>* cancel = nullptr,
                             const Progress& progress = {});

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).

// The type and the block as the panel chooses them (its combos), for presets and plans.
inline constexpr ParamSpec kTypeChoice{
    .id = "type",
    .label = "Type",
    .min = 0,
    .max = 2,
    .defaultValue = 1,
    .help =
        "The numbers' type: int32, float32 or float64. int32 sums are exact in any order; float "
        "sums depend on the order of the additions."};

inline constexpr ParamSpec kBlockChoice{.id = "block",
                                        .label = "Threads per block",
                                        .min = 0,
                                        .max = 4,
                                        .defaultValue = 2,
                                        .help = kBlock.help};

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kReductionParams[] = {kCount, kBlock};

}  // namespace cudalab::reduction
