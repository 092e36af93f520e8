// cudalab's plots: recording what EndPlot draws, as primitives in plot-local pixels (lines,
// markers, bars, spans, heat maps, reference lines and their labels, the legend).
#include <imgui_internal.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>
#include <utility>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot_internal.hpp"
#include "ui/theme.hpp"

namespace cudalab::plot {

//-------------------------------------------------------------------------------------------------
// [SECTION] Recording: what EndPlot draws, as primitives in plot-local pixels
//-------------------------------------------------------------------------------------------------

Style currentStyle() {
  Style s{};
  s.f = ImGui::GetFontSize();
  s.lw = std::max(1.0f, s.f / 12.0f);
  s.pad = 0.5f * s.f;
  s.gap = 0.25f * s.f;
  s.tick = 0.3f * s.f;
  s.text = ImGui::GetColorU32(ImGuiCol_Text);
  s.muted = ImGui::GetColorU32(ImGuiCol_Text, 0.78f);
  s.grid = ImGui::GetColorU32(ImGuiCol_Text, 0.13f);
  s.minorGrid = ImGui::GetColorU32(ImGuiCol_Text, 0.05f);
  s.border = ImGui::GetColorU32(ImGuiCol_Text, 0.45f);
  s.areaFill = ImGui::GetColorU32(ImGuiCol_Text, 0.03f);
  // The SVG's background: the colour the plot sits on.
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  ImGuiCol bg = (w->Flags & ImGuiWindowFlags_ChildWindow) ? ImGuiCol_ChildBg : ImGuiCol_WindowBg;
  if (ImGui::GetStyle().Colors[bg].w <= 0) bg = ImGuiCol_WindowBg;
  s.background = ImGui::GetColorU32(bg);
  s.legendFill = ImGui::GetColorU32(bg, 0.85f);
  return s;
}

float snap(float v) {
  return std::floor(v) + 0.5f;
}

// A pinned run's dash pattern: the length of its strokes, from short dashes (A) to long (D).
static float pinDash(int pin, const Style& st) {
  constexpr float kDash[] = {0.3f, 0.65f, 1.1f, 1.7f};
  return kDash[std::clamp(pin, 0, 3)] * st.f;
}

void recordLine(Recorder& rec, const Series& s, const Mapping& xm, const Mapping& ym,
                const Style& st) {
  const bool pinned = s.pin >= 0;
  const ImU32 col = paletteColour(s.colour, pinned ? 0.8f : 1.0f);
  std::vector<ImVec2> run;
  auto flush = [&] {
    rec.polyline(run, col, (pinned ? 1.25f : 1.5f) * st.lw, pinned ? pinDash(s.pin, st) : 0, true);
    run.clear();
  };
  for (size_t i = 0; i < s.xs.size(); ++i) {
    if (!xm.ok(s.xs[i]) || !ym.ok(s.ys[i])) {
      flush();
      continue;
    }
    run.emplace_back(xm.px(s.xs[i]), ym.px(s.ys[i]));
  }
  flush();
  if (s.xs.size() <= static_cast<size_t>(kLineMarkersUpTo)) {
    for (size_t i = 0; i < s.xs.size(); ++i) {
      if (!xm.ok(s.xs[i]) || !ym.ok(s.ys[i])) continue;
      const ImVec2 at(xm.px(s.xs[i]), ym.px(s.ys[i]));
      if (pinned)  // hollow: a pinned run's points are told apart without colour too
        rec.circle(at, 0.22f * st.f, 0, col, st.lw, true);
      else
        rec.circle(at, 0.17f * st.f, col, 0, 0, true);
    }
  }
}

void recordScatter(Recorder& rec, const Series& s, const Mapping& xm, const Mapping& ym,
                   const Style& st) {
  for (size_t i = 0; i < s.xs.size(); ++i) {
    if (!xm.ok(s.xs[i]) || !ym.ok(s.ys[i])) continue;
    if (s.pin >= 0)
      rec.circle(ImVec2(xm.px(s.xs[i]), ym.px(s.ys[i])), 0.3f * st.f, 0,
                 paletteColour(s.colour, 0.85f), st.lw, true);
    else
      rec.circle(ImVec2(xm.px(s.xs[i]), ym.px(s.ys[i])), 0.25f * st.f,
                 paletteColour(s.colour, 0.8f), paletteColour(s.colour), st.lw * 0.75f, true);
  }
}

// A bar from `base` to `top` at category `cat`, in slot `slot` of `nSlots`.
static ImRect barRect(const Mapping& cm, const Mapping& vm, int cat, int slot, int nSlots,
                      double base, double top, bool horizontal) {
  const double group = nSlots > 1 ? 0.8 : 0.6;
  const double w = group / nSlots;
  const double c0 = cat - group / 2 + w * slot + 0.05 * w, c1 = c0 + 0.9 * w;
  const float a0 = cm.px(c0), a1 = cm.px(c1), v0 = vm.px(base), v1 = vm.px(top);
  return horizontal
             ? ImRect(std::min(v0, v1), std::min(a0, a1), std::max(v0, v1), std::max(a0, a1))
             : ImRect(std::min(a0, a1), std::min(v0, v1), std::max(a0, a1), std::max(v0, v1));
}

void recordBars(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s, int nSlots,
                const Mapping& xm, const Mapping& ym) {
  for (int i = 0; i < static_cast<int>(s.ys.size()); ++i) {
    if (!ym.ok(s.ys[i])) continue;
    const ImRect r = barRect(xm, ym, i, s.slot, nSlots, ym.base(), s.ys[i], false);
    if (s.pin >= 0)  // a pinned run's bar: its outline, beside the bar of this run
      rec.rect(r.Min, r.Max, paletteColour(s.colour, 0.15f), paletteColour(s.colour), 1.5f, true);
    else
      rec.rect(r.Min, r.Max, paletteColour(s.colour, 0.9f), 0, 0, true);
    hits.push_back({r, index, 0, i});
  }
}

void recordStacked(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s, int nSlots,
                   const Mapping& xm, const Mapping& ym, const Style& st) {
  const Mapping& cm = s.horizontal ? ym : xm;
  const Mapping& vm = s.horizontal ? xm : ym;
  for (int c = 0; c < s.cols; ++c) {
    double pos = vm.base(), neg = vm.base();
    for (int p = 0; p < s.rows; ++p) {
      const double v = s.ys[static_cast<size_t>(p) * s.cols + c];
      if (!std::isfinite(v) || v == 0) continue;
      double& end = v > 0 ? pos : neg;
      const double from = end, to = end + v;
      end = to;
      if (!vm.ok(to) || !vm.ok(from)) continue;
      const ImRect r = barRect(cm, vm, c, s.slot, nSlots, from, to, s.horizontal);
      if (s.pin >= 0)  // a pinned run's stacked bar: each segment's outline, lightly filled
        rec.rect(r.Min, r.Max, paletteColour(s.colour + p, 0.15f), paletteColour(s.colour + p),
                 1.5f, true);
      else  // a thin line in the background colour separates the segments
        rec.rect(r.Min, r.Max, paletteColour(s.colour + p, 0.9f), st.background, 0.5f * st.lw,
                 true);
      hits.push_back({r, index, p, c});
    }
  }
}

// Span i of `s` on screen: 60% of its row high, at least 1 pixel wide. False when it cannot be
// drawn (a NaN end, or a row or an end on the wrong side of a log axis's zero). A start at or
// below zero on a log x axis starts at the axis minimum, like a bar.
static bool spanRect(const Series& s, size_t i, const Mapping& xm, const Mapping& ym, ImRect& out) {
  const double row = s.spanRows[i];
  double x0 = s.xs[i];
  const double x1 = s.ys[i];
  if (!xm.ok(x1) || !ym.ok(row - 0.3)) return false;
  if (!xm.ok(x0)) {
    if (!xm.log || std::isnan(x0)) return false;
    x0 = std::min(xm.lo, x1);
  }
  float a = xm.px(x0), b = xm.px(x1);
  if (b - a < 1.0f) {
    const float c = (a + b) / 2;
    a = c - 0.5f;
    b = c + 0.5f;
  }
  const float y0 = ym.px(row - 0.3), y1 = ym.px(row + 0.3);
  out = ImRect(a, std::min(y0, y1), b, std::max(y0, y1));
  return true;
}

void recordSpans(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s,
                 const Mapping& xm, const Mapping& ym, const Style& st) {
  for (size_t i = 0; i < s.xs.size(); ++i) {
    ImRect r;
    if (!spanRect(s, i, xm, ym, r)) continue;
    rec.rect(r.Min, r.Max, paletteColour(s.colour, 0.9f), 0, 0, true);
    // The read-out finds spans narrower than a third of a line as if they were that wide.
    const float grow = std::max(0.0f, (0.35f * st.f - r.GetWidth()) / 2);
    r.Expand(ImVec2(grow, 0));
    hits.push_back({r, index, static_cast<int>(i), s.spanRows[i]});
  }
}

void recordHeatmap(Recorder& rec, const Series& s, const Mapping& xm, const Mapping& ym) {
  if (s.rows <= 0 || s.cols <= 0) return;
  const ImVec2 a(xm.px(-0.5), ym.px(s.srcRows - 0.5));
  const ImVec2 b(xm.px(s.srcCols - 0.5), ym.px(-0.5));
  const size_t first = rec.cells(a, b, s.rows, s.cols, true);
  const double span = s.b - s.a;
  for (size_t i = 0; i < s.ys.size(); ++i) {
    const double v = s.ys[i];
    if (!std::isfinite(v)) continue;  // stays transparent
    const double t = span != 0 ? (v - s.a) / span : 0.5;
    rec.r.cells[first + i] = colormapColour(s.cmap, t);
  }
}

// Where a text with `anchor` at `at` lies.
static ImRect textBox(ImVec2 at, const std::string& text, ImVec2 anchor, float f) {
  const float w = textWidth(text);
  const ImVec2 min(at.x - anchor.x * w, at.y - anchor.y * f);
  return ImRect(min, ImVec2(min.x + w, min.y + f));
}

// The first of the candidate places (text position, anchor) whose box stays inside `area`, clear
// of `avoid` (the legend) and of the labels placed before (`placed`, which gets this one's box);
// the first candidate when none is.
static std::pair<ImVec2, ImVec2> placeLabel(
    const std::string& text, std::initializer_list<std::pair<ImVec2, ImVec2>> candidates,
    const ImRect& area, const ImRect& avoid, std::vector<ImRect>& placed, float f) {
  auto clear = [&](const ImRect& box) {
    return std::none_of(placed.begin(), placed.end(),
                        [&](const ImRect& p) { return p.Overlaps(box); });
  };
  std::pair<ImVec2, ImVec2> chosen = *candidates.begin();
  for (const auto& c : candidates) {
    const ImRect box = textBox(c.first, text, c.second, f);
    if (area.Contains(box) && !avoid.Overlaps(box) && clear(box)) {
      chosen = c;
      break;
    }
  }
  placed.push_back(textBox(chosen.first, text, chosen.second, f));
  return chosen;
}

// Reference marks are labelled where they are drawn, clear of the legend (`avoid`).
void recordReference(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s,
                     const Mapping& xm, const Mapping& ym, const ImRect& area, const ImRect& avoid,
                     std::vector<ImRect>& placed, const Style& st) {
  const ImU32 col = paletteColour(s.colour);
  const std::string label = shown(s.label);
  const float lw = 1.5f * st.lw, dash = 0.5f * st.f, g = st.gap;
  if (s.kind == Kind::HLine) {
    if (!ym.ok(s.a)) return;
    const float y = ym.px(s.a);
    if (y < area.Min.y - 0.5f || y > area.Max.y + 0.5f) return;
    rec.line(ImVec2(area.Min.x, y), ImVec2(area.Max.x, y), col, lw, dash, true);
    const float l = area.Min.x + g, r = area.Max.x - g;
    const auto [at, anchor] = placeLabel(label,
                                         {{ImVec2(r, y - g), ImVec2(1, 1)},
                                          {ImVec2(l, y - g), ImVec2(0, 1)},
                                          {ImVec2(r, y + g), ImVec2(1, 0)},
                                          {ImVec2(l, y + g), ImVec2(0, 0)}},
                                         area, avoid, placed, st.f);
    rec.text(at, label, st.text, anchor);
    hits.push_back({ImRect(area.Min.x, y - g, area.Max.x, y + g), index, 0, 0});
  } else if (s.kind == Kind::VLine) {
    if (!xm.ok(s.a)) return;
    const float x = xm.px(s.a);
    if (x < area.Min.x - 0.5f || x > area.Max.x + 0.5f) return;
    rec.line(ImVec2(x, area.Min.y), ImVec2(x, area.Max.y), col, lw, dash, true);
    const float t = area.Min.y + g, b = area.Max.y - g;
    const auto [at, anchor] = placeLabel(label,
                                         {{ImVec2(x + g, t), ImVec2(0, 0)},
                                          {ImVec2(x - g, t), ImVec2(1, 0)},
                                          {ImVec2(x + g, b), ImVec2(0, 1)},
                                          {ImVec2(x - g, b), ImVec2(1, 1)}},
                                         area, avoid, placed, st.f);
    rec.text(at, label, st.text, anchor);
    hits.push_back({ImRect(x - g, area.Min.y, x + g, area.Max.y), index, 0, 0});
  } else if (s.kind == Kind::VSpan) {
    if (!xm.ok(s.a) || !xm.ok(s.b)) return;
    const float x0 = std::max(area.Min.x, std::min(xm.px(s.a), xm.px(s.b)));
    const float x1 = std::min(area.Max.x, std::max(xm.px(s.a), xm.px(s.b)));
    if (x1 < x0) return;
    rec.rect(ImVec2(x0, area.Min.y), ImVec2(x1, area.Max.y), paletteColour(s.colour, 0.18f), 0, 0,
             true);
    const float cx = (x0 + x1) / 2;
    const auto [at, anchor] = placeLabel(label,
                                         {{ImVec2(cx, area.Max.y - g), ImVec2(0.5f, 1)},
                                          {ImVec2(cx, area.Min.y + g), ImVec2(0.5f, 0)}},
                                         area, avoid, placed, st.f);
    rec.text(at, label, st.text, anchor);
    hits.push_back({ImRect(x0, area.Min.y, x1, area.Max.y), index, 0, 0});
  }
}

// How much data a box would hide: points of lines and scatters, and bars (which count more).
int dataUnder(const Building& b, const ImRect& box, int nSlots, const Mapping& xm,
              const Mapping& ym) {
  int n = 0;
  for (const Series& s : b.series) {
    if (s.kind == Kind::Line || s.kind == Kind::Scatter) {
      for (size_t i = 0; i < s.xs.size(); ++i)
        if (xm.ok(s.xs[i]) && ym.ok(s.ys[i]))
          n += box.Contains(ImVec2(xm.px(s.xs[i]), ym.px(s.ys[i])));
    } else if (s.kind == Kind::Bars) {
      for (int i = 0; i < static_cast<int>(s.ys.size()); ++i)
        if (ym.ok(s.ys[i]))
          n += 4 * box.Overlaps(barRect(xm, ym, i, s.slot, nSlots, ym.base(), s.ys[i], false));
    } else if (s.kind == Kind::StackedBars) {
      const Mapping& cm = s.horizontal ? ym : xm;
      const Mapping& vm = s.horizontal ? xm : ym;
      for (int c = 0; c < s.cols; ++c) {
        double total = vm.base();
        for (int p = 0; p < s.rows; ++p) {
          const double v = s.ys[static_cast<size_t>(p) * s.cols + c];
          if (std::isfinite(v) && v > 0) total += v;
        }
        if (vm.ok(total))
          n += 4 * box.Overlaps(barRect(cm, vm, c, s.slot, nSlots, vm.base(), total, s.horizontal));
      }
    } else if (s.kind == Kind::Spans) {
      ImRect r;
      for (size_t i = 0; i < s.xs.size(); ++i)
        if (spanRect(s, i, xm, ym, r)) n += 4 * box.Overlaps(r);
    }
  }
  return n;
}

std::vector<LegendEntry> legendEntries(const Building& b) {
  std::vector<LegendEntry> out;
  std::vector<bool> pinLines(4, false), pinBars(4, false);
  for (const Series& s : b.series) {
    if (s.pin >= 0) {  // one entry per pinned run, after the run's own
      const bool bars = s.kind == Kind::Bars || s.kind == Kind::StackedBars;
      (bars ? pinBars : pinLines)[size_t(std::clamp(s.pin, 0, 3))] = true;
      continue;
    }
    if (s.kind == Kind::StackedBars) {
      for (int p = 0; p < s.rows; ++p) {
        if (!shown(s.parts[p]).empty())
          out.push_back({shown(s.parts[p]), paletteColour(s.colour + p), Kind::Bars});
      }
    } else if (s.kind == Kind::Line || s.kind == Kind::Scatter || s.kind == Kind::Bars ||
               s.kind == Kind::Spans) {
      const Kind k = s.kind == Kind::Spans ? Kind::Bars : s.kind;  // a filled box
      if (!shown(s.label).empty()) out.push_back({shown(s.label), paletteColour(s.colour), k});
    }
  }
  const Context& g = context();
  for (int k = 0; k < 4 && k < static_cast<int>(g.pinned.size()); ++k)
    if (pinLines[size_t(k)] || pinBars[size_t(k)])
      out.push_back({g.pinned[size_t(k)].tag, ImGui::GetColorU32(ImGuiCol_Text),
                     pinLines[size_t(k)] ? Kind::Line : Kind::Bars, k});
  return out;
}

// The legend's entries in `columns` columns, filled row by row (one column beside the plot, as
// many as fit under it when the plot is narrow).
float legendCellWidth(const std::vector<LegendEntry>& entries, const Style& st) {
  float w = 0;
  for (const LegendEntry& e : entries)
    w = std::max(w, textWidth(e.text));
  return 1.2f * st.f + st.gap * 2 + w + st.pad;
}

ImVec2 legendSize(const std::vector<LegendEntry>& entries, const Style& st, int columns) {
  const int rows = (static_cast<int>(entries.size()) + columns - 1) / std::max(1, columns);
  return ImVec2(st.pad + fl(columns) * legendCellWidth(entries, st),
                2 * st.gap + fl(rows) * 1.3f * st.f);
}

void recordLegend(Recorder& rec, const std::vector<LegendEntry>& entries, ImVec2 at,
                  const Style& st, int columns) {
  const ImVec2 size = legendSize(entries, st, columns);
  rec.rect(at, ImVec2(at.x + size.x, at.y + size.y), st.legendFill, st.border, 0.75f * st.lw,
           false);
  const float row = 1.3f * st.f, sw = 1.2f * st.f, cell = legendCellWidth(entries, st);
  for (size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& e = entries[i];
    const int r = static_cast<int>(i) / columns, c = static_cast<int>(i) % columns;
    const float cy = at.y + st.gap + row * (fl(r) + 0.5f);
    const float x0 = at.x + st.pad + fl(c) * cell, x1 = x0 + sw;
    if (e.pin >= 0 && e.kind == Kind::Line) {
      rec.line(ImVec2(x0 - 0.3f * st.f, cy), ImVec2(x1 + 0.3f * st.f, cy), st.muted, 1.25f * st.lw,
               pinDash(e.pin, st));
      rec.circle(ImVec2((x0 + x1) / 2, cy), 0.22f * st.f, 0, st.muted, st.lw, false);
    } else if (e.pin >= 0) {
      rec.rect(ImVec2(x0, cy - 0.35f * st.f), ImVec2(x1, cy + 0.35f * st.f), 0, st.muted, 1.5f,
               false);
    } else if (e.kind == Kind::Line) {
      rec.line(ImVec2(x0, cy), ImVec2(x1, cy), e.colour, 1.5f * st.lw);
      rec.circle(ImVec2((x0 + x1) / 2, cy), 0.17f * st.f, e.colour, 0, 0, false);
    } else if (e.kind == Kind::Scatter) {
      rec.circle(ImVec2((x0 + x1) / 2, cy), 0.25f * st.f, e.colour, 0, 0, false);
    } else {
      rec.rect(ImVec2(x0, cy - 0.35f * st.f), ImVec2(x1, cy + 0.35f * st.f), e.colour, 0, 0, false);
    }
    rec.text(ImVec2(x1 + 2 * st.gap, cy), e.text, st.text, ImVec2(0, 0.5f));
  }
}

}  // namespace cudalab::plot
