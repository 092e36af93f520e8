// The "playground" lesson: the learner writes a kernel, the app compiles it at run time (NVRTC),
// runs it in a separate worker process with the launch the learner chose, checks every element
// against a CPU reference and times it beside the built-in lessons' kernels and the library.
//
// [SECTION] Exercises      the one table: course text, starting kernel, signature, inputs, check,
//                          hints, solution, launch, bytes and flops (UI, tests and bench read it)
// [SECTION] Run            RunParams (what the learner chose), the launch it gives, validation
// [SECTION] Inputs         the inputs every exercise makes from a seed (the same in the worker
//                          and the tests) and the references they are checked against
// [SECTION] Report         what one run returns: the check, the first wrong elements, the
//                          picture of the output, times, the kernel's resources, comparisons
//
// Typical use (the panel): pick an exercise, edit its starter, compile (compile.hpp), then on a
// worker thread:
//
//   RunParams p = defaultRunParams(ex);            // then the learner's N, grid, block
//   if (Status s = validate(p, limits); !s) show(s);
//   Result<RunReport> r = client.run(compiled, p);  // worker.hpp: in another process
//
// Code the learner wrote never runs in the app's process: the worker (`cudalab worker`) loads the
// compiled image, makes the inputs from the seed, runs, checks and times, and sends a RunReport
// back; if it crashes or hangs, only the worker dies.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/params.hpp"
#include "common/status.hpp"
#include "counters/pc_sampling.hpp"
#include "counters/source_lines.hpp"
#include "models/occupancy.hpp"

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] Exercises
// ---------------------------------------------------------------------------------------------

// What the app does around the learner's kernel: the inputs it makes, the arguments it passes and
// how it checks the output.
enum class Kind {
  Map,          // element-wise float arrays: out[i] = g(in0[i], in1[i]); arguments in `args`
  Counter,      // one int counter, zeroed; must end at the number of threads launched
  Histogram,    // float x, counts per bin, zeroed; checked against the course's cpu_histogram
  Elementwise,  // the learner writes only `template <class T> __device__ T f(T)`
  Matmul,       // n x n float matrices, 2D launch
  Reduce,       // one partial sum per block; the app adds them
  Transpose,    // n x n float matrix in, its transpose out; 2D launch; exact
  Softmax,      // n x n float scores in, each row's softmax out; one block per row
  Wmma,         // n x n half A and B, float C through the tensor cores; the app pads n up to a
                // multiple of 16 with zeros and passes the padded n; one warp per 16 x 16 tile
};

// Whether N is the side of n x n matrices (the output has n * n elements, N's largest graded size
// is capped so that n * n stays within 2^26), and whether the grid covers the matrix in 2D (one
// thread per element of the output) rather than one block per row.
constexpr bool squareMatrix(Kind k) {
  return k == Kind::Matmul || k == Kind::Transpose || k == Kind::Softmax || k == Kind::Wmma;
}
constexpr bool gridOverMatrix(Kind k) {
  return k == Kind::Matmul || k == Kind::Transpose;
}
// A product of two n x n matrices: 2 n^3 flops, and a CPU reference that costs n^3.
constexpr bool matrixProduct(Kind k) {
  return k == Kind::Matmul || k == Kind::Wmma;
}
// The tensor cores' tile edge in the WMMA exercise: its matrices are padded to a multiple of it.
inline constexpr long long kWmmaTile = 16;
// The side of the matrices the learner's kernel gets: n, or for Kind::Wmma n rounded up to 16.
constexpr long long paddedSide(Kind k, long long n) {
  return k == Kind::Wmma ? (n + kWmmaTile - 1) / kWmmaTile * kWmmaTile : n;
}
// What a WMMA launch of `threads` threads can touch past the padded matrices: every warp stores
// a 16 x 16 tile (8 elements a thread) and reads 16 x 16 tiles of A and B, so a grid larger than
// the tiles reaches that far past the end (the guard zones and zeros are sized for it).
inline long long wmmaGuardElements(long long padded, long long threads) {
  return std::clamp(threads * 8 - padded, 0LL, 1LL << 24) + 4096;
}

