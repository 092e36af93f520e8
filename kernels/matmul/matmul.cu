// The matmul lesson on the GPU: launching each step, cuBLAS, and the measurements.
//
// [SECTION] Launch         one hand-written step, its shape read from the step table
// [SECTION] cuBLAS         SGEMM, TF32 GEMM and DGEMM on row-major matrices
// [SECTION] Ladder         a Workload per step, measured with common/measurement
// [SECTION] Sweep, ceilings and the course's comparison
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "common/cuda_check.hpp"
#include "common/cublas_handle.hpp"
#include "common/cuda_raii.hpp"
#include "common/runtime_info.hpp"
#include "common/translatable.hpp"
#include "device/device_bandwidth.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_kernels.cuh"
#include "models/arch.hpp"
#include "precision/throughput.hpp"

namespace cudalab::matmul {

using namespace device;

// ---------------------------------------------------------------------------------------------
// [SECTION] Launch
// ---------------------------------------------------------------------------------------------

namespace {

template <class T>
constexpr Precision precisionOf() {
  return sizeof(T) == 8 ? Precision::Float64 : Precision::Float32;
}

template <class T>
using StepKernel = void (*)(const T*, const T*, T*, int, int, int);

// The kernel of a hand-written step in precision T (with float4 loads when `vec`), or nullptr when
// the step has none in T.
template <class T>
StepKernel<T> kernelFor(StepId step, bool vec) {
  using namespace kernels;
  if constexpr (sizeof(T) == 8) {
    switch (step) {
      case StepId::Naive64:
        return naiveCourse<T>;
      case StepId::Tiled64:
        return tiled<T, 16>;
      default:
        return nullptr;
    }
  } else {
    using B1 = Blocked1D;
    using B2 = Blocked2D;
    switch (step) {
      case StepId::Naive:
        return naiveCourse<T>;
      case StepId::Swapped:
        return naiveSwapped<T>;
      case StepId::Tiled8:
        return tiled<T, 8>;
      case StepId::Tiled16:
        return tiled<T, 16>;
      case StepId::Tiled32:
        return tiled<T, 32>;
      case StepId::Reg1D:
        return blocked1d<B1::BM, B1::BN, B1::BK, B1::TM>;
      case StepId::Reg2D:
        return blocked2d<B2::BM, B2::BN, B2::BK, B2::TM, B2::TN>;
      case StepId::Vec4:
        return vec ? vectorised<B2::BM, B2::BN, B2::BK, B2::TM, B2::TN, true>
                   : vectorised<B2::BM, B2::BN, B2::BK, B2::TM, B2::TN, false>;
      case StepId::Warp:
        return vec ? warpTiled<WarpConfig, true> : warpTiled<WarpConfig, false>;
      default:
        return nullptr;
    }
  }
}

template <class T>
Status launchTyped(StepId step, const T* A, const T* B, T* C, int M, int N, int K, cudaStream_t s) {
  const StepInfo& info = stepInfo(step);
  if (info.family == Family::Library)
    return Status::error(std::string(info.label) + " is a cuBLAS call, not a kernel of ours.");
  if (info.precision != precisionOf<T>())
    return Status::error(std::string(info.label) + " works in " + precisionLabel(info.precision) +
                         ", not " + precisionLabel(precisionOf<T>()) + ".");
  CUDALAB_TRY(validate(MatmulParams{M, N, K}));
  const StepLaunch c = stepLaunch(info, M, N, K);
  const dim3 grid(static_cast<unsigned>(c.gridX), static_cast<unsigned>(c.gridY));
  const dim3 block(static_cast<unsigned>(c.blockX), static_cast<unsigned>(c.blockY));
  const StepKernel<T> kernel = kernelFor<T>(step, K % 4 == 0 && N % 4 == 0);
  if (!kernel) return Status::error(std::string("No kernel for ") + info.label + ".");
  kernel<<<grid, block, 0, s>>>(A, B, C, M, N, K);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

}  // namespace

Status launchStep(StepId step, const float* A, const float* B, float* C, int M, int N, int K,
                  cudaStream_t stream) {
  return launchTyped(step, A, B, C, M, N, K, stream);
}

Status launchStep(StepId step, const double* A, const double* B, double* C, int M, int N, int K,
                  cudaStream_t stream) {
  return launchTyped(step, A, B, C, M, N, K, stream);
}

Result<int> blocksPerSM(StepId step, int M, int N, int K) {
  const StepInfo& info = stepInfo(step);
  const bool vec = K % 4 == 0 && N % 4 == 0;
  const void* k = info.precision == Precision::Float64
                      ? reinterpret_cast<const void*>(kernelFor<double>(step, vec))
                      : reinterpret_cast<const void*>(kernelFor<float>(step, vec));
  if (!k) return Status::error(std::string(info.label) + " has no kernel of ours.");
  int blocks = 0;
  CUDALAB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, k, stepLaunch(info, M, N, K).threadsPerBlock(), 0));
  return blocks;
}

