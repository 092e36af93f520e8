// The plot module: ticks and number formats worked by hand, colormaps, and the SVG export of a plot
// drawn in a real ImGui frame (no GL: draw data is never rendered).
#include <gtest/gtest.h>

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ui/plot/plot.hpp"

namespace plot = cudalab::plot;
using plot::Scale;
using plot::Tick;

namespace {

std::vector<Tick> majors(const std::vector<Tick>& ticks) {
  std::vector<Tick> out;
  for (const Tick& t : ticks)
    if (t.major) out.push_back(t);
  return out;
}

std::vector<std::string> labels(const std::vector<Tick>& ticks) {
  std::vector<std::string> out;
  for (const Tick& t : ticks)
    if (!t.label.empty()) out.push_back(t.label);
  return out;
}

std::vector<double> values(const std::vector<Tick>& ticks) {
  std::vector<double> out;
  for (const Tick& t : ticks)
    out.push_back(t.value);
  return out;
}

void expectSorted(const std::vector<Tick>& ticks) {
  for (size_t i = 1; i < ticks.size(); ++i)
    EXPECT_LT(ticks[i - 1].value, ticks[i].value) << "at " << i;
}

}  // namespace

// ---- Linear ticks ------------------------------------------------------------------------------

TEST(PlotTicks, LinearZeroToTen) {
  const auto t = plot::computeTicks(0, 10, Scale::Linear, 5);
  const auto m = majors(t);
  EXPECT_EQ(values(m), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(labels(m), (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
  // Minor ticks split the 2-steps in four, without labels.
  EXPECT_EQ(t.size(), 6u + 5u * 3u);
  for (const Tick& tick : t)
    if (!tick.major) {
      EXPECT_TRUE(tick.label.empty());
    }
  expectSorted(t);
}

TEST(PlotTicks, LinearFractions) {
  const auto m = majors(plot::computeTicks(0, 1, Scale::Linear, 5));
  EXPECT_EQ(labels(m), (std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
  const auto q = majors(plot::computeTicks(0, 1, Scale::Linear, 4));
  EXPECT_EQ(labels(q), (std::vector<std::string>{"0", "0.5", "1"}));
}

TEST(PlotTicks, LinearLargeNumbersUseSuffixes) {
  const auto m = majors(plot::computeTicks(0, 1e6, Scale::Linear, 5));
  EXPECT_EQ(labels(m), (std::vector<std::string>{"0", "200k", "400k", "600k", "800k", "1M"}));
  const auto g = majors(plot::computeTicks(0, 3e9, Scale::Linear, 6));
  EXPECT_EQ(labels(g), (std::vector<std::string>{"0", "500M", "1G", "1.5G", "2G", "2.5G", "3G"}));
}

TEST(PlotTicks, LinearNegativeRange) {
  const auto m = majors(plot::computeTicks(-10, -2, Scale::Linear, 4));
  EXPECT_EQ(values(m), (std::vector<double>{-10, -8, -6, -4, -2}));
  EXPECT_EQ(labels(m), (std::vector<std::string>{"-10", "-8", "-6", "-4", "-2"}));
}

TEST(PlotTicks, LinearAcrossZeroHasAnExactZero) {
  const auto m = majors(plot::computeTicks(-0.3, 0.3, Scale::Linear, 6));
  EXPECT_EQ(labels(m),
            (std::vector<std::string>{"-0.3", "-0.2", "-0.1", "0", "0.1", "0.2", "0.3"}));
  for (const Tick& t : m)
    if (t.label == "0") {
      EXPECT_EQ(t.value, 0.0);
    }
}

TEST(PlotTicks, LinearTinyRanges) {
  // Around 1, a millionth wide: the labels need enough digits to differ.
  const auto m = majors(plot::computeTicks(1.0, 1.000001, Scale::Linear, 5));
  ASSERT_GE(m.size(), 3u);
  const auto l = labels(m);
  for (size_t i = 1; i < l.size(); ++i)
    EXPECT_NE(l[i - 1], l[i]);
  EXPECT_EQ(l.front(), "1");
  EXPECT_EQ(l[1], "1.0000002");
  for (const Tick& t : m) {
    EXPECT_GE(t.value, 1.0 - 1e-15);
    EXPECT_LE(t.value, 1.000001 + 1e-15);
  }
  // Tiny values are written with exponents.
  const auto s = majors(plot::computeTicks(0, 1e-5, Scale::Linear, 5));
  EXPECT_EQ(labels(s), (std::vector<std::string>{"0", "2e-6", "4e-6", "6e-6", "8e-6", "1e-5"}));
}

TEST(PlotTicks, DegenerateRanges) {
  const auto one = plot::computeTicks(5, 5, Scale::Linear, 5);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].value, 5.0);
  EXPECT_EQ(one[0].label, "5");
  EXPECT_TRUE(one[0].major);
  EXPECT_EQ(plot::computeTicks(0, 0, Scale::Linear, 5).at(0).label, "0");
  // Reversed bounds are swapped.
  EXPECT_EQ(values(majors(plot::computeTicks(10, 0, Scale::Linear, 5))),
            (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_TRUE(plot::computeTicks(NAN, 1, Scale::Linear, 5).empty());
  EXPECT_TRUE(plot::computeTicks(0, INFINITY, Scale::Linear, 5).empty());
  EXPECT_EQ(plot::computeTicks(7, 7, Scale::Log10, 5).size(), 1u);
}

// ---- Log ticks ---------------------------------------------------------------------------------

TEST(PlotTicks, LogDecades) {
  const auto t = plot::computeTicks(1, 1e6, Scale::Log10, 6);
  const auto m = majors(t);
  EXPECT_EQ(labels(m), (std::vector<std::string>{"1", "10", "100", "1k", "10k", "100k", "1M"}));
  for (size_t i = 0; i < m.size(); ++i)
    EXPECT_DOUBLE_EQ(m[i].value, std::pow(10.0, static_cast<double>(i)));
  // 2..9 in each of the six decades as unlabelled minors.
  EXPECT_EQ(t.size(), 7u + 6u * 8u);
  EXPECT_EQ(labels(t).size(), 7u);
  expectSorted(t);
}

TEST(PlotTicks, LogFewDecadesLabelTwoAndFive) {
  const auto t = plot::computeTicks(1, 100, Scale::Log10, 5);
  EXPECT_EQ(labels(t), (std::vector<std::string>{"1", "2", "5", "10", "20", "50", "100"}));
  EXPECT_EQ(labels(majors(t)), (std::vector<std::string>{"1", "10", "100"}));
}

TEST(PlotTicks, LogManyDecadesSkipSome) {
  const auto t = plot::computeTicks(1e-9, 1e9, Scale::Log10, 5);
  const auto m = majors(t);
  ASSERT_GE(m.size(), 3u);
  EXPECT_LE(m.size(), 8u);
  for (const Tick& tick : m) {
    const double e = std::log10(tick.value);
    EXPECT_NEAR(e, std::round(e), 1e-9);
  }
  EXPECT_EQ(labels(m).front(), "1e-9");
  // The decades in between stay as unlabelled minors.
  EXPECT_EQ(t.size(), 19u);
}

TEST(PlotTicks, LogSmallValues) {
  const auto m = majors(plot::computeTicks(1e-6, 1e-3, Scale::Log10, 5));
  EXPECT_EQ(labels(m), (std::vector<std::string>{"1e-6", "1e-5", "1e-4", "0.001"}));
  const auto s = majors(plot::computeTicks(1e-6, 1e-3, Scale::Log10, 5, "s"));
  EXPECT_EQ(labels(s),
            (std::vector<std::string>{"1 \xC2\xB5s", "10 \xC2\xB5s", "100 \xC2\xB5s", "1 ms"}));
}

TEST(PlotTicks, LogInsideOneDecade) {
  // 1, 2 and 5 steps carry the labels.
  EXPECT_EQ(labels(plot::computeTicks(3, 80, Scale::Log10, 5)),
            (std::vector<std::string>{"5", "10", "20", "50"}));
  // Too narrow for that: linear steps.
  EXPECT_EQ(labels(plot::computeTicks(1.5, 3, Scale::Log10, 3)),
            (std::vector<std::string>{"1.5", "2", "2.5", "3"}));
}

TEST(PlotTicks, LogIgnoresNonPositive) {
  EXPECT_TRUE(plot::computeTicks(-5, 0, Scale::Log10, 5).empty());
  // A non-positive minimum starts one decade below the maximum.
  const auto m = majors(plot::computeTicks(0, 1000, Scale::Log10, 5));
  EXPECT_EQ(labels(m), (std::vector<std::string>{"100", "1k"}));
}

// ---- Number formats ----------------------------------------------------------------------------

TEST(PlotFormat, Compact) {
  EXPECT_EQ(plot::formatValue(0), "0");
  EXPECT_EQ(plot::formatValue(1500), "1.5k");
  EXPECT_EQ(plot::formatValue(1e7), "10M");
  EXPECT_EQ(plot::formatValue(2.5e9), "2.5G");
  EXPECT_EQ(plot::formatValue(-3000), "-3k");
  EXPECT_EQ(plot::formatValue(1e-6), "1e-6");
  EXPECT_EQ(plot::formatValue(0.25), "0.25");
  EXPECT_EQ(plot::formatValue(123.456), "123.5");  // four significant digits in read-outs
  EXPECT_EQ(plot::formatValue(999.99), "1k");
  EXPECT_EQ(plot::formatValue(3.2e21), "3.2e21");
  EXPECT_EQ(plot::formatValue(NAN), "NaN");
}

TEST(PlotFormat, PrintfAndSI) {
  EXPECT_EQ(plot::formatValue(12.345, "%.1f%%"), "12.3%");
  EXPECT_EQ(plot::formatValue(2e-5, "s"), "20 \xC2\xB5s");
  EXPECT_EQ(plot::formatValue(1.5e12, "B/s"), "1.5 TB/s");
  EXPECT_EQ(plot::formatValue(0.0, "s"), "0 s");
  EXPECT_EQ(plot::formatValue(4 * 1024.0 * 1024.0, "B"), "4.194 MB");
  EXPECT_EQ(plot::formatValue(2.5e-3, "s", 5e-4), "2.5 ms");
}

// ---- Colormaps ---------------------------------------------------------------------------------

TEST(PlotColormap, EndsAndMiddle) {
  EXPECT_EQ(plot::colormapColour(plot::Colormap::Viridis, 0), IM_COL32(68, 1, 84, 255));
  EXPECT_EQ(plot::colormapColour(plot::Colormap::Viridis, 1), IM_COL32(253, 231, 37, 255));
  EXPECT_EQ(plot::colormapColour(plot::Colormap::Viridis, -3), IM_COL32(68, 1, 84, 255));
  EXPECT_EQ(plot::colormapColour(plot::Colormap::Viridis, 7), IM_COL32(253, 231, 37, 255));
  EXPECT_EQ(plot::colormapColour(plot::Colormap::Diverging, 0.5), IM_COL32(247, 247, 247, 255));
  const ImU32 low = plot::colormapColour(plot::Colormap::Diverging, 0);
  const ImU32 high = plot::colormapColour(plot::Colormap::Diverging, 1);
  EXPECT_GT((low >> IM_COL32_B_SHIFT) & 0xFF, (low >> IM_COL32_R_SHIFT) & 0xFF);    // blue
  EXPECT_GT((high >> IM_COL32_R_SHIFT) & 0xFF, (high >> IM_COL32_B_SHIFT) & 0xFF);  // red
}

// ---- A plot drawn in an ImGui frame, and its SVG -----------------------------------------------

namespace {

struct Element {
  std::string name;
  std::string attrs;
  std::string text;  // character data directly inside (for <text>)
};

// A minimal XML check: tags balance, attributes are quoted, '<' and '&' appear only as markup or
// entities. Returns the elements in document order, or an error.
bool parseXml(const std::string& s, std::vector<Element>& out, std::string& error) {
  std::vector<std::string> stack;
  size_t i = 0;
  auto textOk = [&](size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) {
      if (s[k] == '>') return false;
      if (s[k] == '&') {
        const size_t semi = s.find(';', k);
        const std::string ent = s.substr(k, semi == std::string::npos ? 0 : semi - k + 1);
        if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
          return false;
      }
    }
    return true;
  };
  while (i < s.size()) {
    const size_t lt = s.find('<', i);
    const size_t to = lt == std::string::npos ? s.size() : lt;
    if (!textOk(i, to)) {
      error = "bad character data near " + std::to_string(i);
      return false;
    }
    if (!stack.empty() && stack.back() == "text" && !out.empty())
      out.back().text += s.substr(i, to - i);
    if (lt == std::string::npos) break;
    bool quoted = false;
    size_t gt = lt + 1;
    for (; gt < s.size(); ++gt) {
      if (s[gt] == '"') quoted = !quoted;
      if (!quoted && (s[gt] == '>' || s[gt] == '<')) break;
    }
    if (gt >= s.size() || s[gt] != '>') {
      error = "unterminated tag at " + std::to_string(lt);
      return false;
    }
    std::string tag = s.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (tag.empty()) {
      error = "empty tag";
      return false;
    }
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) {
        error = "</" + name + "> does not close <" + (stack.empty() ? "" : stack.back()) + ">";
        return false;
      }
      stack.pop_back();
      continue;
    }
    const bool selfClosing = tag.back() == '/';
    if (selfClosing) tag.pop_back();
    const size_t sp = tag.find(' ');
    Element e{tag.substr(0, sp), sp == std::string::npos ? "" : tag.substr(sp + 1), ""};
    if (std::count(e.attrs.begin(), e.attrs.end(), '"') % 2 != 0) {
      error = "unbalanced quotes in <" + e.name + ">";
      return false;
    }
    out.push_back(e);
    if (!selfClosing) stack.push_back(e.name);
  }
  if (!stack.empty()) {
    error = "<" + stack.back() + "> is not closed";
    return false;
  }
  return true;
}

std::string attr(const Element& e, const std::string& name) {
  const std::string key = name + "=\"";
  size_t p = 0;
  while ((p = e.attrs.find(key, p)) != std::string::npos) {
    if (p == 0 || e.attrs[p - 1] == ' ') {
      const size_t start = p + key.size();
      return e.attrs.substr(start, e.attrs.find('"', start) - start);
    }
    p += key.size();
  }
  return "";
}

class PlotFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.Fonts->Build();
    io.DisplaySize = ImVec2(1200, 900);
    io.DeltaTime = 1.0f / 60.0f;
  }
  void TearDown() override { ImGui::DestroyContext(); }

  // One frame with the test window; `body` draws inside it.
  template <class F>
  void frame(F body) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(10, 20));
    ImGui::SetNextWindowSize(ImVec2(1000, 800));
    ImGui::Begin("test", nullptr, ImGuiWindowFlags_NoSavedSettings);
    body();
    ImGui::End();
    ImGui::EndFrame();
  }
};

