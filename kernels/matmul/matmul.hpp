// The matmul lesson: C = A B from the course's naive kernel to cuBLAS, every step its own kernel,
// verified against a float64 CPU reference before it is timed.
//
// All matrices are row-major, as NumPy stores them: A is M x K, B is K x N, C is M x N. Every
// kernel checks its bounds, so any M, N, K from 1 to 16384 works (17 x 33 x 9 included).
//
// [SECTION] Ladder         the table of steps: drives the UI rows, the benchmark rows and the
//                          tests. Launch shape, tile sizes and shared memory of each step.
// [SECTION] Validation     sizes, device memory, and tile/block choices against device limits
// [SECTION] Tiling model   which tiles of A and B a block loads at step m, which elements of C
//                          each thread owns (pure C++: the pictures work without a GPU)
// [SECTION] Reference      float64 CPU product, error bounds, float32 CPU product (1 or n threads)
// [SECTION] Measurement    one launch, the measured ladder, the size sweep, the roofline's
//                          ceilings, the course's comparison
//
// Typical use (the panel, on its worker thread):
//
//   MatmulParams p{.M = 4096, .N = 4096, .K = 4096};
//   if (Status s = validate(p); !s) return show(s.sentence());
//   Result<LadderReport> r = measureLadder(p, allSteps(), cancel, progress);
//   for (const StepResult& s : r->steps) show(stepInfo(s.step).label, s.gflops, s.error.maxAbs);
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/gemm_check.hpp"
#include "common/sweep.hpp"
#include "common/table.hpp"
#include "common/measurement.hpp"
#include "common/params.hpp"
#include "common/status.hpp"
#include "counters/counters.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab::matmul {

// Called on the measuring thread with the fraction done and what runs now.
using Progress = std::function<void(float fraction, const std::string& what)>;

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder
// ---------------------------------------------------------------------------------------------

enum class StepId {
  Naive,       // the course's kernel: thread x walks rows of C
  Swapped,     // thread x walks columns: reads of B coalesce
  Tiled8,      // the course's shared-memory tiling, tile 8
  Tiled16,     // ... tile 16
  Tiled32,     // ... tile 32
  Reg1D,       // 64 x 64 block tile, 8 outputs per thread in a column
  Reg2D,       // 128 x 128 block tile, 8 x 8 outputs per thread
  Vec4,        // float4 loads, A's tile stored transposed
  Warp,        // warp tiling + double buffering
  Cublas,      // cublasSgemm
  CublasTf32,  // cuBLAS on TF32 tensor cores
  Naive64,     // the course's kernel in float64
  Tiled64,     // tile 16 in float64
  Cublas64,    // cublasDgemm
};

enum class Precision { Float32, Tf32, Float64 };
const char* precisionLabel(Precision p);  // "float32", "TF32", "float64"
int elementBytes(Precision p);            // 4, 4, 8

// How each thread maps to C. The pictures and the launch arithmetic read it.
enum class Family { Naive, Tiled, Blocked, Library };

struct StepInfo {
  StepId id;
  const char* key;    // stable id for the CLI, JSON and tests: "naive", "tiled16", "cublas"
  const char* label;  // what the UI shows
  Precision precision;
  Family family;
  bool courseMapping;  // Naive family: thread x on rows (the course's) rather than on columns
  // Block shape in threads (blockX x blockY) and the C tile one block computes (tileM rows x
  // tileN columns), stepping through K by tileK. For Naive, the tile is the block's footprint.
  int blockX, blockY;
  int tileM, tileN, tileK;
  // Outputs per thread: threadM rows x threadN columns (1 x 1 for Naive and Tiled).
  int threadM, threadN;
  // Shared memory per block in bytes (static), as the kernel declares it.
  int sharedBytes;
  bool vectorised;  // float4 loads when K and N are multiples of 4 (scalar otherwise)
  int colour;       // palette index: the step's colour in every panel
  // What was wrong with the previous step and what this one changes, for learners.
  const char* help;
};

