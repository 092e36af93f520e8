// The matmul lesson's CPU reference, checked without a GPU: which rows are checked, the float64
// product and its |a b| sums on hand-worked matrices, error bounds that grow with K and order the
// precisions, compare() catching a perturbed element and the NaN poison, and the float32 CPU
// product (one thread or all cores) within the bound for sizes that are no multiple of anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "matmul/matmul.hpp"

namespace cudalab::matmul {
namespace {

std::vector<float> randomMatrix(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v)
    x = u(rng);
  return v;
}

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

// ---------------------------------------------------------------------------------------------
// checkedRows
// ---------------------------------------------------------------------------------------------

TEST(MatmulCheckedRows, AllRowsUpToAMillionElements) {
  for (auto [M, N] : std::vector<std::pair<int, int>>{
           {1, 1}, {17, 33}, {257, 129}, {1024, 1024}, {1, 1024 * 1024}, {1024 * 1024, 1}}) {
    const std::vector<int> rows = checkedRows(M, N);
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(M)) << M << " x " << N;
    for (int i = 0; i < M; ++i)
      ASSERT_EQ(rows[static_cast<std::size_t>(i)], i);
  }
  EXPECT_TRUE(checkedRows(0, 5).empty());
}

TEST(MatmulCheckedRows, SampledBeyondAMillion) {
  for (auto [M, N] : std::vector<std::pair<int, int>>{
           {1025, 1024}, {4096, 4096}, {16384, 16384}, {100, 20000}, {64, 16385}, {2000, 1000}}) {
    SCOPED_TRACE(std::to_string(M) + " x " + std::to_string(N));
    const std::vector<int> rows = checkedRows(M, N);
    ASSERT_EQ(rows.size(), 64u);
    EXPECT_EQ(rows.front(), 0);
    EXPECT_EQ(rows.back(), M - 1);
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
    EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end()) << "a row twice";
  }
  // Fewer than 64 rows but too many elements: every row, once.
  const std::vector<int> few = checkedRows(10, 200000);
  ASSERT_EQ(few.size(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(few[static_cast<std::size_t>(i)], i);
  // Spread evenly: at 4096 rows, no gap between sampled rows wider than 4095 / 63 rounded up.
  const std::vector<int> r = checkedRows(4096, 4096);
  for (std::size_t i = 1; i < r.size(); ++i)
    EXPECT_LE(r[i] - r[i - 1], 66) << i;
}

// ---------------------------------------------------------------------------------------------
// referenceProduct
// ---------------------------------------------------------------------------------------------

TEST(MatmulReference, HandWorkedTwoByTwo) {
  // [1 -2; 3 4] [5 6; 7 8] = [1*5 - 2*7, 1*6 - 2*8; 3*5 + 4*7, 3*6 + 4*8] = [-9 -10; 43 50]
  const double A[] = {1, -2, 3, 4};
  const double B[] = {5, 6, 7, 8};
  for (int threads : {1, 0, 3}) {
    const Reference ref = referenceProduct(A, B, 2, 2, 2, {0, 1}, threads);
    EXPECT_EQ(ref.N, 2);
    EXPECT_EQ(ref.rows, (std::vector<int>{0, 1}));
    EXPECT_EQ(ref.c, (std::vector<double>{-9, -10, 43, 50}));
    EXPECT_EQ(ref.absSum, (std::vector<double>{19, 22, 43, 50}));
  }
}

TEST(MatmulReference, HandWorkedRectangularAndChosenRows) {
  // A is 3 x 2, B is 2 x 4, in float.
  const float A[] = {1,  2,     //
                     -1, 0.5f,  //
                     0,  -3};
  const float B[] = {1, 0,  -1,    2,  //
                     4, -2, 0.25f, 1};
  // Row 0: [1 + 8, 0 - 4, -1 + 0.5, 2 + 2] = [9, -4, -0.5, 4]; |.|: [9, 4, 1.5, 4]
  // Row 1: [-1 + 2, 0 - 1, 1 + 0.125, -2 + 0.5] = [1, -1, 1.125, -1.5]; |.|: [3, 1, 1.125, 2.5]
  // Row 2: [0 - 12, 0 + 6, 0 - 0.75, 0 - 3] = [-12, 6, -0.75, -3]; |.|: the same without signs
  const Reference all = referenceProduct(A, B, 3, 4, 2, {0, 1, 2}, 1);
  EXPECT_EQ(all.c, (std::vector<double>{9, -4, -0.5, 4, 1, -1, 1.125, -1.5, -12, 6, -0.75, -3}));
  EXPECT_EQ(all.absSum, (std::vector<double>{9, 4, 1.5, 4, 3, 1, 1.125, 2.5, 12, 6, 0.75, 3}));
  // Only rows 2 and 0, in that order: the reference keeps the order it is given.
  const Reference some = referenceProduct(A, B, 3, 4, 2, {2, 0}, 0);
  EXPECT_EQ(some.rows, (std::vector<int>{2, 0}));
  EXPECT_EQ(some.c, (std::vector<double>{-12, 6, -0.75, -3, 9, -4, -0.5, 4}));
  EXPECT_EQ(some.absSum, (std::vector<double>{12, 6, 0.75, 3, 9, 4, 1.5, 4}));
  // No rows: nothing computed.
  const Reference none = referenceProduct(A, B, 3, 4, 2, {}, 0);
  EXPECT_TRUE(none.c.empty());
  EXPECT_TRUE(none.absSum.empty());
}

TEST(MatmulReference, ExactInDoubleForFloatInputs) {
  // Products of two floats are exact in double, and sums of small integers are too: an integer
  // matrix product must come out exactly.
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> d(-8, 8);
  const int M = 13, N = 11, K = 37;
  std::vector<float> a(count(M, K)), b(count(K, N));
  for (float& v : a)
    v = static_cast<float>(d(rng));
  for (float& v : b)
    v = static_cast<float>(d(rng));
  const Reference ref = referenceProduct(a.data(), b.data(), M, N, K, checkedRows(M, N), 0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long want = 0, abs = 0;
      for (int k = 0; k < K; ++k) {
        const long long p = static_cast<long long>(a[count(i, K) + static_cast<std::size_t>(k)]) *
                            static_cast<long long>(b[count(k, N) + static_cast<std::size_t>(j)]);
        want += p;
        abs += p < 0 ? -p : p;
      }
      EXPECT_EQ(ref.c[count(i, N) + static_cast<std::size_t>(j)], static_cast<double>(want));
      EXPECT_EQ(ref.absSum[count(i, N) + static_cast<std::size_t>(j)], static_cast<double>(abs));
    }
}

// ---------------------------------------------------------------------------------------------
// errorBound
// ---------------------------------------------------------------------------------------------

TEST(MatmulErrorBound, GrowsWithKAndOrdersPrecisions) {
  int previousK = 0;
  for (int K : {1, 2, 9, 100, 1024, 16384}) {
    SCOPED_TRACE(K);
    const double f64 = errorBound(Precision::Float64, K);
    const double f32 = errorBound(Precision::Float32, K);
    const double tf32 = errorBound(Precision::Tf32, K);
    EXPECT_GT(f64, 0);
    EXPECT_LT(f64, f32);
    EXPECT_LT(f32, tf32);
    if (previousK > 0) {
      EXPECT_GT(f64, errorBound(Precision::Float64, previousK));
      EXPECT_GT(f32, errorBound(Precision::Float32, previousK));
      EXPECT_GT(tf32, errorBound(Precision::Tf32, previousK));
    }
    previousK = K;
    // At least K units of roundoff of each precision; TF32 at least its input rounding.
    EXPECT_GE(f32, K * std::ldexp(1.0, -24));
    EXPECT_GE(f64, K * std::ldexp(1.0, -53));
    EXPECT_GE(tf32, 2 * std::ldexp(1.0, -11));
    // And loose by no more than a few units: a bound that tells a wrong result from a right one.
    EXPECT_LT(f32, (K + 8) * std::ldexp(1.0, -24));
  }
}

// ---------------------------------------------------------------------------------------------
// compare
// ---------------------------------------------------------------------------------------------

struct Case {
  int M, N, K;
  std::vector<float> a, b, c;
  Reference ref;
};

Case randomCase(int M, int N, int K, std::mt19937& rng) {
  Case t{M,
         N,
         K,
         randomMatrix(count(M, K), rng),
         randomMatrix(count(K, N), rng),
         std::vector<float>(count(M, N)),
         {}};
  cpuMatmul(t.a.data(), t.b.data(), t.c.data(), M, N, K, 1);
  t.ref = referenceProduct(t.a.data(), t.b.data(), M, N, K, checkedRows(M, N), 0);
  return t;
}

TEST(MatmulCompare, CorrectFloatProductPasses) {
  const std::uint32_t sd = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(sd));
  std::mt19937 rng(sd);
  for (auto [M, N, K] : std::vector<std::array<int, 3>>{{1, 1, 1}, {17, 33, 9}, {64, 48, 300}}) {
    const Case t = randomCase(M, N, K, rng);
    const Correctness c = compare(t.c.data(), t.ref, Precision::Float32, K);
    EXPECT_TRUE(c.ran);
    EXPECT_TRUE(c.ok()) << c.wrong << " wrong at " << M << " x " << N << " x " << K;
    EXPECT_EQ(c.wrong, 0u);
    EXPECT_EQ(c.checked, count(M, N));
    EXPECT_LT(c.maxAbsError, 1e-4);
    // The same result judged as TF32 passes too (a looser bound).
    EXPECT_TRUE(compare(t.c.data(), t.ref, Precision::Tf32, K).ok());
  }
}

