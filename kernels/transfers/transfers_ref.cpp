// The transfers lesson's pure part: tables, validation, plans, timelines, the model, the CPU
// reference and timing, the crossover and the PCIe link's arithmetic. No CUDA here, so all of it
// is tested on any machine.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <sstream>
#include <thread>

#include "common/format.hpp"
#include "transfers/transfers.hpp"
#include "common/table.hpp"

namespace cudalab::transfers {

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants
// ---------------------------------------------------------------------------------------------

namespace {

constexpr TransferOpInfo kOps[] = {
    {TransferOp::Double, "double", N_("Doubling"), "out = 2 * x", 1,
     N_("The course's foo kernel: one multiplication per element. Almost no work per byte, so the "
        "copies decide everything.")},
    {TransferOp::Axpy, "axpy", "a*x + y", "out = 2.5 * x + y", 2,
     N_("Two inputs, one output: one more array to copy in, still one multiply-add per element.")},
    {TransferOp::Hypot, "hypot", "hypot(x, y)", "out = sqrt(x*x + y*y)", 2,
     N_("The grid-stride example of course file 004: a few operations per element, still limited "
        "by memory.")},
    {TransferOp::Iterate, "iterate", N_("Iterate (adjustable work)"),
     N_("v = x; repeat W times: v = v * x + 0.5"), 1,
     N_("A kernel whose arithmetic you choose: W multiply-adds per element. With enough work the "
        "kernel takes as long as the copies, and overlapping them in streams pays off most.")},
};

constexpr TransferModeInfo kModes[] = {
    {TransferMode::Implicit, "implicit", N_("Implicit copies"),
     N_("What happens when a host array is passed straight to a kernel: the inputs are copied in "
        "and the output copied out around every call, from ordinary (pageable) host memory."),
     false, false, false},
    {TransferMode::Explicit, "explicit", N_("Explicit device arrays"),
     N_("cuda.to_device once: the inputs are copied in before the first call and the output out "
        "after the last; the calls in between touch only device memory."),
     false, true, false},
    {TransferMode::ImplicitPinned, "implicit_pinned", N_("Implicit, pinned"),
     N_("As implicit, but the host arrays are page-locked (pinned): the copy engine reads them "
        "directly instead of through a staging buffer the CPU fills."),
     true, false, false},
    {TransferMode::ExplicitPinned, "explicit_pinned", N_("Explicit, pinned"),
     N_("As explicit device arrays, from pinned host memory."), true, true, false},
    {TransferMode::Streams, "streams", N_("Streams (overlap)"),
     N_("Every call's work split into chunks over several streams, from pinned memory: while one "
        "chunk is copied in, another is computed and a third copied out."),
     true, false, true},
};

constexpr ChainKernelInfo kChain[] = {
    {"foo", "x * 2"},
    {"bar", "x + 1"},
    {"baz", "x * x"},
};

constexpr size_t kFloat = sizeof(float);

}  // namespace

std::span<const TransferOpInfo> transferOps() {
  return kOps;
}
const TransferOpInfo& transferOp(TransferOp op) {
  return rowOf(kOps, &TransferOpInfo::op, op);
}
double flopsPerElement(TransferOp op, int work) {
  switch (op) {
    case TransferOp::Double:
      return 1;
    case TransferOp::Axpy:
      return 2;
    case TransferOp::Hypot:
      return 4;  // two products (one fused with the sum) and the square root
    case TransferOp::Iterate:
      return 2.0 * std::max(work, 0);
  }
  return 0;
}

std::span<const TransferModeInfo> transferModes() {
  return kModes;
}
const TransferModeInfo& transferMode(TransferMode mode) {
  return rowOf(kModes, &TransferModeInfo::mode, mode);
}
std::span<const ChainKernelInfo> chainKernels() {
  return kChain;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters
// ---------------------------------------------------------------------------------------------

Status validate(const TransferParams& p) {
  CUDALAB_TRY(checkRange(kTransferN, static_cast<double>(p.n)));
  CUDALAB_TRY(checkRange(kTransferCalls, p.calls));
  CUDALAB_TRY(checkRange(kTransferStreams, p.streams));
  CUDALAB_TRY(checkRange(kTransferChunks, p.chunksPerStream));
  CUDALAB_TRY(checkRange(kTransferWork, p.work));
  CUDALAB_TRY(checkRange(kTransferChain, p.chain));
  return {};
}

namespace {
int arrays(const TransferParams& p) {
  return transferOp(p.op).inputs + 1;
}
std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(1ull << 30));
  return buf;
}
}  // namespace

