// The launch-config lesson's "measured by the GPU's counters" panel: the learner's launch and the
// same work at other block sizes, each profiled once (CUPTI, in the counters' helper process), for
// the occupancy the SMs reached against the occupancy the calculator promises. Each row's name
// crosses the pipe as a format and its numbers (StepReading::labelPhrase), shown translated.
#pragma once

#include "launch_config/launch_config.hpp"
#include "lessons/counters_panel.hpp"

namespace cudalab {

class LaunchCountersPanel {
 public:
  void draw(LessonContext& ctx, bool gpu, const LaunchConfig& c);
  // Measured in the counters' helper process, against the limits of the GPU it finds.
  bool start(const LaunchConfig& c);
  bool pending() const { return panel_.pending(); }
  void cancel() { panel_.cancel(); }
  void poll(LessonContext& ctx) { panel_.poll(ctx); }

 private:
  CountersPanel panel_;
};

// The panel's columns and texts (also the benchmark's table).
const CountersPanelSpec& launchCountersSpec();

}  // namespace cudalab
