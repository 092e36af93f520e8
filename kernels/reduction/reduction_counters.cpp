// The reduction ladder under the GPU's counters: each step's first kernel profiled (CUPTI), for
// the divergence of steps 1 and 2 and the bank conflicts of step 2, measured instead of modelled.
#include <random>

#include "counters/counters.hpp"
#include "reduction/reduction.hpp"

namespace cudalab::reduction {

Result<std::vector<StepCounters>> measureCounters(const ReduceParams& p,
                                                  std::span<const StepId> steps,
                                                  const std::atomic<bool>* cancel,
                                                  const Progress& progress) {
  CUDALAB_TRY(validate(p));
  const HostData d = makeData(p.type, p.n, std::random_device{}());
  const std::vector<std::string> keys = {"warp_efficiency",
                                         "divergent_branches",
                                         "shared_load_bank_conflicts",
                                         "shared_store_bank_conflicts",
                                         "shared_load_requests",
                                         "achieved_occupancy",
                                         "instructions"};
  std::vector<StepCounters> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepInfo& s = stepInfo(steps[i]);
    if (s.shape == Shape::Library) continue;  // CUB's kernels are its own
    if (cancel && cancel->load()) return Status::error("Measurement cancelled.");
    if (progress) progress(float(i) / float(steps.size()), s.label);
    Result<std::vector<counters::LaunchCounters>> r = counters::profile(keys, [&]() -> Status {
      Result<double> sum = reduceOnce(s.id, d, p.block);
      return sum ? Status{} : sum.status();
    });
    if (!r) return r.status();
    // The step's first kernel: its pass over all N numbers (the poisons are memsets, not
    // kernels; later passes sum the partial sums).
    if (r->empty())
      return Status::error(std::string("The profiler saw no kernel of ") + s.label + ".");
    const counters::LaunchCounters* first = &r->front();
    StepCounters c;
    c.step = s.id;
    c.launches = int(r->size());
    c.threadsPerInstruction = first->value("warp_efficiency").value_or(0);
    c.divergentBranches = first->value("divergent_branches").value_or(0);
    c.sharedLoadConflicts = first->value("shared_load_bank_conflicts").value_or(0);
    c.sharedStoreConflicts = first->value("shared_store_bank_conflicts").value_or(0);
    c.sharedLoads = first->value("shared_load_requests").value_or(0);
    c.achievedOccupancy = first->value("achieved_occupancy").value_or(0);
    c.instructions = first->value("instructions").value_or(0);
    out.push_back(std::move(c));
  }
  if (progress) progress(1, "done");
  return out;
}

}  // namespace cudalab::reduction
