// The tensor-cores lesson: C = A B on the units that hold most of a modern GPU's arithmetic, from
// WMMA's opaque fragments to mma.sync with ldmatrix, a swizzled shared-memory layout and a
// cp.async pipeline, against cuBLAS in BF16, FP16, TF32 and float32. Every step is verified
// against a float64 CPU reference before it is timed.
//
// Matrices are row-major as in the matmul lesson: A is M x K, B is K x N (both BF16 or FP16), C is
// M x N in float32 (the tensor cores multiply 16-bit inputs exactly and accumulate in float32).
// The hand-written steps work on whole tiles of 128 x 128 x 64 (or parts of them): other sizes are
// padded with zeros to the next multiple (stated beside the results; the padded work is not counted
// in TFLOP/s).
//
// [SECTION] Ladder         the table of steps: drives the UI rows, the benchmark rows and the
//                          tests; what each step needs of the GPU and of the build
// [SECTION] Validation     sizes and device memory
// [SECTION] Models         the m16n8k16 fragment layout (which lane holds which element) and the
//                          shared-memory banks an ldmatrix meets with and without the swizzle
//                          (pure C++: the pictures work without a GPU)
// [SECTION] Precision      the error of mixed-precision dot products against K, emulated on the
//                          CPU for every tensor-core format
// [SECTION] Pipeline model one block's loads and multiplies over time, with 1 to 4 stages
// [SECTION] Inputs         random matrices every format holds exactly
// [SECTION] Measurement    availability of a step here, one launch, the measured ladder
//
// Typical use (the panel, on its worker thread):
//
//   TensorParams p{.M = 4096, .N = 4096, .K = 4096};
//   if (Status s = validate(p); !s) return show(s.sentence());
//   Result<LadderReport> r = measureLadder(p, allStepIds(), cancel, progress);
//   for (const StepResult& s : r->steps) show(stepInfo(s.step).label, s.tflops, s.ofLibrary);
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/gemm_check.hpp"
#include "common/measurement.hpp"
#include "common/params.hpp"
#include "common/status.hpp"
#include "common/table.hpp"
#include "counters/counters.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab::tensor_cores {

// Called on the measuring thread with the fraction done and what runs now.
using Progress = std::function<void(float fraction, const std::string& what)>;

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder
// ---------------------------------------------------------------------------------------------

// The 16-bit format of A and B in the hand-written steps.
enum class InputFormat { BFloat16, Half };
const char* formatLabel(InputFormat f);  // "BF16", "FP16"

enum class StepId {
  WmmaGlobal,    // WMMA 16x16x16 fragments, one warp per tile of C, operands from global memory
  WmmaShared,    // WMMA with the block's tiles staged in shared memory
  MmaLdmatrix,   // mma.sync m16n8k16 fed by ldmatrix: the fragment layout made explicit
  MmaSwizzled,   // the same with an XOR-swizzled shared layout: no bank conflicts
  MmaPipelined,  // swizzled, with a 3-stage cp.async pipeline
  WgmmaTma,      // Hopper: TMA into swizzled shared memory, mbarriers, wgmma (sm_90a)
  WgmmaWs,       // warp-specialised: a producer warpgroup loads, two consumers multiply 128 x 256
  CublasBf16,    // cublasGemmEx, BF16 inputs, float32 accumulation
  CublasHalf,    // cublasGemmEx, FP16 inputs, float32 accumulation
  CublasTf32,    // cublasGemmEx on float32 inputs rounded to TF32 by the tensor cores
  CublasSgemm,   // cublasSgemm: float32 on the CUDA cores, the matmul lesson's ceiling
  CublasLtFp8,   // cublasLtMatmul, inputs rounded to FP8 E4M3, float32 accumulation (sm_89+)
};

enum class Family { Wmma, Mma, Wgmma, Library };

