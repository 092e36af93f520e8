// The desktop window: GLFW with an OpenGL 3.3 core context and the ImGui GLFW backend.
//
//   GlfwWindow win;
//   if (Status s = win.open(settings.window, "cudalab"); !s) { report(s); return 1; }
//   while (!win.shouldClose()) { win.poll(); ... draw ...; win.swap(); }
//
// Opening fails with a Status (never a crash) when there is no display or no usable GL.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/non_copyable.hpp"
#include "common/status.hpp"

struct GLFWwindow;

namespace cudalab {

struct WindowGeometry {
  int x = -1, y = -1;  // -1: let the window manager place it
  int width = 1440, height = 900;
  bool maximized = false;
  bool operator==(const WindowGeometry&) const = default;
};

// A key pressed, with the modifiers held at that moment.
struct PressedKey {
  int key = 0;  // GLFW_KEY_*
  bool ctrl = false, shift = false;
};

class GlfwWindow : NonCopyable {
 public:
  ~GlfwWindow();

  Status open(const WindowGeometry& geometry, const std::string& title);
  bool shouldClose() const;
  void requestClose();
  void poll();
  void swap();
  // Size in screen coordinates (what layout uses) and in framebuffer pixels (HiDPI may differ).
  void size(int& w, int& h) const;
  void framebufferSize(int& w, int& h) const;
  WindowGeometry geometry() const;
  // Monitor content scale (e.g. 2 on a HiDPI laptop), a hint for the default UI scale.
  float contentScale() const;
  GLFWwindow* handle() const { return window_; }
  // Minimised (or drawn at 0 x 0 pixels): nothing to draw, so the loop waits for events instead.
  bool minimized() const;
  void waitEvents(double seconds);
  // The keys pressed since the last call, in order. ImGui 1.86 sees only whether a key is down
  // when a frame starts, so a press and its release between two frames (a quick tap while a slow
  // frame draws; xdotool's 12 ms taps) is lost to it: the shortcuts read these as well.
  std::vector<PressedKey> takeKeyPresses();
  // Called once if the X display goes away (the X server ends, the SSH tunnel drops): `f` saves
  // what must not be lost; then cudalab prints one sentence and ends with exit code 1, which is
  // all a program can do without a display (Xlib ends the process after its handler).
  static void onDisplayLost(std::function<void()> f);
  std::string glDescription() const;

 private:
  GLFWwindow* window_ = nullptr;
  bool glfwReady_ = false;
  std::vector<PressedKey> presses_;
};

}  // namespace cudalab
