// The precision lesson on a real GPU. Fresh random operands every run (the seed is printed):
// conversions, +, -, x, / and sqrt in every precision equal the CPU's evaluation in the same
// precision bit for bit (IEEE round to nearest even; square roots of every half and bfloat16
// value); functions stay within the CUDA Programming Guide's ULP bounds; the formulas without
// functions give the CPU's bits exactly; the literal trap and fast math really differ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "models/floats.hpp"
#include "precision/precision.hpp"

namespace cudalab::precision {
namespace {

using floats::Format;

unsigned freshSeed() {
  static const unsigned seed = std::random_device{}();
  return seed;
}

bool sameBits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x == y;
}

// Random finite values of a format: random bit patterns (every exponent, subnormals included).
std::vector<double> randomValues(Format f, size_t n, std::mt19937_64& rng) {
  const floats::FormatInfo& fi = floats::formatInfo(f);
  std::vector<double> v;
  while (v.size() < n) {
    const uint64_t bits = fi.bits == 64 ? rng() : rng() & ((uint64_t{1} << fi.bits) - 1);
    const double d = floats::decode(f, bits);
    if (std::isfinite(d)) v.push_back(d);
  }
  return v;
}

const Precision kBasic[] = {Precision::Half, Precision::BFloat16, Precision::Float32,
                            Precision::Float32NoFma, Precision::Float64};

TEST(PrecisionGpu, ConversionsRoundToNearestEven) {
  std::mt19937_64 rng(freshSeed());
  std::cout << "seed " << freshSeed() << "\n";
  std::vector<double> x = randomValues(Format::Float64, 50000, rng);
  // Many values near the 16-bit formats' range too, including their subnormals and ties.
  std::uniform_real_distribution<double> u(-30, 30);
  for (int i = 0; i < 50000; ++i)
    x.push_back((rng() & 1 ? -1 : 1) * std::exp2(u(rng)));
  for (Precision p : kBasic) {
    Result<std::vector<double>> g = roundGpu(p, x);
    ASSERT_TRUE(g.ok()) << g.status().sentence();
    size_t wrong = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (!sameBits((*g)[i], floats::roundTo(precisionInfo(p).format, x[i])))
        if (++wrong < 4) ADD_FAILURE() << precisionInfo(p).id << " rounds " << x[i];
    EXPECT_EQ(wrong, 0u) << precisionInfo(p).id;
  }
}

TEST(PrecisionGpu, BasicOperationsMatchTheCpuBitForBit) {
  std::mt19937_64 rng(freshSeed() + 1);
  for (Precision p : kBasic) {
    const Format f = precisionInfo(p).format;
    const std::vector<double> a = randomValues(f, 100000, rng);
    std::vector<double> b = randomValues(f, 100000, rng);
    // Half of the pairs close in magnitude, where + and - cancel and round most often.
    for (size_t i = 0; i < b.size(); i += 2)
      b[i] = floats::roundTo(f, a[i] * (1 + 1e-3 * static_cast<double>(i % 7)));
    for (BasicOp op : {BasicOp::Add, BasicOp::Sub, BasicOp::Mul, BasicOp::Div, BasicOp::Sqrt}) {
      Result<std::vector<double>> g = basicOpGpu(p, op, a, b);
      ASSERT_TRUE(g.ok()) << g.status().sentence();
      const std::vector<double> c = basicOpCpu(p, op, a, b);
      size_t wrong = 0;
      for (size_t i = 0; i < a.size(); ++i)
        if (!sameBits((*g)[i], c[i]) && ++wrong < 4)
          ADD_FAILURE() << precisionInfo(p).id << " op " << static_cast<int>(op) << " a=" << a[i]
                        << " b=" << b[i] << " gpu=" << (*g)[i] << " cpu=" << c[i];
      EXPECT_EQ(wrong, 0u) << precisionInfo(p).id << " op " << static_cast<int>(op);
    }
  }
}

TEST(PrecisionGpu, SquareRootOfEverySixteenBitValueIsCorrectlyRounded) {
  for (Precision p : {Precision::Half, Precision::BFloat16}) {
    const Format f = precisionInfo(p).format;
    std::vector<double> all;
    for (uint64_t bits = 0; bits < 65536; ++bits)
      all.push_back(floats::decode(f, bits));
    Result<std::vector<double>> g = basicOpGpu(p, BasicOp::Sqrt, all, {});
    ASSERT_TRUE(g.ok()) << g.status().sentence();
    size_t wrong = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      const double want = floats::roundTo(f, std::sqrt(static_cast<long double>(all[i])));
      if (!sameBits((*g)[i], want) && ++wrong < 4)
        ADD_FAILURE() << precisionInfo(p).id << " sqrt(" << all[i] << ") = " << (*g)[i];
    }
    EXPECT_EQ(wrong, 0u) << precisionInfo(p).id;
  }
}

