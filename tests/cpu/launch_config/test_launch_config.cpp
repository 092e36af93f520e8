// The launch-config lesson without a GPU: the index model against cases worked out by hand (owner
// of each element, unwritten, canary and double writes, grid-stride and 2D grids), the shape's
// closed-form counts against the model on many random launches, validation and warning sentences,
// occupancy and waves, the conclusion, the variants table and the reference comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "launch_config/launch_config.hpp"

namespace cudalab {

using namespace launch_config;
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

LaunchConfig config1D(long long n, int tpb, bool autoBlocks, long long blocks, bool guard = true,
                      bool stride = false) {
  LaunchConfig c;
  c.n = n;
  c.threadsPerBlock = tpb;
  c.autoBlocks = autoBlocks;
  c.blocks = blocks;
  c.grid2d = false;
  c.width = 5;
  c.guard = guard;
  c.gridStride = stride;
  return c;
}

LaunchConfig config2D(long long n, long long width, int tpb, bool guard = true,
                      bool stride = false) {
  LaunchConfig c;
  c.n = n;
  c.width = width;
  c.threadsPerBlock = tpb;
  c.autoBlocks = true;
  c.grid2d = true;
  c.guard = guard;
  c.gridStride = stride;
  return c;
}

OwnershipMap model(const LaunchConfig& c, const DeviceLimits& lim = {}) {
  Result<OwnershipMap> r = modelOwnership(c, lim);
  EXPECT_TRUE(r.ok()) << r.status().sentence();
  return r.ok() ? *r : OwnershipMap{};
}

LaunchShape shape(const LaunchConfig& c, const DeviceLimits& lim = {}) {
  Result<LaunchShape> r = shapeFor(c, lim);
  EXPECT_TRUE(r.ok()) << r.status().sentence();
  return r.ok() ? *r : LaunchShape{};
}

// ---------------------------------------------------------------------------------------------
// Hand-worked 1D cases (N = 10, blocks of 4 threads)
// ---------------------------------------------------------------------------------------------

TEST(LaunchModel, AutoGridCoversTenElementsWithTwoIdleThreads) {
  // ceil(10 / 4) = 3 blocks = 12 threads; threads 10 and 11 fail the guard.
  const LaunchConfig c = config1D(10, 4, true, 0);
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.gridX, 3);
  EXPECT_EQ(s.gridY, 1);
  EXPECT_EQ(s.blockX, 4);
  EXPECT_EQ(s.totalThreads, 12);
  EXPECT_EQ(s.idleThreads, 2);
  EXPECT_EQ(s.workingThreads, 10);
  EXPECT_EQ(s.warps, 3);  // one (partial) warp per block of 4
  EXPECT_EQ(s.partialWarps, 3);
  EXPECT_EQ(s.emptyLanes, 3 * 32 - 12);
  EXPECT_EQ(s.allocationElements, 10);
  EXPECT_EQ(s.unwrittenElements, 0);

  const OwnershipMap m = model(c);
  ASSERT_EQ(m.ownerThread.size(), 10u);
  for (uint32_t i = 0; i < 10; ++i) {
    EXPECT_EQ(m.ownerThread[i], i);
    EXPECT_EQ(m.writes[i], 1u);
  }
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_EQ(m.multiplyWritten, 0);
  EXPECT_EQ(m.canaryWrites, 0);
  EXPECT_EQ(m.totalWrites, 10);
  EXPECT_TRUE(m.fromModel);
  // Threads 0..3 are block 0, 4..7 block 1; each block is one warp.
  EXPECT_EQ(blockOf(9, s), 2);
  EXPECT_EQ(warpOf(9, s), 2);
}

TEST(LaunchModel, TwoBlocksOfFourLeaveElementsEightAndNineUnwritten) {
  const LaunchConfig c = config1D(10, 4, false, 2);
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.totalThreads, 8);
  EXPECT_EQ(s.idleThreads, 0);
  EXPECT_EQ(s.coveredElements, 8);
  EXPECT_EQ(s.unwrittenElements, 2);

  const OwnershipMap m = model(c);
  EXPECT_EQ(m.unwritten, 2);
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_EQ(m.ownerThread[i], i);
  EXPECT_EQ(m.ownerThread[8], kNoOwner);
  EXPECT_EQ(m.ownerThread[9], kNoOwner);
  EXPECT_EQ(m.writes[8], 0u);
  EXPECT_EQ(m.writes[9], 0u);
}

