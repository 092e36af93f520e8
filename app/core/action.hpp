// A lesson's action table: the long pieces of work it offers as buttons (a measurement, a sweep, a
// reading of the counters), each declared once. Everything that names an action reads the table:
// the buttons (ui/widgets.hpp actionButton), `cudalab --headless --action ID`, a lesson plan's
// "Run: ..." button, the soak's random actions, the benchmark that times the UI during a sweep,
// and the Lesson base class, which derives busy(), cancelAll(), actionIds(), actionLabel() and
// startAction() from it.
//
//   declareActions({
//       jobAction(kActionRun, N_("Run and time"), N_("Copies the input to the GPU, runs ..."),
//                 measureJob_, [this] { return ready() && startMeasure(); }),
//       ...});
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/async_job.hpp"

namespace cudalab {

struct LessonAction {
  std::string id;              // `--action ID`, a plan step's "action", stable across versions
  const char* label;           // the button's English label, marked N_() (shown translated)
  const char* help = nullptr;  // the button's tooltip, marked N_(); nullptr: none
  // Starts the work as the button does; false when it cannot start here and now (no GPU, a
  // parameter out of range, other work of the lesson running).
  std::function<bool()> start;
  // Whether the work it started has not finished (results not yet taken).
  std::function<bool()> pending;
  // Stops its work without waiting (the Cancel buttons, a lesson made afresh, a GPU fault).
  std::function<void()> cancel;
  // Optional: the label and the tooltip as they are now, where they follow the lesson's state
  // (without a GPU the memory lesson models the transpose ladder instead of measuring it). Their
  // texts are marked N_() as well.
  std::function<const char*()> labelNow = {};
  std::function<const char*()> helpNow = {};

  // Optional: while its work runs, how far it is (its progress bar). A counters reading, whose
  // panel shows its own progress, has none.
  std::function<std::optional<JobProgress>()> progress = {};

  const char* currentLabel() const { return labelNow ? labelNow() : label; }
  const char* currentHelp() const { return helpNow ? helpNow() : help; }
};

// An action whose work is one job (anything with pending() and cancel(): an AsyncJob, a counters
// panel): its `pending` and `cancel` are the job's. `labelNow` and `helpNow` as above.
// An AsyncJob also gives the action's progress while it runs.
template <class Job>
LessonAction jobAction(std::string id, const char* label, const char* help, Job& job,
                       std::function<bool()> start, std::function<const char*()> labelNow = {},
                       std::function<const char*()> helpNow = {}) {
  LessonAction a{std::move(id),
                 label,
                 help,
                 std::move(start),
                 [&job] { return job.pending(); },
                 [&job] { job.cancel(); },
                 std::move(labelNow),
                 std::move(helpNow)};
  if constexpr (requires {
                  job.running();
                  job.progress();
                })
    a.progress = [&job]() -> std::optional<JobProgress> {
      if (!job.running()) return std::nullopt;
      return job.progress();
    };
  return a;
}

}  // namespace cudalab