struct FuncCase {
  Func fn;
  double lo, hi;  // input range (log-uniform when logRange)
  bool logRange;
  double f32Ulps, f64Ulps;  // the Programming Guide's maximum ULP errors
};

TEST(PrecisionGpu, FunctionsStayWithinTheDocumentedUlpBounds) {
  // CUDA C++ Programming Guide, "Mathematical Functions": sinf, cosf, expf 2 ulp; expm1f, logf,
  // log1pf 1 ulp; sin, cos 2 ulp; exp, expm1, log, log1p 1 ulp. half and bfloat16 compute in
  // float and round once: within 1 ulp of their own format.
  const FuncCase cases[] = {
      {Func::Cos, -1000, 1000, false, 2, 2}, {Func::Sin, -1000, 1000, false, 2, 2},
      {Func::Exp, -80, 80, false, 2, 1},     {Func::Expm1, -80, 80, false, 1, 1},
      {Func::Log, 1e-30, 1e30, true, 1, 1},  {Func::Log1p, -0.9, 1e6, false, 1, 1},
  };
  std::mt19937_64 rng(freshSeed() + 2);
  for (const FuncCase& c : cases) {
    for (Precision p :
         {Precision::Float32, Precision::Float64, Precision::Half, Precision::BFloat16}) {
      const Format f = precisionInfo(p).format;
      const bool narrow = f == Format::Half || f == Format::BFloat16;
      // The 16-bit formats: inputs whose results stay finite and normal in half.
      double lo = c.lo, hi = c.hi;
      if (narrow) {
        if (c.fn == Func::Exp || c.fn == Func::Expm1) lo = -8, hi = 8;
        if (c.fn == Func::Cos || c.fn == Func::Sin) lo = -10, hi = 10;
        if (c.fn == Func::Log) lo = 1e-3, hi = 6e4;
        if (c.fn == Func::Log1p) hi = 100;
      }
      std::uniform_real_distribution<double> u(c.logRange ? std::log(lo) : lo,
                                               c.logRange ? std::log(hi) : hi);
      std::vector<double> x(20000);
      for (double& v : x)
        v = floats::roundTo(f, c.logRange ? std::exp(u(rng)) : u(rng));
      Result<std::vector<double>> g = funcGpu(p, c.fn, x);
      ASSERT_TRUE(g.ok()) << g.status().sentence();
      const double bound = narrow ? 1.0 : f == Format::Float32 ? c.f32Ulps : c.f64Ulps;
      double worst = 0, worstX = 0, worstGot = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const long double exact = funcExact(c.fn, x[i]);
        // The guide states "the difference in ulps between a correctly rounded result and the
        // result returned": a count of representable numbers, not a real-valued distance.
        const double e = static_cast<double>(
            std::llabs(floats::ulpDistance(f, (*g)[i], floats::roundTo(f, exact))));
        if (e > worst) worst = e, worstX = x[i], worstGot = (*g)[i];
      }
      EXPECT_LE(worst, bound) << precisionInfo(p).id << " function " << static_cast<int>(c.fn)
                              << " at x = " << worstX << ": " << worstGot;
    }
  }
}

