// How each precision does one operation on the GPU, and the evaluation kernel every precision
// shares. Included by precision.cu and by precision_fast.cu, which compiles the float32 ops
// again with --use_fast_math.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "precision/precision_formulas.cuh"

namespace cudalab::precision {

// float32 as a learner writes it: plain operators and the standard functions. nvcc may contract
// a*b + c into one fused multiply-add (one rounding instead of two), which is its default
// (-fmad=true). Compiled with --use_fast_math, the same source turns cosf, expf, logf, sqrtf and
// the division into hardware approximations and flushes subnormals to zero.
struct F32Ops {
  using T = float;
  __device__ static T fromDouble(double c) { return static_cast<float>(c); }
  __device__ static double toDouble(T v) { return v; }
  __device__ static T add(T a, T b) { return a + b; }
  __device__ static T sub(T a, T b) { return a - b; }
  __device__ static T neg(T a) { return -a; }
  __device__ static T mul(T a, T b) { return a * b; }
  __device__ static T div(T a, T b) { return a / b; }
  __device__ static T sqrt(T a) { return sqrtf(a); }
  __device__ static T cos(T a) { return cosf(a); }
  __device__ static T sin(T a) { return sinf(a); }
  __device__ static T exp(T a) { return expf(a); }
  __device__ static T expm1(T a) { return expm1f(a); }
  __device__ static T log(T a) { return logf(a); }
  __device__ static T log1p(T a) { return log1pf(a); }
};

// float32 with every operation rounded on its own: __fmul_rn and __fadd_rn are never contracted
// into an FMA, so the result is what the source says operation by operation (and what a CPU
// without FMA computes).
struct F32RnOps : F32Ops {
  __device__ static T add(T a, T b) { return __fadd_rn(a, b); }
  __device__ static T sub(T a, T b) { return __fsub_rn(a, b); }
  __device__ static T mul(T a, T b) { return __fmul_rn(a, b); }
  __device__ static T div(T a, T b) { return __fdiv_rn(a, b); }
  __device__ static T sqrt(T a) { return __fsqrt_rn(a); }
};

// float64 rounds every operation on its own (__dmul_rn, __dadd_rn), like the CPU: the lesson
// shows what contraction does in float32, and float64 stays the CPU's reference bit for bit.
struct F64Ops {
  using T = double;
  __device__ static T fromDouble(double c) { return c; }
  __device__ static double toDouble(T v) { return v; }
  __device__ static T add(T a, T b) { return __dadd_rn(a, b); }
  __device__ static T sub(T a, T b) { return __dsub_rn(a, b); }
  __device__ static T neg(T a) { return -a; }
  __device__ static T mul(T a, T b) { return __dmul_rn(a, b); }
  __device__ static T div(T a, T b) { return __ddiv_rn(a, b); }
  __device__ static T sqrt(T a) { return __dsqrt_rn(a); }
  __device__ static T cos(T a) { return ::cos(a); }
  __device__ static T sin(T a) { return ::sin(a); }
  __device__ static T exp(T a) { return ::exp(a); }
  __device__ static T expm1(T a) { return ::expm1(a); }
  __device__ static T log(T a) { return ::log(a); }
  __device__ static T log1p(T a) { return ::log1p(a); }
};

// half and bfloat16: +, - and * are the hardware's correctly rounded 16-bit operations, in their
// _rn forms: nvcc fuses a plain __hmul followed by __hadd into a 16-bit FMA, as it does for
// float, and this variant is meant to round every operation (as the CPU does). Division
// and square root go through float32 (__fdiv_rn, __fsqrt_rn) and one rounding to 16 bits: float
// has more than twice the bits plus two, so that double rounding gives the correctly rounded
// 16-bit result, whereas CUDA's __hdiv and hsqrt start from approximate reciprocals. Functions
// are computed in float32 and rounded, which is what CUDA's own half functions do too.
template <class H, class Conv>
struct Half16Ops {
  using T = H;
  __device__ static T fromDouble(double c) { return Conv::fromDouble(c); }
  __device__ static double toDouble(T v) { return static_cast<double>(Conv::toFloat(v)); }
  __device__ static T add(T a, T b) { return __hadd_rn(a, b); }
  __device__ static T sub(T a, T b) { return __hsub_rn(a, b); }
  __device__ static T neg(T a) { return __hneg(a); }
  __device__ static T mul(T a, T b) { return __hmul_rn(a, b); }
  __device__ static T div(T a, T b) {
    return Conv::fromFloat(__fdiv_rn(Conv::toFloat(a), Conv::toFloat(b)));
  }
  __device__ static T sqrt(T a) { return Conv::fromFloat(__fsqrt_rn(Conv::toFloat(a))); }
  __device__ static T cos(T a) { return Conv::fromFloat(cosf(Conv::toFloat(a))); }
  __device__ static T sin(T a) { return Conv::fromFloat(sinf(Conv::toFloat(a))); }
  __device__ static T exp(T a) { return Conv::fromFloat(expf(Conv::toFloat(a))); }
  __device__ static T expm1(T a) { return Conv::fromFloat(expm1f(Conv::toFloat(a))); }
  __device__ static T log(T a) { return Conv::fromFloat(logf(Conv::toFloat(a))); }
  __device__ static T log1p(T a) { return Conv::fromFloat(log1pf(Conv::toFloat(a))); }
};

struct HalfConv {
  __device__ static __half fromDouble(double c) { return __double2half(c); }
  __device__ static __half fromFloat(float f) { return __float2half_rn(f); }
  __device__ static float toFloat(__half h) { return __half2float(h); }
};
struct Bf16Conv {
  __device__ static __nv_bfloat16 fromDouble(double c) { return __double2bfloat16(c); }
  __device__ static __nv_bfloat16 fromFloat(float f) { return __float2bfloat16_rn(f); }
  __device__ static float toFloat(__nv_bfloat16 h) { return __bfloat162float(h); }
};
using HalfOps = Half16Ops<__half, HalfConv>;
using Bf16Ops = Half16Ops<__nv_bfloat16, Bf16Conv>;

// One thread per x: every expression and formula, results widened to double in
// out[(e * kFormulaCount + f) * n + i]. The input is rounded to the precision first, as a
// learner's float32 array would be.
template <class Ops>
__device__ void evalAll(const double* xs, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using N = Num<Ops>;
  const N x(xs[i]);
  for (int e = 0; e < kExprCount; ++e)
    for (int f = 0; f < kFormulaCount; ++f)
      out[(e * kFormulaCount + f) * n + i] =
          Ops::toDouble(evalFormula(static_cast<Expr>(e), static_cast<Formula>(f), x).v);
}

}  // namespace cudalab::precision
