#include "lessons/launch_config_counters_panel.hpp"

#include "lessons/counters_helper.hpp"
#include "ui/i18n.hpp"

namespace cudalab {

namespace {

constexpr CounterColumn kColumns[] = {
    {"achieved_occupancy", N_("occupancy reached"), CounterFormat::Percent,
     N_("Warps resident on an SM on average, against the most it can hold; in brackets the "
        "calculator's occupancy for this block size (what fits on an SM).")},
    {"sm_busy", N_("SMs busy"), CounterFormat::Percent,
     N_("Share of the kernel's time an average SM had work; in brackets the share of SMs that get "
        "at least one block.")},
    {"warp_efficiency", N_("threads / instruction"), CounterFormat::Threads},
    {"global_load_sectors_per_request", N_("sectors / load"), CounterFormat::Ratio},
    {"instructions", N_("warp instructions"), CounterFormat::Count},
};

constexpr CountersPanelSpec kSpec{
    "counters",
    N_("Measured by the GPU's counters"),
    N_("Read the counters"),
    N_("Runs your launch, and the same work at 32 to 1024 threads per block, once more under the "
       "profiler (CUPTI, the library Nsight Compute uses) and reads what the hardware counted. "
       "Profiling replays kernels: these runs are separate from the timed ones."),
    N_("No GPU: there are no counters to read; the launch in numbers above gives the calculator's "
       "occupancy."),
    kColumns,
    N_("Occupancy reached against the calculator's (in brackets): the calculator says how many "
       "warps fit on an SM; the counters say how many were there on average while the kernel ran. "
       "A grid with fewer blocks than the GPU has slots, a last wave with few blocks, or blocks "
       "that finish at different times leave slots empty. SMs busy: a grid smaller than the "
       "number of SMs leaves some with nothing to do. Threads / instruction falls below 32 when "
       "a block size is not a multiple of 32 or the guard idles threads."),
    false,
    N_("the calculator")};

// How the counters' helper process measures this panel (lessons/counters_helper.hpp).
const bool kHelperJob = registerCountersJob<LaunchConfig>(
    "launch-config",
    [](const LaunchConfig& c, const std::atomic<bool>* cancel,
       const CountersProgress& progress) -> Result<CountersReadings> {
      Result<DeviceLimits> limits = queryLimits(0);
      if (!limits) return limits.status();
      return measureLaunchCounters(c, *limits, cancel, progress);
    });

}  // namespace

const CountersPanelSpec& launchCountersSpec() {
  return kSpec;
}

bool LaunchCountersPanel::start(const LaunchConfig& c) {
  return panel_.start(
      [c](CountersPanel::Job::Control& ctl) {
        return measureInHelper("launch-config", c, ctl.cancelFlag(),
                               [&ctl](float f, const std::string& what) { ctl.progress(f, what); });
      },
      // describe() is the launch in CUDA's own terms, the same in every language.
      trf("%s; the other rows change only the threads per block.", describe(c).c_str()));
}

void LaunchCountersPanel::draw(LessonContext& ctx, bool gpu, const LaunchConfig& c) {
  panel_.draw(ctx, gpu, kSpec, [&] { start(c); });
}

}  // namespace cudalab
