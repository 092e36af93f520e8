// The stencil lesson without a GPU: the filters against hand-worked small images (edges clamped),
// the Gaussian's weights, the halo arithmetic and the tile picture's counts, the synthetic scene
// deterministic, the refusals with their numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "stencil/stencil.hpp"

using namespace cudalab;
using namespace cudalab::stencil;

namespace {

HostFrame grey(int w, int h, const std::vector<float>& v) {
  HostFrame f;
  f.width = w;
  f.height = h;
  for (float x : v)
    f.px.push_back(make_float4(x, x, x, 1.0f));
  return f;
}

bool sameBits(const HostFrame& a, const HostFrame& b) {
  return a.px.size() == b.px.size() &&
         std::memcmp(a.px.data(), b.px.data(), a.px.size() * sizeof(float4)) == 0;
}

}  // namespace

TEST(StencilWeights, NormalisedAndSymmetric) {
  for (int r : {1, 3, 7, 15}) {
    const std::vector<float> w = gaussian1d(r);
    ASSERT_EQ(w.size(), size_t(2 * r + 1));
    EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-6);
    for (int i = 0; i < r; ++i)
      EXPECT_EQ(w[size_t(i)], w[size_t(2 * r - i)]);
    EXPECT_GT(w[size_t(r)], w[0]);
    const std::vector<float> w2 = gaussian2d(r);
    ASSERT_EQ(w2.size(), w.size() * w.size());
    EXPECT_EQ(w2[size_t(r * (2 * r + 1) + r)], w[size_t(r)] * w[size_t(r)]);
  }
}

TEST(StencilCpu, ConstantImagesStayConstantAndEdgesClamp) {
  // A constant picture blurs to itself (up to the weights' rounding), whatever the radius: the
  // edges are clamped, not zero-padded, so border pixels do not darken.
  const HostFrame c = grey(7, 5, std::vector<float>(35, 0.5f));
  for (BlurId id : {BlurId::Naive, BlurId::Tiled, BlurId::Separable, BlurId::SeparableShared})
    for (int r : {1, 4}) {
      const HostFrame b = cpuBlur(c, id, r);
      for (const float4& p : b.px)
        EXPECT_NEAR(p.x, 0.5f, 2e-7f) << blurInfo(id).key << " r " << r;
    }
  // Hand-worked: one bright pixel in the corner of a 3 x 3 picture, radius 1. With clamping, the
  // corner pixel (0, 0) sees itself at offsets (-1, -1), (-1, 0), (0, -1) and (0, 0): four taps.
  HostFrame dot = grey(3, 3, {1, 0, 0, 0, 0, 0, 0, 0, 0});
  const std::vector<float> w = gaussian1d(1);
  const float a = w[0], m = w[1];  // outer and middle weight
  const HostFrame b = cpuBlur(dot, BlurId::Naive, 1);
  EXPECT_NEAR(b.px[0].x, (a + m) * (a + m), 1e-6f);
  EXPECT_NEAR(b.px[4].x, a * a, 1e-6f);  // the centre sees the corner once, diagonally
  EXPECT_NEAR(b.px[8].x, 0.0f, 0.0f);    // the far corner does not see it
  // The separable blur is the same product in another order: equal up to rounding.
  const HostFrame s = cpuBlur(dot, BlurId::Separable, 1);
  for (size_t i = 0; i < 9; ++i)
    EXPECT_NEAR(s.px[i].x, b.px[i].x, 1e-6f);
}

TEST(StencilCpu, NaiveAndTiledAreTheSameSumsAndThreadsDoNotMatter) {
  const HostFrame in = sceneFrame(61, 37, 5);
  for (int r : {1, 6}) {
    const HostFrame naive = cpuBlur(in, BlurId::Naive, r, 1);
    EXPECT_TRUE(sameBits(naive, cpuBlur(in, BlurId::Tiled, r, 1)));
    EXPECT_TRUE(sameBits(naive, cpuBlur(in, BlurId::Naive, r, 0)));
    const HostFrame sep = cpuBlur(in, BlurId::Separable, r, 1);
    EXPECT_TRUE(sameBits(sep, cpuBlur(in, BlurId::Separable, r, 3)));
    EXPECT_TRUE(sameBits(sep, cpuBlur(in, BlurId::SeparableShared, r, 1)));
  }
}

TEST(StencilCpu, SobelAndThresholdByHand) {
  // A vertical step from 0 to 1 between columns 1 and 2 of a 4 x 3 picture: |gx| = 4 at the two
  // columns beside the step (1 + 2 + 1), 0 elsewhere; gy = 0 everywhere.
  const HostFrame step = grey(4, 3, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1});
  const std::vector<float> e = cpuSobel(step);
  const float lum1 = luminance(make_float4(1, 1, 1, 1));
  for (int y = 0; y < 3; ++y) {
    EXPECT_FLOAT_EQ(e[size_t(y * 4 + 0)], 0.0f);
    EXPECT_NEAR(e[size_t(y * 4 + 1)], 4 * lum1, 1e-6f);
    EXPECT_NEAR(e[size_t(y * 4 + 2)], 4 * lum1, 1e-6f);
    EXPECT_FLOAT_EQ(e[size_t(y * 4 + 3)], 0.0f);
  }
  const std::vector<float> m = cpuThreshold(e, 2.0f);
  EXPECT_EQ(m[1], 1.0f);
  EXPECT_EQ(m[0], 0.0f);
  EXPECT_EQ(cpuThreshold({1.999f, 2.0f}, 2.0f), (std::vector<float>{0.0f, 1.0f}));
}

