// The "transfers" lesson: when the GPU pays off, and where the time goes.
//
// An element-wise kernel (doubling, a*x + y, hypot, or an adjustable amount of arithmetic) runs
// `calls` times over N floats. What changes is how the data travels: copied in and out around
// every call (what Numba does when a host array is passed to a kernel), kept on the device between
// calls (`cuda.to_device` once), from pinned host memory, or split into chunks over several
// streams so copies overlap kernels. A chain of k kernels shows the 2(k-1) copies a round trip
// through the host costs. The CPU does the same work, timed the same way.
//
// [SECTION] Variants     the kernels and the transfer modes: one table each, read by the UI, the
//                        benchmark and the tests
// [SECTION] Parameters   ParamSpec constants, validate(), the memory check with its sentence
// [SECTION] Plans        what each mode enqueues (copies and kernels, on which stream): one plan
//                        drives both the GPU run and the model, so they cannot disagree
// [SECTION] Timelines    spans from device events, phase totals, checks
// [SECTION] Model        an analytic model of the copy engines and the GPU, for machines without
//                        one and for "what did we expect"
// [SECTION] CPU          the float64 reference, the CPU doing the same work (one thread, all
//                        cores), the crossover
// [SECTION] GPU          TransferSession: the buffers, runPlan(), the PCIe link
//
// Typical use (the panel, on its worker thread):
//
//   TransferParams p;                                        // defaults from the ParamSpecs
//   if (Status s = validate(p); !s) return show(s.sentence());
//   if (Status s = checkMemory(p, freeDevice, availableHost); !s) return show(s.sentence());
//   auto session = TransferSession::create(p);               // allocates, fills random inputs
//   for (const TransferModeInfo& m : transferModes()) {
//     Plan plan = planMode(p, m.mode);
//     Result<PlanRun> r = (*session)->run(plan, {.warmup = 1, .runs = 5}, cancel);
//     show(r->median.wallMs, r->timeline);                   // and r->check.ok()
//   }
//   Timeline predicted = simulate(planMode(p, mode), p, referenceLink());   // no GPU needed
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/measurement.hpp"
#include "common/params.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"  // N_(): labels and help, translated where the UI shows them

typedef struct CUstream_st* cudaStream_t;

