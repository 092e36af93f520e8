// cudalab's plots; usage and conventions are in plot.hpp.
//
// [SECTION] Index
//   [SECTION] Types: series, axes, primitives, the record, the context
//   [SECTION] Numbers: formatting and ticks
//   [SECTION] Colours: colormaps
//   [SECTION] Building: BeginPlot, setup and series
//   [SECTION] Layout: axis ranges, mappings, ticks that fit
//   [SECTION] Recording: what EndPlot draws, as primitives in plot-local pixels
//   [SECTION] Drawing: the record through ImDrawList
//   [SECTION] Interaction: hover read-out, cross-hair, context menu
//   [SECTION] EndPlot
//   [SECTION] Export: SVG, files, rectangles
//
// One pipeline serves every series: the series calls copy data into the plot being built; EndPlot
// fits the axes, lays out the frame from the font size, records primitives (polylines, rects,
// circles, text, cell grids) in plot-local pixels, draws them through ImDrawList and keeps them
// under the plot's id, from which the SVG is written.

#include "ui/plot.hpp"
#include "ui/i18n.hpp"

#include "common/format.hpp"

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

#include "ui/theme.hpp"

namespace cudalab::plot {
namespace {

//-------------------------------------------------------------------------------------------------
// [SECTION] Types: series, axes, primitives, the record, the context
//-------------------------------------------------------------------------------------------------

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxCells = 256;        // heat maps are averaged down to this many cells a side
constexpr int kLineMarkersUpTo = 32;  // lines with this many points or fewer mark their points
constexpr int kColourBarSteps = 64;

enum class Kind { Line, Scatter, Bars, StackedBars, Spans, Heatmap, HLine, VLine, VSpan };

struct Series {
  Kind kind = Kind::Line;
  std::string label;
  int colour = 0;                  // palette index (stacked bars: of the first segment)
  std::vector<double> xs, ys;      // points; bars: ys; stacked: [part * cols + cat]; heat: cells;
                                   // spans: starts (xs) and ends (ys)
  std::vector<int> spanRows;       // spans: the row of each
  std::vector<std::string> parts;  // stacked bars: the segments' labels
  int rows = 0, cols = 0;          // stacked: parts x categories; heat map: cells kept
  int srcRows = 0, srcCols = 0;    // heat map: cells given
  int blockR = 1, blockC = 1;      // heat map: given cells averaged into one kept cell
  double a = 0, b = 0;             // HLine y; VLine x; VSpan x0, x1; heat map vmin, vmax
  Colormap cmap = Colormap::Viridis;
  bool horizontal = false;
  int slot = 0;  // bar-like series: place within a category
  int pin = -1;  // a pinned run's copy (0 to 3): drawn in its dash pattern, bars as outlines
};

}  // namespace

// What SnapshotRecentPlots keeps: the series each plot drew.
struct PlotSnapshot {
  std::map<std::string, std::vector<Series>, std::less<>> plots;
};

namespace {

struct AxisState {
  std::string label, format;
  bool hasFormat = false;
  Scale scale = Scale::Linear;
  double min = kNaN, max = kNaN;
  std::vector<std::string> categories;

  const char* fmt() const { return hasFormat ? format.c_str() : nullptr; }
  bool log() const { return scale == Scale::Log10; }
};

enum class PrimKind { Polyline, Rect, Circle, Text, Cells };

struct Prim {
  PrimKind kind = PrimKind::Rect;
  bool clip = false;      // clipped to the plot area
  bool screen = true;     // false: export only (the background)
  bool closed = false;    // polyline
  bool vertical = false;  // text reading upwards, turned about `a`
  ImU32 fill = 0, stroke = 0;
  float thickness = 0, dash = 0;  // dash: length of the strokes (gaps are 0.6 of it); 0 = solid
  float size = 0;                 // text: font size; circle: radius
  ImVec2 a, b;                    // rect, cells: corners; circle: centre; text: anchor point
  ImVec2 anchor;                  // text: where `a` sits in the text's box (0..1 each way)
  int first = 0, count = 0;       // polyline: into points; cells: into cells
  int rows = 0, cols = 0;         // cells, row 0 at the bottom
  std::string text;
};

struct Record {
  std::string id, title;
  ImVec2 origin, size;   // the frame on screen
  ImRect area;           // the plot area, plot-local
  float legendBand = 0;  // the height a legend under the plot took (the plot grew by it)
  int frame = 0;
  std::vector<Prim> prims;
  std::vector<ImVec2> points;
  std::vector<ImU32> cells;
  std::vector<Series> data;  // its own line, scatter and bar series, for pinning a run
  int dataFrame = 0;         // when `data` was last given (also while the plot is off screen)
};

struct Building {
  std::string id, title;
  ImVec2 origin, size;
  bool hovered = false;
  AxisState x, y;
  Legend legend = Legend::Best;
  int nextColour = 0, forcedColour = -1;
  std::vector<Series> series;
  bool offScreen = false;  // only its data is kept (for a pinned run), nothing drawn
};

// The module's one piece of mutable state, like ImPlot's GImPlot.
struct Context {
  std::map<std::string, Record, std::less<>> records;
  std::vector<PinnedRun> pinned;
  std::optional<Building> cur;
  std::function<void(const char*, bool)> exportHandler;
};

Context& context() {
  static Context c;
  return c;
}

float fl(double v) {
  return static_cast<float>(v);
}
float fl(int v) {
  return static_cast<float>(v);
}

// "Label##id" shows "Label"; "##id" shows nothing.
std::string shown(const std::string& label) {
  const auto p = label.find("##");
  return p == std::string::npos ? label : label.substr(0, p);
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Numbers: formatting and ticks
//-------------------------------------------------------------------------------------------------

double pow10i(int e) {
  return std::pow(10.0, e);
}

int floorLog10(double a) {
  return static_cast<int>(std::floor(std::log10(a) + 1e-12));
}

bool nearInteger(double q) {
  return std::fabs(q - std::round(q)) <= 1e-6 * std::max(1.0, std::fabs(q));
}

// Digits after the point that tell multiples of `step` apart (0.25 -> 2, 200 -> 0).
int decimalsFor(double step) {
  step = std::fabs(step);
  for (int d = 0; d < 17; ++d) {
    const double q = step * pow10i(d);
    if (q >= 0.999999 && nearInteger(q)) return d;
  }
  return 17;
}

// Digits after the point that give `x` `n` significant digits.
int sigDecimals(double x, int n) {
  if (x == 0 || !std::isfinite(x)) return 0;
  return std::max(0, n - 1 - floorLog10(std::fabs(x)));
}

double roundSig(double v, int n) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double p = pow10i(n - 1 - floorLog10(std::fabs(v)));
  return std::isfinite(p) ? std::round(v * p) / p : v;
}

std::string nonFinite(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "inf" : "-inf";
}

// 0.25, 1k, 10M, 2.5G, 1e-6.
std::string formatCompact(double v, double step) {
  if (!std::isfinite(v)) return nonFinite(v);
  if (step <= 0) v = roundSig(v, 4);
  const double a = std::fabs(v);
  if (a == 0 || (step > 0 && a < step * 1e-6)) return "0";
  if (a < 1e-3 || a >= 1e18) {
    int e = floorLog10(a);
    double m = v / pow10i(e);
    if (std::fabs(m) >= 10.0 - 1e-9) {
      m /= 10;
      ++e;
    }
    const int d = step > 0 ? std::min(decimalsFor(step / pow10i(e)), 6) : sigDecimals(m, 4);
    return trimmedFixed(m, d) + "e" + std::to_string(e);
  }
  static const struct {
    double scale;
    const char* suffix;
  } kSuffixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
  for (const auto& s : kSuffixes) {
    if (a >= s.scale * (1 - 1e-12)) {
      const double x = v / s.scale;
      return trimmedFixed(x, step > 0 ? decimalsFor(step / s.scale) : sigDecimals(x, 4)) + s.suffix;
    }
  }
  return trimmedFixed(v, step > 0 ? decimalsFor(step) : sigDecimals(v, 4));
}

// 20 µs, 1.5 TB/s.
std::string formatSI(double v, double step, const char* unit) {
  if (!std::isfinite(v)) return nonFinite(v) + " " + unit;
  if (step <= 0) v = roundSig(v, 4);
  const double a = std::fabs(v);
  if (a == 0 || (step > 0 && a < step * 1e-6)) return std::string("0 ") + unit;
  static const char* const kPrefixes[] = {"f", "p", "n", "\xC2\xB5", "m", "",
                                          "k", "M", "G", "T",        "P"};
  const int e3 = std::clamp(static_cast<int>(std::floor(std::log10(a) / 3 + 1e-9)), -5, 5);
  const double scale = pow10i(3 * e3);
  const double x = v / scale;
  const int d = step > 0 ? decimalsFor(step / scale) : sigDecimals(x, 4);
  return trimmedFixed(x, d) + " " + kPrefixes[e3 + 5] + unit;
}

double niceStep(double raw) {
  const double mag = pow10i(floorLog10(raw));
  const double n = raw / mag;
  const double m = n <= 1.000001 ? 1 : n <= 2.000001 ? 2 : n <= 5.000001 ? 5 : 10;
  return m * mag;
}

std::vector<Tick> linearTicks(double lo, double hi, int target, const char* format) {
  std::vector<Tick> out;
  const double step = niceStep((hi - lo) / std::max(1, target));
  if (!(step > 0) || !std::isfinite(step)) return out;
  const double i0 = std::ceil(lo / step - 1e-9), i1 = std::floor(hi / step + 1e-9);
  if (i1 - i0 > 10000) return out;
  // Minor ticks split 1 and 5 steps in five, 2 steps in four.
  const int sub = nearInteger(step / pow10i(floorLog10(step)) / 2) ? 4 : 5;
  const double minor = step / sub;
  const double tol = step * 1e-9;
  for (double i = i0 - 1; i <= i1; ++i) {
    for (int j = 0; j < sub; ++j) {
      double v = j == 0 ? i * step : i * step + j * minor;
      if (v < lo - tol || v > hi + tol) continue;
      if (std::fabs(v) < tol) v = 0;
      if (j == 0)
        out.push_back({v, formatValue(v, format, step), true});
      else
        out.push_back({v, "", false});
    }
  }
  return out;
}

std::vector<Tick> logTicks(double lo, double hi, int target, const char* format) {
  std::vector<Tick> out;
  if (!(hi > 0)) return out;
  if (lo <= 0) lo = hi / 10;
  const double l0 = std::log10(lo), l1 = std::log10(hi);
  if (l1 - l0 < 1e-12) return {{lo, formatValue(lo, format, 0), true}};
  const int d0 = static_cast<int>(std::ceil(l0 - 1e-9));
  const int d1 = static_cast<int>(std::floor(l1 + 1e-9));
  const int decades = d1 - d0 + 1;  // decade ticks inside the range
  const bool few = l1 - l0 <= 2.5;
  auto inside = [&](double v) { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); };

