#include "ui/widgets.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cfloat>
#include <cstring>
#include <cmath>
#include <string>

#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"

namespace cudalab {

void PanelRegistry::beginFrame() {
  rects_.clear();
  open.clear();
}

void PanelRegistry::record(const std::string& id, ImVec2 min, ImVec2 max) {
  rects_[id] = PixelRect{static_cast<int>(std::floor(min.x)), static_cast<int>(std::floor(min.y)),
                         static_cast<int>(std::ceil(max.x - min.x)),
                         static_cast<int>(std::ceil(max.y - min.y))};
}

std::optional<PixelRect> PanelRegistry::rect(const std::string& id) const {
  auto it = rects_.find(id);
  if (it == rects_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> PanelRegistry::takeRequest() {
  auto r = request_;
  request_.reset();
  return r;
}

std::vector<std::string> PanelRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto& [id, r] : rects_)
    out.push_back(id);
  return out;
}

bool beginPanel(LessonContext& ctx, const char* id, const char* title, int flags) {
  const float pad = 8.0f * ctx.scale;
  ImGui::PushID(id);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  ctx.panels.open.push_back({id, start});
  const float width = ImGui::GetContentRegionAvail().x;
  const float top = start.y + pad;
  // The button first, at the top right, so that a long title (or a large UI scale) wraps before
  // it instead of running underneath it.
  float titleRight = start.x + width - pad;
  if (!ctx.exporting) {
    const char* label = tr("Save PNG");
    const float bw = ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SetCursorScreenPos(ImVec2(start.x + width - pad - bw, top));
    if (ImGui::SmallButton(label)) ctx.panels.requestExport(id);
    helpTooltip(N_("Save just this panel as a PNG, at the export scale chosen in the File menu."));
    titleRight -= bw + ImGui::GetStyle().ItemSpacing.x;
  }
  ImGui::SetCursorScreenPos(ImVec2(start.x + pad, top));
  ImGui::BeginGroup();
  // PushTextWrapPos takes window-local coordinates.
  const float toLocal = ImGui::GetScrollX() - ImGui::GetWindowPos().x;
  bool open = true;
  if (flags & kPanelCollapsible) {
    bool* state =
        ImGui::GetStateStorage()->GetBoolRef(ImGui::GetID("##open"), (flags & kPanelClosed) == 0);
    if (ImGui::ArrowButton("##fold", *state ? ImGuiDir_Down : ImGuiDir_Right)) *state = !*state;
    helpTooltip(*state ? N_("Fold this panel away.") : N_("Unfold this panel."));
    open = *state;
    ImGui::SameLine();
  }
  ImGui::PushTextWrapPos(titleRight + toLocal);
  ImGui::PushFont(ctx.theme.fonts().bold);
  textWrapped("%s", tr(title));
  ImGui::PopFont();
  ImGui::PopTextWrapPos();
  ImGui::PushTextWrapPos(start.x + width - pad + toLocal);
  // Reserve the full width so the frame spans the view.
  ImGui::Dummy(ImVec2(width - 2 * pad, 0.0f));
  return open;
}

void endPanel(LessonContext& ctx) {
  const float pad = 8.0f * ctx.scale;
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  const ImVec2 start = ctx.panels.open.back().start;
  const std::string id = ctx.panels.open.back().id;
  ctx.panels.open.pop_back();
  const ImVec2 groupMax = ImGui::GetItemRectMax();
  const ImVec2 max(std::max(groupMax.x + pad, start.x + 2 * pad), groupMax.y + pad);
  ImGui::GetWindowDrawList()->AddRect(start, max, ImGui::GetColorU32(ImGuiCol_Border),
                                      4.0f * ctx.scale, 0, std::max(1.0f, ctx.scale));
  ctx.panels.record(id, start, ImVec2(max.x + 1, max.y + 1));
  ImGui::SetCursorScreenPos(ImVec2(start.x, max.y));
  ImGui::Dummy(ImVec2(0, ImGui::GetStyle().ItemSpacing.y));
  ImGui::PopID();
}

namespace {

// Decodes the UTF-8 character at `s` (a bad byte reads as itself), advancing `s`.
unsigned nextChar(const char*& s, const char* end) {
  unsigned c = 0;
  const int n = ImTextCharFromUtf8(&c, s, end);
  s += n > 0 ? n : 1;
  return c;
}

// Chinese and Japanese characters: a line may end between any two of them.
bool breaksAround(unsigned c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF00 && c <= 0xFFEF && c != 0xFF08 && c != 0xFF3B && c != 0xFF5B);
}

// Punctuation that never starts a line (it stays with what it closes).
bool closes(unsigned c) {
  switch (c) {
    case 0x3001:
    case 0x3002:
    case 0xFF0C:
    case 0xFF0E:
    case 0xFF1A:
    case 0xFF1B:
    case 0xFF1F:
    case 0xFF01:
    case 0xFF09:
    case 0x300D:
    case 0x300F:
    case 0x3011:
    case ')':
    case ',':
    case '.':
    case ':':
    case ';':
    case '!':
    case '?':
      return true;
    default:
      return false;
  }
}

// The ends of the lines `text` takes in `width` pixels: breaks after a space (which the line
// drops), between two CJK characters, at '\n'; a word wider than the line is cut where it
// overflows. `out` is the caller's, kept between frames so that no line costs an allocation.
void lineEnds(const char* text, const char* end, float width, std::vector<const char*>& out) {
  ImFont* font = ImGui::GetFont();
  const float scale = ImGui::GetFontSize() / font->FontSize;
  out.clear();
  const char* s = text;
  while (s < end) {
    float x = 0;
    const char* lastBreak = nullptr;  // the best end of this line found so far
    const char* p = s;
    unsigned prev = 0;
    while (p < end) {
      const char* at = p;
      const unsigned c = nextChar(p, end);
      if (c == '\n') {
        lastBreak = at;
        break;
      }
      if (at > s && ((c == ' ') || ((breaksAround(c) || breaksAround(prev)) && !closes(c))))
        lastBreak = at;  // the line may end before this character
      x += font->GetCharAdvance(static_cast<ImWchar>(c)) * scale;
      if (x > width && c != ' ' && at > s) {
        if (!lastBreak) lastBreak = at;  // one word wider than the line: cut it here
        break;
      }
      prev = c;
      if (p >= end) lastBreak = end;
    }
    if (!lastBreak) lastBreak = end;
    out.push_back(lastBreak);
    // The next line starts after the break and the spaces or newline there.
    s = lastBreak;
    if (s < end && *s == '\n')
      ++s;
    else
      while (s < end && *s == ' ')
        ++s;
  }
}

}  // namespace

