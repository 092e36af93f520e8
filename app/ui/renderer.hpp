// Draws the shell with ImGui's OpenGL 3 backend, on screen or off screen.
//
// The same frame function serves the window, headless screenshots and figure export: off screen it
// lays the UI out for `pixelScale` times the UI scale (fonts rasterised at that size, not
// upscaled) into a Framebuffer and reads it back.
//
//   UiRenderer r(shell, settings);
//   CUDALAB_TRY(r.init(glfwWindowOrNull));
//   r.frame(w, h, 1, false, false, dt);                          // on screen, each frame
//   Result<Image> img = r.capture(w, h, 2, false, "", 3, 30.0);  // a 2x figure
#pragma once

#include <functional>
#include <string>

#include "common/status.hpp"
#include "platform/framebuffer.hpp"
#include "platform/image.hpp"
#include "ui/shell.hpp"
#include "ui/theme.hpp"

struct GLFWwindow;

namespace cudalab {

// How a capture's Status begins when the picture came out of one colour (restart.cpp reads it).
inline constexpr const char* kBlankPictureSentence = "The picture came out blank";

class UiRenderer {
 public:
  UiRenderer(Shell& shell, Settings& settings);
  ~UiRenderer();
  UiRenderer(const UiRenderer&) = delete;
  UiRenderer& operator=(const UiRenderer&) = delete;

  // Creates the ImGui context and GL objects; needs a current GL context. `window` may be null
  // (headless).
  Status init(GLFWwindow* window);
  // One frame into the bound framebuffer, `pxW` x `pxH` pixels (ignored on screen, where the
  // window's size is used).
  void frame(int pxW, int pxH, float pixelScale, bool offscreen, bool transparent, float dt);
  // Renders `frames` frames off screen (more while a lesson is busy, up to `maxWaitSeconds`) at
  // `logicalW` x `logicalH` times `pixelScale` pixels; returns the image, or the crop of the panel
  // `panelId` when it is not empty.
  // `panelButtons`: a panel keeps its buttons (a picture of what the learner sees, not a figure).
  Result<Image> capture(int logicalW, int logicalH, int pixelScale, bool transparent,
                        const std::string& panelId, int frames, double maxWaitSeconds,
                        bool panelButtons = false);
  // Lays the UI out for `frames` frames at `logicalW` x `logicalH` (scale 1) without drawing a
  // pixel: what the frames decide (which columns a table shows, what it cuts) is reported as
  // usual. A canvas taller than any screen puts every panel in view at the width a screen has:
  // the layout tests check every table of a lesson at once, in milliseconds. Goes on (at most
  // `maxWaitSeconds`) while the shown lesson's work is in flight, as capture does.
  void layoutOnly(int logicalW, int logicalH, int frames, double maxWaitSeconds = 30);
  const Theme& theme() const { return theme_; }

 private:
  void applyTheme(float pixelScale);

  Shell& shell_;
  std::string missingFontSaid_;   // the language whose missing script font was last reported
  std::string unusableFontSaid_;  // the unusable font files last reported
  Settings& settings_;
  Theme theme_;
  Framebuffer fb_;
  bool imgui_ = false, glfw_ = false, gl_ = false;
  bool exportingPanel_ = false;  // a panel figure leaves out its buttons
  bool panelButtons_ = false;    // unless it is a picture of the panel as seen (--as-seen)
  bool rasterize_ = true;        // false: layoutOnly's frames draw nothing

  bool settle(const std::function<void()>& drawFrame, int frames, double maxWaitSeconds);
};

}  // namespace cudalab
