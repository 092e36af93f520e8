// The tensor-cores lesson on the GPU: which steps run here, launching each, cuBLAS in four
// formats, and the measured ladder.
//
// [SECTION] Kernels and availability   the kernel of each step and format; the architecture its
//                                      loaded code was compiled for
// [SECTION] Launch                     one hand-written step, its shape read from the step table
// [SECTION] cuBLAS                     BF16, FP16, TF32 and SGEMM on row-major padded matrices
// [SECTION] Ladder                     a Workload per step, measured with common/measurement
// [SECTION] Counters                   the same Workload's launches under CUPTI
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/cublas_handle.hpp"
#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/runtime_info.hpp"
#include "common/translatable.hpp"
#include "models/arch.hpp"
#include "tensor_cores/tensor_cores.hpp"
#include "tensor_cores/tensor_cores_fp8.hpp"
#include "tensor_cores/tensor_cores_hopper.hpp"
#include "tensor_cores/tensor_cores_kernels.cuh"

namespace cudalab::tensor_cores {

// ---------------------------------------------------------------------------------------------
// [SECTION] Kernels and availability
// ---------------------------------------------------------------------------------------------

namespace {

template <class T>
const void* kernelOf(StepId s) {
  switch (s) {
    case StepId::WmmaGlobal:
      return reinterpret_cast<const void*>(&wmmaGlobalKernel<T>);
    case StepId::WmmaShared:
      return reinterpret_cast<const void*>(&wmmaSharedKernel<T>);
    case StepId::MmaLdmatrix:
      return reinterpret_cast<const void*>(&mmaKernel<T, false, 1>);
    case StepId::MmaSwizzled:
      return reinterpret_cast<const void*>(&mmaKernel<T, true, 1>);
    case StepId::MmaPipelined:
      return reinterpret_cast<const void*>(&mmaKernel<T, true, 3>);
    default:
      return nullptr;
  }
}

const void* kernelOf(StepId s, InputFormat f) {
  return f == InputFormat::Half ? kernelOf<__half>(s) : kernelOf<__nv_bfloat16>(s);
}

std::string archName(int cc) {
  return "sm_" + std::to_string(cc);
}

}  // namespace

Status available(StepId s, InputFormat f) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return Status::error(N_("No CUDA device: nothing runs on the tensor cores."));
  }
  int dev = 0, major = 0, minor = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&dev));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  const int cc = major * 10 + minor;
  const StepInfo& info = stepInfo(s);
  const int need = minArch(info, f);
  if (info.family == Family::Wgmma) {
    // sm_90a code runs on compute capability 9.0 alone (later GPUs have their own instructions).
    if (cc != 90)
      return Status::errorf(N_("%s needs sm_90a code, which runs only on compute capability 9.0 "
                               "(H100, H200, GH200); this GPU has %s.%s."),
                            {info.label, std::to_string(major), std::to_string(minor)});
    if (!hopperCodeBuilt())
      return Status::errorf(N_("This build of cudalab has no sm_90a code for %s."), {info.label});
    return {};
  }
  if (cc < need)
    return Status::errorf(N_("%s needs compute capability %s.%s or newer; this GPU has %s.%s."),
                          {info.label, std::to_string(need / 10), std::to_string(need % 10),
                           std::to_string(major), std::to_string(minor)});
  if (!handWritten(info)) return {};
  // The loaded code: compiled for the device's own architecture, or JIT-compiled from the PTX of
  // an older one, whose kernels were compiled without the instructions (an empty body).
  cudaFuncAttributes attr{};
  CUDALAB_CUDA_TRY(cudaFuncGetAttributes(&attr, kernelOf(s, f)));
  if (attr.ptxVersion < need)
    return Status::errorf(
        N_("This build of cudalab has no %s code for %s (its code for this GPU comes from %s): "
           "build with CUDA_ARCHS including %s to run it."),
        {archName(need), info.label, archName(attr.ptxVersion), std::to_string(cc)});
  return {};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Launch
// ---------------------------------------------------------------------------------------------