constexpr int kLinePoints = 50;

void drawEverything() {
  double xs[kLinePoints], ys[kLinePoints], sx[5] = {3, 9, 17, 28, 41}, sy[5] = {2, 5, 1, 7, 4};
  for (int i = 0; i < kLinePoints; ++i) {
    xs[i] = i;
    ys[i] = 5 + 3 * std::sin(i * 0.2);
  }
  const char* cats[] = {"naive", "tiled", "tiled+streams"};
  const double bars[] = {4, 2.5, 1.2};
  const char* phases[] = {"Host to device", "Kernel", "Device to host"};
  const double ms[] = {1.0, 1.0, 0.4, 2.0, 0.8, 0.6, 1.0, 1.0, 0.3};
  double heat[6 * 8];
  for (int i = 0; i < 6 * 8; ++i)
    heat[i] = i;
  if (plot::BeginPlot("everything", "All <series> & more")) {
    plot::SetupAxes({"x axis"}, {"y axis", Scale::Linear, NAN, NAN, "s"});
    plot::SetupCategories(cats, 3);
    plot::PlotHeatmap("Heat", heat, 6, 8, NAN, NAN);
    plot::PlotLine("Sine <wave> & co", xs, ys, kLinePoints);
    plot::PlotScatter("Measured", sx, sy, 5);
    plot::PlotBars("Bars", bars, 3);
    plot::PlotStackedBars(phases, 3, ms, 3);
    plot::PlotHLine("Peak", 9.5);
    plot::PlotVLine("Marked x", 20);
    plot::PlotVSpan("Good range", 25, 30);
    plot::EndPlot();
  }
}

}  // namespace

