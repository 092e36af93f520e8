// cudalab's plots: ImPlot's shape (begin, set up axes, add series, end), drawn through ImDrawList.
//
//   using namespace cudalab;
//   if (plot::BeginPlot("copy_bw", "Host-device copy bandwidth")) {
//     plot::SetupAxes({"Transfer size", plot::Scale::Log10, NAN, NAN, "B"},  // "B": SI, 4 MB
//                     {"Bandwidth", plot::Scale::Linear, 0, NAN, "B/s"});   // 0 .. fit data
//     plot::PlotLine("Pinned", sizes, pinned, n);       // colours follow the Okabe-Ito palette
//     plot::PlotScatter("Pageable", sizes, pageable, n);
//     plot::PlotHLine("PCIe 4.0 x16 peak", 32e9);       // dashed, labelled where it is drawn
//     plot::EndPlot();                                  // only when BeginPlot returned true
//   }
//
//   // Bars over categories; the timing breakdown is a stacked bar per variant:
//   const char* variants[] = {"naive", "tiled", "tiled + streams"};
//   const char* phases[] = {"Host to device", "Kernel", "Device to host"};
//   double ms[3 * 3] = {...};                           // [phase * nVariants + variant]
//   if (plot::BeginPlot("breakdown", "Where the time goes")) {
//     plot::SetupAxes({"Variant"}, {"Time", plot::Scale::Linear, NAN, NAN, "s"});
//     plot::SetupCategories(variants, 3);
//     plot::PlotStackedBars(phases, 3, ms, 3);
//     plot::EndPlot();
//   }
//
//   // A timeline, between BeginPlot and EndPlot; one PlotSpans call per colour and legend entry:
//   plot::SetupAxes({"Time", plot::Scale::Linear, 0, NAN, "s"}, {});
//   plot::SetupCategories(streams, 2, plot::AxisId::Y);        // {"Stream 1", "Stream 2"}
//   plot::PlotSpans("Host to device", rows, starts, ends, n);   // rows[i] is 0 or 1
//   plot::PlotSpans("Kernel", kernelRows, kernelStarts, kernelEnds, nKernels);
//
// How it works: series calls copy their data into the plot being built; EndPlot fits the axes,
// lays the plot out from the current font size (so it follows the UI scale and 2x figures), and
// records what it draws as primitives in plot-local pixels (polylines, rects, circles, text,
// cell grids). The record is drawn through the window's ImDrawList and kept per plot id, so the
// same plot can be written as SVG (LastPlotSvg/SaveSvg) and its screen rectangle cropped from a
// PNG (LastPlotRect). The hover read-out, cross-hair and context menu are drawn on screen only.
//
// Conventions:
// - Titles, series labels, axis labels and category names are given in English and drawn (and
//   exported) in the UI's language: xgettext knows BeginPlot's title and the Plot* labels; mark an
//   Axis's label and category names with N_("...").
// - Ids name the plot in exports and must be unique in the app; titles and labels may end in
//   "##suffix" (hidden, as in ImGui), and a label that starts with "##" stays out of the legend.
// - Data series (line, scatter, bars, stacked bars, spans) appear in the legend; reference marks
//   (PlotHLine, PlotVLine, PlotVSpan) are labelled where they are drawn; a heat map's label
//   names its colour bar.
// - Axis::format: nullptr = compact numbers (0.25, 1k, 10M, 1e-6); a printf format for one double
//   ("%.1f%%"); anything else is a unit written with an SI prefix ("s" -> 20 µs, "B/s" -> 1.5
//   TB/s).
// - Log axes ignore non-positive values (lines break there, bars and spans start at the axis
//   minimum).
// - Bar-like series (each PlotBars or PlotStackedBars call) share the category slots side by side.
// - Everything here runs on the UI thread, between ImGui::NewFrame and ImGui::Render.
#pragma once

#include <imgui.h>

#include <functional>
#include <limits>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "platform/image.hpp"