BlockLimits deviceBlockLimits() {
  BlockLimits l;
  int dev = 0, threads = 0, shared = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return l;
  if (cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, dev) == cudaSuccess)
    l.maxThreadsPerBlock = threads;
  if (cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, dev) == cudaSuccess)
    l.sharedPerBlock = shared;
  return l;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] cuBLAS
// ---------------------------------------------------------------------------------------------

namespace {

// cuBLAS is column-major. A row-major M x N matrix is a column-major N x M one, so row-major
// C = A B is column-major C^T = B^T A^T: pass B first, with the dimensions swapped.
Status runLibrary(StepId step, cublasHandle_t h, const void* A, const void* B, void* C, int M,
                  int N, int K) {
  switch (step) {
    case StepId::Cublas: {
      const float one = 1, zero = 0;
      CUDALAB_CUBLAS_TRY(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                                     static_cast<const float*>(B), N, static_cast<const float*>(A),
                                     K, &zero, static_cast<float*>(C), N));
      return {};
    }
    case StepId::CublasTf32: {
      const float one = 1, zero = 0;
      CUDALAB_CUBLAS_TRY(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_32F, N,
                                      A, CUDA_R_32F, K, &zero, C, CUDA_R_32F, N,
                                      CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
      return {};
    }
    case StepId::Cublas64: {
      const double one = 1, zero = 0;
      CUDALAB_CUBLAS_TRY(
          cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, static_cast<const double*>(B), N,
                      static_cast<const double*>(A), K, &zero, static_cast<double*>(C), N));
      return {};
    }
    default:
      return Status::error("Not a cuBLAS step.");
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder
// ---------------------------------------------------------------------------------------------

// A and B (float32, and the same values widened to float64) live on the device for every step;
// each step writes C, which is poisoned with NaN before every run and compared with the float64
// reference after.
class LadderWorkload final : public Workload {
 public:
  LadderWorkload(const MatmulParams& p, std::vector<float> a, std::vector<float> b)
      : p_(p), a_(std::move(a)), b_(std::move(b)) {}
  void setStep(StepId s) { step_ = s; }
  void setHandle(cublasHandle_t h) { handle_ = h; }
  bool wide() const { return stepInfo(step_).precision == Precision::Float64; }
  const float* lastC32() const { return hC_.get(); }
  Status prepare(cudaStream_t stream) override {
    if (dA_.get()) return {};  // shared by every step
    const std::size_t na = std::size_t(p_.M) * p_.K, nb = std::size_t(p_.K) * p_.N,
                      nc = std::size_t(p_.M) * p_.N;
    CUDALAB_TRY(dA_.allocate(na));
    CUDALAB_TRY(dB_.allocate(nb));
    CUDALAB_TRY(dC_.allocate(nc));
    CUDALAB_TRY(hC_.allocate(nc));
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(dA_.get(), a_.data(), na * 4, cudaMemcpyHostToDevice, stream));
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(dB_.get(), b_.data(), nb * 4, cudaMemcpyHostToDevice, stream));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
    ref_ = referenceProduct(a_.data(), b_.data(), p_.M, p_.N, p_.K, checkedRows(p_.M, p_.N));
    return {};
  }
  // The float64 copies are made on first use, so a float32-only run never allocates them.
  Status prepareWide(cudaStream_t stream) {
    if (dA64_.get()) return {};
    const std::size_t na = a_.size(), nb = b_.size(), nc = std::size_t(p_.M) * p_.N;
    CUDALAB_TRY(dA64_.allocate(na));
    CUDALAB_TRY(dB64_.allocate(nb));
    CUDALAB_TRY(dC64_.allocate(nc));
    CUDALAB_TRY(hC64_.allocate(nc));
    std::vector<double> a(a_.begin(), a_.end()), b(b_.begin(), b_.end());
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(dA64_.get(), a.data(), na * 8, cudaMemcpyHostToDevice, stream));
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(dB64_.get(), b.data(), nb * 8, cudaMemcpyHostToDevice, stream));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));  // before the host copies go
    return {};
  }
  Status poison(cudaStream_t stream) override {
    if (wide())
      CUDALAB_CUDA_TRY(cudaMemsetAsync(dC64_.get(), 0xff, dC64_.bytes(), stream));
    else
      CUDALAB_CUDA_TRY(cudaMemsetAsync(dC_.get(), 0xff, dC_.bytes(), stream));
    return {};
  }
  Status copyIn(cudaStream_t) override { return {}; }  // A and B stay on the device
  Status launch(cudaStream_t stream) override {
    const StepInfo& s = stepInfo(step_);
    if (s.family == Family::Library) {
      if (wide())
        return runLibrary(step_, handle_, dA64_.get(), dB64_.get(), dC64_.get(), p_.M, p_.N, p_.K);
      return runLibrary(step_, handle_, dA_.get(), dB_.get(), dC_.get(), p_.M, p_.N, p_.K);
    }
    if (wide())
      return launchStep(step_, dA64_.get(), dB64_.get(), dC64_.get(), p_.M, p_.N, p_.K, stream);
    return launchStep(step_, dA_.get(), dB_.get(), dC_.get(), p_.M, p_.N, p_.K, stream);
  }
  Status copyOut(cudaStream_t stream) override {
    if (wide())
      CUDALAB_CUDA_TRY(
          cudaMemcpyAsync(hC64_.get(), dC64_.get(), dC64_.bytes(), cudaMemcpyDeviceToHost, stream));
    else
      CUDALAB_CUDA_TRY(
          cudaMemcpyAsync(hC_.get(), dC_.get(), dC_.bytes(), cudaMemcpyDeviceToHost, stream));
    return {};
  }
  Result<Correctness> verify() override {
    const Precision p = stepInfo(step_).precision;
    if (wide()) return compare(hC64_.get(), ref_, p, p_.K);
    return compare(hC_.get(), ref_, p, p_.K);
  }
  double kernelBytes() const override { return globalBytes(stepInfo(step_), p_.M, p_.N, p_.K); }
  double kernelFlops() const override { return flops(p_.M, p_.N, p_.K); }
  double h2dBytes() const override { return 0; }
  double d2hBytes() const override {
    return double(p_.M) * p_.N * elementBytes(stepInfo(step_).precision);
  }

 private:
  MatmulParams p_;
  std::vector<float> a_, b_;
  Reference ref_;
  StepId step_ = StepId::Naive;
  cublasHandle_t handle_ = nullptr;
  DeviceArray<float> dA_, dB_, dC_;
  DeviceArray<double> dA64_, dB64_, dC64_;
  PinnedArray<float> hC_;
  PinnedArray<double> hC64_;
};

