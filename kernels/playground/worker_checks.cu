// The worker's run, per kind of exercise: make the buffers and inputs, time the learner's
// launches, check every element against the CPU reference (worker_run_internal.cuh's index),
// then, when the learner asked to compare, time the built-in lessons' kernel and the library on
// the same problem. Every function returns false when the run failed (out_.error says why); a
// comparison that cannot run is reported in its row.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_transform.cuh>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "launch_config/launch_config.hpp"
#include "playground/worker_run_internal.cuh"
#include "reduction/reduction.hpp"

namespace cudalab::playground::detail {

using namespace launch_config;

namespace {

// The library's versions of the element-wise maps.
struct Twice {
  __device__ float operator()(float x) const { return 2.0f * x; }
};
struct Times {
  __device__ float operator()(float x, float y) const { return x * y; }
};
struct Hypot {
  __device__ float operator()(float x, float y) const { return hypotf(x, y); }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Map: one output element per input element (double, multiply, hypot)
// ---------------------------------------------------------------------------------------------

bool Run::runMap() {
  const Exercise& e = e_;
  const RunParams& p = p_;
  const Inputs& in = in_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  const long long threads = threads_;
  Status s;
  Buffer<float> a, b, c;
  const long long guard = guardElements(p.n, threads);
  if (!(s = a.allocate(p.n, guard, st)) || !(s = c.allocate(p.n, guard, st))) return fail(s);
  if (e.op != MapOp::Double && !(s = b.allocate(p.n, guard, st))) return fail(s);
  if (!(s = a.upload(in.in0, st))) return fail(s);
  if (e.op != MapOp::Double && !(s = b.upload(in.in1, st))) return fail(s);
  float* pa = a.ptr();
  float* pb = b.ptr();
  float* pc = c.ptr();
  std::vector<void*> args;
  for (Arg arg : e.args) {
    switch (arg) {
      case Arg::In0:
        args.push_back(&pa);
        break;
      case Arg::In1:
        args.push_back(&pb);
        break;
      case Arg::Out:
        args.push_back(&pc);
        break;
      default:
        args.push_back(&n_);
        break;
    }
  }
  if (!timeInto(c, args.data())) return false;
  Cells cells;
  cells.init(p.n);
  for (long long i = 0; i < p.n; ++i) {
    const double ref = mapReference(e.op, in.in0[static_cast<size_t>(i)],
                                    e.op == MapOp::Double ? 0.0 : in.in1[static_cast<size_t>(i)]);
    const float got = c.host[static_cast<size_t>(i)];
    ++r.checked;
    if (isPoison(got)) {
      ++r.unwritten, ++r.wrong;
      cells.mark(i, Cell::Unwritten);
      note(r, i, ref, got, true);
      continue;
    }
    const double err = std::fabs(static_cast<double>(got) - ref);
    if (!(err <= mapTolerance(e.op, ref))) {
      ++r.wrong;
      cells.mark(i, Cell::Wrong);
      note(r, i, ref, got, false);
    }
    if (std::isfinite(err)) r.maxAbsError = std::max(r.maxAbsError, err);
  }
  cells.moveInto(r);
  checkGuard(c, r);
  if (!p.compare) return true;
  return compareMap(pa, pb, c);
}

// The built-in kernel (doubling only) and CUB's transform on the same inputs, each output
// compared with the learner's bit for bit.
bool Run::compareMap(float* pa, float* pb, const Buffer<float>& c) {
  const Exercise& e = e_;
  const RunParams& p = p_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  Status s;
  // The built-in kernel and the library on the same inputs, into a second output.
  DeviceArray<float> other;
  if (!(s = other.allocate(static_cast<size_t>(p.n)))) {
    failedComparison(e.library, s);
    return true;
  }
  float* po = other.get();
  auto compareWithLearner = [&](Comparison& cmp) {
    std::vector<float> h(static_cast<size_t>(p.n));
    if (cudaMemcpy(h.data(), po, h.size() * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
      cmp.outputs = Comparison::Outputs::Unreadable;
      return;
    }
    long long differ = 0;
    for (long long i = 0; i < p.n; ++i)
      differ += std::memcmp(&h[static_cast<size_t>(i)], &c.host[static_cast<size_t>(i)], 4) != 0;
    cmp.outputs = differ == 0 ? Comparison::Outputs::Identical : Comparison::Outputs::Differ;
    cmp.differing = differ;
  };
  if (e.op == MapOp::Double) {
    LaunchConfig cfg;
    cfg.n = p.n;
    cfg.threadsPerBlock = 256;
    Result<LaunchShape> shape = shapeFor(cfg, DeviceLimits{});
    if (shape) {
      Comparison cmp{e.builtIn, 0, true};
      std::vector<double> ms;
      s = timeRuns(
          p.runs, st, [&] { return poison(po, p.n, false, st); },
          [&] { return launchDouble(cfg, *shape, pa, po, st); }, ms);
      if (!s) {
        failedComparison(e.builtIn, s);
        return true;
      }
      cmp.ms = medianOf(ms);
      cmp.how = N_("256 threads per block, grid from N");
      compareWithLearner(cmp);
      r.comparisons.push_back(cmp);
    }
  }
  {
    Comparison cmp{e.library, 0, true};
    std::vector<double> ms;
    auto reset = [&] { return poison(po, p.n, false, st); };
    if (e.op == MapOp::Double)
      s = timeRuns(
          p.runs, st, reset,
          [&]() -> Status {
            CUDALAB_CUDA_TRY(cub::DeviceTransform::Transform(pa, po, p.n, Twice{}, st));
            return {};
          },
          ms);
    else if (e.op == MapOp::Multiply)
      s = timeRuns(
          p.runs, st, reset,
          [&]() -> Status {
            CUDALAB_CUDA_TRY(cub::DeviceTransform::Transform(::cuda::std::make_tuple(pa, pb), po,
                                                             p.n, Times{}, st));
            return {};
          },
          ms);
    else
      s = timeRuns(
          p.runs, st, reset,
          [&]() -> Status {
            CUDALAB_CUDA_TRY(cub::DeviceTransform::Transform(::cuda::std::make_tuple(pa, pb), po,
                                                             p.n, Hypot{}, st));
            return {};
          },
          ms);
    if (!s) {
      failedComparison(e.library, s);
      return true;
    }
    cmp.ms = medianOf(ms);
    compareWithLearner(cmp);
    r.comparisons.push_back(cmp);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Counter: every thread adds 1 to one int
// ---------------------------------------------------------------------------------------------

bool Run::runCounter() {
  const RunParams& p = p_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  const long long threads = threads_;
  Status s;
  Buffer<int> c;
  const long long guard = 4096;
  if (!(s = c.allocate(1, guard, st))) return fail(s);
  if (!(s = poison(c.ptr(), c.total(), false, st))) return fail(s);
  int* pc = c.ptr();
  void* args[] = {&pc};
  s = timeRuns(
      p.runs, st,
      [&]() -> Status {
        CUDALAB_CUDA_TRY(cudaMemsetAsync(pc, 0, sizeof(int), st));
        return {};
      },
      [&] { return launch(kernels_[0], args); }, r.kernelMs,
      [&](int) {
        int v = 0;
        if (cudaMemcpy(&v, pc, sizeof v, cudaMemcpyDeviceToHost) == cudaSuccess)
          r.counts.push_back(v);
      });
  if (!s) return runFailed(s);
  phase_("checking");
  if (!(s = c.download(st))) return runFailed(s);
  r.checked = static_cast<long long>(r.counts.size());
  for (size_t i = 0; i < r.counts.size(); ++i)
    if (r.counts[i] != threads) {
      ++r.wrong;
      note(r, static_cast<long long>(i), static_cast<double>(threads),
           static_cast<double>(r.counts[i]), false);
    }
  r.cells = {r.wrong ? Cell::Wrong : Cell::Correct};
  r.cellsWide = 1;
  checkGuard(c, r);
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Histogram: the course's normal numbers in bins
// ---------------------------------------------------------------------------------------------

bool Run::runHistogram() {
  const Exercise& e = e_;
  const RunParams& p = p_;
  const Inputs& in = in_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  const long long threads = threads_;
  Status s;
  Buffer<float> x;
  Buffer<int> h;
  const float xmin = -4.0f, xmax = 4.0f;
  const int bins = p.bins;
  if (!(s = x.allocate(p.n, guardElements(p.n, threads), st)) || !(s = h.allocate(bins, 4096, st)))
    return fail(s);
  if (!(s = x.upload(in.in0, st))) return fail(s);
  if (!(s = poison(h.ptr(), h.total(), false, st))) return fail(s);
  float* px = x.ptr();
  int* ph = h.ptr();
  float lo = xmin, hi = xmax;
  int nb = bins;
  std::vector<void*> args;
  for (Arg arg : e.args) {
    switch (arg) {
      case Arg::In0:
        args.push_back(&px);
        break;
      case Arg::N:
        args.push_back(&n_);
        break;
      case Arg::XMin:
        args.push_back(&lo);
        break;
      case Arg::XMax:
        args.push_back(&hi);
        break;
      case Arg::Hist:
        args.push_back(&ph);
        break;
      default:
        args.push_back(&nb);
        break;
    }
  }
  auto zero = [&]() -> Status {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(ph, 0, sizeof(int) * static_cast<size_t>(bins), st));
    return {};
  };
  s = timeRuns(
      p.runs, st, zero, [&] { return launch(kernels_[0], args.data()); }, r.kernelMs);
  if (!s) return runFailed(s);
  phase_("checking");
  if (!(s = h.download(st))) return runFailed(s);
  const std::vector<int> ref = cpuHistogram(in.in0, xmin, xmax, bins);
  const std::vector<int> slack = histogramSlack(in.in0, xmin, xmax, bins);
  for (int b = 0; b < bins; ++b) {
    const long long got = h.host[static_cast<size_t>(b)];
    r.binsGot.push_back(got);
    r.binsExpected.push_back(ref[static_cast<size_t>(b)]);
    ++r.checked;
    const long long diff = std::llabs(got - ref[static_cast<size_t>(b)]);
    r.maxAbsError = std::max(r.maxAbsError, static_cast<double>(diff));
    const bool wrong = diff > slack[static_cast<size_t>(b)];
    r.cells.push_back(wrong ? Cell::Wrong : Cell::Correct);
    if (wrong) {
      ++r.wrong;
      note(r, b, ref[static_cast<size_t>(b)], static_cast<double>(got), false);
    }
  }
  r.cellsWide = bins;
  checkGuard(h, r);
  if (!p.compare) return true;
  return compareHistogram(px, xmin, xmax, bins);
}

bool Run::compareHistogram(const float* px, float xmin, float xmax, int bins) {
  const Exercise& e = e_;
  const RunParams& p = p_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  const int n = n_;
  Status s;
  // CUB's histogram of the same numbers. It counts x in [xmin, xmax) only, so numbers just
  // below xmin, which the course's truncation puts in bin 0, are not in its bin 0.
  DeviceArray<int> ch;
  if (!(s = ch.allocate(static_cast<size_t>(bins)))) {
    failedComparison(e.library, s);
    return true;
  }
  size_t tempBytes = 0;
  if (cudaError_t err = cub::DeviceHistogram::HistogramEven(nullptr, tempBytes, px, ch.get(),
                                                            bins + 1, xmin, xmax, n, st);
      err != cudaSuccess) {
    failedComparison(e.library, cudaStatus(err, "HistogramEven", __FILE__, __LINE__));
    return true;
  }
  DeviceArray<char> temp;
  if (!(s = temp.allocate(std::max<size_t>(tempBytes, 1)))) {
    failedComparison(e.library, s);
    return true;
  }
  std::vector<double> ms;
  s = timeRuns(
      p.runs, st, [&]() -> Status { return {}; },
      [&]() -> Status {
        CUDALAB_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp.get(), tempBytes, px, ch.get(),
                                                             bins + 1, xmin, xmax, n, st));
        return {};
      },
      ms);
  if (!s) {
    failedComparison(e.library, s);
    return true;
  }
  r.comparisons.push_back({e.library, medianOf(ms), true,
                           N_("the same numbers and bins; CUB counts only xmin <= x < xmax")});
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Elementwise: the learner's f in float and in double
// ---------------------------------------------------------------------------------------------

bool Run::runElementwise() {
  const RunParams& p = p_;
  const Inputs& in = in_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  const long long threads = threads_;
  Status s;
  // f as float, then as double, on the same x.
  Buffer<float> x32, y32;
  Buffer<double> x64, y64;
  const long long guard = guardElements(p.n, threads);
  if (!(s = x32.allocate(p.n, guard, st)) || !(s = y32.allocate(p.n, guard, st)) ||
      !(s = x64.allocate(p.n, guard, st)) || !(s = y64.allocate(p.n, guard, st)))
    return fail(s);
  std::vector<double> xd(in.in0.begin(), in.in0.end());
  if (!(s = x32.upload(in.in0, st)) || !(s = x64.upload(xd, st))) return fail(s);
  float* px32 = x32.ptr();
  float* py32 = y32.ptr();
  double* px64 = x64.ptr();
  double* py64 = y64.ptr();
  void* args32[] = {&px32, &py32, &n_};
  void* args64[] = {&px64, &py64, &n_};
  s = timeRuns(
      p.runs, st, [&] { return poison(py32, y32.total(), false, st); },
      [&] { return launch(kernels_[0], args32); }, r.kernelMs);
  if (!s) return runFailed(s);
  std::vector<double> ms64;
  s = timeRuns(
      p.runs, st, [&] { return poison(py64, y64.total(), true, st); },
      [&] { return launch(kernels_[1], args64); }, ms64);
  if (!s) return runFailed(s);
  phase_("checking");
  if (!(s = y32.download(st)) || !(s = y64.download(st))) return runFailed(s);
  Cells cells;
  cells.init(p.n);
  const long long sampleEvery = std::max<long long>(1, p.n / 400);
  for (long long i = 0; i < p.n; ++i) {
    const size_t k = static_cast<size_t>(i);
    const long double exact = elementwiseExact(static_cast<long double>(in.in0[k]));
    const double ex = static_cast<double>(exact);
    const float g32 = y32.host[k];
    const double g64 = y64.host[k];
    r.checked += 2;
    const bool un = isPoison(g32) || isPoison(g64);
    const double ulp32 = std::ldexp(1.0, std::ilogb(std::max(std::fabs(ex), 1e-300)) - 23);
    const double ulp64 = std::ldexp(1.0, std::ilogb(std::max(std::fabs(ex), 1e-300)) - 52);
    const bool bad32 = !(std::fabs(g32 - ex) <= kElementwiseUlps * ulp32);
    const bool bad64 = !(static_cast<double>(std::fabs(static_cast<long double>(g64) - exact)) <=
                         kElementwiseUlps * ulp64);
    if (un) {
      ++r.unwritten, ++r.wrong;
      cells.mark(i, Cell::Unwritten);
      note(r, i, ex, isPoison(g32) ? g32 : g64, true);
    } else if (bad32 || bad64) {
      r.wrong += bad32 + bad64;
      cells.mark(i, Cell::Wrong);
      note(r, i, ex, bad32 ? g32 : g64, false);
    }
    if (std::isfinite(g32)) r.maxAbsError = std::max(r.maxAbsError, std::fabs(g32 - ex));
    if (i % sampleEvery == 0 || i == p.n - 1)
      r.samples.push_back({static_cast<double>(in.in0[k]), g32, g64, ex});
  }
  cells.moveInto(r);
  checkGuard(y32, r);
  r.comparisons.push_back(
      {N_("your f in double"), medianOf(ms64), true, N_("the same kernel with T = double")});
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Reduce: checked against the exact sum, compared with the reduction lesson's runner
// ---------------------------------------------------------------------------------------------

bool Run::runReduce() {
  const Exercise& e = e_;
  const RunParams& p = p_;
  const Inputs& in = in_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  const long long threads = threads_;
  const Launch& l = l_;
  Status s;
  Buffer<float> x, part;
  if (!(s = x.allocate(p.n, guardElements(p.n, threads), st)) ||
      !(s = part.allocate(l.grid.x, guardElements(l.grid.x, threads), st)))
    return fail(s);
  if (!(s = x.upload(in.in0, st))) return fail(s);
  float* px = x.ptr();
  float* pp = part.ptr();
  void* args[] = {&px, &pp, &n_};
  if (!timeInto(part, args)) return false;
  // The inputs are whole numbers: the exact sum is an integer, and so is every float32 partial
  // sum a correct kernel makes (far below 2^24 in size), so the total must be exact.
  long long exact = 0;
  for (float v : in.in0)
    exact += static_cast<long long>(v);
  double total = 0;
  Cells cells;
  cells.init(l.grid.x);
  for (long long b = 0; b < l.grid.x; ++b) {
    const float v = part.host[static_cast<size_t>(b)];
    if (isPoison(v)) {
      ++r.unwritten;
      cells.mark(b, Cell::Unwritten);
      note(r, b, std::nan(""), v, true);
    } else {
      total += v;
    }
  }
  const double err = std::fabs(total - static_cast<double>(exact));
  r.checked = 1;
  r.maxAbsError = err;
  if (r.unwritten > 0 || !(err == 0)) {
    r.wrong = 1;
    note(r, -1, static_cast<double>(exact), total, false);
  }
  cells.moveInto(r);
  checkGuard(part, r);
  r.exactSum = exact;
  // A partial sum that is infinite or NaN (but not the poison) has no integer to show.
  if (std::isfinite(total) && std::fabs(total) < 4e18) {
    r.sum = std::llround(total);
    r.summary = "Your sum " + thousands(*r.sum) + ", the exact sum " + thousands(exact);
  }
  if (!p.compare) return true;
  reduction::ReduceParams rp;
  rp.type = reduction::DataType::Float32;
  rp.n = p.n;
  rp.runs = std::max(3, std::min(p.runs, 10));
  const reduction::StepId which[] = {reduction::StepId::Atomic, reduction::StepId::Cub};
  Result<reduction::LadderReport> lr = reduction::measureLadder(rp, which);
  if (!lr) {
    failedComparison(e.builtIn, lr.status());
    return true;
  }
  const char* labels[] = {e.builtIn, e.library};
  for (size_t i = 0; i < lr->steps.size(); ++i)
    r.comparisons.push_back({labels[i], lr->steps[i].ms, lr->steps[i].ok,
                             N_("measured by the reduction lesson's runner at the same N")});
  return true;
}

}  // namespace cudalab::playground::detail
