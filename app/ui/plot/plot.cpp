// cudalab's plots: EndPlot. Usage and conventions are in plot.hpp; plot_internal.hpp has the
// types and the other files' parts.
//
// One pipeline serves every series: the series calls copy data into the plot being built
// (plot_build.cpp); EndPlot fits the axes, lays out the frame from the font size, records
// primitives (polylines, rects, circles, text, cell grids) in plot-local pixels (plot_record.cpp),
// draws them through ImDrawList (plot_draw.cpp) and keeps them under the plot's id, from which the
// SVG is written (plot_svg.cpp).
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

// [SECTION] index
//   pinned runs   their series of this plot beside this run's
//   layout        axis ranges, from the outside in: title, axis labels, tick labels, colour bar,
//                 legend; then the plot area and the mappings into it
//   record        grid, series layer by layer, axes, colour bar, legend (back to front)
//   EndPlot       the phases in order, then drawing, interaction and keeping the record

namespace {

//-------------------------------------------------------------------------------------------------
// [SECTION] pinned runs
//-------------------------------------------------------------------------------------------------

// The pinned runs' series of this plot beside this run's, each in its pin's dash pattern and
// named after its run.
void addPinnedSeries(Building& b, const std::vector<PinnedRun>& pinned) {
  for (int k = 0; k < static_cast<int>(pinned.size()) && k < 4; ++k) {
    const PinnedRun& run = pinned[size_t(k)];
    if (!run.plots) continue;
    const auto it = run.plots->plots.find(b.id);
    if (it == run.plots->plots.end()) continue;
    for (Series s : it->second) {
      s.pin = k;
      s.label = shown(s.label) + " (" + run.tag.substr(0, run.tag.find(':')) + ")";
      b.series.push_back(std::move(s));
    }
  }
}

//-------------------------------------------------------------------------------------------------
// [SECTION] layout
//-------------------------------------------------------------------------------------------------

// Where everything goes, in plot-local pixels.
struct Layout {
  int nSlots = 1;  // bar-like series side by side in a category
  float f = 0, W = 0, H = 0;
  std::string title, xLabel, yLabel;
  const Series* heat = nullptr;  // the first heat map: its colour bar goes right of the plot
  std::vector<LegendEntry> entries;
  ImVec2 legendSz;
  int legendColumns = 1;
  bool legendBelow = false;
  float legendBand = 0;  // the height a legend under the plot takes
  std::vector<Tick> barTicks, xTicks, yTicks;
  float barLabelW = 0, xTickH = 0;
  bool xVertical = false;  // category names turned to read upwards
  Mapping xm, ym;
  ImRect area;
};

Layout layOut(Building& b, const Style& st) {
  Layout L;
  int nSlots = 0;
  for (Series& s : b.series)
    if (s.kind == Kind::Bars || s.kind == Kind::StackedBars) s.slot = nSlots++;
  L.nSlots = std::max(nSlots, 1);

  // Axis ranges.
  Fit fx, fy;
  fx.log = b.x.log();
  fy.log = b.y.log();
  fitSeries(b, fx, fy);
  const auto [xlo, xhi] = resolveRange(b.x, fx);
  const auto [ylo, yhi] = resolveRange(b.y, fy);

  // From the outside in: title, axis labels, tick labels, colour bar, legend.
  const float f = L.f = st.f, W = L.W = b.size.x, H = L.H = b.size.y;
  L.title = shown(b.title);
  L.xLabel = shown(b.x.label);
  L.yLabel = shown(b.y.label);
  for (const Series& s : b.series)
    if (s.kind == Kind::Heatmap && s.rows > 0 && !L.heat) L.heat = &s;
  L.entries = legendEntries(b);
  if (b.legend == Legend::Hidden) {
    // A plot without a legend still names the pinned runs drawn on it.
    L.entries.erase(std::remove_if(L.entries.begin(), L.entries.end(),
                                   [](const LegendEntry& e) { return e.pin < 0; }),
                    L.entries.end());
    if (!L.entries.empty()) b.legend = Legend::Best;
  }
  L.legendSz = legendSize(L.entries, st);
  // An outside legend goes under the plot, in as many columns as fit, when beside it would take
  // over a quarter of the width (a projector's scale): the plot keeps the room its labels need.
  L.legendBelow = b.legend == Legend::Outside && !L.entries.empty() && L.legendSz.x > 0.25f * W;
  if (L.legendBelow) {
    L.legendColumns =
        std::clamp(static_cast<int>((W - 3 * st.pad) / legendCellWidth(L.entries, st)), 1,
                   static_cast<int>(L.entries.size()));
    L.legendSz = legendSize(L.entries, st, L.legendColumns);
  }

  const float top = st.pad + (L.title.empty() ? 0.0f : 1.5f * f);
  float right = W - st.pad;
  if (L.heat) {
    const Mapping bm{L.heat->a, L.heat->b, false, H - 3 * f, top};
    L.barTicks = fittedTicks(AxisState{}, bm, H - top - 3 * f, false, f);
    for (const Tick& t : L.barTicks)
      L.barLabelW = std::max(L.barLabelW, textWidth(t.label));
    right -= 2 * st.gap + f + st.tick + st.gap + L.barLabelW +
             (shown(L.heat->label).empty() ? 0 : st.pad + f);
  }
  const bool legendRight = b.legend == Legend::Outside && !L.entries.empty() && !L.legendBelow;
  if (legendRight) right -= L.legendSz.x + st.pad;
  if (!L.heat && !legendRight) right -= 0.5f * f;
  L.legendBand = L.legendBelow ? L.legendSz.y + st.pad : 0.0f;

  float bottom = 0, left = 0;
  L.xTickH = f;
  for (int pass = 0; pass < 2; ++pass) {
    bottom = H - st.pad - L.legendBand - (L.xLabel.empty() ? 0 : f + st.gap) - L.xTickH - st.gap -
             st.tick;
    bottom = std::max(bottom, top + 1);
    L.ym = Mapping{ylo, yhi, b.y.log(), bottom, top};
    L.yTicks = fittedTicks(b.y, L.ym, bottom - top, false, f);
    float yLabelW = 0;
    for (Tick& t : L.yTicks) {
      if (!b.y.categories.empty()) t.label = truncated(t.label, 0.35f * W);
      yLabelW = std::max(yLabelW, textWidth(t.label));
    }
    left = st.pad + (L.yLabel.empty() ? 0 : f + st.gap) + yLabelW + st.gap + st.tick;
    right = std::max(right, left + 1);
    L.xm = Mapping{xlo, xhi, b.x.log(), left, right};
    L.xTicks = fittedTicks(b.x, L.xm, right - left, true, f);
    if (b.x.categories.empty() || pass == 1) break;
    // Category names that do not fit their slot are turned to read upwards.
    const float slot = std::fabs(L.xm.px(1) - L.xm.px(0));
    float widest = 0;
    for (const Tick& t : L.xTicks)
      widest = std::max(widest, textWidth(t.label));
    if (widest <= slot - 0.5f * f) break;
    L.xVertical = true;
    L.xTickH = std::min(widest, 0.35f * H);
  }
  L.area = ImRect(std::floor(left), std::floor(top), std::floor(right), std::floor(bottom));
  L.xm.p0 = L.area.Min.x;
  L.xm.p1 = L.area.Max.x;
  L.ym.p0 = L.area.Max.y;
  L.ym.p1 = L.area.Min.y;
  return L;
}

//-------------------------------------------------------------------------------------------------
// [SECTION] record
//-------------------------------------------------------------------------------------------------

void recordGrid(Recorder& r, const Building& b, const Layout& L, const Style& st) {
  const ImRect& area = L.area;
  for (const Tick& t : L.xTicks) {
    if (!b.x.categories.empty() || (!t.major && !b.x.log())) continue;
    const float x = snap(L.xm.px(t.value));
    r.line(ImVec2(x, area.Min.y), ImVec2(x, area.Max.y), t.major ? st.grid : st.minorGrid, st.lw);
  }
  for (const Tick& t : L.yTicks) {
    if (!b.y.categories.empty() || (!t.major && !b.y.log())) continue;
    const float y = snap(L.ym.px(t.value));
    r.line(ImVec2(area.Min.x, y), ImVec2(area.Max.x, y), t.major ? st.grid : st.minorGrid, st.lw);
  }
}

// Where a legend inside the plot area goes (the corner with less data under it, for Best), and
// the box reference labels keep clear of (none for a legend outside the area).
ImVec2 insideLegendAt(const Building& b, const Layout& L, ImRect& legendBox) {
  const float legendMargin = 0.4f * L.f;
  ImVec2 legendAt(L.area.Max.x - legendMargin - L.legendSz.x, L.area.Min.y + legendMargin);
  const ImVec2 topLeft(L.area.Min.x + legendMargin, legendAt.y);
  if (b.legend == Legend::TopLeft ||
      (b.legend == Legend::Best &&
       dataUnder(b, ImRect(topLeft, add(topLeft, L.legendSz)), L.nSlots, L.xm, L.ym) <
           dataUnder(b, ImRect(legendAt, add(legendAt, L.legendSz)), L.nSlots, L.xm, L.ym)))
    legendAt = topLeft;
  legendBox = L.entries.empty() || b.legend == Legend::Outside
                  ? ImRect(-1, -1, -1, -1)
                  : ImRect(legendAt, add(legendAt, L.legendSz));
  return legendAt;
}

// The series, back to front: spans behind heat maps behind bars behind lines behind reference
// lines. Returns what the hover read-out can find.
std::vector<Hit> recordSeries(Recorder& r, const Building& b, const Layout& L,
                              const ImRect& legendBox, const Style& st) {
  std::vector<Hit> hits;
  auto layerOf = [](Kind k) {
    switch (k) {
      case Kind::VSpan:
        return 0;
      case Kind::Heatmap:
        return 1;
      case Kind::Bars:
      case Kind::StackedBars:
      case Kind::Spans:
        return 2;
      case Kind::Line:
      case Kind::Scatter:
        return 3;
      default:
        return 4;
    }
  };
  const Mapping &xm = L.xm, &ym = L.ym;
  std::vector<ImRect> placedLabels;  // reference labels keep clear of each other
  for (int layer = 0; layer <= 4; ++layer) {
    for (int i = 0; i < static_cast<int>(b.series.size()); ++i) {
      const Series& s = b.series[i];
      if (layerOf(s.kind) != layer) continue;
      switch (s.kind) {
        case Kind::Line:
          recordLine(r, s, xm, ym, st);
          break;
        case Kind::Scatter:
          recordScatter(r, s, xm, ym, st);
          break;
        case Kind::Bars:
          recordBars(r, hits, i, s, L.nSlots, xm, ym);
          break;
        case Kind::StackedBars:
          recordStacked(r, hits, i, s, L.nSlots, xm, ym, st);
          break;
        case Kind::Spans:
          recordSpans(r, hits, i, s, xm, ym, st);
          break;
        case Kind::Heatmap:
          recordHeatmap(r, s, xm, ym);
          break;
        default:
          recordReference(r, hits, i, s, xm, ym, L.area, legendBox, placedLabels, st);
          break;
      }
    }
  }
  return hits;
}

// Axes: frame, ticks and their labels, axis labels, title.
void recordAxes(Recorder& r, const Layout& L, const Style& st) {
  const ImRect& area = L.area;
  r.rect(area.Min, area.Max, 0, st.border, st.lw, false);
  for (const Tick& t : L.xTicks) {
    const float x = snap(L.xm.px(t.value)), len = t.major ? st.tick : 0.5f * st.tick;
    r.line(ImVec2(x, area.Max.y), ImVec2(x, area.Max.y + len), st.border, st.lw);
    const ImVec2 at(x, area.Max.y + st.tick + st.gap);
    if (L.xVertical)
      r.text(at, truncated(t.label, L.xTickH), st.muted, ImVec2(1, 0.5f), true);
    else
      r.text(at, t.label, st.muted, ImVec2(0.5f, 0));
  }
  for (const Tick& t : L.yTicks) {
    const float y = snap(L.ym.px(t.value)), len = t.major ? st.tick : 0.5f * st.tick;
    r.line(ImVec2(area.Min.x - len, y), ImVec2(area.Min.x, y), st.border, st.lw);
    r.text(ImVec2(area.Min.x - st.tick - st.gap, y), t.label, st.muted, ImVec2(1, 0.5f));
  }
  const float f = L.f;
  if (!L.xLabel.empty())
    r.text(ImVec2((area.Min.x + area.Max.x) / 2, L.H - st.pad - L.legendBand), L.xLabel, st.text,
           ImVec2(0.5f, 1));
  if (!L.yLabel.empty())
    r.text(ImVec2(st.pad + f / 2, (area.Min.y + area.Max.y) / 2), L.yLabel, st.text,
           ImVec2(0.5f, 0.5f), true);
  if (!L.title.empty()) {
    const float tw = textWidth(L.title);
    const float cx = std::clamp((area.Min.x + area.Max.x) / 2, st.pad + tw / 2,
                                std::max(st.pad + tw / 2, L.W - st.pad - tw / 2));
    r.text(ImVec2(cx, st.pad), L.title, st.text, ImVec2(0.5f, 0));
  }
}

// The colour bar of the first heat map, right of the plot area. Returns where what is outside the
// plot on its right (an outside legend) starts.
float recordColourBar(Recorder& r, Record& rec, const Layout& L, const Style& st) {
  const ImRect& area = L.area;
  const Series* heat = L.heat;
  if (!heat) return area.Max.x + st.pad;
  const float f = L.f;
  const float x0 = area.Max.x + 2 * st.gap, x1 = x0 + f;
  const size_t first =
      r.cells(ImVec2(x0, area.Min.y), ImVec2(x1, area.Max.y), kColourBarSteps, 1, false);
  for (int i = 0; i < kColourBarSteps; ++i)
    rec.cells[first + i] = colormapColour(heat->cmap, (i + 0.5) / kColourBarSteps);
  r.rect(ImVec2(x0, area.Min.y), ImVec2(x1, area.Max.y), 0, st.border, st.lw, false);
  const Mapping bm{heat->a, heat->b, false, area.Max.y, area.Min.y};
  for (const Tick& t : L.barTicks) {
    if (heat->a == heat->b) break;
    const float y = snap(bm.px(t.value));
    if (y < area.Min.y - 0.5f || y > area.Max.y + 0.5f) continue;
    r.line(ImVec2(x1, y), ImVec2(x1 + (t.major ? st.tick : 0.5f * st.tick), y), st.border, st.lw);
    r.text(ImVec2(x1 + st.tick + st.gap, y), t.label, st.muted, ImVec2(0, 0.5f));
  }
  const float labelX = x1 + st.tick + st.gap + L.barLabelW + st.pad;
  r.text(ImVec2(labelX + f / 2, (area.Min.y + area.Max.y) / 2), shown(heat->label), st.text,
         ImVec2(0.5f, 0.5f), true);
  return labelX + (shown(heat->label).empty() ? 0 : f + st.pad);
}

}  // namespace