TEST_F(PlotFrame, SvgHasEverySeries) {
  frame(drawEverything);
  const std::string svg = plot::LastPlotSvg("everything");
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 80);
  std::vector<Element> elements;
  std::string error;
  ASSERT_TRUE(parseXml(svg, elements, error)) << error;
  ASSERT_FALSE(elements.empty());
  EXPECT_EQ(elements[0].name, "svg");
  EXPECT_FALSE(attr(elements[0], "width").empty());
  EXPECT_FALSE(attr(elements[0], "height").empty());
  EXPECT_EQ(attr(elements[0], "viewBox").rfind("0 0 ", 0), 0u);

  std::vector<std::string> texts;
  for (const Element& e : elements)
    if (e.name == "text") texts.push_back(e.text);
  auto hasText = [&](const std::string& t) {
    return std::find(texts.begin(), texts.end(), t) != texts.end();
  };
  for (const char* label :
       {"Sine &lt;wave&gt; &amp; co", "Measured", "Bars", "Host to device", "Kernel",
        "Device to host", "Heat", "Peak", "Marked x", "Good range", "All &lt;series&gt; &amp; more",
        "x axis", "y axis", "naive", "tiled", "tiled+streams"})
    EXPECT_TRUE(hasText(label)) << "no <text> " << label;
  EXPECT_EQ(svg.find("<wave>"), std::string::npos);

  // The line series is one polyline with all its points, in the first palette colour.
  bool found = false;
  for (const Element& e : elements) {
    if (e.name != "polyline" || attr(e, "stroke") != "#0072b2") continue;
    std::istringstream pts(attr(e, "points"));
    std::string pair;
    int n = 0;
    while (pts >> pair)
      ++n;
    if (n == kLinePoints) found = true;
  }
  EXPECT_TRUE(found) << "no polyline with " << kLinePoints << " points";

  // The heat map's 48 cells (in runs of equal colour), the colour bar, bars and segments.
  int rects = 0, clipped = 0;
  for (const Element& e : elements) {
    rects += e.name == "rect";
    clipped += e.name == "g" && attr(e, "clip-path") == "url(#plot-everything-area)";
  }
  EXPECT_GT(rects, 48 + 3 + 9);
  EXPECT_GE(clipped, 1);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // the reference lines
  EXPECT_NE(svg.find("<circle"), std::string::npos);           // the scatter markers

  // The rectangle for PNG crops is where the plot was drawn.
  const auto rect = plot::LastPlotRect("everything");
  ASSERT_TRUE(rect.has_value());
  EXPECT_GE(rect->x, 10);
  EXPECT_GE(rect->y, 20);
  EXPECT_GT(rect->w, 500);
  EXPECT_GT(rect->h, 100);
  EXPECT_LE(rect->x + rect->w, 1010 + 1);
}