size_t deviceBytesNeeded(const TransferParams& p) {
  return static_cast<size_t>(arrays(p)) * static_cast<size_t>(std::max(p.n, 0LL)) * kFloat;
}
size_t hostBytesNeeded(const TransferParams& p, bool pinned) {
  return deviceBytesNeeded(p) * (pinned ? 2 : 1);
}

Status checkMemory(const TransferParams& p, size_t freeDeviceBytes, size_t availableHostBytes,
                   bool pinned) {
  const int a = arrays(p);
  // A value of the sentences below, marked so that the app translates it too.
  const char* names = a == 2 ? N_("x and the output") : N_("x, y and the output");
  const double perElementDevice = double(a) * kFloat;
  auto largest = [](double budget, double perElement) {
    const double n = std::floor(budget / perElement);
    const double pow2 = n >= 1 ? std::exp2(std::floor(std::log2(n))) : 0;
    return std::pair<double, double>{n, pow2};
  };
  const double dev = double(deviceBytesNeeded(p));
  if (dev > 0.9 * double(freeDeviceBytes)) {
    auto [n, pow2] = largest(0.9 * double(freeDeviceBytes), perElementDevice);
    return Status::errorf(
        N_("N = %s needs %s on the device (%s, %s each), but only %s is free, and the driver needs "
           "some of it. The largest N that fits is %s (2^%s = %s)."),
        {thousands(p.n), gib(dev), names, gib(dev / a), gib(double(freeDeviceBytes)),
         thousands(static_cast<long long>(n)),
         std::to_string(static_cast<int>(std::log2(std::max(pow2, 1.0)))),
         thousands(static_cast<long long>(pow2))});
  }
  const double host = double(hostBytesNeeded(p, pinned));
  if (host > 0.9 * double(availableHostBytes)) {
    auto [n, pow2] = largest(0.9 * double(availableHostBytes), perElementDevice * (pinned ? 2 : 1));
    return Status::errorf(
        pinned ? N_("N = %s needs %s of host memory (%s, once ordinary and once pinned), but only "
                    "%s is available. The largest N that fits is %s (2^%s).")
               : N_("N = %s needs %s of host memory (%s), but only %s is available. The largest N "
                    "that fits is %s (2^%s)."),
        {thousands(p.n), gib(host), names, gib(double(availableHostBytes)),
         thousands(static_cast<long long>(n)),
         std::to_string(static_cast<int>(std::log2(std::max(pow2, 1.0))))});
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Plans
// ---------------------------------------------------------------------------------------------

int Plan::copies(SpanKind k) const {
  return static_cast<int>(
      std::count_if(steps.begin(), steps.end(), [k](const PlanStep& s) { return s.kind == k; }));
}
double Plan::bytes(SpanKind k) const {
  double b = 0;
  for (const PlanStep& s : steps)
    if (s.kind == k) b += double(s.count) * kFloat;
  return b;
}

namespace {
void addInputs(Plan& plan, const TransferParams& p, int stream, size_t off, size_t count, int call,
               int chunk) {
  plan.steps.push_back({stream, SpanKind::HostToDevice, Buffer::X, off, count, call, chunk});
  if (transferOp(p.op).inputs > 1)
    plan.steps.push_back({stream, SpanKind::HostToDevice, Buffer::Y, off, count, call, chunk});
}
}  // namespace

Plan planMode(const TransferParams& p, TransferMode mode) {
  const TransferModeInfo& info = transferMode(mode);
  Plan plan;
  plan.label = info.label;
  plan.pinned = info.pinned;
  const size_t n = static_cast<size_t>(std::max(p.n, 0LL));
  const int calls = std::max(p.calls, 1);
  if (info.streams) {
    plan.streams = std::max(p.streams, 1);
    const size_t chunks = static_cast<size_t>(plan.streams) * std::max(p.chunksPerStream, 1);
    const size_t chunk = (n + chunks - 1) / chunks;
    for (int c = 0; c < calls; ++c) {
      for (size_t k = 0; k < chunks; ++k) {
        const size_t off = k * chunk;
        if (off >= n) break;
        const size_t count = std::min(chunk, n - off);
        const int s = static_cast<int>(k % plan.streams);
        const int ck = static_cast<int>(k);
        addInputs(plan, p, s, off, count, c, ck);
        plan.steps.push_back({s, SpanKind::Kernel, Buffer::Out, off, count, c, ck});
        plan.steps.push_back({s, SpanKind::DeviceToHost, Buffer::Out, off, count, c, ck});
      }
    }
    return plan;
  }
  if (info.resident) {
    addInputs(plan, p, 0, 0, n, 0, 0);
    for (int c = 0; c < calls; ++c)
      plan.steps.push_back({0, SpanKind::Kernel, Buffer::Out, 0, n, c, 0});
    plan.steps.push_back({0, SpanKind::DeviceToHost, Buffer::Out, 0, n, calls - 1, 0});
    return plan;
  }
  for (int c = 0; c < calls; ++c) {
    addInputs(plan, p, 0, 0, n, c, 0);
    plan.steps.push_back({0, SpanKind::Kernel, Buffer::Out, 0, n, c, 0});
    plan.steps.push_back({0, SpanKind::DeviceToHost, Buffer::Out, 0, n, c, 0});
  }
  return plan;
}

Plan planChain(const TransferParams& p, bool roundTrips) {
  Plan plan;
  plan.label = roundTrips ? "round trips" : "on the device";
  const size_t n = static_cast<size_t>(std::max(p.n, 0LL));
  const int k = std::max(p.chain, 1);
  auto kernel = [&](int j) {
    PlanStep s{0, SpanKind::Kernel, Buffer::Out, 0, n, j, 0};
    s.chainStep = j;
    plan.steps.push_back(s);
  };
  if (!roundTrips) {
    plan.steps.push_back({0, SpanKind::HostToDevice, Buffer::X, 0, n, 0, 0});
    for (int j = 0; j < k; ++j)
      kernel(j);
    plan.steps.push_back({0, SpanKind::DeviceToHost, Buffer::Out, 0, n, k - 1, 0});
    return plan;
  }
  for (int j = 0; j < k; ++j) {
    // The first kernel reads x; each later one reads what the previous one left in the host's
    // output array, copied back in: the round trip the course warns about.
    PlanStep in{0, SpanKind::HostToDevice, j == 0 ? Buffer::X : Buffer::Out, 0, n, j, 0};
    in.fromHostOut = j > 0;
    plan.steps.push_back(in);
    kernel(j);
    plan.steps.push_back({0, SpanKind::DeviceToHost, Buffer::Out, 0, n, j, 0});
  }
  return plan;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Timelines
// ---------------------------------------------------------------------------------------------

namespace {
using Interval = std::pair<double, double>;
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}
}  // namespace

std::array<double, 3> Timeline::phaseMs() const {
  std::array<double, 3> t{0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    std::vector<Interval> v;
    for (const Span& s : spans)
      if (static_cast<int>(s.kind) == k) v.push_back({s.startMs, s.endMs});
    for (const Interval& i : merged(std::move(v)))
      t[static_cast<size_t>(k)] += i.second - i.first;
  }
  return t;
}

double Timeline::overlapMs() const {
  std::vector<Interval> copies, kernels;
  for (const Span& s : spans)
    (s.kind == SpanKind::Kernel ? kernels : copies).push_back({s.startMs, s.endMs});
  const std::vector<Interval> a = merged(copies), b = merged(kernels);
  double total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return total;
}

bool overlapsWithinStream(const Timeline& t, double toleranceMs) {
  for (int s = 0; s < t.streams; ++s) {
    std::vector<Interval> v;
    for (const Span& sp : t.spans)
      if (sp.stream == s) v.push_back({sp.startMs, sp.endMs});
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i)
      if (v[i].first < v[i - 1].second - toleranceMs) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Model
// ---------------------------------------------------------------------------------------------

LinkModel referenceLink() {
  LinkModel m;
  m.source = N_(
      "model: copy bandwidths measured on an NVIDIA H200 on 2026-11-21, FP32 from its datasheet");
  m.h2dPinnedGBps = 55.5;
  m.d2hPinnedGBps = 55.5;
  m.h2dPageableGBps = 10.0;
  m.d2hPageableGBps = 18.0;
  m.deviceGBps = 4247;
  m.fp32Gflops = 66900;
  m.copyLatencyUs = 10;
  m.launchUs = 4;
  return m;
}

double modelCopyMs(const LinkModel& m, double bytes, bool h2d, bool pinned) {
  const double gbps = h2d ? (pinned ? m.h2dPinnedGBps : m.h2dPageableGBps)
                          : (pinned ? m.d2hPinnedGBps : m.d2hPageableGBps);
  return m.copyLatencyUs * 1e-3 + (gbps > 0 ? bytes / (gbps * 1e6) : 0);
}

double modelKernelMs(const LinkModel& m, double bytes, double flops) {
  const double memory = m.deviceGBps > 0 ? bytes / (m.deviceGBps * 1e6) : 0;
  const double compute = m.fp32Gflops > 0 ? flops / (m.fp32Gflops * 1e6) : 0;
  return m.launchUs * 1e-3 + std::max(memory, compute);
}

namespace {
double stepBytes(const TransferParams& p, const PlanStep& s) {
  if (s.kind != SpanKind::Kernel) return double(s.count) * kFloat;
  const int a = s.chainStep >= 0 ? 2 : transferOp(p.op).inputs + 1;
  return double(a) * double(s.count) * kFloat;
}
double stepFlops(const TransferParams& p, const PlanStep& s) {
  if (s.kind != SpanKind::Kernel) return 0;
  return double(s.count) * (s.chainStep >= 0 ? 1.0 : flopsPerElement(p.op, p.work));
}
}  // namespace

Timeline simulate(const Plan& plan, const TransferParams& p, const LinkModel& m) {
  Timeline t;
  t.streams = plan.streams;
  std::vector<double> streamReady(static_cast<size_t>(std::max(plan.streams, 1)), 0.0);
  double engineFree[3] = {0, 0, 0};  // host-to-device engine, the GPU, device-to-host engine
  double hostReady = 0;              // pageable copies hold the host until they finish
  for (const PlanStep& s : plan.steps) {
    const int e = static_cast<int>(s.kind);
    const double bytes = stepBytes(p, s);
    const double ms = s.kind == SpanKind::Kernel
                          ? modelKernelMs(m, bytes, stepFlops(p, s))
                          : modelCopyMs(m, bytes, s.kind == SpanKind::HostToDevice, plan.pinned);
    double& ready = streamReady[static_cast<size_t>(s.stream)];
    double start = std::max({ready, engineFree[e], hostReady});
    const bool blocking = s.kind != SpanKind::Kernel && !plan.pinned;
    if (blocking) start = std::max({start, engineFree[0], engineFree[1], engineFree[2]});
    const double end = start + ms;
    ready = end;
    engineFree[e] = end;
    if (blocking) hostReady = end;
    t.spans.push_back({s.stream, s.kind, start, end, bytes, s.call, s.chunk});
    t.wallMs = std::max(t.wallMs, end);
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] CPU
// ---------------------------------------------------------------------------------------------

double referenceOp(TransferOp op, float x, float y, int work) {
  const double dx = x, dy = y;
  switch (op) {
    case TransferOp::Double:
      return 2.0 * dx;
    case TransferOp::Axpy:
      return double(kAxpyA) * dx + dy;
    case TransferOp::Hypot:
      return std::hypot(dx, dy);
    case TransferOp::Iterate: {
      double v = dx;
      for (int i = 0; i < work; ++i)
        v = v * dx + double(kIterateC);
      return v;
    }
  }
  return 0;
}

double referenceChain(int step, double v) {
  switch (step % 3) {
    case 0:
      return v * 2.0;
    case 1:
      return v + 1.0;
    default:
      return v * v;
  }
}

float hostOp(TransferOp op, float x, float y, int work) {
  switch (op) {
    case TransferOp::Double:
      return 2.0f * x;
    case TransferOp::Axpy:
      return std::fma(kAxpyA, x, y);
    case TransferOp::Hypot:
      return std::hypot(x, y);
    case TransferOp::Iterate: {
      float v = x;
      for (int i = 0; i < work; ++i)
        v = std::fma(v, x, kIterateC);
      return v;
    }
  }
  return 0;
}

double tolerance(TransferOp op, int work) {
  constexpr double eps = 5.96e-8;  // half a float32 ULP at 1: one correctly rounded operation
  switch (op) {
    case TransferOp::Double:
      return eps;  // exact in fact; the bound only allows for a different rounding mode
    case TransferOp::Axpy:
      return 4 * eps;
    case TransferOp::Hypot:
      return 8 * eps;  // CUDA's hypotf: 2 ULP (CUDA Programming Guide, mathematical functions)
    case TransferOp::Iterate:
      // Each step rounds once (relative eps); with x close to 1 the errors add up instead of
      // shrinking, at most one eps per step.
      return (4.0 + 2.0 * std::max(work, 0)) * eps;
  }
  return eps;
}

size_t checkStride(TransferOp op, int work, size_t n) {
  const double cost = double(n) * (op == TransferOp::Iterate ? std::max(work, 1) : 1);
  constexpr double kBudget = double(1u << 28);
  return cost <= kBudget ? 1 : static_cast<size_t>(std::ceil(cost / kBudget));
}

namespace {
// Elements [lo, hi) of the comparison, on one thread.
template <class Ref>
Correctness compareRange(const float* out, size_t n, size_t lo, size_t hi, size_t stride,
                         double tol, const Ref& ref) {
  Correctness c;
  for (size_t i = lo; i < hi; ++i) {
    if (stride > 1 && i >= kCheckEdge && i + kCheckEdge < n && i % stride != 0) continue;
    ++c.checked;
    const double r = ref(i);
    const double got = out[i];
    const double abs = std::fabs(got - r);
    const double rel = abs / std::max(std::fabs(r), 1e-30);
    if (!(rel <= tol)) {  // NaN (the poison) fails too
      if (c.wrong == 0) c.firstWrong = i;
      ++c.wrong;
    }
    if (std::isfinite(abs)) {
      c.maxAbsError = std::max(c.maxAbsError, abs);
      c.maxRelError = std::max(c.maxRelError, rel);
    } else {
      c.maxAbsError = c.maxRelError = std::numeric_limits<double>::infinity();
    }
  }
  return c;
}

// The comparison on every core (a float64 reference of 2^28 elements takes seconds on one).
template <class Ref>
Correctness compare(const float* out, size_t n, size_t stride, double tol, const Ref& ref) {
  const size_t threads =
      n < (1u << 16) ? 1 : std::max<size_t>(1, std::thread::hardware_concurrency());
  std::vector<Correctness> part(threads);
  {
    std::vector<std::jthread> pool;
    const size_t per = (n + threads - 1) / threads;
    for (size_t t = 0; t < threads; ++t) {
      const size_t lo = std::min(n, t * per), hi = std::min(n, lo + per);
      pool.emplace_back(
          [&, t, lo, hi] { part[t] = compareRange(out, n, lo, hi, stride, tol, ref); });
    }
  }
  Correctness c;
  c.ran = true;
  for (const Correctness& p : part) {  // in index order, so the first wrong one is found first
    if (p.wrong > 0 && c.wrong == 0) c.firstWrong = p.firstWrong;
    c.checked += p.checked;
    c.wrong += p.wrong;
    c.maxAbsError = std::max(c.maxAbsError, p.maxAbsError);
    c.maxRelError = std::max(c.maxRelError, p.maxRelError);
  }
  return c;
}
}  // namespace

Correctness checkOp(TransferOp op, int work, const float* x, const float* y, const float* out,
                    size_t n) {
  return compare(out, n, checkStride(op, work, n), tolerance(op, work),
                 [&](size_t i) { return referenceOp(op, x[i], y ? y[i] : 0.0f, work); });
}

Correctness checkChain(int k, const float* x, const float* out, size_t n) {
  // Squaring doubles the relative error each time baz runs; k <= 8 keeps this well below 1e-5.
  const double tol = 1e-5;
  return compare(out, n, 1, tol, [&](size_t i) {
    double v = x[i];
    for (int j = 0; j < k; ++j)
      v = referenceChain(j, v);
    return v;
  });
}

namespace {
void hostRange(const TransferParams& p, const float* x, const float* y, float* out, size_t lo,
               size_t hi) {
  switch (p.op) {
    case TransferOp::Double:
      for (size_t i = lo; i < hi; ++i)
        out[i] = 2.0f * x[i];
      break;
    case TransferOp::Axpy:
      for (size_t i = lo; i < hi; ++i)
        out[i] = kAxpyA * x[i] + y[i];
      break;
    case TransferOp::Hypot:
      for (size_t i = lo; i < hi; ++i)
        out[i] = std::sqrt(x[i] * x[i] + y[i] * y[i]);
      break;
    case TransferOp::Iterate:
      // A plain multiply and add (the GPU fuses them): std::fma may be a library call here.
      for (size_t i = lo; i < hi; ++i) {
        const float xi = x[i];
        float v = xi;
        for (int k = 0; k < p.work; ++k)
          v = v * xi + kIterateC;
        out[i] = v;
      }
      break;
  }
}
double medianOf(std::vector<double> v) {
  PhaseStats s;
  s.samplesMs = std::move(v);
  summarize(s);
  return s.medianMs;
}
}  // namespace

Result<CpuTiming> timeCpu(const TransferParams& p, const float* x, const float* y, float* out,
                          int runs, const std::atomic<bool>* cancel) {
  if (!x || !out || (transferOp(p.op).inputs > 1 && !y))
    return Status::error("timeCpu: missing input or output array.");
  using Clock = std::chrono::steady_clock;
  const size_t n = static_cast<size_t>(p.n);
  runs = std::max(runs, 1);
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  auto cancelled = [cancel] { return cancel && cancel->load(); };

  CpuTiming t;
  // One run on one thread should take a fraction of a second (2^26 simple operations): beyond
  // that (the iterate kernel with much work at large N) time the first elements only and scale,
  // since the CPU's time is linear in N.
  const double perElement = p.op == TransferOp::Iterate ? std::max(p.work, 1) : 1;
  const size_t timed =
      std::min(n, std::max<size_t>(kCheckEdge, static_cast<size_t>(double(1u << 26) / perElement)));
  const double scale = double(n) / double(timed);
  t.timedElements = timed;
  std::vector<double> one, all;
  for (int r = 0; r < runs; ++r) {
    if (cancelled()) return Status::error(N_("Measurement cancelled."));
    const auto a = Clock::now();
    hostRange(p, x, y, out, 0, timed);
    one.push_back(ms(a, Clock::now()));
  }

  // All cores: a pool started once, so each timed run costs two barrier crossings rather than
  // starting threads (which would make the CPU look slower than it is for small N).
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  t.threads = threads;
  std::barrier start(threads), done(threads);
  std::atomic<bool> stop{false};
  auto slice = [&](int w) {
    const size_t per = (timed + threads - 1) / threads;
    const size_t lo = std::min(timed, per * static_cast<size_t>(w)), hi = std::min(timed, lo + per);
    hostRange(p, x, y, out, lo, hi);
  };
  std::vector<std::jthread> pool;
  for (int w = 1; w < threads; ++w) {
    pool.emplace_back([&, w] {
      for (int r = 0; r < runs; ++r) {
        start.arrive_and_wait();
        if (!stop.load()) slice(w);
        done.arrive_and_wait();
      }
    });
  }
  for (int r = 0; r < runs; ++r) {
    if (cancelled()) stop = true;
    const auto a = Clock::now();
    start.arrive_and_wait();
    if (!stop.load()) slice(0);
    done.arrive_and_wait();
    all.push_back(ms(a, Clock::now()));
  }
  pool.clear();  // joins
  if (stop.load()) return Status::error(N_("Measurement cancelled."));

  const double calls = std::max(p.calls, 1);
  t.oneThreadMs = medianOf(one) * calls * scale;
  t.allCoresMs = medianOf(all) * calls * scale;
  t.check = checkOp(p.op, p.work, x, y, out, timed);
  return t;
}

std::optional<double> findCrossover(const std::vector<double>& ns, const std::vector<double>& gpuMs,
                                    const std::vector<double>& cpuMs) {
  const size_t n = std::min({ns.size(), gpuMs.size(), cpuMs.size()});
  auto valid = [](double v) { return std::isfinite(v) && v > 0; };
  auto faster = [&](size_t i) {
    return valid(gpuMs[i]) && valid(cpuMs[i]) && valid(ns[i]) && gpuMs[i] < cpuMs[i];
  };
  if (n == 0 || !faster(n - 1)) return std::nullopt;
  size_t j = n - 1;
  while (j > 0 && faster(j - 1))
    --j;
  if (j == 0) return ns[0];
  // Interpolate log(gpu / cpu) = 0 between sizes j-1 (GPU not faster) and j (faster).
  const size_t i = j - 1;
  if (!valid(gpuMs[i]) || !valid(cpuMs[i]) || !valid(ns[i])) return ns[j];
  const double r0 = std::log(gpuMs[i] / cpuMs[i]);  // >= 0
  const double r1 = std::log(gpuMs[j] / cpuMs[j]);  // < 0
  const double f = r0 / (r0 - r1);
  return std::exp(std::log(ns[i]) + f * (std::log(ns[j]) - std::log(ns[i])));
}

void fillRandom(float* x, size_t n, unsigned seed) {
  // A counter-based generator (SplitMix64 of the index), so filling 2^28 numbers is fast and the
  // same seed gives the same array however it is split.
  for (size_t i = 0; i < n; ++i) {
    std::uint64_t z = (std::uint64_t(seed) << 40) + i + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[i] = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);  // 24 random bits: [0, 1)
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] GPU: the PCIe link's arithmetic (the sysfs reading is in transfers.cu)
// ---------------------------------------------------------------------------------------------

double PcieLink::gbpsPerDirection() const {
  // Gen 1-2 send 10 bits per byte (8b/10b); gen 3-5 130 bits per 128 (128b/130b); gen 6 uses
  // 256-byte FLITs carrying 242 bytes of data.
  double efficiency = 128.0 / 130.0;
  if (generation <= 2) efficiency = 0.8;
  if (generation >= 6) efficiency = 242.0 / 256.0;
  return gtPerSecond * width * efficiency / 8.0;
}

std::string PcieLink::describe() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "PCIe %d.0 x%d, %.1f GB/s each way", generation, width,
                gbpsPerDirection());
  return buf;
}

std::optional<PcieLink> parsePcieLink(const std::string& speed, const std::string& width) {
  PcieLink l;
  char* end = nullptr;
  l.gtPerSecond = std::strtod(speed.c_str(), &end);
  if (end == speed.c_str() || speed.find("GT/s") == std::string::npos) return std::nullopt;
  l.width = std::atoi(width.c_str());
  if (l.width <= 0 || l.gtPerSecond <= 0) return std::nullopt;
  const double rates[] = {2.5, 5, 8, 16, 32, 64};
  for (int g = 0; g < 6; ++g)
    if (std::fabs(l.gtPerSecond - rates[g]) < 0.01 * rates[g]) l.generation = g + 1;
  if (l.generation == 0) return std::nullopt;
  return l;
}

}  // namespace cudalab::transfers