// What the step's inputs are: the chosen 16-bit format, or one fixed by a library row.
enum class Inputs { Chosen, BFloat16, Half, Float32, Fp8E4m3 };
int inputBytes(Inputs in);  // 2 for the 16-bit formats, 4 for float32, 1 for FP8
// The tensor cores' dense peak for inputs `in` against the 16-bit one: FP8 2, TF32 (float32
// inputs) 0.5, BF16 and FP16 1 (a Hopper SM does twice as many FP8 multiply-adds per cycle).
double peakScale(Inputs in);

struct StepInfo {
  StepId id;
  const char* key;    // stable id for the CLI, JSON and tests: "wmma_global", "cublas_bf16"
  const char* label;  // what the UI shows
  Family family;
  Inputs inputs;
  bool tensorCores;  // runs on the tensor cores (all but SGEMM)
  // The compute capability the step's instructions need (x10: 80 = sm_80), for the chosen
  // format where it matters (WMMA in FP16 runs from sm_70, in BF16 from sm_80). wgmma needs
  // sm_90a, code that runs on compute capability 9.0 alone.
  int minArchHalf, minArchBf16;
  // The block's tile of C (tileM x tileN), the K step (tileK), threads per block, pipeline stages
  // (1: load, then compute), and whether the shared layout is swizzled. Library rows: 0.
  int tileM, tileN, tileK, threads, stages;
  bool swizzled;
  int colour;  // palette index: the step's colour in every panel
  // What was slow in the step before and what this one changes, for learners.
  const char* help;
};

extern const KeyedTable<StepInfo> kStepTable;  // common/table.hpp
CUDALAB_KEYED_LOOKUPS(kStepTable, steps, stepInfo, stepByKey)
std::span<const StepId> allStepIds();  // ladder order: what "measure the ladder" runs
bool handWritten(const StepInfo& s);   // not a library call
// The cuBLAS row of the chosen format, which the hand-written steps are compared with.
StepId libraryFor(InputFormat f);
// The compute capability (x10) step s needs with format f.
int minArch(const StepInfo& s, InputFormat f);
// What step s needs, as the CUDA architecture's name: "sm_80", "sm_90a"; "-" for none.
std::string archNeeded(const StepInfo& s, InputFormat f);
// The inputs' format of step s when the hand-written steps use f.
Inputs inputsOf(const StepInfo& s, InputFormat f);

// "128 x 128 x 32" for a hand-written step's block tile; the library's name for a library row
// ("cuBLAS", "cuBLASLt").
std::string tileText(const StepInfo& s);

// The padded extents the hand-written steps work on: M up to a multiple of 128, N of 256, K of 64.
struct Padded {
  int M = 0, N = 0, K = 0;
};
Padded padded(int M, int N, int K);

double flops(int M, int N, int K);  // 2 M N K
// Warp instructions the tensor cores execute for hand-written step s on the padded M x N x K, as
// the counters count them: WMMA's 16x16x16 and mma.sync's m16n8k16 both issue one HMMA per
// 16 x 8 x 16 piece per warp; a wgmma of 64 x tileN x 16 is one instruction in each of the
// warpgroup's four warps.
double tensorInstructions(const StepInfo& s, int M, int N, int K);
// Bytes step s asks global memory for at M x N x K (the roofline's intensity is flops over them):
// a tiled step reads each tile of A once per block column and each tile of B once per block row
// (caches may serve some of those reads; this is what the kernel asks for), in the inputs'
// format, and writes C once in float32; a library row the least any kernel can move, A and B once.
double globalBytes(const StepInfo& s, InputFormat f, int M, int N, int K);

// The most a correct result may differ from the exact product of the inputs (as stored), per
// unit of sum |a b|. The products of 16-bit inputs are exact in float32; the tensor cores add them
// in float32 without the last rounding step of IEEE addition (they truncate), so each of the K
// additions may lose up to one unit in the last place instead of half: 2 u per addition, u = 2^-24,
// plus headroom. TF32 rounds the inputs (not here: the inputs are exact in TF32).
double errorBound(int K);