TEST(StencilScene, DeterministicAndMoving) {
  const HostFrame a = sceneFrame(160, 90, 7), b = sceneFrame(160, 90, 7),
                  c = sceneFrame(160, 90, 8);
  EXPECT_TRUE(sameBits(a, b));
  EXPECT_FALSE(sameBits(a, c));
  // Sky at the top (blue the strongest), asphalt grey in the bottom middle.
  const float4 sky = a.at(80, 2), road = a.at(80, 85);
  EXPECT_GT(sky.z, sky.x);
  EXPECT_NEAR(road.x, road.z, 0.1f);
  for (const float4& p : a.px) {
    ASSERT_GE(p.x, -0.05f);
    ASSERT_LE(p.x, 1.05f);
  }
}

TEST(StencilTile, HaloArithmetic) {
  const TileModel m = tileModel(16, 3);
  EXPECT_EQ(m.loadsPerBlock, 22 * 22);
  EXPECT_EQ(m.outputsPerBlock, 256);
  EXPECT_NEAR(m.haloOverhead, 484.0 / 256 - 1, 1e-12);  // 89% more loads than outputs
  EXPECT_EQ(m.naiveReadsPerPixel, 49);
  EXPECT_EQ(m.separableReadsPerPixel, 14);
  EXPECT_EQ(m.sharedBytes, 484 * 16);
  EXPECT_EQ(tiledSharedBytes(32, 15), 62 * 62 * 16);
  EXPECT_EQ(sharedBytes(BlurId::Tiled, 16, 3), 22 * 22 * 16);
  EXPECT_EQ(sharedBytes(BlurId::SeparableShared, 16, 15), 46 * 46 * 16 + 46 * 16 * 16);
  EXPECT_EQ(sharedBytes(BlurId::Naive, 16, 15), 0);
  EXPECT_TRUE(usesTile(BlurId::SeparableShared));
  EXPECT_FALSE(usesTile(BlurId::Separable));
  // Inside a tile, away from its edges: one block loads the pixel; within r of a tile edge: two;
  // near a corner: four.
  EXPECT_EQ(loadsOfPixel(8, 8, 16, 3), 1);
  EXPECT_EQ(loadsOfPixel(15, 8, 16, 3), 2);
  EXPECT_EQ(loadsOfPixel(17, 8, 16, 3), 2);
  EXPECT_EQ(loadsOfPixel(15, 16, 16, 3), 4);
  EXPECT_EQ(loadsOfPixel(0, 0, 16, 3), 4);  // the frame's edge: the halo is clamped, counted too
}

TEST(StencilValidation, RefusalsTeach) {
  Pipeline p;
  EXPECT_TRUE(validate(p, 1920, 1080, 48 * 1024));
  p.blurId = BlurId::Tiled;
  p.tile = 32;
  p.radius = 15;
  const Status s = validate(p, 1920, 1080, 48 * 1024);
  ASSERT_FALSE(s);
  EXPECT_NE(s.sentence().find("62 x 62"), std::string::npos) << s.sentence();
  EXPECT_NE(s.sentence().find("61,504"), std::string::npos) << s.sentence();
  EXPECT_NE(s.sentence().find("49,152"), std::string::npos) << s.sentence();
  p.radius = 11;  // 54 x 54 x 16 = 46,656: fits
  EXPECT_TRUE(validate(p, 1920, 1080, 48 * 1024));
  p.blurId = BlurId::SeparableShared;  // plus 54 x 32 row results: 74,304 bytes
  const Status sep = validate(p, 1920, 1080, 48 * 1024);
  ASSERT_FALSE(sep);
  EXPECT_NE(sep.sentence().find("74,304"), std::string::npos) << sep.sentence();
  p.blurId = BlurId::Tiled;
  p.tile = 12;
  EXPECT_FALSE(validate(p, 1920, 1080, 48 * 1024));
  p.tile = 16;
  p.radius = 16;
  EXPECT_FALSE(validate(p, 1920, 1080, 48 * 1024));
  p.radius = 3;
  EXPECT_FALSE(validate(p, 0, 1080, 48 * 1024));
  EXPECT_NE(validate(p, 3840, 2160, 48 * 1024, 100 << 20).sentence().find("free"),
            std::string::npos);
}

TEST(StencilCpu, PipelineComposesTheSplitView) {
  Pipeline p;
  p.view = View::Blurred;
  p.split = 3;
  const HostFrame in = sceneFrame(8, 4, 1);
  const CpuFrame f = cpuPipeline(in, p, 1);
  ASSERT_EQ(f.rgba.size(), 32u);
  const HostFrame b = cpuBlur(in, p.blurId, p.radius);
  EXPECT_EQ(f.rgba[2], packRgba(in.at(2, 0)));  // left of the split: the input
  EXPECT_EQ(f.rgba[3], packRgba(b.at(3, 0)));   // right of it: the blurred frame
  EXPECT_GE(f.totalMs(), 0.0);
}
