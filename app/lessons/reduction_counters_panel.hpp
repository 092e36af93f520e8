// The reduction lesson's "measured by the GPU's counters" panel: every step's first kernel run
// under the profiler (CUPTI, in the app's process), for what the tree picture models: divergence
// (active threads per warp instruction) and bank conflicts (shared wavefronts per request), with
// the occupancy reached. Profiling runs on a worker thread, apart from the timed runs.
#pragma once

#include <optional>
#include <vector>

#include "common/async_job.hpp"
#include "lessons/lesson.hpp"
#include "reduction/reduction.hpp"

namespace cudalab {

class ReductionCountersPanel {
 public:
  void draw(LessonContext& ctx, bool gpu, const reduction::ReduceParams& p);
  bool start(const reduction::ReduceParams& p);
  bool pending() const { return job_.pending(); }

 private:
  struct Reading {
    reduction::ReduceParams p;
    std::vector<reduction::StepCounters> steps;
  };
  AsyncJob<Reading> job_;
  std::optional<Reading> last_;
  Status error_;
};

}  // namespace cudalab