TEST(LaunchModel, NoGuardWithThreeBlocksOfFourWritesTwiceIntoTheCanary) {
  const LaunchConfig c = config1D(10, 4, false, 3, /*guard=*/false);
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.canaryWrites, 2);
  EXPECT_EQ(s.allocationElements, 12);  // the array and a 2-element canary zone
  EXPECT_EQ(s.idleThreads, 2);          // threads 10 and 11 have no element of their own

  const OwnershipMap m = model(c);
  ASSERT_EQ(m.writes.size(), 12u);
  EXPECT_EQ(m.canaryWrites, 2);
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_EQ(m.ownerThread[10], 10u);
  EXPECT_EQ(m.ownerThread[11], 11u);
}

TEST(LaunchModel, GridStrideWithTwoBlocksOfFourCoversEverything) {
  // 8 threads, stride 8: thread 0 writes 0 and 8, thread 1 writes 1 and 9, threads 2..7 one each.
  const LaunchConfig c = config1D(10, 4, false, 2, true, /*stride=*/true);
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.unwrittenElements, 0);
  EXPECT_EQ(s.maxElementsPerThread, 2);
  EXPECT_EQ(s.allocationElements, 10);

  const OwnershipMap m = model(c);
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_EQ(m.ownerThread[0], 0u);
  EXPECT_EQ(m.ownerThread[8], 0u);
  EXPECT_EQ(m.ownerThread[1], 1u);
  EXPECT_EQ(m.ownerThread[9], 1u);
  for (uint32_t i = 2; i < 8; ++i)
    EXPECT_EQ(m.ownerThread[i], i);
  for (uint32_t w : m.writes)
    EXPECT_EQ(w, 1u);
}

TEST(LaunchModel, GridStrideIgnoresTheGuardSwitch) {
  const LaunchConfig on = config1D(10, 4, false, 2, true, true);
  const LaunchConfig off = config1D(10, 4, false, 2, false, true);
  const OwnershipMap a = model(on), b = model(off);
  EXPECT_EQ(a.ownerThread, b.ownerThread);
  EXPECT_EQ(a.writes, b.writes);
  EXPECT_EQ(b.canaryWrites, 0);
  EXPECT_EQ(&variantOf(off), findLaunchVariant("1d_grid_stride"));
}

TEST(LaunchModel, AutoGridStrideUsesFourBlocksPerSM) {
  DeviceLimits lim;
  lim.smCount = 2;
  const LaunchConfig c = config1D(1000, 32, true, 0, true, true);
  EXPECT_EQ(shape(c, lim).gridX, 8);  // not ceil(1000 / 32) = 32
  const LaunchConfig small = config1D(64, 32, true, 0, true, true);
  EXPECT_EQ(shape(small, lim).gridX, 2);  // N needs only 2 blocks
  EXPECT_EQ(shape(c).gridX, 32);          // 132 SMs x 4 is more than the 32 N needs
}

// ---------------------------------------------------------------------------------------------
// Hand-worked 2D cases: width 5, N = 10 (a 5 x 2 picture), blocks of 4 threads (4 x 1)
// ---------------------------------------------------------------------------------------------
// Auto grid: ceil(5 / 4) = 2 blocks across, 2 down; 8 x 2 threads. Threads are numbered block by
// block: block (0,0) = 0..3 (x 0..3, y 0), (1,0) = 4..7 (x 4..7, y 0), (0,1) = 8..11, (1,1) =
// 12..15.

TEST(LaunchModel2D, BlockShapes) {
  EXPECT_EQ(blockShape2D(256).x, 32);
  EXPECT_EQ(blockShape2D(256).y, 8);
  EXPECT_EQ(blockShape2D(1024).y, 32);
  EXPECT_EQ(blockShape2D(4).x, 4);
  EXPECT_EQ(blockShape2D(4).y, 1);
  EXPECT_EQ(blockShape2D(100).x, 25);  // 32 does not divide 100: the largest divisor below 32
  EXPECT_EQ(blockShape2D(100).y, 4);
  EXPECT_EQ(blockShape2D(97).x, 1);  // a prime: one column
  EXPECT_EQ(blockShape2D(97).y, 97);
}