TEST_F(PlotFrame, LogAxesAndHoverReadout) {
  const double xs[] = {1e3, 1e4, 1e5, 1e6, 1e7, -1, 0};
  const double ys[] = {1e8, 3e9, 1.2e10, 2.2e10, 2.4e10, 5, 5};
  auto draw = [&] {
    if (plot::BeginPlot("bandwidth", "Copy bandwidth", ImVec2(600, 300))) {
      plot::SetupAxes({"Size", Scale::Log10, NAN, NAN, "B"},
                      {"Bandwidth", Scale::Log10, NAN, NAN, "B/s"});
      plot::SetupLegend(plot::Legend::Outside);
      plot::PlotLine("Pinned", xs, ys, 7);
      plot::EndPlot();
    }
  };
  frame(draw);
  std::vector<Element> elements;
  std::string error;
  const std::string svg = plot::LastPlotSvg("bandwidth");
  ASSERT_TRUE(parseXml(svg, elements, error)) << error;
  // Non-positive x values are left out: the line has the five positive points.
  bool five = false;
  for (const Element& e : elements) {
    if (e.name != "polyline" || attr(e, "stroke") != "#0072b2") continue;
    std::istringstream pts(attr(e, "points"));
    std::string pair;
    int n = 0;
    while (pts >> pair)
      ++n;
    five |= n == 5;
  }
  EXPECT_TRUE(five);
  EXPECT_NE(svg.find(">1 kB<"), std::string::npos);
  EXPECT_NE(svg.find(">10 GB/s<"), std::string::npos);

  // Hovering the plot shows a tooltip.
  const auto r = plot::LastPlotRect("bandwidth");
  ASSERT_TRUE(r.has_value());
  ImGui::GetIO().MousePos =
      ImVec2(static_cast<float>(r->x + r->w / 2), static_cast<float>(r->y + r->h / 2));
  frame(draw);
  frame(draw);
  ImGuiWindow* tip = ImGui::FindWindowByName("##Tooltip_00");
  ASSERT_NE(tip, nullptr);
  EXPECT_TRUE(tip->Active);
}

