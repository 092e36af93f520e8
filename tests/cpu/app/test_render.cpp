// Rendering through Mesa's EGL (no window, no GPU): a 2x figure exported from a UI that has been
// running at 1x is identical to a fresh 2x render (fonts rasterised again, layout settled), and a
// panel figure contains the whole panel even when it is taller than the view.
#include <gtest/gtest.h>

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/runtime_info.hpp"
#include "plans/preset.hpp"
#include "platform/framebuffer.hpp"
#include "platform/gl.hpp"
#include "platform/image.hpp"
#include "platform/headless_egl.hpp"
#include "platform/interop.hpp"
#include "platform/shader_pass.hpp"
#include "shaders.hpp"
#include "ui/plot/plot.hpp"
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

// A UI drawn frame by frame into a framebuffer of its own, its input set through ImGui's IO as a
// mouse would set it (the tests below click, right-click and turn the wheel).
struct DrivenUi {
  DrivenUi(Ui& u, int width, int height) : ui(u), w(width), h(height) {}
  Ui& ui;
  int w, h;
  Framebuffer fb;
  bool start() {
    if (!ui.renderer.init(nullptr).ok() || !fb.resize(w, h).ok()) return false;
    fb.bind();
    return true;
  }
  void frame() { ui.renderer.frame(w, h, 1.0f, true, false, 1.0f / 60.0f); }
  ~DrivenUi() { Framebuffer::unbind(); }
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

// A plot's right-click menu saves it as SVG and as PNG, as the README promises for slides (both
// items were greyed out: nothing ever installed the menu's handler). Driven through ImGui's input
// as the mouse would: right-click the plot, click the item.
TEST_F(Render, APlotsMenuSavesItAsSvgAndAsPng) {
  Ui ui("precision");
  const std::string dir = ::testing::TempDir() + "cudalab-plot-menu";
  std::filesystem::remove_all(dir);
  ui.settings.exportDir = dir;
  constexpr int kW = 1600, kH = 1000;
  DrivenUi driven{ui, kW, kH};
  ASSERT_TRUE(driven.start());
  ImGuiIO& io = ImGui::GetIO();
  auto frame = [&] { driven.frame(); };
  for (int i = 0; i < 600 && (i < 5 || ui.shell.busy()); ++i)
    frame();
  frame();
  // A plot wholly on screen.
  std::string id;
  PixelRect rect{};
  for (const std::string& p : plot::RecentPlotIds()) {
    const auto r = plot::LastPlotRect(p.c_str());
    if (r && r->x >= 0 && r->y >= 0 && r->x + r->w <= kW && r->y + r->h <= kH - 40) {
      id = p;
      rect = *r;
      break;
    }
  }
  ASSERT_FALSE(id.empty()) << "no plot on screen";
  auto click = [&](ImVec2 at, int button) {
    io.MousePos = at;
    frame();
    io.MouseDown[button] = true;
    frame();
    io.MouseDown[button] = false;
    frame();
    frame();
  };
  // The menu's items, in order: "Save as SVG", "Save as PNG".
  auto chooseItem = [&](int index) {
    click(ImVec2(static_cast<float>(rect.x + rect.w / 2), static_cast<float>(rect.y + rect.h / 2)),
          1);
    ImGuiContext& g = *ImGui::GetCurrentContext();
    ASSERT_EQ(g.OpenPopupStack.Size, 1) << "the plot's menu did not open";
    ImGuiWindow* popup = g.OpenPopupStack[0].Window;
    ASSERT_NE(popup, nullptr);
    const float itemH = ImGui::GetFrameHeight();
    click(ImVec2(popup->DC.CursorStartPos.x + 10,
                 popup->DC.CursorStartPos.y + itemH * (static_cast<float>(index) + 0.5f)),
          0);
  };
  ASSERT_NO_FATAL_FAILURE(chooseItem(0));
  std::string svg;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec))
    if (f.path().extension() == ".svg") svg = f.path().string();
  ASSERT_FALSE(svg.empty()) << "no SVG saved; status: " << ui.shell.statusText();
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  EXPECT_NE(ui.shell.statusText().find(svg), std::string::npos) << ui.shell.statusText();
  ASSERT_NO_FATAL_FAILURE(chooseItem(1));
  // The window's loop (commands/main.cpp) renders the job after the frame, as here.
  std::optional<ExportJob> job = ui.shell.takeExportJob();
  ASSERT_TRUE(job.has_value()) << "Save as PNG asked for nothing";
  EXPECT_EQ(job->panelId, std::string(kPlotPrefix) + id);
  Result<Image> img =
      ui.renderer.capture(kW, kH, job->pixelScale, job->transparent, job->panelId, 3, 5.0);
  ASSERT_TRUE(img.ok()) << img.status().sentence();
  EXPECT_NEAR(img->width, rect.w * job->pixelScale, 2 * job->pixelScale);
  EXPECT_NEAR(img->height, rect.h * job->pixelScale, 2 * job->pixelScale);
  ASSERT_TRUE(writePng(*img, job->path).ok());
  Result<Image> back = readPng(job->path);
  ASSERT_TRUE(back.ok()) << back.status().sentence();
  EXPECT_EQ(back->width, img->width);
}