TEST(LaunchModel2D, GuardedFiveByTwo) {
  const LaunchConfig c = config2D(10, 5, 4);
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.gridX, 2);
  EXPECT_EQ(s.gridY, 2);
  EXPECT_EQ(s.blockX, 4);
  EXPECT_EQ(s.blockY, 1);
  EXPECT_EQ(s.height, 2);
  EXPECT_EQ(s.totalThreads, 16);
  EXPECT_EQ(s.idleThreads, 6);  // x = 5, 6, 7 in both rows
  EXPECT_EQ(s.allocationElements, 10);

  const OwnershipMap m = model(c);
  const std::vector<uint32_t> owners = {0, 1, 2, 3, 4, 8, 9, 10, 11, 12};
  EXPECT_EQ(m.ownerThread, owners);
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_EQ(m.multiplyWritten, 0);
  EXPECT_EQ(m.canaryWrites, 0);
}

TEST(LaunchModel2D, UnguardedThreadsPastTheRowWriteIntoTheNextRow) {
  // Row 0's threads x = 5, 6, 7 (threads 5, 6, 7) write elements 5, 6, 7, which row 1's threads
  // x = 0, 1, 2 (threads 8, 9, 10) also write. Row 1's x = 5, 6, 7 (threads 13, 14, 15) write 10,
  // 11, 12: past the end.
  const LaunchConfig c = config2D(10, 5, 4, /*guard=*/false);
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.allocationElements, 13);
  EXPECT_EQ(s.canaryWrites, 3);
  EXPECT_EQ(s.extraWrites, 3);
  EXPECT_EQ(s.coveredElements, 10);

  const OwnershipMap m = model(c);
  ASSERT_EQ(m.writes.size(), 13u);
  const std::vector<uint32_t> writes = {1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1};
  EXPECT_EQ(m.writes, writes);
  // The lowest writer is kept: elements 5, 6, 7 belong to threads 5, 6, 7 (not 8, 9, 10).
  const std::vector<uint32_t> owners = {0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 14, 15};
  EXPECT_EQ(m.ownerThread, owners);
  EXPECT_EQ(m.multiplyWritten, 3);
  EXPECT_EQ(m.canaryWrites, 3);
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_EQ(m.totalWrites, 16);
}

TEST(LaunchModel2D, GridStrideOneBlockLoopsOverBothAxes) {
  // One block of 4 x 1: thread x loops over columns x, x + 4 of rows 0 and 1.
  LaunchConfig c = config2D(10, 5, 4, true, true);
  c.autoBlocks = false;
  c.blocks = 1;
  c.blocksY = 1;
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.maxElementsPerThread, 4);  // thread 0: elements 0, 4, 5, 9
  const OwnershipMap m = model(c);
  const std::vector<uint32_t> owners = {0, 1, 2, 3, 0, 0, 1, 2, 3, 0};
  EXPECT_EQ(m.ownerThread, owners);
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_EQ(m.multiplyWritten, 0);
}

TEST(LaunchModel2D, PartialLastRowIsGuardedAndUnguardedSpillsIntoTheCanary) {
  // N = 12, width 5: rows of 5, 5 and 2. Blocks 4 x 1, grid 2 x 3.
  const OwnershipMap guarded = model(config2D(12, 5, 4));
  EXPECT_EQ(guarded.unwritten, 0);
  EXPECT_EQ(guarded.canaryWrites, 0);
  EXPECT_EQ(guarded.multiplyWritten, 0);

  const LaunchConfig c = config2D(12, 5, 4, false);
  const LaunchShape s = shape(c);
  const OwnershipMap m = model(c);
  // Rows of 8 threads: row 0 writes 0..7, row 1 writes 5..12, row 2 writes 10..17. Elements 5, 6,
  // 7, 10 and 11 are written twice; 12 (twice) and 13..17 are past the end: 7 canary writes.
  EXPECT_EQ(s.allocationElements, 18);
  EXPECT_EQ(m.canaryWrites, 7);
  EXPECT_EQ(s.canaryWrites, 7);
  EXPECT_EQ(m.multiplyWritten, 5);
  EXPECT_EQ(s.extraWrites, 5);
  EXPECT_EQ(m.unwritten, 0);
}

