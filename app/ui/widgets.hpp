// Small widgets every lesson uses: exportable panels, help tooltips, label/value rows.
//
// A panel is a titled, framed group whose picture can be saved on its own as a PNG:
//
//   if (beginPanel(ctx, "bandwidth", "Measured bandwidth")) { ...draw...; }
//   endPanel(ctx);            // always call, like ImGui::EndGroup (also when folded)
//
// The panel's rectangle is recorded every frame in a PanelRegistry; its "Save PNG" button asks the
// shell to render the whole window off-screen at the export scale and crop that rectangle.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/measurement.hpp"
#include "common/params.hpp"
#include "core/lesson.hpp"
#include "platform/image.hpp"
#include "ui/plot/plot.hpp"

namespace cudalab {

class PanelRegistry {
 public:
  void beginFrame();
  void record(const std::string& id, ImVec2 min, ImVec2 max);
  std::optional<PixelRect> rect(const std::string& id) const;
  void requestExport(const std::string& id) { request_ = id; }
  std::optional<std::string> takeRequest();
  std::vector<std::string> ids() const;

  // Open-panel stack (beginPanel/endPanel nest).
  struct Open {
    std::string id;
    ImVec2 start;
  };
  std::vector<Open> open;

 private:
  std::map<std::string, PixelRect> rects_;
  std::optional<std::string> request_;
};

enum PanelFlags : int {
  kPanelNone = 0,
  kPanelCollapsible = 1,  // the title folds the panel away (the learner clicks it)
  kPanelClosed = 2,       // with kPanelCollapsible: starts folded
};

// Returns whether the panel's contents should be drawn (false when folded).
bool beginPanel(LessonContext& ctx, const char* id, const char* title, int flags = kPanelNone);
void endPanel(LessonContext& ctx);

// Text wrapped at the panel's edge (or at the wrap position pushed), as ImGui::TextWrapped does,
// but broken only at spaces and between Chinese or Japanese characters: ImGui's own wrapping also
// breaks after '.' and ',', which cut numbers in two ("2670.", "00024"; "4,", "096"), and never
// breaks a run of Chinese without spaces. The lines are one item (a tooltip after it covers all).
// textWrapped translates its format (marked for the catalogue; "%s" alone passes text through).
void textWrapped(const char* english_fmt, ...) IM_FMTARGS(1);
void wrappedText(const char* text, const char* end = nullptr);
// Where wrappedText would end each line of `text` in `width` pixels of the current font (the
// offsets of the lines' ends): for tests.
std::vector<int> wrapPoints(const char* text, float width);

// Buttons whose label would not fit the width left (a translated label, a projector's scale in a
// narrow sidebar) break it over lines instead of running past the panel; the id stays the label.
// These controls take the English label, marked for the catalogue, and show its translation (the
// id stays the English label in every language): button("Run##ladder").
bool button(const char* label);
// While one of the lesson's actions runs (Lesson::runningProgress()): its progress bar, with the
// job's words translated (or `text` of its progress), and the Cancel button that stops all of the
// lesson's work (Lesson::cancelAll()).
void workProgress(Lesson& lesson, const std::function<std::string(const JobProgress&)>& text = {});
// The Export CSV and Export JSON buttons, side by side: the lesson's results() into the export
// folder (exportLessonResults), or why not in the status bar. Greyed out unless `enabled` (nothing
// to export yet); `spaced`: set apart from the controls above.
struct ExportRow {
  bool enabled = true;
  bool spaced = false;
};
void exportButtons(LessonContext& ctx, const Lesson& lesson, ExportRow row = {});
// For a panel of measurements before it has any: says why it is empty (measuring now; `press`, a
// sentence marked N_() that names the button to press; or no GPU) and returns true, so that the
// panel ends there:
//   if (waitingForMeasurement(bool(sweep_), sweepJob_.running(), gpu_, N_("Press \"...\".")))
//     return endPanel(ctx);
bool waitingForMeasurement(bool have, bool running, bool gpu, const char* press);
// A lesson's run buttons: its actions in this order, each disabled while an action's work runs
// (Lesson::working()) and, for one that needs a GPU, without one. Before them, without a GPU,
// `noGpu` (a muted sentence saying what runs instead and what waits for a GPU, marked N_() for
// the catalogues: xgettext cannot count arguments past the braces of `buttons`); after them,
// unless `progress` is false, the running work's progress and Cancel (workProgress).
struct RunButton {
  const char* action;
  bool needsGpu = false;
};
void runButtons(LessonContext& ctx, Lesson& lesson, std::initializer_list<RunButton> buttons,
                const char* noGpu = nullptr, bool progress = true);
// The button of an action of the lesson's table (core/action.hpp): its label as it is now, its
// tooltip, and when pressed its start(). True when pressed.
bool actionButton(const LessonAction& action);
// A check box whose label wraps beside it when it would run past the panel (clicking the label
// toggles it too).
bool checkbox(const char* label, bool* v);
bool smallButton(const char* label);
// A radio button (ImGui::RadioButton) whose label wraps beside it when it would run past the
// panel; clicking the label presses it too.
bool radioButton(const char* label, bool active);
// A combo whose preview would be cut: only its arrow, with the preview wrapped beside it (a
// sentence-long choice at a projector's scale); otherwise ImGui's combo. The list opens as wide as
// its longest entry needs (at least `listWidth`).
bool beginCombo(const char* label, const char* preview, float listWidth = 0);

// Shows `text` as a wrapped tooltip when the previous item is hovered.
void helpTooltip(const char* text);
// A muted "(?)" whose tooltip is `text`.
void helpMarker(const char* text);
// A small square of palette colour `paletteIndex`, on the line of the text that follows it: a
// series' colour beside its name in a table, readable in both themes.
void colourSwatch(int paletteIndex);
// A new row of a table of steps, its first cell begun with the step's colour swatch (the colour
// the step has in the plots).
void swatchRow(int paletteIndex);
// A new row of a ladder's table begun with the step's swatch, its name (`label`, translated) and
// its tooltip (`help`, translated); the next cell is current.
void stepNameCell(int paletteIndex, const char* label, const char* help);

// For a row of controls: the next one goes on this line when it still fits the panel (an item
// `itemWidth` wide with `label` beside it; the label's "##" part is not counted), and under it
// otherwise, so rows stack at a projector's scale instead of running past the panel's edge.
//   ImGui::SetNextItemWidth(90 * s); ... combo ...
//   sameLineIfFits(200 * s, "level"); ImGui::SetNextItemWidth(200 * s); ... slider ...
void sameLineIfFits(float itemWidth, const char* label = nullptr);

// One entry of a picture's legend: a swatch of `colour` and its name. Entries follow each other on
// a line and wrap before one that would run past the panel's edge.
//   for (...) legendItem(colour, name, /*first=*/i == 0);
void legendItem(ImU32 colour, const char* text, bool first);

// The width smallButton(label) takes (translated), for sameLineIfFits.
float smallButtonWidth(const char* label);

// For a control with its label on the right (the sidebar's combos and sliders): sets the next
// item's width to half the space and returns `label`, or, when the label is longer than the
// other half (a projector's scale), draws it on a line of its own above a control as wide as the
// space and returns a hidden label. The control's id is the same either way. The text returned
// lives until the next call.
//   if (ImGui::BeginCombo(halfWidthLabel("Threads per block"), ...)) ...
const char* halfWidthLabel(const char* label);
// Wrapped text in the muted colour.
void mutedText(const Theme& theme, const char* text);
// A lesson's error as a wrapped sentence in the error colour; nothing when `s` is ok.
void errorText(const Theme& theme, const Status& s);
// Results measured with other parameters than the controls show now (the learner moved one
// since): a sentence in the warning colour saying so, naming the button that measures again
// (`action`, its label as the action table has it), rather than results passed off as the new
// ones. Nothing when `stale` is false. Under the sentence that says what was measured.
void staleNote(const Theme& theme, bool stale, const char* action);

// A matrix product's sizes, C (M x N) = A (M x K) B (K x N): the heading, the three sliders and
// a row of preset buttons, each setting all three (the matmul and tensor-cores lessons).
struct ProductSize {
  const char* label;  // "4096^3": the button's text, as it is
  int m, n, k;
};
void productSizeControls(const ParamSpec& specM, const ParamSpec& specN, const ParamSpec& specK,
                         int& M, int& N, int& K, std::initializer_list<ProductSize> presets);

// A ladder panel's sentence before its first measurement: measuring now, the button to press
// ("Measure the ladder"), or, without a GPU, `noGpu` (marked N_()): what the panel shows instead.
void ladderNotMeasured(bool running, bool gpu, const char* noGpu);

// The line under a ladder panel's summary: with figures (`measured`), a warning when they are for
// parameters the learner has changed since (`stale`: press "Measure the ladder" again), or
// without, ladderNotMeasured's sentence.
void ladderStatus(const Theme& theme, bool measured, bool stale, bool running, bool gpu,
                  const char* noGpu);

// A ladder table's "checked" cell: "correct" in green or "N wrong" in the error colour, with
// `tooltip` (translated already) saying against what and with which tolerance.
void correctnessCell(const Theme& theme, const Correctness& c, const std::string& tooltip);

// A ladder's rate per step as bars on a log axis (GB/s of each step), with a reference line
// (a bandwidth ceiling; not drawn when `reference` <= 0). The axis starts a whole decade below the
// smallest bar, so two close bars never look ten times apart.
void ladderBarsPlot(const char* plotId, const char* title, const std::vector<const char*>& names,
                    const std::vector<double>& values, const char* referenceLabel,
                    double reference);
// The same from a ladder's results: `name(r)` and `value(r)` of each.
template <class Results, class Name, class Value>
void ladderBarsPlot(const char* plotId, const char* title, const Results& results, Name name,
                    Value value, const char* referenceLabel, double reference) {
  std::vector<const char*> names;
  std::vector<double> values;
  for (const auto& r : results) {
    names.push_back(name(r));
    values.push_back(value(r));
  }
  ladderBarsPlot(plotId, title, names, values, referenceLabel, reference);
}

// A ladder's sweep as a plot of its own: one line per step, in the step's colour and named by its
// key, on axes `x` and `y`, the legend outside. `points` are the sweep's, each with its `.step`;
// `info(step)` is the step table's row; `fx(p)` and `fy(p)` place a point.
template <class Steps, class Points, class Info, class X, class Y>
void stepLinesPlot(const char* plotId, const char* title, const plot::Axis& x, const plot::Axis& y,
                   const Steps& steps, const Points& points, Info info, X fx, Y fy) {
  if (!plot::BeginPlot(plotId, title, ImVec2(-1, 0))) return;
  plot::SetupAxes(x, y);
  plot::SetupLegend(plot::Legend::Outside);
  for (const auto& step : steps) {
    std::vector<double> xs, ys;
    for (const auto& p : points)
      if (p.step == step) {
        xs.push_back(fx(p));
        ys.push_back(fy(p));
      }
    if (xs.empty()) continue;
    plot::SetNextColour(info(step).colour);
    plot::PlotLine(info(step).key, xs.data(), ys.data(), int(xs.size()));
  }
  plot::EndPlot();
}

// Whether every point of a sweep or every step of a ladder was checked correct (`.ok`).
template <class Points>
bool allCorrect(const Points& points) {
  return std::all_of(std::begin(points), std::end(points), [](const auto& p) { return p.ok; });
}

// Ends a sweep's panel: a note muted under the plot, then where the sweep stopped early and why, if
// it did. The note is `lead` (translated already: what was swept; may be empty), whether every
// point checked out against `reference` (what the points were checked against, marked N_()) and
// `why` (what the curves show, marked N_()). `sweep` has `points` (each with `ok`) and `stopped`.
void endSweepPanel(LessonContext& ctx, std::string lead, bool allOk, const char* reference,
                   const char* why, const Status& stopped);
template <class Sweep>
void endSweepPanel(LessonContext& ctx, const Sweep& sweep, std::string lead, const char* reference,
                   const char* why) {
  endSweepPanel(ctx, std::move(lead), allCorrect(sweep.points), reference, why, sweep.stopped);
}

// A slider for one ParamSpec (its label, range, unit, log scale and help as tooltip), half the
// panel wide, rounding integer parameters: the control every lesson's parameter table asks for.
bool paramSlider(const ParamSpec& p, double& value);
template <class T>
bool paramSlider(const ParamSpec& p, T& value) {
  double v = static_cast<double>(value);
  const bool changed = paramSlider(p, v);
  if (changed) value = static_cast<T>(std::llround(v));
  return changed;
}

}  // namespace cudalab