TEST(PrecisionGpu, FormulasWithoutFunctionsGiveTheCpusBits) {
  const std::vector<double> xs = sweepXs(16);
  Result<Evaluation> g = evaluateGpu(xs);
  ASSERT_TRUE(g.ok()) << g.status().sentence();
  const Evaluation c = evaluateCpu(xs);
  for (Precision p :
       {Precision::Half, Precision::BFloat16, Precision::Float32NoFma, Precision::Float64})
    for (Expr e : {Expr::PlusOne, Expr::SqrtMinusOne, Expr::Quadratic, Expr::Variance})
      for (Formula f : {Formula::Naive, Formula::Stable}) {
        size_t wrong = 0;
        for (size_t i = 0; i < xs.size(); ++i)
          if (!sameBits(g->at(p, e, f, i), c.at(p, e, f, i)) && ++wrong < 3)
            ADD_FAILURE() << precisionInfo(p).id << " " << exprInfo(e).id << " at " << xs[i]
                          << ": gpu " << g->at(p, e, f, i) << " cpu " << c.at(p, e, f, i);
        EXPECT_EQ(wrong, 0u);
      }
}

TEST(PrecisionGpu, FmaContractionAndFastMathReallyDiffer) {
  const std::vector<double> xs = sweepXs(16);
  Result<Evaluation> g = evaluateGpu(xs);
  ASSERT_TRUE(g.ok()) << g.status().sentence();
  auto differing = [&](Precision a, Precision b, Expr e, Formula f) {
    int n = 0;
    for (size_t i = 0; i < xs.size(); ++i)
      n += !sameBits(g->at(a, e, f, i), g->at(b, e, f, i));
    return n;
  };
  // Fast math replaces cosf, expf and logf by approximations.
  EXPECT_GT(
      differing(Precision::Float32, Precision::Float32Fast, Expr::OneMinusCos, Formula::Naive), 0);
  EXPECT_GT(differing(Precision::Float32, Precision::Float32Fast, Expr::Expm1, Formula::Naive), 0);
  EXPECT_GT(differing(Precision::Float32, Precision::Float32Fast, Expr::Log1p, Formula::Naive), 0);
  // E[v^2] - E[v]^2 with and without fused multiply-adds.
  EXPECT_GT(differing(Precision::Float32, Precision::Float32NoFma, Expr::Variance, Formula::Naive),
            0);
  // And the rewritten formulas stay accurate in float32 however it was compiled... except that
  // fast math is allowed to be worse: only the exact variants are held to epsilon.
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_LT(g->relError(Precision::Float32NoFma, Expr::SqrtMinusOne, Formula::Stable, i), 1e-6);
}

TEST(PrecisionGpu, TheLiteralTrapDiffersAndMatchesTheCpu) {
  const std::vector<double> xs = sweepXs(16);
  Result<TrapResult> g = literalTrapGpu(xs);
  ASSERT_TRUE(g.ok()) << g.status().sentence();
  const TrapResult c = literalTrapCpu(xs);
  size_t differ = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_TRUE(sameBits(g->floatLiteral[i], c.floatLiteral[i])) << xs[i];
    EXPECT_TRUE(sameBits(g->doubleLiteral[i], c.doubleLiteral[i])) << xs[i];
    differ += g->floatLiteral[i] != g->doubleLiteral[i];
  }
  EXPECT_GT(differ, xs.size() / 2);
  const double one[] = {1e-8};
  Result<TrapResult> at = literalTrapGpu(one);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->floatLiteral[0], 0.0f);   // the course's float32 result
  EXPECT_NE(at->doubleLiteral[0], 0.0f);  // the course's Numba surprise on an H200
}

}  // namespace
}  // namespace cudalab::precision