TEST(LaunchModel2D, ManualGridTooSmallLeavesARectangleUnwritten) {
  // 10 x 4 picture (N = 40), blocks 4 x 1, grid 2 x 2: columns 0..7 of rows 0..1 are written.
  LaunchConfig c = config2D(40, 10, 4);
  c.autoBlocks = false;
  c.blocks = 2;
  c.blocksY = 2;
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.coveredElements, 16);
  EXPECT_EQ(s.unwrittenElements, 24);
  const OwnershipMap m = model(c);
  EXPECT_EQ(m.unwritten, 24);
  EXPECT_EQ(m.writes[7], 1u);
  EXPECT_EQ(m.writes[8], 0u);
  EXPECT_EQ(m.writes[17], 1u);
  EXPECT_EQ(m.writes[20], 0u);
}

// ---------------------------------------------------------------------------------------------
// The closed-form counts of shapeFor() agree with the model on many random launches
// ---------------------------------------------------------------------------------------------

TEST(LaunchModel, ShapeCountsAgreeWithTheModel) {
  std::mt19937 gen(12345);
  auto pick = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(gen);
  };
  const int tpbs[] = {1, 3, 4, 7, 16, 32, 33, 64, 96, 100, 128, 256};
  DeviceLimits lim;
  lim.smCount = 3;
  for (int iter = 0; iter < 800; ++iter) {
    LaunchConfig c;
    c.n = pick(1, 3000);
    c.threadsPerBlock = tpbs[pick(0, 11)];
    c.grid2d = pick(0, 1) == 1;
    c.width = pick(1, 80);
    c.guard = pick(0, 1) == 1;
    c.gridStride = pick(0, 3) == 0;
    c.autoBlocks = pick(0, 1) == 1;
    c.blocks = pick(1, 40);
    c.blocksY = pick(1, 40);
    SCOPED_TRACE(describe(c));
    const LaunchShape s = shape(c, lim);
    const OwnershipMap m = model(c, lim);
    ASSERT_EQ(static_cast<long long>(m.writes.size()), s.allocationElements);
    EXPECT_EQ(m.unwritten, s.unwrittenElements);
    EXPECT_EQ(m.canaryWrites, s.canaryWrites);
    long long inArray = 0;
    for (long long i = 0; i < c.n; ++i)
      inArray += m.writes[static_cast<size_t>(i)];
    EXPECT_EQ(inArray - (c.n - m.unwritten), s.extraWrites);
    // Every thread's writes, counted through the shared index function: the most any thread does,
    // how many threads have an element of their own, and that the allocation is tight.
    long long most = 0, working = 0, maxIndex = -1;
    for (long long by = 0; by < s.gridY; ++by)
      for (long long bx = 0; bx < s.gridX; ++bx)
        for (int ty = 0; ty < s.blockY; ++ty)
          for (int tx = 0; tx < s.blockX; ++tx) {
            const ThreadCoord t{unsigned(bx),       unsigned(by),      unsigned(tx),
                                unsigned(ty),       unsigned(s.gridX), unsigned(s.gridY),
                                unsigned(s.blockX), unsigned(s.blockY)};
            long long count = 0;
            clForEachElement(s.geometry, t, [&](long long e) {
              ++count;
              maxIndex = std::max(maxIndex, e);
            });
            most = std::max(most, count);
            const long long x = clGlobalX(t), y = clGlobalY(t);
            working += c.grid2d ? clInside2D(x, y, s.geometry) : x < c.n;
          }
    EXPECT_EQ(most, s.maxElementsPerThread);
    EXPECT_EQ(working, s.workingThreads);
    EXPECT_EQ(s.idleThreads, s.totalThreads - working);
    EXPECT_EQ(std::max(maxIndex + 1, c.n), s.allocationElements);
  }
}

