// The "launch-config" lesson: hello kernel, indexing, too few and too many threads, grid-stride
// loops. The kernel doubles N numbers (out[i] = 2 * in[i], the course's 30 million example); the
// learner changes threads per block, blocks per grid, 1D or 2D, the bounds guard and the
// grid-stride loop, and sees which thread wrote which element, which were never written and which
// writes went past the end.
//
// [SECTION] Configuration   LaunchConfig, its ParamSpec constants and the variants table
// [SECTION] Device limits   DeviceLimits: from the GPU (queryLimits) or a model of an H100
// [SECTION] Shape           shapeFor(): grid and block, thread and warp counts, what gets written,
//                           the allocation (array + canary zone). Pure.
// [SECTION] Validation      validate() refuses with a sentence that teaches; warnings() allows
// [SECTION] Occupancy       blocks per SM, waves, and the "what to conclude" paragraph
// [SECTION] Ownership       which thread wrote each element: modelOwnership() on the CPU,
//                           gpuOwnership() on the GPU, the same index arithmetic
//                           (launch_config_index.cuh)
// [SECTION] Reference       the float64 CPU reference and the element-by-element comparison
// [SECTION] GPU             the launchers, occupancy, device limits and the measured Workload
//
// Typical use (the panel, on its worker thread):
//
//   DeviceLimits lim = hasGpu ? *queryLimits(0) : DeviceLimits{};      // {} = model of an H100
//   if (Status s = validate(cfg, lim); !s) return show(s.sentence());
//   for (const Phrase& w : warnings(cfg)) showWarning(w.english());
//   LaunchShape shape = *shapeFor(cfg, lim);
//   int perSM = hasGpu ? *occupancyBlocksPerSM(cfg) : modelBlocksPerSM(cfg.threadsPerBlock, lim);
//   OccupancyNumbers occ = occupancyNumbers(shape, lim, perSM);
//   show(english(conclusion(cfg, shape, occ, lim)));
//   Result<OwnershipMap> map = hasGpu ? gpuOwnership(cfg, lim, stream) : modelOwnership(cfg, lim);
//   auto w = makeDoublingWorkload(cfg, shape);
//   Result<Measurement> m = measure(*w, MeasureOptions{}, cancel, stream);
//
// Semantics of the launch (the same in the kernel and the model):
//   1D: i = blockIdx.x * blockDim.x + threadIdx.x; guarded: `if (i < n) out[i] = 2 * in[i]`;
//       grid-stride: `for (i = that; i < n; i += gridDim.x * blockDim.x)`.
//   2D: the array is seen as a picture `width` elements wide and ceil(n / width) rows high (the
//       last row partial when width does not divide n). Blocks are bx x by threads (bx = 32 when
//       the block size allows, see blockShape2D), x = blockIdx.x * bx + threadIdx.x,
//       y = blockIdx.y * by + threadIdx.y, element = y * width + x. Guarded:
//       `x < width && y < height` (and element < n for the partial row). Unguarded, a thread
//       with x >= width writes into the NEXT row (that element is written twice) and one with
//       y >= height past the end. Grid-stride: loops over y (step gridDim.y * by) and x (step
//       gridDim.x * bx).
//   Threads are numbered as CUDA does (clLinearThreadId): block by block (blockIdx.y * gridDim.x
//   + blockIdx.x), inside a block threadIdx.x fastest; warps are 32 consecutive threads of one
//   block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/measurement.hpp"
#include "common/params.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"
#include "counters/counters.hpp"
#include "launch_config/launch_config_index.cuh"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab::launch_config {

// ---------------------------------------------------------------------------------------------
// [SECTION] Sentences
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// [SECTION] Configuration
// ---------------------------------------------------------------------------------------------

// N: the course doubles 30 million random numbers. 2^28 floats are 1 GiB per array.
inline constexpr ParamSpec kLaunchN{
    .id = "n",
    .label = "Elements (N)",
    .min = 1,
    .max = 268435456,
    .defaultValue = 30000000,
    .help =
        "How many numbers the kernel doubles. The course's example uses 30 million. Each element "
        "is a 4-byte float read once and written once.",
    .logScale = true};

// The range goes past CUDA's limit on purpose: 2048 can be typed, and validate() then explains
// why no GPU accepts it, rather than a slider silently stopping at 1024.
inline constexpr ParamSpec kLaunchThreadsPerBlock{
    .id = "threads_per_block",
    .label = "Threads per block",
    .min = 1,
    .max = 2048,
    .defaultValue = 128,
    .help =
        "Threads in one block (blockDim). Use a multiple of 32, the warp size: the GPU runs "
        "threads "
        "in warps of 32, and a partly filled warp wastes its empty lanes. 128 to 512 is the usual "
        "starting point; at most 1024 are allowed.",
    .logScale = true};

