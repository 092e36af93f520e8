// Inside the plot module only (app/ui/plot/*.cpp): the types a plot is built, laid out, recorded
// and drawn with, the module's one context, and the functions its files share. Everything public
// is in plot.hpp, which documents the API; this header is to plot.hpp what implot_internal.h is to
// implot.h.
//
// [SECTION] index
//   Types      series, axes, primitives, the record, the building plot, the context
//   Geometry   extents, axis fits, value <-> pixel mappings
//   Recording  the recorder, hits for the hover read-out, legend entries, the style
//   Shared     the functions one file of the module calls in another
#pragma once

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ui/plot/plot.hpp"

namespace cudalab::plot {

//-------------------------------------------------------------------------------------------------
// [SECTION] Types
//-------------------------------------------------------------------------------------------------

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

inline Context& context() {
  static Context c;
  return c;
}

inline float fl(double v) {
  return static_cast<float>(v);
}
inline float fl(int v) {
  return static_cast<float>(v);
}

// "Label##id" shows "Label"; "##id" shows nothing.
inline std::string shown(const std::string& label) {
  const auto p = label.find("##");
  return p == std::string::npos ? label : label.substr(0, p);
}

// What SnapshotRecentPlots keeps: the series each plot drew.
struct PlotSnapshot {
  std::map<std::string, std::vector<Series>, std::less<>> plots;
};

//-------------------------------------------------------------------------------------------------
// [SECTION] Geometry and [SECTION] Recording
//-------------------------------------------------------------------------------------------------

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

//-------------------------------------------------------------------------------------------------
// [SECTION] Shared
//-------------------------------------------------------------------------------------------------

// Building and layout (plot_build.cpp)
void fitSeries(const Building& b, Fit& fx, Fit& fy);
std::pair<double, double> resolveRange(const AxisState& ax, const Fit& fit);
float textWidth(const std::string& s);
std::string truncated(const std::string& s, float width);
std::vector<Tick> fittedTicks(const AxisState& ax, const Mapping& m, float length, bool horizontal,
                              float f);

// Recording (plot_record.cpp)
Style currentStyle();
float snap(float v);
void recordLine(Recorder& rec, const Series& s, const Mapping& xm, const Mapping& ym,
                const Style& st);
void recordScatter(Recorder& rec, const Series& s, const Mapping& xm, const Mapping& ym,
                   const Style& st);
void recordBars(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s, int nSlots,
                const Mapping& xm, const Mapping& ym);
void recordStacked(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s, int nSlots,
                   const Mapping& xm, const Mapping& ym, const Style& st);
void recordSpans(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s,
                 const Mapping& xm, const Mapping& ym, const Style& st);
void recordHeatmap(Recorder& rec, const Series& s, const Mapping& xm, const Mapping& ym);
void recordReference(Recorder& rec, std::vector<Hit>& hits, int index, const Series& s,
                     const Mapping& xm, const Mapping& ym, const ImRect& area, const ImRect& avoid,
                     std::vector<ImRect>& placed, const Style& st);
int dataUnder(const Building& b, const ImRect& box, int nSlots, const Mapping& xm,
              const Mapping& ym);
std::vector<LegendEntry> legendEntries(const Building& b);
float legendCellWidth(const std::vector<LegendEntry>& entries, const Style& st);
ImVec2 legendSize(const std::vector<LegendEntry>& entries, const Style& st, int columns = 1);
void recordLegend(Recorder& rec, const std::vector<LegendEntry>& entries, ImVec2 at,
                  const Style& st, int columns = 1);

// Drawing and interaction (plot_draw.cpp)
ImVec2 add(ImVec2 a, ImVec2 b);
void drawRecord(const Record& r, ImDrawList* dl);
void drawInteraction(const Building& b, const std::vector<Hit>& hits, const Mapping& xm,
                     const Mapping& ym, const ImRect& area, const Style& st);
std::vector<Series> ownSeries(std::vector<Series>& series);
void contextMenu(const std::string& id);

}  // namespace cudalab::plot
