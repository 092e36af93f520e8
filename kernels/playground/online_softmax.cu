// The online softmax (online_softmax.hpp): two passes over each row instead of three.
#include "playground/online_softmax.hpp"

#include <cmath>

#include "common/cuda_check.hpp"

namespace cudalab::playground {

namespace {

constexpr int kThreads = 256;

// A running maximum and the sum of exp(x - max) over the scores seen so far.
struct MaxSum {
  float m = -INFINITY;
  float s = 0.0f;
};

// Two partial pairs as one: both sums rescaled to the larger maximum. A pair that has seen
// nothing (m = -inf) adds nothing, without computing exp(-inf - -inf) = NaN.
__device__ MaxSum merge(MaxSum a, MaxSum b) {
  if (a.m == -INFINITY) return b;
  if (b.m == -INFINITY) return a;
  const float m = fmaxf(a.m, b.m);
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__global__ void __launch_bounds__(kThreads)
    onlineSoftmaxKernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* row = x + static_cast<long long>(blockIdx.x) * cols;
  float* out = y + static_cast<long long>(blockIdx.x) * cols;
  // Pass 1: each thread's (max, sum) over every 256th score, rescaling when the maximum grows.
  MaxSum t;
  for (int j = threadIdx.x; j < cols; j += kThreads) {
    const float v = row[j];
    if (v > t.m) {
      t.s = t.s * expf(t.m - v) + 1.0f;  // expf(-inf) = 0 on the first score
      t.m = v;
    } else {
      t.s += expf(v - t.m);
    }
  }
  // The block's pair: a tree of merges inside each warp, then across the eight warps.
  for (int o = 16; o > 0; o /= 2)
    t = merge(t, {__shfl_xor_sync(0xffffffffu, t.m, o), __shfl_xor_sync(0xffffffffu, t.s, o)});
  __shared__ MaxSum warps[kThreads / 32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = t;
  __syncthreads();
  MaxSum all;
  for (int w = 0; w < kThreads / 32; ++w)
    all = merge(all, warps[w]);
  // Pass 2: the output.
  const float inv = 1.0f / all.s;
  for (int j = threadIdx.x; j < cols; j += kThreads)
    out[j] = expf(row[j] - all.m) * inv;
}

}  // namespace

Status launchOnlineSoftmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return {};
  onlineSoftmaxKernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
  CUDALAB_CUDA_TRY(cudaGetLastError());
  return {};
}

}  // namespace cudalab::playground
