// CUDA-OpenGL interop: on the NVIDIA EGL device the pixel buffer registers with CUDA, and the
// interop path and the host-copy fallback give textures identical to the CPU's pattern.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/measurement.hpp"
#include "common/pattern.hpp"
#include "platform/headless_egl.hpp"
#include "platform/interop.hpp"
#include "tests/gpu/drawing.hpp"
#include "tests/gpu/sanitizing.hpp"

namespace cudalab {
namespace {

std::vector<std::uint32_t> expected(int w, int h, int frame) {
  std::vector<std::uint32_t> v(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      v[static_cast<size_t>(y) * w + x] = testPatternPixel(x, y, frame);
  return v;
}

// A GL context on the NVIDIA device and a stream, for every test here.
class InteropGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    CUDALAB_TEST_DRAWING(ctx, testing_support::NeedsNvidiaGl::Yes);
    ASSERT_TRUE(ctx.onNvidiaDevice()) << ctx.description();
    ASSERT_TRUE(stream.create().ok());
  }
  // Frame `frame` of the test pattern drawn into the image and uploaded to its texture.
  void drawFrame(InteropImage& img, int frame) {
    {
      auto m = img.map(stream.get());
      ASSERT_TRUE(m.ok()) << m.status().sentence();
      ASSERT_TRUE(
          drawTestPattern(m->as<std::uint32_t>(), img.width(), img.height(), frame, stream.get())
              .ok());
    }
    ASSERT_TRUE(img.upload(stream.get()).ok());
  }
  HeadlessContext ctx;
  StreamGuard stream;
};

TEST_F(InteropGpu, BothPathsGiveTheSameTextureAsTheCpu) {
  std::mt19937 rng(std::random_device{}());
  const int w = 37 + static_cast<int>(rng() % 200), h = 11 + static_cast<int>(rng() % 100);
  InteropImage img;
  ASSERT_TRUE(img.create(w, h, PixelFormat::RGBA8).ok());
  EXPECT_TRUE(img.interopAvailable()) << img.interopProblem();
  int frame = 0;
  for (InteropPath path : {InteropPath::Interop, InteropPath::HostCopy}) {
    img.setPath(path);
    ASSERT_EQ(img.path(), path);
    ++frame;
    ASSERT_NO_FATAL_FAILURE(drawFrame(img, frame));
    EXPECT_GT(img.frameCostMs(), 0.0);
    std::vector<std::uint8_t> tex = img.readTexture();
    std::vector<std::uint32_t> want = expected(w, h, frame);
    ASSERT_EQ(tex.size(), want.size() * 4);
    size_t wrong = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      std::uint32_t got;
      std::memcpy(&got, tex.data() + i * 4, 4);
      wrong += got != want[i];
    }
    EXPECT_EQ(wrong, 0u) << (path == InteropPath::Interop ? "interop" : "host copy");
  }
}

// The image's device memory is counted in heldDeviceBytes() while it lives (the soak subtracts
// it): the registered pixel buffer and texture from create(), the staging buffer from the first
// host-copy frame; all of it goes with destroy().
TEST_F(InteropGpu, ItsDeviceMemoryIsCountedWhileItLives) {
  const long long before = heldDeviceBytes().load(), buffers = heldDeviceBuffers().load();
  {
    InteropImage img;
    ASSERT_TRUE(img.create(64, 32, PixelFormat::R32F).ok());
    const long long each = 64 * 32 * 4;
    const long long gl = img.interopAvailable() ? 2 * each : 0;
    EXPECT_EQ(heldDeviceBytes().load() - before, gl);
    EXPECT_EQ(heldDeviceBuffers().load() - buffers, img.interopAvailable() ? 1 : 0);
    img.setPath(InteropPath::HostCopy);
    {
      auto m = img.map(stream.get());
      ASSERT_TRUE(m.ok()) << m.status().sentence();
    }
    EXPECT_EQ(heldDeviceBytes().load() - before, gl + each);
    ASSERT_TRUE(img.create(16, 16, PixelFormat::RGBA8).ok());  // the old objects go first
    EXPECT_EQ(heldDeviceBytes().load() - before, img.interopAvailable() ? 2 * 16 * 16 * 4 : 0);
  }
  EXPECT_EQ(heldDeviceBytes().load(), before);
  EXPECT_EQ(heldDeviceBuffers().load(), buffers);
}

// The soak subtracts a registered image's pixel buffer and texture from the device's memory in
// use, as two buffers of its size: they must be there (a driver could keep a streamed pixel
// buffer in host memory, or allocate the texture only at its first upload; both are exercised).
TEST_F(InteropGpu, ARegisteredImageTakesTheDeviceMemoryItIsCountedFor) {
  {  // the driver's first map and upload set up what they need once: not the image's
    InteropImage warm;
    ASSERT_TRUE(warm.create(64, 64, PixelFormat::RGBA8).ok());
    ASSERT_NO_FATAL_FAILURE(drawFrame(warm, 1));
  }
  auto usedMiB = [] {
    size_t freeB = 0, totalB = 0;
    EXPECT_EQ(cudaMemGetInfo(&freeB, &totalB), cudaSuccess);
    return static_cast<double>(totalB - freeB) / (1 << 20);
  };
  const double before = usedMiB();
  const long long heldBefore = heldDeviceBytes().load();
  InteropImage img;
  const int w = 2048, h = 2048;  // 16 MiB a buffer
  ASSERT_TRUE(img.create(w, h, PixelFormat::RGBA8).ok());
  ASSERT_TRUE(img.interopAvailable()) << img.interopProblem();
  ASSERT_NO_FATAL_FAILURE(drawFrame(img, 1));
  const double counted = static_cast<double>(heldDeviceBytes().load() - heldBefore) / (1 << 20);
  EXPECT_DOUBLE_EQ(counted, 32.0);
  // Under compute-sanitizer the tool keeps device memory of its own beside every allocation, so
  // the GPU's free memory no longer says what the image took (2026-11-27, H200: this failed under
  // memcheck, racecheck and synccheck). The count above is still checked there.
  if (!testing_support::underSanitizer()) {
    EXPECT_NEAR(usedMiB() - before, counted, 6.0);
  }
}

}  // namespace
}  // namespace cudalab
