// cudalab's plots: building a plot (BeginPlot, the axes' setup, the series calls copy their data
// into the plot being built) and the layout's arithmetic (axis ranges, ticks that fit).
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
// [SECTION] Building: BeginPlot, setup and series
//-------------------------------------------------------------------------------------------------

static Building* building() {
  Context& g = context();
  IM_ASSERT(g.cur && "cudalab::plot: call this between BeginPlot (that returned true) and EndPlot");
  return g.cur ? &*g.cur : nullptr;
}

static Series* addSeries(Kind kind, const char* label, int colours) {
  Building* b = building();
  if (!b) return nullptr;
  Series s;
  s.kind = kind;
  s.label = label ? tr(label) : "";
  if (b->forcedColour >= 0) {
    s.colour = b->forcedColour;
    b->forcedColour = -1;
  } else {
    s.colour = b->nextColour;
    b->nextColour += colours;
  }
  b->series.push_back(std::move(s));
  return &b->series.back();
}

static void copyAxis(AxisState& st, const Axis& a) {
  st.label = a.label ? tr(a.label) : "";
  st.hasFormat = a.format != nullptr;
  st.format = a.format ? a.format : "";
  st.scale = a.scale;
  st.min = a.min;
  st.max = a.max;
}

bool BeginPlot(const char* id, const char* title, ImVec2 size) {
  Context& g = context();
  IM_ASSERT(!g.cur && "cudalab::plot: BeginPlot inside another plot (missing EndPlot?)");
  if (g.cur) return false;
  if (ImGui::GetCurrentWindow()->SkipItems) return false;
  const float f = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  float w = size.x < 0 ? avail.x + size.x + 1 : size.x == 0 ? 30 * f : size.x;
  float h = size.y < 0 ? avail.y + size.y + 1 : size.y == 0 ? 20 * f : size.y;
  // A legend that went under the plot last frame (a narrow panel) adds its own height, so the plot
  // area keeps the height the lesson asked for.
  if (size.y >= 0)
    if (const auto it = g.records.find(id); it != g.records.end()) h += it->second.legendBand;
  w = std::max(w, 1.0f);
  h = std::max(h, 1.0f);
  ImGui::PushID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##plot", ImVec2(w, h),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  if (!ImGui::IsItemVisible()) {
    // Off screen: the series are still taken (not drawn), so that a run pinned now has every
    // plot of the lesson, not only those in view.
    ImGui::PopID();
    Building& b = g.cur.emplace();
    b.id = id;
    b.offScreen = true;
    return true;
  }
  const bool hovered = ImGui::IsItemHovered();
  if (hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Right)) ImGui::OpenPopup("##plotmenu");
  Building& b = g.cur.emplace();
  b.id = id;
  b.title = title ? tr(title) : "";
  b.origin = origin;
  b.size = ImVec2(w, h);
  b.hovered = hovered;
  return true;
}

void SetupAxes(const Axis& x, const Axis& y) {
  if (Building* b = building()) {
    copyAxis(b->x, x);
    copyAxis(b->y, y);
  }
}

void SetupCategories(const char* const* names, int count, AxisId axis) {
  Building* b = building();
  if (!b) return;
  auto& cats = (axis == AxisId::X ? b->x : b->y).categories;
  cats.clear();
  for (int i = 0; i < count; ++i)
    cats.emplace_back(names && names[i] ? tr(names[i]) : "");
}

void SetupLegend(Legend where) {
  if (Building* b = building()) b->legend = where;
}

void SetNextColour(int paletteIndex) {
  if (Building* b = building()) b->forcedColour = std::max(0, paletteIndex);
}

void PlotLine(const char* label, const double* xs, const double* ys, int n) {
  if (Series* s = addSeries(Kind::Line, label, 1); s && xs && ys && n > 0) {
    s->xs.assign(xs, xs + n);
    s->ys.assign(ys, ys + n);
  }
}

void PlotScatter(const char* label, const double* xs, const double* ys, int n) {
  if (Series* s = addSeries(Kind::Scatter, label, 1); s && xs && ys && n > 0) {
    s->xs.assign(xs, xs + n);
    s->ys.assign(ys, ys + n);
  }
}

