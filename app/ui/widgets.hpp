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

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/params.hpp"
#include "lessons/lesson.hpp"
#include "platform/image.hpp"

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

// A ladder's rate per step as bars on a log axis (GB/s of each step), with a reference line
// (a bandwidth ceiling; not drawn when `reference` <= 0). The axis starts a whole decade below the
// smallest bar, so two close bars never look ten times apart.
void ladderBarsPlot(const char* plotId, const char* title, const std::vector<const char*>& names,
                    const std::vector<double>& values, const char* referenceLabel,
                    double reference);

// Lessons queue the measurements they start on first show: each frame, the next one starts once
// nothing runs (startAction refuses while a job is busy).
void startNextQueued(Lesson& lesson, std::vector<std::string>& queue, bool working);

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