// Manual grid size. Typing 2^31 or more is allowed here so validate() can say why the GPU
// refuses it. The default is 4 blocks per SM of an H100 (132 SMs): the course's heuristic.
inline constexpr ParamSpec kLaunchBlocks{
    .id = "blocks",
    .label = "Blocks per grid",
    .min = 1,
    .max = 4294967296.0,
    .defaultValue = 528,
    .help =
        "Blocks in the grid (gridDim.x) when not chosen automatically. Too few and, without a "
        "grid-stride loop, the last elements are never written; too many and the extra threads "
        "have nothing to do (or, without the guard, write past the end of the array).",
    .logScale = true};

// Manual grid height for 2D grids. Up to 2^17 so a value over the device limit (65535) can be
// typed and refused with the reason.
inline constexpr ParamSpec kLaunchBlocksY{
    .id = "blocks_y",
    .label = "Blocks per grid (y)",
    .min = 1,
    .max = 131072,
    .defaultValue = 64,
    .help =
        "Rows of blocks (gridDim.y) in a 2D grid when not chosen automatically. A grid can have at "
        "most 65535 blocks in y, far fewer than in x.",
    .logScale = true};

// Row length of the picture. 1920 divides 30 million exactly (15625 rows of a full-HD width).
inline constexpr ParamSpec kLaunchWidth{.id = "width",
                                        .label = "Row length (width)",
                                        .min = 1,
                                        .max = 65536,
                                        .defaultValue = 1920,
                                        .help =
                                            "The array seen as a picture this many elements wide. "
                                            "A 2D grid covers it with x along a row "
                                            "and y down the rows (element = y * width + x); a 1D "
                                            "grid's picture uses it only to lay the "
                                            "elements out.",
                                        .logScale = true};

inline constexpr ParamSpec kLaunchParams[] = {kLaunchN, kLaunchThreadsPerBlock, kLaunchBlocks,
                                              kLaunchBlocksY, kLaunchWidth};

// The course's grid-size heuristic: 2 to 4 blocks per SM for a grid-stride loop. Automatic
// grid-stride grids use the upper end; the sweep marks both.
inline constexpr int kHeuristicBlocksPerSMLow = 2;
inline constexpr int kHeuristicBlocksPerSMHigh = 4;

struct LaunchConfig {
  long long n = 30000000;
  int threadsPerBlock = 128;
  // Automatic grid: ceil(N / threads) blocks (2D: enough blocks to cover width x height), or with
  // a grid-stride loop kHeuristicBlocksPerSMHigh blocks per SM (fewer when N needs fewer).
  bool autoBlocks = true;
  long long blocks = 528;  // manual: gridDim.x
  long long blocksY = 64;  // manual, 2D only: gridDim.y
  bool grid2d = false;
  long long width = 1920;  // row length: the 2D grid's array is width x ceil(n / width); 1D uses
                           // it only to lay the elements out as a picture
  bool guard = true;       // ignored with gridStride: the loop condition is the guard
  bool gridStride = false;
};

// One line for tooltips, CSV rows and test failures:
// "1D, N = 30,000,000, 234,375 blocks x 128 threads (auto), guard on".
std::string describe(const LaunchConfig& c);

// The one table of the lesson's kernel variants: the UI's toggles, benchmark rows and tests read
// it. A variant fixes the three switches; N, threads and blocks stay the learner's.
struct LaunchVariant {
  const char* id;     // stable name for the CLI, CSV and presets: "1d_guarded", ...
  const char* label;  // what the UI shows
  const char* help;   // tooltip: what the variant changes and what to look for
  bool grid2d;
  bool guard;
  bool gridStride;
};

std::span<const LaunchVariant> launchVariants();
const LaunchVariant* findLaunchVariant(std::string_view id);  // nullptr when unknown
// The variant a configuration runs (with a grid-stride loop the guard switch does not matter).
const LaunchVariant& variantOf(const LaunchConfig& c);
LaunchConfig withVariant(LaunchConfig c, const LaunchVariant& v);

// ---------------------------------------------------------------------------------------------
// [SECTION] Device limits
// ---------------------------------------------------------------------------------------------