double maxAbsDiff(const float* a, const float* b, std::size_t n) {
  double d = 0;
  for (std::size_t e = 0; e < n; ++e)
    d = std::max(d, double(std::fabs(a[e] - b[e])));
  return d;
}

std::vector<float> randomMatrix(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v)
    x = u(rng);
  return v;
}

// About this long at most for one step's timed runs: the slow steps at large sizes get fewer runs
// (at least 1) rather than minutes of waiting.
constexpr double kStepBudgetMs = 3000;

struct LadderRun {
  LadderReport report;
  std::vector<double> maxAbsVsCpu;  // per step, when a CPU result was given
};

Result<LadderRun> runLadder(const MatmulParams& p, std::vector<float> a, std::vector<float> b,
                            std::span<const StepId> which, const std::vector<float>* cpu,
                            const std::atomic<bool>* cancel, const Progress& progress) {
  CUDALAB_TRY(validateAndFit(p));
  LadderRun run;
  LadderReport& report = run.report;
  report.p = p;
  report.device = currentDeviceName();
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  StreamDrain drain(stream.get());
  CublasHandle handle;
  CUDALAB_TRY(handle.create(stream.get()));
  if (progress) progress(0, N_("float64 reference on the CPU"));
  LadderWorkload w(p, std::move(a), std::move(b));
  CUDALAB_TRY(w.prepare(stream.get()));
  w.setHandle(handle.get());
  const bool everyRun = 1LL * p.M * p.N <= 1024LL * 1024LL;
  for (std::size_t i = 0; i < which.size(); ++i) {
    if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));
    const StepInfo& s = stepInfo(which[i]);
    if (progress) progress(float(i) / float(which.size()), s.label);
    w.setStep(s.id);
    if (s.precision == Precision::Float64) CUDALAB_TRY(w.prepareWide(stream.get()));
    Result<MeasureOptions> opt =
        fitRuns(w, MeasureOptions{p.warmup, p.runs, everyRun}, kStepBudgetMs, stream.get());
    if (!opt) return opt.status();
    Result<Measurement> m = measure(w, *opt, cancel, stream.get());
    if (!m) return m.status();
    StepResult r;
    r.step = s.id;
    r.m = *m;
    r.gflops = m->kernelGFlops();
    r.error = m->check;
    report.steps.push_back(std::move(r));
    if (cpu) {
      run.maxAbsVsCpu.push_back(s.precision == Precision::Float64
                                    ? 0.0
                                    : maxAbsDiff(w.lastC32(), cpu->data(), cpu->size()));
    }
  }
  for (StepResult& r : report.steps) {
    if (const StepResult* lib = report.find(libraryFor(stepInfo(r.step).precision)))
      r.ofLibrary = lib->gflops > 0 ? r.gflops / lib->gflops : 0;
  }
  if (progress) progress(1, N_("done"));
  return run;
}

}  // namespace

