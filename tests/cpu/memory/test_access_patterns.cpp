// The memory lesson's kernel patterns: the pattern table, parameter validation, one warp's
// request for each pattern against sector and wavefront counts worked out by hand, and the
// whole-kernel map and totals.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <set>
#include <string>

#include "memory/access_patterns.hpp"

namespace cudalab::mem {

using namespace memory;
namespace {

int sectorsOf(PatternId id, const PatternParams& p, long long warp = 0, int iteration = 0) {
  return analyzeGlobal(warpRequest(id, p, warp, iteration)).sectorCount();
}

int wavefrontsOf(PatternId id, const PatternParams& p, long long warp = 0, int iteration = 0) {
  return analyzeShared(warpRequest(id, p, warp, iteration)).wavefronts;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------------

TEST(MemoryPatterns, KernelTableIsInEnumOrder) {
  const auto kernels = kernelInfos();
  ASSERT_EQ(kernels.size(), std::size_t(KernelId::SharedStrided) + 1);
  std::set<std::string> names;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_EQ(std::size_t(kernels[i].id), i);
    EXPECT_EQ(&kernelInfo(kernels[i].id), &kernels[i]);
    EXPECT_FALSE(kernels[i].instructions.empty());
    EXPECT_TRUE(names.insert(kernels[i].name).second) << kernels[i].name;
  }
}

TEST(MemoryPatterns, KeysAreUniqueAndFindPatternRoundTrips) {
  const auto all = patterns();
  ASSERT_EQ(all.size(), std::size_t(PatternId::SharedStrided) + 1);
  std::set<std::string> keys;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const PatternInfo& p = all[i];
    EXPECT_EQ(std::size_t(p.id), i);
    EXPECT_EQ(&patternInfo(p.id), &p);
    EXPECT_TRUE(keys.insert(p.key).second) << "duplicate key " << p.key;
    EXPECT_EQ(findPattern(p.key), &p) << p.key;
    ASSERT_GE(p.instruction, 0);
    ASSERT_LT(std::size_t(p.instruction), kernelInfo(p.kernel).instructions.size()) << p.key;
  }
  EXPECT_EQ(findPattern("no-such-pattern"), nullptr);
  EXPECT_EQ(findPattern(""), nullptr);
}

TEST(MemoryPatterns, SharedSpaceExactlyForTheTilePatternsAndSharedStrided) {
  const std::set<std::string> shared{"tile-rows", "tile-columns", "shared-strided"};
  for (const PatternInfo& p : patterns())
    EXPECT_EQ(patternSpace(p.id) == Space::Shared, shared.count(p.key) == 1) << p.key;
}

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

TEST(MemoryParams, DefaultsAreValid) {
  EXPECT_TRUE(validate(PatternParams{}).ok());
  PatternParams p;
  for (int e : {1, 2, 4, 8, 16}) {
    p.elementBytes = e;
    EXPECT_TRUE(validate(p).ok()) << e;
  }
  p = {};
  p.elementsPerThread = 1;
  p.padded = true;
  EXPECT_TRUE(validate(p).ok());
}

TEST(MemoryParams, RefusalsNameTheParameter) {
  PatternParams p;
  p.stride = 33;
  Status s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "Stride")) << s.message();

  p = {};
  p.elementBytes = 3;
  s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "Element size")) << s.message();
  EXPECT_TRUE(contains(s.message(), "3")) << s.message();

  p = {};
  p.elementBytes = 32;
  s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "Element size")) << s.message();

  p = {};
  p.rows = 0;
  s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "Rows")) << s.message();

  p = {};
  p.elementsPerThread = 2;
  s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "Elements per thread")) << s.message();

  p = {};
  p.count = 16;
  EXPECT_FALSE(validate(p).ok());
  p = {};
  p.structFloats = 9;
  EXPECT_FALSE(validate(p).ok());
  p = {};
  p.offset = -1;
  EXPECT_FALSE(validate(p).ok());
}

// ---------------------------------------------------------------------------------------------
// One warp's request
// ---------------------------------------------------------------------------------------------

