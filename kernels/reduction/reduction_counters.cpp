// The reduction ladder under the GPU's counters: each step's first kernel profiled (CUPTI), for
// the divergence of steps 1 and 2 and the bank conflicts of step 2, measured instead of modelled.
#include <random>

#include "counters/counters.hpp"
#include "reduction/reduction.hpp"

namespace cudalab::reduction {

Result<std::vector<counters::StepReading>> measureCounters(const ReduceParams& p,
                                                           std::span<const StepId> steps,
                                                           const std::atomic<bool>* cancel,
                                                           const Progress& progress) {
  CUDALAB_TRY(validate(p));
  const HostData d = makeData(p.type, p.n, std::random_device{}());
  std::vector<counters::StepReading> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepInfo& s = stepInfo(steps[i]);
    if (s.shape == Shape::Library) continue;  // CUB's kernels are its own
    if (cancel && cancel->load()) return Status::error("Measurement cancelled.");
    if (progress) progress(float(i) / float(steps.size()), s.label);
    // Measured: the step's first kernel, its pass over all N numbers (the poisons are memsets,
    // not kernels; later passes sum the partial sums).
    Result<counters::StepReading> r =
        counters::profileStep(s.key, s.label, s.colour, kCounterKeys, [&]() -> Status {
          Result<double> sum = reduceOnce(s.id, d, p.block);
          return sum ? Status{} : sum.status();
        });
    if (!r) return r.status();
    out.push_back(std::move(*r));
  }
  if (progress) progress(1, N_("done"));
  return out;
}

}  // namespace cudalab::reduction