// In ladder order: float32 steps, TF32, then float64.
extern const KeyedTable<StepInfo> kStepTable;  // common/table.hpp
CUDALAB_KEYED_LOOKUPS(kStepTable, steps, stepInfo, stepByKey)
bool handWritten(const StepInfo& s);  // not a library call
// Every step's id, in ladder order: what "measure the ladder" runs.
std::span<const StepId> allStepIds();
// The steps the size sweep measures: the float32 ladder with one tile size, and cuBLAS.
std::span<const StepId> sweepStepIds();
// The cuBLAS step of the same precision family (Cublas for Float32/Tf32, Cublas64 for Float64):
// the row percentages are taken against.
StepId libraryFor(Precision p);

// The launch a step makes for M x N x K. Library steps have none (cuBLAS picks its own).
struct StepLaunch {
  int gridX = 0, gridY = 0;
  int blockX = 0, blockY = 0;
  int sharedBytes = 0;
  long long blocks() const { return 1LL * gridX * gridY; }
  int threadsPerBlock() const { return blockX * blockY; }
};
StepLaunch stepLaunch(const StepInfo& s, int M, int N, int K);

// Bytes the step's loads ask global memory for (through L1 and L2): the intensity the roofline
// places the step at. Naive: every thread reads a row of A and a column of B; tiled: each
// block reads its band of A and B once per tile step; library steps: each matrix once, the least
// any kernel can read. Plus C written once.
double globalBytes(const StepInfo& s, int M, int N, int K);
double flops(int M, int N, int K);  // 2 M N K

// ---------------------------------------------------------------------------------------------
// [SECTION] Validation
// ---------------------------------------------------------------------------------------------

inline constexpr ParamSpec kSizeM{
    .id = "m",
    .label = "M",
    .min = 1,
    .max = 16384,
    .defaultValue = 2048,
    .help =
        "M: rows of A and of C. Any size: every kernel checks its bounds, "
        "so sizes that are not multiples of a tile work too. At 2048 and above the ladder climbs "
        "as it should; small products leave most of a large GPU idle.",
    .logScale = true};
inline constexpr ParamSpec kSizeN{.id = "n",
                                  .label = "N",
                                  .min = 1,
                                  .max = 16384,
                                  .defaultValue = 2048,
                                  .help = "N: columns of B and of C.",
                                  .logScale = true};
inline constexpr ParamSpec kSizeK{
    .id = "k",
    .label = "K",
    .min = 1,
    .max = 16384,
    .defaultValue = 2048,
    .help =
        "K: columns of A and rows of B, the length of each dot product: every element of C sums K "
        "products, so K sets both the work and the rounding error.",
    .logScale = true};

struct MatmulParams {
  int M = 2048, N = 2048, K = 2048;
  int warmup = 2, runs = 10;
};

Status validate(const MatmulParams& p);
// A, B and C of the widest precision measured must fit in `freeDeviceBytes`; refused with the
// numbers when they do not.
Status checkMemory(const MatmulParams& p, std::size_t freeDeviceBytes);

// What a device allows one block (cudaDeviceProp's maxThreadsPerBlock and sharedMemPerBlock).
// The defaults are what every GPU since Volta allows.
struct BlockLimits {
  int maxThreadsPerBlock = 1024;
  int sharedPerBlock = 48 * 1024;  // static shared memory a kernel may declare
};

// A square shared-memory tile as the course's tiled kernel uses it: one thread per element of
// C's tile, a tile of A and one of B in shared memory.
struct TileChoice {
  int tile = 16;
  Precision precision = Precision::Float32;
  int threads() const { return tile * tile; }
  int sharedBytes() const { return 2 * tile * tile * elementBytes(precision); }
};
inline constexpr int kTileChoices[] = {4, 8, 16, 32, 64};
// The current device's limits (cudaDeviceProp), or the defaults when there is no device.
BlockLimits deviceBlockLimits();
// Refused with the numbers when the block needs more threads or shared memory than `limits`.
Status validateTile(const TileChoice& t, const BlockLimits& limits);
// The same check for a step's own launch.
Status validateLaunch(const StepInfo& s, const BlockLimits& limits);

