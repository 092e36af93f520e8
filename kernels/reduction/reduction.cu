// The reduction lesson on the GPU: launching each step's passes, CUB, and the measurements.
//
// [SECTION] Launch       a step's kernel for a type and block size, the occupancy limit
// [SECTION] Reducer      the buffers of one step and its passes, poisoned before every run
// [SECTION] Ladder       a Workload per step, measured with common/measurement
// [SECTION] Sweep and the CPU side
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cub/device/device_reduce.cuh>
#include <cstring>
#include <random>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/runtime_info.hpp"
#include "models/arch.hpp"
#include "precision/summation.hpp"
#include "reduction/reduction.hpp"
#include "reduction/reduction_kernels.cuh"

namespace cudalab::reduction {

// ---------------------------------------------------------------------------------------------
// [SECTION] Launch
// ---------------------------------------------------------------------------------------------

namespace {

template <class T>
using KernelFn = void (*)(const T*, T*, long long);

template <class T, unsigned B>
KernelFn<T> templatedKernel(StepId step) {
  using namespace kernels;
  switch (step) {
    case StepId::Unrolled:
      return unrolled<T, B>;
    case StepId::Multiple:
      return multiple<T, B>;
    case StepId::Shuffle:
      return shuffle<T, B>;
    case StepId::Atomic:
      return atomic<T, B>;
    default:
      return nullptr;
  }
}

// The step's kernel for T and the block size (nullptr for the course's kernel and CUB, which are
// called differently, and for a block size no template was made for).
template <class T>
KernelFn<T> kernelFor(StepId step, int block) {
  using namespace kernels;
  switch (step) {
    case StepId::Interleaved:
      return interleaved<T>;
    case StepId::Strided:
      return strided<T>;
    case StepId::Sequential:
      return sequential<T>;
    case StepId::FirstAdd:
      return firstAdd<T>;
    case StepId::UnrollLast:
      return unrollLast<T>;
    case StepId::Unrolled:
    case StepId::Multiple:
    case StepId::Shuffle:
    case StepId::Atomic:
      switch (block) {
        case 64:
          return templatedKernel<T, 64>(step);
        case 128:
          return templatedKernel<T, 128>(step);
        case 256:
          return templatedKernel<T, 256>(step);
        case 512:
          return templatedKernel<T, 512>(step);
        case 1024:
          return templatedKernel<T, 1024>(step);
        default:
          return nullptr;
      }
    case StepId::Course:
    case StepId::Cub:
      return nullptr;
  }
  return nullptr;
}

// Dynamic shared memory: the shared-tree kernels keep one number per thread; the shuffle kernels
// declare their few per-warp slots statically.
template <class T>
std::size_t dynamicShared(StepId step, int block) {
  return stepInfo(step).sharedTree ? std::size_t(block) * sizeof(T) : 0;
}

template <class T>
Result<long long> residentTyped(StepId step, int block) {
  const Shape shape = stepInfo(step).shape;
  if (shape != Shape::GridStride && shape != Shape::Atomic) return 1LL;
  KernelFn<T> k = kernelFor<T>(step, block);
  if (!k) return Status::error("No kernel for a block of " + std::to_string(block) + " threads.");
  int dev = 0, sms = 0, perSM = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&dev));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDALAB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &perSM, reinterpret_cast<const void*>(k), block, dynamicShared<T>(step, block)));
  return std::max(1LL, 1LL * sms * perSM);
}

template <class T>
Status launchPass(StepId step, const T* in, T* out, const Pass& p, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>(p.grid)), block(static_cast<unsigned>(p.block));
  if (step == StepId::Course) {
    kernels::course<T><<<grid, block, 0, s>>>(const_cast<T*>(in), out, p.n);
  } else {
    KernelFn<T> k = kernelFor<T>(step, p.block);
    if (!k)
      return Status::error(std::string(stepInfo(step).label) + " has no kernel for " +
                           std::to_string(p.block) + " threads per block.");
    k<<<grid, block, dynamicShared<T>(step, p.block), s>>>(in, out, p.n);
  }
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

template <class T>
constexpr DataType typeOf() {
  if constexpr (std::is_same_v<T, int>) return DataType::Int32;
  if constexpr (std::is_same_v<T, float>) return DataType::Float32;
  return DataType::Float64;
}

