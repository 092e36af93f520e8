#include "ui/renderer.hpp"

#include "common/device_fault.hpp"
#include "core/i18n.hpp"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <cfloat>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include "platform/gl.hpp"
#include "platform/heartbeat.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"

namespace cudalab {

UiRenderer::UiRenderer(Shell& shell, Settings& settings) : shell_(shell), settings_(settings) {}

UiRenderer::~UiRenderer() {
  if (gl_) ImGui_ImplOpenGL3_Shutdown();
  if (glfw_) ImGui_ImplGlfw_Shutdown();
  if (imgui_) ImGui::DestroyContext();
}

Status UiRenderer::init(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  imgui_ = true;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is computed, and settings live in the config dir
  if (window) {
    // Keyboard navigation needs the key map that only the GLFW backend fills in.
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    if (!ImGui_ImplGlfw_InitForOpenGL(window, true))
      return Status::error("ImGui's GLFW backend could not start.");
    glfw_ = true;
  }
  if (!ImGui_ImplOpenGL3_Init("#version 330 core"))
    return Status::error("ImGui's OpenGL 3 backend could not start (it needs OpenGL 3.3).");
  gl_ = true;
  applyTheme(1.0f);
  return {};
}

void UiRenderer::applyTheme(float pixelScale) {
  // The language first: the font atlas holds the glyphs of its translations.
  const std::string language = settings_.language.empty() ? systemLanguage() : settings_.language;
  setLanguage(language);
  if (theme_.apply(settings_.theme, shell_.uiScale() * pixelScale, currentLanguage())) {
    if (gl_) {
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    // A Korean or Chinese class on a machine without the CJK font would see only '?': say why,
    // once per language, in the status bar and (for screenshots and the soak) on stderr.
    const std::string& missing = theme_.fonts().missingScript;
    if (!missing.empty() && missingFontSaid_ != currentLanguage()) {
      missingFontSaid_ = currentLanguage();
      std::fprintf(stderr, "cudalab: %s\n", missing.c_str());
      shell_.report(Status::error(missing), "");
    }
    // A font file that could not be used is said once; its text then draws in a fallback font.
    const std::string& unusable = theme_.fonts().unusable;
    if (!unusable.empty() && unusableFontSaid_ != unusable) {
      unusableFontSaid_ = unusable;
      std::fprintf(stderr, "cudalab: %s\n", unusable.c_str());
      shell_.report(Status::error(unusable), "");
    }
  }
}

void UiRenderer::frame(int pxW, int pxH, float pixelScale, bool offscreen, bool transparent,
                       float dt) {
  heartbeat();  // for a supervisor watching an app started again after a fault
  applyTheme(pixelScale);
  ImGuiIO& io = ImGui::GetIO();
  ImGui_ImplOpenGL3_NewFrame();
  if (glfw_ && !offscreen) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    io.DisplaySize = ImVec2(static_cast<float>(pxW), static_cast<float>(pxH));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = dt > 0 ? dt : 1.0f / 60.0f;
    if (glfw_) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover highlights in figures
  }
  ImGui::NewFrame();
  beginDataTableFrame();
  int pushed = 0;
  if (transparent) {
    for (ImGuiCol c : {ImGuiCol_WindowBg, ImGuiCol_ChildBg, ImGuiCol_MenuBarBg}) {
      ImGui::PushStyleColor(c, ImVec4(0, 0, 0, 0));
      ++pushed;
    }
  }
  // A figure exported from the window leaves out the panels' buttons; a headless screenshot shows
  // the UI exactly as the window would.
  const FrameTarget target{
      io.DisplaySize.x, io.DisplaySize.y,
      pixelScale,       offscreen && !panelButtons_ && (glfw_ || exportingPanel_),
      transparent,      offscreen && exportingPanel_};
  shell_.draw(theme_, target);
  ImGui::PopStyleColor(pushed);
  ImGui::Render();
  if (!rasterize_) return;
  const ImVec4 bg = transparent ? ImVec4(0, 0, 0, 0) : ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const ImVec2 fbSize(io.DisplaySize.x * io.DisplayFramebufferScale.x,
                      io.DisplaySize.y * io.DisplayFramebufferScale.y);
  glViewport(0, 0, static_cast<int>(fbSize.x), static_cast<int>(fbSize.y));
  glClearColor(bg.x, bg.y, bg.z, bg.w);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// Frames until the shown lesson's work has arrived (or `maxWaitSeconds` are over), at least
// `frames`, then three more: a table that has just appeared (a result arriving) sizes its columns
// over its first frames, and wrapped text needs a frame at a new font size. Only the shown lesson
// is waited for: a hidden one may count as busy until it is drawn again. Returns false as soon as
// the device faulted (no more GL in this process).
bool UiRenderer::settle(const std::function<void()>& drawFrame, int frames, double maxWaitSeconds) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0;; ++i) {
    drawFrame();
    if (deviceFaulted()) return false;
    const bool busy = shell_.current().busy();
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i + 1 >= frames && (!busy || waited > maxWaitSeconds)) break;
    if (busy) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (int i = 0; i < 3; ++i) {
    drawFrame();
    if (deviceFaulted()) return false;
  }
  return true;
}

