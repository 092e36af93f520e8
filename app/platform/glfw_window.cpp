#include "platform/glfw_window.hpp"

#include "platform/gl.hpp"  // before GLFW, which must not include a system GL header
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <X11/Xlib.h>
#undef Status  // Xlib's macro for int; cudalab's Status is a class

#include <cstdio>
#include <cstdlib>
#include <utility>

// From GLFW's native access (glfw3native.h, which would need the Xrandr headers for this one
// declaration): the X display GLFW opened, or null on another platform.
extern "C" Display* glfwGetX11Display(void);

namespace cudalab {
namespace {

std::function<void()>& displayLostHandler() {
  static std::function<void()> f;
  return f;
}

// Xlib calls this when the connection to the display breaks; if it returned, Xlib would end the
// process itself with its own message.
int onXIoError(Display* d) {
  static bool once = false;
  if (!once) {
    once = true;
    std::fprintf(stderr,
                 "cudalab: the display %s went away (the X server ended or the connection "
                 "dropped); your settings were saved. Start cudalab again on a display, or use "
                 "--headless.\n",
                 d ? DisplayString(d) : "");
    if (displayLostHandler()) displayLostHandler()();
  }
  std::_Exit(1);
}

std::string lastGlfwError() {
  const char* desc = nullptr;
  glfwGetError(&desc);
  return desc ? desc : "unknown GLFW error";
}

}  // namespace

GlfwWindow::~GlfwWindow() {
  if (window_) glfwDestroyWindow(window_);
  if (glfwReady_) glfwTerminate();
}

Status GlfwWindow::open(const WindowGeometry& g, const std::string& title) {
  if (!glfwInit()) {
    return Status::error("could not open a window (" + lastGlfwError() +
                         "). Without a display, use --headless --screenshot FILE.png.");
  }
  glfwReady_ = true;
  if (glfwGetX11Display()) XSetIOErrorHandler(onXIoError);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_MAXIMIZED, g.maximized ? GLFW_TRUE : GLFW_FALSE);
  window_ = glfwCreateWindow(g.width, g.height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    return Status::error("could not create an OpenGL 3.3 window (" + lastGlfwError() +
                         "). Without a display, use --headless --screenshot FILE.png.");
  }
  if (g.x >= 0 && g.y >= 0) glfwSetWindowPos(window_, g.x, g.y);
  // Set before ImGui's backend installs its own, which then calls this one first.
  glfwSetWindowUserPointer(window_, this);
  glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int mods) {
    auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(w));
    if (self && action == GLFW_PRESS && self->presses_.size() < 64)
      self->presses_.push_back(
          PressedKey{key, (mods & GLFW_MOD_CONTROL) != 0, (mods & GLFW_MOD_SHIFT) != 0});
  });
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
    return Status::error("The OpenGL functions could not be loaded for the window.");
  }
  return {};
}

bool GlfwWindow::shouldClose() const {
  return glfwWindowShouldClose(window_);
}
void GlfwWindow::requestClose() {
  glfwSetWindowShouldClose(window_, GLFW_TRUE);
}
std::vector<PressedKey> GlfwWindow::takeKeyPresses() {
  return std::exchange(presses_, {});
}

void GlfwWindow::poll() {
  glfwPollEvents();
}
void GlfwWindow::swap() {
  glfwSwapBuffers(window_);
}
void GlfwWindow::size(int& w, int& h) const {
  glfwGetWindowSize(window_, &w, &h);
}
void GlfwWindow::framebufferSize(int& w, int& h) const {
  glfwGetFramebufferSize(window_, &w, &h);
}

WindowGeometry GlfwWindow::geometry() const {
  WindowGeometry g;
  g.maximized = glfwGetWindowAttrib(window_, GLFW_MAXIMIZED) == GLFW_TRUE;
  glfwGetWindowPos(window_, &g.x, &g.y);
  glfwGetWindowSize(window_, &g.width, &g.height);
  return g;
}

float GlfwWindow::contentScale() const {
  float sx = 1, sy = 1;
  glfwGetWindowContentScale(window_, &sx, &sy);
  return sx > 0 ? sx : 1.0f;
}

std::string GlfwWindow::glDescription() const {
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  return std::string("window, ") + (renderer ? renderer : "?") + ", OpenGL " +
         (version ? version : "?");
}

bool GlfwWindow::minimized() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return glfwGetWindowAttrib(window_, GLFW_ICONIFIED) || w <= 0 || h <= 0;
}

void GlfwWindow::waitEvents(double seconds) {
  glfwWaitEventsTimeout(seconds);
}

void GlfwWindow::onDisplayLost(std::function<void()> f) {
  displayLostHandler() = std::move(f);
}

}  // namespace cudalab