// Calls f with a T of the data type (int, float or double).
template <class F>
decltype(auto) withType(DataType t, F&& f) {
  switch (t) {
    case DataType::Int32:
      return f(int{});
    case DataType::Float32:
      return f(float{});
    case DataType::Float64:
      break;
  }
  return f(double{});
}

}  // namespace

Result<long long> residentBlocks(StepId step, DataType type, int block) {
  return withType(type, [&](auto t) { return residentTyped<decltype(t)>(step, block); });
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Reducer
// ---------------------------------------------------------------------------------------------

namespace {

// A byte no run produces as a whole number: 0x7f7f7f7f is 2139062143 as an int32, 3.4e38 as a
// float32 and 1.4e306 as a float64.
constexpr int kPoisonByte = 0x7f;

// One step's buffers and passes over an input that stays on the device.
class Reducer {
 public:
  Status prepare(StepId step, DataType type, const void* in, long long n, int block) {
    step_ = step;
    type_ = type;
    in_ = in;
    n_ = n;
    const std::size_t b = static_cast<std::size_t>(typeBytes(type));
    Result<long long> resident = residentBlocks(step, type, block);
    if (!resident) return resident.status();
    resident_ = *resident;
    plan_ = passPlan(step, type, n, block, resident_);
    CUDALAB_TRY(out_.allocate(b));
    if (plan_.size() > 1 || step == StepId::Course)
      CUDALAB_TRY(part_[0].allocate(std::size_t(plan_[0].grid) * b));
    if (plan_.size() > 2) CUDALAB_TRY(part_[1].allocate(std::size_t(plan_[1].grid) * b));
    if (step == StepId::Course) CUDALAB_TRY(scratch_.allocate(std::size_t(n) * b));
    if (step == StepId::Cub) {
      CUDALAB_TRY(withType(type, [&](auto t) -> Status {
        using T = decltype(t);
        CUDALAB_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, tempBytes_, static_cast<const T*>(in_),
                                                static_cast<T*>(nullptr), n_));
        return {};
      }));
      CUDALAB_TRY(temp_.allocate(std::max<std::size_t>(tempBytes_, 1)));
    }
    const std::size_t hostCount = step == StepId::Course ? std::size_t(plan_[0].grid) : 1;
    CUDALAB_TRY(host_.allocate(hostCount * b));
    return {};
  }

  Status poison(cudaStream_t s) {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(out_.get(), kPoisonByte, out_.bytes(), s));
    for (DeviceArray<unsigned char>& p : part_)
      if (p.bytes()) CUDALAB_CUDA_TRY(cudaMemsetAsync(p.get(), kPoisonByte, p.bytes(), s));
    // The course's kernel overwrites what it sums: it gets a fresh copy every run.
    if (scratch_.bytes())
      CUDALAB_CUDA_TRY(
          cudaMemcpyAsync(scratch_.get(), in_, scratch_.bytes(), cudaMemcpyDeviceToDevice, s));
    std::memset(host_.get(), kPoisonByte, host_.bytes());
    return {};
  }

  Status run(cudaStream_t s) {
    return withType(type_, [&](auto t) { return runTyped<decltype(t)>(s); });
  }

  Status copyOut(cudaStream_t s) {
    const void* from = step_ == StepId::Course ? part_[0].get() : out_.get();
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(host_.get(), from, host_.bytes(), cudaMemcpyDeviceToHost, s));
    return {};
  }
  double copyOutBytes() const { return static_cast<double>(host_.bytes()); }

  // After the stream has finished: the sum (the course's: the CPU adds the partial sums now).
  double result() {
    const auto t0 = std::chrono::steady_clock::now();
    double v = 0;
    if (step_ != StepId::Course) {
      withType(type_, [&](auto t) {
        using T = decltype(t);
        T x;
        std::memcpy(&x, host_.get(), sizeof x);
        v = static_cast<double>(x);
        return 0;
      });
      return v;
    }
    const std::size_t g = std::size_t(plan_[0].grid);
    switch (type_) {
      case DataType::Float32:
        v = sumNumpyOrder(std::span<const float>{reinterpret_cast<const float*>(host_.get()), g});
        break;
      case DataType::Float64:
        v = sumNumpyOrder(std::span<const double>{reinterpret_cast<const double*>(host_.get()), g});
        break;
      case DataType::Int32: {
        // NumPy sums an int32 array in int64.
        long long sum = 0;
        const auto* p = reinterpret_cast<const std::int32_t*>(host_.get());
        for (std::size_t i = 0; i < g; ++i)
          sum += p[i];
        v = static_cast<double>(sum);
        break;
      }
    }
    lastCpuMs_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return v;
  }

  const std::vector<Pass>& plan() const { return plan_; }
  long long resident() const { return resident_; }
  double lastCpuMs() const { return lastCpuMs_; }

 private:
  template <class T>
  Status runTyped(cudaStream_t s) {
    const T* in = static_cast<const T*>(in_);
    T* out = reinterpret_cast<T*>(out_.get());
    switch (stepInfo(step_).shape) {
      case Shape::Library:
        CUDALAB_CUDA_TRY(cub::DeviceReduce::Sum(temp_.get(), tempBytes_, in, out, n_, s));
        return {};
      case Shape::Course:
        return launchPass<T>(step_, reinterpret_cast<const T*>(scratch_.get()),
                             reinterpret_cast<T*>(part_[0].get()), plan_[0], s);
      case Shape::Atomic:
        // The sum starts at 0, overwriting the poison: a kernel that added nothing would read as
        // 0 here, which the check catches unless the exact sum is 0 (int32, tiny N).
        CUDALAB_CUDA_TRY(cudaMemsetAsync(out, 0, sizeof(T), s));
        return launchPass<T>(step_, in, out, plan_[0], s);
      case Shape::Tree:
      case Shape::GridStride:
        break;
    }
    // Pass k reads what pass k - 1 wrote; the buffers alternate, the last pass writes the sum.
    const T* from = in;
    for (std::size_t k = 0; k < plan_.size(); ++k) {
      T* to = k + 1 == plan_.size() ? out : reinterpret_cast<T*>(part_[k % 2].get());
      CUDALAB_TRY(launchPass<T>(step_, from, to, plan_[k], s));
      from = to;
    }
    return {};
  }

  StepId step_ = StepId::Interleaved;
  DataType type_ = DataType::Float32;
  const void* in_ = nullptr;
  long long n_ = 0;
  long long resident_ = 1;
  std::vector<Pass> plan_;
  DeviceArray<unsigned char> out_, part_[2], scratch_, temp_;
  std::size_t tempBytes_ = 0;
  PinnedArray<unsigned char> host_;
  double lastCpuMs_ = 0;
};

