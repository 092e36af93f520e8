// The launch under the GPU's counters (CUPTI): the learner's configuration and the same work at
// other block sizes, each kernel once, for the occupancy the SMs actually reached beside the
// occupancy the calculator promises. The promise counts what fits on an SM; what a launch reaches
// also depends on whether it has enough blocks to fill every SM, and on its last wave.
#include <cuda_runtime.h>

#include <algorithm>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/translatable.hpp"
#include "launch_config/launch_config.hpp"

namespace cudalab::launch_config {

std::vector<LaunchConfig> countersConfigs(const LaunchConfig& learner) {
  std::vector<LaunchConfig> v{learner};
  for (int threads : {32, 64, 128, 256, 512, 1024}) {
    if (threads == learner.threadsPerBlock) continue;
    LaunchConfig c = learner;
    c.threadsPerBlock = threads;
    v.push_back(c);
  }
  return v;
}

Result<std::vector<counters::StepReading>> measureLaunchCounters(const LaunchConfig& learner,
                                                                 const DeviceLimits& limits,
                                                                 const std::atomic<bool>* cancel,
                                                                 const LaunchProgress& progress) {
  const std::vector<LaunchConfig> configs = countersConfigs(learner);
  std::vector<counters::StepReading> out;
  for (size_t i = 0; i < configs.size(); ++i) {
    const LaunchConfig& c = configs[i];
    if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));
    if (progress) progress(float(i) / float(configs.size()), describe(c));
    CUDALAB_TRY(validate(c, limits));
    Result<LaunchShape> shape = shapeFor(c, limits);
    if (!shape) return shape.status();
    DeviceArray<float> in, outArray;
    CUDALAB_TRY(in.allocate(size_t(shape->allocationElements)));
    CUDALAB_TRY(outArray.allocate(size_t(shape->allocationElements)));
    CUDALAB_CUDA_TRY(cudaMemset(in.get(), 0, in.bytes()));
    // The row's name as a format and its numbers: the app shows it translated, the benchmark's
    // table in English.
    const Phrase label{i == 0 ? N_("yours: %s threads x %s blocks") : N_("%s threads x %s blocks"),
                       {std::to_string(c.threadsPerBlock), std::to_string(shape->blocks)}};
    Result<counters::StepReading> r = counters::profileStep(
        std::to_string(c.threadsPerBlock), label.english(), int(i), kLaunchCounterKeys,
        [&] { return launchDouble(c, *shape, in.get(), outArray.get(), nullptr); });
    if (!r) return r.status();
    counters::StepReading& reading = *r;
    reading.labelPhrase = label;
    Result<int> perSM = occupancyBlocksPerSM(c);
    if (!perSM) return perSM.status();
    const OccupancyNumbers o = occupancyNumbers(*shape, limits, *perSM);
    reading.model.emplace_back("achieved_occupancy", 100.0 * o.occupancy);
    reading.model.emplace_back("sm_busy", 100.0 * double(o.busySMs) / std::max(1, limits.smCount));
    out.push_back(std::move(reading));
  }
  if (progress) progress(1, N_("done"));
  return out;
}

}  // namespace cudalab::launch_config