Result<LadderReport> measureLadder(const MatmulParams& p, std::span<const StepId> which,
                                   const std::atomic<bool>* cancel, const Progress& progress) {
  CUDALAB_TRY(validate(p));
  std::mt19937 rng{std::random_device{}()};
  std::vector<float> a = randomMatrix(std::size_t(p.M) * p.K, rng);
  std::vector<float> b = randomMatrix(std::size_t(p.K) * p.N, rng);
  Result<LadderRun> r = runLadder(p, std::move(a), std::move(b), which, nullptr, cancel, progress);
  if (!r) return r.status();
  return std::move(r->report);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Sweep, ceilings and the course's comparison
// ---------------------------------------------------------------------------------------------

std::span<const int> defaultSweepSizes() {
  static constexpr int kSizes[] = {128, 256, 512, 1024, 2048, 4096};
  return kSizes;
}

SweepRun<SweepPoint> measureSweep(std::span<const int> sizes, std::span<const StepId> which,
                                  const std::atomic<bool>* cancel, const Progress& progress) {
  SweepRun<SweepPoint> run;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const int n = sizes[i];
    const float lo = float(i) / float(sizes.size()), span = 1.0f / float(sizes.size());
    Progress inner;
    if (progress)
      inner = [&](float f, const std::string& what) {
        progress(lo + f * span, Phrase{N_("%s^3: %s"), {std::to_string(n), what}}.packed());
      };
    // The ladder frees its matrices before it returns, whatever happened: a size that did not
    // fit leaves the memory as it found it.
    Result<LadderReport> r = measureLadder(MatmulParams{n, n, n, 1, 3}, which, cancel, inner);
    if (!r) {
      run.stopped = sweepStopped(std::to_string(n) + "^3", r.status(), run.points.size());
      break;
    }
    for (const StepResult& s : r->steps)
      run.points.push_back({n, s.step, s.gflops, s.error.ok()});
  }
  return run;
}