namespace cudalab::plot {

enum class Scale { Linear, Log10 };

// Viridis (perceptually uniform, for magnitudes) and a diverging blue-white-red (ColorBrewer RdBu,
// for signed quantities around a middle value); both are readable with colour-vision deficiencies.
enum class Colormap { Viridis, Diverging };

enum class AxisId { X, Y };

enum class Legend {
  Best,      // inside, top-right, or top-left when that hides fewer data (default)
  TopRight,  // inside the plot area
  TopLeft,   // inside the plot area
  Outside,   // to the right of the plot area
  Hidden,
};

struct Axis {
  const char* label = nullptr;
  Scale scale = Scale::Linear;
  double min = std::numeric_limits<double>::quiet_NaN();  // NaN = fit the data
  double max = std::numeric_limits<double>::quiet_NaN();
  const char* format = nullptr;  // see "Axis::format" above
};

struct Tick {
  double value;
  std::string label;  // empty: an unlabelled (minor) tick
  bool major;         // major ticks get a grid line and always a label
};

// ---- Building a plot -------------------------------------------------------------------------

// `size`: width -1 = the available width (other negative values: available minus that), height 0
// = a default that scales with the font size. Returns false when the plot is not visible; then do
// not call EndPlot.
bool BeginPlot(const char* id, const char* title, ImVec2 size = ImVec2(-1, 0));
void EndPlot();

void SetupAxes(const Axis& x, const Axis& y);
// Names the integer positions 0..count-1 of an axis (bars sit on them); horizontal stacked bars
// and spans take theirs on the y axis (AxisId::Y). Setup calls may come in any order before
// EndPlot.
void SetupCategories(const char* const* names, int count, AxisId axis = AxisId::X);
void SetupLegend(Legend where);
// The next series takes palette colour `paletteIndex` (a stacked bar's segments take the following
// ones) instead of the next colour in order; the automatic order is not advanced by it.
void SetNextColour(int paletteIndex);

void PlotLine(const char* label, const double* xs, const double* ys, int n);
void PlotScatter(const char* label, const double* xs, const double* ys, int n);
// ys[i] is drawn at category i.
void PlotBars(const char* label, const double* ys, int n);
// One bar per category with one segment per series: values[series * nCat + cat].
void PlotStackedBars(const char* const* seriesLabels, int nSeries, const double* values, int nCat,
                     bool horizontal = false);
// Horizontal spans [x0s[i], x1s[i]] on category row rows[i] (a row is an integer position on
// the y axis, named with SetupCategories(..., AxisId::Y)); one call = one colour and one legend
// entry, e.g. all "Host to device" copies of a timeline. Each span is drawn as a filled
// rectangle of about 60% of the row height, at least 1 pixel wide (short kernels stay visible);
// hovering shows label, row name, start, end and duration in the x axis's format.
void PlotSpans(const char* label, const int* rows, const double* x0s, const double* x1s, int n);
// values[row * cols + col] is the cell centred at x = col, y = row (row 0 at the bottom); cells
// outside [vmin, vmax] take the end colours, NaN cells stay empty; vmin/vmax NaN = fit the data.
// Maps larger than 256 x 256 are averaged down to that. Meant for linear axes.
void PlotHeatmap(const char* label, const double* values, int rows, int cols, double vmin,
                 double vmax, Colormap cmap = Colormap::Viridis);
void PlotHLine(const char* label, double y);              // a reference value, e.g. peak bandwidth
void PlotVLine(const char* label, double x);              // a marked x, e.g. "2-4 blocks per SM"
void PlotVSpan(const char* label, double x0, double x1);  // a shaded range of x

// ---- Export ----------------------------------------------------------------------------------

// The SVG document of the last drawing of plot `id` ("" when it was never drawn), in the colours
// of the theme it was drawn in, text set in DejaVu Sans like the app.
std::string LastPlotSvg(const char* id);
Status SaveSvg(const char* id, const std::string& path);
// The plot's rectangle in ImGui's screen coordinates (the framebuffer's pixels in the app's
// renders, like panel rectangles), when it was drawn in this frame or the previous one: for
// cropping a PNG of just the plot from a render of the window.
std::optional<PixelRect> LastPlotRect(const char* id);
// ---- Pinned runs -----------------------------------------------------------------------------

// A run pinned to compare with later ones: the line, scatter and bar series each plot drew (in
// this frame or the previous one), by plot id.
struct PlotSnapshot;
std::shared_ptr<const PlotSnapshot> SnapshotRecentPlots();
// Until the next call, every plot also draws the series the given runs' snapshots hold for it:
// in the same colours, each run in its own dash pattern with hollow points (A short dashes to D
// long ones), its bars as outlines beside this run's, and one legend entry per run with `tag`
// ("A: block 128"). At most four; an empty list draws none.
struct PinnedRun {
  std::string tag;
  std::shared_ptr<const PlotSnapshot> plots;
};
void SetPinnedRuns(std::vector<PinnedRun> runs);

// The ids of the plots drawn in this frame or the previous one (a lesson plan's headless run
// saves each as SVG beside the step's picture).
std::vector<std::string> RecentPlotIds();
// Called from the plot's right-click menu ("Save as SVG" / "Save as PNG") during the frame; the
// app chooses the file name, calls SaveSvg for svg and renders the PNG after the frame.
void SetExportHandler(std::function<void(const char* plotId, bool svg)> handler);

// ---- Pure helpers (unit-tested) --------------------------------------------------------------

// Ticks for [min, max], sorted by value. Linear: 1-2-5 steps giving about `targetCount` major
// ticks, plus unlabelled minors. Log10: decades (every 2nd, 3rd, 5th... when there are many),
// minors at 2..9 and labelled 2 and 5 when the range spans few decades; a range inside one decade
// falls back to linear steps; a non-positive min is taken as max / 10 and a non-positive max gives
// no ticks. min == max gives one tick; NaN or infinite bounds give none.
std::vector<Tick> computeTicks(double min, double max, Scale scale, int targetCount,
                               const char* format = nullptr);
// `v` as Axis::format says; `step` > 0 is the spacing of neighbouring values (enough digits to tell
// them apart), 0 = four significant digits (read-outs).
std::string formatValue(double v, const char* format = nullptr, double step = 0.0);
// The colour at t in [0, 1] (clamped), opaque.
ImU32 colormapColour(Colormap cmap, double t);

}  // namespace cudalab::plot
