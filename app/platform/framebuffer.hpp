// An off-screen render target (framebuffer object with an RGBA8 colour texture).
//
// Used for headless rendering and for figure export from the window, where a frame is drawn again
// at 2x its pixel size (not upscaled) so text and lines stay sharp on slides.
//
//   Framebuffer fb;
//   CUDALAB_TRY(fb.resize(w, h));
//   fb.bind();  ... draw ...
//   Image img = fb.read();   // top row first
//   Framebuffer::unbind();
#pragma once

#include "common/non_copyable.hpp"
#include "common/status.hpp"
#include "platform/image.hpp"

namespace cudalab {

class Framebuffer : NonCopyable {
 public:
  ~Framebuffer();

  // (Re)creates the target; needs a current GL context. `nearest`: sample without smoothing, for
  // pictures of data where one pixel is one element.
  Status resize(int width, int height, bool nearest = false);
  void bind() const;
  static void unbind();
  Image read() const;
  int width() const { return width_; }
  unsigned texture() const { return tex_; }
  int height() const { return height_; }

 private:
  void release();
  unsigned fbo_ = 0, tex_ = 0;
  int width_ = 0, height_ = 0;
};

// Reads the currently bound read framebuffer (e.g. a window's back buffer) into an image.
Image readCurrentFramebuffer(int width, int height);

}  // namespace cudalab
