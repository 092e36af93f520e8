// The launch-config lesson's "measured by the GPU's counters" panel: the learner's launch and the
// same work at other block sizes, each profiled once (CUPTI, in the counters' helper process), for
// the occupancy the SMs reached against the occupancy the calculator promises. Each row's name
// crosses the pipe as a format and its numbers (StepReading::labelPhrase), shown translated.
// Measured against the limits of the GPU the helper finds; spec() is also the benchmark's table.
#pragma once

#include "launch_config/launch_config.hpp"
#include "ui/counters_panel.hpp"

namespace cudalab {

HelperCountersPanel<launch_config::LaunchConfig> makeLaunchCountersPanel();

}  // namespace cudalab