void PlotBars(const char* label, const double* ys, int n) {
  if (Series* s = addSeries(Kind::Bars, label, 1); s && ys && n > 0) s->ys.assign(ys, ys + n);
}

void PlotStackedBars(const char* const* seriesLabels, int nSeries, const double* values, int nCat,
                     bool horizontal) {
  Series* s = addSeries(Kind::StackedBars, "", std::max(1, nSeries));
  if (!s || nSeries <= 0 || nCat <= 0 || !values) return;
  s->rows = nSeries;
  s->cols = nCat;
  s->horizontal = horizontal;
  s->ys.assign(values, values + nSeries * nCat);
  for (int i = 0; i < nSeries; ++i)
    s->parts.emplace_back(seriesLabels && seriesLabels[i] ? tr(seriesLabels[i]) : "");
}

void PlotSpans(const char* label, const int* rows, const double* x0s, const double* x1s, int n) {
  Series* s = addSeries(Kind::Spans, label, 1);
  if (!s || !rows || !x0s || !x1s || n <= 0) return;
  s->spanRows.assign(rows, rows + n);
  s->xs.resize(n);
  s->ys.resize(n);
  for (int i = 0; i < n; ++i) {  // NaN ends stay as given (and are skipped)
    s->xs[i] = x1s[i] < x0s[i] ? x1s[i] : x0s[i];
    s->ys[i] = x1s[i] < x0s[i] ? x0s[i] : x1s[i];
  }
}

