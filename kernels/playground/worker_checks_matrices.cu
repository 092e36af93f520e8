// The worker's run for the exercises on n x n matrices (worker_checks.cu has the others): the
// tiled and naive products, the transpose and the row-wise softmax. Each makes its buffers, times
// the learner's launches, checks every element of the n x n output against its CPU reference in
// one shared loop (checkSquare) that also draws the output's picture, then, when the learner asked
// to compare, times the built-in kernel and the library on the same problem.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/translatable.hpp"
#include "matmul/matmul.hpp"
#include "memory/memory.hpp"
#include "playground/online_softmax.hpp"
#include "playground/worker_run_internal.cuh"
#include "tensor_cores/tensor_cores.hpp"

namespace cudalab::playground::detail {

namespace {

// Every element of the n x n output `out` against `expected(k)` within `tolerance(k)` (k = row *
// n + column): the counts, the first mismatches and the picture (at most 256 x 256 cells, each the
// worst of its elements). The output's rows are `ld` elements apart (the WMMA exercise's padded C;
// 0: n), and the guard zone follows its ld x ld elements.
template <class Expected, class Tolerance>
void checkSquare(const Buffer<float>& out, long long n, RunReport& r, Expected expected,
                 Tolerance tolerance, long long ld = 0) {
  if (ld == 0) ld = n;
  const int cw = static_cast<int>(std::min<long long>(n, 256));
  r.cellsWide = cw;
  r.cellSpan = 1;
  r.cells.assign(static_cast<size_t>(cw) * static_cast<size_t>(cw), Cell::Correct);
  for (long long i = 0; i < n; ++i)
    for (long long j = 0; j < n; ++j) {
      const long long k = i * n + j;
      const float got = out.host[static_cast<size_t>(i * ld + j)];
      const double want = expected(k);
      ++r.checked;
      Cell& cell = r.cells[static_cast<size_t>((i * cw / n) * cw + j * cw / n)];
      if (isPoison(got)) {
        ++r.unwritten, ++r.wrong;
        cell = Cell::Unwritten;
        note(r, k, want, got, true);
        continue;
      }
      const double err = std::fabs(got - want);
      if (!(err <= tolerance(k))) {
        ++r.wrong;
        if (cell != Cell::Unwritten) cell = Cell::Wrong;
        note(r, k, want, got, false);
      }
      if (std::isfinite(err)) r.maxAbsError = std::max(r.maxAbsError, err);
    }
  checkGuard(out, r);
}

// A built-in kernel's n x n output `mine` (on the device): whether each element is within
// `tolerance(k)` of `expected(k)` (cmp.ok), and how many differ bit for bit from the learner's.
template <class Expected, class Tolerance>
void checkMine(Comparison& cmp, const float* mine, const Buffer<float>& learner, long long count,
               Expected expected, Tolerance tolerance) {
  std::vector<float> h(static_cast<size_t>(count));
  if (cudaMemcpy(h.data(), mine, h.size() * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
    cmp.outputs = Comparison::Outputs::Unreadable;
    cmp.ok = false;
    return;
  }
  long long differ = 0;
  for (long long k = 0; k < count; ++k) {
    const float v = h[static_cast<size_t>(k)];
    differ += std::memcmp(&v, &learner.host[static_cast<size_t>(k)], 4) != 0;
    if (!(std::fabs(v - expected(k)) <= tolerance(k))) cmp.ok = false;
  }
  cmp.outputs = differ == 0 ? Comparison::Outputs::Identical : Comparison::Outputs::Differ;
  cmp.differing = differ;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Matmul (the naive and the tiled product): the matmul lesson's reference and runner
// ---------------------------------------------------------------------------------------------

bool Run::runMatmul() {
  const Exercise& e = e_;
  const RunParams& p = p_;
  const Inputs& in = in_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  const int n = n_;
  Status s;
  Buffer<float> A, B, C;
  const long long nn = p.n * p.n;
  const long long guard = guardElements(nn, threads_);
  if (!(s = A.allocate(nn, guard, st)) || !(s = B.allocate(nn, guard, st)) ||
      !(s = C.allocate(nn, guard, st)))
    return fail(s);
  if (!(s = A.upload(in.in0, st)) || !(s = B.upload(in.in1, st))) return fail(s);
  float* pa = A.ptr();
  float* pb = B.ptr();
  float* pc = C.ptr();
  void* args[] = {&pa, &pb, &pc, &n_};
  if (!timeInto(C, args)) return false;
  // The matmul lesson's float64 reference (every row, on all cores) and its bound: n
  // roundings times the sum of |A[i,k] B[k,j]| for each element.
  std::vector<int> rows(static_cast<size_t>(p.n));
  for (int i = 0; i < n; ++i)
    rows[static_cast<size_t>(i)] = i;
  const matmul::Reference ref =
      matmul::referenceProduct(in.in0.data(), in.in1.data(), n, n, n, std::move(rows));
  const double gamma = matmul::errorBound(matmul::Precision::Float32, n);
  checkSquare(
      C, p.n, r, [&](long long k) { return ref.c[static_cast<size_t>(k)]; },
      [&](long long k) { return gamma * ref.absSum[static_cast<size_t>(k)] + 1e-30; });
  if (!p.compare) return true;
  // The matmul lesson's runner at the same size (its own fresh matrices).
  matmul::MatmulParams mp;
  mp.M = mp.N = mp.K = n;
  mp.runs = std::max(3, std::min(p.runs, 10));
  const matmul::StepId which[] = {matmul::StepId::Warp, matmul::StepId::Cublas};
  Result<matmul::LadderReport> lr = matmul::measureLadder(mp, which);
  if (!lr) {
    failedComparison(e.builtIn, lr.status());
    return true;
  }
  const char* labels[] = {e.builtIn, e.library};
  for (size_t i = 0; i < lr->steps.size(); ++i)
    r.comparisons.push_back({labels[i], lr->steps[i].m.kernel().medianMs, lr->steps[i].error.ok(),
                             N_("measured by the matmul lesson's runner at the same n")});
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Wmma: the tensor cores on padded halves, the tensor-cores lesson's runner beside it
// ---------------------------------------------------------------------------------------------

bool Run::runWmma() {
  const Exercise& e = e_;
  const RunParams& p = p_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  Status s;
  // A and B padded with zeros to a multiple of 16 (the zeros add nothing to C), in half, with
  // more zeros after each where a wrong leading dimension or a grid too large reads; C's guard
  // zone as far as a warp's stores reach (wmmaGuardElements).
  const long long side = paddedSide(e.kind, p.n), padded = side * side;
  const long long guard = wmmaGuardElements(padded, threads_);
  std::vector<__half> ha(static_cast<size_t>(padded + guard), __float2half(0.0f));
  std::vector<__half> hb(ha);
  for (long long i = 0; i < p.n; ++i)
    for (long long j = 0; j < p.n; ++j) {
      ha[static_cast<size_t>(i * side + j)] =
          __float2half(in_.in0[static_cast<size_t>(i * p.n + j)]);
      hb[static_cast<size_t>(i * side + j)] =
          __float2half(in_.in1[static_cast<size_t>(i * p.n + j)]);
    }
  DeviceArray<__half> A, B;
  Buffer<float> C;
  if (!(s = A.allocate(ha.size())) || !(s = B.allocate(hb.size())) ||
      !(s = C.allocate(padded, guard, st)))
    return fail(s);
  if (cudaMemcpyAsync(A.get(), ha.data(), ha.size() * sizeof(__half), cudaMemcpyHostToDevice, st) !=
          cudaSuccess ||
      cudaMemcpyAsync(B.get(), hb.data(), hb.size() * sizeof(__half), cudaMemcpyHostToDevice, st) !=
          cudaSuccess)
    return fail(Status::error("Copying the inputs to the GPU failed."));
  const __half* pa = A.get();
  const __half* pb = B.get();
  float* pc = C.ptr();
  int n = static_cast<int>(side);
  void* args[] = {&pa, &pb, &pc, &n};
  if (!timeInto(C, args)) return false;
  // The float64 product of the same numbers (exact in half); the tensor cores add in float32
  // and may truncate each addition: (2 n + 3) units of float32 times sum |A[i,k] B[k,j]|, the
  // bound the tensor-cores lesson checks its steps against.
  std::vector<int> rows(static_cast<size_t>(p.n));
  for (int i = 0; i < n_; ++i)
    rows[static_cast<size_t>(i)] = i;
  const matmul::Reference ref =
      matmul::referenceProduct(in_.in0.data(), in_.in1.data(), n_, n_, n_, std::move(rows));
  const double gamma = (2.0 * static_cast<double>(p.n) + 3.0) * std::ldexp(1.0, -24);
  checkSquare(
      C, p.n, r, [&](long long k) { return ref.c[static_cast<size_t>(k)]; },
      [&](long long k) { return gamma * ref.absSum[static_cast<size_t>(k)] + 1e-30; }, side);
  if (!p.compare) return true;
  // The tensor-cores lesson's runner at the same size (its own fresh matrices, FP16).
  tensor_cores::TensorParams tp;
  tp.M = tp.N = tp.K = n_;
  tp.format = tensor_cores::InputFormat::Half;
  tp.warmup = 1;
  tp.runs = std::max(3, std::min(p.runs, 10));
  const tensor_cores::StepId which[] = {tensor_cores::StepId::WmmaGlobal,
                                        tensor_cores::StepId::CublasHalf};
  Result<tensor_cores::LadderReport> lr = tensor_cores::measureLadder(tp, which);
  if (!lr) {
    failedComparison(e.builtIn, lr.status());
    return true;
  }
  for (const tensor_cores::StepResult& t : lr->steps)
    r.comparisons.push_back({t.step == tensor_cores::StepId::WmmaGlobal ? e.builtIn : e.library,
                             t.m.kernel().medianMs, t.error.ok(),
                             N_("measured by the tensor-cores lesson's runner at the same n")});
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] An n x n matrix in, an n x n matrix out: the learner's timed runs
// ---------------------------------------------------------------------------------------------

bool Run::runMatrixMap(Buffer<float>& in, Buffer<float>& out) {
  const long long nn = p_.n * p_.n;
  const long long guard = guardElements(nn, threads_);
  Status s;
  if (!(s = in.allocate(nn, guard, st_)) || !(s = out.allocate(nn, guard, st_))) return fail(s);
  if (!(s = in.upload(in_.in0, st_))) return fail(s);
  float* pin = in.ptr();
  float* pout = out.ptr();
  void* args[] = {&pin, &pout, &n_};
  return timeInto(out, args);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Transpose: exact, beside the memory lesson's best transpose and a copy
// ---------------------------------------------------------------------------------------------

bool Run::runTranspose() {
  const Exercise& e = e_;
  const RunParams& p = p_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  Status s;
  Buffer<float> A, B;
  const long long nn = p.n * p.n;
  if (!runMatrixMap(A, B)) return false;
  float* pa = A.ptr();
  // out[i, j] = in[j, i], bit for bit.
  const auto expected = [&](long long k) {
    return static_cast<double>(in_.in0[static_cast<size_t>((k % p.n) * p.n + k / p.n)]);
  };
  const auto exact = [](long long) { return 0.0; };
  checkSquare(B, p.n, r, expected, exact);
  if (!p.compare) return true;
  // The memory lesson's kernels on the same input, into a second output.
  DeviceArray<float> other;
  if (!(s = other.allocate(static_cast<size_t>(nn)))) {
    failedComparison(e.builtIn, s);
    return true;
  }
  float* po = other.get();
  const std::pair<memory::TransposeStep, const char*> rows[] = {
      {memory::TransposeStep::PaddedFour, e.builtIn}, {memory::TransposeStep::Memcpy, e.library}};
  for (const auto& [step, label] : rows) {
    Comparison cmp{label, 0, true};
    std::vector<double> ms;
    s = timeRuns(
        p.runs, st, [&] { return poison(po, nn, false, st); },
        [&] { return memory::launchTranspose(step, pa, po, n_, n_, st); }, ms);
    if (!s) {
      failedComparison(label, s);
      continue;
    }
    cmp.ms = medianOf(ms);
    if (step == memory::TransposeStep::Memcpy)
      cmp.how = N_("copies the same bytes without transposing them");
    else
      checkMine(cmp, po, B, nn, expected, exact);
    r.comparisons.push_back(cmp);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Softmax: the float64 softmax, beside the app's online softmax
// ---------------------------------------------------------------------------------------------

bool Run::runSoftmax() {
  const Exercise& e = e_;
  const RunParams& p = p_;
  RunReport& r = r_;
  cudaStream_t st = st_;
  Status s;
  Buffer<float> X, Y;
  const long long nn = p.n * p.n;
  if (!runMatrixMap(X, Y)) return false;
  float* px = X.ptr();
  const std::vector<double> ref = softmaxReference(in_.in0, n_);
  // Each row's maximum, for the tolerance (how far below it each score is).
  std::vector<float> rowMax(static_cast<size_t>(p.n), -HUGE_VALF);
  for (long long k = 0; k < nn; ++k) {
    float& m = rowMax[static_cast<size_t>(k / p.n)];
    m = std::max(m, in_.in0[static_cast<size_t>(k)]);
  }
  const auto expected = [&](long long k) { return ref[static_cast<size_t>(k)]; };
  const auto tolerance = [&](long long k) {
    const double gap =
        static_cast<double>(rowMax[static_cast<size_t>(k / p.n)]) - in_.in0[static_cast<size_t>(k)];
    return softmaxTolerance(gap, ref[static_cast<size_t>(k)], n_);
  };
  checkSquare(Y, p.n, r, expected, tolerance);
  if (!p.compare) return true;
  DeviceArray<float> other;
  if (!(s = other.allocate(static_cast<size_t>(nn)))) {
    failedComparison(e.builtIn, s);
    return true;
  }
  float* po = other.get();
  Comparison cmp{e.builtIn, 0, true};
  std::vector<double> ms;
  s = timeRuns(
      p.runs, st, [&] { return poison(po, nn, false, st); },
      [&] { return launchOnlineSoftmax(px, po, n_, n_, st); }, ms);
  if (!s) {
    failedComparison(e.builtIn, s);
    return true;
  }
  cmp.ms = medianOf(ms);
  cmp.how = N_("256 threads per row, the row read twice");
  checkMine(cmp, po, Y, nn, expected, tolerance);
  r.comparisons.push_back(cmp);
  return true;
}

}  // namespace cudalab::playground::detail
