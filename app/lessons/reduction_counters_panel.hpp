// The reduction lesson's "measured by the GPU's counters" panel: every step's first kernel run
// under the profiler (CUPTI, in the app's process), for what the tree picture models: divergence
// (active threads per warp instruction) and bank conflicts, with the occupancy reached.
#pragma once

#include "lessons/counters_panel.hpp"
#include "reduction/reduction.hpp"

namespace cudalab {

class ReductionCountersPanel {
 public:
  void draw(LessonContext& ctx, bool gpu, const reduction::ReduceParams& p);
  bool start(const reduction::ReduceParams& p);
  bool pending() const { return panel_.pending(); }
  void cancel() { panel_.cancel(); }

 private:
  CountersPanel panel_;
};

// The panel's columns and texts (also the benchmark's table).
const CountersPanelSpec& reductionCountersSpec();

}  // namespace cudalab
