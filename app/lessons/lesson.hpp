// The lesson interface. A lesson is one panel file in app/lessons/ plus its computation in
// kernels/<lesson>/; adding one means writing those and adding one line to registry.cpp.
//
// The shell calls, every frame, drawParameters() inside the left-hand parameter panel and
// drawMain() inside the main view. A lesson never blocks the UI thread on the GPU: long work runs
// on a worker (see kernels/common/async_job.hpp) and busy() says so, which lets headless
// screenshots wait for results.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ui/i18n.hpp"
#include "common/params.hpp"
#include "common/runtime_info.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"

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
  void info(const std::string& message) const { report(Status{}, message); }
};

// One parameter as the lesson's panel edits it, read and written by its ParamSpec's id. Saved
// parameters, the soak test and the restart after a GPU fault go through these, so a value is
// set exactly as the slider sets it, followed by what the panel does after a change.
//
// A choice (a combo box, radio buttons, a check box) is a binding too: its value is the index of
// the chosen option, and `choices` names the options, so presets and plans write "float64" rather
// than 1 (its spec's range is 0 to the number of options less one; the registry test checks it).
struct ParamBinding {
  const ParamSpec* spec;
  std::function<double()> get;
  std::function<void(double)> set;     // assign (rounded for integer specs), then react
  std::function<void(double)> assign;  // only assign: before the lesson is first shown
  std::vector<std::string> choices;    // a choice's option names; empty for a number
};

// A binding onto a field of any arithmetic type; `changed` is what the panel calls after its
// slider moved (nothing when the lesson reads the field afresh each time).
template <class T>
ParamBinding bindParam(const ParamSpec& spec, T& field, std::function<void()> changed = {}) {
  return {&spec,
          [&field] { return static_cast<double>(field); },
          [&spec, &field, changed](double v) {
            field = static_cast<T>(spec.integer ? std::round(v) : v);
            if (changed) changed();
          },
          [&spec, &field](double v) { field = static_cast<T>(spec.integer ? std::round(v) : v); },
          {}};
}

// A binding onto a choice among `options` (name, value), in the order the panel lists them. A
// field holding a value that is not among them reads as the first option.
template <class T>
ParamBinding bindChoice(const ParamSpec& spec, T& field,
                        std::vector<std::pair<std::string, T>> options,
                        std::function<void()> changed = {}) {
  auto opts = std::make_shared<const std::vector<std::pair<std::string, T>>>(std::move(options));
  ParamBinding b{
      &spec,
      [&field, opts] {
        for (size_t i = 0; i < opts->size(); ++i)
          if ((*opts)[i].second == field) return static_cast<double>(i);
        return 0.0;
      },
      [&field, opts, changed](double v) {
        field = (*opts)[static_cast<size_t>(std::lround(v))].second;
        if (changed) changed();
      },
      [&field, opts](double v) { field = (*opts)[static_cast<size_t>(std::lround(v))].second; },
      {}};
  for (const auto& o : *opts)
    b.choices.push_back(o.first);
  return b;
}

// A choice the lesson keeps in its own way (a variant that sets several fields): `index` reads
// which option is chosen, `choose` makes option i the chosen one.
inline ParamBinding bindChoiceBy(const ParamSpec& spec, std::vector<std::string> names,
                                 std::function<int()> index, std::function<void(int)> choose,
                                 std::function<void()> changed = {}) {
  return {&spec, [index] { return static_cast<double>(index()); },
          [choose, changed](double v) {
            choose(static_cast<int>(std::lround(v)));
            if (changed) changed();
          },
          [choose](double v) { choose(static_cast<int>(std::lround(v))); }, std::move(names)};
}

// A check box: the choice between "off" and "on" (presets may also write false and true).
inline ParamBinding bindToggle(const ParamSpec& spec, bool& field,
                               std::function<void()> changed = {}) {
  return bindChoice<bool>(spec, field, {{"off", false}, {"on", true}}, std::move(changed));
}

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
  virtual const LessonInfo& info() const = 0;
  virtual std::span<const ParamSpec> parameters() const { return {}; }
  virtual std::vector<VariantRow> variants() const { return {}; }
  // Called the first time the lesson is shown, e.g. to start a quick measurement.
  virtual void onShow(LessonContext&) {}
  virtual void drawParameters(LessonContext& ctx) = 0;
  virtual void drawMain(LessonContext& ctx) = 0;
  // True while work started by the lesson has not finished.
  virtual bool busy() const { return false; }
  // True while the main view changes by itself (a picture redrawn every frame, a scene playing):
  // the window then draws at the display's rate. Otherwise it draws when something happens
  // (input, work running or finishing) and a few times a second, so an idle app costs no CPU.
  virtual bool animating() const { return false; }
  // Long-running actions the lesson offers as buttons (a measurement, a sweep), by id, and starting
  // one as its button would. `cudalab --headless --action ID` uses this to draw figures with
  // results, and the benchmark command to time the UI while a sweep runs.
  virtual std::vector<std::string> actionIds() const { return {}; }
  // The English label of the button that starts action `id` (marked for the catalogue, as the
  // button's own label), for a lesson plan's "Run: ..." button; nullptr: the id is shown.
  virtual const char* actionLabel(const std::string& /*id*/) const { return nullptr; }
  virtual bool startAction(const std::string& /*id*/) { return false; }
  // The parameters its panel's sliders edit (see ParamBinding); bound to this object's fields.
  virtual std::vector<ParamBinding> bindings() { return {}; }
  // Stops what it has started (the Cancel buttons), without waiting.
  virtual void cancelAll() {}
  // What it has measured so far (LessonResults); a lesson that measures nothing keeps the default.
  virtual LessonResults results() const { return {}; }
  // Its main measurement as rows to compare a pinned run with (empty while there is none).
  virtual std::vector<ComparedRow> comparable() const { return {}; }
};

}  // namespace cudalab