TEST(LaunchModel, TheCourseDefaultHasOneOwnerPerElement) {
  const LaunchConfig c;  // 30 million, 128 threads, automatic grid, 1D, guarded
  const LaunchShape s = shape(c);
  EXPECT_EQ(s.gridX, 234375);
  EXPECT_EQ(s.totalThreads, 30000000);
  EXPECT_EQ(s.idleThreads, 0);
  EXPECT_EQ(s.warps, 937500);
  EXPECT_EQ(s.height, 15625);  // 1920 x 15625
  const OwnershipMap m = model(c);
  EXPECT_EQ(m.unwritten, 0);
  EXPECT_EQ(m.multiplyWritten, 0);
  EXPECT_EQ(m.ownerThread[29999999], 29999999u);
  EXPECT_EQ(blockOf(29999999, s), 234374);
  EXPECT_EQ(warpOf(29999999, s), 937499);
}

TEST(LaunchModel, WarpsAreCountedPerBlock) {
  // Blocks of 100 threads: 4 warps each; thread 100 is block 1's first thread, so warp 4.
  const LaunchShape s = shape(config1D(1000, 100, true, 0));
  EXPECT_EQ(s.warpsPerBlock, 4);
  EXPECT_EQ(warpOf(99, s), 3);
  EXPECT_EQ(warpOf(100, s), 4);
  EXPECT_EQ(blockOf(100, s), 1);
  EXPECT_EQ(s.partialWarps, 10);
  EXPECT_EQ(s.emptyLanes, 10 * 28);
}

TEST(LaunchModel, ThePictureIsRefusedPastItsLimitWithAReason) {
  LaunchConfig c = config1D(kMaxPictureElements + 1, 256, true, 0);
  Result<OwnershipMap> r = modelOwnership(c, DeviceLimits{});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(contains(r.status().message(), "at most 67,108,864")) << r.status().message();
  EXPECT_TRUE(contains(r.status().message(), "smaller N")) << r.status().message();
  // The shape and validation still work: only the picture has a limit.
  EXPECT_TRUE(validate(c, DeviceLimits{}).ok());
}

// ---------------------------------------------------------------------------------------------
// Validation and warnings
// ---------------------------------------------------------------------------------------------

TEST(LaunchValidation, TheDefaultsAreValidOnTheModelH100) {
  EXPECT_TRUE(validate(LaunchConfig{}, DeviceLimits{}).ok());
  EXPECT_TRUE(warnings(LaunchConfig{}).empty());
}

TEST(LaunchValidation, MoreThan1024ThreadsPerBlockIsRefusedWithTheReason) {
  LaunchConfig c;
  c.threadsPerBlock = 2048;
  Status s = validate(c, DeviceLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "A block can have at most 1,024 threads")) << s.message();
  EXPECT_TRUE(contains(s.message(), "compute capability 2.0")) << s.message();
  EXPECT_TRUE(contains(s.message(), "2,048 threads would need 2 blocks of 1,024")) << s.message();
  c.threadsPerBlock = 1024;
  EXPECT_TRUE(validate(c, DeviceLimits{}).ok());
  // Outside the spec's range: the generic range sentence.
  c.threadsPerBlock = 4096;
  EXPECT_TRUE(contains(validate(c, DeviceLimits{}).message(), "between 1 and 2048"));
  c.threadsPerBlock = 0;
  EXPECT_FALSE(validate(c, DeviceLimits{}).ok());
}

TEST(LaunchValidation, AGridOverTheDeviceLimitIsRefusedWithTheNumbers) {
  LaunchConfig c = config1D(1000, 128, false, 2147483648LL, true, true);
  Status s = validate(c, DeviceLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "at most 2,147,483,647 blocks in x")) << s.message();
  EXPECT_TRUE(contains(s.message(), "2,147,483,648")) << s.message();

  // A 2D grid over a one-element-wide picture needs one block row per element row.
  LaunchConfig tall = config2D(1 << 24, 1, 32);
  Status t = validate(tall, DeviceLimits{});
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.message(), "at most 65,535 blocks in y")) << t.message();
  EXPECT_TRUE(contains(t.message(), "16,777,216 rows high")) << t.message();
  tall.gridStride = true;  // the grid-stride loop needs only a few blocks
  EXPECT_TRUE(validate(tall, DeviceLimits{}).ok());

  LaunchConfig manual = config2D(1000, 10, 32);
  manual.autoBlocks = false;
  manual.blocks = 1;
  manual.blocksY = 70000;
  Status u = validate(manual, DeviceLimits{});
  ASSERT_FALSE(u.ok());
  EXPECT_TRUE(contains(u.message(), "asks for 70,000")) << u.message();
}

