// The matmul lesson's "measured by the GPU's counters" panel: every hand-written step profiled
// once (CUPTI, in the app's process) for what each rung of the ladder changes: sectors per load,
// shared-memory passes and bank conflicts, the occupancy reached beside the calculator's.
#pragma once

#include "lessons/counters_panel.hpp"
#include "matmul/matmul.hpp"

namespace cudalab {

class MatmulCountersPanel {
 public:
  void draw(LessonContext& ctx, bool gpu, const matmul::MatmulParams& p);
  bool start(const matmul::MatmulParams& p);
  bool pending() const { return panel_.pending(); }
  void cancel() { panel_.cancel(); }

 private:
  CountersPanel panel_;
};

// The panel's columns and texts (also the benchmark's table).
const CountersPanelSpec& matmulCountersSpec();

}  // namespace cudalab
