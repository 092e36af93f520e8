// Summation error's pure part: the methods table; the random inputs (deterministic, N(0, 1),
// independent of how many cores filled them); the exact sum against integer arithmetic and crafted
// cases; every method's error within its bound on random inputs; the tree order against a
// straightforward emulation and a hand-written tree; shape validation; sumAll, the growth sizes,
// sumGrowth against sumAll on each prefix, progress and cancel. No GPU is used here.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "precision/summation.hpp"

namespace cudalab::precision {
namespace {

constexpr double kU = 0x1p-24;  // unit roundoff of float32 (the header's eps)

double gamma(double k, double u = kU) {
  return k * u / (1 - k * u);
}

uint32_t bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

int log2Exact(int v) {
  int l = 0;
  while ((1 << l) < v)
    ++l;
  return l;
}

// The most rounded additions any one number takes part in, following the kernels: its thread's
// chain (the first addition, to 0.0f, is exact), the block's tree, the second pass's chain and
// its tree.
double treeDepth(size_t n, TreeShape t) {
  const size_t grid = static_cast<size_t>(t.blocks) * static_cast<size_t>(t.threads);
  const size_t perThread = std::max<size_t>((n + grid - 1) / grid, 1);
  const size_t perThread2 = static_cast<size_t>((t.blocks + t.threads - 1) / t.threads);
  return static_cast<double>(perThread - 1 + perThread2 - 1) + 2.0 * log2Exact(t.threads);
}

// Pairwise: a block of at most 8 takes m - 1 additions, every halving one more.
double pairwiseDepth(size_t n) {
  if (n <= 8) return n == 0 ? 0 : static_cast<double>(n - 1);
  return 1 + pairwiseDepth(n - n / 2);
}

// The tree order written the plainest way, one simulated thread at a time.
float naiveTree(const std::vector<float>& x, TreeShape t) {
  const size_t T = static_cast<size_t>(t.threads), B = static_cast<size_t>(t.blocks);
  auto pass = [T](const std::vector<float>& in, size_t blocks) {
    std::vector<float> out(blocks);
    for (size_t b = 0; b < blocks; ++b) {
      std::vector<float> s(T);
      for (size_t j = 0; j < T; ++j) {
        float acc = 0.0f;
        for (size_t i = b * T + j; i < in.size(); i += blocks * T)
          acc = acc + in[i];
        s[j] = acc;
      }
      for (size_t h = T / 2; h > 0; h /= 2)
        for (size_t j = 0; j < h; ++j)
          s[j] = s[j] + s[j + h];
      out[b] = s[0];
    }
    return out;
  };
  return pass(pass(x, B), 1)[0];
}

// ---------------------------------------------------------------------------------------------

TEST(SummationTables, FiveMethodsInEnumOrderWithTextsAndBounds) {
  ASSERT_EQ(sumMethods().size(), static_cast<size_t>(kSumMethodCount));
  std::set<std::string> ids;
  int i = 0;
  for (const SumMethodInfo& m : sumMethods()) {
    EXPECT_EQ(static_cast<int>(m.method), i++);
    EXPECT_TRUE(ids.insert(m.id).second) << m.id;
    EXPECT_GT(std::string(m.label).size(), 3u);
    EXPECT_GT(std::string(m.help).size(), 80u) << m.id;
    EXPECT_NE(std::string(m.bound).find("sum|x|"), std::string::npos) << m.id;
    EXPECT_EQ(m.gpu, m.method == SumMethod::GpuTree) << m.id;
    EXPECT_EQ(&sumMethodInfo(m.method), &m);
  }
  EXPECT_EQ(ids, (std::set<std::string>{"sequential", "gpu_tree", "pairwise", "kahan", "f64"}));
}

TEST(SummationInputs, NormalFloatsAreDeterministicAndStandardNormal) {
  const size_t n = 1000000;
  const std::vector<float> x = normalFloats(n, 42);
  ASSERT_EQ(x.size(), n);
  EXPECT_EQ(x, normalFloats(n, 42));
  EXPECT_NE(x, normalFloats(n, 43));
  double mean = 0, within1 = 0;
  for (float v : x) {
    ASSERT_TRUE(std::isfinite(v));
    ASSERT_LT(std::fabs(v), 8.6f);  // Box-Muller with u1 >= 2^-53: |x| <= sqrt(106 ln 2)
    mean += v;
    within1 += std::fabs(v) < 1.0f ? 1 : 0;
  }
  mean /= static_cast<double>(n);
  double var = 0;
  for (float v : x)
    var += (v - mean) * (v - mean);
  var /= static_cast<double>(n - 1);
  // Standard errors: 1e-3 for the mean, sqrt(2/n) = 1.4e-3 for the variance.
  EXPECT_NEAR(mean, 0.0, 5e-3);
  EXPECT_NEAR(var, 1.0, 1e-2);
  EXPECT_NEAR(within1 / static_cast<double>(n), 0.6827, 5e-3);
}

TEST(SummationInputs, ElementsDependOnlyOnSeedAndIndex) {
  // A large n is filled on all cores, a small one on one: the shared prefix is the same.
  const std::vector<float> big = normalFloats((size_t{1} << 20) + 5, 7);
  for (size_t n : {size_t{1}, size_t{2}, size_t{999}, size_t{1000}, size_t{200001}}) {
    const std::vector<float> small = normalFloats(n, 7);
    ASSERT_EQ(small.size(), n);
    EXPECT_TRUE(std::equal(small.begin(), small.end(), big.begin())) << n;
  }
  EXPECT_TRUE(normalFloats(0, 7).empty());
}

TEST(SummationExact, CraftedInputs) {
  const std::vector<float> a = {1e8f, 1.0f, -1e8f};
  ExactSum e = sumExact(a);
  EXPECT_EQ(e.hi, 1.0);
  EXPECT_EQ(e.lo, 0.0);
  EXPECT_EQ(sumSequential(a), 0.0f);  // 1e8 + 1 rounds back to 1e8 (float spacing 8 there)
  EXPECT_EQ(sumDouble(a), 1.0);

  // Beyond double: 1 + 1e-30 needs the low part.
  const std::vector<float> b = {1e30f, 1.0f, -1e30f, 1e-30f};
  e = sumExact(b);
  EXPECT_EQ(e.hi, 1.0);
  EXPECT_EQ(e.lo, static_cast<double>(1e-30f));
  EXPECT_EQ(sumDouble(b), static_cast<double>(1e-30f));  // the 1 was lost against 1e30

  EXPECT_EQ(sumExact({}).hi, 0.0);
  EXPECT_EQ(sumAbs(b), 2 * static_cast<double>(1e30f) + 1.0 + static_cast<double>(1e-30f));
}

TEST(SummationExact, EqualsIntegerArithmetic) {
  // x_i = k_i * 2^e_i: the exact sum times 2^12 is an integer that int64 holds.
  std::mt19937_64 rng(2026);
  for (size_t n : {size_t{1000}, size_t{100003}}) {
    const int kBits = n < 10000 ? 24 : 20, eMax = n < 10000 ? 12 : 8;
    std::vector<float> x(n);
    int64_t scaled = 0;  // sum * 2^eMax
    for (size_t i = 0; i < n; ++i) {
      const int64_t k =
          static_cast<int64_t>(rng() % (uint64_t{1} << kBits)) - (int64_t{1} << (kBits - 1));
      const int e = static_cast<int>(rng() % static_cast<uint64_t>(2 * eMax + 1)) - eMax;
      x[i] = std::ldexp(static_cast<float>(k), e);
      scaled += k * (int64_t{1} << (e + eMax));
    }
    const double hi = std::ldexp(static_cast<double>(scaled), -eMax);
    const int64_t rest = scaled - static_cast<int64_t>(static_cast<double>(scaled));
    const double lo = std::ldexp(static_cast<double>(rest), -eMax);
    const ExactSum s = sumExact(x);
    EXPECT_EQ(s.hi, hi) << n;
    EXPECT_EQ(s.lo, lo) << n;
  }
}

TEST(SummationMethods, AddingOnesTo2To24) {
  // 2^24 + 1 is halfway between two floats and rounds to even, back to 2^24.
  const std::vector<float> a = {16777216.0f, 1.0f, 1.0f};
  EXPECT_EQ(sumSequential(a), 16777216.0f);
  EXPECT_EQ(sumExact(a).hi, 16777218.0);
  EXPECT_EQ(sumKahan(a), 16777218.0f);
  EXPECT_EQ(sumDouble(a), 16777218.0);
  // Three numbers are one block of pairwise summation: a plain loop, so the same as sequential.
  EXPECT_EQ(sumPairwise(a), 16777216.0f);

  // With the ones in the other half, pairwise adds 8 ones first and then 2^24 + 8 exactly.
  std::vector<float> b(16, 0.0f);
  b[0] = 16777216.0f;
  for (size_t i = 8; i < 16; ++i)
    b[i] = 1.0f;
  EXPECT_EQ(sumSequential(b), 16777216.0f);
  EXPECT_EQ(sumPairwise(b), 16777224.0f);
  EXPECT_EQ(sumKahan(b), 16777224.0f);
  EXPECT_EQ(sumExact(b).hi, 16777224.0);
}

TEST(SummationMethods, PairwiseSplitsAtHalf) {
  // 20 numbers: halves of 10, each halves of 5 added in a loop.
  std::vector<float> x = normalFloats(20, 5);
  auto loop = [&](size_t a, size_t b) {
    float s = 0.0f;
    for (size_t i = a; i < b; ++i)
      s = s + x[i];
    return s;
  };
  const float expected = (loop(0, 5) + loop(5, 10)) + (loop(10, 15) + loop(15, 20));
  EXPECT_EQ(bits(sumPairwise(x)), bits(expected));
}

TEST(SummationMethods, ErrorsWithinTheirBounds) {
  const TreeShape shapes[] = {defaultTreeShape(), {1, 32}, {7, 64}, {300, 1024}, {65535, 32}};
  uint64_t seed = 100;
  for (size_t n : {size_t{1}, size_t{1000}, size_t{4097}, size_t{1} << 16, (size_t{1} << 20) + 3}) {
    const std::vector<float> x = normalFloats(n, seed++);
    const ExactSum e = sumExact(x);
    const double abs = sumAbs(x);
    const double dn = static_cast<double>(n);
    auto err = [&](double v) { return std::fabs(static_cast<double>(v - e.value())); };
    const std::string at = "n=" + std::to_string(n);
    EXPECT_LE(err(sumSequential(x)), gamma(dn - 1) * abs) << at;
    EXPECT_LE(err(sumPairwise(x)), gamma(pairwiseDepth(n)) * abs) << at;
    EXPECT_LE(err(sumKahan(x)), (2 * kU + 4 * dn * kU * kU) * abs) << at;
    EXPECT_LE(err(sumDouble(x)), gamma(dn - 1, 0x1p-53) * abs) << at;
    for (const TreeShape& t : shapes)
      EXPECT_LE(err(sumTreeOrderCpu(x, t)), gamma(treeDepth(n, t)) * abs)
          << at << " blocks=" << t.blocks << " threads=" << t.threads;
  }
}

TEST(SummationMethods, KahanFarBetterThanSequentialAtLargeN) {
  const std::vector<float> x = normalFloats(size_t{1} << 22, 11);
  const long double exact = sumExact(x).value();
  const long double seq = std::fabs(sumSequential(x) - exact);
  const long double kahan = std::fabs(sumKahan(x) - exact);
  const long double pairwise = std::fabs(sumPairwise(x) - exact);
  EXPECT_GT(seq, 0);
  EXPECT_LT(100 * kahan, seq) << "sequential " << static_cast<double>(seq) << ", Kahan "
                              << static_cast<double>(kahan);
  EXPECT_LT(pairwise, seq);
  // Kahan's result is within a float's rounding of the exact sum.
  EXPECT_LE(kahan, 2 * kU * std::fabs(exact));
}

TEST(SummationTree, OneBlockOf32EqualsAHandWrittenTree) {
  // Five numbers, one per thread: the tree adds thread 4 into 0 (stride 4), then 2 into 0 and
  // 3 into 1 (stride 2), then 1 into 0; every other addition adds a 0.0f, which is exact.
  const float a = 16777216.0f, b = 1.0f, c = 1.0f, d = 1.0f, e = 1.0f;
  const float expected = ((a + e) + c) + (b + d);  // (2^24 + 1) rounds to 2^24, then + 2
  EXPECT_EQ(expected, 16777218.0f);
  EXPECT_EQ(sumTreeOrderCpu(std::vector<float>{a, b, c, d, e}, {1, 32}), expected);
  EXPECT_EQ(sumSequential(std::vector<float>{a, b, c, d, e}), 16777216.0f);

  // 40 random numbers: threads 0..7 add two each (x[j] + x[j + 32]), then the tree.
  const std::vector<float> x = normalFloats(40, 9);
  float s[32];
  for (size_t j = 0; j < 32; ++j) {
    s[j] = 0.0f + x[j];
    if (j + 32 < 40) s[j] = s[j] + x[j + 32];
  }
  for (size_t h = 16; h > 0; h /= 2)
    for (size_t j = 0; j < h; ++j)
      s[j] = s[j] + s[j + h];
  EXPECT_EQ(bits(sumTreeOrderCpu(x, {1, 32})), bits(s[0]));

  EXPECT_EQ(sumTreeOrderCpu({}, {1, 32}), 0.0f);
  EXPECT_EQ(sumTreeOrderCpu(std::vector<float>{2.5f}, defaultTreeShape()), 2.5f);
}

TEST(SummationTree, EqualsTheStraightforwardEmulation) {
  std::minstd_rand rng(77);
  const TreeShape shapes[] = {defaultTreeShape(), {1, 32}, {3, 1024}, {100, 32}, {513, 128}};
  for (const TreeShape& t : shapes) {
    const size_t grid = static_cast<size_t>(t.blocks) * static_cast<size_t>(t.threads);
    for (size_t n :
         {size_t{1}, size_t{33}, grid - 1, grid + 1, 3 * grid + 17, (size_t{1} << 20) + 3}) {
      const std::vector<float> x = normalFloats(n, rng());
      EXPECT_EQ(bits(sumTreeOrderCpu(x, t)), bits(naiveTree(x, t)))
          << "n=" << n << " blocks=" << t.blocks << " threads=" << t.threads;
    }
  }
  // Refused shapes give NaN rather than a number no kernel would produce.
  EXPECT_TRUE(std::isnan(sumTreeOrderCpu(std::vector<float>{1.0f}, {1, 48})));
}

TEST(SummationTree, ValidateRefusesWhatTheKernelsCannotRun) {
  EXPECT_TRUE(validate(defaultTreeShape()).ok());
  EXPECT_EQ(defaultTreeShape().blocks, 1024);
  EXPECT_EQ(defaultTreeShape().threads, 256);
  EXPECT_TRUE(validate({1, 32}).ok());
  EXPECT_TRUE(validate({65535, 1024}).ok());
  for (int th = 32; th <= 1024; th *= 2)
    EXPECT_TRUE(validate({5, th}).ok()) << th;

  auto says = [](TreeShape t, const std::string& words) {
    const Status s = validate(t);
    EXPECT_FALSE(s.ok()) << t.blocks << "x" << t.threads;
    EXPECT_NE(s.sentence().find(words), std::string::npos) << s.sentence();
  };
  says({0, 256}, "Blocks must be between 1 and 65,535");
  says({65536, 256}, "65,536");
  says({-3, 256}, "at least one block");
  says({64, 16}, "warp");
  says({64, 2048}, "largest block");
  says({64, 48}, "power of two");
  says({64, 100}, "halves");
}

TEST(SummationAll, CpuRunMatchesEachMethod) {
  for (size_t n : {size_t{5000}, (size_t{1} << 20) + 3}) {  // run in turn, and in parallel
    const std::vector<float> x = normalFloats(n, 21);
    const Result<SumResults> r = sumAll(x, false);
    ASSERT_TRUE(r.ok()) << r.status().sentence();
    EXPECT_EQ(r->n, n);
    EXPECT_FALSE(r->treeOnGpu);
    const ExactSum e = sumExact(x);
    EXPECT_EQ(r->exact, e.value());
    EXPECT_EQ(r->absSum, sumAbs(x));
    const double expected[kSumMethodCount] = {sumSequential(x),
                                              sumTreeOrderCpu(x, defaultTreeShape()),
                                              sumPairwise(x), sumKahan(x), sumDouble(x)};
    for (int m = 0; m < kSumMethodCount; ++m) {
      EXPECT_EQ(r->value[m], expected[m]) << sumMethods()[static_cast<size_t>(m)].id;
      // The error is value - exact, computed more precisely than long double subtracts.
      const long double diff = static_cast<long double>(expected[m]) - e.value();
      EXPECT_NEAR(r->error[m], static_cast<double>(diff),
                  1e-15 * std::fabs(static_cast<double>(diff)) + 1e-12)
          << m;
    }
    EXPECT_LE(std::fabs(r->error[static_cast<int>(SumMethod::Kahan)]), std::fabs(r->error[0]));
    EXPECT_LT(std::fabs(r->error[static_cast<int>(SumMethod::Float64)]), 1e-6);
  }
}

TEST(SummationGrowth, SizesAreLogSpacedAndEndAtN) {
  EXPECT_EQ(growthSizes(0), std::vector<size_t>{0});
  EXPECT_EQ(growthSizes(1), std::vector<size_t>{1});
  EXPECT_EQ(growthSizes(1023), std::vector<size_t>{1023});
  EXPECT_EQ(growthSizes(1024), std::vector<size_t>{1024});
  EXPECT_EQ(growthSizes(1025), (std::vector<size_t>{1024, 1025}));
  EXPECT_EQ(growthSizes(2048), (std::vector<size_t>{1024, 1218, 1448, 1722, 2048}));
  for (size_t n : {size_t{1500}, size_t{2049}, size_t{100000}, kCourseSumCount}) {
    const std::vector<size_t> s = growthSizes(n);
    ASSERT_GE(s.size(), 2u);
    EXPECT_EQ(s.front(), 1024u);
    EXPECT_EQ(s.back(), n);
    for (size_t k = 0; k + 1 < s.size(); ++k) {
      EXPECT_LT(s[k], s[k + 1]);
      EXPECT_LT(s[k], n);
      EXPECT_EQ(static_cast<double>(s[k]),
                std::round(1024 * std::pow(2.0, static_cast<double>(k) / 4)));
      if (k % 4 == 0) {
        EXPECT_EQ(s[k], size_t{1024} << (k / 4));
      }
    }
  }
  // 1024 * 2^(67/4) is the last below 2^27 - 157: 68 sizes, then N.
  EXPECT_EQ(growthSizes(kCourseSumCount).size(), 69u);
}

TEST(SummationGrowth, PrefixesEqualSumAllAndProgressReachesOne) {
  const std::vector<float> x = normalFloats(60000, 31);
  const std::vector<size_t> sizes = growthSizes(x.size());
  std::vector<double> seen;
  const Result<std::vector<SumResults>> g =
      sumGrowth(x, sizes, false, [&](double f) { seen.push_back(f); });
  ASSERT_TRUE(g.ok()) << g.status().sentence();
  ASSERT_EQ(g->size(), sizes.size());
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Result<SumResults> one = sumAll(std::span<const float>(x).first(sizes[k]), false);
    ASSERT_TRUE(one.ok());
    const SumResults& a = (*g)[k];
    EXPECT_EQ(a.n, sizes[k]);
    EXPECT_EQ(a.exact, one->exact);
    EXPECT_EQ(a.absSum, one->absSum);
    EXPECT_FALSE(a.treeOnGpu);
    for (int m = 0; m < kSumMethodCount; ++m) {
      EXPECT_EQ(a.value[m], one->value[m]) << k << " " << m;
      EXPECT_EQ(a.error[m], one->error[m]) << k << " " << m;
    }
  }
  ASSERT_FALSE(seen.empty());
  for (size_t i = 1; i < seen.size(); ++i)
    EXPECT_LE(seen[i - 1], seen[i]);
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  EXPECT_GE(seen.front(), 0.0);
  // Weighted by size: after the first (smallest) prefix, far less than 1/sizes.size() is done.
  EXPECT_LT(seen[1], 1.0 / static_cast<double>(sizes.size()));
}

TEST(SummationGrowth, CancelAndBadSizesAreRefused) {
  const std::vector<float> x = normalFloats(20000, 4);
  const std::vector<size_t> sizes = growthSizes(x.size());

  std::atomic<bool> cancel{true};
  Result<std::vector<SumResults>> g = sumGrowth(x, sizes, false, {}, &cancel);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "Cancelled.");

  // Cancelled while running: stops after the size during which the flag was set.
  cancel = false;
  int calls = 0;
  g = sumGrowth(
      x, sizes, false,
      [&](double f) {
        ++calls;
        if (f > 0) cancel = true;
      },
      &cancel);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "Cancelled.");
  EXPECT_EQ(calls, 2);  // 0 at the start, then the first size

  const size_t tooMany[] = {1024, 20001};
  g = sumGrowth(x, tooMany, false);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().sentence().find("20,001"), std::string::npos) << g.status().sentence();

  g = sumGrowth(x, {}, false);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->empty());
}

}  // namespace
}  // namespace cudalab::precision
