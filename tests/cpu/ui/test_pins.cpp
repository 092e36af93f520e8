// Runs side by side (ui/pins.hpp), through the shell and the renderer without a GPU: the
// reduction's CPU sums pinned, the parameters changed and run again; the pinned run is named by
// the parameter that differs, the "Runs side by side" table shows both runs with nothing cut,
// the plot draws the pinned series dashed (in its SVG too), the export has every run, and a fifth
// pin or a pin of nothing measured is refused with a sentence.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "platform/headless_egl.hpp"
#include "lessons/registry.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "tests/without_gpu.hpp"

namespace cudalab {
namespace {

class Pins : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = gl_.create(-1);
    if (!s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  }
  HeadlessContext gl_;
};

TEST_F(Pins, ARunPinnedShowsBesideTheNextInTheTableAndThePlots) {
  Settings settings;
  settings.lesson = "reduction";
  settings.uiScale = 1.5f;
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  UiRenderer renderer(shell, settings);
  ASSERT_TRUE(renderer.init(nullptr).ok());
  Lesson& l = shell.current();
  // Nothing measured yet: refused.
  EXPECT_FALSE(shell.pins().pin(l).ok());
  ASSERT_TRUE(setParameter(l, "n", 200003).ok());
  // The first frames start the CPU's sums (no GPU); the capture waits for them.
  ASSERT_TRUE(renderer.capture(1280, 720, 1, false, "", 3, 120).ok());
  ASSERT_FALSE(l.comparable().empty());
  shell.pinCurrent();
  ASSERT_EQ(shell.pins().count("reduction"), 1);
  EXPECT_TRUE(shell.lastError().ok()) << shell.lastError().sentence();

  ASSERT_TRUE(setParameter(l, "n", 1000).ok());
  ASSERT_TRUE(l.startAction("cpu"));
  ASSERT_TRUE(renderer.capture(1280, 720, 1, false, "", 3, 120).ok());
  const std::vector<std::string> names = shell.pins().names(l);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "A: N 200,003") << "named by the parameter that differs";

  // The table: on screen, nothing cut, both runs in it.
  ASSERT_TRUE(shell.panels().rect("pins").has_value());
  bool found = false;
  for (const DataTableReport& r : dataTableReports())
    if (r.id.find("##pins") != std::string::npos) {
      found = true;
      EXPECT_FALSE(r.clipped);
    }
  EXPECT_TRUE(found);
  // The accuracy plot draws the pinned run's bars beside today's, as outlines (its legend names
  // it), and so does its SVG.
  {
    // Tall enough that the accuracy panel, under the ladder and the sweep, is in the window.
    Result<Image> shot = renderer.capture(1280, 1600, 1, false, "plot:reduction_errors", 3, 10);
    ASSERT_TRUE(shot.ok()) << shot.status().sentence();
  }
  const std::string svg = plot::LastPlotSvg("reduction_errors");
  ASSERT_FALSE(svg.empty());
  EXPECT_NE(svg.find("A: N 200,003"), std::string::npos) << "the pinned run's legend entry";

  // CUDALAB_TEST_PICTURES=DIR keeps the panels as PNGs, to look at.
  if (const char* dir = std::getenv("CUDALAB_TEST_PICTURES")) {
    for (const char* panel : {"pins", "accuracy"}) {
      Result<Image> img = renderer.capture(1280, 720, 1, false, panel, 3, 10);
      ASSERT_TRUE(img.ok()) << panel;
      ASSERT_TRUE(writePng(*img, std::string(dir) + "/pins-" + panel + ".png").ok());
    }
    Result<Image> window = renderer.capture(1280, 720, 1, false, "", 3, 10);
    ASSERT_TRUE(window.ok());
    ASSERT_TRUE(writePng(*window, std::string(dir) + "/pins-window.png").ok());
  }

  // The export has both runs, with their parameters and rows.
  const nlohmann::json j = shell.pins().comparisonJson(l);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["name"], "A: N 200,003");
  EXPECT_EQ(j["runs"][0]["parameters"]["n"], 200003);
  EXPECT_EQ(j["runs"][1]["name"], "now");
  EXPECT_EQ(j["runs"][1]["parameters"]["n"], 1000);
  EXPECT_FALSE(j["runs"][0]["rows"].empty());
  const std::string csv = shell.pins().comparisonCsv(l);
  EXPECT_NE(csv.find("\"A: N 200,003\""), std::string::npos);
  EXPECT_NE(csv.find("\"now\""), std::string::npos);

  // Four at most; unpinning frees a place.
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(shell.pins().pin(l).ok());
  const Status fifth = shell.pins().pin(l);
  EXPECT_FALSE(fifth.ok());
  EXPECT_NE(fifth.message().find("Four runs are pinned"), std::string::npos);
  shell.pins().unpin("reduction", 0);
  EXPECT_EQ(shell.pins().count("reduction"), 3);
  EXPECT_TRUE(shell.pins().pin(l).ok());
  shell.pins().clear("reduction");
  EXPECT_EQ(shell.pins().count("reduction"), 0);
}

// The transfers lesson's "Where the time goes" (stacked bars and dots, the GPU modelled without
// one): a run of 100 calls pinned beside one of 1 shows its bars as outlines, and this run is not
// squashed by it.
TEST_F(Pins, APinnedRunOfTheTransfersShowsItsBarsAndLeavesTheAxisToThisRun) {
  Settings settings;
  settings.lesson = "transfers";
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  UiRenderer renderer(shell, settings);
  ASSERT_TRUE(renderer.init(nullptr).ok());
  Lesson& l = shell.current();
  ASSERT_TRUE(setParameter(l, "n", 100000).ok());
  ASSERT_TRUE(setParameter(l, "calls", 100).ok());
  ASSERT_TRUE(l.startAction("modes"));
  ASSERT_TRUE(renderer.capture(1280, 720, 1, false, "", 3, 120).ok());
  shell.pinCurrent();
  ASSERT_EQ(shell.pins().count("transfers"), 1) << shell.lastError().sentence();
  ASSERT_TRUE(setParameter(l, "calls", 1).ok());
  ASSERT_TRUE(l.startAction("modes"));
  ASSERT_TRUE(renderer.capture(1280, 720, 1, false, "plot:transfers_modes", 3, 120).ok());
  const std::string svg = plot::LastPlotSvg("transfers_modes");
  ASSERT_FALSE(svg.empty());
  EXPECT_NE(svg.find("A: Kernel calls 100"), std::string::npos) << svg.substr(0, 4000);
  EXPECT_NE(svg.find("stroke-width=\"1.5\""), std::string::npos) << "outlined pinned bars";
  if (const char* dir = std::getenv("CUDALAB_TEST_PICTURES")) {
    Result<Image> img = renderer.capture(1280, 720, 1, false, "transfers_modes", 3, 10);
    ASSERT_TRUE(img.ok());
    ASSERT_TRUE(writePng(*img, std::string(dir) + "/pins-transfers-modes.png").ok());
  }
}

}  // namespace
}  // namespace cudalab
