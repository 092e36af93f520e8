// The playground's "Check at every size" panel: the sizes a kernel is graded at, and after a
// grading (kernels/playground/grading.hpp) the verdict at each, the failed ones with what was
// wrong. The lesson owns the job's work (it compiles and runs in its worker); this panel holds the
// job, the last grade, and draws them with the action's button.
//
//   GradingPanel grading;
//   grading.start(ex, editor.text(), params, arch, worker);                // the action
//   grading.draw(ctx, ex, params, action("check-sizes"));                  // in drawMain
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/async_job.hpp"
#include "core/lesson.hpp"
#include "playground/grading.hpp"
#include "playground/worker.hpp"

namespace cudalab::pg {

class GradingPanel {
 public:
  using Job = AsyncJob<playground::Grade>;
  // Compiles `text` as exercise e's program for `arch` (0: asks the worker for its GPU's) and
  // grades it at every size in `worker` (false when a grading is running). The worker must
  // outlive the job, and run nothing else meanwhile.
  bool start(const playground::Exercise& e, std::string text, playground::RunParams p, int arch,
             playground::WorkerClient& worker);
  // The sizes it would run for `e` and `p`, the last grade of `e`, and the action's button.
  void draw(LessonContext& ctx, const playground::Exercise& e, const playground::RunParams& p,
            const LessonAction& action, bool gpu, bool sanitizing, const std::string& text);
  bool running() const { return job_.running(); }
  bool pending() const { return job_.pending(); }
  void cancel() { job_.cancel(); }

 private:
  Job job_;
  std::optional<playground::Grade> last_;
  std::string lastExercise_, running_;
  std::string gradedText_, runningText_;  // the text graded last, and the one being graded
  Status error_;
  // The sizes a grading would run for the choices they were made for (made again only when the
  // exercise, N or the launch change, not every frame).
  std::vector<playground::GradeCase> cases_;
  const playground::Exercise* casesExercise_ = nullptr;
  playground::RunParams casesFor_;
};

}  // namespace cudalab::pg