// Each lesson opens at its top the first time, and where the learner left it when they come back
// (one view for all opened memory, matmul, reduction, stencil and the playground mid-page, at the
// previous lesson's scroll). The wheel is turned through ImGui's input, as the mouse does.
TEST_F(Render, EachLessonOpensAtItsTopAndKeepsItsOwnScroll) {
  Ui ui("launch-config");
  constexpr int kW = 1280, kH = 720;
  DrivenUi driven{ui, kW, kH};
  ASSERT_TRUE(driven.start());
  ImGuiIO& io = ImGui::GetIO();
  auto frame = [&] { driven.frame(); };
  for (int i = 0; i < 5; ++i)
    frame();
  const PixelRect view = ui.shell.mainViewRect();
  io.MousePos =
      ImVec2(static_cast<float>(view.x + view.w / 2), static_cast<float>(view.y + view.h / 2));
  for (int i = 0; i < 10; ++i) {
    io.MouseWheel = -3.0f;
    frame();
  }
  frame();
  const float left = ui.shell.mainViewScrollY();
  ASSERT_GT(left, 100.0f) << "the wheel did not scroll the launch-config lesson";
  for (const char* other : {"memory", "matmul", "reduction", "stencil", "playground"}) {
    ASSERT_TRUE(ui.shell.selectLesson(other));
    frame();
    frame();
    EXPECT_EQ(ui.shell.mainViewScrollY(), 0.0f) << other << " did not open at its top";
  }
  ASSERT_TRUE(ui.shell.selectLesson("launch-config"));
  frame();
  frame();
  EXPECT_NEAR(ui.shell.mainViewScrollY(), left, 1.0f) << "launch-config lost where it was left";
}

// Without a GPU the stencil's frame is the CPU's: a change of the pipeline filters it again (the
// first CPU frame stayed on screen whatever the learner changed).
TEST_F(Render, StencilWithoutAGpuFiltersTheFrameAgainOnAChange) {
  if (queryRuntime().hasDevice()) GTEST_SKIP() << "the GPU draws this frame here";
  Ui ui("stencil");
  ASSERT_TRUE(ui.renderer.init(nullptr).ok());
  Result<Image> before = ui.renderer.capture(1280, 900, 1, false, "frame", 3, 60);
  ASSERT_TRUE(before.ok()) << before.status().sentence();
  ASSERT_TRUE(restoreParameter(ui.shell.current(), "radius", 12).ok());
  (void)ui.renderer.capture(1280, 900, 1, false, "frame", 3, 0);  // the change seen, work begun
  Result<Image> after = ui.renderer.capture(1280, 900, 1, false, "frame", 3, 60);
  ASSERT_TRUE(after.ok()) << after.status().sentence();
  ASSERT_EQ(before->width, after->width);
  ASSERT_EQ(before->height, after->height);
  EXPECT_NE(before->rgba, after->rgba) << "the frame did not change with the blur's radius";
}

// The reduction's accuracy panel waits for the CPU's sums when the lesson opens, then grows to
// its table and plot: the panels under it jumped down under the learner's mouse (a click meant
// for the tree's Play landed on a plot). It now keeps the room its results take.
TEST_F(Render, PanelsUnderAResultStillComingDoNotJumpWhenItComes) {
  for (float scale : {1.0f, 2.0f}) {
    SCOPED_TRACE(scale);
    Ui ui("reduction");
    ui.settings.uiScale = scale;
    ASSERT_TRUE(ui.renderer.init(nullptr).ok());
    ASSERT_TRUE(ui.renderer.capture(1280, 900, 1, false, "", 2, 0).ok());
    ASSERT_TRUE(ui.shell.current().busy()) << "the sums came before the first frame";
    const auto waiting = ui.shell.panels().rect("tree");
    ASSERT_TRUE(waiting.has_value());
    ASSERT_TRUE(ui.renderer.capture(1280, 900, 1, false, "", 3, 120).ok());
    ASSERT_FALSE(ui.shell.current().busy());
    const auto done = ui.shell.panels().rect("tree");
    ASSERT_TRUE(done.has_value());
    EXPECT_EQ(done->y, waiting->y);
  }
}

