// The memory lesson's "measured by the GPU's counters" panel: the chosen pattern's kernel run once
// under the profiler (CUPTI, in the counters' helper process), its sectors and shared wavefronts
// per request beside the access model's, a mismatch flagged; or the one sentence saying why
// counters cannot be read here. Profiling runs on a worker thread and apart from the timed runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "counters/counters.hpp"
#include "core/lesson.hpp"
#include "memory/access_patterns.hpp"

namespace cudalab {

class MemoryCountersPanel {
 public:
  // Draws the panel; its button is the lesson's action `read`, which calls start().
  void draw(LessonContext& ctx, bool gpu, const LessonAction& read);
  bool pending() const { return job_.pending(); }
  // Stops a reading: its helper process is ended at once.
  void cancel() { job_.cancel(); }
  // Measures the kernel of pattern `global` (with `gp`) and of `shared` (with `sp`).
  bool start(memory::PatternId global, const memory::PatternParams& gp, memory::PatternId shared,
             const memory::PatternParams& sp);

  // One kind of access of one kernel: the model's per-request count and the counters'.
  struct Row {
    std::string kernel, kind;
    double model = 0, measured = 0;  // per request
    // Totals: sectors or wavefronts, and requests. The hardware also counts a request for a warp
    // whose every lane is switched off (outside the matrix: it moves nothing); the model does
    // not, so the totals of sectors and wavefronts are what must agree.
    double modelTotal = 0, measuredTotal = 0;
    long long modelRequests = 0, measuredRequests = 0;
    bool ok = false;
  };
  struct Reading {
    std::vector<Row> rows;
    std::string note;
  };

 private:
  AsyncJob<Reading> job_;
  std::optional<Reading> last_;
  Status error_;
};

// The counters `m` of the kernel `k` at `p` beside the model (the kinds of access it makes).
std::vector<MemoryCountersPanel::Row> againstModel(memory::KernelId k,
                                                   const memory::PatternParams& p,
                                                   const counters::LaunchCounters& m);

}  // namespace cudalab
