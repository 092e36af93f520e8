#include "ui/renderer.hpp"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <cfloat>
#include <chrono>
#include <thread>

#include "platform/gl.hpp"

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
  if (theme_.apply(settings_.theme, settings_.uiScale * pixelScale) && gl_) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
}

void UiRenderer::frame(int pxW, int pxH, float pixelScale, bool offscreen, bool transparent,
                       float dt) {
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
  int pushed = 0;
  if (transparent) {
    for (ImGuiCol c : {ImGuiCol_WindowBg, ImGuiCol_ChildBg, ImGuiCol_MenuBarBg}) {
      ImGui::PushStyleColor(c, ImVec4(0, 0, 0, 0));
      ++pushed;
    }
  }
  // A figure exported from the window leaves out the panels' buttons; a headless screenshot shows
  // the UI exactly as the window would.
  const FrameTarget target{io.DisplaySize.x, io.DisplaySize.y, pixelScale,
                           offscreen && (glfw_ || exportingPanel_), transparent};
  shell_.draw(theme_, target);
  ImGui::PopStyleColor(pushed);
  ImGui::Render();
  const ImVec4 bg = transparent ? ImVec4(0, 0, 0, 0) : ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const ImVec2 fbSize(io.DisplaySize.x * io.DisplayFramebufferScale.x,
                      io.DisplaySize.y * io.DisplayFramebufferScale.y);
  glViewport(0, 0, static_cast<int>(fbSize.x), static_cast<int>(fbSize.y));
  glClearColor(bg.x, bg.y, bg.z, bg.w);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

Result<Image> UiRenderer::capture(int logicalW, int logicalH, int pixelScale, bool transparent,
                                  const std::string& panelId, int frames, double maxWaitSeconds) {
  const int w = logicalW * pixelScale, h = logicalH * pixelScale;
  exportingPanel_ = !panelId.empty();
  CUDALAB_TRY(fb_.resize(w, h));
  fb_.bind();
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int i = 0;; ++i) {
    frame(w, h, static_cast<float>(pixelScale), true, transparent, 1.0f / 60.0f);
    // Two more frames after the last busy one, so results that just arrived are laid out.
    if (i + 1 >= frames && !shell_.busy()) {
      frame(w, h, static_cast<float>(pixelScale), true, transparent, 1.0f / 60.0f);
      frame(w, h, static_cast<float>(pixelScale), true, transparent, 1.0f / 60.0f);
      break;
    }
    if (elapsed() > maxWaitSeconds) break;
    if (shell_.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Image img = fb_.read();
  Framebuffer::unbind();
  exportingPanel_ = false;
  if (panelId.empty()) return img;
  auto r = shell_.panels().rect(panelId);
  if (!r)
    return Status::error("The panel \"" + panelId + "\" is not on screen, so it cannot be saved.");
  Image part = crop(img, *r);
  if (part.empty()) return Status::error("The panel \"" + panelId + "\" is outside the window.");
  return part;
}

}  // namespace cudalab