void wrappedText(const char* text, const char* end) {
  if (!text) return;
  if (!end) end = text + std::strlen(text);
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  if (w->SkipItems) return;
  // As ImGui::TextWrapped: at the pushed wrap position, else at the content region's edge.
  const float wrapX = w->DC.TextWrapPos < 0.0f ? 0.0f : w->DC.TextWrapPos;
  const float width =
      std::max(ImGui::CalcWrapWidthForPos(w->DC.CursorPos, wrapX), ImGui::GetFontSize());
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(-1.0f);  // the lines are made here: ImGui must not wrap them again
  // Lines of one paragraph as close as ImGui's own wrapped lines; the group keeps the spacing
  // after it.
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0.0f));
  static std::vector<const char*> ends;
  lineEnds(text, end, width, ends);
  const char* s = text;
  for (const char* e : ends) {
    ImGui::TextUnformatted(s, e);
    s = e;
    if (s < end && *s == '\n')
      ++s;
    else
      while (s < end && *s == ' ')
        ++s;
  }
  if (text == end) ImGui::TextUnformatted("");
  ImGui::PopStyleVar();
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
}

void textWrapped(const char* english_fmt, ...) {
  va_list args;
  va_start(args, english_fmt);
  // The translation has the same conversions (msgfmt --check); the compiler checked the English.
  const char* fmt = tr(english_fmt);
  // "%s" alone: the text itself, without a copy.
  if (fmt[0] == '%' && fmt[1] == 's' && fmt[2] == '\0') {
    const char* t = va_arg(args, const char*);
    va_end(args);
    return wrappedText(t ? t : "");
  }
  static std::vector<char> buf(1024);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(buf.data(), buf.size(), fmt, args);
  va_end(args);
  if (n >= static_cast<int>(buf.size())) {
    buf.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(buf.data(), buf.size(), fmt, again);
  }
  va_end(again);
  if (n < 0) return;
  wrappedText(buf.data(), buf.data() + std::min<size_t>(size_t(n), buf.size() - 1));
}