// A pinned run's stacked bars (the transfers lesson's "Where the time goes") are drawn, as
// outlines beside this run's, and a pinned run far larger than this one does not squash this one:
// the value axis follows this run, the pinned bars run off its edge.
TEST_F(PlotFrame, PinnedStackedBarsAreOutlinedAndDoNotSquashThisRun) {
  const char* variants[] = {"a", "b"};
  const char* parts[] = {"copy in", "kernel", "copy out"};
  auto draw = [&](double scale) {
    const double v[] = {1 * scale, 2 * scale, 3 * scale, 4 * scale, 5 * scale, 6 * scale};
    if (plot::BeginPlot("stack", "Where the time goes", ImVec2(-1, 240))) {
      plot::SetupAxes({"Time", Scale::Linear, NAN, NAN, "%.1f ms"}, {});
      plot::SetupCategories(variants, 2, plot::AxisId::Y);
      plot::PlotStackedBars(parts, 3, v, 2, true);
      const double wall[] = {10 * scale, 13 * scale}, rows[] = {0, 1};
      plot::PlotScatter("wall time", wall, rows, 2);
      plot::EndPlot();
    }
  };
  frame([&] { draw(100); });  // the run to pin: 100 times longer
  plot::SetPinnedRuns({{"A: 100 calls", plot::SnapshotRecentPlots()}});
  frame([&] { draw(1); });
  frame([&] { draw(1); });
  plot::SetPinnedRuns({});
  std::vector<Element> elements;
  std::string error;
  const std::string svg = plot::LastPlotSvg("stack");
  ASSERT_TRUE(parseXml(svg, elements, error)) << error;
  EXPECT_NE(svg.find("A: 100 calls"), std::string::npos) << "the pinned run's legend entry";
  // The pinned run's 6 segments are outlined in their own colours (1.5 px strokes).
  int outlined = 0;
  double largestTick = 0;
  for (const Element& e : elements) {
    outlined += e.name == "rect" && attr(e, "stroke-width") == "1.5";
    if (e.name == "text" && e.text.size() > 3 && e.text.ends_with(" ms"))
      largestTick = std::max(largestTick, std::atof(e.text.c_str()));
  }
  EXPECT_GE(outlined, 6) << svg;
  // This run's longest bar is 12 ms and its wall time 13: the axis ends near them (at most one
  // span further), not at the pinned run's 1,300 ms.
  EXPECT_GE(largestTick, 12);
  EXPECT_LE(largestTick, 30) << svg;
}

TEST_F(PlotFrame, HorizontalStackedBarsAndDivergingHeatmap) {
  frame([] {
    const char* variants[] = {"a", "b"};
    const char* parts[] = {"one", "two##hidden-suffix", "##not-in-legend"};
    const double v[] = {1, 2, 3, 4, 5, 6};
    if (plot::BeginPlot("hbars", nullptr, ImVec2(-1, 200))) {
      plot::SetupAxes({"Time", Scale::Linear, NAN, NAN, "%.1f ms"}, {});
      plot::SetupCategories(variants, 2, plot::AxisId::Y);
      plot::SetNextColour(5);
      plot::PlotStackedBars(parts, 3, v, 2, true);
      plot::EndPlot();
    }
    std::vector<double> big(300 * 400);
    for (size_t i = 0; i < big.size(); ++i)
      big[i] = std::sin(static_cast<double>(i) * 0.01);
    if (plot::BeginPlot("bigheat", "Averaged", ImVec2(400, 300))) {
      plot::PlotHeatmap("sin", big.data(), 300, 400, -1, 1, plot::Colormap::Diverging);
      plot::EndPlot();
    }
  });
  std::vector<Element> elements;
  std::string error;
  const std::string svg = plot::LastPlotSvg("hbars");
  ASSERT_TRUE(parseXml(svg, elements, error)) << error;
  EXPECT_NE(svg.find(">one<"), std::string::npos);
  EXPECT_NE(svg.find(">two<"), std::string::npos);
  EXPECT_EQ(svg.find("hidden-suffix"), std::string::npos);
  EXPECT_EQ(svg.find("not-in-legend"), std::string::npos);
  EXPECT_NE(svg.find(" ms<"), std::string::npos);
  EXPECT_NE(svg.find("#d55e00"), std::string::npos);  // SetNextColour(5): vermillion

  elements.clear();
  const std::string heat = plot::LastPlotSvg("bigheat");
  ASSERT_TRUE(parseXml(heat, elements, error)) << error;
  int cells = 0;
  for (const Element& e : elements)
    cells += e.name == "rect";
  EXPECT_GT(cells, 1000);
  EXPECT_LE(cells, 256 * 256 + 100);  // averaged down to at most 256 x 256
}

TEST_F(PlotFrame, SaveSvgWritesTheDocument) {
  frame(drawEverything);
  const auto path = std::filesystem::temp_directory_path() / "cudalab_test_plot.svg";
  ASSERT_TRUE(plot::SaveSvg("everything", path.string()).ok());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), plot::LastPlotSvg("everything"));
  std::filesystem::remove(path);

  EXPECT_TRUE(plot::LastPlotSvg("never drawn").empty());
  EXPECT_FALSE(plot::LastPlotRect("never drawn").has_value());
  const auto s = plot::SaveSvg("never drawn", path.string());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("never drawn"), std::string::npos);
  EXPECT_FALSE(plot::SaveSvg("everything", "/nonexistent-dir/x.svg").ok());
}