TEST(MemoryWarpRequest, StridedSectors) {
  PatternParams p;
  const int expected[][2] = {{1, 4}, {2, 8}, {4, 16}, {8, 32}, {32, 32}};
  for (const auto& [stride, sectors] : expected) {
    p.stride = stride;
    EXPECT_EQ(sectorsOf(PatternId::Strided, p), sectors) << "stride " << stride;
  }
  // Offset 1: bytes 4..131, sectors 0..4.
  p.stride = 1;
  p.offset = 1;
  EXPECT_EQ(sectorsOf(PatternId::Strided, p), 5);
  // Stride 0: every lane reads element `offset`: one sector.
  p.stride = 0;
  EXPECT_EQ(sectorsOf(PatternId::Strided, p), 1);
  // Doubles, stride 1: 256 bytes, 8 sectors.
  p = {};
  p.elementBytes = 8;
  EXPECT_EQ(sectorsOf(PatternId::Strided, p), 8);
}

TEST(MemoryWarpRequest, StridedLastWarpIsPartial) {
  // count 40: block 0's warp 1 has lanes 32..39 active (8 lanes), warps 2..7 none.
  PatternParams p;
  p.count = 40;
  EXPECT_EQ(warpRequest(PatternId::Strided, p, 0, 0).activeMask, 0xffffffffu);
  EXPECT_EQ(warpRequest(PatternId::Strided, p, 1, 0).activeMask, 0xffu);
  EXPECT_EQ(warpRequest(PatternId::Strided, p, 2, 0).activeMask, 0u);
  // Past the grid, or past the loop: no request.
  EXPECT_EQ(warpRequest(PatternId::Strided, p, 8, 0).activeMask, 0u);
  EXPECT_EQ(warpRequest(PatternId::Strided, p, 0, 1).activeMask, 0u);
}

TEST(MemoryWarpRequest, ColumnWiseIsThirtyTwoSectorsRowWiseFour) {
  PatternParams p;
  p.rows = p.cols = 64;
  // Columns: lanes are a row (64 floats = 256 bytes) apart. Grid 2 x 8 blocks of 8 warps.
  const LaunchShape c = launchShape(KernelId::TraverseColumns, p);
  ASSERT_EQ(c.warps(), 128);
  for (long long w = 0; w < c.warps(); ++w) {
    const WarpRequest r = warpRequest(PatternId::ColumnWise, p, w, 0);
    ASSERT_EQ(r.activeMask, 0xffffffffu) << "warp " << w;
    EXPECT_EQ(analyzeGlobal(r).sectorCount(), 32) << "warp " << w;
  }
  // Rows: rows of 256 bytes start aligned, each warp reads half a row = one 128-byte line.
  p.rows = 100;
  const LaunchShape s = launchShape(KernelId::TraverseRows, p);
  int requests = 0;
  for (long long w = 0; w < s.warps(); ++w) {
    const WarpRequest r = warpRequest(PatternId::RowWise, p, w, 0);
    if (r.activeMask == 0) continue;
    ++requests;
    EXPECT_EQ(analyzeGlobal(r).sectorCount(), 4) << "warp " << w;
  }
  // 100 rows x 2 blocks across; the 13th row of blocks has rows 96..103, 4 of them past the end.
  EXPECT_EQ(requests, 200);
}

TEST(MemoryWarpRequest, ArrayOfStructuresAgainstStructureOfArrays) {
  // AoS of 3 floats: lane l reads byte 12l, 32 lanes span bytes 0..375, sectors 0..11; lanes
  // are 12 bytes apart (< 32), so every sector in between is touched: 12.
  PatternParams p;
  p.structFloats = 3;
  const GlobalAccess aos = analyzeGlobal(warpRequest(PatternId::AoS, p, 0, 0));
  EXPECT_EQ(aos.sectorCount(), 12);
  EXPECT_EQ(aos.bytesRequested, 128);
  EXPECT_EQ(sectorsOf(PatternId::SoA, p), 4);
  // 8 floats per structure: lanes 32 bytes apart, one sector each.
  p.structFloats = 8;
  EXPECT_EQ(sectorsOf(PatternId::AoS, p), 32);
  // 2 floats: 256 bytes, 8 sectors.
  p.structFloats = 2;
  EXPECT_EQ(sectorsOf(PatternId::AoS, p), 8);
}

