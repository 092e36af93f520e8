// The memory lesson's transpose ladder under the GPU's counters: every step's kernel profiled once
// (CUPTI, in the app's process) at the size the access model counts, its sectors and wavefronts
// per request beside the model's, the totals compared.
#pragma once

#include "lessons/counters_panel.hpp"
#include "memory/memory.hpp"

namespace cudalab {

class TransposeCountersPanel {
 public:
  void draw(LessonContext& ctx, bool gpu, const mem::TransposeParams& p);
  bool start(const mem::TransposeParams& p);
  bool pending() const { return panel_.pending(); }
  void cancel() { panel_.cancel(); }

 private:
  CountersPanel panel_;
};

// The panel's columns and texts (also the benchmark's table).
const CountersPanelSpec& transposeCountersSpec();

}  // namespace cudalab