  if (decades < 2) {
    // At most one decade inside: 1, 2 and 5 carry labels; else fall back to linear steps.
    int labelled = 0;
    for (int d = d0 - 1; d <= d1; ++d) {
      for (int m = 1; m <= 9; ++m) {
        const double v = m * pow10i(d);
        if (!inside(v)) continue;
        const bool label = m == 1 || m == 2 || m == 5;
        labelled += label;
        out.push_back({v, label ? formatValue(v, format, pow10i(d)) : "", m == 1});
      }
    }
    if (labelled >= 2) return out;
    return linearTicks(lo, hi, target, format);
  }

  // Decades are short labels, so allow half as many again as the target.
  const int limit = std::max(2, target) + std::max(2, target) / 2;
  int stride = 1;
  for (const int s : {1, 2, 3, 5, 10, 20, 50, 100}) {
    stride = s;
    if ((decades + s - 1) / s <= limit) break;
  }
  for (int d = d0 - 1; d <= d1; ++d) {
    const double dec = pow10i(d);
    if (inside(dec)) {
      const bool major = ((d % stride) + stride) % stride == 0;
      out.push_back({dec, major ? formatValue(dec, format, dec) : "", major});
    }
    if (stride != 1 || decades > 12) continue;
    for (int m = 2; m <= 9; ++m) {
      const double v = m * dec;
      if (!inside(v)) continue;
      const bool label = few && (m == 2 || m == 5);
      out.push_back({v, label ? formatValue(v, format, dec) : "", false});
    }
  }
  return out;
}

}  // namespace

std::string formatValue(double v, const char* format, double step) {
  if (!format || !*format) return formatCompact(v, step);
  if (std::strchr(format, '%')) {
    char buf[128];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
  }
  return formatSI(v, step, format);
}