TEST(MemoryWarpRequest, NaiveTranspose) {
  PatternParams p;
  p.rows = p.cols = 64;
  EXPECT_EQ(sectorsOf(PatternId::TransposeRead, p), 4);
  EXPECT_EQ(sectorsOf(PatternId::TransposeWrite, p), 32);
  // Another warp: block (1, 3), warp row 5: still 4 and 32.
  const long long w = (3 * 2 + 1) * 8 + 5;
  EXPECT_EQ(sectorsOf(PatternId::TransposeRead, p, w), 4);
  EXPECT_EQ(sectorsOf(PatternId::TransposeWrite, p, w), 32);
}

TEST(MemoryWarpRequest, NaiveMatmul) {
  PatternParams p;
  p.rows = p.cols = 64;
  p.inner = 16;
  for (int k : {0, 7, 15}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    // Course: i on x. A[i][k]: lanes a row of A (16 floats = 64 bytes) apart: 32 sectors.
    EXPECT_EQ(sectorsOf(PatternId::MatmulA, p, 0, k), 32);
    // B[k][j], j the same for the warp: one float.
    EXPECT_EQ(sectorsOf(PatternId::MatmulB, p, 0, k), 1);
    // Swapped: j on x. A[i][k] the same for the warp; B[k][j] 32 consecutive floats.
    EXPECT_EQ(sectorsOf(PatternId::MatmulSwappedA, p, 0, k), 1);
    EXPECT_EQ(sectorsOf(PatternId::MatmulSwappedB, p, 0, k), 4);
  }
  // Past the loop: no request.
  EXPECT_EQ(warpRequest(PatternId::MatmulA, p, 0, 16).activeMask, 0u);
}

TEST(MemoryWarpRequest, SharedTiles) {
  PatternParams p;
  for (int ept : {1, 4}) {
    for (bool padded : {false, true}) {
      SCOPED_TRACE("elementsPerThread " + std::to_string(ept) + (padded ? " padded" : ""));
      p.elementsPerThread = ept;
      p.padded = padded;
      for (long long w : {0LL, 3LL}) {
        for (int it = 0; it < ept; ++it) {
          EXPECT_EQ(wavefrontsOf(PatternId::TileRows, p, w, it), 1);
          EXPECT_EQ(wavefrontsOf(PatternId::TileColumns, p, w, it), padded ? 1 : 32);
        }
      }
    }
  }
}

TEST(MemoryWarpRequest, SharedStrided) {
  PatternParams p;
  const int expected[][2] = {{0, 1}, {1, 1}, {2, 2}, {4, 4}, {32, 32}};
  for (const auto& [stride, wavefronts] : expected) {
    p.stride = stride;
    EXPECT_EQ(wavefrontsOf(PatternId::SharedStrided, p), wavefronts) << "stride " << stride;
  }
  p.stride = 0;
  EXPECT_TRUE(analyzeShared(warpRequest(PatternId::SharedStrided, p, 0, 0)).broadcast);
  // Odd strides are conflict-free.
  p.stride = 3;
  EXPECT_EQ(analyzeShared(warpRequest(PatternId::SharedStrided, p, 0, 0)).degree, 1);
}

// ---------------------------------------------------------------------------------------------
// Whole kernel
// ---------------------------------------------------------------------------------------------

TEST(MemoryKernelMap, TransposeWriteAtSixtyFour) {
  PatternParams p;
  p.rows = p.cols = 64;
  const Result<KernelMap> m = kernelMap(PatternId::TransposeWrite, p);
  ASSERT_TRUE(m.ok()) << m.status().sentence();
  const LaunchShape& s = m->shape;
  EXPECT_EQ(s.gridX, 2);
  EXPECT_EQ(s.gridY, 8);
  EXPECT_EQ(m->cols, s.gridX);
  EXPECT_EQ(m->rows, s.gridY * s.blockY);
  ASSERT_EQ(m->perWarp.size(), std::size_t(m->rows * m->cols));
  for (double v : m->perWarp) {
    EXPECT_FALSE(std::isnan(v));
    EXPECT_EQ(v, 32.0);
  }
  EXPECT_EQ(m->totals.requests, 128);
  EXPECT_DOUBLE_EQ(m->totals.sectorsPerRequest(), 32.0);
  EXPECT_EQ(m->minValue, 32.0);
  EXPECT_EQ(m->maxValue, 32.0);
}