TEST(LaunchValidation, MoreMemoryThanIsFreeIsRefused) {
  DeviceLimits small;
  small.freeBytes = 100u << 20;  // 100 MiB
  const LaunchConfig c;          // 30 million elements x 16 bytes = 458 MiB
  Status s = validate(c, small);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "N = 30,000,000 needs 458 MiB")) << s.message();
  EXPECT_TRUE(contains(s.message(), "only 100 MiB is free")) << s.message();

  // Without the guard, a huge manual grid needs a huge canary zone: the sentence says so.
  LaunchConfig wild = config1D(1000, 1024, false, 1 << 24, /*guard=*/false);  // 2^34 threads
  Status w = validate(wild, DeviceLimits{});
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(contains(w.message(), "canary zone")) << w.message();
  EXPECT_TRUE(contains(w.message(), "turn the guard on")) << w.message();
}

TEST(LaunchValidation, OutOfRangeNumbersAreRefused) {
  LaunchConfig c;
  c.n = 0;
  EXPECT_FALSE(validate(c, DeviceLimits{}).ok());
  c.n = (1LL << 28) + 1;
  EXPECT_FALSE(validate(c, DeviceLimits{}).ok());
  c = LaunchConfig{};
  c.width = 0;
  EXPECT_FALSE(validate(c, DeviceLimits{}).ok());
  c = LaunchConfig{};
  c.autoBlocks = false;
  c.blocks = 0;
  EXPECT_FALSE(validate(c, DeviceLimits{}).ok());
  c.autoBlocks = true;  // the manual number is not used
  EXPECT_TRUE(validate(c, DeviceLimits{}).ok());
}

TEST(LaunchValidation, BlocksThatAreNotAMultipleOf32AreAllowedWithAWarning) {
  LaunchConfig c;
  c.threadsPerBlock = 100;
  EXPECT_TRUE(validate(c, DeviceLimits{}).ok());
  // The warnings in English, one string each.
  auto englishWarnings = [](const LaunchConfig& config) {
    std::vector<std::string> out;
    for (const Phrase& p : warnings(config))
      out.push_back(p.english());
    return out;
  };
  std::vector<std::string> w = englishWarnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0],
                       "A block of 100 threads runs as 4 warps, the last with 4 active "
                       "lanes of 32"))
      << w[0];
  EXPECT_TRUE(contains(w[0], "28 of the block's 128 lanes")) << w[0];

  c.threadsPerBlock = 16;
  w = englishWarnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0], "runs as 1 warp with 16 active lanes of 32")) << w[0];

  c.threadsPerBlock = 100;
  c.grid2d = true;
  w = englishWarnings(c);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_TRUE(contains(w[1], "25 x 4")) << w[1];

  c = LaunchConfig{};
  c.gridStride = true;
  c.guard = false;
  w = englishWarnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0], "changes nothing")) << w[0];
}

// ---------------------------------------------------------------------------------------------
// Occupancy, waves and the conclusion
// ---------------------------------------------------------------------------------------------

TEST(LaunchOccupancy, ModelBlocksPerSM) {
  const DeviceLimits h100;  // 2048 threads and 32 blocks per SM
  EXPECT_EQ(modelBlocksPerSM(1024, h100), 2);
  EXPECT_EQ(modelBlocksPerSM(256, h100), 8);
  EXPECT_EQ(modelBlocksPerSM(128, h100), 16);
  EXPECT_EQ(modelBlocksPerSM(100, h100), 16);  // 4 warps' worth of slots each
  EXPECT_EQ(modelBlocksPerSM(32, h100), 32);
  EXPECT_EQ(modelBlocksPerSM(16, h100), 32);  // the blocks-per-SM limit
  EXPECT_EQ(modelBlocksPerSM(2048, h100), 0);
  EXPECT_EQ(modelBlocksPerSM(0, h100), 0);
}

