// Checking a matrix product against float64 (gemm_check.hpp).
#include "common/gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/host_parallel.hpp"

namespace cudalab {

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
GemmReference referenceProduct(const T* A, const T* B, int M, int N, int K, std::vector<int> rows,
                               int threads) {
  (void)M;
  GemmReference ref;
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

template GemmReference referenceProduct<float>(const float*, const float*, int, int, int,
                                               std::vector<int>, int);
template GemmReference referenceProduct<double>(const double*, const double*, int, int, int,
                                                std::vector<int>, int);

template <class T>
Correctness compareProduct(const T* c, std::size_t ldc, const GemmReference& ref, double bound) {
  Correctness out;
  out.ran = true;
  const std::size_t n = static_cast<std::size_t>(ref.N);
  double maxRef = 0;
  for (std::size_t r = 0; r < ref.rows.size(); ++r) {
    const std::size_t i = static_cast<std::size_t>(ref.rows[r]);
    for (std::size_t j = 0; j < n; ++j) {
      const double want = ref.c[r * n + j];
      const double got = static_cast<double>(c[i * ldc + j]);
      const double err = std::fabs(got - want);
      maxRef = std::max(maxRef, std::fabs(want));
      ++out.checked;
      // NaN (the poison) fails both comparisons, so it counts as wrong.
      if (!(err <= bound * ref.absSum[r * n + j])) {
        if (out.wrong++ == 0) out.firstWrong = i * ldc + j;
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

template Correctness compareProduct<float>(const float*, std::size_t, const GemmReference&, double);
template Correctness compareProduct<double>(const double*, std::size_t, const GemmReference&,
                                            double);

MeasuredRow productRow(const char* key, int M, int N, int K, const char* rateName, double rate,
                       double ofLibrary, const Correctness& e, const Measurement& m) {
  return {key,
          {{"M", M},
           {"N", N},
           {"K", K},
           {rateName, rate},
           {"of_cublas", ofLibrary},
           {"max_abs_error", e.maxAbsError},
           {"max_rel_error", e.maxRelError},
           {"correct", e.ok() ? 1.0 : 0.0}},
          m};
}

}  // namespace cudalab