// The arguments of the learner's kernel, in the order of its signature.
enum class Arg {
  In0,
  In1,
  Out,
  N,
  Counter,
  XMin,
  XMax,
  Hist,
  Bins,
  MatA,
  MatB,
  MatC,
  Partial,
  HalfA,  // const __half* A (Kind::Wmma)
  HalfB,  // const __half* B
};

// The element-wise maps (Kind::Map): what out[i] must be.
enum class MapOp { Double, Multiply, Hypot };

struct Dim3 {
  long long x = 1, y = 1, z = 1;
  long long count() const { return x * y * z; }
  bool operator==(const Dim3&) const = default;
};

struct Launch {
  Dim3 grid, block;
  bool operator==(const Launch&) const = default;
};

struct Exercise {
  const char* id;      // "double": files, settings, the command line, tests
  const char* title;   // the exercise list
  const char* course;  // what the learner read: course file and the code it showed
  const char* task;    // what to do, written for the learner
  const char* entry;   // the __global__ function the app launches (extern "C")
  Kind kind;
  MapOp op;  // Kind::Map only
  std::span<const Arg> args;
  long long defaultN, minN, maxN;
  const char* nLabel;  // what N counts ("numbers", "rows and columns")
  Launch defaultLaunch;
  bool autoGrid;  // by default the grid follows N (ceil(N / block)); false: the course's fixed grid
  int defaultBins;        // Histogram
  const char* checkText;  // how the output is checked, for the learner
  std::span<const char* const> hints;
  // What the starting kernel gets wrong, and the configuration that shows it (the GPU tests run
  // the starter there and expect the check to fail).
  const char* starterBug;
  long long bugN;
  Launch bugLaunch;
  const char* builtIn;  // the built-in lesson kernel timed beside the learner's ("" when none)
  const char* library;  // the library call timed beside it ("" when none)
};

std::span<const Exercise> exercises();
const Exercise* findExercise(std::string_view id);  // nullptr when unknown

// The starting kernel and the course-style solution (assets/playground/<id>.*.cu, embedded).
std::string_view starterSource(const Exercise& e);
std::string_view solutionSource(const Exercise& e);

// The functions NVRTC must compile and the worker launches: the learner's entry, or for
// Kind::Elementwise the two wrappers the app appends (float and double).
std::vector<std::string> entryPoints(const Exercise& e);
// The complete source NVRTC compiles: the learner's text, then (Elementwise) the wrappers that
// apply f. Nothing is put before it, so compiler line numbers are the editor's.
std::string programSource(const Exercise& e, std::string_view learnerText);

// The sizes in bytes of the parameters the app passes to each entry point (8 for a pointer, 4 for
// an int or a float), in order.
std::vector<int> expectedParamSizes(const Exercise& e);

// The C signature the app calls, for the panel: "double_it(const float* in, float* out, int n)".
std::string signatureText(const Exercise& e);

// ---------------------------------------------------------------------------------------------
// [SECTION] Run
// ---------------------------------------------------------------------------------------------

inline constexpr ParamSpec kRunsSpec{
    .id = "runs",
    .label = "Timed runs",
    .min = 1,
    .max = 200,
    .defaultValue = 20,
    .help =
        "How many times the kernel runs after two warm-up runs; the "
        "median time is shown. The output is checked after the last "
        "run."};
inline constexpr ParamSpec kTimeoutSpec{
    .id = "timeout",
    .label = "Time limit",
    .min = 0.5,
    .max = 60,
    .defaultValue = 5,
    .unit = "s",
    .help =
        "How long your kernel's launches (the warm-ups and the "
        "timed runs) may take before the app stops the worker "
        "process: a kernel that never ends cannot hang the app. "
        "Preparing the inputs and checking have limits of their "
        "own.",
    .integer = false};
inline constexpr ParamSpec kBinsSpec{
    .id = "bins",
    .label = "Bins",
    .min = 1,
    .max = 4096,
    .defaultValue = 10,
    .help =
        "How many equal bins the histogram has between xmin = -4 and "
        "xmax = 4."};
inline constexpr ParamSpec kBlockDimSpec{
    .id = "block",
    .label = "Block",
    .min = 1,
    .max = 2048,
    .defaultValue = 256,
    .help = "Threads per block in x, y and z (blockDim). At most 1,024 in all, 64 in z."};