std::vector<int> wrapPoints(const char* text, float width) {
  std::vector<const char*> ends;
  lineEnds(text, text + std::strlen(text), width, ends);
  std::vector<int> out;
  for (const char* e : ends)
    out.push_back(static_cast<int>(e - text));
  return out;
}

namespace {

// The label to show for an English `label` ("Run" or "Run##ladder"): its translation, with the
// English label as the id ("Lancer###Run##ladder"), so that a control keeps its id in every
// language. The text lives until the next call.
const char* translatedLabel(const char* label) {
  const char* t = tr(label);
  if (t == label) return label;
  static std::string out;
  const char* idStart = std::strstr(t, "##");
  out.assign(t, idStart ? idStart : t + std::strlen(t));
  out.append("###").append(label);
  return out.c_str();
}

// `label` with line breaks where it would pass `width` (the id part after "##" kept whole), for a
// button: "shown\nlines###label".
const char* fittedLabel(const char* label, float width) {
  static std::string out;
  const char* idStart = std::strstr(label, "##");
  const char* shownEnd = idStart ? idStart : label + std::strlen(label);
  const float full = ImGui::CalcTextSize(label, shownEnd).x;
  if (full <= width || shownEnd == label) return label;
  const std::string shown(label, shownEnd);
  out.clear();
  int from = 0;
  for (int end : wrapPoints(shown.c_str(), std::max(width, ImGui::GetFontSize()))) {
    if (!out.empty()) out += '\n';
    out.append(shown, size_t(from), size_t(end - from));
    from = end;
    while (from < int(shown.size()) && (shown[size_t(from)] == ' ' || shown[size_t(from)] == '\n'))
      ++from;
  }
  out.append("###").append(idStart && idStart[2] == '#' ? idStart + 3 : label);
  return out.c_str();
}

}  // namespace

bool button(const char* label) {
  label = translatedLabel(label);
  const float pad = 2 * ImGui::GetStyle().FramePadding.x;
  return ImGui::Button(fittedLabel(label, ImGui::GetContentRegionAvail().x - pad));
}

void workProgress(Lesson& lesson, const std::function<std::string(const JobProgress&)>& text) {
  const std::optional<JobProgress> p = lesson.runningProgress();
  if (!p) return;
  // The worker's words are marked N_() where the work reports them, and translated here.
  ImGui::ProgressBar(p->fraction, ImVec2(-1, 0), (text ? text(*p) : tr(p->what)).c_str());
  if (button("Cancel")) lesson.cancelAll();
}

void exportButtons(LessonContext& ctx, const Lesson& lesson, ExportRow row) {
  if (row.spaced) ImGui::Spacing();
  ImGui::BeginDisabled(!row.enabled);
  if (button("Export CSV")) exportLessonResults(ctx, lesson.results(), false);
  ImGui::SameLine();
  if (button("Export JSON")) exportLessonResults(ctx, lesson.results(), true);
  ImGui::EndDisabled();
}