// A short view (1280 x 720 at UI scale 2: a projector on a laptop) shows the introduction's first
// two lines with "more" and the no-GPU sentence's short form: in full they filled 60% of the
// height, the stencil's first panel starting 510 pixels down of 720.
TEST_F(Render, AShortViewLeavesMostOfItToTheLesson) {
  for (const LessonEntry& e : lessonRegistry()) {
    SCOPED_TRACE(e.info->id);
    Ui ui(e.info->id);
    ui.settings.uiScale = 2.0f;
    ASSERT_TRUE(ui.renderer.init(nullptr).ok());
    ASSERT_TRUE(ui.renderer.capture(1280, 720, 1, false, "", 3, 0).ok());
    int top = 720;
    for (const std::string& id : ui.shell.panels().ids())
      if (const auto r = ui.shell.panels().rect(id)) top = std::min(top, r->y);
    EXPECT_LT(top, 720 * 45 / 100) << "the first panel starts too far down";
  }
}

// Runs `action` with `param` at `measured`, then moves it to `moved`: the panel `panel` must grow
// by the sentence saying its results are of the values before the change, and lose it when the
// parameter is back where it was measured.
void expectStaleNoteAfterAChange(const char* lesson, const char* action, const char* panel,
                                 const char* param, double measured, double moved) {
  SCOPED_TRACE(lesson);
  Ui ui(lesson);
  ASSERT_TRUE(ui.renderer.init(nullptr).ok());
  ASSERT_TRUE(ui.renderer.capture(1280, 900, 1, false, "", 3, 60).ok());  // its first work done
  ASSERT_TRUE(restoreParameter(ui.shell.current(), param, measured).ok());
  ASSERT_TRUE(ui.shell.current().startAction(action));
  Result<Image> fresh = ui.renderer.capture(1280, 900, 1, false, panel, 3, 120);
  ASSERT_TRUE(fresh.ok()) << fresh.status().sentence();
  ASSERT_FALSE(ui.shell.current().busy());
  ASSERT_TRUE(restoreParameter(ui.shell.current(), param, moved).ok());
  Result<Image> stale = ui.renderer.capture(1280, 900, 1, false, panel, 3, 0);
  ASSERT_TRUE(stale.ok()) << stale.status().sentence();
  EXPECT_GT(stale->height, fresh->height) << "no sentence about the values before the change";
  ASSERT_TRUE(restoreParameter(ui.shell.current(), param, measured).ok());
  Result<Image> back = ui.renderer.capture(1280, 900, 1, false, panel, 3, 0);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->height, fresh->height) << "the values measured again: nothing to say";
}

// Transfers: results measured before "Kernel calls" moved are said to be the old parameters'
// (the panel kept "10 calls" with no sign they were stale): a sentence more, with the button.
TEST_F(Render, TransfersSaysItsResultsAreForTheParametersBeforeAChange) {
  expectStaleNoteAfterAChange("transfers", "modes", "transfers_modes", "calls", 10, 3);
}

// The matmul course's comparison, run at n = 256, then n moved: the results say they were
// measured before the change (they were shown as if for the new n), with the button.
TEST_F(Render, MatmulSaysItsCourseResultsAreForTheSizeBeforeAChange) {
  expectStaleNoteAfterAChange("matmul", "course", "course", "course_n", 256, 300);
}

// Every lesson opens at its Defaults: nothing touched, the preset chooser must not say "(your own
// values)" (precision and the playground did: each changed a parameter of its own when shown).
TEST_F(Render, EveryLessonOpensAtItsDefaults) {
  // The learner's kept playground code and choices are not this test's.
  const std::string home = ::testing::TempDir() + "cudalab-defaults-home";
  std::filesystem::remove_all(home);
  std::filesystem::create_directories(home);
  setenv("XDG_CONFIG_HOME", home.c_str(), 1);
  for (const LessonEntry& e : lessonRegistry()) {
    Ui ui(e.info->id);
    ASSERT_TRUE(ui.renderer.init(nullptr).ok());
    ASSERT_TRUE(ui.renderer.capture(1280, 720, 1, false, "", 3, 0).ok());
    std::string differ;
    for (const ParamBinding& b : ui.shell.current().bindings())
      if (b.get() != (b.defaultNow ? b.defaultNow() : b.spec->defaultValue))
        differ += std::string(" ") + b.spec->id + "=" + std::to_string(b.get());
    EXPECT_TRUE(parametersAre(ui.shell.current(), {})) << e.info->id << ":" << differ;
  }
  unsetenv("XDG_CONFIG_HOME");
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