inline constexpr ParamSpec kGridDimSpec{.id = "grid",
                                        .label = "Grid",
                                        .min = 1,
                                        .max = 4294967296.0,
                                        .defaultValue = 1,
                                        .help =
                                            "Blocks in x, y and z (gridDim). At most 2^31 - 1 in x "
                                            "and 65,535 in y and z.",
                                        .logScale = true};

struct RunParams {
  std::string exercise = "double";
  long long n = 0;  // Matmul: n x n matrices
  int bins = 10;
  Launch launch;
  bool autoGrid = true;  // grid from N and the block (launchFor)
  int runs = 20;
  double timeoutSeconds = 5;
  std::uint64_t seed = 1;
  bool compare = true;  // also time the built-in kernel and the library
  // Also read the GPU's counters per source line (CUPTI's SASS metrics) on the first, untimed
  // launch of the learner's kernels (WorkerClient::run: each kernel in a run of its own).
  bool lineCounters = false;
  // Where the kernel waits: CUPTI's PC sampling on the first, untimed launch of the learner's
  // kernels (counters/pc_sampling.hpp), the samples per instruction and stall reason. With
  // lineCounters as well, WorkerClient::run samples in runs of their own after the counters'.
  bool stalls = false;
  // For one worker run: which kernel the line counters or PC sampling read, an index into
  // entryPoints(). A worker reads one kernel, and never both (CUPTI's SASS metrics give records
  // once per process, and no PC sample came back after them): WorkerClient::run asks for each
  // kernel and each reading in a run of its own and joins them.
  int lineKernel = 0;
};

RunParams defaultRunParams(const Exercise& e);
// The launch a run uses: with autoGrid, enough blocks to cover N (Matmul: n x n in x and y).
Launch launchFor(const Exercise& e, const RunParams& p);

// Refuses a block the kernel's registers cannot fill (registers per thread x threads over what an
// SM has: CUDA would fail the launch with "too many resources requested"), with the largest block
// that fits. `registers` from the compiler; 0 = unknown, nothing refused.
Status checkRegisters(const Exercise& e, const RunParams& p, int registers, const SmModel& sm);

// What the limits of the GPU (or a model of an H100) allow; filled by the worker's hello.
struct GpuLimits {
  int maxThreadsPerBlock = 1024;
  std::array<long long, 3> maxBlock{1024, 1024, 64};
  std::array<long long, 3> maxGrid{2147483647, 65535, 65535};
  std::size_t freeBytes = 84490125312ull;
  bool fromDevice = false;
};

// Elements past the end of each output that the app allocates and poisons, so a kernel with no
// guard writes into memory the app watches instead of someone else's: as many as the launch has
// threads beyond the output (at most 2^24), and 4,096 more. (4,096 more sit before each array.)
long long guardElements(long long outputElements, long long threads);

// Device memory a run needs: inputs, outputs with their guard zones, and the comparisons.
std::size_t deviceBytes(const Exercise& e, const RunParams& p);

// Refuses, with a sentence that teaches: N, bins, runs or the time limit outside their ranges, a
// block or grid over the limits, more memory than is free.
Status validate(const Exercise& e, const RunParams& p, const GpuLimits& limits);

// The launch in numbers: threads, the idle ones, warps, and with the kernel's registers and
// shared memory (from the compiler) blocks per SM, occupancy and waves.
struct LaunchNumbers {
  long long threads = 0, blocks = 0, threadsPerBlock = 0, warps = 0;
  long long work = 0;         // elements (or matrix elements) the exercise has
  long long idleThreads = 0;  // threads beyond the work: with a guard they do nothing
  long long emptyLanes = 0;   // warp lanes with no thread (blocks not a multiple of 32)
  BlockOccupancy occupancy;
  long long residentBlocks = 0, waves = 0;
  double tailFraction = 0;  // how full the last wave is
  int smCount = 0;
};
LaunchNumbers launchNumbers(const Exercise& e, const RunParams& p, int registersPerThread,
                            long long staticShared, const SmModel& sm, int smCount);

// ---------------------------------------------------------------------------------------------
// [SECTION] Inputs
// ---------------------------------------------------------------------------------------------