TEST(LaunchOccupancy, WavesOfTheCourseExample) {
  const DeviceLimits h100;
  const LaunchShape s = shape(LaunchConfig{});  // 234,375 blocks of 128
  const OccupancyNumbers o = occupancyNumbers(s, h100, modelBlocksPerSM(128, h100));
  EXPECT_EQ(o.blocksPerSM, 16);
  EXPECT_EQ(o.residentBlocks, 2112);  // 16 x 132
  EXPECT_EQ(o.waves, 111);            // 110 full waves and 2055 blocks
  EXPECT_NEAR(o.tailFraction, 2055.0 / 2112.0, 1e-12);
  EXPECT_EQ(o.busySMs, 132);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);

  // 300 blocks of 1024 at 2 per SM: 264 at a time, then 36 in a second wave.
  const LaunchShape t = shape(config1D(300 * 1024, 1024, true, 0));
  const OccupancyNumbers p = occupancyNumbers(t, h100, 2);
  EXPECT_EQ(p.waves, 2);
  EXPECT_NEAR(p.tailFraction, 36.0 / 264.0, 1e-12);
  EXPECT_TRUE(contains(english(conclusion(LaunchConfig{}, t, p, h100)), "2 waves"))
      << "tail sentence";

  const OccupancyNumbers none = occupancyNumbers(t, h100, 0);
  EXPECT_EQ(none.waves, 0);
}

TEST(LaunchConclusion, SaysWhatWentWrongOrThatTheLaunchIsGood) {
  const DeviceLimits h100;
  auto say = [&](const LaunchConfig& c) {
    const LaunchShape s = shape(c, h100);
    return english(conclusion(
        c, s, occupancyNumbers(s, h100, modelBlocksPerSM(c.threadsPerBlock, h100)), h100));
  };
  const std::string good = say(LaunchConfig{});
  EXPECT_TRUE(contains(good, "Every element is written exactly once")) << good;
  EXPECT_TRUE(contains(good, "good launch")) << good;

  const std::string tooFew = say(config1D(10, 4, false, 2));
  EXPECT_TRUE(contains(tooFew, "2 elements were never written")) << tooFew;
  EXPECT_TRUE(contains(tooFew, "Only 2 blocks for 132 SMs")) << tooFew;

  const std::string canary = say(config1D(10, 4, false, 3, false));
  EXPECT_TRUE(contains(canary, "2 writes went past the end")) << canary;

  const std::string twice = say(config2D(10, 5, 4, false));
  EXPECT_TRUE(contains(twice, "wrote into the next row")) << twice;

  const std::string idle = say(config1D(1000, 32, false, 1000));
  EXPECT_TRUE(contains(idle, "31,000 of the 32,000 threads (97%) have no element")) << idle;

  LaunchConfig heuristic;
  heuristic.gridStride = true;  // automatic: 4 blocks per SM
  const std::string h = say(heuristic);
  EXPECT_TRUE(contains(h, "inside the course's 2 to 4 blocks per SM")) << h;

  LaunchConfig partial;
  partial.threadsPerBlock = 100;
  const std::string p = say(partial);
  EXPECT_TRUE(contains(p, "leaves 28 lanes of its last warp empty")) << p;

  LaunchConfig tiny;
  tiny.threadsPerBlock = 32;
  const std::string t = say(tiny);
  EXPECT_TRUE(contains(t, "An SM holds at most 32 blocks")) << t;
}

// ---------------------------------------------------------------------------------------------
// Variants, sweeps, description
// ---------------------------------------------------------------------------------------------

TEST(LaunchVariants, OneEntryPerCombinationWithUniqueIds) {
  std::set<std::string> ids;
  std::set<std::tuple<bool, bool, bool>> combos;
  for (const LaunchVariant& v : launchVariants()) {
    EXPECT_TRUE(ids.insert(v.id).second) << v.id;
    EXPECT_TRUE(combos.insert({v.grid2d, v.guard, v.gridStride}).second) << v.id;
    EXPECT_NE(std::string(v.label), "");
    EXPECT_GT(std::string(v.help).size(), 40u);
    EXPECT_EQ(findLaunchVariant(v.id), &v);
    EXPECT_EQ(&variantOf(withVariant(LaunchConfig{}, v)), &v);
    if (v.gridStride) {
      EXPECT_TRUE(v.guard) << "the loop condition is the guard";
    }
  }
  EXPECT_EQ(launchVariants().size(), 6u);
  EXPECT_EQ(findLaunchVariant("nope"), nullptr);
  EXPECT_NE(findLaunchVariant("2d_unguarded"), nullptr);
}

