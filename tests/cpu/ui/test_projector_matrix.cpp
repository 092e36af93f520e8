// Every lesson at the window sizes and UI scales a classroom uses (1280 x 720 and 1920 x 1080; UI
// scales 1, 1.5, 2 and 3), in both themes, without a GPU: every table of every panel is laid out
// at the window's width (on a canvas tall enough to hold every panel at once, so that ImGui does
// not skip a table below the fold), and no shown column of any data table is narrower than its
// contents.
//
// CUDALAB_TEST_PICTURES=DIR also draws every panel (each on a canvas tall enough for it) and keeps
// the pictures, to look at: about 500 of them, minutes on a CPU renderer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "common/runtime_info.hpp"
#include "lessons/registry.hpp"
#include "platform/headless_egl.hpp"
#include "platform/image.hpp"
#include "ui/data_table.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "tests/without_gpu.hpp"

namespace cudalab {
namespace {

TEST(ProjectorMatrix, NoTableCellIsClippedInAnyLessonAtAnySizeOrScale) {
  HeadlessContext gl;
  if (Status s = gl.create(-1); !s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  const char* dir = std::getenv("CUDALAB_TEST_PICTURES");
  int tablesChecked = 0;
  // One app for every size, scale and theme (the renderer applies the settings each frame, as the
  // View menu does): each lesson's work without a GPU (seconds for precision's sweep) runs once.
  Settings settings;
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  UiRenderer renderer(shell, settings);
  ASSERT_TRUE(renderer.init(nullptr).ok());
  for (const char* theme : {"dark", "light"})
    for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{1920, 1080}})
      for (const float scale : {1.0f, 1.5f, 2.0f, 3.0f}) {
        settings.uiScale = scale;
        settings.theme = theme;
        for (const LessonEntry& e : lessonRegistry()) {
          const std::string where = std::string(e.info->id) + " at " + std::to_string(w) + "x" +
                                    std::to_string(h) + ", scale " + std::to_string(scale) + ", " +
                                    theme;
          SCOPED_TRACE(where);
          ASSERT_TRUE(shell.selectLesson(e.info->id));
          // The width of the window, and room for every panel below each other.
          renderer.layoutOnly(w, 40 * h, 8);
          std::set<std::string> clipped;
          for (const DataTableReport& r : dataTableReports()) {
            ++tablesChecked;
            if (r.clipped) clipped.insert(r.id);
          }
          for (const std::string& id : clipped)
            ADD_FAILURE() << "the table " << id << " cut a column";
          if (dir)
            for (const std::string& panel : shell.panels().ids()) {
              Result<Image> img = renderer.capture(w, h, 1, false, panel, 2, 0);
              if (img)
                (void)writePng(*img, std::string(dir) + "/" + e.info->id + "-" + panel + "-" +
                                         std::to_string(w) + "-" + std::to_string(int(scale * 10)) +
                                         "-" + theme + ".png");
            }
        }
      }
  EXPECT_GT(tablesChecked, 150);
}

}  // namespace
}  // namespace cudalab