std::vector<Tick> computeTicks(double min, double max, Scale scale, int targetCount,
                               const char* format) {
  if (!std::isfinite(min) || !std::isfinite(max)) return {};
  if (min > max) std::swap(min, max);
  if (scale == Scale::Log10) return logTicks(min, max, targetCount, format);
  if (max - min <= 1e-14 * std::max(std::fabs(min), std::fabs(max)))
    return {{min, formatValue(min, format, 0), true}};
  return linearTicks(min, max, targetCount, format);
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Colours: colormaps
//-------------------------------------------------------------------------------------------------

ImU32 colormapColour(Colormap cmap, double t) {
  // viridis at i/9 (matplotlib's table, as R's viridis(10) gives it).
  static const unsigned char kViridis[][3] = {
      {68, 1, 84},    {72, 40, 120},  {62, 74, 137},  {49, 104, 142}, {38, 130, 142},
      {31, 158, 137}, {53, 183, 121}, {109, 205, 89}, {180, 222, 44}, {253, 231, 37}};
  // ColorBrewer RdBu (11 classes), blue for low values.
  static const unsigned char kDiverging[][3] = {{5, 48, 97},     {33, 102, 172},  {67, 147, 195},
                                                {146, 197, 222}, {209, 229, 240}, {247, 247, 247},
                                                {253, 219, 199}, {244, 165, 130}, {214, 96, 77},
                                                {178, 24, 43},   {103, 0, 31}};
  const bool viridis = cmap == Colormap::Viridis;
  const auto* table = viridis ? kViridis : kDiverging;
  const int n = viridis ? 10 : 11;
  if (!std::isfinite(t)) t = 0;
  const double u = std::clamp(t, 0.0, 1.0) * (n - 1);
  const int i = std::min(static_cast<int>(u), n - 2);
  const double w = u - i;
  auto mix = [&](int c) {
    return static_cast<int>(std::lround(table[i][c] * (1 - w) + table[i + 1][c] * w));
  };
  return IM_COL32(mix(0), mix(1), mix(2), 255);
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Building: BeginPlot, setup and series
//-------------------------------------------------------------------------------------------------

namespace {

Building* building() {
  Context& g = context();
  IM_ASSERT(g.cur && "cudalab::plot: call this between BeginPlot (that returned true) and EndPlot");
  return g.cur ? &*g.cur : nullptr;
}

Series* addSeries(Kind kind, const char* label, int colours) {
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

void copyAxis(AxisState& st, const Axis& a) {
  st.label = a.label ? tr(a.label) : "";
  st.hasFormat = a.format != nullptr;
  st.format = a.format ? a.format : "";
  st.scale = a.scale;
  st.min = a.min;
  st.max = a.max;
}

}  // namespace

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

struct Extent {
  double lo = kInf, hi = -kInf;
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

// What an axis must show: data (padded by 5%) and exact extents (bar slots, heat map cells).
struct Fit {
  bool log = false;
  Extent data, exact;
  bool ok(double v) const { return std::isfinite(v) && (!log || v > 0); }
  void add(double v) {
    if (ok(v)) data.add(v);
  }
  void addExact(double v) {
    if (ok(v)) exact.add(v);
  }
};

// Data value <-> pixel along one axis.
struct Mapping {
  double lo = 0, hi = 1;
  bool log = false;
  float p0 = 0, p1 = 1;  // the pixels of lo and hi

  double unit(double v) const { return log ? std::log10(v) : v; }
  double t(double v) const { return (unit(v) - unit(lo)) / (unit(hi) - unit(lo)); }
  float px(double v) const { return fl(std::clamp(p0 + (p1 - p0) * t(v), -1e6, 1e6)); }
  double value(float p) const {
    const double u = unit(lo) + (p - p0) / (p1 - p0) * (unit(hi) - unit(lo));
    return log ? std::pow(10.0, u) : u;
  }
  bool ok(double v) const { return std::isfinite(v) && (!log || v > 0); }
  // The base of a bar: 0, or the axis minimum on a log axis.
  double base() const { return log ? lo : 0.0; }
};

void fitSeries(const Building& b, Fit& fx, Fit& fy) {
  for (const Series& s : b.series) {
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

bool labelsFit(const std::vector<Tick>& ticks, const Mapping& m, bool horizontal, float f) {
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

//-------------------------------------------------------------------------------------------------
// [SECTION] Recording: what EndPlot draws, as primitives in plot-local pixels
//-------------------------------------------------------------------------------------------------

struct Recorder {
  Record& r;

  void polyline(const std::vector<ImVec2>& pts, ImU32 col, float w, float dash, bool clip,
                bool closed = false) {
    if (pts.size() < 2) return;
    Prim p;
    p.kind = PrimKind::Polyline;
    p.first = static_cast<int>(r.points.size());
    p.count = static_cast<int>(pts.size());
    r.points.insert(r.points.end(), pts.begin(), pts.end());
    p.stroke = col;
    p.thickness = w;
    p.dash = dash;
    p.clip = clip;
    p.closed = closed;
    r.prims.push_back(std::move(p));
  }
  void line(ImVec2 a, ImVec2 b, ImU32 col, float w, float dash = 0, bool clip = false) {
    polyline({a, b}, col, w, dash, clip);
  }
  void rect(ImVec2 a, ImVec2 b, ImU32 fill, ImU32 stroke, float w, bool clip) {
    Prim p;
    p.kind = PrimKind::Rect;
    p.a = ImVec2(std::min(a.x, b.x), std::min(a.y, b.y));
    p.b = ImVec2(std::max(a.x, b.x), std::max(a.y, b.y));
    p.fill = fill;
    p.stroke = stroke;
    p.thickness = w;
    p.clip = clip;
    r.prims.push_back(std::move(p));
  }
  void circle(ImVec2 c, float radius, ImU32 fill, ImU32 stroke, float w, bool clip) {
    Prim p;
    p.kind = PrimKind::Circle;
    p.a = c;
    p.size = radius;
    p.fill = fill;
    p.stroke = stroke;
    p.thickness = w;
    p.clip = clip;
    r.prims.push_back(std::move(p));
  }
  void text(ImVec2 at, std::string s, ImU32 col, ImVec2 anchor, bool vertical = false) {
    if (s.empty()) return;
    Prim p;
    p.kind = PrimKind::Text;
    p.a = at;
    p.anchor = anchor;
    p.text = std::move(s);
    p.fill = col;
    p.size = ImGui::GetFontSize();
    p.vertical = vertical;
    r.prims.push_back(std::move(p));
  }
  // Returns where the rows * cols colours go in r.cells (row 0 at the bottom, b.y).
  size_t cells(ImVec2 a, ImVec2 b, int rows, int cols, bool clip) {
    Prim p;
    p.kind = PrimKind::Cells;
    p.a = a;
    p.b = b;
    p.rows = rows;
    p.cols = cols;
    p.first = static_cast<int>(r.cells.size());
    p.count = rows * cols;
    p.clip = clip;
    r.cells.resize(r.cells.size() + static_cast<size_t>(p.count), 0);
    r.prims.push_back(std::move(p));
    return static_cast<size_t>(r.prims.back().first);
  }
};

// A region of the plot the read-out knows: a bar segment, a span, or a reference mark.
struct Hit {
  ImRect box;
  int series = 0, part = 0, cat = 0;  // spans: part = the span, cat = its row
};

struct LegendEntry {
  std::string text;
  ImU32 colour;
  Kind kind;
  int pin = -1;  // a pinned run's entry: its dash pattern (lines) or an outline (bars)
};

struct Style {
  float f, lw, pad, gap, tick;
  ImU32 text, muted, grid, minorGrid, border, areaFill, background, legendFill;
};

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
float pinDash(int pin, const Style& st) {
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
ImRect barRect(const Mapping& cm, const Mapping& vm, int cat, int slot, int nSlots, double base,
               double top, bool horizontal) {
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
      // A thin line in the background colour separates the segments.
      rec.rect(r.Min, r.Max, paletteColour(s.colour + p, 0.9f), st.background, 0.5f * st.lw, true);
      hits.push_back({r, index, p, c});
    }
  }
}

// Span i of `s` on screen: 60% of its row high, at least 1 pixel wide. False when it cannot be
// drawn (a NaN end, or a row or an end on the wrong side of a log axis's zero). A start at or
// below zero on a log x axis starts at the axis minimum, like a bar.
bool spanRect(const Series& s, size_t i, const Mapping& xm, const Mapping& ym, ImRect& out) {
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
ImRect textBox(ImVec2 at, const std::string& text, ImVec2 anchor, float f) {
  const float w = textWidth(text);
  const ImVec2 min(at.x - anchor.x * w, at.y - anchor.y * f);
  return ImRect(min, ImVec2(min.x + w, min.y + f));
}

// The first of the candidate places (text position, anchor) whose box stays inside `area`, clear
// of `avoid` (the legend) and of the labels placed before (`placed`, which gets this one's box);
// the first candidate when none is.
std::pair<ImVec2, ImVec2> placeLabel(const std::string& text,
                                     std::initializer_list<std::pair<ImVec2, ImVec2>> candidates,
                                     const ImRect& area, const ImRect& avoid,
                                     std::vector<ImRect>& placed, float f) {
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
      (s.kind == Kind::Bars ? pinBars : pinLines)[size_t(std::clamp(s.pin, 0, 3))] = true;
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

ImVec2 legendSize(const std::vector<LegendEntry>& entries, const Style& st, int columns = 1) {
  const int rows = (static_cast<int>(entries.size()) + columns - 1) / std::max(1, columns);
  return ImVec2(st.pad + fl(columns) * legendCellWidth(entries, st),
                2 * st.gap + fl(rows) * 1.3f * st.f);
}

void recordLegend(Recorder& rec, const std::vector<LegendEntry>& entries, ImVec2 at,
                  const Style& st, int columns = 1) {
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

//-------------------------------------------------------------------------------------------------
// [SECTION] Drawing: the record through ImDrawList
//-------------------------------------------------------------------------------------------------

ImVec2 add(ImVec2 a, ImVec2 b) {
  return ImVec2(a.x + b.x, a.y + b.y);
}

// Dashes along a polyline: strokes of `dash` pixels, gaps of 0.6 of that.
void drawDashed(ImDrawList* dl, const ImVec2* pts, int n, ImU32 col, float w, float dash) {
  const float gapLen = 0.6f * dash;
  bool on = true;
  float left = dash;  // of the current stroke or gap
  for (int i = 0; i + 1 < n; ++i) {
    ImVec2 a = pts[i];
    const ImVec2 b = pts[i + 1];
    float len = std::sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y));
    while (len > 0) {
      const float step = std::min(left, len);
      const float u = step / len;
      const ImVec2 c(a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u);
      if (on) dl->AddLine(a, c, col, w);
      a = c;
      len -= step;
      left -= step;
      if (left <= 0) {
        on = !on;
        left = on ? dash : gapLen;
      }
    }
  }
}

// Text turned to read upwards: the glyphs' quads rotated about `at` (ImDrawList has no rotation,
// and AddText would cull glyphs by their unrotated position).
void drawVerticalText(ImDrawList* dl, ImFont* font, float size, ImVec2 topLeft, ImU32 col,
                      const std::string& s) {
  const float scale = size / font->FontSize;
  float pen = 0;
  const char* p = s.c_str();
  const char* end = p + s.size();
  while (p < end) {
    unsigned int c = 0;
    p += ImTextCharFromUtf8(&c, p, end);
    if (c == 0) break;
    const ImFontGlyph* g = font->FindGlyph(static_cast<ImWchar>(c));
    if (!g) continue;
    if (g->Visible) {
      // Unrotated (u right, v down) -> screen (topLeft.x + v, topLeft.y - u).
      const float u0 = pen + g->X0 * scale, u1 = pen + g->X1 * scale;
      const float v0 = g->Y0 * scale, v1 = g->Y1 * scale;
      dl->PrimReserve(6, 4);
      dl->PrimQuadUV(ImVec2(topLeft.x + v0, topLeft.y - u0), ImVec2(topLeft.x + v0, topLeft.y - u1),
                     ImVec2(topLeft.x + v1, topLeft.y - u1), ImVec2(topLeft.x + v1, topLeft.y - u0),
                     ImVec2(g->U0, g->V0), ImVec2(g->U1, g->V0), ImVec2(g->U1, g->V1),
                     ImVec2(g->U0, g->V1), col);
    }
    pen += g->AdvanceX * scale;
  }
}

void drawRecord(const Record& r, ImDrawList* dl) {
  const ImVec2 o = r.origin;
  ImFont* font = ImGui::GetFont();
  bool clipped = false;
  std::vector<ImVec2> pts;
  for (const Prim& p : r.prims) {
    if (!p.screen) continue;
    if (p.clip != clipped) {
      if (p.clip)
        dl->PushClipRect(add(o, r.area.Min), add(o, r.area.Max), true);
      else
        dl->PopClipRect();
      clipped = p.clip;
    }
    switch (p.kind) {
      case PrimKind::Polyline:
        pts.clear();
        for (int i = 0; i < p.count; ++i)
          pts.push_back(add(o, r.points[p.first + i]));
        if (p.dash > 0)
          drawDashed(dl, pts.data(), p.count, p.stroke, p.thickness, p.dash);
        else
          dl->AddPolyline(pts.data(), p.count, p.stroke, p.closed ? ImDrawFlags_Closed : 0,
                          p.thickness);
        break;
      case PrimKind::Rect:
        if (p.fill) dl->AddRectFilled(add(o, p.a), add(o, p.b), p.fill);
        if (p.stroke && p.thickness > 0)
          dl->AddRect(add(o, p.a), add(o, p.b), p.stroke, 0, 0, p.thickness);
        break;
      case PrimKind::Circle:
        if (p.fill) dl->AddCircleFilled(add(o, p.a), p.size, p.fill);
        if (p.stroke && p.thickness > 0)
          dl->AddCircle(add(o, p.a), p.size, p.stroke, 0, p.thickness);
        break;
      case PrimKind::Text: {
        const ImVec2 ts = font->CalcTextSizeA(p.size, FLT_MAX, 0, p.text.c_str());
        if (p.vertical) {
          const ImVec2 topLeft(o.x + p.a.x - p.anchor.y * ts.y, o.y + p.a.y + p.anchor.x * ts.x);
          drawVerticalText(dl, font, p.size, topLeft, p.fill, p.text);
        } else {
          dl->AddText(font, p.size,
                      add(o, ImVec2(p.a.x - p.anchor.x * ts.x, p.a.y - p.anchor.y * ts.y)), p.fill,
                      p.text.c_str());
        }
        break;
      }
      case PrimKind::Cells: {
        const float cw = (p.b.x - p.a.x) / fl(p.cols), ch = (p.b.y - p.a.y) / fl(p.rows);
        for (int row = 0; row < p.rows; ++row) {
          for (int c = 0; c < p.cols; ++c) {
            const ImU32 col = r.cells[p.first + row * p.cols + c];
            if (!(col & IM_COL32_A_MASK)) continue;
            const ImVec2 a(o.x + p.a.x + cw * fl(c), o.y + p.b.y - ch * fl(row + 1));
            dl->AddRectFilled(a, ImVec2(a.x + cw, a.y + ch), col);
          }
        }
        break;
      }
    }
  }
  if (clipped) dl->PopClipRect();
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Interaction: hover read-out, cross-hair, context menu
//-------------------------------------------------------------------------------------------------

struct Readout {
  ImU32 colour = 0;
  std::string name;
  std::vector<std::string> lines;
  bool marker = false;
  ImVec2 at;  // plot-local, with marker
};

std::string axisName(const AxisState& ax, const char* fallback) {
  const std::string s = shown(ax.label);
  return s.empty() ? fallback : s;
}

// "Transfer size: 4 MB", or the category's name when the axis has them.
std::string axisValue(const AxisState& ax, const char* fallback, double v) {
  if (!ax.categories.empty()) {
    const double i = std::round(v);
    if (std::fabs(v - i) < 1e-9 && i >= 0 && i < static_cast<double>(ax.categories.size()))
      return ax.categories[static_cast<size_t>(i)];
  }
  return axisName(ax, fallback) + ": " + formatValue(v, ax.fmt(), 0);
}

std::string seriesName(const std::string& label) {
  const std::string s = shown(label);
  return s.empty() ? "(unnamed)" : s;
}

std::optional<Readout> findReadout(const Building& b, const std::vector<Hit>& hits,
                                   const Mapping& xm, const Mapping& ym, ImVec2 mouse,
                                   const Style& st) {
  // The nearest point of the line and scatter series.
  int bestSeries = -1;
  size_t bestIndex = 0;
  float bestD2 = FLT_MAX;
  for (int si = 0; si < static_cast<int>(b.series.size()); ++si) {
    const Series& s = b.series[si];
    if (s.kind != Kind::Line && s.kind != Kind::Scatter) continue;
    for (size_t i = 0; i < s.xs.size(); ++i) {
      if (!xm.ok(s.xs[i]) || !ym.ok(s.ys[i])) continue;
      const float dx = xm.px(s.xs[i]) - mouse.x, dy = ym.px(s.ys[i]) - mouse.y;
      if (dx * dx + dy * dy < bestD2) {
        bestD2 = dx * dx + dy * dy;
        bestSeries = si;
        bestIndex = i;
      }
    }
  }
  auto pointReadout = [&]() {
    const Series& s = b.series[bestSeries];
    Readout r;
    r.colour = paletteColour(s.colour);
    r.name = seriesName(s.label);
    r.lines = {axisValue(b.x, "x", s.xs[bestIndex]), axisValue(b.y, "y", s.ys[bestIndex])};
    r.marker = true;
    r.at = ImVec2(xm.px(s.xs[bestIndex]), ym.px(s.ys[bestIndex]));
    return r;
  };
  if (bestSeries >= 0 && bestD2 <= st.f * st.f) return pointReadout();

  // Bars, stacked segments, spans and reference marks under the mouse (the last drawn wins), else
  // the nearest bar segment within two lines (the mouse just above a short bar; not spans, which
  // lie side by side and are found when under the mouse only).
  auto isBar = [&](const Hit& h) {
    const Kind k = b.series[h.series].kind;
    return k == Kind::Bars || k == Kind::StackedBars;
  };
  const Hit* hit = nullptr;
  for (auto it = hits.rbegin(); it != hits.rend() && !hit; ++it)
    if (b.series[it->series].kind != Kind::VSpan && it->box.Contains(mouse)) hit = &*it;
  float nearest = 2 * st.f;
  for (auto it = hits.rbegin(); it != hits.rend() && !hit; ++it) {
    if (!isBar(*it)) continue;
    const ImVec2 q = ImClamp(mouse, it->box.Min, it->box.Max);
    const float d = std::sqrt(ImLengthSqr(ImVec2(q.x - mouse.x, q.y - mouse.y)));
    if (d < nearest) {
      nearest = d;
      hit = &*it;
    }
  }
  if (hit) {
    const Series& s = b.series[hit->series];
    Readout r;
    r.colour = paletteColour(s.colour);
    r.name = seriesName(s.label);
    if (s.kind == Kind::Bars) {
      r.lines = {axisValue(b.x, "x", hit->cat), axisValue(b.y, "y", s.ys[hit->cat])};
    } else if (s.kind == Kind::StackedBars) {
      const AxisState& cat = s.horizontal ? b.y : b.x;
      const AxisState& val = s.horizontal ? b.x : b.y;
      const double v = s.ys[static_cast<size_t>(hit->part) * s.cols + hit->cat];
      double total = 0;
      for (int p = 0; p < s.rows; ++p) {
        const double w = s.ys[static_cast<size_t>(p) * s.cols + hit->cat];
        if (std::isfinite(w)) total += w;
      }
      r.colour = paletteColour(s.colour + hit->part);
      r.name = seriesName(s.parts[hit->part]);
      r.lines = {axisValue(cat, s.horizontal ? "y" : "x", hit->cat), axisValue(val, "value", v)};
      if (total != 0) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * v / total);
        r.lines.push_back(std::string(pct) + " of " + formatValue(total, val.fmt(), 0));
      }
    } else if (s.kind == Kind::Spans) {
      const double x0 = s.xs[hit->part], x1 = s.ys[hit->part];
      const char* fmt = b.x.fmt();
      r.lines = {axisValue(b.y, "row", hit->cat), "start: " + formatValue(x0, fmt, 0),
                 "end: " + formatValue(x1, fmt, 0), "duration: " + formatValue(x1 - x0, fmt, 0)};
    } else if (s.kind == Kind::HLine) {
      r.lines = {axisValue(b.y, "y", s.a)};
    } else {
      r.lines = {axisValue(b.x, "x", s.a)};
    }
    return r;
  }

  // A heat map cell.
  const double mx = xm.value(mouse.x), my = ym.value(mouse.y);
  for (auto it = b.series.rbegin(); it != b.series.rend(); ++it) {
    const Series& s = *it;
    if (s.kind != Kind::Heatmap || s.rows <= 0) continue;
    const double c = std::round(mx), rr = std::round(my);
    if (c < 0 || c >= s.srcCols || rr < 0 || rr >= s.srcRows) continue;
    const int kc = static_cast<int>(c) / s.blockC, kr = static_cast<int>(rr) / s.blockR;
    const double v = s.ys[static_cast<size_t>(kr) * s.cols + kc];
    Readout r;
    r.colour = std::isfinite(v) ? colormapColour(s.cmap, (v - s.a) / (s.b - s.a)) : 0;
    r.name = seriesName(s.label);
    r.lines = {axisValue(b.x, "x", c), axisValue(b.y, "y", rr),
               "value: " + (std::isfinite(v) ? formatValue(v, nullptr, 0) : std::string("none"))};
    if (s.blockR * s.blockC > 1)
      r.lines.push_back("(mean of " + std::to_string(s.blockR) + " x " + std::to_string(s.blockC) +
                        " cells)");
    return r;
  }

  for (auto it = hits.rbegin(); it != hits.rend(); ++it) {
    const Series& s = b.series[it->series];
    if (s.kind != Kind::VSpan || !it->box.Contains(mouse)) continue;
    Readout r;
    r.colour = paletteColour(s.colour);
    r.name = seriesName(s.label);
    r.lines = {axisValue(b.x, "from x", s.a), axisValue(b.x, "to x", s.b)};
    return r;
  }
  if (bestSeries >= 0) return pointReadout();
  return std::nullopt;
}

void drawInteraction(const Building& b, const std::vector<Hit>& hits, const Mapping& xm,
                     const Mapping& ym, const ImRect& area, const Style& st) {
  const ImVec2 o = b.origin;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const ImVec2 local(mouse.x - o.x, mouse.y - o.y);
  if (!b.hovered || !area.Contains(local)) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(add(o, area.Min), add(o, area.Max), true);
  const ImU32 cross = ImGui::GetColorU32(ImGuiCol_Text, 0.25f);
  dl->AddLine(ImVec2(mouse.x, o.y + area.Min.y), ImVec2(mouse.x, o.y + area.Max.y), cross, st.lw);
  dl->AddLine(ImVec2(o.x + area.Min.x, mouse.y), ImVec2(o.x + area.Max.x, mouse.y), cross, st.lw);
  const std::optional<Readout> r = findReadout(b, hits, xm, ym, local, st);
  if (r && r->marker)
    dl->AddCircle(add(o, r->at), 0.45f * st.f, ImGui::GetColorU32(ImGuiCol_Text), 0, 1.5f * st.lw);
  dl->PopClipRect();
  if (!r) return;
  ImGui::BeginTooltip();
  if (r->colour) {
    ImGui::ColorButton("##colour", ImGui::ColorConvertU32ToFloat4(r->colour),
                       ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop,
                       ImVec2(0.8f * st.f, 0.8f * st.f));
    ImGui::SameLine();
  }
  ImGui::TextUnformatted(r->name.c_str());
  for (const std::string& line : r->lines)
    ImGui::TextUnformatted(line.c_str());
  ImGui::EndTooltip();
}

// This run's own line, scatter and bar series (not the pinned runs' copies), kept so that the run
// can be pinned. Moved out: the plot is done with them.
std::vector<Series> ownSeries(std::vector<Series>& series) {
  std::vector<Series> out;
  for (Series& s : series)
    if (s.pin < 0 && (s.kind == Kind::Line || s.kind == Kind::Scatter || s.kind == Kind::Bars))
      out.push_back(std::move(s));
  return out;
}

void contextMenu(const std::string& id) {
  if (!ImGui::BeginPopup("##plotmenu")) return;
  const auto handler = context().exportHandler;  // a copy: the handler may replace itself
  if (ImGui::MenuItem("Save as SVG", nullptr, false, static_cast<bool>(handler)))
    handler(id.c_str(), true);
  if (ImGui::MenuItem("Save as PNG", nullptr, false, static_cast<bool>(handler)))
    handler(id.c_str(), false);
  ImGui::EndPopup();
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
  // The pinned runs' series of this plot beside this run's.
  for (int k = 0; k < static_cast<int>(g.pinned.size()) && k < 4; ++k) {
    const PinnedRun& run = g.pinned[size_t(k)];
    if (!run.plots) continue;
    const auto it = run.plots->plots.find(b.id);
    if (it == run.plots->plots.end()) continue;
    for (Series s : it->second) {
      s.pin = k;
      s.label = shown(s.label) + " (" + run.tag.substr(0, run.tag.find(':')) + ")";
      b.series.push_back(std::move(s));
    }
  }

  int nSlots = 0;
  for (Series& s : b.series)
    if (s.kind == Kind::Bars || s.kind == Kind::StackedBars) s.slot = nSlots++;
  nSlots = std::max(nSlots, 1);

  // Axis ranges.
  Fit fx, fy;
  fx.log = b.x.log();
  fy.log = b.y.log();
  fitSeries(b, fx, fy);
  const auto [xlo, xhi] = resolveRange(b.x, fx);
  const auto [ylo, yhi] = resolveRange(b.y, fy);

  // Layout, from the outside in: title, axis labels, tick labels, colour bar, legend.
  const Style st = currentStyle();
  const float f = st.f, W = b.size.x, H = b.size.y;
  const std::string title = shown(b.title), xLabel = shown(b.x.label), yLabel = shown(b.y.label);
  const Series* heat = nullptr;
  for (const Series& s : b.series)
    if (s.kind == Kind::Heatmap && s.rows > 0 && !heat) heat = &s;
  std::vector<LegendEntry> entries = legendEntries(b);
  if (b.legend == Legend::Hidden) {
    // A plot without a legend still names the pinned runs drawn on it.
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const LegendEntry& e) { return e.pin < 0; }),
                  entries.end());
    if (!entries.empty()) b.legend = Legend::Best;
  }
  ImVec2 legendSz = legendSize(entries, st);
  // An outside legend goes under the plot, in as many columns as fit, when beside it would take
  // over a quarter of the width (a projector's scale): the plot keeps the room its labels need.
  int legendColumns = 1;
  const bool legendBelow =
      b.legend == Legend::Outside && !entries.empty() && legendSz.x > 0.25f * W;
  if (legendBelow) {
    legendColumns = std::clamp(static_cast<int>((W - 3 * st.pad) / legendCellWidth(entries, st)), 1,
                               static_cast<int>(entries.size()));
    legendSz = legendSize(entries, st, legendColumns);
  }

  const float top = st.pad + (title.empty() ? 0.0f : 1.5f * f);
  float right = W - st.pad;
  std::vector<Tick> barTicks;
  float barLabelW = 0;
  if (heat) {
    const Mapping bm{heat->a, heat->b, false, H - 3 * f, top};
    barTicks = fittedTicks(AxisState{}, bm, H - top - 3 * f, false, f);
    for (const Tick& t : barTicks)
      barLabelW = std::max(barLabelW, textWidth(t.label));
    right -= 2 * st.gap + f + st.tick + st.gap + barLabelW +
             (shown(heat->label).empty() ? 0 : st.pad + f);
  }
  const bool legendRight = b.legend == Legend::Outside && !entries.empty() && !legendBelow;
  if (legendRight) right -= legendSz.x + st.pad;
  if (!heat && !legendRight) right -= 0.5f * f;
  const float legendBand = legendBelow ? legendSz.y + st.pad : 0.0f;

  float xTickH = f, bottom = 0, left = 0;
  bool xVertical = false;
  Mapping xm, ym;
  std::vector<Tick> xTicks, yTicks;
  float yLabelW = 0;
  for (int pass = 0; pass < 2; ++pass) {
    bottom =
        H - st.pad - legendBand - (xLabel.empty() ? 0 : f + st.gap) - xTickH - st.gap - st.tick;
    bottom = std::max(bottom, top + 1);
    ym = Mapping{ylo, yhi, b.y.log(), bottom, top};
    yTicks = fittedTicks(b.y, ym, bottom - top, false, f);
    yLabelW = 0;
    for (Tick& t : yTicks) {
      if (!b.y.categories.empty()) t.label = truncated(t.label, 0.35f * W);
      yLabelW = std::max(yLabelW, textWidth(t.label));
    }
    left = st.pad + (yLabel.empty() ? 0 : f + st.gap) + yLabelW + st.gap + st.tick;
    right = std::max(right, left + 1);
    xm = Mapping{xlo, xhi, b.x.log(), left, right};
    xTicks = fittedTicks(b.x, xm, right - left, true, f);
    if (b.x.categories.empty() || pass == 1) break;
    // Category names that do not fit their slot are turned to read upwards.
    const float slot = std::fabs(xm.px(1) - xm.px(0));
    float widest = 0;
    for (const Tick& t : xTicks)
      widest = std::max(widest, textWidth(t.label));
    if (widest <= slot - 0.5f * f) break;
    xVertical = true;
    xTickH = std::min(widest, 0.35f * H);
  }
  const ImRect area(std::floor(left), std::floor(top), std::floor(right), std::floor(bottom));
  xm.p0 = area.Min.x;
  xm.p1 = area.Max.x;
  ym.p0 = area.Max.y;
  ym.p1 = area.Min.y;

  // Record, back to front.
  Record rec;
  rec.id = b.id;
  rec.title = title;
  rec.origin = b.origin;
  rec.size = b.size;
  rec.area = area;
  rec.legendBand = legendBand;
  rec.frame = ImGui::GetFrameCount();
  Recorder r{rec};
  r.rect(ImVec2(0, 0), b.size, st.background, 0, 0, false);
  rec.prims.back().screen = false;
  r.rect(area.Min, area.Max, st.areaFill, 0, 0, false);

  for (const Tick& t : xTicks) {
    if (!b.x.categories.empty() || (!t.major && !b.x.log())) continue;
    const float x = snap(xm.px(t.value));
    r.line(ImVec2(x, area.Min.y), ImVec2(x, area.Max.y), t.major ? st.grid : st.minorGrid, st.lw);
  }
  for (const Tick& t : yTicks) {
    if (!b.y.categories.empty() || (!t.major && !b.y.log())) continue;
    const float y = snap(ym.px(t.value));
    r.line(ImVec2(area.Min.x, y), ImVec2(area.Max.x, y), t.major ? st.grid : st.minorGrid, st.lw);
  }

  // The legend inside the plot area: reference labels keep clear of it.
  const float legendMargin = 0.4f * f;
  ImVec2 legendAt(area.Max.x - legendMargin - legendSz.x, area.Min.y + legendMargin);
  const ImVec2 topLeft(area.Min.x + legendMargin, legendAt.y);
  if (b.legend == Legend::TopLeft ||
      (b.legend == Legend::Best &&
       dataUnder(b, ImRect(topLeft, add(topLeft, legendSz)), nSlots, xm, ym) <
           dataUnder(b, ImRect(legendAt, add(legendAt, legendSz)), nSlots, xm, ym)))
    legendAt = topLeft;
  const ImRect legendBox = entries.empty() || b.legend == Legend::Outside
                               ? ImRect(-1, -1, -1, -1)
                               : ImRect(legendAt, add(legendAt, legendSz));

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
          recordBars(r, hits, i, s, nSlots, xm, ym);
          break;
        case Kind::StackedBars:
          recordStacked(r, hits, i, s, nSlots, xm, ym, st);
          break;
        case Kind::Spans:
          recordSpans(r, hits, i, s, xm, ym, st);
          break;
        case Kind::Heatmap:
          recordHeatmap(r, s, xm, ym);
          break;
        default:
          recordReference(r, hits, i, s, xm, ym, area, legendBox, placedLabels, st);
          break;
      }
    }
  }

  // Axes: frame, ticks and their labels, axis labels, title.
  r.rect(area.Min, area.Max, 0, st.border, st.lw, false);
  for (const Tick& t : xTicks) {
    const float x = snap(xm.px(t.value)), len = t.major ? st.tick : 0.5f * st.tick;
    r.line(ImVec2(x, area.Max.y), ImVec2(x, area.Max.y + len), st.border, st.lw);
    const ImVec2 at(x, area.Max.y + st.tick + st.gap);
    if (xVertical)
      r.text(at, truncated(t.label, xTickH), st.muted, ImVec2(1, 0.5f), true);
    else
      r.text(at, t.label, st.muted, ImVec2(0.5f, 0));
  }
  for (const Tick& t : yTicks) {
    const float y = snap(ym.px(t.value)), len = t.major ? st.tick : 0.5f * st.tick;
    r.line(ImVec2(area.Min.x - len, y), ImVec2(area.Min.x, y), st.border, st.lw);
    r.text(ImVec2(area.Min.x - st.tick - st.gap, y), t.label, st.muted, ImVec2(1, 0.5f));
  }
  if (!xLabel.empty())
    r.text(ImVec2((area.Min.x + area.Max.x) / 2, H - st.pad - legendBand), xLabel, st.text,
           ImVec2(0.5f, 1));
  if (!yLabel.empty())
    r.text(ImVec2(st.pad + f / 2, (area.Min.y + area.Max.y) / 2), yLabel, st.text,
           ImVec2(0.5f, 0.5f), true);
  if (!title.empty()) {
    const float tw = textWidth(title);
    const float cx = std::clamp((area.Min.x + area.Max.x) / 2, st.pad + tw / 2,
                                std::max(st.pad + tw / 2, W - st.pad - tw / 2));
    r.text(ImVec2(cx, st.pad), title, st.text, ImVec2(0.5f, 0));
  }

  // The colour bar of the first heat map, right of the plot area.
  float outside = area.Max.x + st.pad;
  if (heat) {
    const float x0 = area.Max.x + 2 * st.gap, x1 = x0 + f;
    const size_t first =
        r.cells(ImVec2(x0, area.Min.y), ImVec2(x1, area.Max.y), kColourBarSteps, 1, false);
    for (int i = 0; i < kColourBarSteps; ++i)
      rec.cells[first + i] = colormapColour(heat->cmap, (i + 0.5) / kColourBarSteps);
    r.rect(ImVec2(x0, area.Min.y), ImVec2(x1, area.Max.y), 0, st.border, st.lw, false);
    const Mapping bm{heat->a, heat->b, false, area.Max.y, area.Min.y};
    for (const Tick& t : barTicks) {
      if (heat->a == heat->b) break;
      const float y = snap(bm.px(t.value));
      if (y < area.Min.y - 0.5f || y > area.Max.y + 0.5f) continue;
      r.line(ImVec2(x1, y), ImVec2(x1 + (t.major ? st.tick : 0.5f * st.tick), y), st.border, st.lw);
      r.text(ImVec2(x1 + st.tick + st.gap, y), t.label, st.muted, ImVec2(0, 0.5f));
    }
    const float labelX = x1 + st.tick + st.gap + barLabelW + st.pad;
    r.text(ImVec2(labelX + f / 2, (area.Min.y + area.Max.y) / 2), shown(heat->label), st.text,
           ImVec2(0.5f, 0.5f), true);
    outside = labelX + (shown(heat->label).empty() ? 0 : f + st.pad);
  }

  if (!entries.empty()) {
    if (legendBelow)
      legendAt = ImVec2(std::max(st.pad, std::min(area.Min.x, W - st.pad - legendSz.x)),
                        H - st.pad - legendSz.y);
    else if (b.legend == Legend::Outside)
      legendAt = ImVec2(outside, area.Min.y);
    recordLegend(r, entries, legendAt, st, legendColumns);
  }

  drawRecord(rec, ImGui::GetWindowDrawList());
  drawInteraction(b, hits, xm, ym, area, st);
  rec.data = ownSeries(b.series);
  rec.dataFrame = rec.frame;
  g.records[b.id] = std::move(rec);
  contextMenu(b.id);
  ImGui::PopID();
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Export: SVG, files, rectangles
//-------------------------------------------------------------------------------------------------

namespace {

// ImGui sizes a font by its line height (ascent - descent); SVG's font-size is the em. For the
// SVG's font, DejaVu Sans (the app's; 2048 units per em, ascent 1901, descent 483):
constexpr float kSvgEm = 2048.0f / 2384.0f;
constexpr float kSvgAscent = 1901.0f / 2384.0f;

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
  std::string s = trimmedFixed(std::strtod(buf, nullptr), 2);
  return s;
}

std::string escapeXml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
    }
  }
  return out;
}

