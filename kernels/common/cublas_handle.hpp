// A cuBLAS handle bound to a stream, and cuBLAS statuses as Status values, for the lessons that
// call cuBLAS (matmul, tensor cores).
//
//   CublasHandle h;
//   CUDALAB_TRY(h.create(stream));                       // plain float32 math by default
//   CUDALAB_CUBLAS_TRY(cublasSgemm(h.get(), ...));       // an error Status naming the call
#pragma once

#include <cublas_v2.h>

#include <string>

#include "common/status.hpp"

namespace cudalab {

inline Status cublasStatus(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return {};
  return Status::error(std::string("cuBLAS failed in ") + what + ": " + cublasGetStatusString(s) +
                       ".");
}

#define CUDALAB_CUBLAS_TRY(expr) CUDALAB_TRY(::cudalab::cublasStatus((expr), #expr))

class CublasHandle {
 public:
  CublasHandle() = default;
  ~CublasHandle() {
    if (h_) cublasDestroy(h_);
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  Status create(cudaStream_t stream) {
    CUDALAB_CUBLAS_TRY(cublasCreate(&h_));
    CUDALAB_CUBLAS_TRY(cublasSetStream(h_, stream));
    // Plain float32 SGEMM unless a step asks for TF32 explicitly.
    CUDALAB_CUBLAS_TRY(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH));
    return {};
  }
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace cudalab
