// Checking a matrix product C = A B against float64, shared by the lessons that multiply
// matrices (matmul, tensor cores): which rows to check, the float64 product of those rows with
// the sum of |products| beside each element (what bounds the rounding of any order of sums), and
// the element-by-element comparison within a bound the lesson derives from its formats and K.
//
//   GemmReference ref = referenceProduct(A, B, M, N, K, checkedRows(M, N));
//   Correctness c = compareProduct(hostC, ldc, ref, bound);   // bound: per unit of absSum
//
// Matrices are row-major: A is M x K, B is K x N, C is M x N with a row pitch of ldc >= N.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/measurement.hpp"
#include "common/measurement_export.hpp"

namespace cudalab {

// Rows of C to check: all rows when M x N <= 1024 x 1024, otherwise a sample (the first, the
// last and evenly spread rows between, 64 in all), so a 16384-square check stays fast.
std::vector<int> checkedRows(int M, int N);

// The float64 product of the chosen rows, and beside each element the sum of |A[i,k] B[k,j]|.
struct GemmReference {
  std::vector<int> rows;
  int N = 0;
  std::vector<double> c;       // rows.size() x N
  std::vector<double> absSum;  // rows.size() x N
};
// T: float or double. `threads` 0: all cores.
template <class T>
GemmReference referenceProduct(const T* A, const T* B, int M, int N, int K, std::vector<int> rows,
                               int threads = 0);

// Compares `c` (row pitch ldc) with the reference on the reference's rows. An element is wrong
// when |c - ref| > bound x absSum (NaN, the poison, is always wrong). maxAbsError is the largest
// |c - ref|; maxRelError the largest |c - ref| over the largest |ref| (normwise, so elements near
// 0 do not blow it up).
template <class T>
Correctness compareProduct(const T* c, std::size_t ldc, const GemmReference& ref, double bound);

// A product's parameters (M, N, K) with each at most `cap`: the counters' readings cap the sizes,
// since every kernel runs once per profiler pass.
template <class P>
P cappedProduct(P p, int cap) {
  p.M = std::min(p.M, cap);
  p.N = std::min(p.N, cap);
  p.K = std::min(p.K, cap);
  return p;
}

// A product step's row for the exports (CSV, JSON): the sizes, the step's rate under `rateName`
// ("gflops", "tflops"), its share of cuBLAS, its check against the reference, and its times.
MeasuredRow productRow(const char* key, int M, int N, int K, const char* rateName, double rate,
                       double ofLibrary, const Correctness& e, const Measurement& m);

}  // namespace cudalab