// ` fill="#rrggbb" fill-opacity="0.5"` (`what` = "fill" or "stroke"); "none" when transparent.
std::string paint(const char* what, ImU32 c) {
  const unsigned a = (c >> IM_COL32_A_SHIFT) & 0xFF;
  if (a == 0) return std::string(" ") + what + "=\"none\"";
  char buf[80];
  std::snprintf(buf, sizeof buf, " %s=\"#%02x%02x%02x\"", what, (c >> IM_COL32_R_SHIFT) & 0xFF,
                (c >> IM_COL32_G_SHIFT) & 0xFF, (c >> IM_COL32_B_SHIFT) & 0xFF);
  std::string s = buf;
  if (a < 255) s += std::string(" ") + what + "-opacity=\"" + trimmedFixed(a / 255.0, 3) + "\"";
  return s;
}

std::string svgId(const std::string& id) {
  std::string out = "plot-";
  for (const char c : id)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

void svgPrim(std::string& out, const Record& r, const Prim& p) {
  switch (p.kind) {
    case PrimKind::Polyline: {
      out += p.closed ? "<polygon points=\"" : "<polyline points=\"";
      for (int i = 0; i < p.count; ++i) {
        const ImVec2 q = r.points[p.first + i];
        if (i) out += ' ';
        out += num(q.x) + "," + num(q.y);
      }
      out += "\" fill=\"none\"" + paint("stroke", p.stroke) + " stroke-width=\"" +
             num(p.thickness) + "\" stroke-linejoin=\"round\"";
      if (p.dash > 0) out += " stroke-dasharray=\"" + num(p.dash) + " " + num(0.6f * p.dash) + "\"";
      out += "/>\n";
      break;
    }
    case PrimKind::Rect:
      out += "<rect x=\"" + num(p.a.x) + "\" y=\"" + num(p.a.y) + "\" width=\"" +
             num(p.b.x - p.a.x) + "\" height=\"" + num(p.b.y - p.a.y) + "\"" +
             paint("fill", p.fill);
      if (p.stroke && p.thickness > 0)
        out += paint("stroke", p.stroke) + " stroke-width=\"" + num(p.thickness) + "\"";
      out += "/>\n";
      break;
    case PrimKind::Circle:
      out += "<circle cx=\"" + num(p.a.x) + "\" cy=\"" + num(p.a.y) + "\" r=\"" + num(p.size) +
             "\"" + paint("fill", p.fill);
      if (p.stroke && p.thickness > 0)
        out += paint("stroke", p.stroke) + " stroke-width=\"" + num(p.thickness) + "\"";
      out += "/>\n";
      break;
    case PrimKind::Text: {
      const char* anchor = p.anchor.x >= 0.75f ? "end" : p.anchor.x >= 0.25f ? "middle" : "start";
      const float baseline = p.a.y - p.anchor.y * p.size + kSvgAscent * p.size;
      out += "<text x=\"" + num(p.a.x) + "\" y=\"" + num(baseline) + "\" font-size=\"" +
             num(kSvgEm * p.size) + "\"" + paint("fill", p.fill);
      if (std::strcmp(anchor, "start") != 0) out += std::string(" text-anchor=\"") + anchor + "\"";
      if (p.vertical) out += " transform=\"rotate(-90 " + num(p.a.x) + " " + num(p.a.y) + ")\"";
      out += ">" + escapeXml(p.text) + "</text>\n";
      break;
    }
    case PrimKind::Cells: {
      // One <rect> per run of equal colours along a row.
      out += "<g shape-rendering=\"crispEdges\">\n";
      const float cw = (p.b.x - p.a.x) / fl(p.cols), ch = (p.b.y - p.a.y) / fl(p.rows);
      for (int row = 0; row < p.rows; ++row) {
        const ImU32* line = &r.cells[p.first + row * p.cols];
        for (int c = 0; c < p.cols;) {
          int e = c + 1;
          while (e < p.cols && line[e] == line[c])
            ++e;
          if (line[c] & IM_COL32_A_MASK) {
            out += "<rect x=\"" + num(p.a.x + cw * fl(c)) + "\" y=\"" +
                   num(p.b.y - ch * fl(row + 1)) + "\" width=\"" + num(cw * fl(e - c)) +
                   "\" height=\"" + num(ch) + "\"" + paint("fill", line[c]) + "/>\n";
          }
          c = e;
        }
      }
      out += "</g>\n";
      break;
    }
  }
}

}  // namespace

