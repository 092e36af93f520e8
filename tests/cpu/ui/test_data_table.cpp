// Tables of measurements at projector scales (ui/data_table): rendered through Mesa's EGL at the
// window sizes and UI scales the app offers, no shown column is ever narrower than its contents,
// columns give way when the width is short and come back when it is not; without a GPU the columns
// that wait for a measurement give way first, whatever their priority.
#include <gtest/gtest.h>

#include <ios>
#include <string>

#include "common/runtime_info.hpp"
#include "platform/headless_egl.hpp"
#include "lessons/registry.hpp"
#include "ui/data_table.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "tests/without_gpu.hpp"

namespace cudalab {
namespace {

// The ladder table's report after rendering the matmul lesson at w x h and `scale`.
DataTableReport ladderAt(int w, int h, float scale) {
  Settings settings;
  settings.lesson = "matmul";
  settings.uiScale = scale;
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  UiRenderer renderer(shell, settings);
  EXPECT_TRUE(renderer.init(nullptr).ok());
  // The ladder's panel: a capture draws a canvas tall enough for all of it (below the fold at
  // large scales, where ImGui would skip a table it cannot see).
  const Result<Image> img = renderer.capture(w, h, 1, false, "ladder", 3, 10);
  EXPECT_TRUE(img.ok()) << img.status().sentence();
  for (const DataTableReport& r : dataTableReports())
    if (r.id == "##ladder") return r;
  ADD_FAILURE() << "the ladder table was not drawn at " << w << "x" << h << ", scale " << scale;
  return {};
}

// Every size and scale in one test: each render of a full-HD canvas at projector scale costs
// seconds on a CPU renderer.
TEST(DataTable, NoColumnIsCutAndColumnsGiveWayOnlyWhenTheWidthIsShort) {
  HeadlessContext gl;
  if (Status s = gl.create(-1); !s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  DataTableReport wide, projector;
  for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{1920, 1080}})
    for (const float scale : {1.0f, 1.5f, 2.0f, 3.0f}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " at " + std::to_string(scale));
      const DataTableReport r = ladderAt(w, h, scale);
      EXPECT_FALSE(r.clipped);
      // Without a GPU the measured columns (milliseconds to "checked": 4 to 10) are empty and
      // give way before the launch's shape (0 to 3): while one of them shows, all of those do.
      EXPECT_TRUE(r.shownColumns & 1u) << "the step";
      const unsigned long long measured = 0x7F0, launch = 0xF;
      if (r.shownColumns & measured) {
        EXPECT_EQ(~r.shownColumns & launch, 0u) << std::hex << r.shownColumns;
      }
      EXPECT_EQ(r.shown + r.hiddenToFit, 11);
      EXPECT_EQ(r.hiddenByUser, 0);
      if (w == 1920 && scale == 1.0f) wide = r;
      if (w == 1280 && scale == 3.0f) projector = r;
    }
  // Room for every column on a full-HD screen at scale 1; at scale 3 on 1280 x 720 some give way.
  EXPECT_EQ(wide.hiddenToFit, 0);
  EXPECT_FALSE(wide.scrolls);
  EXPECT_GT(projector.hiddenToFit, 0);
  EXPECT_LT(projector.shown, wide.shown);
}

}  // namespace
}  // namespace cudalab
