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
  // CUB's kernels are its own. Measured: the step's first kernel, its pass over all N numbers
  // (the poisons are memsets, not kernels; later passes sum the partial sums).
  return counters::profileSteps(
      steps, &stepInfo, [](const StepInfo& s) { return s.shape != Shape::Library; },
      [&](const StepInfo& s, std::size_t) {
        return counters::profileStep(s.key, s.label, s.colour, kCounterKeys, [&]() -> Status {
          Result<double> sum = reduceOnce(s.id, d, p.block);
          return sum ? Status{} : sum.status();
        });
      },
      cancel, progress);
}

}  // namespace cudalab::reduction
