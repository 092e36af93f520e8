// The tensor-cores ladder's FP8 row (internal to kernels/tensor_cores): A and B rounded to FP8
// E4M3 and multiplied by cuBLASLt with float32 accumulation and a float32 C. cuBLAS's classic
// API has no FP8 product; cuBLASLt does, on compute capability 8.9 and newer.
//
//   Fp8Product fp8;
//   CUDALAB_TRY(fp8.prepare(a, b, M, N, K, pad, stream));  // unpadded float32 inputs, row-major
//   CUDALAB_TRY(fp8.run(C, stream));                        // C: pad.M x pad.N float32
//   fp8.reference()                                         // the float64 product of the rounded
//   inputs
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <vector>

#include "common/cuda_raii.hpp"
#include "common/gemm_check.hpp"
#include "tensor_cores/tensor_cores.hpp"

namespace cudalab::tensor_cores {

// The inputs as FP8 E4M3 rounds them (to nearest, even on ties, saturating: models/floats), back
// in float32, where each is exact.
std::vector<float> roundedToFp8(const std::vector<float>& v);

class Fp8Product {
 public:
  Fp8Product() = default;
  ~Fp8Product();
  Fp8Product(const Fp8Product&) = delete;
  Fp8Product& operator=(const Fp8Product&) = delete;

  bool ready() const { return a_.get() != nullptr; }
  // Rounds A (M x K) and B (K x N) to FP8, pads them with zeros to `pad` and uploads A and B
  // transposed (cuBLASLt's FP8 product wants both operands K-major); computes the float64
  // reference of the rounded inputs on the rows gemm_check samples; picks cuBLASLt's algorithm.
  Status prepare(const std::vector<float>& a, const std::vector<float>& b, int M, int N, int K,
                 Padded pad, cudaStream_t stream);
  // C = A B over the padded extents (the padding adds zeros), float32, on `stream`.
  Status run(float* C, cudaStream_t stream);
  const GemmReference& reference() const { return ref_; }

 private:
  Padded pad_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t aDesc_ = nullptr, bDesc_ = nullptr, cDesc_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  DeviceArray<std::uint8_t> a_, bt_, workspace_;
  GemmReference ref_;
};

// The most the FP8 row may differ from the exact product of the rounded inputs, per unit of
// sum |a b|: errorBound(K), and 2^-11 for the tensor cores' narrower accumulation of FP8 products
// inside one instruction (they keep about 13 to 14 bits of the partial sum, DeepSeek-V3's report
// found on Hopper) before cuBLASLt adds the partial sums in float32. Measured on an H200: up to
// 1.0e-4 at K = 145 and 8e-6 at K = 8192 (2^-11 = 4.9e-4); a wrong layout errs by far more.
double errorBoundFp8(int K);

}  // namespace cudalab::tensor_cores
