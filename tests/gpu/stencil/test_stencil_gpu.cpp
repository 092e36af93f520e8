// The stencil lesson's kernels on a real GPU: every blur variant, Sobel, threshold and the display
// pixels equal to the CPU's bit for bit on random pictures and the scene at odd sizes (1 x 1,
// 17 x 9, 1921 x 1079) and every radius; the scene kernel equal to the CPU's scene; interop and
// host copy showing the same pixels; refusals.
#include <gtest/gtest.h>

#include <cstdlib>

#include <cstring>
#include <random>

#include "common/cuda_raii.hpp"
#include "platform/headless_egl.hpp"
#include "tests/gpu/drawing.hpp"
#include "platform/interop.hpp"
#include "stencil/stencil.hpp"
#include "tests/gpu/sanitizing.hpp"

namespace cudalab::stencil {
namespace {

size_t differing(const std::vector<float4>& a, const std::vector<float4>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i)
    n += std::memcmp(&a[i], &b[i], sizeof(float4)) != 0;
  return n;
}

// Runs one frame of `p` on the GPU (the scene of frame `frame`, or `still`) and compares every
// stage with the CPU.
void expectFrameExact(int w, int h, const Pipeline& p, int frame, bool still) {
  const std::string at = std::to_string(w) + " x " + std::to_string(h) + " " +
                         blurInfo(p.blurId).key + " r " + std::to_string(p.radius) + " tile " +
                         std::to_string(p.tile);
  FrameRunner runner;
  ASSERT_TRUE(runner.prepare(w, h).ok()) << at;
  HostFrame in = sceneFrame(w, h, frame);
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE(still ? "a random picture, seed " + std::to_string(seed) : "the scene");
  if (still) {
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> pic(size_t(w) * size_t(h));
    for (auto& v : pic)
      v = static_cast<std::uint32_t>(rng());
    ASSERT_TRUE(runner.setStill(pic).ok());
    in = fromRgba8(pic.data(), w, h, w, h);
  }
  StreamGuard stream;
  ASSERT_TRUE(stream.create().ok());
  DeviceArray<std::uint32_t> out;
  ASSERT_TRUE(out.allocate(size_t(w) * size_t(h)).ok());
  ASSERT_EQ(cudaMemsetAsync(out.get(), 0xAB, out.bytes(), stream.get()), cudaSuccess);  // poison
  const Status s = runner.run(p, frame, out.get(), stream.get());
  ASSERT_TRUE(s.ok()) << at << ": " << s.sentence();
  ASSERT_TRUE(runner.waitTimes().ok());
  EXPECT_GT(runner.lastTimes().gpuTotal(), 0.0);
  HostFrame gIn, gBlur;
  std::vector<float> gEdges, gMask;
  ASSERT_TRUE(runner.download(gIn, gBlur, gEdges, gMask, stream.get()).ok());
  std::vector<std::uint32_t> gRgba(out.size());
  ASSERT_EQ(cudaMemcpy(gRgba.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);

  EXPECT_EQ(differing(gIn.px, in.px), 0u) << at << ": input";
  const HostFrame blurred = p.blur ? cpuBlur(in, p.blurId, p.radius, 0) : in;
  EXPECT_EQ(differing(gBlur.px, blurred.px), 0u) << at << ": blur";
  // Stages switched off leave zeros (what the display then shows of them).
  const std::vector<float> edges =
      p.sobel ? cpuSobel(blurred, 0) : std::vector<float>(in.px.size(), 0.0f);
  EXPECT_EQ(std::memcmp(gEdges.data(), edges.data(), edges.size() * 4), 0) << at << ": sobel";
  const std::vector<float> mask = p.sobel && p.threshold ? cpuThreshold(edges, p.thresholdValue)
                                                         : std::vector<float>(in.px.size(), 0.0f);
  EXPECT_EQ(gMask, mask) << at << ": threshold";
  const CpuFrame cpu = cpuPipeline(in, p, 0);
  EXPECT_EQ(gRgba, cpu.rgba) << at << ": display pixels";
}

TEST(StencilGpu, EveryVariantAndRadiusOnOddSizes) {
  // Random pictures and the scene in turn; every radius, tiles of 8 and 16 in turn. Under a
  // sanitizer (CUDALAB_SANITIZE), which slows kernels a hundredfold: a smaller odd frame and the
  // radii that matter for the halo (1, one that is a multiple of 3 for tiles of 8, the largest).
  // A frame larger than the course's full HD by one pixel each way takes the smallest and the
  // largest radius (its CPU reference at every radius took a minute); every radius runs on a
  // smaller odd frame whose last tiles are ragged the same way.
  const bool sanitizing = testing_support::underSanitizer();
  const int bigW = sanitizing ? 203 : 641, bigH = sanitizing ? 117 : 359;
  for (auto [w, h] : {std::pair{1, 1}, {17, 9}, {bigW, bigH}, {1921, 1079}})
    for (const BlurInfo& b : blurs())
      for (int r = 1; r <= kMaxRadius; ++r) {
        if (sanitizing && r != 1 && r != 3 && r != kMaxRadius) continue;
        if (w == 1921 && (sanitizing || (r != 1 && r != kMaxRadius))) continue;
        Pipeline p;
        p.blurId = b.id;
        p.radius = r;
        p.tile = usesTile(b.id) ? (r % 3 == 0 ? 8 : 16) : 16;
        p.view = View(r % 4);
        expectFrameExact(w, h, p, r, r % 2 == 0);
      }
}

TEST(StencilGpu, StillPicturesAndTilesOf32) {
  for (int r : {1, 5, 11}) {
    Pipeline p;
    p.blurId = BlurId::Tiled;
    p.tile = 32;
    p.radius = r;
    expectFrameExact(67, 45, p, 0, true);
  }
  // The separable blur in shared memory at the largest tiles that fit: 32 at radius 1 to 4,
  // 16 at radius 15 (45,632 bytes).
  for (auto [tile, r] : {std::pair{32, 1}, {32, 4}, {16, 15}}) {
    Pipeline p;
    p.blurId = BlurId::SeparableShared;
    p.tile = tile;
    p.radius = r;
    expectFrameExact(67, 45, p, 0, true);
  }
  Pipeline off;
  off.blur = false;
  off.sobel = false;
  off.view = View::Edges;
  expectFrameExact(33, 20, off, 3, true);
}

TEST(StencilGpu, MeasuredKernelsAreChecked) {
  Result<KernelReport> r = measureKernels(640, 360, {1, 7}, 16, nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  EXPECT_EQ(r->points.size(), 2 * blurs().size());
  for (const KernelPoint& p : r->points) {
    EXPECT_TRUE(p.ok) << blurInfo(p.id).key << " r " << p.radius;
    EXPECT_GT(p.ms, 0.0);
  }
  EXPECT_GT(r->copyGBps, 0.0);
}

// The frame brought to the screen through CUDA-OpenGL interop and through host memory: both
// textures hold the CPU's display pixels.
TEST(StencilGpu, InteropAndHostCopyShowTheSamePixels) {
  HeadlessContext gl;
  CUDALAB_TEST_DRAWING(gl, testing_support::NeedsNvidiaGl::Yes);
  ASSERT_TRUE(gl.onNvidiaDevice()) << gl.description();
  const int w = 203, h = 117;
  FrameRunner runner;
  ASSERT_TRUE(runner.prepare(w, h).ok());
  InteropImage img;
  ASSERT_TRUE(img.create(w, h, PixelFormat::RGBA8).ok());
  EXPECT_TRUE(img.interopAvailable()) << img.interopProblem();
  StreamGuard stream;
  ASSERT_TRUE(stream.create().ok());
  Pipeline p;
  p.radius = 4;
  const CpuFrame cpu = cpuPipeline(sceneFrame(w, h, 9), p, 0);
  for (InteropPath path : {InteropPath::Interop, InteropPath::HostCopy}) {
    img.setPath(path);
    {
      auto m = img.map(stream.get());
      ASSERT_TRUE(m.ok()) << m.status().sentence();
      ASSERT_TRUE(runner.run(p, 9, m->as<std::uint32_t>(), stream.get()).ok());
    }
    ASSERT_TRUE(img.upload(stream.get()).ok());
    const std::vector<std::uint8_t> tex = img.readTexture();
    ASSERT_EQ(tex.size(), cpu.rgba.size() * 4);
    size_t wrong = 0;
    for (size_t i = 0; i < cpu.rgba.size(); ++i) {
      std::uint32_t got;
      std::memcpy(&got, tex.data() + i * 4, 4);
      wrong += got != cpu.rgba[i];
    }
    EXPECT_EQ(wrong, 0u) << (path == InteropPath::Interop ? "interop" : "host copy");
  }
}

TEST(StencilGpu, TooLargeATileIsRefused) {
  FrameRunner runner;
  ASSERT_TRUE(runner.prepare(64, 64).ok());
  DeviceArray<std::uint32_t> out;
  ASSERT_TRUE(out.allocate(64 * 64).ok());
  Pipeline p;
  p.blurId = BlurId::Tiled;
  p.tile = 32;
  p.radius = 15;
  const Status s = runner.run(p, 0, out.get(), nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.sentence().find("shared memory"), std::string::npos) << s.sentence();
}

}  // namespace
}  // namespace cudalab::stencil
