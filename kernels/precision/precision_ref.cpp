// The precision lesson on the CPU: the tables, the exact values (long double, from formulas that
// do not cancel), and the same formulas evaluated with a rounding after every operation.
// Compiled with -ffp-contract=off (kernels/CMakeLists.txt): a fused multiply-add here would
// change the very roundings the lesson counts.
#include <cmath>
#include <limits>

#include "common/translatable.hpp"
#include "precision/precision.hpp"
#include "precision/precision_formulas.cuh"
#include "precision/precision_internal.hpp"

namespace cudalab::precision {

// ---------------------------------------------------------------------------------------------
// The tables
// ---------------------------------------------------------------------------------------------

namespace {

// N_(): the texts a learner reads, translated where the app shows them; the formulas themselves
// (labels and formulas written only in symbols) read the same in every language.
constexpr ExprInfo kExpressions[] = {
    {Expr::PlusOne, "plus_one", "(x + 1) - 1", "(x + 1) - 1", nullptr, N_("x itself"),
     N_("Adding 1 to a small x keeps only the digits of x that fit beside the 1: about 7 decimal "
        "digits in float32. Below half an epsilon (6e-8 in float32) nothing of x survives and the "
        "result is exactly 0, as in the course. Algebra says the answer is x; the computer does "
        "not do algebra.")},
    {Expr::OneMinusCos, "one_minus_cos", "(1 - cos x) / x\xc2\xb2", "(1 - cos x) / x\xc2\xb2",
     "2 sin\xc2\xb2(x/2) / x\xc2\xb2", N_("2 sin\xc2\xb2(x/2) / x\xc2\xb2 in long double"),
     N_("For small x, cos x is 1 - x\xc2\xb2/2 + ..., so 1 - cos x subtracts two nearly equal "
        "numbers and "
        "keeps mostly the rounding error of cos x. The true value tends to 1/2. The identity 1 - "
        "cos x = 2 sin\xc2\xb2(x/2) has no subtraction at all.")},
    {Expr::SqrtMinusOne, "sqrt_minus_one", "\xe2\x88\x9a(x\xc2\xb2 + 1) - 1",
     "\xe2\x88\x9a(x\xc2\xb2 + 1) - 1", "x\xc2\xb2 / (\xe2\x88\x9a(x\xc2\xb2 + 1) + 1)",
     N_("x\xc2\xb2 / (\xe2\x88\x9a(x\xc2\xb2 + 1) + 1) in long double"),
     N_("For small x, \xe2\x88\x9a(x\xc2\xb2 + 1) is about 1 + x\xc2\xb2/2: subtracting 1 cancels "
        "the leading digits, and "
        "once x\xc2\xb2 is below epsilon nothing is left. Multiplying above and below by "
        "\xe2\x88\x9a(x\xc2\xb2 + 1) + 1 "
        "turns the subtraction into an addition.")},
    {Expr::Expm1, "expm1", "exp(x) - 1", "exp(x) - 1", "expm1(x)", N_("expm1 in long double"),
     N_("exp(x) is about 1 + x for small x, so exp(x) - 1 cancels. expm1(x) computes e^x - 1 "
        "without forming 1 + x. For large x both overflow: e^x passes the largest number of the "
        "format (x > 11 in half, 89 in float32, 710 in float64).")},
    {Expr::Log1p, "log1p", "log(1 + x)", "log(1 + x)", "log1p(x)", N_("log1p in long double"),
     N_("1 + x throws away the digits of x that do not fit beside the 1 before the logarithm "
        "starts; no logarithm can recover them. log1p(x) takes x itself.")},
    {Expr::Quadratic, "quadratic", N_("root of t\xc2\xb2 + t - x"),
     "(-b + \xe2\x88\x9a(b\xc2\xb2 - 4ac)) / 2a", "2c / (-b - \xe2\x88\x9a(b\xc2\xb2 - 4ac))",
     N_("the stable formula in long double"),
     N_("The small root of t\xc2\xb2 + t - x = 0 (a = 1, b = 1, c = -x), about x when x is small. "
        "Then "
        "\xe2\x88\x9a(b\xc2\xb2 - 4ac) is nearly b and -b + \xe2\x88\x9a(...) cancels. The product "
        "of the roots is c/a, which "
        "gives a formula where the two terms add.")},
    {Expr::Variance, "variance", N_("variance of x + d"), "E[v\xc2\xb2] - E[v]\xc2\xb2",
     N_("Welford's running update"), N_("two passes in long double"),
     N_("Eight values v = x + d with fixed offsets d, so the variance stays 1.83 whatever the mean "
        "x. E[v\xc2\xb2] - E[v]\xc2\xb2 subtracts two numbers near x\xc2\xb2 and loses everything "
        "once x\xc2\xb2 times epsilon "
        "passes the variance. Welford's update only handles deviations from the running mean, "
        "which stay small.")},
};

constexpr PrecisionInfo kPrecisions[] = {
    {Precision::Half, "half", "half", floats::Format::Half, true, 5,
     N_("IEEE half (FP16): 11 significant bits, about 3.3 decimal digits, largest number 65504. +, "
        "- and \xc3\x97 are the GPU's 16-bit instructions; \xc3\xb7, \xe2\x88\x9a and functions "
        "are computed in float32 and "
        "rounded once.")},
    {Precision::BFloat16, "bf16", "bfloat16", floats::Format::BFloat16, true, 1,
     N_("bfloat16: float32's range with only 8 significant bits, about 2.4 decimal digits. Made "
        "for training neural networks, where range matters more than digits.")},
    {Precision::Float32, "f32", N_("float32 (FMA allowed)"), floats::Format::Float32, false, 0,
     N_("float32 as written: nvcc fuses a\xc3\x97"
        "b + c into one fused multiply-add by default "
        "(-fmad=true), rounding once instead of twice. Usually slightly more accurate, sometimes "
        "surprising: a variance can come out negative. GPU only: the CPU cannot know which "
        "operations nvcc fused.")},
    {Precision::Float32NoFma, "f32_rn", N_("float32 (no FMA)"), floats::Format::Float32, true, 4,
     N_("float32 with every operation rounded on its own (__fmul_rn, __fadd_rn), which nvcc may "
        "not fuse: exactly what the source says, and what the CPU computes.")},
    {Precision::Float32Fast, "f32_fast", N_("float32 fast math"), floats::Format::Float32, false, 3,
     N_("float32 compiled with --use_fast_math: cosf, expf and logf become fast hardware "
        "approximations (__cosf, __expf, __logf), division and square root are approximate, and "
        "subnormal numbers become 0. GPU only.")},
    {Precision::Float64, "f64", "float64", floats::Format::Float64, true, 2,
     N_("IEEE double: 53 significant bits, about 16 decimal digits, every operation rounded on its "
        "own (no fused multiply-add), like the CPU. On data-centre GPUs half as fast as float32, "
        "on most consumer GPUs 1/64.")},
};

}  // namespace

std::span<const ExprInfo> expressions() {
  return kExpressions;
}
const ExprInfo& exprInfo(Expr e) {
  return kExpressions[static_cast<size_t>(e)];
}
std::span<const PrecisionInfo> precisions() {
  return kPrecisions;
}
const PrecisionInfo& precisionInfo(Precision p) {
  return kPrecisions[static_cast<size_t>(p)];
}

std::string evalKernelName(Precision p) {
  return std::string("cudalab_eval_") + precisionInfo(p).id;
}

std::vector<double> sweepXs(int perDecade) {
  perDecade = std::max(1, perDecade);
  const double lo = std::log10(kSweepMin), hi = std::log10(kSweepMax);
  const int steps = static_cast<int>(std::lround((hi - lo) * perDecade));
  std::vector<double> xs;
  xs.reserve(static_cast<size_t>(steps) + 1);
  for (int k = 0; k <= steps; ++k)
    xs.push_back(std::pow(10.0, lo + static_cast<double>(k) / perDecade));
  xs.front() = kSweepMin;
  xs.back() = kSweepMax;
  return xs;
}

// ---------------------------------------------------------------------------------------------
// Exact values
// ---------------------------------------------------------------------------------------------

namespace {

// x + d as format f computes it: one rounding of the exact sum. float64 adds natively (a long
// double sum rounded again to double could round twice); for the narrower formats the long
// double sum rounded once more is still correctly rounded (64 >= 2p + 2).
double roundedSum(floats::Format f, double x, double d) {
  if (f == floats::Format::Float64) return x + d;
  return floats::roundTo(f, static_cast<long double>(x) + d);
}

}  // namespace

long double exactValue(Expr e, floats::Format f, double xd) {
  const long double x = xd;
  switch (e) {
    case Expr::PlusOne:
      return x;
    case Expr::OneMinusCos: {
      const long double s = std::sin(x / 2) / x;
      return 2 * s * s;
    }
    case Expr::SqrtMinusOne:
      return x * x / (std::sqrt(x * x + 1) + 1);
    case Expr::Expm1:
      return std::expm1(x);
    case Expr::Log1p:
      return std::log1p(x);
    case Expr::Quadratic:
      return 2 * x / (1 + std::sqrt(1 + 4 * x));
    case Expr::Variance: {
      long double v[kVarianceCount];
      long double mean = 0;
      for (int i = 0; i < kVarianceCount; ++i) {
        v[i] = roundedSum(f, xd, varianceOffset(i));
        mean += v[i];
      }
      mean /= kVarianceCount;
      long double m2 = 0;
      for (long double vi : v)
        m2 += (vi - mean) * (vi - mean);
      return m2 / kVarianceCount;
    }
  }
  return std::numeric_limits<long double>::quiet_NaN();
}

long double funcExact(Func fn, long double x) {
  switch (fn) {
    case Func::Cos:
      return std::cos(x);
    case Func::Sin:
      return std::sin(x);
    case Func::Exp:
      return std::exp(x);
    case Func::Expm1:
      return std::expm1(x);
    case Func::Log:
      return std::log(x);
    case Func::Log1p:
      return std::log1p(x);
  }
  return std::numeric_limits<long double>::quiet_NaN();
}

double Evaluation::relError(Precision p, Expr e, Formula f, size_t i) const {
  const double v = at(p, e, f, i);
  const long double ex = exactAt(p, e, i);
  if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(v)) return v == ex ? 0.0 : std::numeric_limits<double>::infinity();
  if (ex == 0) return v == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return static_cast<double>(std::fabs((v - ex) / ex));
}

