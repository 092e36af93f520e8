// Rendering through Mesa's EGL (no window, no GPU): a 2x figure exported from a UI that has been
// running at 1x is identical to a fresh 2x render (fonts rasterised again, layout settled), and a
// panel figure contains the whole panel even when it is taller than the view.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "common/runtime_info.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "platform/interop.hpp"
#include "platform/shader_pass.hpp"
#include "shaders.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "tests/without_gpu.hpp"
#include "lessons/registry.hpp"

namespace cudalab {
namespace {

struct Ui {
  Settings settings;
  Shell shell;
  UiRenderer renderer;
  explicit Ui(const char* lesson)
      : settings(makeSettings(lesson)),
        shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true),
        renderer(shell, settings) {}
  static Settings makeSettings(const char* lesson) {
    Settings s;
    s.lesson = lesson;
    return s;
  }
};

class Render : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = gl_.create(-1);
    if (!s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  }
  HeadlessContext gl_;
};

TEST_F(Render, ExportAt2xAfterRunningAt1xEqualsAFresh2xRender) {
  Image exported, fresh;
  {
    Ui ui("launch-config");
    ASSERT_TRUE(ui.renderer.init(nullptr).ok());
    ASSERT_TRUE(ui.renderer.capture(900, 600, 1, false, "", 3, 10).ok());
    Result<Image> img = ui.renderer.capture(900, 600, 2, false, "", 3, 10);
    ASSERT_TRUE(img.ok()) << img.status().sentence();
    exported = *img;
  }
  {
    Ui ui("launch-config");
    ASSERT_TRUE(ui.renderer.init(nullptr).ok());
    Result<Image> img = ui.renderer.capture(900, 600, 2, false, "", 3, 10);
    ASSERT_TRUE(img.ok()) << img.status().sentence();
    fresh = *img;
  }
  ASSERT_EQ(exported.width, 1800);
  ASSERT_EQ(exported.height, 1200);
  ASSERT_EQ(fresh.width, 1800);
  size_t differing = 0;
  for (size_t i = 0; i < fresh.rgba.size(); i += 4)
    differing += std::memcmp(&fresh.rgba[i], &exported.rgba[i], 4) != 0;
  EXPECT_EQ(differing, 0u);
}

// Presentation mode: the lesson's view fills the canvas (no menu, sidebar or status bar) at the
// presentation scale, and leaving it brings the sidebar back at the normal scale.
TEST_F(Render, PresentationModeShowsTheLessonAloneAtItsScale) {
  Ui ui("launch-config");
  ui.settings.uiScale = 1.0f;
  ui.settings.presentationScale = 2.5f;
  ASSERT_TRUE(ui.renderer.init(nullptr).ok());
  ui.shell.setPresenting(true);
  EXPECT_FLOAT_EQ(ui.shell.uiScale(), 2.5f);
  ASSERT_TRUE(ui.renderer.capture(1280, 720, 1, false, "", 3, 10).ok());
  PixelRect view = ui.shell.mainViewRect();
  EXPECT_EQ(view.x, 0);
  EXPECT_EQ(view.y, 0);
  EXPECT_EQ(view.w, 1280);
  EXPECT_EQ(view.h, 720);
  ui.shell.setPresenting(false);
  EXPECT_FLOAT_EQ(ui.shell.uiScale(), 1.0f);
  ASSERT_TRUE(ui.renderer.capture(1280, 720, 1, false, "", 3, 10).ok());
  view = ui.shell.mainViewRect();
  EXPECT_GT(view.x, 0);             // the sidebar is back
  EXPECT_GT(view.y, 0);             // under the menu bar
  EXPECT_LT(view.y + view.h, 720);  // above the status bar
}

// The sidebar folded to a strip (View > Sidebar, Ctrl+B) leaves the lesson's view nearly the whole
// width at projector scale, and unfolded it takes its share again.
TEST_F(Render, AFoldedSidebarIsANarrowStrip) {
  Ui ui("matmul");
  ui.settings.uiScale = 2.0f;
  ASSERT_TRUE(ui.renderer.init(nullptr).ok());
  ASSERT_TRUE(ui.renderer.capture(1280, 720, 1, false, "", 3, 10).ok());
  const int open = ui.shell.mainViewRect().x;
  EXPECT_GT(open, 200);
  ui.settings.sidebarCollapsed = true;
  ASSERT_TRUE(ui.renderer.capture(1280, 720, 1, false, "", 3, 10).ok());
  const PixelRect folded = ui.shell.mainViewRect();
  EXPECT_GT(folded.x, 0);
  EXPECT_LT(folded.x, 100);  // one button's width at scale 2
  EXPECT_EQ(folded.x + folded.w, 1280);
}

TEST_F(Render, APanelTallerThanTheViewIsExportedWhole) {
  Ui ui("device");
  ASSERT_TRUE(ui.renderer.init(nullptr).ok());
  // 400 logical pixels high: the architecture table (about 25 rows) cannot fit.
  Result<Image> img = ui.renderer.capture(900, 400, 1, false, "architectures", 3, 10);
  ASSERT_TRUE(img.ok()) << img.status().sentence();
  EXPECT_GT(img->height, 400) << "the canvas grew to hold the panel";
  EXPECT_GT(distinctColours(*img), 16);
  Result<Image> none = ui.renderer.capture(900, 400, 1, false, "no-such-panel", 3, 10);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("architectures"), std::string::npos)
      << "the message lists the panels there are: " << none.status().message();
}

TEST_F(Render, ScalarFieldsAreColouredWithViridisByTheShaderFromShadersDir) {
  // A float field rising left to right, uploaded the way CPU models upload pictures.
  const int w = 64, h = 4;
  std::vector<float> field(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      field[static_cast<size_t>(y) * w + x] = static_cast<float>(x);
  InteropImage img;
  ASSERT_TRUE(img.create(w, h, PixelFormat::R32F).ok());
  ASSERT_TRUE(img.uploadFromHost(field.data()).ok());
  ShaderPass pass;
  ASSERT_TRUE(pass.init(shaders::field_frag).ok());
  ASSERT_TRUE(pass.render(img.texture(), w, h,
                          [](unsigned program) {
                            glUniform1f(glGetUniformLocation(program, "lo"), 0.0f);
                            glUniform1f(glGetUniformLocation(program, "hi"), 63.0f);
                          })
                  .ok());
  Image out = pass.target().read();
  ASSERT_EQ(out.width, w);
  auto near = [](const std::uint8_t* px, int r, int g, int b) {
    return std::abs(px[0] - r) <= 3 && std::abs(px[1] - g) <= 3 && std::abs(px[2] - b) <= 3;
  };
  // Viridis runs from dark purple (68, 1, 84) to yellow (253, 231, 37).
  EXPECT_TRUE(near(&out.rgba[0], 68, 1, 84)) << int(out.rgba[0]) << "," << int(out.rgba[1]);
  EXPECT_TRUE(near(&out.rgba[(w - 1) * 4], 253, 231, 37))
      << int(out.rgba[(w - 1) * 4]) << "," << int(out.rgba[(w - 1) * 4 + 1]);
  // Monotone in brightness along the row (viridis is perceptually ordered).
  int previous = -1;
  for (int x = 0; x < w; x += 8) {
    const std::uint8_t* px = &out.rgba[static_cast<size_t>(x) * 4];
    const int luma = px[0] * 3 + px[1] * 6 + px[2];
    EXPECT_GT(luma, previous) << x;
    previous = luma;
  }
}

}  // namespace
}  // namespace cudalab
