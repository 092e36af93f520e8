// Every lesson at the window sizes and UI scales a classroom uses (1280 x 720 and 1920 x 1080; UI
// scales 1, 1.5, 2 and 3), through Mesa's EGL without a GPU: every panel is drawn (each on a
// canvas tall enough for it), and no shown column of any data table is narrower than its
// contents. Themes change colours, not geometry: the dark theme runs the whole matrix, the light
// one the projector's corner of it (1280 x 720 at scales 2 and 3).
//
// CUDALAB_TEST_PICTURES=DIR keeps every panel's picture, to look at (tools/projector_matrix.sh).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
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

namespace cudalab {
namespace {

RuntimeInfo withoutGpu() {
  RuntimeInfo rt;
  rt.status = Status::error("hidden from this test");
  return rt;
}

struct Combo {
  int w, h;
  float scale;
  const char* theme;
};

TEST(ProjectorMatrix, NoTableCellIsClippedInAnyLessonAtAnySizeOrScale) {
  HeadlessContext gl;
  if (Status s = gl.create(-1); !s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  const char* dir = std::getenv("CUDALAB_TEST_PICTURES");
  std::vector<Combo> combos;
  for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{1920, 1080}})
    for (const float scale : {1.0f, 1.5f, 2.0f, 3.0f})
      combos.push_back({w, h, scale, "dark"});
  combos.push_back({1280, 720, 2.0f, "light"});
  combos.push_back({1280, 720, 3.0f, "light"});
  int tablesChecked = 0;
  for (const Combo& c : combos) {
    for (const LessonEntry& e : lessonRegistry()) {
      const std::string where = std::string(e.info->id) + " at " + std::to_string(c.w) + "x" +
                                std::to_string(c.h) + ", scale " + std::to_string(c.scale) + ", " +
                                c.theme;
      SCOPED_TRACE(where);
      Settings settings;
      settings.lesson = e.info->id;
      settings.uiScale = c.scale;
      settings.theme = c.theme;
      Shell shell(settings, withoutGpu(), "test", /*headless=*/true);
      UiRenderer renderer(shell, settings);
      ASSERT_TRUE(renderer.init(nullptr).ok());
      // The lesson as it opens (its first CPU work done), then each of its panels whole.
      Result<Image> window = renderer.capture(c.w, c.h, 1, false, "", 3, 5);
      ASSERT_TRUE(window.ok()) << window.status().sentence();
      std::set<std::string> clipped;
      auto collect = [&] {
        for (const DataTableReport& r : dataTableReports()) {
          ++tablesChecked;
          if (r.clipped) clipped.insert(r.id);
        }
      };
      collect();
      const std::vector<std::string> panels = shell.panels().ids();
      for (const std::string& panel : panels) {
        Result<Image> img = renderer.capture(c.w, c.h, 1, false, panel, 2, 0);
        if (!img) continue;  // a panel that left with the larger canvas (drawn only when short)
        collect();
        if (dir)
          (void)writePng(*img, std::string(dir) + "/" + e.info->id + "-" + panel + "-" +
                                   std::to_string(c.w) + "-" + std::to_string(int(c.scale * 10)) +
                                   "-" + c.theme + ".png");
      }
      for (const std::string& id : clipped)
        ADD_FAILURE() << "the table " << id << " cut a column";
      for (const auto& l : shell.lessons())
        l->cancelAll();
    }
  }
  EXPECT_GT(tablesChecked, 100);
}

}  // namespace
}  // namespace cudalab
