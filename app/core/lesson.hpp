// The lesson interface. A lesson is a folder app/lessons/<lesson>/ (the lesson, its panels, its
// benchmark) plus its computation in kernels/<lesson>/; ARCHITECTURE.md's "Adding a lesson" lists
// every file, and the one line in lessons/registry.cpp.
//
// The shell calls, every frame, drawParameters() inside the left-hand parameter panel and
// drawMain() inside the main view. A lesson never blocks the UI thread on the GPU: long work runs
// on a worker (see kernels/common/async_job.hpp) and busy() says so, which lets headless
// screenshots wait for results. Its buttons that start long work are its action table
// (core/action.hpp), declared once in its constructor; its parameters are its bindings
// (core/binding.hpp).
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/measurement_export.hpp"
#include "common/params.hpp"
#include "common/runtime_info.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"
#include "core/action.hpp"
#include "core/binding.hpp"

namespace cudalab {

class Theme;
class PanelRegistry;

struct LessonInfo {
  const char* id;       // command-line name: `cudalab --lesson device`
  const char* title;    // shown in the lesson list
  const char* course;   // what the learner has just read in the course material
  const char* summary;  // one or two sentences: what this lesson lets you see
};

// One row of a lesson's variants table, as the shell and tests see it. The lesson's own table in
// kernels/<lesson>/ has more columns; this is derived from it, never written twice.
struct VariantRow {
  std::string id;
  std::string label;
  std::string help;
};

// The rows of one of a lesson's kernels' tables as variants: each row's id column (`id`, `key`),
// label and help (other columns where the table names them otherwise), `prefix` before each id
// where two tables of one lesson share ids. Several tables: joinRows(variantRows(...), ...).
//   Lesson(kInfo, kParams, variantRows(steps(), &StepInfo::key))
template <class Rows, class Row, class Id>
std::vector<VariantRow> variantRows(const Rows& rows, Id Row::*id, const char* prefix = "",
                                    const char* Row::*label = &Row::label,
                                    const char* Row::*help = &Row::help) {
  std::vector<VariantRow> out;
  for (const Row& r : rows)
    out.push_back({std::string(prefix) + r.*id, r.*label, r.*help});
  return out;
}
template <class... More>
std::vector<VariantRow> joinRows(std::vector<VariantRow> first, More... more) {
  (first.insert(first.end(), more.begin(), more.end()), ...);
  return first;
}

// What a lesson may use while drawing.
struct LessonContext {
  const RuntimeInfo& runtime;
  const Theme& theme;
  PanelRegistry& panels;  // beginPanel()/endPanel() register exportable panels here
  float scale;            // UI scale times export pixel scale: multiply hand-made sizes by it
  bool exporting;  // drawing a figure for export: leave out buttons that make no sense on paper
  // Reports in the status bar: an error (shown in the error colour) or an information line.
  std::function<void(const Status&, const std::string&)> report;
  // Where to save a result file: the user's export folder, named after the lesson, `what` and the
  // time ("cudalab-launch-config-sweep-20261121-143005.csv").
  std::function<std::string(const std::string& what, const std::string& extension)> exportPath;
  // A folder where a lesson may keep the learner's work between runs (the playground's code), or
  // empty when this run must leave no trace (headless, scripted screenshots, tests).
  std::string userDataDir;

  void error(const Status& s) const { report(s, ""); }
  // The failed ones of jobs' Statuses just taken (KeptJob::collect, AsyncJob::takeInto): each kept
  // in `shown` (the lesson's error line) and said in the status bar.
  void errors(Status& shown, std::initializer_list<Status> statuses) const {
    for (const Status& s : statuses)
      if (!s) {
        shown = s;
        error(s);
      }
  }
  void info(const std::string& message) const { report(Status{}, message); }
};

// What a lesson has measured, as its Export buttons and a lesson plan's headless run save it:
// everything as JSON (null while nothing is measured), and its main table as CSV (empty while it
// has none, `noCsv` saying why), saved as "<csvName>.csv".
struct LessonResults {
  nlohmann::json json;
  std::string csv;
  std::string csvName = "results";
  std::string noCsv = "Nothing is measured yet.";
};

// One row a run is compared on when it is pinned beside later runs (ui/pins.hpp): a step of a
// ladder, a transfer mode, a copy; its numbers by name, the same names in every run of the lesson
// ("ms", "GB/s", "error"), and which way is better.
struct ComparedValue {
  std::string name;
  double value = 0;
  std::string unit;  // "ms", "GB/s", "" for counts and ratios
  bool higherIsBetter = false;
};
struct ComparedRow {
  std::string key;    // stable: "tiled16", "pinned", "block 256"
  std::string label;  // what the table shows
  std::vector<ComparedValue> values;
};

// A ladder lesson's results: `json`, and the measured ladder's rows as ladder.csv (while nothing is
// measured, `noCsv` says why there is no CSV).
LessonResults ladderResults(nlohmann::json json, const std::vector<MeasuredRow>& rows,
                            const char* noCsv);

// The measured ladder's rows for ladderResults, one per step of `report` (none while it is null):
// `row(report, step)` makes each.
template <class Report, class Row>
std::vector<MeasuredRow> stepRows(const Report* report, Row row) {
  std::vector<MeasuredRow> rows;
  if (report)
    for (const auto& s : report->steps)
      rows.push_back(row(*report, s));
  return rows;
}

// Writes the results to the export folder (JSON or CSV) and says where, or why not, in the status
// bar: what the lessons' Export buttons do.
void exportLessonResults(LessonContext& ctx, const LessonResults& r, bool json);

class Lesson;
// Sets one parameter by id as its slider would, after checkRange(); an unknown id or a value the
// slider could not reach is refused with a sentence and changes nothing.
Status setParameter(Lesson& lesson, const std::string& id, double value);
// The same checks, but only assigns: for a lesson not yet shown (the restart after a GPU fault
// restores every lesson's values before the first frame). Reacting there would start work in
// lessons nobody looks at, whose results are taken only when they are drawn.
Status restoreParameter(Lesson& lesson, const std::string& id, double value);

class Lesson {
 public:
  virtual ~Lesson() = default;
  const LessonInfo& info() const { return info_; }
  // Its parameter table (the registry test checks every range and default).
  std::span<const ParamSpec> parameters() const { return parameters_; }
  // Its variants, from its kernels' tables (variantRows()).
  const std::vector<VariantRow>& variants() const { return variants_; }
  // Called the first time the lesson is shown, e.g. to start a quick measurement.
  virtual void onShow(LessonContext&) {}
  virtual void drawParameters(LessonContext& ctx) = 0;
  virtual void drawMain(LessonContext& ctx) = 0;
  // True while the main view changes by itself (a picture redrawn every frame, a scene playing):
  // the window then draws at the display's rate. Otherwise it draws when something happens
  // (input, work running or finishing) and a few times a second, so an idle app costs no CPU.
  virtual bool animating() const { return false; }
  // The parameters its panel's sliders edit (see core/binding.hpp); bound to this object's fields.
  virtual std::vector<ParamBinding> bindings() { return {}; }
  // What it has measured so far (LessonResults); a lesson that measures nothing keeps the default.
  virtual LessonResults results() const { return {}; }
  // Its main measurement as rows to compare a pinned run with (empty while there is none).
  virtual std::vector<ComparedRow> comparable() const { return {}; }
  // Why its last work failed, if it did (error_): the shell shows it above drawMain().
  const Status& error() const { return error_; }

