// The precision lesson on the CPU: the exact references against known values, the CPU's
// evaluation in each precision (naive formulas lose everything somewhere, rewritten ones stay
// near epsilon), single operations against hand-worked results, the literal trap, and the PTX the
// build embedded (the trap's double literal really is float64 arithmetic).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "models/floats.hpp"
#include "precision/precision.hpp"

namespace cudalab::precision {
namespace {

using floats::Format;

void expectRel(long double got, long double want, long double tol, const char* what) {
  EXPECT_LE(std::fabs((got - want) / want), tol)
      << what << ": got " << static_cast<double>(got) << ", want " << static_cast<double>(want);
}

TEST(PrecisionTables, EveryRowIsNamedOnceAndInEnumOrder) {
  std::set<std::string> ids;
  for (size_t i = 0; i < expressions().size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(expressions()[i].expr), i);
    EXPECT_TRUE(ids.insert(expressions()[i].id).second);
  }
  for (size_t i = 0; i < precisions().size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(precisions()[i].precision), i);
    EXPECT_TRUE(ids.insert(precisions()[i].id).second);
  }
  EXPECT_EQ(expressions().size(), static_cast<size_t>(kExprCount));
  EXPECT_EQ(precisions().size(), static_cast<size_t>(kPrecisionCount));
  EXPECT_EQ(exprInfo(Expr::PlusOne).stable, nullptr);
}

TEST(PrecisionSweep, LogSpacedFromMinToMax) {
  const std::vector<double> xs = sweepXs(16);
  ASSERT_EQ(xs.size(), 16u * 16u + 1u);
  EXPECT_EQ(xs.front(), kSweepMin);
  EXPECT_EQ(xs.back(), kSweepMax);
  for (size_t i = 1; i < xs.size(); ++i) {
    EXPECT_GT(xs[i], xs[i - 1]);
    EXPECT_NEAR(std::log10(xs[i] / xs[i - 1]), 1.0 / 16, 1e-9);
  }
}

TEST(PrecisionReference, KnownValues) {
  const Format f = Format::Float64;
  expectRel(exactValue(Expr::PlusOne, f, 1e-8), static_cast<long double>(1e-8), 0, "x");
  // (1 - cos x)/x^2 = 1/2 - x^2/24 + ...
  expectRel(exactValue(Expr::OneMinusCos, f, 1e-8), 0.5L, 1e-16L, "1 - cos at 1e-8");
  expectRel(exactValue(Expr::OneMinusCos, f, 1.0), 0.45969769413186023L, 1e-15L, "1 - cos at 1");
  // sqrt(x^2 + 1) - 1 = x^2/2 - x^4/8 + ...
  expectRel(exactValue(Expr::SqrtMinusOne, f, 1e-8), 5e-17L, 1e-15L, "sqrt at 1e-8");
  expectRel(exactValue(Expr::SqrtMinusOne, f, 1.0), 0.41421356237309515L, 1e-15L, "sqrt at 1");
  expectRel(exactValue(Expr::Expm1, f, 1e-10), 1.00000000005e-10L, 1e-15L, "expm1");
  expectRel(exactValue(Expr::Log1p, f, 1e-10), 9.9999999995e-11L, 1e-15L, "log1p");
  // t^2 + t - 2 = 0 has the root 1; for small x the root is x - x^2 + 2x^3 - ...
  expectRel(exactValue(Expr::Quadratic, f, 2.0), 1.0L, 1e-18L, "quadratic at 2");
  expectRel(exactValue(Expr::Quadratic, f, 1e-8), 1e-8L - 1e-16L, 1e-15L, "quadratic at 1e-8");
  // The offsets' variance, whatever the mean (the data are exact in float64 here).
  expectRel(exactValue(Expr::Variance, f, 0.0), 1.828125L, 1e-18L, "variance at 0");
  expectRel(exactValue(Expr::Variance, f, 1e4), 1.828125L, 1e-15L, "variance at 1e4");
  // In half the data x + d round to 10000 for every d at x = 1e4: the spread is gone.
  EXPECT_EQ(exactValue(Expr::Variance, Format::Half, 1e4), 0.0L);
  EXPECT_NEAR(static_cast<double>(funcExact(Func::Cos, 0)), 1.0, 0.0);
  EXPECT_NEAR(static_cast<double>(funcExact(Func::Log, 1)), 0.0, 0.0);
}

TEST(PrecisionCpu, EvaluatesTheCpuPrecisionsOnly) {
  const std::vector<double> xs = sweepXs(8);
  const Evaluation ev = evaluateCpu(xs);
  EXPECT_FALSE(ev.onGpu);
  for (const PrecisionInfo& p : precisions())
    EXPECT_EQ(ev.available[static_cast<size_t>(p.precision)], p.cpu) << p.id;
  // The stable formula of (x + 1) - 1 does not exist: NaN everywhere.
  EXPECT_TRUE(std::isnan(ev.at(Precision::Float64, Expr::PlusOne, Formula::Stable, 0)));
  EXPECT_TRUE(std::isnan(ev.at(Precision::Float32, Expr::Expm1, Formula::Naive, 0)));
}

