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
    Result<std::vector<counters::LaunchCounters>> r =
        counters::profile(kCounterKeys, [&]() -> Status {
          Result<double> sum = reduceOnce(s.id, d, p.block);
          return sum ? Status{} : sum.status();
        });
    if (!r) return r.status();
    if (r->empty())
      return Status::error(std::string("The profiler saw no kernel of ") + s.label + ".");
    counters::StepReading reading;
    reading.key = s.key;
    reading.label = s.label;
    reading.colour = s.colour;
    reading.launches = int(r->size());
    // The step's first kernel: its pass over all N numbers (the poisons are memsets, not
    // kernels; later passes sum the partial sums).
    reading.measured = r->front();
    out.push_back(std::move(reading));
  }
  if (progress) progress(1, "done");
  return out;
}

}  // namespace cudalab::reduction
