// The matmul ladder under the GPU's counters (CUPTI): every hand-written step's kernel once, for
// what the ladder changes step by step and the timings only hint at: how many sectors each warp's
// loads touch, how many passes its shared-memory loads need, and how full the SMs are kept,
// beside the occupancy the CUDA calculator promises for the step's registers and shared memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <random>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/translatable.hpp"
#include "matmul/matmul.hpp"

namespace cudalab::matmul {

namespace {

template <class T>
Status upload(DeviceArray<T>& d, size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> h(n);
  for (T& v : h)
    v = T(u(rng));
  CUDALAB_TRY(d.allocate(n));
  CUDALAB_CUDA_TRY(cudaMemcpy(d.get(), h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  return {};
}

}  // namespace

Result<std::vector<counters::StepReading>> measureCounters(const MatmulParams& lesson,
                                                           std::span<const StepId> steps,
                                                           const std::atomic<bool>* cancel,
                                                           const Progress& progress) {
  const MatmulParams p = cappedProduct(lesson, kCountersExtent);
  CUDALAB_TRY(validate(p));
  int device = 0, maxThreadsPerSM = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&device));
  CUDALAB_CUDA_TRY(
      cudaDeviceGetAttribute(&maxThreadsPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  std::mt19937 rng{std::random_device{}()};
  const size_t a = size_t(p.M) * p.K, b = size_t(p.K) * p.N, c = size_t(p.M) * p.N;
  DeviceArray<float> A, B, C;
  DeviceArray<double> A64, B64, C64;
  // cuBLAS's kernels are its own.
  auto read = [&](const StepInfo& s, std::size_t) -> Result<counters::StepReading> {
    const bool f64 = s.precision == Precision::Float64;
    if (f64 && !A64.get()) {
      CUDALAB_TRY(upload(A64, a, rng));
      CUDALAB_TRY(upload(B64, b, rng));
      CUDALAB_TRY(C64.allocate(c));
    } else if (!f64 && !A.get()) {
      CUDALAB_TRY(upload(A, a, rng));
      CUDALAB_TRY(upload(B, b, rng));
      CUDALAB_TRY(C.allocate(c));
    }
    Result<counters::StepReading> r =
        counters::profileStep(s.key, s.label, s.colour, kCounterKeys, [&]() -> Status {
          return f64 ? launchStep(s.id, A64.get(), B64.get(), C64.get(), p.M, p.N, p.K, nullptr)
                     : launchStep(s.id, A.get(), B.get(), C.get(), p.M, p.N, p.K, nullptr);
        });
    if (!r) return r.status();
    counters::StepReading& reading = *r;
    // The calculator's promise: resident warps the step's registers, shared memory and block
    // size allow, against what the SM holds. The counters say how much of it the kernel used.
    Result<int> blocks = blocksPerSM(s.id, p.M, p.N, p.K);
    if (!blocks) return blocks.status();
    const int threads = stepLaunch(s, p.M, p.N, p.K).threadsPerBlock();
    const int warps = (threads + 31) / 32;
    reading.model.emplace_back("achieved_occupancy",
                               100.0 * *blocks * warps * 32 / std::max(1, maxThreadsPerSM));
    return r;
  };
  return counters::profileSteps(steps, &stepInfo, &handWritten, read, cancel, progress);
}

}  // namespace cudalab::matmul