// ---------------------------------------------------------------------------------------------
// [SECTION] Validation
// ---------------------------------------------------------------------------------------------

inline constexpr ParamSpec kSizeM{.id = "m",
                                  .label = "M",
                                  .min = 1,
                                  .max = 16384,
                                  .defaultValue = 4096,
                                  .help =
                                      "M: rows of A and of C. Any size: the hand-written "
                                      "steps pad A and C with zeros to a multiple of 128 rows.",
                                  .logScale = true};
inline constexpr ParamSpec kSizeN{.id = "n",
                                  .label = "N",
                                  .min = 1,
                                  .max = 16384,
                                  .defaultValue = 4096,
                                  .help = "N: columns of B and of C (padded to a multiple of 256).",
                                  .logScale = true};
inline constexpr ParamSpec kSizeK{
    .id = "k",
    .label = "K",
    .min = 1,
    .max = 16384,
    .defaultValue = 4096,
    .help =
        "K: columns of A and rows of B, the length of each dot product (padded with zeros to "
        "a multiple of 64, which adds nothing to the sums).",
    .logScale = true};

inline constexpr ParamSpec kFormatChoice{
    .id = "format",
    .label = "Inputs",
    .min = 0,
    .max = 1,
    .defaultValue = 0,
    .help =
        "The 16-bit format of A and B in the hand-written steps: BF16 (8 exponent bits, "
        "float32's range, 8 significant bits) or FP16 (5 exponent bits, 11 significant bits). "
        "The tensor cores multiply both at the same speed; the cuBLAS rows run in both."};

struct TensorParams {
  int M = 4096, N = 4096, K = 4096;
  InputFormat format = InputFormat::BFloat16;
  int warmup = 2, runs = 10;
};

Status validate(const TensorParams& p);
// The padded A and B in 16-bit and in float32 (for the TF32 and SGEMM rows) and C must fit in
// `freeDeviceBytes`; refused with the numbers when they do not.
Status checkMemory(const TensorParams& p, std::size_t freeDeviceBytes);
std::size_t deviceBytesNeeded(const TensorParams& p);

// ---------------------------------------------------------------------------------------------
// [SECTION] Models
// ---------------------------------------------------------------------------------------------

// mma.sync.m16n8k16 (row.col, 16-bit inputs, float32 accumulators): the element of each operand
// a lane holds in each of its registers' halves, as the PTX ISA's figures for the instruction
// give them. A is 16 x 16 (4 registers of two 16-bit values), B is 16 x 8 (2 registers of two), C
// and D are 16 x 8 (4 float32 registers).
struct Element {
  int row = 0, col = 0;
  bool operator==(const Element&) const = default;
};
enum class Operand { A, B, C };
// The elements lane `lane` (0..31) holds, in register order (A: 8, B: 4, C: 4).
std::vector<Element> laneElements(Operand op, int lane);
// The lane that holds element (row, col) of the operand, and which of its values it is.
struct Holder {
  int lane = 0, index = 0;
};
Holder holderOf(Operand op, int row, int col);
inline constexpr int operandRows(Operand) {
  return 16;
}
inline constexpr int operandCols(Operand op) {
  return op == Operand::A ? 16 : 8;
}