namespace cudalab::transfers {

class TransferSession;

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants
// ---------------------------------------------------------------------------------------------

enum class TransferOp { Double, Axpy, Hypot, Iterate };

struct TransferOpInfo {
  TransferOp op;
  const char* id;       // stable name: "double", "axpy", "hypot", "iterate"
  const char* label;    // what the UI shows (words marked N_())
  const char* formula;  // what one thread computes (marked N_() where it has words)
  int inputs;           // arrays copied in per call (1 or 2); every kernel writes one output
  const char* help;
};

std::span<const TransferOpInfo> transferOps();
const TransferOpInfo& transferOp(TransferOp op);
// Floating-point operations per element, counting a fused multiply-add as two; `work` is the
// iterate kernel's iteration count.
double flopsPerElement(TransferOp op, int work);

// The constant of a*x + y.
inline constexpr float kAxpyA = 2.5f;
// The iterate kernel: v <- v * x + kIterateC, `work` times, from v = x. With 0 <= x < 1 the value
// stays below 1 / (1 - x) and rounding errors shrink rather than grow, so float32 stays accurate.
inline constexpr float kIterateC = 0.5f;

enum class TransferMode { Implicit, Explicit, ImplicitPinned, ExplicitPinned, Streams };

struct TransferModeInfo {
  TransferMode mode;
  const char* id;     // "implicit", "explicit", "implicit_pinned", "explicit_pinned", "streams"
  const char* label;  // what the UI shows (marked N_())
  const char* help;
  bool pinned;    // host buffers are page-locked
  bool resident;  // data stays on the device between calls (copied in once, out once)
  bool streams;   // chunks over several streams, so copies overlap kernels
};

std::span<const TransferModeInfo> transferModes();
const TransferModeInfo& transferMode(TransferMode mode);

// The chained kernels of the course's foo / bar / baz example, applied in place in this order
// (step j uses chainKernel(j % 3)).
struct ChainKernelInfo {
  const char* name;     // "foo", "bar", "baz"
  const char* formula;  // "x * 2", ...
};
std::span<const ChainKernelInfo> chainKernels();

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters
// ---------------------------------------------------------------------------------------------

inline constexpr ParamSpec kTransferN{
    .id = "n",
    .label = "Elements N",
    .min = 1024,
    .max = 268435456,
    .defaultValue = 16777216,
    .help =
        "How many float32 numbers each kernel call processes (2^10 to 2^28). Small arrays show the "
        "fixed cost of every copy and launch; large ones show bandwidth. The largest need up to 3 "
        "GiB "
        "on the device and in host memory.",
    .logScale = true};

inline constexpr ParamSpec kTransferCalls{
    .id = "calls",
    .label = "Kernel calls",
    .min = 1,
    .max = 100,
    .defaultValue = 10,
    .help =
        "How many times the kernel runs over the same data, like the course's `%%timeit -n 100` "
        "loop. Copying in and out around every call pays the copies every time; keeping the data "
        "on "
        "the device pays them once.",
    .logScale = true};

inline constexpr ParamSpec kTransferStreams{
    .id = "streams",
    .label = "Streams",
    .min = 2,
    .max = 8,
    .defaultValue = 4,
    .help =
        "Streams mode splits the array into chunks and gives them to this many streams. Work in "
        "one "
        "stream runs in order; work in different streams may overlap, so one chunk can be copied "
        "in "
        "while another is computed and a third copied out."};

inline constexpr ParamSpec kTransferChunks{.id = "chunks_per_stream",
                                           .label = "Chunks per stream",
                                           .min = 1,
                                           .max = 8,
                                           .defaultValue = 1,
                                           .help =
                                               "More, smaller chunks fill the pipeline sooner, "
                                               "until the fixed cost of each copy and launch "
                                               "(microseconds) outweighs the overlap gained."};

inline constexpr ParamSpec kTransferWork{
    .id = "work",
    .label = "Work per element",
    .min = 1,
    .max = 16384,
    .defaultValue = 256,
    .unit = "iterations",
    .help =
        "For the iterate kernel only: how many multiply-adds each thread does per element. At "
        "about "
        "2000 (on an H100 or H200) the kernel takes as long as copying its data in, which is where "
        "overlapping copies with kernels gains the most.",
    .logScale = true};

inline constexpr ParamSpec kTransferChain{
    .id = "chain",
    .label = "Chained kernels k",
    .min = 1,
    .max = 8,
    .defaultValue = 3,
    .help =
        "How many kernels run one after another on the data (foo, bar, baz, foo, ...). Round trips "
        "copy in and out around each; keeping the data on the device copies once each way: 2(k-1) "
        "copies fewer."};

inline constexpr ParamSpec kTransferParams[] = {kTransferN,      kTransferCalls, kTransferStreams,
                                                kTransferChunks, kTransferWork,  kTransferChain};

struct TransferParams {
  TransferOp op = TransferOp::Double;
  long long n = static_cast<long long>(kTransferN.defaultValue);
  int calls = static_cast<int>(kTransferCalls.defaultValue);
  int streams = static_cast<int>(kTransferStreams.defaultValue);
  int chunksPerStream = static_cast<int>(kTransferChunks.defaultValue);
  int work = static_cast<int>(kTransferWork.defaultValue);
  int chain = static_cast<int>(kTransferChain.defaultValue);
  bool operator==(const TransferParams&) const = default;
};

// Every field within its ParamSpec. Pure.
Status validate(const TransferParams& p);

// Bytes the device needs (inputs and output) and the host needs (the ordinary arrays, plus as
// many pinned ones when `pinned`; the reference is computed on the fly, not stored).
size_t deviceBytesNeeded(const TransferParams& p);
size_t hostBytesNeeded(const TransferParams& p, bool pinned);

// Refuses N when its arrays do not fit into the free device memory or the available host memory
// (with a 10% margin for the driver), with a sentence that names the arrays, the sizes and the
// largest N that fits. Pure.
Status checkMemory(const TransferParams& p, size_t freeDeviceBytes, size_t availableHostBytes,
                   bool pinned);

// ---------------------------------------------------------------------------------------------
// [SECTION] Plans
// ---------------------------------------------------------------------------------------------

enum class SpanKind { HostToDevice = 0, Kernel = 1, DeviceToHost = 2 };
// Marked for the catalogue: the UI shows them (translated where drawn).
inline constexpr const char* kSpanKindNames[] = {N_("Host to device"), N_("Kernel"),
                                                 N_("Device to host")};

// Buffers a step names: the inputs x and y, and the output.
enum class Buffer { X = 0, Y = 1, Out = 2 };

// One copy or kernel launch. Copies move [offset, offset + count) of `buffer` (for host-to-device
// in a chain with round trips, from the host output array when `fromHostOut`). Kernels compute
// [offset, offset + count): the lesson's op when chainStep < 0, else chain kernel chainStep % 3,
// reading x (step 0) or the output (later steps) and writing the output.
struct PlanStep {
  int stream = 0;
  SpanKind kind = SpanKind::Kernel;
  Buffer buffer = Buffer::Out;
  size_t offset = 0, count = 0;
  int call = 0;        // which kernel call (0..calls-1), or chain step
  int chunk = 0;       // which chunk (streams mode), else 0
  int chainStep = -1;  // >= 0: a chain kernel
  bool fromHostOut = false;
};

struct Plan {
  std::string label;  // "explicit, pinned", "chain with round trips", ...
  int streams = 1;
  bool pinned = false;
  std::vector<PlanStep> steps;  // in the order they are enqueued by the host
  int copies(SpanKind k) const;
  double bytes(SpanKind k) const;  // copied bytes of one kind (4 bytes per element)
};

// What `mode` enqueues for `p.calls` calls of `p.op` over `p.n` elements.
//   implicit:  for each call: copy the inputs in, launch, copy the output out (one stream)
//   explicit:  copy the inputs in, launch `calls` times, copy the output out
//   streams:   for each call: the array in streams x chunksPerStream chunks, chunk c on stream
//              c % streams, each chunk copied in, computed and copied out on its stream
Plan planMode(const TransferParams& p, TransferMode mode);
// `p.chain` kernels on x, in place on the output; with round trips each kernel's input is copied
// in and its output out (2k copies), without only x in and the result out (2 copies). Pageable.
Plan planChain(const TransferParams& p, bool roundTrips);

// ---------------------------------------------------------------------------------------------
// [SECTION] Timelines
// ---------------------------------------------------------------------------------------------

struct Span {
  int stream = 0;
  SpanKind kind = SpanKind::Kernel;
  double startMs = 0, endMs = 0;  // from the start of the run
  double bytes = 0;               // copies: bytes moved; kernels: bytes read and written
  int call = 0, chunk = 0;
  double ms() const { return endMs - startMs; }
};

struct Timeline {
  int streams = 1;
  std::vector<Span> spans;  // in plan order
  double wallMs = 0;        // first start to last end, as the host waits for it
  // Time during which at least one span of each kind runs (the stacked bar): the sum of the
  // spans when they follow each other. In streams mode a copy's span starts when its stream
  // reaches it, so it includes waiting behind another stream's copy for the copy engine; counting
  // the covered time rather than the sum leaves that wait out. With overlap the three phases add
  // up to more than wallMs.
  std::array<double, 3> phaseMs() const;
  // Time when at least one copy and one kernel run at once.
  double overlapMs() const;
};

// True when two spans of the same stream overlap by more than `toleranceMs` (work in one stream
// runs in order, so a timeline where this happens was measured wrongly).
bool overlapsWithinStream(const Timeline& t, double toleranceMs = 1e-3);

// ---------------------------------------------------------------------------------------------
// [SECTION] Model
// ---------------------------------------------------------------------------------------------

// An analytic model of copies and kernels: a copy costs latency + bytes / bandwidth on its copy
// engine (one engine each way, so a host-to-device and a device-to-host copy can run together);
// a kernel costs launch + max(bytes / memory bandwidth, flops / FP32 peak) on the GPU, one kernel
// at a time; ordinary (pageable) copies are staged by the CPU through a pinned buffer, which
// is slower and blocks the host, so nothing overlaps them.
struct LinkModel {
  const char* source = "";  // where the numbers come from, shown with every modelled figure
  double h2dPinnedGBps = 0, d2hPinnedGBps = 0;
  double h2dPageableGBps = 0, d2hPageableGBps = 0;
  double deviceGBps = 0;     // achieved device-to-device copy bandwidth (read + write)
  double fp32Gflops = 0;     // FP32 peak, FMA counted as two
  double copyLatencyUs = 0;  // fixed cost of one copy
  double launchUs = 0;       // fixed cost of one kernel launch
};

// Measured on an H200 (2026-11-21, see docs/BENCHMARKS.md): the model shown without a GPU.
LinkModel referenceLink();

double modelCopyMs(const LinkModel& m, double bytes, bool h2d, bool pinned);
double modelKernelMs(const LinkModel& m, double bytes, double flops);
// Replays `plan` on the model's engines: each step starts when its stream's previous step and its
// engine are free (pageable copies also wait for everything before them, as the host does).
Timeline simulate(const Plan& plan, const TransferParams& p, const LinkModel& m);

// ---------------------------------------------------------------------------------------------
// [SECTION] CPU
// ---------------------------------------------------------------------------------------------

// The op in float64 from float32 inputs (y ignored by one-input ops).
double referenceOp(TransferOp op, float x, float y, int work);
// Chain kernel `step % 3` in float64.
double referenceChain(int step, double v);
// The op in float32 as the GPU computes it (the CPU timing runs this).
float hostOp(TransferOp op, float x, float y, int work);
// Relative tolerance of the float32 result against the float64 reference.
double tolerance(TransferOp op, int work);

// The checks compare every element, on all cores, unless the float64 reference would cost more
// than about 2^28 operations (the iterate kernel with much work at large N): then the first and
// last kCheckEdge elements and every checkStride()-th one. Correctness::checked says how many.
inline constexpr size_t kCheckEdge = 4096;
size_t checkStride(TransferOp op, int work, size_t n);
// Compares out[i] with referenceOp(x[i], y[i]).
Correctness checkOp(TransferOp op, int work, const float* x, const float* y, const float* out,
                    size_t n);
// Compares out[i] with the chain of `k` kernels applied to x[i].
Correctness checkChain(int k, const float* x, const float* out, size_t n);

struct CpuTiming {
  double oneThreadMs = 0;  // median of runs, for `calls` calls
  double allCoresMs = 0;
  int threads = 1;
  double bestMs() const {
    return std::min(oneThreadMs, allCoresMs);
  }                          // std::thread::hardware_concurrency()
  size_t timedElements = 0;  // < N: timed on the first elements only and scaled to N
  Correctness check;
};

// Runs the op over the session's N elements on the host, `runs` times per thread count, and
// reports the median time of one call multiplied by `calls` (the CPU has no copies, so every call
// costs the same). Uses `inputs` (x, and y when the op has two) and writes `out`.
Result<CpuTiming> timeCpu(const TransferParams& p, const float* x, const float* y, float* out,
                          int runs, const std::atomic<bool>* cancel);

// Where the GPU starts to pay off (cpuMs: the CPU's best, one thread or all cores, since starting
// threads costs more than small arrays take): the N, interpolated in log-log between the two sizes
// around it, from which gpuMs[i] < cpuMs[i] holds for every larger size measured. Returns nothing
// when the GPU is never faster, or faster only at some size with a slower size after it (noise),
// and ns[0] when it is faster everywhere. ns ascending, the vectors of equal length.
std::optional<double> findCrossover(const std::vector<double>& ns, const std::vector<double>& gpuMs,
                                    const std::vector<double>& cpuMs);

// Fills x (and y) with uniform random floats in [0, 1) from `seed`.
void fillRandom(float* x, size_t n, unsigned seed);

// ---------------------------------------------------------------------------------------------
// [SECTION] GPU
// ---------------------------------------------------------------------------------------------

struct RunOptions {
  int warmup = 1;
  int runs = 5;
  bool verifyEveryRun = true;  // false: verify the last run only (large N)
};

struct PlanRun {
  Timeline timeline;  // the run whose wall time is the median
  PhaseStats wall;    // wall time over runs
  PhaseStats phases[3];
  Correctness check;  // the worst verified run
  int runs = 0;
};

// The buffers for one (op, N): device x, y and output, ordinary host arrays with random inputs,
// and pinned host arrays (allocated on first use by a pinned plan). Create and run on the same
// worker thread; the destructor frees everything.
class TransferSession {
 public:
  virtual ~TransferSession() = default;
  static Result<std::unique_ptr<TransferSession>> create(const TransferParams& p, unsigned seed);
  virtual const TransferParams& params() const = 0;
  // Runs `plan` (planMode or planChain of params() with any calls/streams/chunks/chain): before
  // every run the outputs are poisoned on the host and on the device, after it the host output
  // is compared with the float64 reference element by element.
  virtual Result<PlanRun> run(const Plan& plan, const RunOptions& opt,
                              const std::atomic<bool>* cancel) = 0;
  // The host inputs and output (ordinary memory), for the CPU timing.
  virtual const float* hostX() const = 0;
  virtual const float* hostY() const = 0;
  virtual float* hostOut() = 0;
};

// ---- Size sweep (shared by the panel and the benchmark) ------------------------------------

// The sizes of a sweep up to maxN: 2^10, 2^12, ... (powers of four), then maxN itself.
std::vector<long long> sweepSizes(long long maxN);

struct SizePoint {
  long long n = 0;
  std::array<double, 5> modeMs{};  // wall time of each transferModes() entry, `calls` calls
  std::array<bool, 5> modeOk{};    // its output matched the reference
  bool modelled = false;           // modeMs from simulate() (no GPU), not measured
  CpuTiming cpu;                   // always measured
};

// timeCpu on the session's host arrays (the GPU's inputs), or without a session on fresh random
// arrays from `seed`.
Result<CpuTiming> timeCpuOn(const TransferParams& p, TransferSession* session, unsigned seed,
                            int runs, const std::atomic<bool>* cancel);

// One point of the sweep: every mode at size n (p's other fields as given) on the GPU, or from
// `link` when `gpu` is false, and the CPU doing the same work. Repetitions shrink as n grows.
Result<SizePoint> measureSize(const TransferParams& p, long long n, bool gpu, const LinkModel& link,
                              const std::atomic<bool>* cancel);

// Free device memory (cudaMemGetInfo; 0 without a GPU) and available host memory
// (/proc/meminfo's MemAvailable), for checkMemory().
struct MemoryAvailable {
  size_t freeDevice = 0;
  size_t availableHost = 0;
};
Result<MemoryAvailable> memoryAvailable(bool gpu);

// The PCIe link between the host and the GPU, from Linux's sysfs.
struct PcieLink {
  double gtPerSecond = 0;           // per lane, e.g. 32 for PCIe 5.0
  int width = 0;                    // lanes
  int generation = 0;               // 1..6, from the transfer rate
  double gbpsPerDirection() const;  // after line encoding (8b/10b up to gen 2, 128b/130b after)
  std::string describe() const;     // "PCIe 5.0 x16, 63.0 GB/s each way"
};
// Parses sysfs's current_link_speed ("32.0 GT/s PCIe") and current_link_width ("16").
std::optional<PcieLink> parsePcieLink(const std::string& speed, const std::string& width);
// Reads the link of CUDA device `device`; nothing when sysfs does not say (not Linux, a virtual
// machine, or an SXM part whose host link is not a plain PCIe device).
std::optional<PcieLink> queryPcieLink(int device);

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).

// The kernel as the panel chooses it (transferOps(), in its order), for presets and plans.
inline constexpr ParamSpec kOpChoice{
    .id = "kernel",
    .label = "Kernel",
    .min = 0,
    .max = 3,
    .defaultValue = 0,
    .help =
        "Which element-wise kernel runs: doubling (the course's foo), a*x + y, hypot(x, y), or one "
        "whose work per element you choose."};

}  // namespace cudalab::transfers