TEST_F(PlotFrame, ContextMenuCallsTheExportHandler) {
  std::vector<std::pair<std::string, bool>> calls;
  plot::SetExportHandler([&](const char* id, bool svg) { calls.emplace_back(id, svg); });
  const double ys[] = {1, 3, 2};
  auto draw = [&] {
    if (plot::BeginPlot("menu", "Menu", ImVec2(400, 200))) {
      plot::PlotBars("b", ys, 3);
      plot::EndPlot();
    }
  };
  ImGuiIO& io = ImGui::GetIO();
  frame(draw);
  const auto r = plot::LastPlotRect("menu");
  ASSERT_TRUE(r.has_value());
  io.MousePos = ImVec2(static_cast<float>(r->x + 30), static_cast<float>(r->y + 30));
  frame(draw);
  io.MouseDown[1] = true;  // right click: press, then release
  frame(draw);
  io.MouseDown[1] = false;
  frame(draw);
  frame(draw);
  ImGuiContext& g = *ImGui::GetCurrentContext();
  ASSERT_EQ(g.OpenPopupStack.Size, 1);
  ImGuiWindow* popup = g.OpenPopupStack[0].Window;
  ASSERT_NE(popup, nullptr);
  // Click the first item, "Save as SVG".
  io.MousePos = ImVec2(popup->DC.CursorStartPos.x + 5, popup->DC.CursorStartPos.y + 5);
  frame(draw);
  io.MouseDown[0] = true;
  frame(draw);
  io.MouseDown[0] = false;
  frame(draw);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].first, "menu");
  EXPECT_TRUE(calls[0].second);
  plot::SetExportHandler(nullptr);
}

TEST_F(PlotFrame, EmptyTinyAndOddPlotsStillDraw) {
  const double xs[] = {1, 1, 1}, ys[] = {NAN, 2, INFINITY};
  frame([&] {
    if (plot::BeginPlot("empty", nullptr)) plot::EndPlot();
    if (plot::BeginPlot("tiny", "Tiny", ImVec2(12, 9))) {
      plot::PlotLine("l", xs, ys, 3);
      plot::EndPlot();
    }
    if (plot::BeginPlot("onepoint", "One point")) {
      plot::SetupAxes({"x", Scale::Log10}, {"y", Scale::Log10});
      plot::PlotScatter("p", xs, ys, 3);
      plot::PlotLine("none", nullptr, nullptr, 0);
      plot::EndPlot();
    }
  });
  for (const char* id : {"empty", "tiny", "onepoint"}) {
    std::vector<Element> elements;
    std::string error;
    EXPECT_TRUE(parseXml(plot::LastPlotSvg(id), elements, error)) << id << ": " << error;
  }
  // The legend keeps the series without data.
  EXPECT_NE(plot::LastPlotSvg("onepoint").find(">none<"), std::string::npos);
}

// ---- Spans (timelines) -------------------------------------------------------------------------

namespace {

struct Box {
  float x, y, w, h;
};

// Spans are filled like bars, at 0.9 alpha (229 / 255); the legend's swatches are opaque.
const std::string kSpanOpacity = "0.898";

// The <rect>s filled with `fill` at `opacity` ("" = opaque).
std::vector<Box> rectsFilled(const std::vector<Element>& elements, const std::string& fill,
                             const std::string& opacity) {
  std::vector<Box> out;
  for (const Element& e : elements) {
    if (e.name != "rect" || attr(e, "fill") != fill || attr(e, "fill-opacity") != opacity) continue;
    out.push_back({std::stof(attr(e, "x")), std::stof(attr(e, "y")), std::stof(attr(e, "width")),
                   std::stof(attr(e, "height"))});
  }
  return out;
}

// The plot area: the clip path's rectangle.
Box plotArea(const std::vector<Element>& elements) {
  for (size_t i = 0; i + 1 < elements.size(); ++i)
    if (elements[i].name == "clipPath" && elements[i + 1].name == "rect") {
      const Element& e = elements[i + 1];
      return {std::stof(attr(e, "x")), std::stof(attr(e, "y")), std::stof(attr(e, "width")),
              std::stof(attr(e, "height"))};
    }
  return {0, 0, 0, 0};
}

const char* const kStreams[] = {"Stream 1", "Stream 2"};
const int kCopyRows[] = {0, 1, 0};
const double kCopyStarts[] = {0.0, 1e-3, 4e-3};
const double kCopyEnds[] = {1e-3, 2.2e-3, 5e-3};
const int kKernelRows[] = {0, 1};
const double kKernelStarts[] = {1e-3, 2.2e-3};
const double kKernelEnds[] = {3.5e-3, 6e-3};

void drawTimeline() {
  if (plot::BeginPlot("timeline", "Two streams", ImVec2(800, 300))) {
    plot::SetupAxes({"Time", Scale::Linear, 0, NAN, "s"}, {});
    plot::SetupCategories(kStreams, 2, plot::AxisId::Y);
    plot::PlotSpans("Host to device", kCopyRows, kCopyStarts, kCopyEnds, 3);
    plot::SetNextColour(5);
    plot::PlotSpans("Kernel", kKernelRows, kKernelStarts, kKernelEnds, 2);
    plot::PlotSpans("##hidden", kKernelRows, kKernelStarts, kKernelEnds, 0);
    plot::EndPlot();
  }
}

}  // namespace

