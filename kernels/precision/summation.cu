// Summation error on the GPU: the two passes of the tree reduction and the launcher that copies
// the numbers in, runs them and copies the sum back. Everything else (the CPU methods, the same
// additions emulated on the CPU, validation) is in summation_ref.cpp.
//
// The kernels do nothing but float additions: no multiply to fuse (so no FMA can change a
// rounding), no atomics (so no order that changes from run to run), and nvcc does not reassociate
// float arithmetic without fast-math. The result is therefore a fixed function of the input and
// the shape, which sumTreeOrderCpu reproduces bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "common/cuda_raii.hpp"
#include "common/format.hpp"
#include "common/translatable.hpp"
#include "precision/summation.hpp"
#include "precision/summation_internal.hpp"

namespace cudalab::precision {

namespace {

// The shared-memory tree both passes end with: at stride h = threads/2, threads/4, ..., 1,
// thread i < h adds the partial sum of thread i + h to its own; a barrier after every step makes
// the sums written at one step visible at the next. Thread 0 ends with the block's sum.
__device__ float blockTree(float* s, float acc) {
  const unsigned t = threadIdx.x;
  s[t] = acc;
  __syncthreads();
  for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
    if (t < h) s[t] = s[t] + s[t + h];
    __syncthreads();
  }
  return s[0];
}

// ---- Pass 1: one partial sum per block --------------------------------------------------------
// A grid-stride loop: thread t of block b adds x[b*threads + t + k*blocks*threads] for
// k = 0, 1, ... into its own float, starting from 0.0f. Neighbouring threads read neighbouring
// numbers at every step, so the loads coalesce and the pass runs at memory speed, and a fixed grid
// covers any N (the course's N is not a multiple of anything). Each number goes through about
// N / (blocks*threads) additions in its thread, then log2(threads) in the block's tree; thread 0
// writes the block's sum, so no atomics and the same order on every run.
__global__ void blockSumsKernel(const float* __restrict__ x, size_t n,
                                float* __restrict__ partial) {
  extern __shared__ float s[];
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  float acc = 0.0f;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    acc = acc + x[i];
  const float sum = blockTree(s, acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

// ---- Pass 2: the block sums into one ----------------------------------------------------------
// One block of the same `threads` threads: thread t adds partial[t], partial[t + threads], ...
// (the same strided scheme, so blocks > threads works), then the same tree. A second launch is
// the barrier between the passes: pass 2 starts only when every block of pass 1 has written its
// sum, which no barrier inside one launch could guarantee across blocks.
__global__ void finalSumKernel(const float* __restrict__ partial, int blocks,
                               float* __restrict__ out) {
  extern __shared__ float s[];
  float acc = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < blocks; i += static_cast<int>(blockDim.x))
    acc = acc + partial[i];
  const float sum = blockTree(s, acc);
  if (threadIdx.x == 0) *out = sum;
}

// Both passes over dX[0, n) on `stream`; the sum lands in *dOut. dPartial holds t.blocks floats.
Status launchTree(const float* dX, size_t n, TreeShape t, float* dPartial, float* dOut,
                  cudaStream_t stream) {
  const unsigned threads = static_cast<unsigned>(t.threads);
  const size_t shared = threads * sizeof(float);
  blockSumsKernel<<<static_cast<unsigned>(t.blocks), threads, shared, stream>>>(dX, n, dPartial);
  CUDALAB_CUDA_TRY_LAUNCH();
  finalSumKernel<<<1, threads, shared, stream>>>(dPartial, t.blocks, dOut);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

// Room left free for the CUDA context's own allocations and the allocator's rounding.
constexpr size_t kDeviceHeadroom = size_t{64} << 20;

}  // namespace

Result<std::vector<float>> detail::sumTreeGpuPrefixes(std::span<const float> x,
                                                      std::span<const size_t> sizes, TreeShape t) {
  CUDALAB_TRY(validate(t));
  size_t n = 0;  // the longest prefix: only that much of x is copied
  for (size_t s : sizes) {
    if (s > x.size())
      return Status::error("A prefix of " + thousands(static_cast<long long>(s)) +
                           " numbers was asked for, but only " +
                           thousands(static_cast<long long>(x.size())) + " were given.");
    n = std::max(n, s);
  }
  std::vector<float> sums(sizes.size(), 0.0f);
  if (sizes.empty()) return sums;

  const size_t blocks = static_cast<size_t>(t.blocks);
  const size_t need = (std::max<size_t>(n, 1) + blocks + sizes.size()) * sizeof(float);
  size_t freeBytes = 0, totalBytes = 0;
  CUDALAB_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
  if (need + kDeviceHeadroom > freeBytes) {
    return Status::errorf(
        N_("Summing %s numbers on the GPU needs %s of device memory (the numbers and one partial "
           "sum per block), but only %s are free. Sum fewer numbers, or close programs that use "
           "the GPU."),
        {thousands(static_cast<long long>(n)), mib(static_cast<double>(need)),
         mib(static_cast<double>(freeBytes))});
  }

  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<float> dX, dPartial, dSums;
  CUDALAB_TRY(dX.allocate(std::max<size_t>(n, 1)));
  CUDALAB_TRY(dPartial.allocate(blocks));
  CUDALAB_TRY(dSums.allocate(sizes.size()));
  StreamDrain drain(stream.get());  // after the buffers: waits before they are freed

  const cudaStream_t s = stream.get();
  if (n > 0)
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(dX.get(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  // One partial-sum buffer serves every prefix: the stream runs the launches one after another.
  for (size_t k = 0; k < sizes.size(); ++k)
    CUDALAB_TRY(launchTree(dX.get(), sizes[k], t, dPartial.get(), dSums.get() + k, s));
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(sums.data(), dSums.get(), sizes.size() * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
  return sums;
}

Result<float> sumTreeGpu(std::span<const float> x, TreeShape t) {
  const size_t all[] = {x.size()};
  Result<std::vector<float>> r = detail::sumTreeGpuPrefixes(x, all, t);
  if (!r) return r.status();
  return r->front();
}

}  // namespace cudalab::precision