Result<Ceilings> measureCeilings(const std::atomic<bool>* cancel) {
  int dev = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&dev));
  Ceilings c;
  BandwidthParams bp;
  bp.deviceCopyMiB = 512;
  bp.hostCopyMiB = 1;
  bp.repetitions = 5;
  Result<BandwidthReport> bw = measureBandwidth(dev, bp, cancel, {});
  if (!bw) return bw.status();
  for (const CopyResult& r : bw->results)
    if (r.kind == CopyKind::DeviceToDevice) c.memoryGBps = r.gbpsMedian;
  Result<std::vector<precision::FmaRate>> fma = precision::measureFmaRates(dev, cancel);
  if (!fma) return fma.status();
  for (const precision::FmaRate& f : *fma)
    if (f.type == precision::FmaType::Float32) {
      c.fp32Gflops = f.gflops;
      c.fp32PeakGflops = f.peak.known ? f.peak.value : 0;
    }
  int memClock = 0, bus = 0;
  if (cudaDeviceGetAttribute(&memClock, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess) {
    const Peak peak = memoryBandwidthPeak(memClock, bus);
    c.memoryPeakGBps = peak.known ? peak.value : 0;
  }
  return c;
}

Result<CourseReport> measureCourse(int n, bool gpu, const std::atomic<bool>* cancel,
                                   const Progress& progress) {
  CUDALAB_TRY(checkRange(kCourseSize, n));
  CourseReport report;
  report.n = n;
  report.cpuThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::mt19937 rng{std::random_device{}()};
  const std::size_t count = std::size_t(n) * n;
  std::vector<float> a = randomMatrix(count, rng), b = randomMatrix(count, rng);
  if (progress) progress(0.02f, N_("float64 reference on the CPU"));
  const Reference ref = referenceProduct(a.data(), b.data(), n, n, n, checkedRows(n, n));

  std::vector<float> cpu(count), one(count);
  auto cpuRow = [&](int threads, std::vector<float>& out, const char* what) {
    CourseRow row;
    row.what = what;
    const int repeats = threads == 1 ? 1 : 3;
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
      if (r > 0 && cancel && cancel->load()) break;  // the first run is the row's result
      const auto t0 = std::chrono::steady_clock::now();
      cpuMatmul(a.data(), b.data(), out.data(), n, n, n, threads);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    row.ran = true;
    row.ms = ms[ms.size() / 2];
    row.gflops = flops(n, n, n) / (row.ms * 1e6);
    row.maxAbsVsRef = compare(out.data(), ref, Precision::Float32, n).maxAbsError;
    return row;
  };
  if (progress) progress(0.1f, N_("CPU, all cores"));
  report.rows.push_back(cpuRow(0, cpu, N_("CPU, all cores (float32)")));
  if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));
  if (progress) progress(0.3f, N_("CPU, one thread"));
  report.rows.push_back(cpuRow(1, one, N_("CPU, one thread (float32)")));
  report.rows.back().maxAbsVsCpu = maxAbsDiff(one.data(), cpu.data(), count);
  if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));

  static constexpr StepId kGpuSteps[] = {StepId::Naive, StepId::Tiled16, StepId::Cublas};
  if (!gpu) {
    for (StepId s : kGpuSteps) {
      CourseRow row;
      row.what = stepInfo(s).label;
      row.gpu = true;
      row.note = N_("no GPU");
      report.rows.push_back(row);
    }
    return report;
  }
  Progress inner;
  if (progress) inner = [&](float f, const std::string& what) { progress(0.6f + 0.4f * f, what); };
  Result<LadderRun> run =
      runLadder(MatmulParams{n, n, n, 2, 10}, a, b, kGpuSteps, &cpu, cancel, inner);
  if (!run) return run.status();
  for (std::size_t i = 0; i < run->report.steps.size(); ++i) {
    const StepResult& s = run->report.steps[i];
    CourseRow row;
    row.what = stepInfo(s.step).label;
    row.gpu = true;
    row.ran = true;
    row.ms = s.m.kernel().medianMs;
    row.gflops = s.gflops;
    row.maxAbsVsRef = s.error.maxAbsError;
    row.maxAbsVsCpu = run->maxAbsVsCpu[i];
    if (!s.error.ok())
      row.note = Phrase{N_("%s wrong elements"), {std::to_string(s.error.wrong)}}.packed();
    report.rows.push_back(row);
  }
  return report;
}

}  // namespace cudalab::matmul
