// The occupancy calculator's arithmetic against hand-worked H100 cases.
#include <gtest/gtest.h>

#include "models/occupancy.hpp"

using namespace cudalab;

TEST(Occupancy, HandWorkedH100) {
  const SmModel sm;
  // 256 threads, 32 registers: 8 blocks by threads and by registers (8 warps x 1,024 registers).
  BlockOccupancy o = blockOccupancy(256, 32, 0, sm);
  EXPECT_EQ(o.blocksPerSM, 8);
  EXPECT_EQ(o.limiter, Limiter::Threads);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  // 64 registers: 65,536 / (8 x 2,048) = 4 blocks, half the warps.
  o = blockOccupancy(256, 64, 0, sm);
  EXPECT_EQ(o.blocksPerSM, 4);
  EXPECT_EQ(o.limiter, Limiter::Registers);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  // 33 registers round up to 40 per thread (units of 256 per warp): 65,536 / (8 x 1,280) = 6.
  o = blockOccupancy(256, 33, 0, sm);
  EXPECT_EQ(o.blocksPerSM, 6);
  // 48 KiB of shared memory + 1 KiB reserved: 228 KiB / 49 KiB = 4 blocks.
  o = blockOccupancy(128, 16, 48 * 1024, sm);
  EXPECT_EQ(o.blocksPerSM, 4);
  EXPECT_EQ(o.limiter, Limiter::Shared);
  // Tiny blocks: 32 blocks per SM at most.
  o = blockOccupancy(32, 16, 0, sm);
  EXPECT_EQ(o.blocksPerSM, 32);
  EXPECT_EQ(o.limiter, Limiter::Blocks);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  // A block of 100 threads takes 4 warps.
  o = blockOccupancy(100, 16, 0, sm);
  EXPECT_EQ(o.byThreads, 16);
  // Too many registers per thread, or more shared memory than a block may have: nothing fits.
  EXPECT_EQ(blockOccupancy(128, 300, 0, sm).blocksPerSM, 0);
  EXPECT_EQ(blockOccupancy(128, 16, 300000, sm).blocksPerSM, 0);
  EXPECT_EQ(blockOccupancy(0, 16, 0, sm).blocksPerSM, 0);
}
