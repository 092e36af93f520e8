// The FP8 row of the tensor-cores ladder: cuBLASLt on FP8 E4M3 inputs (tensor_cores_fp8.hpp).
#include "tensor_cores/tensor_cores_fp8.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "common/cuda_check.hpp"
#include "models/floats.hpp"

namespace cudalab::tensor_cores {

namespace {

Status ltStatus(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return {};
  return Status::error(std::string("cuBLASLt failed in ") + what + ": " +
                       cublasLtGetStatusString(s) + ".");
}
#define CUDALAB_LT_TRY(expr) CUDALAB_TRY(ltStatus((expr), #expr))

// cuBLASLt's workspace: what its FP8 kernels may use (NVIDIA's samples give 32 MiB on Hopper).
constexpr std::size_t kWorkspaceBytes = 32u << 20;

}  // namespace

std::vector<float> roundedToFp8(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out[i] = float(floats::roundTo(floats::Format::FP8E4M3, v[i]));
  return out;
}

double errorBoundFp8(int K) {
  return errorBound(K) + std::ldexp(1.0, -11);
}

Fp8Product::~Fp8Product() {
  if (cDesc_) cublasLtMatrixLayoutDestroy(cDesc_);
  if (bDesc_) cublasLtMatrixLayoutDestroy(bDesc_);
  if (aDesc_) cublasLtMatrixLayoutDestroy(aDesc_);
  if (op_) cublasLtMatmulDescDestroy(op_);
  if (handle_) cublasLtDestroy(handle_);
}

Status Fp8Product::prepare(const std::vector<float>& a, const std::vector<float>& b, int M, int N,
                           int K, Padded pad, cudaStream_t stream) {
  pad_ = pad;
  const std::vector<float> ra = roundedToFp8(a), rb = roundedToFp8(b);
  // A row-major (pad.M x pad.K) and B transposed (pad.N x pad.K), as E4M3 bytes; zeros around.
  std::vector<std::uint8_t> ha(std::size_t(pad.M) * pad.K, 0), hbt(std::size_t(pad.N) * pad.K, 0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      ha[std::size_t(i) * pad.K + k] =
          std::uint8_t(floats::encode(floats::Format::FP8E4M3, ra[std::size_t(i) * K + k]));
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j)
      hbt[std::size_t(j) * pad.K + k] =
          std::uint8_t(floats::encode(floats::Format::FP8E4M3, rb[std::size_t(k) * N + j]));
  CUDALAB_TRY(a_.allocate(ha.size()));
  CUDALAB_TRY(bt_.allocate(hbt.size()));
  CUDALAB_TRY(workspace_.allocate(kWorkspaceBytes));
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(a_.get(), ha.data(), ha.size(), cudaMemcpyHostToDevice, stream));
  CUDALAB_CUDA_TRY(
      cudaMemcpyAsync(bt_.get(), hbt.data(), hbt.size(), cudaMemcpyHostToDevice, stream));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));  // before the host vectors go
  ref_ = referenceProduct(ra.data(), rb.data(), M, N, K, checkedRows(M, N));

  // Column-major, as cuBLASLt sees it: row-major C = A B is C^T (pad.N x pad.M) = B^T A^T. The
  // FP8 product takes its first operand transposed: B^T is stored as Bt's rows (K-major, pad.K
  // x pad.N column-major, op T), and A^T as A's rows (pad.K x pad.M column-major, op N).
  CUDALAB_LT_TRY(cublasLtCreate(&handle_));
  CUDALAB_LT_TRY(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  CUDALAB_LT_TRY(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
  CUDALAB_LT_TRY(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
  CUDALAB_LT_TRY(cublasLtMatrixLayoutCreate(&aDesc_, CUDA_R_8F_E4M3, pad.K, pad.N, pad.K));
  CUDALAB_LT_TRY(cublasLtMatrixLayoutCreate(&bDesc_, CUDA_R_8F_E4M3, pad.K, pad.M, pad.K));
  CUDALAB_LT_TRY(cublasLtMatrixLayoutCreate(&cDesc_, CUDA_R_32F, pad.N, pad.M, pad.N));
  cublasLtMatmulPreference_t pref = nullptr;
  CUDALAB_LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = kWorkspaceBytes;
  cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulHeuristicResult_t found{};
  int count = 0;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulAlgoGetHeuristic(handle_, op_, aDesc_, bDesc_, cDesc_, cDesc_, pref, 1,
                                       &found, &count);
  cublasLtMatmulPreferenceDestroy(pref);
  CUDALAB_LT_TRY(s);
  if (count == 0)
    return Status::error(N_("cuBLASLt has no FP8 product for these sizes on this GPU."));
  algo_ = found.algo;
  return {};
}

Status Fp8Product::run(float* C, cudaStream_t stream) {
  const float one = 1, zero = 0;
  CUDALAB_LT_TRY(cublasLtMatmul(handle_, op_, &one, bt_.get(), aDesc_, a_.get(), bDesc_, &zero, C,
                                cDesc_, C, cDesc_, &algo_, workspace_.get(), kWorkspaceBytes,
                                stream));
  return {};
}

}  // namespace cudalab::tensor_cores
