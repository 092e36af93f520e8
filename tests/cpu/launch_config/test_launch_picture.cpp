// The launch-config picture: layout and keys from the CPU model, hand-worked.
#include <gtest/gtest.h>

#include "launch_config/launch_picture.hpp"

namespace cudalab {

using namespace launch_config;
namespace {

LaunchConfig config1D(long long n, int tpb, bool autoBlocks, long long blocks, bool guard) {
  LaunchConfig c{};
  c.n = n;
  c.threadsPerBlock = tpb;
  c.autoBlocks = autoBlocks;
  c.blocks = blocks;
  c.blocksY = 1;
  c.grid2d = false;
  c.width = 1920;
  c.guard = guard;
  c.gridStride = false;
  return c;
}

struct Picture {
  LaunchShape shape;
  PictureLayout layout;
  OwnershipMap map;
};

Picture picture(const LaunchConfig& c) {
  DeviceLimits limits;
  Result<LaunchShape> s = shapeFor(c, limits);
  EXPECT_TRUE(s.ok()) << s.status().sentence();
  Result<OwnershipMap> m = modelOwnership(c, limits);
  EXPECT_TRUE(m.ok()) << m.status().sentence();
  return {*s, pictureLayout(*s), *m};
}

TEST(LaunchPicture, OneDimensionalRowsAreWholeWarps) {
  Picture p = picture(config1D(10, 4, true, 0, true));
  EXPECT_EQ(p.layout.rowElements, 32);
  EXPECT_EQ(p.layout.rows, 1);
  EXPECT_EQ(p.layout.width, 32);
  EXPECT_EQ(p.layout.height, 1);
  std::vector<std::uint32_t> k = pictureKeysCpu(p.map, p.shape, p.layout, ColourBy::Block);
  const std::uint32_t want[10] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2};
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(k[i], want[i]) << i;
  for (int i = 10; i < 32; ++i)
    EXPECT_EQ(k[i], kKeyPadding) << i;
  k = pictureKeysCpu(p.map, p.shape, p.layout, ColourBy::Thread);
  for (std::uint32_t i = 0; i < 10; ++i)
    EXPECT_EQ(k[i], i);
  k = pictureKeysCpu(p.map, p.shape, p.layout, ColourBy::Writes);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(k[i], 1u);
}

TEST(LaunchPicture, UnwrittenAndCanaryStandOut) {
  // Two blocks of 4 for 10 elements: 8 and 9 never written.
  Picture small = picture(config1D(10, 4, false, 2, true));
  std::vector<std::uint32_t> k =
      pictureKeysCpu(small.map, small.shape, small.layout, ColourBy::Warp);
  EXPECT_EQ(k[7], 1u) << "warp of thread 7 with 4-thread blocks: block 1, its only warp";
  EXPECT_EQ(k[8], kKeyUnwritten);
  EXPECT_EQ(k[9], kKeyUnwritten);
  k = pictureKeysCpu(small.map, small.shape, small.layout, ColourBy::Writes);
  EXPECT_EQ(k[8], kKeyUnwritten);
  // Three blocks of 4, no guard: elements 10 and 11 are the canary zone, written.
  Picture over = picture(config1D(10, 4, false, 3, false));
  k = pictureKeysCpu(over.map, over.shape, over.layout, ColourBy::Block);
  EXPECT_EQ(k[9], 2u);
  EXPECT_EQ(k[10], kKeyCanary);
  EXPECT_EQ(k[11], kKeyCanary);
  EXPECT_EQ(k[12], kKeyPadding);
}

TEST(LaunchPicture, DownsampledPixelsKeepTheMostAlarmingElement) {
  // 3 million elements in rows of 1024: about 2930 rows, folded 3 rows to a pixel.
  LaunchConfig c = config1D(3'000'000, 256, false, 11'000, true);  // 2.816M threads: a gap
  Picture p = picture(c);
  EXPECT_EQ(p.layout.rowElements, 1024);
  EXPECT_EQ(p.layout.fy, 3);
  EXPECT_LE(p.layout.height, 1024);
  std::vector<std::uint32_t> k = pictureKeysCpu(p.map, p.shape, p.layout, ColourBy::Block);
  // Element 2'816'000 is the first never written; its pixel row is 2'816'000 / 1024 / 3.
  const long long firstUnwritten = 11'000LL * 256;
  const int py = static_cast<int>(firstUnwritten / 1024 / 3);
  const int px = static_cast<int>(firstUnwritten % 1024);
  EXPECT_EQ(k[static_cast<size_t>(py) * p.layout.width + px], kKeyUnwritten);
  EXPECT_EQ(k[0], 0u);
  EXPECT_NE(k[static_cast<size_t>(py - 1) * p.layout.width + px], kKeyUnwritten);
}

}  // namespace
}  // namespace cudalab