void runButtons(LessonContext& ctx, Lesson& lesson, std::initializer_list<RunButton> buttons,
                const char* noGpu, bool progress) {
  const bool gpu = ctx.runtime.hasDevice();
  if (!gpu && noGpu) mutedText(ctx.theme, noGpu);
  for (const RunButton& b : buttons) {
    ImGui::BeginDisabled(lesson.working() || (b.needsGpu && !gpu));
    actionButton(lesson.action(b.action));
    ImGui::EndDisabled();
  }
  if (progress) workProgress(lesson);
}

bool waitingForMeasurement(bool have, bool running, bool gpu, const char* press) {
  if (have) return false;
  textWrapped("%s", running ? tr("Measuring...")
                    : gpu   ? tr(press)
                            : tr("No GPU: nothing is measured."));
  return true;
}

void endSweepPanel(LessonContext& ctx, std::string lead, bool allOk, const char* reference,
                   const char* why, const Status& stopped) {
  // Whole sentences, each translated on its own, so a translation can word each freely.
  std::string note = std::move(lead);
  const std::string verdict =
      allOk ? trf("Every point checked against %s: all correct.", tr(reference))
            : trf("Every point checked against %s: SOME WRONG.", tr(reference));
  for (const std::string& sentence : {verdict, std::string(tr(why))}) {
    if (!note.empty()) note += ' ';
    note += sentence;
  }
  mutedText(ctx.theme, note.c_str());
  errorText(ctx.theme, stopped);
  endPanel(ctx);
}

void swatchRow(int paletteIndex) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  colourSwatch(paletteIndex);
}

void stepNameCell(int paletteIndex, const char* label, const char* help) {
  swatchRow(paletteIndex);
  ImGui::TextUnformatted(tr(label));
  helpTooltip(help);
  ImGui::TableNextColumn();
}

bool actionButton(const LessonAction& action) {
  const bool pressed = button(action.currentLabel());
  helpTooltip(action.currentHelp());
  if (pressed) action.start();
  return pressed;
}

bool checkbox(const char* label, bool* v) {
  label = translatedLabel(label);
  const char* shownEnd = ImGui::FindRenderedTextEnd(label);
  const float boxW = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
  if (boxW + ImGui::CalcTextSize(label, shownEnd).x <= ImGui::GetContentRegionAvail().x)
    return ImGui::Checkbox(label, v);
  // Too long: the box alone, its label wrapped beside it and clickable.
  ImGui::PushID(label);
  bool changed = ImGui::Checkbox("##box", v);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  const float y = ImGui::GetCursorPosY();
  ImGui::SetCursorPosY(y + ImGui::GetStyle().FramePadding.y);
  wrappedText(label, shownEnd);
  if (ImGui::IsItemClicked()) {
    *v = !*v;
    changed = true;
  }
  ImGui::PopID();
  return changed;
}

bool smallButton(const char* label) {
  label = translatedLabel(label);
  const float pad = 2 * ImGui::GetStyle().FramePadding.x;
  return ImGui::SmallButton(fittedLabel(label, ImGui::GetContentRegionAvail().x - pad));
}

bool radioButton(const char* label, bool active) {
  label = translatedLabel(label);
  const char* shownEnd = ImGui::FindRenderedTextEnd(label);
  const float dotW = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
  if (dotW + ImGui::CalcTextSize(label, shownEnd).x <= ImGui::GetContentRegionAvail().x)
    return ImGui::RadioButton(label, active);
  // Too long: the button alone, its label wrapped beside it and clickable.
  ImGui::PushID(label);
  bool pressed = ImGui::RadioButton("##dot", active);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + ImGui::GetStyle().FramePadding.y);
  wrappedText(label, shownEnd);
  if (ImGui::IsItemClicked()) pressed = true;
  ImGui::PopID();
  return pressed;
}