namespace {

template <class T>
Status launchTyped(StepId s, const T* A, const T* B, float* C, int M, int N, int K,
                   cudaStream_t stream) {
  const StepInfo& info = stepInfo(s);
  if (!handWritten(info)) return Status::error("Not a hand-written step.");
  if (info.family == Family::Wgmma)
    return Status::error("The Hopper steps read B transposed: launchHopperStep.");
  if (M % kBM || N % kBN || K % kBK || M <= 0 || N <= 0 || K <= 0)
    return Status::error("The tensor-core kernels take M and N in multiples of 128, K of 32.");
  const dim3 grid(N / info.tileN, M / info.tileM), block(info.threads);
  switch (s) {
    case StepId::WmmaGlobal:
      wmmaGlobalKernel<T><<<grid, block, 0, stream>>>(A, B, C, M, N, K);
      break;
    case StepId::WmmaShared:
      wmmaSharedKernel<T><<<grid, block, 0, stream>>>(A, B, C, M, N, K);
      break;
    default: {
      // Dynamic shared memory: the pipeline's stages would pass the 48 KiB a kernel gets
      // without asking.
      const int bytes = mmaSharedBytes<T>(info.stages);
      const void* k = kernelOf<T>(s);
      CUDALAB_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
      if (s == StepId::MmaLdmatrix)
        mmaKernel<T, false, 1><<<grid, block, bytes, stream>>>(A, B, C, M, N, K);
      else if (s == StepId::MmaSwizzled)
        mmaKernel<T, true, 1><<<grid, block, bytes, stream>>>(A, B, C, M, N, K);
      else
        mmaKernel<T, true, 3><<<grid, block, bytes, stream>>>(A, B, C, M, N, K);
    }
  }
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

}  // namespace

Status launchStep(StepId s, InputFormat f, const void* A, const void* B, float* C, int M, int N,
                  int K, cudaStream_t stream) {
  if (f == InputFormat::Half)
    return launchTyped(s, static_cast<const __half*>(A), static_cast<const __half*>(B), C, M, N, K,
                       stream);
  return launchTyped(s, static_cast<const __nv_bfloat16*>(A), static_cast<const __nv_bfloat16*>(B),
                     C, M, N, K, stream);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] cuBLAS
// ---------------------------------------------------------------------------------------------

namespace {

// The device copies of A and B every row reads: in both 16-bit formats and in float32, padded
// (row pitches lda = K', ldb = ldc = N').
struct Operands {
  const void *aBf16, *bBf16, *aHalf, *bHalf;
  const float *a32, *b32;
  int lda, ldb;
};

// cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T, so B goes first with
// the dimensions swapped. The padded pitches are passed as they are: cuBLAS reads only M x K, K x N
// and writes only M x N of them.
Status runLibrary(StepId s, cublasHandle_t h, const Operands& o, float* C, int M, int N, int K) {
  const float one = 1, zero = 0;
  switch (s) {
    case StepId::CublasBf16:
    case StepId::CublasHalf: {
      const cudaDataType t = s == StepId::CublasBf16 ? CUDA_R_16BF : CUDA_R_16F;
      const void* a = s == StepId::CublasBf16 ? o.aBf16 : o.aHalf;
      const void* b = s == StepId::CublasBf16 ? o.bBf16 : o.bHalf;
      CUDALAB_CUBLAS_TRY(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, t, o.ldb, a, t,
                                      o.lda, &zero, C, CUDA_R_32F, o.ldb, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
      return {};
    }
    case StepId::CublasTf32:
      CUDALAB_CUBLAS_TRY(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, o.b32, CUDA_R_32F,
                                      o.ldb, o.a32, CUDA_R_32F, o.lda, &zero, C, CUDA_R_32F, o.ldb,
                                      CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
      return {};
    case StepId::CublasSgemm:
      CUDALAB_CUBLAS_TRY(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, o.b32, o.ldb,
                                     o.a32, o.lda, &zero, C, o.ldb));
      return {};
    default:
      return Status::error("Not a cuBLAS step.");
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder
// ---------------------------------------------------------------------------------------------

// A and B live on the device, padded with zeros, in BF16, FP16 and float32 (the same values: the
// inputs are exact in all three); each step writes the padded C, poisoned with NaN before every
// run and compared with the float64 reference on the unpadded M x N after.
class LadderWorkload final : public Workload {
 public:
  LadderWorkload(const TensorParams& p, std::vector<float> a, std::vector<float> b)
      : p_(p), pad_(padded(p.M, p.N, p.K)), a_(std::move(a)), b_(std::move(b)) {}
  void setStep(StepId s) { step_ = s; }
  void setHandle(cublasHandle_t h) { handle_ = h; }

  Status prepare(cudaStream_t stream) override {
    // The FP8 operands and their reference only when the FP8 row runs (at its turn).
    if (step_ == StepId::CublasLtFp8 && !fp8_.ready())
      CUDALAB_TRY(fp8_.prepare(a_, b_, p_.M, p_.N, p_.K, pad_, stream));
    if (dC_.get()) return {};  // shared by every step
    const std::size_t na = std::size_t(pad_.M) * pad_.K, nb = std::size_t(pad_.K) * pad_.N,
                      nc = std::size_t(pad_.M) * pad_.N;
    std::vector<float> a32(na, 0.0f), b32(nb, 0.0f);
    for (int i = 0; i < p_.M; ++i)
      std::copy_n(a_.begin() + std::size_t(i) * p_.K, p_.K, a32.begin() + std::size_t(i) * pad_.K);
    for (int k = 0; k < p_.K; ++k)
      std::copy_n(b_.begin() + std::size_t(k) * p_.N, p_.N, b32.begin() + std::size_t(k) * pad_.N);
    std::vector<__nv_bfloat16> aBf(na), bBf(nb), btBf(nb);
    std::vector<__half> aH(na), bH(nb), btH(nb);
    for (std::size_t e = 0; e < na; ++e) {
      aBf[e] = __float2bfloat16_rn(a32[e]);
      aH[e] = __float2half_rn(a32[e]);
    }
    for (std::size_t e = 0; e < nb; ++e) {
      bBf[e] = __float2bfloat16_rn(b32[e]);
      bH[e] = __float2half_rn(b32[e]);
    }
    // B transposed (N' x K'), for the steps that read both operands K-major.
    for (std::size_t k = 0; k < std::size_t(pad_.K); ++k)
      for (std::size_t n = 0; n < std::size_t(pad_.N); ++n) {
        btBf[n * pad_.K + k] = bBf[k * pad_.N + n];
        btH[n * pad_.K + k] = bH[k * pad_.N + n];
      }
    CUDALAB_TRY(dA32_.allocate(na));
    CUDALAB_TRY(dB32_.allocate(nb));
    CUDALAB_TRY(dABf_.allocate(na));
    CUDALAB_TRY(dBBf_.allocate(nb));
    CUDALAB_TRY(dAH_.allocate(na));
    CUDALAB_TRY(dBH_.allocate(nb));
    CUDALAB_TRY(dBtBf_.allocate(nb));
    CUDALAB_TRY(dBtH_.allocate(nb));
    CUDALAB_TRY(dC_.allocate(nc));
    CUDALAB_TRY(hC_.allocate(nc));
    auto up = [&](void* dst, const void* src, std::size_t bytes) -> Status {
      CUDALAB_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
      return {};
    };
    CUDALAB_TRY(up(dA32_.get(), a32.data(), na * 4));
    CUDALAB_TRY(up(dB32_.get(), b32.data(), nb * 4));
    CUDALAB_TRY(up(dABf_.get(), aBf.data(), na * 2));
    CUDALAB_TRY(up(dBBf_.get(), bBf.data(), nb * 2));
    CUDALAB_TRY(up(dAH_.get(), aH.data(), na * 2));
    CUDALAB_TRY(up(dBH_.get(), bH.data(), nb * 2));
    CUDALAB_TRY(up(dBtBf_.get(), btBf.data(), nb * 2));
    CUDALAB_TRY(up(dBtH_.get(), btH.data(), nb * 2));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));  // before the host vectors go
    ref_ = referenceProduct(a_.data(), b_.data(), p_.M, p_.N, p_.K, checkedRows(p_.M, p_.N));
    return {};
  }
  Status poison(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(dC_.get(), 0xff, dC_.bytes(), stream));
    return {};
  }
  Status copyIn(cudaStream_t) override { return {}; }  // A and B stay on the device
  Status launch(cudaStream_t stream) override {
    const StepInfo& s = stepInfo(step_);
    if (step_ == StepId::CublasLtFp8) return fp8_.run(dC_.get(), stream);
    if (!handWritten(s)) {
      const Operands o{dABf_.get(), dBBf_.get(), dAH_.get(), dBH_.get(),
                       dA32_.get(), dB32_.get(), pad_.K,     pad_.N};
      return runLibrary(step_, handle_, o, dC_.get(), p_.M, p_.N, p_.K);
    }
    const bool half = p_.format == InputFormat::Half;
    if (s.family == Family::Wgmma)
      return launchHopperStep(step_, p_.format, half ? (const void*)dAH_.get() : dABf_.get(),
                              half ? (const void*)dBtH_.get() : dBtBf_.get(), dC_.get(), pad_.M,
                              pad_.N, pad_.K, stream);
    return launchStep(step_, p_.format, half ? (const void*)dAH_.get() : dABf_.get(),
                      half ? (const void*)dBH_.get() : dBBf_.get(), dC_.get(), pad_.M, pad_.N,
                      pad_.K, stream);
  }
  Status copyOut(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(hC_.get(), dC_.get(), dC_.bytes(), cudaMemcpyDeviceToHost, stream));
    return {};
  }
  Result<Correctness> verify() override {
    if (step_ == StepId::CublasLtFp8)
      return compareProduct(hC_.get(), std::size_t(pad_.N), fp8_.reference(), errorBoundFp8(p_.K));
    return compareProduct(hC_.get(), std::size_t(pad_.N), ref_, errorBound(p_.K));
  }
  double kernelBytes() const override {
    // The least any kernel moves: A and B once in their format, C written once.
    const int in = inputBytes(inputsOf(stepInfo(step_), p_.format));
    return (double(p_.M) * p_.K + double(p_.K) * p_.N) * in + double(p_.M) * p_.N * 4;
  }
  double kernelFlops() const override { return flops(p_.M, p_.N, p_.K); }
  double h2dBytes() const override { return 0; }
  double d2hBytes() const override { return double(dC_.bytes()); }

