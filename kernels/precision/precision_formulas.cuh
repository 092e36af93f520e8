// The formulas of the precision lesson, written once for the GPU and the CPU.
//
// Each formula is a template over a number type N = Num<Ops>: Ops says how one operation is
// done in one precision (native float, __fmul_rn, half via __hadd, the CPU rounding to half...),
// and Num gives it the ordinary operators, so the formulas below read like the course's Python.
// Every operator is one rounding in the precision, exactly as in hardware; nothing here evaluates
// in a wider type behind the reader's back.
#pragma once

#include "precision/precision.hpp"

#ifdef __CUDACC__
#define PREC_HD __host__ __device__ __forceinline__
#else
#define PREC_HD inline
#endif

namespace cudalab::precision {

// The variance expression's offsets: exactly representable in every format, mean 0, variance
// 1.828125. (A function, because a namespace-scope array is not visible in device code.)
PREC_HD constexpr double varianceOffset(int i) {
  constexpr double d[kVarianceCount] = {-2.0, -1.5, -1.0, -0.25, 0.25, 1.0, 1.5, 2.0};
  return d[i];
}

template <class Ops>
struct Num {
  using T = typename Ops::T;
  T v;
  Num() = default;
  // Constants of the formulas (1, 2, 4, 0.5, the variance offsets) are exact in every format.
  PREC_HD explicit Num(double c) : v(Ops::fromDouble(c)) {}
  PREC_HD static Num of(T t) {
    Num n;
    n.v = t;
    return n;
  }
};

template <class O>
PREC_HD Num<O> operator+(Num<O> a, Num<O> b) {
  return Num<O>::of(O::add(a.v, b.v));
}
template <class O>
PREC_HD Num<O> operator-(Num<O> a, Num<O> b) {
  return Num<O>::of(O::sub(a.v, b.v));
}
template <class O>
PREC_HD Num<O> operator-(Num<O> a) {
  return Num<O>::of(O::neg(a.v));
}
template <class O>
PREC_HD Num<O> operator*(Num<O> a, Num<O> b) {
  return Num<O>::of(O::mul(a.v, b.v));
}
template <class O>
PREC_HD Num<O> operator/(Num<O> a, Num<O> b) {
  return Num<O>::of(O::div(a.v, b.v));
}
template <class O>
PREC_HD Num<O> sqrt(Num<O> a) {
  return Num<O>::of(O::sqrt(a.v));
}
template <class O>
PREC_HD Num<O> cos(Num<O> a) {
  return Num<O>::of(O::cos(a.v));
}
template <class O>
PREC_HD Num<O> sin(Num<O> a) {
  return Num<O>::of(O::sin(a.v));
}
template <class O>
PREC_HD Num<O> exp(Num<O> a) {
  return Num<O>::of(O::exp(a.v));
}
template <class O>
PREC_HD Num<O> expm1(Num<O> a) {
  return Num<O>::of(O::expm1(a.v));
}
template <class O>
PREC_HD Num<O> log(Num<O> a) {
  return Num<O>::of(O::log(a.v));
}
template <class O>
PREC_HD Num<O> log1p(Num<O> a) {
  return Num<O>::of(O::log1p(a.v));
}

// One formula of one expression at x. Returns x itself for PlusOne's missing stable formula
// (the caller marks it unavailable).
template <class N>
PREC_HD N evalFormula(Expr e, Formula f, N x) {
  const N one(1.0), two(2.0), four(4.0), half(0.5);
  const bool naive = f == Formula::Naive;
  switch (e) {
    case Expr::PlusOne:
      // 1 + x rounds x away when x < eps/2; subtracting 1 cannot bring it back.
      return (x + one) - one;
    case Expr::OneMinusCos: {
      if (naive) return (one - cos(x)) / (x * x);
      // 1 - cos x = 2 sin^2(x/2) has no subtraction; s = sin(x/2)/x keeps x^2 from underflowing.
      const N s = sin(x * half) / x;
      return two * s * s;
    }
    case Expr::SqrtMinusOne: {
      const N r = sqrt(x * x + one);
      if (naive) return r - one;
      // Multiply by (r + 1)/(r + 1): (r - 1)(r + 1) = x^2 exactly, and r + 1 does not cancel.
      return (x * x) / (r + one);
    }
    case Expr::Expm1:
      return naive ? exp(x) - one : expm1(x);
    case Expr::Log1p:
      return naive ? log(one + x) : log1p(x);
    case Expr::Quadratic: {
      // t^2 + t - x = 0 (a = 1, b = 1, c = -x): the root near 0 for small x.
      const N a = one, b = one, c = -x;
      const N d = sqrt(b * b - four * a * c);
      if (naive) return (-b + d) / (two * a);
      // -b and d nearly cancel; the product of the roots is c/a, so divide instead.
      return (two * c) / (-b - d);
    }
    case Expr::Variance: {
      constexpr int k = kVarianceCount;
      if (naive) {
        // E[v^2] - E[v]^2: two large, nearly equal numbers when the mean is large.
        N s(0.0), s2(0.0);
        for (int i = 0; i < k; ++i) {
          const N v = x + N(varianceOffset(i));
          s = s + v;
          s2 = s2 + v * v;
        }
        const N n(static_cast<double>(k));
        const N m = s / n;
        return s2 / n - m * m;
      }
      // Welford: update the mean and the sum of squared deviations one value at a time; the
      // deviations are small, so nothing large is ever subtracted.
      N mean(0.0), m2(0.0);
      for (int i = 0; i < k; ++i) {
        const N v = x + N(varianceOffset(i));
        const N delta = v - mean;
        mean = mean + delta / N(static_cast<double>(i + 1));
        m2 = m2 + delta * (v - mean);
      }
      return m2 / N(static_cast<double>(k));
    }
  }
  return x;
}

// One basic operation (the bit-exact test's unit).
template <class N>
PREC_HD N evalBasic(BasicOp op, N a, N b) {
  switch (op) {
    case BasicOp::Add:
      return a + b;
    case BasicOp::Sub:
      return a - b;
    case BasicOp::Mul:
      return a * b;
    case BasicOp::Div:
      return a / b;
    case BasicOp::Sqrt:
      return sqrt(a);
  }
  return a;
}

template <class N>
PREC_HD N evalFunc(Func fn, N x) {
  switch (fn) {
    case Func::Cos:
      return cos(x);
    case Func::Sin:
      return sin(x);
    case Func::Exp:
      return exp(x);
    case Func::Expm1:
      return expm1(x);
    case Func::Log:
      return log(x);
    case Func::Log1p:
      return log1p(x);
  }
  return x;
}

}  // namespace cudalab::precision
