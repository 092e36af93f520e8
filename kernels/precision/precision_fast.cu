// The float32 formulas again, compiled with --use_fast_math (set for this file alone in
// kernels/CMakeLists.txt): cosf, sinf, expf and logf become the hardware's approximate __cosf,
// __sinf, __expf and __logf, division and square root become approximate, and subnormal results
// are flushed to zero. Same source as cudalab_eval_f32; only the compiler flags differ.
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "precision/precision_device.cuh"
#include "precision/precision_internal.hpp"

using namespace cudalab::precision;

extern "C" __global__ void cudalab_eval_f32_fast(const double* xs, int n, double* out) {
  evalAll<F32Ops>(xs, n, out);
}

namespace cudalab::precision::detail {

Status launchEvalFast(const double* dXs, int n, double* dOut, cudaStream_t stream) {
  constexpr int kThreads = 256;
  cudalab_eval_f32_fast<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(dXs, n, dOut);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

}  // namespace cudalab::precision::detail