void PlotHeatmap(const char* label, const double* values, int rows, int cols, double vmin,
                 double vmax, Colormap cmap) {
  Series* s = addSeries(Kind::Heatmap, label, 0);
  if (!s || !values || rows <= 0 || cols <= 0) return;
  s->cmap = cmap;
  s->srcRows = rows;
  s->srcCols = cols;
  s->blockR = (rows + kMaxCells - 1) / kMaxCells;
  s->blockC = (cols + kMaxCells - 1) / kMaxCells;
  s->rows = (rows + s->blockR - 1) / s->blockR;
  s->cols = (cols + s->blockC - 1) / s->blockC;
  s->ys.assign(static_cast<size_t>(s->rows) * s->cols, kNaN);
  double lo = kInf, hi = -kInf;
  for (int r = 0; r < s->rows; ++r) {
    for (int c = 0; c < s->cols; ++c) {
      double sum = 0;
      int n = 0;
      for (int rr = r * s->blockR; rr < std::min(rows, (r + 1) * s->blockR); ++rr) {
        for (int cc = c * s->blockC; cc < std::min(cols, (c + 1) * s->blockC); ++cc) {
          const double v = values[static_cast<size_t>(rr) * cols + cc];
          if (!std::isfinite(v)) continue;
          sum += v;
          ++n;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
      }
      if (n > 0) s->ys[static_cast<size_t>(r) * s->cols + c] = sum / n;
    }
  }
  s->a = std::isfinite(vmin) ? vmin : lo;
  s->b = std::isfinite(vmax) ? vmax : hi;
  if (!std::isfinite(s->a)) s->a = 0;
  if (!std::isfinite(s->b)) s->b = 1;
}

void PlotHLine(const char* label, double y) {
  if (Series* s = addSeries(Kind::HLine, label, 1)) s->a = y;
}

void PlotVLine(const char* label, double x) {
  if (Series* s = addSeries(Kind::VLine, label, 1)) s->a = x;
}

void PlotVSpan(const char* label, double x0, double x1) {
  if (Series* s = addSeries(Kind::VSpan, label, 1)) {
    s->a = std::min(x0, x1);
    s->b = std::max(x0, x1);
  }
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Layout: axis ranges, mappings, ticks that fit
//-------------------------------------------------------------------------------------------------

namespace {

void fitOne(const Series& s, Fit& fx, Fit& fy) {
  switch (s.kind) {
    case Kind::Line:
    case Kind::Scatter:
      for (size_t i = 0; i < s.xs.size(); ++i) {
        if (!fx.ok(s.xs[i]) || !fy.ok(s.ys[i])) continue;
        fx.add(s.xs[i]);
        fy.add(s.ys[i]);
      }
      break;
    case Kind::Bars:
      fx.addExact(-0.5);
      fx.addExact(static_cast<double>(s.ys.size()) - 0.5);
      for (double v : s.ys)
        fy.add(v);
      if (!fy.log) fy.add(0);
      break;
    case Kind::StackedBars: {
      Fit& cat = s.horizontal ? fy : fx;
      Fit& val = s.horizontal ? fx : fy;
      cat.addExact(-0.5);
      cat.addExact(s.cols - 0.5);
      for (int c = 0; c < s.cols; ++c) {
        double pos = 0, neg = 0;
        for (int p = 0; p < s.rows; ++p) {
          const double v = s.ys[static_cast<size_t>(p) * s.cols + c];
          if (!std::isfinite(v)) continue;
          (v >= 0 ? pos : neg) += v;
        }
        val.add(pos);
        val.add(neg);
      }
      break;
    }
    case Kind::Spans:
      if (!s.spanRows.empty()) fy.addExact(-0.5);
      for (size_t i = 0; i < s.xs.size(); ++i) {
        fx.add(s.xs[i]);
        fx.add(s.ys[i]);
        fy.addExact(s.spanRows[i] - 0.5);
        fy.addExact(s.spanRows[i] + 0.5);
      }
      break;
    case Kind::Heatmap:
      fx.addExact(-0.5);
      fx.addExact(s.srcCols - 0.5);
      fy.addExact(-0.5);
      fy.addExact(s.srcRows - 0.5);
      break;
    case Kind::HLine:
      fy.add(s.a);
      break;
    case Kind::VLine:
      fx.add(s.a);
      break;
    case Kind::VSpan:
      fx.add(s.a);
      fx.add(s.b);
      break;
  }
}

// A pinned run's data widens an axis that this run's data sets only so far: one span of this
// run's data past either end on a linear axis, a decade on a log one. Beyond that the pinned
// bars and lines run off the plot's edge, cut there, instead of squashing this run's data into a
// corner (a pinned run of 100 calls beside one of 10 did).
void widenWithin(Fit& own, const Fit& pinned) {
  if (pinned.data.empty()) return;
  if (own.data.empty()) {
    own.data = pinned.data;
    return;
  }
  double lo = own.data.lo, hi = own.data.hi;
  if (own.log) {
    lo /= 10;
    hi *= 10;
  } else {
    const double span = std::max(hi - lo, std::max(std::abs(hi), std::abs(lo)));
    lo -= span;
    hi += span;
  }
  own.data.add(std::clamp(pinned.data.lo, lo, hi));
  own.data.add(std::clamp(pinned.data.hi, lo, hi));
}

}  // namespace

void fitSeries(const Building& b, Fit& fx, Fit& fy) {
  Fit pinnedX = fx, pinnedY = fy;
  for (const Series& s : b.series)
    fitOne(s, s.pin >= 0 ? pinnedX : fx, s.pin >= 0 ? pinnedY : fy);
  fx.exact.add(pinnedX.exact.lo);
  fx.exact.add(pinnedX.exact.hi);
  fy.exact.add(pinnedY.exact.lo);
  fy.exact.add(pinnedY.exact.hi);
  widenWithin(fx, pinnedX);
  widenWithin(fy, pinnedY);
  if (!b.x.categories.empty()) {
    fx.addExact(-0.5);
    fx.addExact(static_cast<double>(b.x.categories.size()) - 0.5);
  }
  if (!b.y.categories.empty()) {
    fy.addExact(-0.5);
    fy.addExact(static_cast<double>(b.y.categories.size()) - 0.5);
  }
}

// The axis range: the user's limits where given, else the data padded by 5% (not across zero)
// joined with the exact extents; a single value is widened around itself.
std::pair<double, double> resolveRange(const AxisState& ax, const Fit& fit) {
  const bool log = ax.log();
  auto toU = [&](double v) { return log ? std::log10(v) : v; };
  auto fromU = [&](double u) { return log ? std::pow(10.0, u) : u; };
  Extent e;
  if (!fit.data.empty()) {
    const double lo = toU(fit.data.lo), hi = toU(fit.data.hi);
    const double pad = 0.05 * (hi - lo);
    double plo = lo - pad, phi = hi + pad;
    if (!log && lo >= 0 && plo < 0) plo = 0;
    if (!log && hi <= 0 && phi > 0) phi = 0;
    e.add(plo);
    e.add(phi);
  }
  if (!fit.exact.empty()) {
    e.add(toU(fit.exact.lo));
    e.add(toU(fit.exact.hi));
  }
  const bool userLo = fit.ok(ax.min), userHi = fit.ok(ax.max);
  double lo = userLo ? toU(ax.min) : e.empty() ? 0.0 : e.lo;
  double hi = userHi ? toU(ax.max) : e.empty() ? 1.0 : e.hi;
  if (userLo && userHi && lo > hi) std::swap(lo, hi);
  if (!(hi > lo)) {
    const double c = userLo ? lo : hi;
    const double d = log ? 0.5 : c == 0 ? 1.0 : 0.1 * std::fabs(c);
    if (userLo && !userHi) {
      hi = c + d;
    } else if (userHi && !userLo) {
      lo = c - d;
    } else if (!log && c == 0) {
      lo = 0;
      hi = 1;
    } else {
      lo = c - d;
      hi = c + d;
    }
  }
  return {fromU(lo), fromU(hi)};
}

float textWidth(const std::string& s) {
  return ImGui::CalcTextSize(s.c_str()).x;
}

// Cuts `s` to `width` pixels, ending in "...".
std::string truncated(const std::string& s, float width) {
  if (textWidth(s) <= width) return s;
  std::string t = s;
  while (!t.empty() && textWidth(t + "...") > width) {
    t.pop_back();
    while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80)
      t.pop_back();  // whole UTF-8 characters
  }
  return t + "...";
}

static bool labelsFit(const std::vector<Tick>& ticks, const Mapping& m, bool horizontal, float f) {
  float prevPos = 0, prevHalf = 0;
  bool first = true;
  std::vector<std::pair<float, float>> spans;  // (pixel, half extent)
  for (const Tick& t : ticks) {
    if (t.label.empty()) continue;
    spans.emplace_back(m.px(t.value), horizontal ? textWidth(t.label) / 2 : f / 2);
  }
  std::sort(spans.begin(), spans.end());
  for (const auto& [pos, half] : spans) {
    if (!first && pos - prevPos < prevHalf + half + (horizontal ? 0.75f * f : 0.3f * f))
      return false;
    prevPos = pos;
    prevHalf = half;
    first = false;
  }
  return true;
}

// Ticks whose labels do not collide along `length` pixels: minor labels go first, then the
// target count drops.
std::vector<Tick> fittedTicks(const AxisState& ax, const Mapping& m, float length, bool horizontal,
                              float f) {
  if (!ax.categories.empty()) {
    std::vector<Tick> out;
    for (int i = 0; i < static_cast<int>(ax.categories.size()); ++i) {
      if (i >= std::min(m.lo, m.hi) && i <= std::max(m.lo, m.hi))
        out.push_back({static_cast<double>(i), ax.categories[i], true});
    }
    return out;
  }
  int target = std::max(2, static_cast<int>(length / (horizontal ? 4.5f * f : 2.2f * f)));
  std::vector<Tick> ticks;
  for (int tries = 0; tries < 16; ++tries) {
    ticks = computeTicks(m.lo, m.hi, ax.scale, target, ax.fmt());
    if (labelsFit(ticks, m, horizontal, f)) return ticks;
    for (Tick& t : ticks)
      if (!t.major) t.label.clear();
    if (labelsFit(ticks, m, horizontal, f) || target <= 1) return ticks;
    target = target > 4 ? target * 3 / 4 : target - 1;
  }
  return ticks;
}

}  // namespace cudalab::plot
