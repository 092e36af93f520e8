// Checking CUDA calls and launches.
//
//   CUDALAB_CUDA_TRY(cudaMalloc(&p, bytes));   // returns a Status from the enclosing function
//   kernel<<<grid, block, 0, stream>>>(...);
//   CUDALAB_CUDA_TRY_LAUNCH();                // checks the launch itself (bad configuration)
//
// The enclosing function must return Status or Result<T>. The Status keeps the expression text,
// file and line, and CUDA's own name and message for the error.
#pragma once

#include <cuda_runtime_api.h>

#include "common/status.hpp"

namespace cudalab {

// True for errors after which the CUDA context is unusable until cudaDeviceReset().
bool isStickyCudaError(cudaError_t e);

Status cudaStatus(cudaError_t e, const char* expr, const char* file, int line);

}  // namespace cudalab

#define CUDALAB_CUDA_TRY(expr)                                             \
  do {                                                                     \
    cudaError_t cudalab_e_ = (expr);                                       \
    if (cudalab_e_ != cudaSuccess)                                         \
      return ::cudalab::cudaStatus(cudalab_e_, #expr, __FILE__, __LINE__); \
  } while (0)

#define CUDALAB_CUDA_TRY_LAUNCH()                                                    \
  do {                                                                               \
    cudaError_t cudalab_e_ = cudaGetLastError();                                     \
    if (cudalab_e_ != cudaSuccess)                                                   \
      return ::cudalab::cudaStatus(cudalab_e_, "kernel launch", __FILE__, __LINE__); \
  } while (0)