TEST(MemoryKernelMap, EdgeWarpsAtThirtyThree) {
  // rows = cols = 33: grid 2 x 5 blocks of 32 x 8, map 40 rows x 2 columns. Warp rows y < 33
  // ran (in column 1 only lane x = 32 is active); rows 33..39 are past the array.
  PatternParams p;
  p.rows = p.cols = 33;
  const Result<KernelMap> m = kernelMap(PatternId::TransposeWrite, p);
  ASSERT_TRUE(m.ok()) << m.status().sentence();
  ASSERT_EQ(m->cols, 2);
  ASSERT_EQ(m->rows, 40);
  for (int y = 0; y < m->rows; ++y) {
    for (int x = 0; x < m->cols; ++x) {
      const double v = m->perWarp[std::size_t(y * m->cols + x)];
      if (y >= 33) {
        EXPECT_TRUE(std::isnan(v)) << y << ", " << x;
      } else {
        // Full warps write 32 rows of B, 132 bytes apart: 32 sectors. The edge warp: 1 lane.
        EXPECT_EQ(v, x == 0 ? 32.0 : 1.0) << y << ", " << x;
      }
    }
  }
  EXPECT_EQ(m->totals.requests, 66);
  EXPECT_EQ(m->totals.sectors, 33 * 32 + 33 * 1);
  EXPECT_EQ(m->totals.bytesRequested, 33 * 33 * 4);
  EXPECT_EQ(m->minValue, 1.0);
  EXPECT_EQ(m->maxValue, 32.0);
}

TEST(MemoryKernelMap, OneDimensionalKernelsInRowsOfThirtyTwo) {
  // 8192 threads = 256 warps, as 8 rows of 32.
  PatternParams p;
  const Result<KernelMap> m = kernelMap(PatternId::Strided, p);
  ASSERT_TRUE(m.ok()) << m.status().sentence();
  EXPECT_EQ(m->cols, 32);
  EXPECT_EQ(m->rows, 8);
  EXPECT_EQ(m->totals.requests, 256);
  EXPECT_DOUBLE_EQ(m->totals.sectorsPerRequest(), 4.0);
  EXPECT_DOUBLE_EQ(m->totals.efficiency(), 1.0);
}

TEST(MemoryKernelMap, SharedMapCountsWavefronts) {
  PatternParams p;
  p.rows = p.cols = 64;
  const Result<KernelMap> m = kernelMap(PatternId::TileColumns, p);
  ASSERT_TRUE(m.ok()) << m.status().sentence();
  EXPECT_DOUBLE_EQ(m->totals.wavefrontsPerRequest(), 32.0);
  EXPECT_EQ(m->totals.sectors, 0);
  for (double v : m->perWarp)
    EXPECT_EQ(v, 32.0);
}

TEST(MemoryKernelMap, NoKernelWithinTheRangesExceedsTheMapLimit) {
  // The largest launch any parameters allow: count 1 << 20 (4096 blocks of 8 warps), rows and
  // columns 1024 (for the tiled kernels with 1 element per thread, 32 x 32 blocks of 32 warps).
  // Each is 32768 warps, under kMaxMapWarps, so the size refusal cannot be reached through
  // valid parameters and is not tested here.
  PatternParams p;
  p.count = 1 << 20;
  p.rows = p.cols = 1024;
  p.inner = 256;
  for (int ept : {1, 4}) {
    p.elementsPerThread = ept;
    for (const KernelInfo& k : kernelInfos())
      EXPECT_LE(launchShape(k.id, p).warps(), kMaxMapWarps) << k.name;
  }
}

TEST(MemoryKernelMap, RefusesInvalidParametersAndCancellation) {
  PatternParams p;
  p.elementBytes = 3;
  const Result<KernelMap> bad = kernelMap(PatternId::Strided, p);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.status().message(), "Element size"));

  const std::atomic<bool> cancel{true};
  const Result<KernelMap> cancelled = kernelMap(PatternId::Strided, PatternParams{}, &cancel);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_FALSE(cancelled.status().message().empty());

  const std::atomic<bool> go{false};
  EXPECT_TRUE(kernelMap(PatternId::Strided, PatternParams{}, &go).ok());
}