// ---------------------------------------------------------------------------------------------
// [SECTION] Tiling model
// ---------------------------------------------------------------------------------------------
// What one block does, as the pictures draw it. Coordinates are element indices into A, B, C.

struct Range {
  int begin = 0, end = 0;  // [begin, end), clipped to the matrix
  int size() const { return end > begin ? end - begin : 0; }
};

// The tile steps a block takes through K (ceil(K / tileK); Naive: K steps of one element).
int tileSteps(const StepInfo& s, int K);
// The block's rows of C (and A) and columns of C (and B).
Range blockRows(const StepInfo& s, int M, int N, int blockX, int blockY);
Range blockCols(const StepInfo& s, int M, int N, int blockX, int blockY);
// The columns of A (= rows of B) loaded at tile step m.
Range stepK(const StepInfo& s, int K, int m);

// The elements of C thread `thread` (threadIdx.x + threadIdx.y * blockX) of a block owns,
// relative to the block's tile: (row, col) pairs, threadM x threadN of them, in register order.
struct Cell {
  int row = 0, col = 0;
  bool operator==(const Cell&) const = default;
};
std::vector<Cell> ownedCells(const StepInfo& s, int thread);
// The warp a thread of the block belongs to, for the Warp step's picture: 32 consecutive threads.
inline int warpOf(int thread) {
  return thread / 32;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Reference
// ---------------------------------------------------------------------------------------------

// The rows checked, the float64 reference and the comparison are common/gemm_check.hpp's.
using cudalab::checkedRows;
using cudalab::referenceProduct;
using Reference = GemmReference;

// The most a correct result of precision `p` may differ from the exact product, per unit of
// absSum: K rounding errors of the accumulation (unit roundoff u = 2^-24 or 2^-53) plus, for TF32,
// the rounding of each input to 10 mantissa bits (2 x 2^-11).
double errorBound(Precision p, int K);

// Compares `c` (M x N, row-major) with the reference element by element on the reference's
// rows. maxAbsError is the largest |c - ref|; maxRelError the largest |c - ref| over the largest
// |ref| (normwise, so elements near 0 do not blow it up); wrong counts elements outside
// errorBound x absSum.
template <class T>
Correctness compare(const T* c, const Reference& ref, Precision p, int K);

// The course's CPU side, NumPy's role: a float32 product on the CPU with `threads` threads (0: all
// cores). A cache-friendly i-k-j loop the compiler vectorises, not a tuned BLAS.
void cpuMatmul(const float* A, const float* B, float* C, int M, int N, int K, int threads);

// ---------------------------------------------------------------------------------------------
// [SECTION] Measurement
// ---------------------------------------------------------------------------------------------

// Launches one hand-written step: C = A B on the device, checked, not synchronised. T is float
// for Float32 steps and double for Float64 steps; a mismatch is refused.
Status launchStep(StepId step, const float* A, const float* B, float* C, int M, int N, int K,
                  cudaStream_t stream);
Status launchStep(StepId step, const double* A, const double* B, double* C, int M, int N, int K,
                  cudaStream_t stream);

// Blocks of a hand-written step's kernel one SM holds at once (the CUDA occupancy calculator:
// registers, shared memory, threads), for the theoretical occupancy beside the counters'.
Result<int> blocksPerSM(StepId step, int M, int N, int K);

// The ladder under the GPU's counters (matmul_counters.cpp): each hand-written step in `steps`
// profiled once (CUPTI) at M, N and K capped at kCountersExtent (every kernel is replayed once per
// pass of the profiler), reading kCounterKeys; the model beside them is the occupancy the CUDA
// calculator promises (key "achieved_occupancy"). Separate from the timed runs.
inline constexpr int kCountersExtent = 1024;
inline const std::vector<std::string> kCounterKeys = {"global_load_sectors_per_request",
                                                      "shared_load_wavefronts_per_request",
                                                      "shared_load_bank_conflicts",
                                                      "shared_store_bank_conflicts",
                                                      "achieved_occupancy",
                                                      "l1_hit_rate",
                                                      "dram_bytes_read",
                                                      "instructions"};
Result<std::vector<counters::StepReading>> measureCounters(const MatmulParams& p,
                                                           std::span<const StepId> steps,
                                                           const std::atomic<bool>* cancel,
                                                           const Progress& progress);

struct StepResult {
  StepId step;
  Measurement m;         // kernel phase: the step; flops = 2 M N K
  double gflops = 0;     // from the median
  double ofLibrary = 0;  // gflops over cuBLAS's of the same precision family (0: not measured)
  Correctness error;     // against the float64 reference (maxAbsError, maxRelError)
};

struct LadderReport {
  MatmulParams p;
  std::string device;
  std::vector<StepResult> steps;  // in the order asked
  const StepResult* find(StepId id) const { return findRow(steps, &StepResult::step, id); }
};

// Measures `which` (ladder order) at p.M x p.N x p.K: fresh random inputs in [-1, 1], outputs
// poisoned before every run, every step verified. Sets the device's current CUDA device on this
// thread.
Result<LadderReport> measureLadder(const MatmulParams& p, std::span<const StepId> which,
                                   const std::atomic<bool>* cancel = nullptr,
                                   const Progress& progress = {});

// GFLOP/s against size: square matrices of each size, fewer runs per point.
struct SweepPoint {
  int n = 0;
  StepId step;
  double gflops = 0;
  bool ok = false;  // verified
};
// A point as the lesson's export and the benchmark write it: n, the step's key, GFLOP/s, correct.
nlohmann::json toJson(const SweepPoint& p);
// Stops at the first size that fails (out of memory, cancelled), keeping the points before it.
SweepRun<SweepPoint> measureSweep(std::span<const int> sizes, std::span<const StepId> which,
                                  const std::atomic<bool>* cancel = nullptr,
                                  const Progress& progress = {});
std::span<const int> defaultSweepSizes();  // 128 ... 4096

// The roofline's two ceilings, measured on this device: a device-to-device copy (GB/s) and
// float32 FMAs (GFLOP/s); the theoretical peaks beside them.
struct Ceilings {
  double memoryGBps = 0, fp32Gflops = 0;
  double memoryPeakGBps = 0, fp32PeakGflops = 0;  // 0 when unknown
};
Result<Ceilings> measureCeilings(const std::atomic<bool>* cancel = nullptr);

// The course's experiment: the same float32 matrices through the CPU (one thread, all cores), the
// naive kernel, the tile-16 kernel and cuBLAS; times and the largest difference from the CPU
// result, as the course reports "Numba vs NumPy 1.5e-4". Without a GPU only the CPU rows run.
struct CourseRow {
  std::string what;
  bool gpu = false;
  bool ran = false;
  double ms = 0;  // median kernel time (GPU) or wall time (CPU)
  double gflops = 0;
  double maxAbsVsCpu = 0;  // against the all-cores CPU result
  double maxAbsVsRef = 0;  // against the float64 reference
  std::string note;  // why it did not run, or its wrong elements (a packed Phrase: tr() shows it)
};
struct CourseReport {
  int n = 0;
  int cpuThreads = 0;
  std::vector<CourseRow> rows;
};
inline constexpr ParamSpec kCourseSize{.id = "course_n",
                                       .label = "Course size n",
                                       .min = 16,
                                       .max = 2048,
                                       .defaultValue = 1000,
                                       .help =
                                           "n for the n x n x n comparison. The course used 1000; "
                                           "one CPU thread takes seconds beyond 1500.",
                                       .logScale = true};
Result<CourseReport> measureCourse(int n, bool gpu, const std::atomic<bool>* cancel = nullptr,
                                   const Progress& progress = {});

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kMatmulParams[] = {kSizeM, kSizeN, kSizeK, kCourseSize};

}  // namespace cudalab::matmul