// Shared memory has 32 banks of 4 bytes; ldmatrix reads eight rows of 16 bytes per 8 x 8 matrix,
// one row per lane of a quarter warp. Two rows whose 16 bytes start in the same four banks are
// served one after the other. The shared tile of A is 128 rows of 32 elements (64 bytes, four
// 16-byte chunks), the tile of B 32 rows of 128 elements (256 bytes, sixteen chunks).
enum class Tile { A, B };
inline constexpr int kTileRowsA = 128, kTileColsA = 32, kTileRowsB = 32, kTileColsB = 128;
// The 16-byte chunk where chunk `chunk` of row `row` is stored: itself, or with the swizzle the
// chunk XORed with a few bits of the row (A: (row / 2) mod 4, B: row mod 8), which spreads the
// eight rows an ldmatrix reads over all 32 banks.
int storedChunk(Tile t, int row, int chunk, bool swizzled);
// The first bank of that chunk (0, 4, ..., 28).
int firstBank(Tile t, int row, int chunk, bool swizzled);
// The most rows of one 8-row ldmatrix read (rows row0 .. row0+7, one chunk) that share banks: 1
// without conflicts, 8 when all eight rows queue on the same banks.
int ldmatrixWays(Tile t, int row0, int chunk, bool swizzled);

// ---------------------------------------------------------------------------------------------
// [SECTION] Precision
// ---------------------------------------------------------------------------------------------
// How far a dot product of K terms strays when its inputs are rounded to a tensor-core format and
// its sum is kept in float32 (or, the cautionary case, in FP16): on the CPU, each format emulated
// bit for bit (models/floats.hpp), against the exact dot product of the same float32 inputs. The
// error is |sum - exact| / sum |a_i b_i|, the quantity rounding bounds speak of.
//
//   std::vector<MixedCurve> c = productErrors(defaultPrecisionKs(), 32, seed);
//   for (const MixedCurve& m : c) plot(mixedInfo(m.id).key, m.points);

enum class Mixed { Float32, Tf32, Half, BFloat16, Fp8E4M3, HalfSums };

struct MixedInfo {
  Mixed id;
  const char* key;    // "bf16", "fp16_sums": exports and tests
  const char* label;  // what the UI shows
  int inputFormat;    // floats::Format of the inputs, as an int (floats.hpp stays out of here)
  bool halfSums;      // the sum rounded to FP16 after every addition (else float32)
  int colour;
  const char* help;
};
extern const KeyedTable<MixedInfo> kMixedTable;
inline std::span<const MixedInfo> mixedFormats() {
  return kMixedTable.rows();
}
inline const MixedInfo& mixedInfo(Mixed id) {
  return kMixedTable.row(id);
}

