// On a machine with an NVIDIA GPU, the headless path must use the EGL device platform on that GPU
// (so CUDA-GL interop can work there), and a rendered frame must come back with real content.
#include <gtest/gtest.h>

#include "platform/framebuffer.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "tests/gpu/drawing.hpp"

namespace cudalab {
namespace {

TEST(HeadlessGpu, UsesTheNvidiaEglDevice) {
  HeadlessContext ctx;
  CUDALAB_TEST_DRAWING(ctx, testing_support::NeedsNvidiaGl::Yes);
  EXPECT_TRUE(ctx.onNvidiaDevice()) << ctx.description();
  EXPECT_NE(ctx.description().find("NVIDIA"), std::string::npos) << ctx.description();

  Framebuffer fb;
  ASSERT_TRUE(fb.resize(64, 32).ok());
  fb.bind();
  glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glEnable(GL_SCISSOR_TEST);
  glScissor(0, 0, 32, 32);  // the left half (GL's origin is bottom-left)
  glClearColor(0.0f, 0.0f, 1.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  Image img = fb.read();
  Framebuffer::unbind();
  ASSERT_EQ(img.width, 64);
  ASSERT_EQ(img.height, 32);
  EXPECT_EQ(img.rgba[0 * 4 + 2], 255) << "left is blue";
  EXPECT_EQ(img.rgba[63 * 4 + 0], 255) << "right is red";
  EXPECT_EQ(distinctColours(img), 2);
}

}  // namespace
}  // namespace cudalab