bool beginCombo(const char* label, const char* preview, float listWidth) {
  label = translatedLabel(label);
  const float arrow = ImGui::GetFrameHeight();
  const float itemW = ImGui::CalcItemWidth();
  // A preview may carry an id after "##" (a list's entry reused as the preview): not shown.
  const char* previewEnd = preview ? ImGui::FindRenderedTextEnd(preview) : nullptr;
  const float previewW = preview ? ImGui::CalcTextSize(preview, previewEnd).x : 0.0f;
  listWidth = std::max(listWidth, previewW + 4 * ImGui::GetStyle().WindowPadding.x);
  ImGui::SetNextWindowSizeConstraints(
      ImVec2(std::min(listWidth, ImGui::GetIO().DisplaySize.x * 0.9f), 0),
      ImVec2(FLT_MAX, FLT_MAX));
  if (!preview || previewW + arrow + 2 * ImGui::GetStyle().FramePadding.x <= itemW)
    return ImGui::BeginCombo(label, preview);
  // Too long for the combo: the arrow alone, then (once the list is closed, as the list is the
  // current window while open) the preview wrapped beside it.
  const bool open = ImGui::BeginCombo(label, nullptr, ImGuiComboFlags_NoPreview);
  if (!open) {
    ImGui::SameLine();
    wrappedText(preview, previewEnd);
  }
  return open;
}

void helpTooltip(const char* text) {
  if (text && *text && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetFontSize() * 30.0f);
    wrappedText(tr(text));
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void helpMarker(const char* text) {
  ImGui::TextDisabled("(?)");
  helpTooltip(text);
}

void sameLineIfFits(float itemWidth, const char* label) {
  float width = itemWidth;
  if (label) {
    const float text = ImGui::CalcTextSize(label, nullptr, /*hide_text_after_double_hash=*/true).x;
    if (text > 0) width += ImGui::GetStyle().ItemInnerSpacing.x + text;
  }
  ImGui::SameLine();
  if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

void colourSwatch(int paletteIndex) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.2f),
                                            ImVec2(p.x + h * 0.6f, p.y + h * 0.8f),
                                            paletteColour(paletteIndex));
  ImGui::Dummy(ImVec2(h * 0.8f, h));
  ImGui::SameLine(0, 0);
}

void mutedText(const Theme& theme, const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, theme.mutedColour());
  wrappedText(tr(text));
  ImGui::PopStyleColor();
}

void errorText(const Theme& theme, const Status& s) {
  if (s.ok()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, theme.errorColour());
  wrappedText(trStatus(s).c_str());
  ImGui::PopStyleColor();
}

void staleNote(const Theme& theme, bool stale, const char* action) {
  if (!stale) return;
  ImGui::PushStyleColor(ImGuiCol_Text, theme.warningColour());
  wrappedText(trf("These results are for the parameters before your change: press \"%s\" for "
                  "the new ones.",
                  tr(action))
                  .c_str());
  ImGui::PopStyleColor();
}

void legendItem(ImU32 colour, const char* text, bool first) {
  const float h = ImGui::GetTextLineHeight();
  const float inner = ImGui::GetStyle().ItemInnerSpacing.x;
  if (!first) {
    ImGui::SameLine(0, 1.2f * ImGui::GetFontSize());
    if (ImGui::GetContentRegionAvail().x < h + inner + ImGui::CalcTextSize(text).x)
      ImGui::NewLine();
  }
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 0.15f * h),
                                            ImVec2(p.x + 0.7f * h, p.y + 0.85f * h), colour);
  ImGui::Dummy(ImVec2(0.7f * h, h));
  ImGui::SameLine(0, inner);
  ImGui::TextUnformatted(text);
}