TEST_F(PlotFrame, SpansAreRectsInTheSeriesColours) {
  frame(drawTimeline);
  std::vector<Element> elements;
  std::string error;
  const std::string svg = plot::LastPlotSvg("timeline");
  ASSERT_TRUE(parseXml(svg, elements, error)) << error;
  // The first series takes palette colour 0 (blue), the second the forced 5 (vermillion); the
  // opacity tells the spans from the legend's swatches.
  const auto copies = rectsFilled(elements, "#0072b2", kSpanOpacity);
  const auto kernels = rectsFilled(elements, "#d55e00", kSpanOpacity);
  EXPECT_EQ(copies.size(), 3u);
  EXPECT_EQ(kernels.size(), 2u);
  EXPECT_EQ(rectsFilled(elements, "#0072b2", "").size(), 1u);  // legend swatches
  EXPECT_EQ(rectsFilled(elements, "#d55e00", "").size(), 1u);
  EXPECT_NE(svg.find(">Host to device<"), std::string::npos);
  EXPECT_NE(svg.find(">Kernel<"), std::string::npos);
  EXPECT_EQ(svg.find("hidden"), std::string::npos);
  EXPECT_NE(svg.find(">Stream 1<"), std::string::npos);
  EXPECT_NE(svg.find(">Stream 2<"), std::string::npos);
  EXPECT_NE(svg.find(" ms<"), std::string::npos);  // the x axis in seconds

  // Start and end map linearly to x (the 1.2 ms copy is 1.2 times as wide as the 1 ms one), spans
  // are 60% of their row high, row 0 lies below row 1.
  ASSERT_EQ(copies.size(), 3u);
  EXPECT_NEAR(copies[0].w * 1.2f, copies[1].w, 1.0f);
  EXPECT_NEAR(copies[0].x + copies[0].w, copies[1].x, 0.5f);  // back to back in time
  EXPECT_FLOAT_EQ(copies[0].y, copies[2].y);
  EXPECT_GT(copies[0].y, copies[1].y);
  const Box area = plotArea(elements);
  ASSERT_GT(area.h, 0);
  EXPECT_NEAR(copies[0].h, 0.6f * area.h / 2, 1.0f);
}

TEST_F(PlotFrame, TinySpansAreAtLeastOnePixelWide) {
  const int rows[] = {0, 0, 1};
  const double x0[] = {0, 0.5, 0.25};
  const double x1[] = {1, 0.5, 0.25 + 1e-9};  // zero and (almost) zero width
  frame([&] {
    if (plot::BeginPlot("tiny_spans", nullptr, ImVec2(600, 200))) {
      plot::PlotSpans("k", rows, x0, x1, 3);
      plot::EndPlot();
    }
  });
  std::vector<Element> elements;
  std::string error;
  ASSERT_TRUE(parseXml(plot::LastPlotSvg("tiny_spans"), elements, error)) << error;
  const auto spans = rectsFilled(elements, "#0072b2", kSpanOpacity);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_GT(spans[0].w, 100);
  EXPECT_GE(spans[1].w, 1.0f);
  EXPECT_GE(spans[2].w, 1.0f);
  // Centred on where they are: the zero-width span sits in the middle of the long one.
  EXPECT_NEAR(spans[1].x + spans[1].w / 2, spans[0].x + spans[0].w / 2, 1.0f);
}

TEST_F(PlotFrame, SpansFitEveryRow) {
  // Three named rows, but spans also on rows 3 and 4: the y axis reaches row 4 too.
  const char* names[] = {"a", "b", "c"};
  const int rows[] = {0, 2, 4, 3};
  const double x0[] = {1, 2, 3, 4};
  const double x1[] = {2, 3, 4, 5};
  frame([&] {
    if (plot::BeginPlot("rows", "Rows", ImVec2(500, 300))) {
      plot::SetupCategories(names, 3, plot::AxisId::Y);
      plot::PlotSpans("s", rows, x0, x1, 4);
      plot::EndPlot();
    }
  });
  std::vector<Element> elements;
  std::string error;
  const std::string svg = plot::LastPlotSvg("rows");
  ASSERT_TRUE(parseXml(svg, elements, error)) << error;
  for (const char* name : {">a<", ">b<", ">c<"})
    EXPECT_NE(svg.find(name), std::string::npos) << name;
  const Box area = plotArea(elements);
  const auto spans = rectsFilled(elements, "#0072b2", kSpanOpacity);
  ASSERT_EQ(spans.size(), 4u);
  const float rowH = area.h / 5;  // rows -0.5 .. 4.5
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_GE(spans[i].y, area.y) << i;
    EXPECT_LE(spans[i].y + spans[i].h, area.y + area.h + 0.01f) << i;
    EXPECT_GE(spans[i].x, area.x) << i;
    EXPECT_LE(spans[i].x + spans[i].w, area.x + area.w + 0.01f) << i;
    // Centred on its row, row 0 at the bottom.
    const float centre = area.y + area.h - (static_cast<float>(rows[i]) + 0.5f) * rowH;
    EXPECT_NEAR(spans[i].y + spans[i].h / 2, centre, 1.0f) << i;
  }
}

TEST_F(PlotFrame, SpansWithoutDataOrOnLogAxesDoNotCrash) {
  const int rows[] = {0, 1, 1};
  const double x0[] = {-1, 10, NAN};
  const double x1[] = {100, 1000, 5};
  frame([&] {
    if (plot::BeginPlot("nospans", "Nothing")) {
      plot::PlotSpans("empty", rows, x0, x1, 0);
      plot::PlotSpans("null rows", nullptr, x0, x1, 3);
      plot::PlotSpans("null starts", rows, nullptr, x1, 3);
      plot::PlotSpans("null ends", rows, x0, nullptr, 3);
      plot::PlotSpans(nullptr, nullptr, nullptr, nullptr, -2);
      plot::EndPlot();
    }
    if (plot::BeginPlot("logspans", "Log x")) {
      plot::SetupAxes({"x", Scale::Log10}, {});
      plot::PlotSpans("s", rows, x0, x1, 3);
      plot::EndPlot();
    }
  });
  std::vector<Element> elements;
  std::string error;
  const std::string empty = plot::LastPlotSvg("nospans");
  ASSERT_TRUE(parseXml(empty, elements, error)) << error;
  EXPECT_NE(empty.find(">empty<"), std::string::npos);  // the legend keeps them
  EXPECT_NE(empty.find(">null rows<"), std::string::npos);
  EXPECT_TRUE(rectsFilled(elements, "#0072b2", kSpanOpacity).empty());

  elements.clear();
  ASSERT_TRUE(parseXml(plot::LastPlotSvg("logspans"), elements, error)) << error;
  // The NaN start is left out; the span from -1 starts at the axis minimum.
  const auto spans = rectsFilled(elements, "#0072b2", kSpanOpacity);
  ASSERT_EQ(spans.size(), 2u);
  const Box area = plotArea(elements);
  EXPECT_NEAR(spans[0].x, area.x, 0.5f);
}