// Fresh random inputs from a seed, so the worker and the tests make the same numbers.
//   Map: in0 (and in1) uniform in the course's ranges (Hypot: -12..12; others -1..1, not 0).
//   Histogram: standard normals, as the course's np.random.normal.
//   Elementwise: x log-spaced from 1e-8 to 1e4 (where cancellation shows).
//   Matmul: A and B uniform in -1..1.  Reduce: whole numbers -4..4.
//   Transpose: uniform in -1..1.  Softmax: scores uniform in -30..120 (past float32's exp range).
//   Wmma: A and B n x n (unpadded), multiples of 1/256 in -1..1 (not 0): exact in half.
struct Inputs {
  std::vector<float> in0, in1;
};
Inputs makeInputs(const Exercise& e, const RunParams& p);

// The reference of a Map at one element, in float64 (Hypot: hypot in double).
double mapReference(MapOp op, double a, double b);
// The most a correct float32 result may differ from the float64 reference (absolute).
double mapTolerance(MapOp op, double reference);

// The course's cpu_histogram, in float32 as NumPy computed it (x, xmin and the bin width are
// float32; the bin is the quotient truncated toward zero).
std::vector<int> cpuHistogram(std::span<const float> x, float xmin, float xmax, int bins);
// Elements so close to a bin edge that a correct kernel may round them into the neighbouring bin
// (a different but exact formula); slack[b] bounds |got[b] - reference[b]|.
std::vector<int> histogramSlack(std::span<const float> x, float xmin, float xmax, int bins);

// The exact f of the Elementwise exercise: sqrt(x^2 + 1) - 1 in long double, without cancelling.
long double elementwiseExact(long double x);
// A correct result is within this many units in the last place of its precision.
inline constexpr double kElementwiseUlps = 8;

// Error bound of a float32 sum whose longest chain of roundings is `depth`: gamma_depth sum|x|.
double sumBound(long long depth, double absSum);

// The softmax of each row of the n x n `x`, in float64 (the row's maximum subtracted first).
std::vector<double> softmaxReference(std::span<const float> x, int n);
// The most a correct float32 softmax may differ from the float64 one at an element whose score is
// `gap` below its row's maximum and whose reference value is `reference`, in a row of n: the
// rounding of x - max (carried into exp as a relative error |gap| units), exp itself (__expf's
// error grows with |gap|), the row's sum (n roundings) and the division; under float32's smallest
// normal number, absolute (a flushed exponential).
double softmaxTolerance(double gap, double reference, int n);

// ---------------------------------------------------------------------------------------------
// [SECTION] Report
// ---------------------------------------------------------------------------------------------

// One cell of the output picture: a group of consecutive output elements, coloured by the worst
// element in it.
enum class Cell : std::uint8_t {
  Correct = 0,
  Wrong = 1,
  Unwritten = 2,
  PastEnd = 3,
  Unchecked = 4
};

struct Mismatch {
  long long index = 0;  // element of the output (Matmul: row * n + column)
  double expected = 0, got = 0;
  bool unwritten = false;  // still holds the poison
};

struct Comparison {
  // A row from its label, time, verdict and how it was measured; the rest starts as "not
  // compared" and "it ran". (A constructor, not an aggregate: -Wmissing-field-initializers would
  // make every row list every field.)
  Comparison() = default;
  Comparison(std::string name, double milliseconds, bool right, std::string measured = {})
      : label(std::move(name)), ms(milliseconds), ok(right), how(std::move(measured)) {}
  std::string label;  // "launch-config's built-in kernel", "CUB DeviceHistogram::HistogramEven"
  double ms = 0;
  bool ok = true;  // its own result was right
  // How it was measured: a fixed phrase marked N_() in worker_run.cu (empty: nothing to say).
  std::string how;
  // Its output beside the learner's, bit for bit, where the exercise compares them.
  enum class Outputs : std::uint8_t { NotCompared, Identical, Differ, Unreadable };
  Outputs outputs = Outputs::NotCompared;
  long long differing = 0;  // Outputs::Differ: how many elements differ
  Phrase failure;           // why it could not run (then ms is 0 and ok false); empty: it ran
  // The fields above in English, as clauses joined by "; " (the benchmark's JSON, logs). The app
  // translates the fields themselves (playground_panels.cpp).
  std::string note() const;
};

