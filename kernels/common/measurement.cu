// The runner: times a Workload's phases with CUDA events after warm-up, poisoning outputs before
// and verifying after every run.
#include <cuda_runtime_api.h>

#include <algorithm>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/measurement.hpp"

#include "common/check_tally.hpp"

namespace cudalab {
namespace {

Status elapsed(cudaEvent_t a, cudaEvent_t b, double& ms) {
  float f = 0;
  CUDALAB_CUDA_TRY(cudaEventElapsedTime(&f, a, b));
  ms = f;
  return {};
}

}  // namespace

double Measurement::totalMedianMs() const {
  return phases[0].medianMs + phases[1].medianMs + phases[2].medianMs;
}
double Measurement::kernelGBps() const {
  return kernel().medianMs > 0 ? kernelBytes / (kernel().medianMs * 1e6) : 0.0;
}
double Measurement::kernelGFlops() const {
  return kernel().medianMs > 0 ? kernelFlops / (kernel().medianMs * 1e6) : 0.0;
}

void summarize(PhaseStats& s) {
  if (s.samplesMs.empty()) {
    s.medianMs = s.minMs = s.maxMs = 0;
    return;
  }
  std::vector<double> v = s.samplesMs;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.medianMs = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.minMs = v.front();
  s.maxMs = v.back();
}

Result<MeasureOptions> fitRuns(Workload& w, MeasureOptions opt, double budgetMs,
                               cudaStream_t stream) {
  Event start, stop;
  CUDALAB_TRY(start.create());
  CUDALAB_TRY(stop.create());
  CUDALAB_CUDA_TRY(cudaEventRecord(start.get(), stream));
  CUDALAB_TRY(w.launch(stream));
  CUDALAB_CUDA_TRY(cudaEventRecord(stop.get(), stream));
  CUDALAB_CUDA_TRY(cudaEventSynchronize(stop.get()));
  float ms = 0;
  CUDALAB_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  if (double(ms) * (opt.warmup + opt.runs) > budgetMs) {
    opt.warmup = 0;  // the trial launch warmed it up
    opt.runs = std::clamp(static_cast<int>(budgetMs / std::max(double(ms), 1e-3)), 1, opt.runs);
  }
  return opt;
}

Result<Measurement> measure(Workload& w, const MeasureOptions& opt, const std::atomic<bool>* cancel,
                            cudaStream_t stream) {
  if (opt.runs < 1 || opt.warmup < 0)
    return Status::error("A measurement needs at least one timed run.");
  Measurement m;
  m.warmup = opt.warmup;
  m.runs = opt.runs;
  m.kernelBytes = w.kernelBytes();
  m.kernelFlops = w.kernelFlops();
  m.h2dBytes = w.h2dBytes();
  m.d2hBytes = w.d2hBytes();
  CUDALAB_TRY(w.prepare(stream));
  // Events for the four phase boundaries of one run, freed on every path.
  Event ev[4];
  for (Event& e : ev)
    CUDALAB_TRY(e.create());
  for (int run = 0; run < opt.warmup + opt.runs; ++run) {
    if (cancel && cancel->load()) return Status::error("Measurement cancelled.");
    const bool timed = run >= opt.warmup;
    CUDALAB_TRY(w.poison(stream));
    CUDALAB_CUDA_TRY(cudaEventRecord(ev[0].get(), stream));
    CUDALAB_TRY(w.copyIn(stream));
    CUDALAB_CUDA_TRY(cudaEventRecord(ev[1].get(), stream));
    CUDALAB_TRY(w.launch(stream));
    CUDALAB_CUDA_TRY(cudaEventRecord(ev[2].get(), stream));
    CUDALAB_TRY(w.copyOut(stream));
    CUDALAB_CUDA_TRY(cudaEventRecord(ev[3].get(), stream));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
    if (!timed) continue;
    for (int p = 0; p < 3; ++p) {
      double ms = 0;
      CUDALAB_TRY(elapsed(ev[p].get(), ev[p + 1].get(), ms));
      m.phases[p].samplesMs.push_back(ms);
    }
    if (opt.verifyEveryRun || run + 1 == opt.warmup + opt.runs) {
      Result<Correctness> c = w.verify();
      if (!c) return c.status();
      noteCheck(c->ran && c->wrong == w.wrongByDesign(), "a measured workload");
      if (!m.check.ran || c->wrong > m.check.wrong ||
          (c->wrong == m.check.wrong && c->maxAbsError > m.check.maxAbsError))
        m.check = *c;
    }
  }
  for (PhaseStats& p : m.phases)
    summarize(p);
  return m;
}

}  // namespace cudalab
