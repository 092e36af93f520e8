// The memory lesson on the GPU: strided copies, the transpose ladder, and the modelled kernels run
// once each so Nsight Compute can count what they really move.
//
// [SECTION] Transpose ladder   the table of steps (drives the UI rows, the benchmark and the
// tests),
//                              parameters, one launch, the measured ladder
// [SECTION] Strided copy       bandwidth against stride, with the model's efficiency beside it
// [SECTION] Model check        every modelled kernel of access_patterns.hpp run once at a fixed
//                              size, with the model's counts for the same launch
//
// Typical use (the panel, on its worker thread):
//
//   TransposeParams p{.rows = 8192, .cols = 8192};
//   if (Status s = validate(p); !s) return show(s.sentence());
//   Result<TransposeReport> r = measureTranspose(p, cancel, progress);
//   for (const TransposeResult& t : r->steps) show(transposeStep(t.step).label, t.gbps);
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/measurement.hpp"
#include "common/params.hpp"
#include "common/status.hpp"
#include "counters/counters.hpp"
#include "memory/access_patterns.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab::memory {

// Called on the measuring thread with the fraction done and what runs now.
using Progress = std::function<void(float fraction, const std::string& what)>;

// ---------------------------------------------------------------------------------------------
// [SECTION] Transpose ladder
// ---------------------------------------------------------------------------------------------

enum class TransposeStep { Memcpy, Copy, Naive, Tiled, Padded, PaddedFour };

struct TransposeStepInfo {
  TransposeStep step;
  const char* id;     // "memcpy", "copy", "naive", "tiled", "padded", "padded4"
  const char* label;  // what the UI shows
  KernelId kernel;    // how the access model sees it (Memcpy: as CopyTiled)
  bool padded;
  int elementsPerThread;
  bool ceiling;  // a copy, not a transpose: the bandwidth the transposes are compared with
  const char* help;
};

// In ladder order: the two copies, then the transposes from the course's to the fastest.
std::span<const TransposeStepInfo> transposeSteps();
const TransposeStepInfo& transposeStep(TransposeStep s);
// The PatternParams the access model needs for a step at rows x cols.
PatternParams patternParams(const TransposeStepInfo& s, int rows, int cols);

// What the access model expects of a step, per warp request: global sectors of its load and
// store, shared-memory wavefronts of its tile read (-1: no tile). Computed at
// modelExtent(rows) x modelExtent(cols), which keeps each size's alignment and edge tiles (the
// size modulo 32) but stays small enough to count every warp.
struct StepModel {
  double loadSectors = 0, storeSectors = 0;
  double sharedLoad = -1;
};
int modelExtent(int n);
StepModel stepModel(const TransposeStepInfo& s, int rows, int cols);

inline constexpr ParamSpec kMatrixRows{
    .id = "matrix_rows",
    .label = "Rows",
    .min = 1,
    .max = 16384,
    .defaultValue = 8192,
    .help =
        "Rows of A, the matrix transposed. Any size: the kernels "
        "check their bounds, so 1000 x 17 works."};
inline constexpr ParamSpec kMatrixCols{.id = "matrix_cols",
                                       .label = "Columns",
                                       .min = 1,
                                       .max = 16384,
                                       .defaultValue = 8192,
                                       .help = "Columns of A. B, the transpose, has as many rows."};

struct TransposeParams {
  int rows = 8192, cols = 8192;
  int warmup = 2, runs = 10;
};

Status validate(const TransposeParams& p);
// Two matrices on the device: refused with the numbers when they do not fit.
Status checkMemory(const TransposeParams& p, std::size_t freeDeviceBytes);

// Launches one step on the device: B (cols x rows) = A (rows x cols) transposed, or B = A for
// the copies. Checked; does not synchronise.
Status launchTranspose(TransposeStep step, const float* A, float* B, int rows, int cols,
                       cudaStream_t stream);
// The float64-free reference: a transpose is a permutation, so results must match exactly.
void transposeCpu(const float* A, float* B, int rows, int cols);

struct TransposeResult {
  TransposeStep step;
  Measurement m;         // kernel phase: the step; bytes = rows * cols * 4 read + written
  double gbps = 0;       // from the median
  double ofCeiling = 0;  // gbps over the best copy's
};

struct TransposeReport {
  TransposeParams p;
  std::string device;
  std::vector<TransposeResult> steps;  // in ladder order
  double ceilingGBps = 0;              // the faster of the two copies
};