  // -------------------------------------------------------------------------------------------
  // Actions: the table the lesson declares once (core/action.hpp), and what derives from it.
  // -------------------------------------------------------------------------------------------

  const std::vector<LessonAction>& actions() const { return actions_; }
  // The action with this id (one of the table's; asking for another is a programming error: a
  // button that does nothing).
  const LessonAction& action(const char* id) const;
  // Whether one of its actions' work is running (a counters reading, with its own progress in its
  // panel, aside): the lesson's buttons wait, and its progress bar shows (ui/widgets.hpp
  // workProgress).
  bool working() const { return runningProgress().has_value(); }
  // The ids of its actions, in the table's order: `cudalab --headless --action ID`, the soak.
  std::vector<std::string> actionIds() const;
  // The English label of the button that starts action `id` as it is now (marked for the
  // catalogue), for a lesson plan's "Run: ..." button; nullptr for an id not in the table.
  const char* actionLabel(const std::string& id) const;
  // Starts action `id` as its button would; false for an unknown id or one that cannot start.
  bool startAction(const std::string& id);
  // True while work started by the lesson has not finished: an action's, a queued action's, or
  // other work (otherWorkPending()). Headless screenshots wait for it.
  bool busy() const;
  // Stops everything it has started (the Cancel buttons), without waiting: every action's work,
  // the queued actions, and cancelOtherWork().
  void cancelAll();
  // The progress of the first of its actions whose work runs, in the table's order (none: none
  // runs).
  std::optional<JobProgress> runningProgress() const;
  // Starts the next queued action (queueActions()) when no action's work runs: the shell calls it
  // every frame before drawMain().
  void startNextQueued();

 protected:
  // What every lesson is given once: its info, its parameter table and its variants.
  Lesson(const LessonInfo& info, std::span<const ParamSpec> parameters,
         std::vector<VariantRow> variants)
      : info_(info), parameters_(parameters), variants_(std::move(variants)) {}
  // The lesson's action table, declared once in its constructor.
  void declareActions(std::vector<LessonAction> table) { actions_ = std::move(table); }
  // Actions to start one after another (a lesson's first measurements when it is first shown), in
  // this order after those already queued; an action already queued is not queued twice. Each
  // starts from startNextQueued() once no action's work runs; the lesson is busy() until the last
  // has started, and cancelAll() drops the rest.
  void queueActions(const std::vector<std::string>& ids);
  // Work that is no action of the table (a device query, a picture being made): pending, and
  // stopped by cancelAll().
  virtual bool otherWorkPending() const { return false; }
  virtual void cancelOtherWork() {}
  // The lesson's last failure (a job's, a refused start's), shown above its main view until it
  // is replaced: `ctx.errors(error_, {job.collect(), ...})` each frame; a start clears it.
  Status error_;
  // A start function's first line: whether its work may start now; if it may, the last failure
  // goes (the new work will say its own).
  //   if (!mayStart(gpu_ && !ladder_.running())) return false;
  bool mayStart(bool allowed) {
    if (allowed) error_ = {};
    return allowed;
  }

 private:
  const LessonInfo& info_;
  std::span<const ParamSpec> parameters_;
  std::vector<VariantRow> variants_;
  std::vector<LessonAction> actions_;
  std::vector<std::string> queue_;
};

}  // namespace cudalab