struct KernelResources {
  int registers = 0;
  long long staticShared = 0, localBytes = 0, constBytes = 0;
  int maxThreadsPerBlock = 0;  // the most this kernel can be launched with (registers limit it)
  int blocksPerSM = 0;         // cudaOccupancyMaxActiveBlocksPerMultiprocessor at this block size
};

struct RunReport {
  bool ok = false;  // every element right
  // The verdict in English, for the command line and logs; the app writes its own from the
  // numbers below (the counts, and the reduction's sums).
  std::string summary;
  // Reduce: the learner's total (its partial sums added, rounded to an integer; unset when that is
  // not a finite number) and the exact sum of the inputs; unset for the other exercises.
  std::optional<long long> sum, exactSum;
  long long checked = 0, wrong = 0, unwritten = 0, pastEnd = 0;
  long long beforeStart = 0;  // writes into the guard zone before the output (a negative index)
  double maxAbsError = 0;
  std::vector<Mismatch> first;  // the first wrong elements, at most kMaxMismatches
  // The picture: cells of `cellSpan` output elements, `cellsWide` per row (Matmul: the matrix's
  // rows and columns scaled down), then the guard zone's cells.
  std::vector<Cell> cells;
  int cellsWide = 0;
  long long cellSpan = 1;
  // The guard zone after the output (see deviceBytes): Correct where the poison is intact,
  // PastEnd where a thread wrote; `guardSpan` elements per cell.
  std::vector<Cell> guardCells;
  long long guardSpan = 1;
  // Times: the learner's kernel, median of `runs` after warm-up, CUDA events.
  std::vector<double> kernelMs;
  double medianMs = 0;
  double bytes = 0, flops = 0;  // what the exercise declares for one launch
  KernelResources resources;
  std::vector<Comparison> comparisons;
  // Exercise extras: counter values per run; histogram bins (got and expected); the element-wise
  // function sampled (x, float32 result, float64 result, exact).
  std::vector<long long> counts;
  std::vector<long long> binsGot, binsExpected;
  struct Sample {
    double x, f32, f64, exact;
  };
  std::vector<Sample> samples;
  // With RunParams::lineCounters: the counters of each line of the learner's program (line 0:
  // code of no line of it), or why they could not be read.
  std::vector<counters::LineCounters> lines;
  // The same counts per machine instruction (kernel, offset), for the SASS pane; the records of an
  // instruction seen in several launches summed.
  std::vector<counters::SassRecord> instructions;
  std::string linesProblem;
  // With RunParams::stalls: the stall reasons' names and, per instruction sampled, its samples
  // per reason (indices into stallReasons), or why none could be taken.
  std::vector<std::string> stallReasons;
  std::vector<counters::StallRecord> stalls;
  std::uint64_t stallSamples = 0, stallSamplesDropped = 0;
  std::string stallsProblem;
  double loadMs = 0;   // loading the compiled image in the worker
  std::string output;  // what the kernel printed (printf), at most 16 KiB
  std::string device;
  double gbps() const { return medianMs > 0 ? bytes / medianMs / 1e6 : 0; }
  double gflops() const { return medianMs > 0 ? flops / medianMs / 1e6 : 0; }
};

inline constexpr int kMaxMismatches = 8;
inline constexpr int kMaxCells = 1 << 16;

// The bytes and flops of one launch (reads plus writes of the arrays the exercise defines).
double exerciseBytes(const Exercise& e, const RunParams& p);
double exerciseFlops(const Exercise& e, const RunParams& p);

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).

// The exercise as the panel chooses it (exercises(), in its order), for presets and plans.
inline constexpr ParamSpec kExerciseChoice{
    .id = "exercise",
    .label = "Exercise",
    .min = 0,
    .max = 11,  // exercises().size() - 1; the registry test checks it against the table
    .defaultValue = 0,
    .help = "Which of the course's exercises the editor holds."};

// The lesson's parameter table: every number its panel edits (Lesson::parameters()).
inline constexpr ParamSpec kPlaygroundParams[] = {kRunsSpec, kTimeoutSpec, kBinsSpec, kBlockDimSpec,
                                                  kGridDimSpec};

}  // namespace cudalab::playground