struct MixedPoint {
  int K = 0;
  double median = 0, max = 0;  // over the samples: |sum - exact| / sum |a_i b_i|
};
struct MixedCurve {
  Mixed id;
  std::vector<MixedPoint> points;  // one per K
};
std::span<const int> defaultPrecisionKs();  // 16, 64, ..., 16384
// `samples` dot products of each length K, inputs uniform in [-1, 1] drawn from `seed` (FP8 E4M3
// inputs scaled by 2^8 into its range first, as FP8 work scales each matrix, and back after).
std::vector<MixedCurve> productErrors(std::span<const int> Ks, int samples, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// [SECTION] Pipeline model
// ---------------------------------------------------------------------------------------------
// One block's tiles over time, as a model (not a measurement): each tile is loaded (loadTime)
// and then multiplied (mmaTime), in any unit. With one stage (steps 2 to 4) a load waits for the
// multiply before it (the buffer is in use) and the multiply waits for its load. With S stages
// (step 5: 3, steps 6 and 7: 4) a load waits only until its buffer is free (the multiply S tiles
// earlier has finished), so up to S - 1 loads are in flight while the tensor cores work; the
// memory's bandwidth is not modelled, only its latency.
//
//   PipelineRun r = pipelineModel(8, 3, 4.0, 1.0);
//   for (const PipelineEvent& e : r.events) draw(e.load ? "load" : "mma", e.tile, e.start, e.end);

struct PipelineEvent {
  int tile = 0;
  bool load = false;  // a load; else a multiply
  double start = 0, end = 0;
};
struct PipelineRun {
  std::vector<PipelineEvent> events;  // for each tile its load, then its multiply
  double total = 0;                   // when the last multiply ends
  double mmaBusy = 0;                 // the share of `total` the tensor cores work
};
PipelineRun pipelineModel(int tiles, int stages, double loadTime, double mmaTime);

// ---------------------------------------------------------------------------------------------
// [SECTION] Inputs
// ---------------------------------------------------------------------------------------------

// n random values in [-1, 1] on a grid of 1/256: every format here (BF16's 8 significant bits,
// FP16, TF32, float32) holds them exactly, so every step and every library row multiplies the
// same numbers and the float64 reference is exact for all of them.
std::vector<float> randomInputs(std::size_t n, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// [SECTION] Measurement
// ---------------------------------------------------------------------------------------------

// Whether step s can run on the current device with format f: the device's compute capability,
// and this build's code for it (a build for an older architecture only has PTX that lacks the
// instructions). An error Status says which, for the UI; ok means it runs.
Status available(StepId s, InputFormat f);

// Launches one hand-written step of the WMMA and mma.sync families on padded device buffers (M, N
// multiples of 128, K of 32): A and B are __nv_bfloat16 or __half as `f` says, C float32. Checked,
// not synchronised. The Hopper steps read B transposed: tensor_cores_hopper.hpp.
Status launchStep(StepId s, InputFormat f, const void* A, const void* B, float* C, int M, int N,
                  int K, cudaStream_t stream);

struct StepResult {
  StepId step;
  Measurement m;         // kernel phase; flops = 2 M N K of the unpadded sizes
  double tflops = 0;     // from the median
  double ofLibrary = 0;  // tflops over cuBLAS's in the chosen format (0: not measured)
  Correctness error;     // against the float64 reference
};

// A step that did not run here, and why (no device, an older GPU, a build without its code).
struct Skipped {
  StepId step;
  std::string why;  // a packed Phrase: tr() shows it
};

struct LadderReport {
  TensorParams p;
  Padded pad;  // what the hand-written steps computed
  std::string device;
  // The roofline's ceilings, from the device's properties: DRAM bandwidth (GB/s) and dense
  // FP16 / BF16 tensor peak (GFLOP/s); NaN where not known (their formulas say why).
  double memoryPeakGBps = 0, tensorPeakGflops = 0;
  std::string memoryFormula, tensorFormula;
  std::vector<StepResult> steps;  // in the order asked
  std::vector<Skipped> skipped;
  const StepResult* find(StepId id) const { return findRow(steps, &StepResult::step, id); }
};

// Measures `which` (ladder order) at p.M x p.N x p.K: fresh random inputs, C poisoned with NaN
// before every run, every step verified. Steps unavailable here are listed in `skipped`.
Result<LadderReport> measureLadder(const TensorParams& p, std::span<const StepId> which,
                                   const std::atomic<bool>* cancel = nullptr,
                                   const Progress& progress = {});

// The ladder under the GPU's counters (CUPTI), apart from the timed runs: each hand-written step
// in `steps` that runs here, profiled once at M, N and K capped at kCountersExtent (large enough
// that A and B do not fit in the L2 cache together), reading kCounterKeys. Beside the DRAM bytes,
// the model gives the least any kernel must read: A and B once; beside the tensor instructions,
// the count the tile arithmetic predicts (tensorInstructions), a mismatch where the GPU counts
// another.
inline constexpr int kCountersExtent = 4096;
inline const std::vector<std::string> kCounterKeys = {"tensor_pipe_active", "tensor_instructions",
                                                      "shared_load_bank_conflicts",
                                                      "shared_bank_conflicts", "dram_bytes_read"};
Result<std::vector<counters::StepReading>> measureCounters(const TensorParams& p,
                                                           std::span<const StepId> steps,
                                                           const std::atomic<bool>* cancel,
                                                           const Progress& progress);

// The lesson's parameter table: every number its panel edits.
inline constexpr ParamSpec kTensorParams[] = {kSizeM, kSizeN, kSizeK, kFormatChoice};

}  // namespace cudalab::tensor_cores