TEST(MatmulCompare, ExactDoubleProductPassesAsFloat64) {
  std::mt19937 rng(std::random_device{}());
  const int M = 17, N = 33, K = 9;
  const std::vector<float> af = randomMatrix(count(M, K), rng), bf = randomMatrix(count(K, N), rng);
  const std::vector<double> a(af.begin(), af.end()), b(bf.begin(), bf.end());
  const Reference ref = referenceProduct(a.data(), b.data(), M, N, K, checkedRows(M, N), 1);
  const Correctness c = compare(ref.c.data(), ref, Precision::Float64, K);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.maxAbsError, 0.0);
  EXPECT_EQ(c.maxRelError, 0.0);
  // A float32 result is far outside the float64 bound.
  std::vector<float> c32(count(M, N));
  cpuMatmul(af.data(), bf.data(), c32.data(), M, N, K, 1);
  std::vector<double> wide(c32.begin(), c32.end());
  EXPECT_GT(compare(wide.data(), ref, Precision::Float64, K).wrong, 0u);
}

TEST(MatmulCompare, OnePerturbedElementIsCountedWrong) {
  const std::uint32_t sd = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(sd));
  std::mt19937 rng(sd);
  const int M = 17, N = 33, K = 64;
  Case t = randomCase(M, N, K, rng);
  const std::size_t at = count(5, N) + 7;
  t.c[at] += 1e-2f;
  const Correctness c = compare(t.c.data(), t.ref, Precision::Float32, K);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.wrong, 1u);
  EXPECT_EQ(c.firstWrong, at);
  EXPECT_EQ(c.checked, count(M, N));
  EXPECT_NEAR(c.maxAbsError, 1e-2, 1e-4);
  // A second one later on: still the first reported.
  t.c[count(16, N) + 32] -= 1e-2f;
  const Correctness two = compare(t.c.data(), t.ref, Precision::Float32, K);
  EXPECT_EQ(two.wrong, 2u);
  EXPECT_EQ(two.firstWrong, at);
}