 private:
  TensorParams p_;
  Padded pad_;
  std::vector<float> a_, b_;
  GemmReference ref_;
  StepId step_ = StepId::WmmaGlobal;
  cublasHandle_t handle_ = nullptr;
  DeviceArray<float> dA32_, dB32_, dC_;
  DeviceArray<__nv_bfloat16> dABf_, dBBf_, dBtBf_;
  DeviceArray<__half> dAH_, dBH_, dBtH_;
  PinnedArray<float> hC_;
  Fp8Product fp8_;
};

// About this long at most for one step's timed runs: slow steps at large sizes get fewer runs.
constexpr double kStepBudgetMs = 3000;

}  // namespace

Result<LadderReport> measureLadder(const TensorParams& p, std::span<const StepId> which,
                                   const std::atomic<bool>* cancel, const Progress& progress) {
  CUDALAB_TRY(validate(p));
  LadderReport report;
  report.p = p;
  report.pad = padded(p.M, p.N, p.K);
  std::vector<StepId> run;
  for (StepId s : which) {
    if (Status ok = available(s, p.format); !ok)
      report.skipped.push_back({s, Phrase::of(ok).packed()});
    else
      run.push_back(s);
  }
  if (run.empty()) {
    if (!report.skipped.empty()) return report;  // nothing runs here; the reasons say why
    return Status::error(N_("No step was asked for."));
  }
  std::size_t free = 0;
  CUDALAB_TRY(freeDeviceBytes(free));
  CUDALAB_TRY(checkMemory(p, free));
  report.device = currentDeviceName();
  {
    int dev = 0, major = 0, minor = 0, sms = 0, clock = 0, memClock = 0, bus = 0;
    CUDALAB_CUDA_TRY(cudaGetDevice(&dev));
    const auto attr = [dev](int& v, cudaDeviceAttr a) {
      if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) v = 0;
    };
    attr(major, cudaDevAttrComputeCapabilityMajor);
    attr(minor, cudaDevAttrComputeCapabilityMinor);
    attr(sms, cudaDevAttrMultiProcessorCount);
    attr(clock, cudaDevAttrClockRate);
    attr(memClock, cudaDevAttrMemoryClockRate);
    attr(bus, cudaDevAttrGlobalMemoryBusWidth);
    (void)cudaGetLastError();
    const Peak mem = memoryBandwidthPeak(memClock, bus);
    const Peak tensor = tensorPeak(sms, tensorFmaPerSM(major, minor), clock);
    report.memoryPeakGBps = mem.value;
    report.tensorPeakGflops = tensor.value;
    report.memoryFormula = mem.formula;
    report.tensorFormula = tensor.formula;
  }
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  StreamDrain drain(stream.get());
  CublasHandle handle;
  CUDALAB_TRY(handle.create(stream.get()));
  if (progress) progress(0, N_("float64 reference on the CPU"));
  std::random_device seed;
  const std::uint64_t s0 = (std::uint64_t(seed()) << 32) | seed();
  LadderWorkload w(p, randomInputs(std::size_t(p.M) * p.K, s0),
                   randomInputs(std::size_t(p.K) * p.N, s0 + 1));
  CUDALAB_TRY(w.prepare(stream.get()));
  w.setHandle(handle.get());
  const bool everyRun = 1LL * p.M * p.N <= 1024LL * 1024LL;
  for (std::size_t i = 0; i < run.size(); ++i) {
    if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));
    const StepInfo& s = stepInfo(run[i]);
    if (progress) progress(float(i) / float(run.size()), s.label);
    w.setStep(s.id);
    CUDALAB_TRY(w.prepare(stream.get()));  // what this step alone needs (the FP8 operands)
    Result<MeasureOptions> opt =
        fitRuns(w, MeasureOptions{p.warmup, p.runs, everyRun}, kStepBudgetMs, stream.get());
    if (!opt) return opt.status();
    Result<Measurement> m = measure(w, *opt, cancel, stream.get());
    if (!m) return m.status();
    StepResult r;
    r.step = s.id;
    r.m = *m;
    r.tflops = m->kernelGFlops() / 1000.0;
    r.error = m->check;
    report.steps.push_back(std::move(r));
  }
  if (const StepResult* lib = report.find(libraryFor(p.format)))
    for (StepResult& r : report.steps)
      r.ofLibrary = lib->tflops > 0 ? r.tflops / lib->tflops : 0;
  if (progress) progress(1, N_("done"));
  return report;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Counters
