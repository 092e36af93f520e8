// The FMA throughput kernels: float32, float64 and half2, one template.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/translatable.hpp"
#include "precision/throughput.hpp"

namespace cudalab::precision {

namespace {

constexpr FmaTypeInfo kFmaTypes[] = {
    {FmaType::Float32, "f32", "float32", "fma.rn.f32", 2, 0},
    {FmaType::Float64, "f64", "float64", "fma.rn.f64", 2, 2},
    {FmaType::Half2, "half2", N_("half (as half2)"), "fma.rn.f16x2", 4, 5},
};

__device__ __forceinline__ float fmaOf(float a, float b, float c) {
  return fmaf(a, b, c);
}
__device__ __forceinline__ double fmaOf(double a, double b, double c) {
  return fma(a, b, c);
}
__device__ __forceinline__ __half2 fmaOf(__half2 a, __half2 b, __half2 c) {
  return __hfma2(a, b, c);
}
template <class T>
__device__ __forceinline__ T fromFloat(float f) {
  if constexpr (sizeof(T) == 4 && !std::is_same_v<T, float>)
    return __float2half2_rn(f);
  else
    return static_cast<T>(f);
}
__device__ __forceinline__ float toFloat(float v) {
  return v;
}
__device__ __forceinline__ float toFloat(double v) {
  return static_cast<float>(v);
}
__device__ __forceinline__ float toFloat(__half2 v) {
  return __low2float(v) + __high2float(v);
}

// kChains independent chains per thread: an FMA waits about 4 cycles for its previous result,
// so one chain would measure latency; eight per thread and eight warps per scheduler hide it.
// acc = acc * a + b with a just below 1 converges to b / (1 - a) = 1: no overflow, no subnormals
// (which some units handle slowly). The sum is stored so the compiler cannot drop the work.
constexpr int kChains = 8;
template <class T>
__global__ void fmaKernel(int iterations, float* out) {
  const T a = fromFloat<T>(0.999f), b = fromFloat<T>(0.001f);
  T acc[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j)
    acc[j] = fromFloat<T>(0.5f + 0.01f * j + 1e-4f * threadIdx.x);
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int j = 0; j < kChains; ++j)
      acc[j] = fmaOf(acc[j], a, b);
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j)
    s += toFloat(acc[j]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <class T>
Result<FmaRate> measureOne(FmaType type, const cudaDeviceProp& prop, cudaStream_t stream,
                           float* dOut, int blocks, int threads, const std::atomic<bool>* cancel) {
  // float64 on consumer GPUs runs at 1/32 to 1/64 of the float rate: fewer iterations keep that
  // run short there.
  const std::optional<ArchInfo> arch = archInfo(prop.major, prop.minor);
  const bool slowFp64 = !arch || arch->fp64UnitsPerSM * 8 < arch->fp32CoresPerSM;
  const int iterations = type != FmaType::Float64 ? 65536 : slowFp64 ? 2048 : 32768;
  Event start, stop;
  CUDALAB_TRY(start.create());
  CUDALAB_TRY(stop.create());
  // Warm-up: clocks ramp up and the module loads.
  fmaKernel<T><<<blocks, threads, 0, stream>>>(iterations / 8, dOut);
  CUDALAB_CUDA_TRY_LAUNCH();
  std::vector<double> ms;
  for (int run = 0; run < 5; ++run) {
    if (cancel && cancel->load()) return Status::error(N_("Cancelled."));
    CUDALAB_CUDA_TRY(cudaEventRecord(start.get(), stream));
    fmaKernel<T><<<blocks, threads, 0, stream>>>(iterations, dOut);
    CUDALAB_CUDA_TRY_LAUNCH();
    CUDALAB_CUDA_TRY(cudaEventRecord(stop.get(), stream));
    CUDALAB_CUDA_TRY(cudaEventSynchronize(stop.get()));
    float t = 0;
    CUDALAB_CUDA_TRY(cudaEventElapsedTime(&t, start.get(), stop.get()));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  FmaRate r;
  r.type = type;
  r.medianMs = ms[ms.size() / 2];
  r.flops = double(blocks) * threads * kChains * double(iterations) *
            fmaTypeInfo(type).flopsPerInstruction;
  r.gflops = r.medianMs > 0 ? r.flops / (r.medianMs * 1e-3) / 1e9 : 0.0;
  return r;
}

}  // namespace

std::span<const FmaTypeInfo> fmaTypes() {
  return kFmaTypes;
}
const FmaTypeInfo& fmaTypeInfo(FmaType t) {
  return kFmaTypes[static_cast<size_t>(t)];
}

Result<std::vector<FmaRate>> measureFmaRates(int device, const std::atomic<bool>* cancel) {
  CurrentDevice dev;
  CUDALAB_TRY(dev.set(device));
  cudaDeviceProp prop{};
  CUDALAB_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  int clockKHz = 0;
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, device));
  const FlopsPeaks peaks = flopsPeaks(prop.major, prop.minor, prop.multiProcessorCount, clockKHz);

  // Enough blocks to fill every SM several times over.
  const int threads = 256;
  const int blocks = prop.multiProcessorCount * 8;
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<float> dOut;
  CUDALAB_TRY(dOut.allocate(size_t(blocks) * threads));
  StreamDrain drain(stream.get());

  std::vector<FmaRate> rates;
  for (const FmaTypeInfo& t : fmaTypes()) {
    Result<FmaRate> r = Status::error("not measured");
    switch (t.type) {
      case FmaType::Float32:
        r = measureOne<float>(t.type, prop, stream.get(), dOut.get(), blocks, threads, cancel);
        break;
      case FmaType::Float64:
        r = measureOne<double>(t.type, prop, stream.get(), dOut.get(), blocks, threads, cancel);
        break;
      case FmaType::Half2:
        r = measureOne<__half2>(t.type, prop, stream.get(), dOut.get(), blocks, threads, cancel);
        break;
    }
    if (!r) return r.status();
    r->peak = t.type == FmaType::Float32   ? peaks.fp32
              : t.type == FmaType::Float64 ? peaks.fp64
                                           : peaks.fp16;
    rates.push_back(*r);
  }
  return rates;
}

}  // namespace cudalab::precision