TEST(MemoryKernelTotals, TiledTransposeInInstructionOrder) {
  PatternParams p;
  p.rows = p.cols = 64;
  p.elementsPerThread = 4;
  p.padded = false;
  // Grid 2 x 2 blocks of 32 x 8 = 8 warps, 4 trips each: 128 requests per instruction.
  const std::vector<InstructionTotals> t = kernelTotals(KernelId::TransposeTiled, p);
  ASSERT_EQ(t.size(), 4u);
  for (const InstructionTotals& i : t)
    EXPECT_EQ(i.requests, 128);
  EXPECT_DOUBLE_EQ(t[0].sectorsPerRequest(), 4.0);      // load A, along a row
  EXPECT_DOUBLE_EQ(t[1].wavefrontsPerRequest(), 1.0);   // tile[ty][tx] = ...
  EXPECT_DOUBLE_EQ(t[2].wavefrontsPerRequest(), 32.0);  // ... = tile[tx][ty]
  EXPECT_DOUBLE_EQ(t[3].sectorsPerRequest(), 4.0);      // store B, along a row
  EXPECT_EQ(t[0].bytesRequested, 64 * 64 * 4);
  EXPECT_EQ(t[3].bytesRequested, 64 * 64 * 4);

  p.padded = true;
  const std::vector<InstructionTotals> q = kernelTotals(KernelId::TransposeTiled, p);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_DOUBLE_EQ(q[1].wavefrontsPerRequest(), 1.0);
  EXPECT_DOUBLE_EQ(q[2].wavefrontsPerRequest(), 1.0);
  EXPECT_DOUBLE_EQ(q[0].sectorsPerRequest(), 4.0);
  EXPECT_DOUBLE_EQ(q[3].sectorsPerRequest(), 4.0);
}

TEST(MemoryKernelTotals, TransposeReadOfSizesNotMultiplesOfThirtyTwo) {
  // rows 31, cols 33: grid ceil(33/32) = 2 by ceil(31/8) = 4 blocks of 32 x 8; a warp is one
  // row y of a block. Rows y = 0..30 ran (y = 31 has no lane in the array): 31 rows x 2 = 62
  // requests.
  //   Block column 0: lanes x = 0..31 read bytes 132y .. 132y + 127. 132y mod 32 = 4y mod 32,
  //   which is 0 only for y = 0, 8, 16, 24: 4 sectors there, 5 for the other 27 rows.
  //   Block column 1: only lane x = 32 is active, 1 sector per row.
  //   Sectors: 4 x 4 + 27 x 5 + 31 x 1 = 16 + 135 + 31 = 182. Bytes: 31 x 33 x 4 = 4092.
  PatternParams p;
  p.rows = 31;
  p.cols = 33;
  const LaunchShape s = launchShape(KernelId::TransposeNaive, p);
  EXPECT_EQ(s.gridX, 2);
  EXPECT_EQ(s.gridY, 4);
  const std::vector<InstructionTotals> t = kernelTotals(KernelId::TransposeNaive, p);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].requests, 62);
  EXPECT_EQ(t[0].sectors, 182);
  EXPECT_EQ(t[0].bytesRequested, 4092);

  const Result<KernelMap> m = kernelMap(PatternId::TransposeRead, p);
  ASSERT_TRUE(m.ok()) << m.status().sentence();
  EXPECT_EQ(m->totals.requests, 62);
  EXPECT_EQ(m->totals.sectors, 182);
  EXPECT_EQ(m->rows, 32);
  EXPECT_EQ(m->cols, 2);
  EXPECT_TRUE(std::isnan(m->perWarp[std::size_t(31 * 2 + 0)]));
  EXPECT_TRUE(std::isnan(m->perWarp[std::size_t(31 * 2 + 1)]));
  EXPECT_EQ(m->perWarp[0], 4.0);
  EXPECT_EQ(m->perWarp[std::size_t(1 * 2 + 0)], 5.0);
  EXPECT_EQ(m->perWarp[1], 1.0);
}

}  // namespace
}  // namespace cudalab::mem