Result<TransposeReport> measureTranspose(const TransposeParams& p,
                                         const std::atomic<bool>* cancel = nullptr,
                                         const Progress& progress = {});

// The ladder under the GPU's counters (transpose_counters.cpp): every step's kernel (not the
// copy engine's cudaMemcpy) profiled once (CUPTI) at modelExtent(rows) x modelExtent(cols), the
// size the access model counts, reading kTransposeCounterKeys. The model beside them: sectors
// and wavefronts per request, and their totals, which must equal the counters' (a step whose
// totals differ lists them in `mismatches`). Separate from the timed runs.
inline const std::vector<std::string> kTransposeCounterKeys = {
    "global_load_sectors_per_request",    "global_store_sectors_per_request",
    "shared_load_wavefronts_per_request", "shared_load_bank_conflicts",
    "shared_store_bank_conflicts",        "achieved_occupancy"};
Result<std::vector<counters::StepReading>> measureTransposeCounters(
    const TransposeParams& p, const std::atomic<bool>* cancel = nullptr,
    const Progress& progress = {});

// ---------------------------------------------------------------------------------------------
// [SECTION] Strided copy
// ---------------------------------------------------------------------------------------------
// out[i * s + o] = in[i * s + o] for i < count, floats. The useful bytes (count * 4 read and
// written) are the same at every stride; what changes is how many sectors carry them.

inline constexpr ParamSpec kCopyCount{.id = "copy_count",
                                      .label = "Elements copied",
                                      .min = 1 << 16,
                                      .max = 1 << 26,
                                      .defaultValue = 1 << 24,
                                      .help =
                                          "Floats each strided copy moves. Large enough that the "
                                          "arrays do not fit in L2 (50 MB on an H100).",
                                      .logScale = true};
inline constexpr ParamSpec kMaxStride{.id = "max_stride",
                                      .label = "Largest stride",
                                      .min = 2,
                                      .max = 32,
                                      .defaultValue = 32,
                                      .unit = "elements",
                                      .help = "The sweep measures strides 1, 2, ... up to this."};

struct StridedParams {
  long long count = 1 << 24;
  int maxStride = 32;
  int offset = 0;
  int warmup = 2, runs = 10;
};

Status validate(const StridedParams& p);
// The largest stride's arrays on the device: refused with the numbers when they do not fit.
Status checkMemory(const StridedParams& p, std::size_t freeDeviceBytes);

// One launch; `in` and `out` hold (count - 1) * stride + offset + 1 floats.
Status launchStridedCopy(const float* in, float* out, long long count, int stride, int offset,
                         cudaStream_t stream);

struct StridedPoint {
  int stride = 1;
  Measurement m;
  double gbps = 0;             // useful bytes (count * 8) over the median kernel time
  double modelEfficiency = 0;  // the access model's bytes asked for over bytes moved
  double predictedGBps = 0;    // stride 1's bandwidth times the efficiency ratio
};

struct StridedReport {
  StridedParams p;
  std::string device;
  std::vector<StridedPoint> points;  // strides 1..maxStride
};

Result<StridedReport> measureStridedCopy(const StridedParams& p,
                                         const std::atomic<bool>* cancel = nullptr,
                                         const Progress& progress = {});

// The model's efficiency for the strided copy's loads at this stride and offset (pure C++).
double stridedEfficiency(int stride, int offset);

// ---------------------------------------------------------------------------------------------
// [SECTION] Model check
// ---------------------------------------------------------------------------------------------

struct ModelCheckCase {
  std::string label;  // "strided_copy s=2", "transpose_tiled padded"
  KernelId kernel;
  PatternParams p;
};

// The cases `cudalab bench memory-model` runs: every modelled kernel at sizes that are not all
// multiples of 32, strides and element sizes that test the model's edges.
std::vector<ModelCheckCase> modelCheckCases();

// Allocates the kernel's buffers, fills them, launches it once and waits. Checked. It launches
// kModelCaseLaunches kernels, the case's own last (two fills before it): a profile of several
// cases finds each case's kernel by that count.
Status runModelKernel(const ModelCheckCase& c);
inline constexpr int kModelCaseLaunches = 3;

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kMemoryParams[] = {
    kStride, kOffset,       kElementBytes, kRows,       kCols,      kInner,
    kCount,  kStructFloats, kMatrixRows,   kMatrixCols, kCopyCount, kMaxStride};

}  // namespace cudalab::memory