TEST(PrecisionCpu, TheCourseExampleVanishesInFloat32ButNotInFloat64) {
  const std::vector<double> xs = {1e-8};
  const Evaluation ev = evaluateCpu(xs);
  EXPECT_EQ(ev.at(Precision::Float32NoFma, Expr::PlusOne, Formula::Naive, 0), 0.0);
  EXPECT_EQ(ev.at(Precision::Half, Expr::PlusOne, Formula::Naive, 0), 0.0);
  const double d = ev.at(Precision::Float64, Expr::PlusOne, Formula::Naive, 0);
  EXPECT_NE(d, 0.0);
  EXPECT_LT(std::fabs(d - 1e-8) / 1e-8, 1e-7);  // 16 digits minus the 8 cancelled
  EXPECT_EQ(ev.relError(Precision::Float32NoFma, Expr::PlusOne, Formula::Naive, 0), 1.0);
}

TEST(PrecisionCpu, NaiveFormulasLoseEverythingRewrittenOnesStayNearEpsilon) {
  const std::vector<double> xs = sweepXs(8);
  const Evaluation ev = evaluateCpu(xs);
  for (const PrecisionInfo& p : precisions()) {
    if (!ev.available[static_cast<size_t>(p.precision)]) continue;
    const floats::FormatInfo& fi = floats::formatInfo(p.format);
    double worstNaive = 0, worstStable = 0;
    for (const ExprInfo& e : expressions()) {
      worstNaive = worstStable = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        const long double exact = ev.exactAt(p.precision, e.expr, i);
        // Overflow (e^x for large x) is a range problem, not cancellation.
        if (std::fabs(exact) > fi.maxFinite / 4) continue;
        worstNaive = std::max(worstNaive, ev.relError(p.precision, e.expr, Formula::Naive, i));
        // The rewritten formulas hold where x^2 and the result are normal numbers of the format.
        const double xr = floats::roundTo(p.format, xs[i]);
        if (e.stable && xr * xr >= fi.minNormal && xr * xr <= fi.maxFinite / 4 &&
            std::fabs(exact) >= fi.minNormal / fi.epsilon)
          worstStable = std::max(worstStable, ev.relError(p.precision, e.expr, Formula::Stable, i));
      }
      // float64 keeps more digits than the sweep (down to 1e-12) can cancel: it loses only some.
      const double fails = p.format == Format::Float64 ? 1e5 * fi.epsilon : 0.5;
      EXPECT_GT(worstNaive, fails) << p.id << " " << e.id << ": the naive formula should fail";
      if (e.stable && e.expr != Expr::Variance) {
        EXPECT_LT(worstStable, 16 * fi.epsilon) << p.id << " " << e.id;
      }
      // Welford is not exact either (its error grows with mean / spread), but far better.
      if (e.expr == Expr::Variance && fi.bits >= 32) {
        EXPECT_LT(worstStable, worstNaive / 100) << p.id;
      }
    }
  }
}