TEST(MatmulCompare, NanPoisonIsWrong) {
  std::mt19937 rng(std::random_device{}());
  const int M = 9, N = 7, K = 5;
  Case t = randomCase(M, N, K, rng);
  const std::size_t at = count(3, N) + 2;
  t.c[at] = std::numeric_limits<float>::quiet_NaN();
  const Correctness one = compare(t.c.data(), t.ref, Precision::Float32, K);
  EXPECT_EQ(one.wrong, 1u);
  EXPECT_EQ(one.firstWrong, at);
  EXPECT_FALSE(std::isfinite(one.maxAbsError));
  // The whole output poisoned with 0xff bytes, as the GPU runs do before each launch.
  std::memset(t.c.data(), 0xff, t.c.size() * sizeof(float));
  ASSERT_TRUE(std::isnan(t.c[0]));
  const Correctness all = compare(t.c.data(), t.ref, Precision::Float32, K);
  EXPECT_FALSE(all.ok());
  EXPECT_EQ(all.wrong, count(M, N));
  EXPECT_EQ(all.firstWrong, 0u);
  // An infinity is wrong too.
  t.ref.c.assign(t.ref.c.size(), 0.0);
  std::vector<float> inf(t.c.size(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(compare(inf.data(), t.ref, Precision::Float32, K).wrong, count(M, N));
}

TEST(MatmulCompare, RelativeErrorIsNormwise) {
  // The hand-worked 2 x 2 product with one element off by 0.5: maxAbs 0.5, max |ref| 50.
  const double A[] = {1, -2, 3, 4};
  const double B[] = {5, 6, 7, 8};
  const Reference ref = referenceProduct(A, B, 2, 2, 2, {0, 1}, 1);
  const double got[] = {-9, -10, 43.5, 50};
  const Correctness c = compare(got, ref, Precision::Float64, 2);
  EXPECT_EQ(c.wrong, 1u);
  EXPECT_EQ(c.firstWrong, 2u);
  EXPECT_DOUBLE_EQ(c.maxAbsError, 0.5);
  EXPECT_DOUBLE_EQ(c.maxRelError, 0.5 / 50);

  // On random data: maxRelError = maxAbsError / max |ref| exactly.
  std::mt19937 rng(std::random_device{}());
  const int M = 31, N = 19, K = 200;
  const Case t = randomCase(M, N, K, rng);
  const Correctness r = compare(t.c.data(), t.ref, Precision::Float32, K);
  double maxRef = 0;
  for (double v : t.ref.c)
    maxRef = std::max(maxRef, std::fabs(v));
  ASSERT_GT(maxRef, 0);
  EXPECT_GT(r.maxAbsError, 0);  // a float32 sum of 200 terms is not exact
  EXPECT_DOUBLE_EQ(r.maxRelError, r.maxAbsError / maxRef);
}

TEST(MatmulCompare, SampledRowsAreTheOnesChecked) {
  // 1100 x 1000 > a million elements: 64 rows checked. A wrong element on an unchecked row goes
  // unseen; one on a checked row is found with its index in the full matrix.
  std::mt19937 rng(std::random_device{}());
  const int M = 1100, N = 1000, K = 3;
  std::vector<float> a = randomMatrix(count(M, K), rng), b = randomMatrix(count(K, N), rng);
  std::vector<float> c(count(M, N));
  cpuMatmul(a.data(), b.data(), c.data(), M, N, K, 0);
  const std::vector<int> rows = checkedRows(M, N);
  ASSERT_EQ(rows.size(), 64u);
  const Reference ref = referenceProduct(a.data(), b.data(), M, N, K, rows, 0);
  const Correctness ok = compare(c.data(), ref, Precision::Float32, K);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.checked, 64u * 1000u);
  int unchecked = 1;
  while (std::find(rows.begin(), rows.end(), unchecked) != rows.end())
    ++unchecked;
  c[count(unchecked, N)] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(compare(c.data(), ref, Precision::Float32, K).ok());
  const int checkedRow = rows[10];
  c[count(checkedRow, N) + 999] = std::numeric_limits<float>::quiet_NaN();
  const Correctness bad = compare(c.data(), ref, Precision::Float32, K);
  EXPECT_EQ(bad.wrong, 1u);
  EXPECT_EQ(bad.firstWrong, count(checkedRow, N) + 999);
}

// ---------------------------------------------------------------------------------------------
// cpuMatmul
// ---------------------------------------------------------------------------------------------

TEST(MatmulCpu, OneThreadAndAllCoresAgreeWithTheReference) {
  const std::uint32_t sd = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(sd));
  std::mt19937 rng(sd);
  std::uniform_int_distribution<int> d(1, 80);
  std::vector<std::array<int, 3>> shapes = {
      {17, 33, 9}, {1, 1, 1}, {1, 40, 3}, {40, 1, 7}, {257, 129, 31}};
  for (int i = 0; i < 3; ++i)
    shapes.push_back({d(rng), d(rng), d(rng)});
  for (auto [M, N, K] : shapes) {
    SCOPED_TRACE(std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K));
    const std::vector<float> a = randomMatrix(count(M, K), rng), b = randomMatrix(count(K, N), rng);
    const Reference ref = referenceProduct(a.data(), b.data(), M, N, K, checkedRows(M, N), 0);
    std::vector<float> one(count(M, N), std::numeric_limits<float>::quiet_NaN());
    std::vector<float> all(count(M, N), std::numeric_limits<float>::quiet_NaN());
    std::vector<float> three(count(M, N), std::numeric_limits<float>::quiet_NaN());
    cpuMatmul(a.data(), b.data(), one.data(), M, N, K, 1);
    cpuMatmul(a.data(), b.data(), all.data(), M, N, K, 0);
    cpuMatmul(a.data(), b.data(), three.data(), M, N, K, 3);
    const Correctness c1 = compare(one.data(), ref, Precision::Float32, K);
    const Correctness c0 = compare(all.data(), ref, Precision::Float32, K);
    EXPECT_TRUE(c1.ok()) << c1.wrong << " wrong, first at " << c1.firstWrong;
    EXPECT_TRUE(c0.ok()) << c0.wrong << " wrong, first at " << c0.firstWrong;
    EXPECT_EQ(c1.checked, count(M, N));
    EXPECT_EQ(c0.checked, count(M, N));
    // Each row is summed in the same order whichever thread computes it.
    EXPECT_EQ(0, std::memcmp(one.data(), all.data(), one.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(one.data(), three.data(), one.size() * sizeof(float)));
  }
}

TEST(MatmulCpu, OverwritesItsOutput) {
  // C is written, not accumulated into: a product with a zero matrix is all zeros.
  const float A[] = {1, 2, 3, 4, 5, 6};  // 2 x 3
  const float Z[] = {0, 0, 0};           // 3 x 1
  float C[] = {7, 7};
  cpuMatmul(A, Z, C, 2, 1, 3, 1);
  EXPECT_EQ(C[0], 0.0f);
  EXPECT_EQ(C[1], 0.0f);
  const float B[] = {1, -1, 2};  // 3 x 1: row 0 = 1 - 2 + 6 = 5, row 1 = 4 - 5 + 12 = 11
  cpuMatmul(A, B, C, 2, 1, 3, 0);
  EXPECT_EQ(C[0], 5.0f);
  EXPECT_EQ(C[1], 11.0f);
}

}  // namespace
}  // namespace cudalab::matmul
