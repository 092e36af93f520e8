// The precision lesson's kernels and their host launchers (the only place with <<<>>> for them,
// apart from the fast-math kernel in precision_fast.cu).
//
// The evaluation kernels are extern "C" so that their PTX can be found by name in the text the
// build embeds (see precision_ptx.cpp): the app shows the instructions of the kernels it runs.
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "precision/precision_device.cuh"
#include "precision/precision_internal.hpp"

using namespace cudalab::precision;

// ---- Evaluation kernels, one per precision ---------------------------------------------------

extern "C" __global__ void cudalab_eval_half(const double* xs, int n, double* out) {
  evalAll<HalfOps>(xs, n, out);
}
extern "C" __global__ void cudalab_eval_bf16(const double* xs, int n, double* out) {
  evalAll<Bf16Ops>(xs, n, out);
}
extern "C" __global__ void cudalab_eval_f32(const double* xs, int n, double* out) {
  evalAll<F32Ops>(xs, n, out);
}
extern "C" __global__ void cudalab_eval_f32_rn(const double* xs, int n, double* out) {
  evalAll<F32RnOps>(xs, n, out);
}
extern "C" __global__ void cudalab_eval_f64(const double* xs, int n, double* out) {
  evalAll<F64Ops>(xs, n, out);
}

// ---- The literal trap ------------------------------------------------------------------------
// The same line twice; only the literal differs. 1.0 is a double, so x is converted to double,
// both operations run in float64 and only the result is rounded back to float.

extern "C" __global__ void cudalab_trap_float_literal(const float* x, int n, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (x[i] + 1.0f) - 1.0f;
}
extern "C" __global__ void cudalab_trap_double_literal(const float* x, int n, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (x[i] + 1.0) - 1.0;  // NOLINT: the double literal is the point
}

// ---- Single operations and functions (tests) -------------------------------------------------

namespace {

// `b` holds n operands, except for Sqrt, which has one and gets no second array (a single
// placeholder element): only the binary operations read it.
template <class Ops>
__global__ void basicKernel(BasicOp op, const double* a, const double* b, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using N = Num<Ops>;
  const double second = op == BasicOp::Sqrt ? 0.0 : b[i];
  out[i] = Ops::toDouble(evalBasic(op, N(a[i]), N(second)).v);
}

template <class Ops>
__global__ void funcKernel(Func fn, const double* x, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using N = Num<Ops>;
  out[i] = Ops::toDouble(evalFunc(fn, N(x[i])).v);
}

template <class Ops>
__global__ void roundKernel(const double* x, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Ops::toDouble(Num<Ops>(x[i]).v);
}

constexpr int kThreads = 256;
int blocksFor(size_t n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

// Runs `launch(dIn..., dOut)` over host arrays: copies in, launches, copies out, all checked.
template <class Launch>
cudalab::Result<std::vector<double>> runOnDevice(std::span<const double> a,
                                                 std::span<const double> b, Launch launch) {
  using namespace cudalab;
  const size_t n = a.size();
  if (n == 0) return std::vector<double>{};
  if (n > (size_t{1} << 30)) return Status::error("Too many values for one launch.");
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<double> dA, dB, dOut;
  CUDALAB_TRY(dA.allocate(n));
  CUDALAB_TRY(dB.allocate(b.empty() ? 1 : n));
  // A kernel that has no second operand must not read it, but the placeholder is defined anyway.
  if (b.empty()) CUDALAB_CUDA_TRY(cudaMemsetAsync(dB.get(), 0, dB.bytes(), stream.get()));
  CUDALAB_TRY(dOut.allocate(n));
  StreamDrain drain(stream.get());
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(dA.get(), a.data(), n * sizeof(double), cudaMemcpyHostToDevice,
                                   stream.get()));
  if (!b.empty())
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(dB.get(), b.data(), n * sizeof(double), cudaMemcpyHostToDevice,
                                     stream.get()));
  CUDALAB_TRY(launch(dA.get(), dB.get(), static_cast<int>(n), dOut.get(), stream.get()));
  std::vector<double> out(n);
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(out.data(), dOut.get(), n * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream.get()));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  return out;
}

// Calls f.template operator()<Ops>() for the Ops of precision p (fast math has its own file and
// only the evaluation kernel).
template <class F>
cudalab::Status withOps(Precision p, F&& f) {
  switch (p) {
    case Precision::Half:
      return f.template operator()<HalfOps>();
    case Precision::BFloat16:
      return f.template operator()<Bf16Ops>();
    case Precision::Float32:
      return f.template operator()<F32Ops>();
    case Precision::Float32NoFma:
      return f.template operator()<F32RnOps>();
    case Precision::Float64:
      return f.template operator()<F64Ops>();
    case Precision::Float32Fast:
      break;
  }
  return cudalab::Status::error(
      "Single operations are not offered in fast math; only the formulas are.");
}

}  // namespace