void UiRenderer::layoutOnly(int logicalW, int logicalH, int frames, double maxWaitSeconds) {
  rasterize_ = false;
  settle([&] { frame(logicalW, logicalH, 1.0f, true, false, 1.0f / 60.0f); }, frames,
         maxWaitSeconds);
  rasterize_ = true;
}

Result<Image> UiRenderer::capture(int logicalW, int logicalH, int pixelScale, bool transparent,
                                  const std::string& panelId, int frames, double maxWaitSeconds,
                                  bool panelButtons) {
  exportingPanel_ = !panelId.empty();
  panelButtons_ = panelButtons;
  const float ps = static_cast<float>(pixelScale);
  // Renders until the lesson has finished its work (or the wait is over): see settle.
  auto render = [&](int w, int h) -> Status {
    CUDALAB_TRY(fb_.resize(w, h));
    fb_.bind();
    settle([&] { frame(w, h, ps, true, transparent, 1.0f / 60.0f); }, std::max(frames, 3),
           maxWaitSeconds);
    return {};
  };
  const int w = logicalW * pixelScale;
  int h = logicalH * pixelScale;
  struct Reset {
    bool &panel, &buttons;
    ~Reset() { panel = buttons = false; }
  } reset{exportingPanel_, panelButtons_};
  // After a sticky CUDA error, reading pixels back waits on the GPU forever (measured on an H100:
  // glReadPixels blocked in the driver), and the process must start again anyway: no picture, and
  // no second rendering for a plot below the fold.
  auto faulted = [] {
    Framebuffer::unbind();
    return Status::error("No picture: the GPU stopped (" + lastStickyError().sentence() + ").");
  };
  Status s = render(w, h);
  if (deviceFaulted()) return faulted();
  std::optional<PixelRect> r;
  const bool plotFigure = panelId.rfind(kPlotPrefix, 0) == 0;
  if (s && plotFigure) {
    const char* plotId = panelId.c_str() + std::strlen(kPlotPrefix);
    r = plot::LastPlotRect(plotId);
    if (!r) {
      // Below the fold, a plot is not drawn at all: draw again on a canvas four times as tall.
      GLint maxSize = 0;
      glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxSize);
      h = std::min(h * 4, static_cast<int>(maxSize));
      s = render(w, h);
      r = plot::LastPlotRect(plotId);
    }
  } else if (s && !panelId.empty()) {
    r = shell_.panels().rect(panelId);
    if (!r) {
      std::string ids;
      for (const std::string& id : shell_.panels().ids())
        ids += (ids.empty() ? "" : ", ") + id;
      Framebuffer::unbind();
      return Status::error("This lesson has no panel \"" + panelId +
                           "\" on screen; its panels are: " + ids + ".");
    }
    // A panel taller than the view would be cut off: draw again on a canvas tall enough for it.
    // Again if the panel grew on the taller canvas (a table that shows more columns there and
    // says what it hides under itself).
    for (int tries = 0; tries < 3 && r; ++tries) {
      const PixelRect view = shell_.mainViewRect();
      const int overflow = r->y + r->h - (view.y + view.h);
      if (overflow <= 0) break;
      h += overflow + 16 * pixelScale;
      s = render(w, h);
      r = shell_.panels().rect(panelId);
    }
  }
  if (deviceFaulted()) return faulted();  // during the second rendering
  Image img = fb_.read();
  Framebuffer::unbind();
  if (!s) return s;
  if (distinctColours(img, 2) < 2)
    return Status::error(std::string(kBlankPictureSentence) +
                         ": the graphics driver could not render " + std::to_string(img.width) +
                         "x" + std::to_string(img.height) + " pixels at this scale.");
  if (panelId.empty()) return img;
  if (!r)
    return Status::error(plotFigure ? "The plot \"" + panelId.substr(std::strlen(kPlotPrefix)) +
                                          "\" is not on screen (some plots appear only after "
                                          "their measurement)."
                                    : "The panel \"" + panelId + "\" is not on screen.");
  Image part = crop(img, *r);
  if (part.empty()) return Status::error("The panel \"" + panelId + "\" is outside the window.");
  return part;
}

}  // namespace cudalab