std::string LastPlotSvg(const char* id) {
  const Context& g = context();
  const auto it = g.records.find(std::string_view(id ? id : ""));
  if (it == g.records.end() || it->second.prims.empty()) return "";  // never drawn: data only
  const Record& r = it->second;
  const std::string clip = svgId(r.id) + "-area";
  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(r.size.x) +
         "\" height=\"" + num(r.size.y) + "\" viewBox=\"0 0 " + num(r.size.x) + " " +
         num(r.size.y) + "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n";
  out += "<title>" + escapeXml(r.title.empty() ? r.id : r.title) + "</title>\n";
  out += "<defs><clipPath id=\"" + clip + "\"><rect x=\"" + num(r.area.Min.x) + "\" y=\"" +
         num(r.area.Min.y) + "\" width=\"" + num(r.area.GetWidth()) + "\" height=\"" +
         num(r.area.GetHeight()) + "\"/></clipPath></defs>\n";
  bool clipped = false;
  for (const Prim& p : r.prims) {
    if (p.clip != clipped) {
      out += p.clip ? "<g clip-path=\"url(#" + clip + ")\">\n" : "</g>\n";
      clipped = p.clip;
    }
    svgPrim(out, r, p);
  }
  if (clipped) out += "</g>\n";
  out += "</svg>\n";
  return out;
}