double Evaluation::ulpError(Precision p, Expr e, Formula f, size_t i) const {
  const double v = at(p, e, f, i);
  if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
  return floats::ulpError(precisionInfo(p).format, v, exactAt(p, e, i));
}

namespace detail {

Evaluation makeEvaluation(std::span<const double> xs) {
  Evaluation ev;
  ev.xs.assign(xs.begin(), xs.end());
  const size_t n = xs.size();
  ev.value.assign(size_t{kPrecisionCount} * kExprCount * kFormulaCount * n,
                  std::numeric_limits<double>::quiet_NaN());
  ev.exact.resize(size_t{kPrecisionCount} * kExprCount * n);
  for (const PrecisionInfo& p : precisions())
    for (const ExprInfo& e : expressions())
      for (size_t i = 0; i < n; ++i) {
        // The exact value for the input as this precision holds it: the sweep measures the
        // formula's error, not the rounding of x itself.
        const double xr = floats::roundTo(p.format, xs[i]);
        ev.exact[ev.exactIndex(p.precision, e.expr, i)] = exactValue(e.expr, p.format, xr);
      }
  return ev;
}

void clearMissingFormulas(Evaluation& ev) {
  for (const PrecisionInfo& p : precisions())
    for (const ExprInfo& e : expressions()) {
      const bool available = ev.available[static_cast<size_t>(p.precision)];
      for (int f = 0; f < kFormulaCount; ++f) {
        const bool exists = f == 0 || e.stable != nullptr;
        if (exists && available) continue;
        for (size_t i = 0; i < ev.xs.size(); ++i)
          ev.value[ev.index(p.precision, e.expr, static_cast<Formula>(f), i)] =
              std::numeric_limits<double>::quiet_NaN();
      }
    }
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The CPU's operations in each precision
// ---------------------------------------------------------------------------------------------

namespace {

// float and double natively; with -ffp-contract=off every operation here is rounded on its own,
// like __fmul_rn and __dmul_rn. The std functions have overloads for both types.
template <class Native>
struct HostNative {
  using T = Native;
  static T fromDouble(double c) { return static_cast<T>(c); }
  static double toDouble(T v) { return v; }
  static T add(T a, T b) { return a + b; }
  static T sub(T a, T b) { return a - b; }
  static T neg(T a) { return -a; }
  static T mul(T a, T b) { return a * b; }
  static T div(T a, T b) { return a / b; }
  static T sqrt(T a) { return std::sqrt(a); }
  static T cos(T a) { return std::cos(a); }
  static T sin(T a) { return std::sin(a); }
  static T exp(T a) { return std::exp(a); }
  static T expm1(T a) { return std::expm1(a); }
  static T log(T a) { return std::log(a); }
  static T log1p(T a) { return std::log1p(a); }
};

// half and bfloat16 held as doubles that are always representable in the format. Each operation
// is done in double and rounded once to the format: exact for + and x of 16-bit numbers (or
// rounded in double first, which is harmless because 53 >= 2p + 2, as for / and sqrt). Functions
// go through float32, as on the GPU.
template <floats::Format F>
struct Host16 {
  using T = double;
  static T r(long double v) { return floats::roundTo(F, v); }
  static T viaFloat(float v) { return r(v); }
  static T fromDouble(double c) { return r(c); }
  static double toDouble(T v) { return v; }
  static T add(T a, T b) { return r(a + b); }
  static T sub(T a, T b) { return r(a - b); }
  static T neg(T a) { return -a; }
  static T mul(T a, T b) { return r(a * b); }
  static T div(T a, T b) { return r(a / b); }
  static T sqrt(T a) { return r(std::sqrt(a)); }
  static T cos(T a) { return viaFloat(std::cos(static_cast<float>(a))); }
  static T sin(T a) { return viaFloat(std::sin(static_cast<float>(a))); }
  static T exp(T a) { return viaFloat(std::exp(static_cast<float>(a))); }
  static T expm1(T a) { return viaFloat(std::expm1(static_cast<float>(a))); }
  static T log(T a) { return viaFloat(std::log(static_cast<float>(a))); }
  static T log1p(T a) { return viaFloat(std::log1p(static_cast<float>(a))); }
};

template <class Ops>
void evalAllHost(std::span<const double> xs, Precision p, Evaluation& ev) {
  using N = Num<Ops>;
  for (size_t i = 0; i < xs.size(); ++i) {
    const N x(xs[i]);
    for (const ExprInfo& e : expressions())
      for (int f = 0; f < kFormulaCount; ++f)
        ev.value[ev.index(p, e.expr, static_cast<Formula>(f), i)] =
            Ops::toDouble(evalFormula(e.expr, static_cast<Formula>(f), x).v);
  }
  ev.available[static_cast<size_t>(p)] = true;
}

template <class F>
bool withHostOps(Precision p, F&& f) {
  switch (p) {
    case Precision::Half:
      f.template operator()<Host16<floats::Format::Half>>();
      return true;
    case Precision::BFloat16:
      f.template operator()<Host16<floats::Format::BFloat16>>();
      return true;
    case Precision::Float32NoFma:
      f.template operator()<HostNative<float>>();
      return true;
    case Precision::Float64:
      f.template operator()<HostNative<double>>();
      return true;
    case Precision::Float32:
    case Precision::Float32Fast:
      return false;
  }
  return false;
}

}  // namespace

Evaluation evaluateCpu(std::span<const double> xs) {
  Evaluation ev = detail::makeEvaluation(xs);
  ev.onGpu = false;
  for (const PrecisionInfo& p : precisions())
    withHostOps(p.precision, [&]<class Ops>() { evalAllHost<Ops>(xs, p.precision, ev); });
  detail::clearMissingFormulas(ev);
  return ev;
}

std::vector<double> basicOpCpu(Precision p, BasicOp op, std::span<const double> a,
                               std::span<const double> b) {
  std::vector<double> out(a.size(), std::numeric_limits<double>::quiet_NaN());
  // float32 with FMA allowed rounds single operations the same way; only fast math differs.
  const Precision host = p == Precision::Float32 ? Precision::Float32NoFma : p;
  withHostOps(host, [&]<class Ops>() {
    using N = Num<Ops>;
    for (size_t i = 0; i < a.size(); ++i) {
      const N y = evalBasic(op, N(a[i]), N(op == BasicOp::Sqrt || b.empty() ? 0.0 : b[i]));
      out[i] = Ops::toDouble(y.v);
    }
  });
  return out;
}

TrapResult literalTrapCpu(std::span<const double> xs) {
  TrapResult r;
  r.xs.assign(xs.begin(), xs.end());
  for (double xd : xs) {
    const float x = static_cast<float>(xd);
    r.floatLiteral.push_back((x + 1.0f) - 1.0f);
    r.doubleLiteral.push_back(static_cast<float>((x + 1.0) - 1.0));
  }
  return r;
}

}  // namespace cudalab::precision
