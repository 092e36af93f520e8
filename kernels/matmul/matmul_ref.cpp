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

std::vector<int> checkedRows(int M, int N) {
  std::vector<int> rows;
  if (M <= 0) return rows;
  if (1LL * M * N <= 1024LL * 1024LL) {
    rows.resize(static_cast<std::size_t>(M));
    for (int i = 0; i < M; ++i)
      rows[static_cast<std::size_t>(i)] = i;
    return rows;
  }
  constexpr int kSampled = 64;
  const int n = std::min(M, kSampled);
  for (int s = 0; s < n; ++s)
    rows.push_back(n == 1 ? 0 : static_cast<int>(1LL * s * (M - 1) / (n - 1)));
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

template <class T>
Reference referenceProduct(const T* A, const T* B, int M, int N, int K, std::vector<int> rows,
                           int threads) {
  (void)M;
  Reference ref;
  ref.rows = std::move(rows);
  ref.N = N;
  const std::size_t n = static_cast<std::size_t>(N);
  ref.c.assign(ref.rows.size() * n, 0.0);
  ref.absSum.assign(ref.rows.size() * n, 0.0);
  parallelFor(static_cast<int>(ref.rows.size()), threads, [&](int begin, int end) {
    for (int r = begin; r < end; ++r) {
      const std::size_t i = static_cast<std::size_t>(ref.rows[static_cast<std::size_t>(r)]);
      double* c = &ref.c[static_cast<std::size_t>(r) * n];
      double* s = &ref.absSum[static_cast<std::size_t>(r) * n];
      // i-k-j: the inner loop runs along rows of B and C, contiguous in memory.
      for (int k = 0; k < K; ++k) {
        const double a =
            static_cast<double>(A[i * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)]);
        const T* b = B + static_cast<std::size_t>(k) * n;
        for (std::size_t j = 0; j < n; ++j) {
          const double p = a * static_cast<double>(b[j]);
          c[j] += p;
          s[j] += std::fabs(p);
        }
      }
    }
  });
  return ref;
}

template Reference referenceProduct<float>(const float*, const float*, int, int, int,
                                           std::vector<int>, int);
template Reference referenceProduct<double>(const double*, const double*, int, int, int,
                                            std::vector<int>, int);

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
  Correctness out;
  out.ran = true;
  const double bound = errorBound(p, K);
  const std::size_t n = static_cast<std::size_t>(ref.N);
  double maxRef = 0;
  for (std::size_t r = 0; r < ref.rows.size(); ++r) {
    const std::size_t i = static_cast<std::size_t>(ref.rows[r]);
    for (std::size_t j = 0; j < n; ++j) {
      const double want = ref.c[r * n + j];
      const double got = static_cast<double>(c[i * n + j]);
      const double err = std::fabs(got - want);
      maxRef = std::max(maxRef, std::fabs(want));
      ++out.checked;
      // NaN (the poison) fails both comparisons, so it counts as wrong.
      if (!(err <= bound * ref.absSum[r * n + j])) {
        if (out.wrong++ == 0) out.firstWrong = i * n + j;
        if (!std::isfinite(err)) {
          out.maxAbsError = std::numeric_limits<double>::infinity();
          continue;
        }
      }
      out.maxAbsError = std::max(out.maxAbsError, err);
    }
  }
  out.maxRelError = maxRef > 0 ? out.maxAbsError / maxRef : out.maxAbsError;
  return out;
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
