// The launch-config lesson's measurement panels, drawn from the data they are given: where the
// time goes (every run's copies and kernel as stacked bars, the last run's times and its check
// against the CPU) and a sweep (kernel time against threads per block, or against blocks per grid
// with the course's 2-4 blocks per SM marked). The lesson owns the parameters and the jobs
// (launch_config_lesson.cpp) and calls one function per panel from drawMain.
#pragma once

#include <vector>

#include "common/async_job.hpp"
#include "common/measurement.hpp"
#include "launch_config/launch_config.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// One press of "Run and time".
struct MeasuredLaunch {
  int run = 0;  // the run's number, for its name in the timing plot ("#3 1D, guarded, 128 thr")
  launch_config::LaunchConfig config;
  Measurement m;
};

// One point of a sweep: threads per block or blocks (`x`), and its measurement or why there is
// none.
struct LaunchSweepPoint {
  double x = 0;
  launch_config::LaunchConfig config;
  Result<Measurement> m = Status::error("not measured");
};

// `history`: the latest runs, oldest first; `error`: why the last run failed (shown instead);
// `n`: the elements the next run doubles (the prompt to predict before the first run).
void drawLaunchTimingPanel(LessonContext& ctx, bool gpu, const Status& error,
                           const std::vector<MeasuredLaunch>& history, long long n);
// Nothing is drawn before the first sweep. `blocks`: a sweep of blocks per grid (else threads
// per block); `progress`: the sweep's while it runs (nullptr: finished, `error` says why it
// stopped early, if it did).
void drawLaunchSweepPanel(LessonContext& ctx, const std::vector<LaunchSweepPoint>& sweep,
                          bool blocks, int smCount, const JobProgress* progress,
                          const Status& error);

}  // namespace cudalab