TEST(LaunchVariants, ParamSpecsHoldTheirDefaults) {
  for (const ParamSpec& p : kLaunchParams) {
    EXPECT_TRUE(checkRange(p, p.defaultValue).ok()) << p.id;
    EXPECT_GT(std::string(p.help).size(), 40u) << p.id;
  }
  EXPECT_EQ(kLaunchN.defaultValue, 30000000);
  EXPECT_GT(kLaunchThreadsPerBlock.max, 1024);  // so 2048 reaches validate()'s sentence
}

TEST(LaunchSweeps, ThreadsAndBlocks) {
  const std::vector<LaunchConfig> t = threadsPerBlockSweep(LaunchConfig{});
  ASSERT_EQ(t.size(), 32u);
  EXPECT_EQ(t.front().threadsPerBlock, 32);
  EXPECT_EQ(t.back().threadsPerBlock, 1024);
  for (const LaunchConfig& c : t)
    EXPECT_TRUE(c.autoBlocks);

  const DeviceLimits h100;
  const std::vector<LaunchConfig> b = blocksSweep(LaunchConfig{}, h100);
  std::vector<long long> counts;
  for (const LaunchConfig& c : b) {
    EXPECT_TRUE(c.gridStride);
    EXPECT_FALSE(c.autoBlocks);
    EXPECT_TRUE(validate(c, h100).ok());
    counts.push_back(c.blocks);
  }
  EXPECT_TRUE(std::is_sorted(counts.begin(), counts.end()));
  EXPECT_EQ(counts.front(), 1);
  EXPECT_EQ(counts.back(), 234375);  // what N needs without a loop
  EXPECT_NE(std::find(counts.begin(), counts.end(), 264), counts.end());  // 2 per SM
  EXPECT_NE(std::find(counts.begin(), counts.end(), 528), counts.end());  // 4 per SM
}

TEST(LaunchDescribe, OneReadableLine) {
  EXPECT_EQ(describe(LaunchConfig{}), "1D, N = 30,000,000, auto blocks x 128 threads, guard on");
  LaunchConfig c = config2D(10, 5, 4, false);
  c.autoBlocks = false;
  c.blocks = 2;
  c.blocksY = 3;
  EXPECT_EQ(describe(c), "2D, N = 10, width 5, 2 x 3 blocks x 4 threads, guard off");
}

// ---------------------------------------------------------------------------------------------
// Reference and comparison
// ---------------------------------------------------------------------------------------------

TEST(LaunchReference, DoublingIsExactAndPoisonCountsWrong) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> in = {1.0f, 1.5f, 3.0e38f, tiny, -2.25f};
  std::vector<float> out(in.size());
  referenceDouble(in, out);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], 3.0f);
  EXPECT_TRUE(std::isinf(out[2]));  // float overflow, as the GPU's 2.0f * x gives
  EXPECT_EQ(out[3], 2.0f * tiny);   // denormals are doubled exactly too
  EXPECT_EQ(out[4], -4.5f);

  Correctness ok = compareWithReference(in, out);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.checked, 5u);

  std::vector<float> bad = out;
  bad[1] = std::numeric_limits<float>::quiet_NaN();  // never written: still the poison
  bad[4] = -4.0f;
  Correctness c = compareWithReference(in, bad);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.wrong, 2u);
  EXPECT_EQ(c.firstWrong, 1u);
  EXPECT_TRUE(std::isinf(c.maxAbsError));
  EXPECT_TRUE(std::isinf(c.maxRelError));

  bad[1] = 3.0f;
  Correctness d = compareWithReference(in, bad);
  EXPECT_EQ(d.wrong, 1u);
  EXPECT_EQ(d.firstWrong, 4u);
  EXPECT_DOUBLE_EQ(d.maxAbsError, 0.5);
  EXPECT_DOUBLE_EQ(d.maxRelError, 0.5 / 4.5);
}

}  // namespace
}  // namespace cudalab
