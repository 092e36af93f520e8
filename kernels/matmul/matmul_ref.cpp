// The matmul lesson's CPU side: the float64 reference, error bounds and comparison, and the
// float32 CPU product that plays NumPy's part in the course's comparison.
#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "common/host_parallel.hpp"
#include "matmul/matmul.hpp"

namespace cudalab::matmul {

double errorBound(Precision p, int K) {
  // |fl(sum) - sum| <= gamma_K * sum |a b| with gamma_K ~ K u for any order of K additions; one
  // more u for the product itself, and 2 u as headroom for the float64 reference's own rounding.
  const double k = std::max(1, K) + 3;
  switch (p) {
    case Precision::Float32:
      return k * std::ldexp(1.0, -24);
    case Precision::Tf32:
      return 2 * std::ldexp(1.0, -11) + k * std::ldexp(1.0, -24);
    case Precision::Float64:
      return k * std::ldexp(1.0, -53) + 1e-300;
  }
  return 0;
}

template <class T>
Correctness compare(const T* c, const Reference& ref, Precision p, int K) {
  return compareProduct(c, static_cast<std::size_t>(ref.N), ref, errorBound(p, K));
}

template Correctness compare<float>(const float*, const Reference&, Precision, int);
template Correctness compare<double>(const double*, const Reference&, Precision, int);

void cpuMatmul(const float* A, const float* B, float* C, int M, int N, int K, int threads) {
  const std::size_t n = static_cast<std::size_t>(N), k = static_cast<std::size_t>(K);
  parallelFor(M, threads, [&](int begin, int end) {
    for (int ii = begin; ii < end; ++ii) {
      const std::size_t i = static_cast<std::size_t>(ii);
      float* c = C + i * n;
      std::fill(c, c + n, 0.0f);
      // i-k-j: C's row accumulates rows of B scaled by A[i, k]; the inner loop vectorises.
      for (std::size_t kk = 0; kk < k; ++kk) {
        const float a = A[i * k + kk];
        const float* b = B + kk * n;
        for (std::size_t j = 0; j < n; ++j)
          c[j] += a * b[j];
      }
    }
  });
}

}  // namespace cudalab::matmul