Status SaveSvg(const char* id, const std::string& path) {
  const std::string svg = LastPlotSvg(id);
  const std::string name = id ? id : "";
  if (svg.empty())
    return Status::error("The plot \"" + name +
                         "\" has not been drawn yet, so there is nothing to save.");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return Status::error(
        trf("Could not open %s for writing: %s.", path.c_str(), std::strerror(errno)));
  out << svg;
  out.close();
  if (!out)
    return Status::error(trf("Could not write the plot to %s (is the disk full?).", path.c_str()));
  return {};
}

std::optional<PixelRect> LastPlotRect(const char* id) {
  const Context& g = context();
  const auto it = g.records.find(std::string_view(id ? id : ""));
  if (it == g.records.end() || it->second.prims.empty()) return std::nullopt;
  const Record& r = it->second;
  if (ImGui::GetCurrentContext() && r.frame < ImGui::GetFrameCount() - 1) return std::nullopt;
  const int x0 = static_cast<int>(std::floor(r.origin.x));
  const int y0 = static_cast<int>(std::floor(r.origin.y));
  const int x1 = static_cast<int>(std::ceil(r.origin.x + r.size.x));
  const int y1 = static_cast<int>(std::ceil(r.origin.y + r.size.y));
  return PixelRect{x0, y0, x1 - x0, y1 - y0};
}

std::shared_ptr<const PlotSnapshot> SnapshotRecentPlots() {
  auto snap = std::make_shared<PlotSnapshot>();
  const int now = ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0;
  for (const auto& [id, r] : context().records)
    if (r.dataFrame >= now - 1 && !r.data.empty()) snap->plots[id] = r.data;
  return snap;
}

void SetPinnedRuns(std::vector<PinnedRun> runs) {
  if (runs.size() > 4) runs.resize(4);
  context().pinned = std::move(runs);
}

std::vector<std::string> RecentPlotIds() {
  std::vector<std::string> out;
  const int now = ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0;
  for (const auto& [id, r] : context().records)
    if (r.frame >= now - 1 && !r.prims.empty()) out.push_back(id);
  return out;
}

void SetExportHandler(std::function<void(const char* plotId, bool svg)> handler) {
  context().exportHandler = std::move(handler);
}

}  // namespace cudalab::plot