TEST_F(PlotFrame, SpanReadoutShowsRowStartEndAndDuration) {
  frame(drawTimeline);
  std::vector<Element> elements;
  std::string error;
  ASSERT_TRUE(parseXml(plot::LastPlotSvg("timeline"), elements, error)) << error;
  const auto copies = rectsFilled(elements, "#0072b2", kSpanOpacity);
  ASSERT_EQ(copies.size(), 3u);
  // Over the second copy (Stream 2, 1 ms .. 2.2 ms), with the tooltip's text logged to the
  // clipboard (ImGui::End of the tooltip window finishes the log).
  const auto r = plot::LastPlotRect("timeline");
  ASSERT_TRUE(r.has_value());
  ImGui::GetIO().MousePos = ImVec2(static_cast<float>(r->x) + copies[1].x + copies[1].w / 2,
                                   static_cast<float>(r->y) + copies[1].y + copies[1].h / 2);
  frame(drawTimeline);
  frame([] {
    ImGui::LogToClipboard();
    drawTimeline();
    ImGui::LogFinish();
  });
  const char* clip = ImGui::GetClipboardText();
  const std::string logged = clip ? clip : "";
  for (const char* line :
       {"Host to device", "Stream 2", "start: 1 ms", "end: 2.2 ms", "duration: 1.2 ms"})
    EXPECT_NE(logged.find(line), std::string::npos) << line << " not in:\n" << logged;
}

// A heat map's read-out names both axes, its numbered rows too: the memory lesson's map said a
// bare "2" for its row (a category's name alone, as a bar chart's "Implicit copies" says itself).
TEST_F(PlotFrame, HeatmapReadoutNamesItsAxes) {
  static const char* rows[] = {"0", "1", "2", "3"};
  static const double values[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  auto draw = [] {
    if (plot::BeginPlot("heat", "", ImVec2(400, 300))) {
      plot::SetupAxes({"warp", plot::Scale::Linear, -0.5, 3.5, "%.0f"},
                      {"row of 32 warps", plot::Scale::Linear, -0.5, 3.5, "%.0f"});
      plot::SetupCategories(rows, 4, plot::AxisId::Y);
      plot::PlotHeatmap("sectors", values, 4, 4, 1, 32);
      plot::EndPlot();
    }
  };
  frame(draw);
  const auto r = plot::LastPlotRect("heat");
  ASSERT_TRUE(r.has_value());
  // Somewhere inside the cells (the plot area is the rectangle's middle).
  ImGui::GetIO().MousePos =
      ImVec2(static_cast<float>(r->x + r->w / 2), static_cast<float>(r->y + r->h / 2));
  frame(draw);
  frame([&] {
    ImGui::LogToClipboard();
    draw();
    ImGui::LogFinish();
  });
  const char* clip = ImGui::GetClipboardText();
  const std::string logged = clip ? clip : "";
  for (const char* line : {"sectors", "warp: ", "row of 32 warps: ", "value: "})
    EXPECT_NE(logged.find(line), std::string::npos) << line << " not in:\n" << logged;
}

// An outside legend stays beside a wide plot and goes under a narrow one (a projector's scale),
// in columns, below the x axis's label; every entry is still drawn.
TEST_F(PlotFrame, AnOutsideLegendGoesUnderANarrowPlot) {
  auto draw = [](const char* id, ImVec2 size) {
    const char* parts[] = {"Host to device", "Kernel", "Device to host", "Another long part"};
    const double v[] = {1, 2, 3, 4, 2, 1, 1, 1};
    if (plot::BeginPlot(id, "", size)) {
      plot::SetupAxes({"time"}, {nullptr});
      plot::SetupLegend(plot::Legend::Outside);
      plot::PlotStackedBars(parts, 4, v, 2, true);
      plot::EndPlot();
    }
  };
  frame([&] {
    draw("wide", ImVec2(900, 300));
    draw("narrow", ImVec2(360, 300));
  });
  auto yOf = [](const std::string& svg, const std::string& text) {
    std::vector<Element> elements;
    std::string error;
    EXPECT_TRUE(parseXml(svg, elements, error)) << error;
    for (const Element& e : elements)
      if (e.name == "text" && e.text == text) return std::stod(attr(e, "y"));
    ADD_FAILURE() << "no <text> " << text;
    return 0.0;
  };
  const std::string wide = plot::LastPlotSvg("wide"), narrow = plot::LastPlotSvg("narrow");
  ASSERT_FALSE(wide.empty());
  ASSERT_FALSE(narrow.empty());
  EXPECT_LT(yOf(wide, "Another long part"), yOf(wide, "time"));
  EXPECT_GT(yOf(narrow, "Host to device"), yOf(narrow, "time"));
  EXPECT_GT(yOf(narrow, "Another long part"), yOf(narrow, "time"));
  // Two entries share a row under the narrow plot.
  EXPECT_DOUBLE_EQ(yOf(narrow, "Host to device"), yOf(narrow, "Kernel"));
}