TEST(PrecisionCpu, SingleOperationsGiveTheHandWorkedResults) {
  auto one = [](Precision p, BasicOp op, double a, double b) {
    const double av[] = {a}, bv[] = {b};
    return basicOpCpu(p, op, av, bv)[0];
  };
  EXPECT_EQ(one(Precision::Half, BasicOp::Div, 1, 3), 0.333251953125);      // 0x3555
  EXPECT_EQ(one(Precision::Half, BasicOp::Sqrt, 2, 0), 1.4140625);          // 0x3da8
  EXPECT_EQ(one(Precision::Half, BasicOp::Add, 1, 0x1p-11), 1.0);           // tie to even
  EXPECT_EQ(one(Precision::Half, BasicOp::Add, 1, 0x1.8p-10), 1 + 0x1p-9);  // 1 + 1.5 ulp
  EXPECT_EQ(one(Precision::Half, BasicOp::Mul, 256, 256), INFINITY);        // 65536 > 65504
  EXPECT_EQ(one(Precision::BFloat16, BasicOp::Div, 1, 3), 0.333984375);     // 0x3eab
  EXPECT_EQ(one(Precision::BFloat16, BasicOp::Add, 256, 1), 256.0);         // spacing 2 there
  EXPECT_EQ(one(Precision::Float32NoFma, BasicOp::Add, 1, 1e-8), 1.0);
  EXPECT_EQ(one(Precision::Float32NoFma, BasicOp::Div, 1, 3), static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(one(Precision::Float64, BasicOp::Sub, 0.3, 0.1), 0.3 - 0.1);
  // Operands are rounded to the precision first: 0.1 in half is 0.0999755859375.
  EXPECT_EQ(one(Precision::Half, BasicOp::Add, 0.1, 0), 0.0999755859375);
}

TEST(PrecisionTrap, TheDoubleLiteralHidesTheCancellation) {
  const std::vector<double> xs = {1e-8, 1e-3, 1.0};
  const TrapResult t = literalTrapCpu(xs);
  ASSERT_EQ(t.floatLiteral.size(), 3u);
  EXPECT_EQ(t.floatLiteral[0], 0.0f);
  const double xf = static_cast<float>(1e-8);
  EXPECT_LT(std::fabs(t.doubleLiteral[0] - xf) / xf, 1e-7);
  EXPECT_EQ(t.floatLiteral[2], 1.0f);
  EXPECT_EQ(t.doubleLiteral[2], 1.0f);
}

TEST(PrecisionPtx, ParsesOneKernelAndCountsItsInstructions) {
  const char* ptx = R"(
.visible .entry other_kernel_longer(
	.param .u64 p0
)
{
	add.f32 	%f1, %f2, %f3;
}
	// .globl	other_kernel
.visible .entry other_kernel(
	.param .u64 other_kernel_param_0
)
{
	.reg .f32 	%f<4>;
	ld.param.u64 	%rd1, [other_kernel_param_0];
	@%p1 bra 	$L__BB0_2;
	fma.rn.f32 	%f1, %f2, %f3, %f1;
	fma.rn.f32 	%f1, %f2, %f3, %f1;
	{
	.reg .b16 %h<2>;
	cvt.rn.f16.f32 %h1, %f1;
	}
$L__BB0_2:
	ret;

}
)";
  const PtxKernel k = parsePtxKernel(ptx, "other_kernel");
  ASSERT_TRUE(k.found);
  EXPECT_EQ(k.count("fma.rn.f32"), 2);
  EXPECT_EQ(k.count("fma"), 2);  // a prefix up to a dot counts every variant
  EXPECT_EQ(k.count("fma.rn"), 2);
  EXPECT_EQ(k.count("fm"), 0);  // but not a partial word
  EXPECT_EQ(k.count("cvt.rn.f16.f32"), 1);
  EXPECT_EQ(k.count("bra"), 1);
  EXPECT_EQ(k.count("add.f32"), 0);  // that was the other kernel
  EXPECT_EQ(k.opcodes.front().first, "fma.rn.f32");
  EXPECT_FALSE(parsePtxKernel(ptx, "missing").found);
}

TEST(PrecisionPtx, TheEmbeddedPtxShowsTheTrapAndTheFlags) {
  const PtxKernel f = ptxKernel(kTrapFloatKernel);
  const PtxKernel d = ptxKernel(kTrapDoubleKernel);
  ASSERT_TRUE(f.found) << "the build embeds the PTX of precision.cu";
  ASSERT_TRUE(d.found);
  EXPECT_EQ(f.count("add.f32") + f.count("sub.f32"), 2);
  EXPECT_EQ(f.count("add.f64") + f.count("sub.f64") + f.count("cvt.f64.f32"), 0);
  EXPECT_EQ(d.count("cvt.f64.f32"), 1);
  EXPECT_EQ(d.count("add.f64") + d.count("sub.f64"), 2);
  EXPECT_EQ(d.count("cvt.rn.f32.f64"), 1);
  for (const PrecisionInfo& p : precisions())
    EXPECT_TRUE(ptxKernel(evalKernelName(p.precision)).found) << evalKernelName(p.precision);
  const PtxKernel f32 = ptxKernel(evalKernelName(Precision::Float32));
  const PtxKernel rn = ptxKernel(evalKernelName(Precision::Float32NoFma));
  const PtxKernel fast = ptxKernel(evalKernelName(Precision::Float32Fast));
  // nvcc fused some of the formulas' a*b + c; with __fmul_rn/__fadd_rn it may not.
  EXPECT_GT(f32.count("fma.rn.f32"), rn.count("fma.rn.f32"));
  EXPECT_GT(rn.count("mul.rn.f32") + rn.count("add.rn.f32"), 0);
  int approxFast = 0, approxF32 = 0;
  for (const auto& [op, c] : fast.opcodes)
    if (op.find(".approx") != std::string::npos) approxFast += c;
  for (const auto& [op, c] : f32.opcodes)
    if (op.find(".approx") != std::string::npos) approxF32 += c;
  EXPECT_GT(approxFast, approxF32);
  EXPECT_STRNE(ptxArchitecture(), "");
}

}  // namespace
}  // namespace cudalab::precision
