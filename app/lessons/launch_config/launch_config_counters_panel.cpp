#include "lessons/launch_config/launch_config_counters_panel.hpp"

#include "core/counters_helper.hpp"
#include "core/i18n.hpp"

namespace cudalab {

using namespace launch_config;

namespace {

constexpr PanelColumn kColumns[] = {
    {"achieved_occupancy",
     N_("Warps resident on an SM on average, against the most it can hold; in brackets the "
        "calculator's occupancy for this block size (what fits on an SM).")},
    {"sm_busy", N_("Share of the kernel's time an average SM had work; in brackets the share of "
                   "SMs that get at least one block.")},
    {"warp_efficiency"},
    {"global_load_sectors_per_request"},
    {"instructions"}};

constexpr CountersPanelSpec kSpec{
    .noGpu = N_("No GPU: there are no counters to read; the launch in numbers above gives the "
                "calculator's occupancy."),
    .columns = kColumns,
    .note =
        N_("Occupancy reached against the calculator's (in brackets): the calculator says how many "
           "warps fit on an SM; the counters say how many were there on average while the kernel "
           "ran. A grid with fewer blocks than the GPU has slots, a last wave with few blocks, or "
           "blocks that finish at different times leave slots empty. SMs busy: a grid smaller than "
           "the number of SMs leaves some with nothing to do. Threads / instruction falls below 32 "
           "when a block size is not a multiple of 32 or the guard idles threads."),
    .modelLabel = N_("the calculator")};

// How the counters' helper process measures this panel (core/counters_helper.hpp): the launch as
// the learner set it, with the limits of the GPU the helper runs on.
Result<CountersReadings> measureInHelper(const LaunchConfig& c, const std::atomic<bool>* cancel,
                                         const CountersProgress& progress) {
  Result<DeviceLimits> limits = queryLimits(0);
  if (!limits) return limits.status();
  return measureLaunchCounters(c, *limits, cancel, progress);
}
const bool kHelperJob = registerCountersJob<LaunchConfig>("launch-config", &measureInHelper);

// What the table's note says was measured: the launch in CUDA's own terms, the same in every
// language.
std::string measuredLaunch(const LaunchConfig& c) {
  return trf("%s; the other rows change only the threads per block.", describe(c).c_str());
}

}  // namespace

HelperCountersPanel<LaunchConfig> makeLaunchCountersPanel() {
  return {"launch-config", kSpec, &measuredLaunch};
}

}  // namespace cudalab