// What the launch arithmetic needs from a GPU. The defaults describe an H100 SXM5 80 GB, so every
// number in the lesson can be shown (labelled as a model) on a machine without a GPU.
struct DeviceLimits {
  int maxThreadsPerBlock = 1024;    // the same on every GPU since compute capability 2.0
  long long maxGridX = 2147483647;  // 2^31 - 1 since compute capability 3.0
  int maxGridY = 65535;
  int smCount = 132;
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  int warpSize = kWarpSize;
  size_t freeBytes = 84490125312ull;  // what cudaMemGetInfo reported on an idle H100 80 GB
  bool fromDevice = false;            // true when queryLimits() filled it from a real GPU
  std::string name = N_("model of an H100 SXM5 80 GB");  // or the GPU's own name
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Shape
// ---------------------------------------------------------------------------------------------

// A 2D block of `threadsPerBlock` threads: x = 32 (one warp per row of the block, so a warp reads
// 32 neighbouring elements) and y = threadsPerBlock / 32. Blocks under 32 threads are one row.
// When 32 does not divide the block size, x is the largest divisor not above 32 so the block keeps
// exactly the requested number of threads (100 -> 25 x 4, a prime such as 97 -> 1 x 97).
struct BlockShape2D {
  int x, y;
};
BlockShape2D blockShape2D(int threadsPerBlock);

// Everything that follows from a configuration without running anything.
struct LaunchShape {
  long long gridX = 0, gridY = 1;  // gridDim (may exceed the device's limits: validate() refuses)
  int blockX = 0, blockY = 1;      // blockDim
  int threadsPerBlock = 0;
  long long blocks = 0;        // gridX * gridY
  long long totalThreads = 0;  // blocks * threadsPerBlock
  long long n = 0;
  long long width = 0, height = 0;  // the picture: height = ceil(n / width)
  // Threads with an element of their own (1D: i < n; 2D: inside the picture). The others are
  // idle: with the guard they return at once; without it they write where they should not.
  long long workingThreads = 0;
  long long idleThreads = 0;
  long long warpsPerBlock = 0;
  long long warps = 0;
  long long partialWarps = 0;  // warps with empty lanes: one per block when 32 does not divide it
  long long emptyLanes = 0;    // warps * 32 - totalThreads
  // What the launch writes (the model's counts agree, the tests check it).
  long long coveredElements = 0;    // elements of [0, n) written at least once
  long long unwrittenElements = 0;  // n - coveredElements: a grid too small without a stride loop
  long long canaryWrites = 0;       // writes at index n or more (guard off)
  long long extraWrites = 0;        // writes to an element already written (2D, guard off)
  long long maxElementsPerThread = 0;  // more than 1 only with a grid-stride loop
  // Elements to allocate for every array: n plus the canary zone, large enough for every index any
  // thread computes, so unguarded writes never leave the allocation.
  long long allocationElements = 0;
  IndexGeometry geometry{};  // what the kernel and the model receive
};

// Fails only when a number is outside its ParamSpec range (so the arithmetic cannot overflow);
// limits over the device's are for validate() to refuse, the shape still says what was asked.
// Auto grid-stride grids use limits.smCount.
Result<LaunchShape> shapeFor(const LaunchConfig& c, const DeviceLimits& limits);

// The thread -> block and thread -> warp maps of the picture (warps are numbered block by block:
// block * warpsPerBlock + threadInBlock / 32), the same on the GPU and in the model.
inline long long blockOf(long long tid, const LaunchShape& s) {
  return clBlockOfThread(tid, s.threadsPerBlock);
}
inline long long warpOf(long long tid, const LaunchShape& s) {
  return clWarpOfThread(tid, s.threadsPerBlock);
}

// Device memory validate() requires: input, output, owner map and write counts, 4 bytes each per
// allocated element (16 bytes per element; the measurement and the picture may run together).
size_t deviceBytesNeeded(const LaunchShape& s);

// ---------------------------------------------------------------------------------------------
// [SECTION] Validation
// ---------------------------------------------------------------------------------------------

// Refuses, with a sentence that teaches: numbers outside their ParamSpec ranges, more threads per
// block than the device allows, a grid over the device's limits (with the numbers), and more
// device memory than is free. Pure.
Status validate(const LaunchConfig& c, const DeviceLimits& limits);

// The refusal of a block of `threads` threads where the GPU allows `maxThreads`: why blocks are
// limited and what to do instead (the playground's launches say the same). Sentences with numbers
// are Phrases (common/status.hpp): the app translates the whole format and fills in the values.
Phrase blockTooLargePhrase(long long threads, long long maxThreads);
// validate()'s refusal as a sentence the app can translate: no format when the configuration is
// valid or when the refusal is not the lesson's own (a number outside its range).
Phrase validationPhrase(const LaunchConfig& c, const DeviceLimits& limits);

// Allowed but worth a sentence: a block size that is not a multiple of 32 (partly empty warps),
// a narrow 2D block, the guard switch with a grid-stride loop (where it changes nothing).
std::vector<Phrase> warnings(const LaunchConfig& c);

// ---------------------------------------------------------------------------------------------
// [SECTION] Occupancy
// ---------------------------------------------------------------------------------------------

// How many blocks of this size fit on one SM, limited by threads per SM (counted in whole warps)
// and blocks per SM. Registers and shared memory are ignored: the doubling kernel uses a handful of
// registers and no shared memory, so they never limit it. The GPU's answer comes from
// occupancyBlocksPerSM().
int modelBlocksPerSM(int threadsPerBlock, const DeviceLimits& limits);

struct OccupancyNumbers {
  int blocksPerSM = 0;           // resident blocks per SM (given by the caller)
  long long residentBlocks = 0;  // blocksPerSM * SMs: blocks the GPU runs at the same time
  long long waves = 0;           // ceil(blocks / residentBlocks)
  double tailFraction = 0;       // how full the last wave is, 0..1 (1: every slot busy)
  long long busySMs = 0;         // SMs that get at least one block: min(blocks, SMs)
  double occupancy = 0;          // resident warps per SM / the most an SM can hold, 0..1
};
OccupancyNumbers occupancyNumbers(const LaunchShape& s, const DeviceLimits& limits,
                                  int blocksPerSM);

// One paragraph for the learner: what this launch did and what to conclude (elements never
// written, writes past the end or twice, idle threads, empty warp lanes, idle SMs, waves, or that
// the launch is a good one), as sentences the app translates one by one and joins with spaces
// (english() joins them in English).
std::vector<Phrase> conclusion(const LaunchConfig& c, const LaunchShape& s,
                               const OccupancyNumbers& o, const DeviceLimits& limits);

// Points of the lesson's two sweeps, built from a base configuration: threads per block 32..1024
// in steps of 32 (blocks automatic), and blocks per grid in powers of two from 1 up to what N
// needs with a grid-stride loop (manual blocks). The heuristic's 2 and 4 blocks per SM are
// included so they are measured, not interpolated.
std::vector<LaunchConfig> threadsPerBlockSweep(const LaunchConfig& base);
std::vector<LaunchConfig> blocksSweep(const LaunchConfig& base, const DeviceLimits& limits);

// ---------------------------------------------------------------------------------------------
// [SECTION] Ownership
// ---------------------------------------------------------------------------------------------

inline constexpr uint32_t kNoOwner = 0xFFFFFFFFu;
// The picture follows every element: at most 2^26 (67,108,864) allocated elements, 8 bytes each
// for the maps (and on the GPU its own buffers), and thread numbers must fit 32 bits.
inline constexpr long long kMaxPictureElements = 1ll << 26;
// The CPU model follows each thread that can write; past this many it refuses rather than take
// seconds (only absurd unguarded grids reach it).
inline constexpr long long kMaxModelThreads = 1ll << 28;

struct OwnershipMap {
  long long n = 0;
  // allocationElements entries: the array, then the canary zone.
  // ownerThread[i]: the lowest thread number (clLinearThreadId) that wrote element i, or kNoOwner.
  // When several threads write one element (a bug), which value lands last is a race on the GPU;
  // the lowest number is what GPU and model agree on.
  std::vector<uint32_t> ownerThread;
  std::vector<uint32_t> writes;   // how many times element i was written
  long long unwritten = 0;        // elements of [0, n) nobody wrote
  long long multiplyWritten = 0;  // elements of [0, n) written more than once
  long long canaryWrites = 0;     // writes at index n or more
  long long totalWrites = 0;
  bool fromModel = true;  // true: the CPU model; false: recorded on the GPU
};

// Recounts unwritten, multiplyWritten, canaryWrites and totalWrites from the vectors.
void countOwnership(OwnershipMap& m);

// The CPU model: follows every thread that can write, through clForEachElement, exactly as the
// kernel does. Refuses (with a sentence) an invalid configuration, an allocation over
// kMaxPictureElements, and more than kMaxModelThreads threads to follow.
Result<OwnershipMap> modelOwnership(const LaunchConfig& c, const DeviceLimits& limits);

// Refuses what the picture cannot show (the reasons modelOwnership gives); shared by both paths.
Status checkPictureLimits(const LaunchShape& s);
// The same refusal as a sentence the app can translate (no format: the picture can show it).
Phrase pictureLimitsPhrase(const LaunchShape& s);

// ---------------------------------------------------------------------------------------------
// [SECTION] Reference
// ---------------------------------------------------------------------------------------------

// out[i] = 2 * in[i] in float64, rounded to float (exact: doubling only changes the exponent).
void referenceDouble(std::span<const float> in, std::span<float> out);

// Compares out with the reference of in, element by element. Doubling is exact, so any difference
// is wrong; a NaN (the poison: an element no thread wrote) is wrong with an infinite error.
Correctness compareWithReference(std::span<const float> in, std::span<const float> out);

// ---------------------------------------------------------------------------------------------
// [SECTION] GPU (launch_config.cu)
// ---------------------------------------------------------------------------------------------
// All on the current device; `in`, `out`, `owner` and `writes` hold shape.allocationElements
// elements. The launchers only enqueue (and check the launch); they do not validate.

// The timed kernel: out[e] = 2 * in[e] for every e clForEachElement gives, nothing else.
Status launchDouble(const LaunchConfig& c, const LaunchShape& s, const float* in, float* out,
                    cudaStream_t stream);

// The same index arithmetic, also recording, per element, the lowest writing thread (atomicMin;
// owner poisoned with kNoOwner) and the number of writes (atomicAdd; writes zeroed). `in` and `out`
// may both be null: then only the maps are written.
Status launchInstrumented(const LaunchConfig& c, const LaunchShape& s, const float* in, float* out,
                          uint32_t* owner, uint32_t* writes, cudaStream_t stream);

// Validates, allocates and poisons the maps, runs the instrumented kernel, copies the maps back.
Result<OwnershipMap> gpuOwnership(const LaunchConfig& c, const DeviceLimits& limits,
                                  cudaStream_t stream);

// cudaOccupancyMaxActiveBlocksPerMultiprocessor for the doubling kernel at this block size.
Result<int> occupancyBlocksPerSM(const LaunchConfig& c);

// Under the GPU's counters (launch_config_counters.cpp): the learner's configuration first, then
// the same one at 32, 64, ..., 1024 threads per block, each doubling kernel profiled once (CUPTI)
// for kLaunchCounterKeys. The model beside them: the calculator's occupancy (blocks per SM from
// occupancyBlocksPerSM) as "achieved_occupancy", and the share of SMs given a block as "sm_busy".
// Separate from the timed runs.
inline const std::vector<std::string> kLaunchCounterKeys = {
    "achieved_occupancy", "sm_busy", "warp_efficiency", "global_load_sectors_per_request",
    "instructions"};
using LaunchProgress = std::function<void(float fraction, const std::string& what)>;
std::vector<LaunchConfig> countersConfigs(const LaunchConfig& learner);
Result<std::vector<counters::StepReading>> measureLaunchCounters(const LaunchConfig& learner,
                                                                 const DeviceLimits& limits,
                                                                 const std::atomic<bool>* cancel,
                                                                 const LaunchProgress& progress);

// The device's limits and free memory (makes `device` current only while asking).
Result<DeviceLimits> queryLimits(int device);

// The measured work: fresh random inputs, output poisoned with NaN (canary zone included), N
// floats copied in and out, verified against referenceDouble. Elements a too-small grid never
// wrote are counted wrong: that is the lesson. Bytes: kernel 8 N, host-to-device and
// device-to-host 4 N each; 1 flop per element.
std::unique_ptr<Workload> makeDoublingWorkload(const LaunchConfig& c, const LaunchShape& s);

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).

// The panel's choices, for presets and plans: the variant (launchVariants(), in its order), the
// automatic grid and what the picture's colours say.
inline constexpr ParamSpec kVariantChoice{.id = "variant",
                                          .label = "Kernel variant",
                                          .min = 0,
                                          .max = 5,
                                          .defaultValue = 0,
                                          .help =
                                              "Which kernel runs: 1D or 2D, with or without the "
                                              "`if (i < n)` guard, or a grid-stride loop."};

inline constexpr ParamSpec kAutoBlocksChoice{
    .id = "auto_blocks",
    .label = "Blocks: automatic",
    .min = 0,
    .max = 1,
    .defaultValue = 1,
    .help =
        "On: just enough blocks to give every element a thread. Off: the grid is yours to choose."};

inline constexpr ParamSpec kColourByChoice{
    .id = "colour_by",
    .label = "Colour by",
    .min = 0,
    .max = 3,
    .defaultValue = 0,
    .help =
        "What each element's colour says: the block, warp or thread that wrote it, or how many "
        "times it was written."};

}  // namespace cudalab::launch_config