namespace cudalab::precision {

Result<Evaluation> evaluateGpu(std::span<const double> xs) {
  Evaluation ev = detail::makeEvaluation(xs);
  ev.onGpu = true;
  const size_t n = xs.size();
  if (n == 0) return ev;
  if (n > (size_t{1} << 24)) return Status::error("The sweep has too many points.");
  const int ni = static_cast<int>(n);
  const size_t perPrecision = size_t{kExprCount} * kFormulaCount * n;

  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<double> dXs, dOut;
  CUDALAB_TRY(dXs.allocate(n));
  CUDALAB_TRY(dOut.allocate(perPrecision * kPrecisionCount));
  StreamDrain drain(stream.get());
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(dXs.get(), xs.data(), n * sizeof(double), cudaMemcpyHostToDevice,
                                   stream.get()));
  for (const PrecisionInfo& p : precisions()) {
    double* out = dOut.get() + static_cast<size_t>(p.precision) * perPrecision;
    const int blocks = blocksFor(n);
    switch (p.precision) {
      case Precision::Half:
        cudalab_eval_half<<<blocks, kThreads, 0, stream.get()>>>(dXs.get(), ni, out);
        break;
      case Precision::BFloat16:
        cudalab_eval_bf16<<<blocks, kThreads, 0, stream.get()>>>(dXs.get(), ni, out);
        break;
      case Precision::Float32:
        cudalab_eval_f32<<<blocks, kThreads, 0, stream.get()>>>(dXs.get(), ni, out);
        break;
      case Precision::Float32NoFma:
        cudalab_eval_f32_rn<<<blocks, kThreads, 0, stream.get()>>>(dXs.get(), ni, out);
        break;
      case Precision::Float64:
        cudalab_eval_f64<<<blocks, kThreads, 0, stream.get()>>>(dXs.get(), ni, out);
        break;
      case Precision::Float32Fast:
        CUDALAB_TRY(detail::launchEvalFast(dXs.get(), ni, out, stream.get()));
        break;
    }
    CUDALAB_CUDA_TRY_LAUNCH();
    ev.available[static_cast<size_t>(p.precision)] = true;
  }
  // The layout on the device is the Evaluation's layout: one copy brings everything back.
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(ev.value.data(), dOut.get(), ev.value.size() * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream.get()));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  detail::clearMissingFormulas(ev);
  return ev;
}

Result<std::vector<double>> basicOpGpu(Precision p, BasicOp op, std::span<const double> a,
                                       std::span<const double> b) {
  if (op != BasicOp::Sqrt && b.size() != a.size())
    return Status::error("Both operand arrays must have the same length.");
  Result<std::vector<double>> out = Status::error("No operation ran.");
  Status s = withOps(p, [&]<class Ops>() -> Status {
    out =
        runOnDevice(a, op == BasicOp::Sqrt ? std::span<const double>{} : b,
                    [&](const double* dA, const double* dB, int n, double* dOut,
                        cudaStream_t stream) -> Status {
                      basicKernel<Ops><<<blocksFor(n), kThreads, 0, stream>>>(op, dA, dB, n, dOut);
                      CUDALAB_CUDA_TRY_LAUNCH();
                      return {};
                    });
    return out.status();
  });
  if (!s) return s;
  return out;
}

Result<std::vector<double>> funcGpu(Precision p, Func fn, std::span<const double> x) {
  Result<std::vector<double>> out = Status::error("No function ran.");
  Status s = withOps(p, [&]<class Ops>() -> Status {
    out = runOnDevice(
        x, {},
        [&](const double* dX, const double*, int n, double* dOut, cudaStream_t stream) -> Status {
          funcKernel<Ops><<<blocksFor(n), kThreads, 0, stream>>>(fn, dX, n, dOut);
          CUDALAB_CUDA_TRY_LAUNCH();
          return {};
        });
    return out.status();
  });
  if (!s) return s;
  return out;
}

Result<std::vector<double>> roundGpu(Precision p, std::span<const double> x) {
  Result<std::vector<double>> out = Status::error("No conversion ran.");
  Status s = withOps(p, [&]<class Ops>() -> Status {
    out = runOnDevice(
        x, {},
        [&](const double* dX, const double*, int n, double* dOut, cudaStream_t stream) -> Status {
          roundKernel<Ops><<<blocksFor(n), kThreads, 0, stream>>>(dX, n, dOut);
          CUDALAB_CUDA_TRY_LAUNCH();
          return {};
        });
    return out.status();
  });
  if (!s) return s;
  return out;
}

Result<TrapResult> literalTrapGpu(std::span<const double> xs) {
  TrapResult r;
  r.xs.assign(xs.begin(), xs.end());
  r.onGpu = true;
  const size_t n = xs.size();
  if (n == 0) return r;
  if (n > (size_t{1} << 24)) return Status::error("Too many values for the literal trap.");
  std::vector<float> xf(n);
  for (size_t i = 0; i < n; ++i)
    xf[i] = static_cast<float>(xs[i]);
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<float> dX, dF, dD;
  CUDALAB_TRY(dX.allocate(n));
  CUDALAB_TRY(dF.allocate(n));
  CUDALAB_TRY(dD.allocate(n));
  StreamDrain drain(stream.get());
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(dX.get(), xf.data(), n * sizeof(float), cudaMemcpyHostToDevice,
                                   stream.get()));
  const int ni = static_cast<int>(n);
  cudalab_trap_float_literal<<<blocksFor(n), kThreads, 0, stream.get()>>>(dX.get(), ni, dF.get());
  CUDALAB_CUDA_TRY_LAUNCH();
  cudalab_trap_double_literal<<<blocksFor(n), kThreads, 0, stream.get()>>>(dX.get(), ni, dD.get());
  CUDALAB_CUDA_TRY_LAUNCH();
  r.floatLiteral.resize(n);
  r.doubleLiteral.resize(n);
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(r.floatLiteral.data(), dF.get(), n * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream.get()));
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(r.doubleLiteral.data(), dD.get(), n * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream.get()));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  return r;
}

}  // namespace cudalab::precision