//-------------------------------------------------------------------------------------------------
// [SECTION] EndPlot
//-------------------------------------------------------------------------------------------------

void EndPlot() {
  Context& g = context();
  IM_ASSERT(g.cur && "cudalab::plot: EndPlot without a BeginPlot that returned true");
  if (!g.cur) return;
  Building b = std::move(*g.cur);
  g.cur.reset();
  if (b.offScreen) {
    Record& kept = g.records[b.id];
    kept.id = b.id;
    kept.data = ownSeries(b.series);
    kept.dataFrame = ImGui::GetFrameCount();
    return;
  }
  addPinnedSeries(b, g.pinned);
  const Style st = currentStyle();
  const Layout L = layOut(b, st);

  // Record, back to front.
  Record rec;
  rec.id = b.id;
  rec.title = L.title;
  rec.origin = b.origin;
  rec.size = b.size;
  rec.area = L.area;
  rec.legendBand = L.legendBand;
  rec.frame = ImGui::GetFrameCount();
  Recorder r{rec};
  r.rect(ImVec2(0, 0), b.size, st.background, 0, 0, false);
  rec.prims.back().screen = false;
  r.rect(L.area.Min, L.area.Max, st.areaFill, 0, 0, false);
  recordGrid(r, b, L, st);
  // The legend inside the plot area: reference labels keep clear of it.
  ImRect legendBox;
  ImVec2 legendAt = insideLegendAt(b, L, legendBox);
  const std::vector<Hit> hits = recordSeries(r, b, L, legendBox, st);
  recordAxes(r, L, st);
  const float outside = recordColourBar(r, rec, L, st);
  if (!L.entries.empty()) {
    if (L.legendBelow)
      legendAt = ImVec2(std::max(st.pad, std::min(L.area.Min.x, L.W - st.pad - L.legendSz.x)),
                        L.H - st.pad - L.legendSz.y);
    else if (b.legend == Legend::Outside)
      legendAt = ImVec2(outside, L.area.Min.y);
    recordLegend(r, L.entries, legendAt, st, L.legendColumns);
  }

  drawRecord(rec, ImGui::GetWindowDrawList());
  drawInteraction(b, hits, L.xm, L.ym, L.area, st);
  rec.data = ownSeries(b.series);
  rec.dataFrame = rec.frame;
  g.records[b.id] = std::move(rec);
  contextMenu(b.id);
  ImGui::PopID();
}

}  // namespace cudalab::plot