// Whether a step's sum is right: int32 equal to the exact sum wrapped to 32 bits, floats within
// the step's bound. (Only int32 data whose sum leaves the int32 range wraps: the course's kernel
// then differs from the others, its blocks wrapping in int32 and the CPU adding their sums in
// int64 as NumPy does; its low 32 bits still match. The lesson's own data never overflows.)
Correctness check(double value, DataType type, long double exact, double bound) {
  Correctness c;
  c.ran = true;
  c.checked = 1;
  if (type == DataType::Int32) {
    c.maxAbsError = std::fabs(static_cast<double>(static_cast<long double>(value) - exact));
    c.wrong = static_cast<std::int32_t>(static_cast<long long>(value)) == wrapInt32(exact) ? 0 : 1;
  } else {
    const long double err = static_cast<long double>(value) - exact;
    c.maxAbsError = std::fabs(static_cast<double>(err));
    c.wrong = std::isfinite(value) && c.maxAbsError <= bound ? 0 : 1;
  }
  c.maxRelError = exact != 0 ? c.maxAbsError / std::fabs(static_cast<double>(exact)) : 0;
  return c;
}

}  // namespace

Result<double> reduceOnce(StepId step, const HostData& d, int block) {
  CUDALAB_TRY(validateAndFit(ReduceParams{d.type, d.size(), block}));
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<unsigned char> in;
  StreamDrain drain(stream.get());  // after the buffers: the stream finishes before they go
  const std::size_t bytes = std::size_t(d.size()) * std::size_t(typeBytes(d.type));
  CUDALAB_TRY(in.allocate(bytes));
  CUDALAB_CUDA_TRY(
      cudaMemcpyAsync(in.get(), d.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
  Reducer r;
  CUDALAB_TRY(r.prepare(step, d.type, in.get(), d.size(), block));
  CUDALAB_TRY(r.poison(stream.get()));
  CUDALAB_TRY(r.run(stream.get()));
  CUDALAB_TRY(r.copyOut(stream.get()));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  return r.result();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder
// ---------------------------------------------------------------------------------------------

namespace {

class StepWorkload final : public Workload {
 public:
  StepWorkload(StepId step, const ReduceParams& p, const void* in, const CpuSums& cpu)
      : step_(step), p_(p), in_(in), cpu_(cpu) {}

  Status prepare(cudaStream_t) override {
    CUDALAB_TRY(r_.prepare(step_, p_.type, in_, p_.n, p_.block));
    bound_ = errorBound(step_, p_.type, p_.n, p_.block, r_.resident(), cpu_.absSum);
    return {};
  }
  Status poison(cudaStream_t s) override { return r_.poison(s); }
  Status copyIn(cudaStream_t) override { return {}; }  // the input stays on the device
  Status launch(cudaStream_t s) override { return r_.run(s); }
  Status copyOut(cudaStream_t s) override { return r_.copyOut(s); }
  Result<Correctness> verify() override {
    value_ = r_.result();
    if (step_ == StepId::Course) cpuMs_.push_back(r_.lastCpuMs());
    return check(value_, p_.type, cpu_.exact, bound_);
  }
  double kernelBytes() const override { return double(p_.n) * typeBytes(p_.type); }
  double h2dBytes() const override { return 0; }
  double d2hBytes() const override { return r_.copyOutBytes(); }

  double value() const { return value_; }
  double bound() const { return bound_; }
  const Reducer& reducer() const { return r_; }
  double cpuFinishMs() const {
    if (cpuMs_.empty()) return 0;
    std::vector<double> v = cpuMs_;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }

 private:
  StepId step_;
  ReduceParams p_;
  const void* in_;
  const CpuSums& cpu_;
  Reducer r_;
  double value_ = 0, bound_ = 0;
  std::vector<double> cpuMs_;
};

double theoreticalBandwidth(int dev) {
  int memClock = 0, bus = 0;
  if (cudaDeviceGetAttribute(&memClock, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess)
    return 0;
  const Peak peak = memoryBandwidthPeak(memClock, bus);
  return peak.known ? peak.value : 0;
}

// Measures the steps on data already on the device.
Result<std::vector<StepResult>> runSteps(const ReduceParams& p, std::span<const StepId> which,
                                         const void* dIn, const CpuSums& cpu, cudaStream_t stream,
                                         const std::atomic<bool>* cancel,
                                         const Progress& progress) {
  std::vector<StepResult> out;
  for (std::size_t i = 0; i < which.size(); ++i) {
    if (cancel && cancel->load()) return Status::error("Measurement cancelled.");
    const StepInfo& s = stepInfo(which[i]);
    if (progress) progress(float(i) / float(which.size()), s.label);
    StepWorkload w(s.id, p, dIn, cpu);
    Result<Measurement> m = measure(w, MeasureOptions{p.warmup, p.runs, true}, cancel, stream);
    if (!m) {
      cudaStreamSynchronize(stream);  // the workload's buffers are freed next
      return m.status();
    }
    StepResult r;
    r.step = s.id;
    r.m = *m;
    r.ms = m->kernel().medianMs;
    if (s.id == StepId::Course) {
      r.cpuFinishMs = m->phase(Phase::DeviceToHost).medianMs + w.cpuFinishMs();
      r.ms += r.cpuFinishMs;
    }
    r.gbps = r.ms > 0 ? double(p.n) * typeBytes(p.type) / (r.ms * 1e6) : 0;
    r.value = w.value();
    r.error = static_cast<double>(static_cast<long double>(w.value()) - cpu.exact);
    r.bound = w.bound();
    r.plan = describePlan(w.reducer().plan());
    r.residentBlocks = w.reducer().resident();
    r.ok = m->check.ok();
    out.push_back(std::move(r));
  }
  return out;
}

void fillRatios(LadderReport& report) {
  const StepResult* first = report.find(StepId::Interleaved);
  const StepResult* cub = report.find(StepId::Cub);
  const StepResult* previous = nullptr;
  for (StepResult& r : report.steps) {
    const StepInfo& s = stepInfo(r.step);
    if (first && r.ms > 0) r.totalSpeedup = first->ms / r.ms;
    if (cub && cub->gbps > 0) r.ofLibrary = r.gbps / cub->gbps;
    if (report.peakGBps > 0) r.ofPeak = r.gbps / report.peakGBps;
    // The step speedup follows the ladder: each rung over the one before it. The course's kernel
    // and CUB stand beside the ladder, not on it.
    const bool rung = handWritten(s) && s.id != StepId::Course;
    if (rung) {
      if (previous && r.ms > 0) r.stepSpeedup = previous->ms / r.ms;
      previous = &r;
    }
  }
}

}  // namespace

Result<LadderReport> measureLadder(const ReduceParams& p, std::span<const StepId> which,
                                   const std::atomic<bool>* cancel, const Progress& progress) {
  CUDALAB_TRY(validateAndFit(p));
  LadderReport report;
  report.p = p;
  report.device = currentDeviceName();
  int dev = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&dev));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&report.sms, cudaDevAttrMultiProcessorCount, dev));
  report.peakGBps = theoreticalBandwidth(dev);

  if (progress) progress(0, N_("random numbers, exact sum"));
  const HostData data = makeData(p.type, p.n, std::random_device{}(), cancel);
  if (cancel && cancel->load()) return Status::error("Measurement cancelled.");
  report.cpu = cpuSums(data);
  if (cancel && cancel->load()) return Status::error("Measurement cancelled.");

  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<unsigned char> in;
  StreamDrain drain(stream.get());  // after the buffers: the stream finishes before they go
  const std::size_t bytes = std::size_t(p.n) * std::size_t(typeBytes(p.type));
  CUDALAB_TRY(in.allocate(bytes));
  CUDALAB_CUDA_TRY(
      cudaMemcpyAsync(in.get(), data.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
  Progress inner;
  if (progress) inner = [&](float f, const std::string& what) { progress(0.1f + 0.9f * f, what); };
  Result<std::vector<StepResult>> steps =
      runSteps(p, which, in.get(), report.cpu, stream.get(), cancel, inner);
  if (!steps) return steps.status();
  report.steps = std::move(*steps);
  fillRatios(report);
  if (progress) progress(1, N_("done"));
  return report;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Sweep and the CPU side
// ---------------------------------------------------------------------------------------------

std::vector<long long> defaultSweepSizes() {
  std::vector<long long> sizes;
  for (int e = 10; e <= 28; e += 2)
    sizes.push_back(1LL << e);
  return sizes;
}

SweepRun<SweepPoint> measureSweep(DataType type, int block, std::span<const long long> sizes,
                                  std::span<const StepId> which, const std::atomic<bool>* cancel,
                                  const Progress& progress) {
  SweepRun<SweepPoint> run;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const float lo = float(i) / float(sizes.size()), span = 1.0f / float(sizes.size());
    Progress inner;
    if (progress)
      inner = [&](float f, const std::string& what) {
        progress(lo + f * span,
                 Phrase{N_("N = %s: %s"), {std::to_string(sizes[i]), what}}.packed());
      };
    Result<LadderReport> r =
        measureLadder(ReduceParams{type, sizes[i], block, 1, 5}, which, cancel, inner);
    if (!r) {  // the Reducer has freed its buffers: the memory is as it was
      run.stopped = sweepStopped("N = " + std::to_string(sizes[i]), r.status(), run.points.size());
      break;
    }
    for (const StepResult& s : r->steps)
      run.points.push_back({sizes[i], s.step, s.gbps, s.ok});
  }
  return run;
}

Result<CpuReport> measureCpu(const ReduceParams& p, const std::atomic<bool>* cancel,
                             const Progress& progress) {
  CUDALAB_TRY(validate(p));
  CpuReport r;
  r.p = p;
  if (progress) progress(0.05f, N_("random numbers"));
  const HostData data = makeData(p.type, p.n, std::random_device{}(), cancel);
  if (cancel && cancel->load()) return Status::error("Measurement cancelled.");
  if (progress) progress(0.5f, N_("exact and CPU sums"));
  r.cpu = cpuSums(data);
  if (progress) progress(1, N_("done"));
  return r;
}

}  // namespace cudalab::reduction