float smallButtonWidth(const char* label) {
  return ImGui::CalcTextSize(tr(label), nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
}

const char* halfWidthLabel(const char* label) {
  // "shown###label" and "###label" both take their id from "###label": a control keeps its id
  // (an open combo, a drag in progress) when a change of width moves its label. The string keeps
  // its capacity between calls, so this allocates once.
  static std::string text;
  const float avail = ImGui::GetContentRegionAvail().x;
  // The label shown is translated (core/i18n.hpp); the id stays the English one.
  const char* shownEnd = ImGui::FindRenderedTextEnd(label);
  static std::string english;
  english.assign(label, shownEnd);
  const char* shown = tr(english.c_str());
  const float labelW = ImGui::CalcTextSize(shown).x;
  const bool beside = labelW + ImGui::GetStyle().ItemInnerSpacing.x <= 0.5f * avail;
  if (!beside) ImGui::TextUnformatted(shown);
  ImGui::SetNextItemWidth(beside ? 0.5f * avail : avail);
  text.assign(beside ? shown : "");
  text.append("###").append(label);
  return text.c_str();
}

bool paramSlider(const ParamSpec& p, double& value) {
  ImGui::PushID(p.id);
  double lo = p.min, hi = p.max;
  const char* label = halfWidthLabel(p.label);
  const std::string fmt = std::string(p.integer ? "%.0f" : "%.3g") +
                          (p.unit && *p.unit ? std::string(" ") + tr(p.unit) : std::string());
  const bool changed = ImGui::SliderScalar(
      label, ImGuiDataType_Double, &value, &lo, &hi, fmt.c_str(),
      // Typed values (ctrl+click) stay inside the spec's range too.
      ImGuiSliderFlags_AlwaysClamp | (p.logScale ? ImGuiSliderFlags_Logarithmic : 0));
  if (changed && p.integer) value = std::round(value);
  helpTooltip(p.help);
  ImGui::PopID();
  return changed;
}

void productSizeControls(const ParamSpec& specM, const ParamSpec& specN, const ParamSpec& specK,
                         int& M, int& N, int& K, std::initializer_list<ProductSize> presets) {
  ImGui::TextUnformatted("C (M x N) = A (M x K) B (K x N)");
  paramSlider(specM, M);
  paramSlider(specN, N);
  paramSlider(specK, K);
  bool first = true;
  for (const ProductSize& p : presets) {
    if (!first) sameLineIfFits(smallButtonWidth(p.label));
    first = false;
    if (smallButton(p.label)) M = p.m, N = p.n, K = p.k;
  }
}

void ladderNotMeasured(bool running, bool gpu, const char* noGpu) {
  textWrapped("%s", running ? tr("Measuring...")
                    : gpu   ? tr("Not measured yet: press \"Measure the ladder\".")
                            : tr(noGpu));
}

void ladderStatus(const Theme& theme, bool measured, bool stale, bool running, bool gpu,
                  const char* noGpu) {
  if (measured)
    staleNote(theme, stale, N_("Measure the ladder"));
  else
    ladderNotMeasured(running, gpu, noGpu);
}

void correctnessCell(const Theme& theme, const Correctness& c, const std::string& tooltip) {
  ImGui::PushStyleColor(ImGuiCol_Text, c.ok() ? ImGui::ColorConvertU32ToFloat4(paletteColour(2))
                                              : theme.errorColour());
  ImGui::TextUnformatted(
      c.ok() ? tr("correct")
             : trf("%s wrong", thousands(static_cast<long long>(c.wrong)).c_str()).c_str());
  ImGui::PopStyleColor();
  helpTooltip(tooltip.c_str());
}

void ladderBarsPlot(const char* plotId, const char* title, const std::vector<const char*>& names,
                    const std::vector<double>& values, const char* referenceLabel,
                    double reference) {
  if (values.empty() || !plot::BeginPlot(plotId, title, ImVec2(-1, 0))) return;
  std::vector<double> v;
  for (double x : values)
    v.push_back(std::max(x, 1e-3));  // a log axis has no 0
  const double lowest = *std::min_element(v.begin(), v.end());
  plot::SetupAxes(
      {"step"}, {"GB/s", plot::Scale::Log10, std::pow(10.0, std::floor(std::log10(lowest))), NAN});
  plot::SetupCategories(names.data(), int(names.size()));
  plot::SetupLegend(plot::Legend::Outside);
  plot::SetNextColour(0);
  plot::PlotBars("measured", v.data(), int(v.size()));
  if (reference > 0) {
    plot::SetNextColour(5);
    plot::PlotHLine(referenceLabel, reference);
  }
  plot::EndPlot();
}

}  // namespace cudalab