// ---------------------------------------------------------------------------------------------

Result<std::vector<counters::StepReading>> measureCounters(const TensorParams& lesson,
                                                           std::span<const StepId> steps,
                                                           const std::atomic<bool>* cancel,
                                                           const Progress& progress) {
  const TensorParams p = cappedProduct(lesson, kCountersExtent);
  CUDALAB_TRY(validateAndFit(p));
  if (progress) progress(0, N_("float64 reference on the CPU"));
  std::random_device seed;
  const std::uint64_t s0 = (std::uint64_t(seed()) << 32) | seed();
  // The profiler replays each launch on the default stream; the operands are the ladder's.
  LadderWorkload w(p, randomInputs(std::size_t(p.M) * p.K, s0),
                   randomInputs(std::size_t(p.K) * p.N, s0 + 1));
  CUDALAB_TRY(w.prepare(nullptr));
  const Padded pad = padded(p.M, p.N, p.K);
  const double in = 2;  // bytes per input of the hand-written steps (BF16 or FP16)
  const double leastBytes = (double(p.M) * p.K + double(p.K) * p.N) * in;
  // cuBLAS's kernels are its own.
  auto keep = [&](const StepInfo& s) { return handWritten(s) && available(s.id, p.format); };
  auto read = [&](const StepInfo& s, std::size_t) -> Result<counters::StepReading> {
    w.setStep(s.id);
    Result<counters::StepReading> r = counters::profileStep(
        s.key, s.label, s.colour, kCounterKeys, [&]() -> Status { return w.launch(nullptr); });
    if (!r) return r.status();
    r->model.emplace_back("dram_bytes_read", leastBytes);
    // The tensor instructions the tile arithmetic predicts, exactly (a check of the counters).
    const double want = tensorInstructions(s, pad.M, pad.N, pad.K);
    const double got = r->measured.value("tensor_instructions").value_or(NAN);
    r->model.emplace_back("tensor_instructions", want);
    if (!(std::fabs(got - want) <= 0.005 * want))
      r->mismatches.push_back(
          {N_("%s: the tile arithmetic counts %s, the GPU %s"),
           {N_("tensor instructions"), std::to_string(std::llround(want)),
            std::isnan(got) ? N_("nothing") : std::to_string(std::llround(got))}});
    return r;
  };
  return counters::profileSteps(steps, &stepInfo, keep, read, cancel, progress);
}

}  // namespace cudalab::tensor_cores
