// The matmul lesson's pure C++ side, checked without a GPU: the step table (keys unique, float32
// steps before their cuBLAS row), each step's launch against hand-worked grids and shared-memory
// sizes, refusals that carry the numbers, the tiling model (every thread's cells partition the
// block's tile of C; the Warp step's lanes worked out by hand), the grouped launch order, and
// the global traffic the roofline places each step at.
#include <gtest/gtest.h>

#include "common/format.hpp"

#include <cstddef>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "matmul/matmul.hpp"
#include "matmul/matmul_config.hpp"

namespace cudalab::matmul {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t indexOf(StepId id) {
  const std::span<const StepInfo> all = steps();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].id == id) return i;
  return all.size();
}

// ---------------------------------------------------------------------------------------------
// The step table
// ---------------------------------------------------------------------------------------------

TEST(MatmulSteps, KeysAreUniqueAndRoundTrip) {
  std::set<std::string> keys;
  std::set<int> ids;
  ASSERT_EQ(steps().size(), 14u);
  for (const StepInfo& s : steps()) {
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_TRUE(ids.insert(static_cast<int>(s.id)).second) << s.key;
    const std::optional<StepId> back = stepByKey(s.key);
    ASSERT_TRUE(back.has_value()) << s.key;
    EXPECT_EQ(*back, s.id) << s.key;
    EXPECT_EQ(&stepInfo(s.id), &s) << s.key;
    EXPECT_GT(std::string(s.label).size(), 3u) << s.key;
    EXPECT_GT(std::string(s.help).size(), 40u) << s.key;
  }
  EXPECT_FALSE(stepByKey("").has_value());
  EXPECT_FALSE(stepByKey("NAIVE").has_value());
  EXPECT_FALSE(stepByKey("tiled64").has_value());
  EXPECT_EQ(stepByKey("naive"), StepId::Naive);
  EXPECT_EQ(stepByKey("tiled16"), StepId::Tiled16);
  EXPECT_EQ(stepByKey("cublas"), StepId::Cublas);
  EXPECT_EQ(stepByKey("cublas_tf32"), StepId::CublasTf32);
  EXPECT_EQ(stepByKey("tiled16_f64"), StepId::Tiled64);
}

TEST(MatmulSteps, HandWrittenStepsComeBeforeTheirLibraryRow) {
  const std::size_t cublas = indexOf(StepId::Cublas), cublas64 = indexOf(StepId::Cublas64);
  ASSERT_LT(cublas, steps().size());
  ASSERT_LT(cublas64, steps().size());
  int float32 = 0, float64 = 0;
  for (std::size_t i = 0; i < steps().size(); ++i) {
    const StepInfo& s = steps()[i];
    EXPECT_EQ(handWritten(s), s.family != Family::Library) << s.key;
    if (!handWritten(s)) continue;
    if (s.precision == Precision::Float32) {
      ++float32;
      EXPECT_LT(i, cublas) << s.key << " comes after cuBLAS";
    } else {
      ASSERT_EQ(s.precision, Precision::Float64) << s.key;
      ++float64;
      EXPECT_LT(i, cublas64) << s.key << " comes after cuBLAS DGEMM";
      EXPECT_GT(i, cublas) << s.key << ": float64 steps follow the float32 ladder";
    }
  }
  EXPECT_EQ(float32, 9);
  EXPECT_EQ(float64, 2);
  // In ladder order: float32, then TF32, then float64.
  EXPECT_LT(indexOf(StepId::Warp), indexOf(StepId::Cublas));
  EXPECT_LT(indexOf(StepId::Cublas), indexOf(StepId::CublasTf32));
  EXPECT_LT(indexOf(StepId::CublasTf32), indexOf(StepId::Naive64));
  EXPECT_EQ(steps().back().id, StepId::Cublas64);
}

TEST(MatmulSteps, LibraryForEachPrecision) {
  EXPECT_EQ(libraryFor(Precision::Float32), StepId::Cublas);
  EXPECT_EQ(libraryFor(Precision::Tf32), StepId::Cublas);
  EXPECT_EQ(libraryFor(Precision::Float64), StepId::Cublas64);
  EXPECT_FALSE(handWritten(stepInfo(StepId::Cublas)));
  EXPECT_FALSE(handWritten(stepInfo(StepId::CublasTf32)));
  EXPECT_FALSE(handWritten(stepInfo(StepId::Cublas64)));
  EXPECT_EQ(stepInfo(StepId::CublasTf32).precision, Precision::Tf32);
  EXPECT_STREQ(precisionLabel(Precision::Float32), "float32");
  EXPECT_STREQ(precisionLabel(Precision::Tf32), "TF32");
  EXPECT_STREQ(precisionLabel(Precision::Float64), "float64");
  EXPECT_EQ(elementBytes(Precision::Float32), 4);
  EXPECT_EQ(elementBytes(Precision::Tf32), 4);
  EXPECT_EQ(elementBytes(Precision::Float64), 8);
}

// ---------------------------------------------------------------------------------------------
// Launch arithmetic, against grids worked out by hand
// ---------------------------------------------------------------------------------------------

struct WantLaunch {
  int gridX, gridY, blockX, blockY, sharedBytes;
};

void expectLaunch(StepId id, int M, int N, int K, WantLaunch want) {
  const StepLaunch c = stepLaunch(stepInfo(id), M, N, K);
  SCOPED_TRACE(std::string(stepInfo(id).key) + " at " + std::to_string(M) + " x " +
               std::to_string(N) + " x " + std::to_string(K));
  EXPECT_EQ(c.gridX, want.gridX);
  EXPECT_EQ(c.gridY, want.gridY);
  EXPECT_EQ(c.blockX, want.blockX);
  EXPECT_EQ(c.blockY, want.blockY);
  EXPECT_EQ(c.sharedBytes, want.sharedBytes);
  EXPECT_EQ(c.blocks(), 1LL * want.gridX * want.gridY);
  EXPECT_EQ(c.threadsPerBlock(), want.blockX * want.blockY);
}

TEST(MatmulLaunch, NaiveMappingsAtAwkwardSizes) {
  // Course mapping: x walks the 17 rows (2 blocks of 16), y the 33 columns (3 blocks).
  expectLaunch(StepId::Naive, 17, 33, 9, {2, 3, 16, 16, 0});
  // Swapped: x walks the 33 columns.
  expectLaunch(StepId::Swapped, 17, 33, 9, {3, 2, 16, 16, 0});
  expectLaunch(StepId::Naive64, 17, 33, 9, {2, 3, 16, 16, 0});
  expectLaunch(StepId::Naive, 1, 1, 1, {1, 1, 16, 16, 0});
  expectLaunch(StepId::Swapped, 1, 1, 1, {1, 1, 16, 16, 0});
  expectLaunch(StepId::Naive, 4096, 4096, 4096, {256, 256, 16, 16, 0});
  expectLaunch(StepId::Naive, 16, 32, 1, {1, 2, 16, 16, 0});
  expectLaunch(StepId::Swapped, 16, 32, 1, {2, 1, 16, 16, 0});
}

TEST(MatmulLaunch, TiledGridsAndSharedMemory) {
  // 257 x 129: x covers 129 columns, y 257 rows.
  expectLaunch(StepId::Tiled8, 257, 129, 511, {17, 33, 8, 8, 512});
  expectLaunch(StepId::Tiled16, 257, 129, 511, {9, 17, 16, 16, 2048});
  expectLaunch(StepId::Tiled32, 257, 129, 511, {5, 9, 32, 32, 8192});
  expectLaunch(StepId::Tiled64, 257, 129, 511, {9, 17, 16, 16, 4096});
  expectLaunch(StepId::Tiled16, 4096, 4096, 4096, {256, 256, 16, 16, 2048});
  expectLaunch(StepId::Tiled32, 32, 32, 32, {1, 1, 32, 32, 8192});
  expectLaunch(StepId::Tiled32, 33, 32, 32, {1, 2, 32, 32, 8192});
}

TEST(MatmulLaunch, BlockedAndWarpGrids) {
  // reg1d: 64 x 64 tiles, 512 threads in x.
  expectLaunch(StepId::Reg1D, 257, 129, 511, {3, 5, 512, 1, 4096});
  expectLaunch(StepId::Reg1D, 4096, 4096, 4096, {64, 64, 512, 1, 4096});
  // reg2d and vec4: 128 x 128 tiles, 256 threads.
  expectLaunch(StepId::Reg2D, 257, 129, 511, {2, 3, 256, 1, 8192});
  expectLaunch(StepId::Vec4, 257, 129, 511, {2, 3, 256, 1, 8192});
  expectLaunch(StepId::Reg2D, 4096, 4096, 4096, {32, 32, 256, 1, 8192});
  expectLaunch(StepId::Vec4, 4096, 4096, 4096, {32, 32, 256, 1, 8192});
  // warp: 128 rows x 256 columns per block, 256 threads; two 8 x (132 + 256) float buffers.
  expectLaunch(StepId::Warp, 257, 129, 511, {1, 3, 256, 1, 24832});
  expectLaunch(StepId::Warp, 4096, 4096, 4096, {16, 32, 256, 1, 24832});
  expectLaunch(StepId::Warp, 1, 1, 1, {1, 1, 256, 1, 24832});
}

TEST(MatmulLaunch, StepTableShapes) {
  const StepInfo& warp = stepInfo(StepId::Warp);
  EXPECT_EQ(warp.tileM, 128);
  EXPECT_EQ(warp.tileN, 256);
  EXPECT_EQ(warp.tileK, 8);
  EXPECT_EQ(warp.threadM, 16);
  EXPECT_EQ(warp.threadN, 8);
  EXPECT_EQ(warp.sharedBytes, 24832);
  EXPECT_TRUE(warp.vectorised);
  EXPECT_TRUE(stepInfo(StepId::Vec4).vectorised);
  EXPECT_FALSE(stepInfo(StepId::Reg2D).vectorised);
  EXPECT_EQ(stepInfo(StepId::Reg1D).threadM, 8);
  EXPECT_EQ(stepInfo(StepId::Reg1D).threadN, 1);
  EXPECT_EQ(stepInfo(StepId::Reg2D).threadM, 8);
  EXPECT_EQ(stepInfo(StepId::Reg2D).threadN, 8);
  EXPECT_TRUE(stepInfo(StepId::Naive).courseMapping);
  EXPECT_FALSE(stepInfo(StepId::Swapped).courseMapping);
  EXPECT_TRUE(stepInfo(StepId::Naive64).courseMapping);
  // Every hand-written step covers its tile with its threads' outputs.
  for (const StepInfo& s : steps()) {
    if (!handWritten(s)) continue;
    EXPECT_EQ(s.blockX * s.blockY * s.threadM * s.threadN, s.tileM * s.tileN) << s.key;
  }
}

TEST(MatmulLaunch, LibraryStepsHaveNoLaunch) {
  for (StepId id : {StepId::Cublas, StepId::CublasTf32, StepId::Cublas64}) {
    const StepLaunch c = stepLaunch(stepInfo(id), 257, 129, 511);
    EXPECT_EQ(c.gridX, 0) << stepInfo(id).key;
    EXPECT_EQ(c.gridY, 0);
    EXPECT_EQ(c.blockX, 0);
    EXPECT_EQ(c.blockY, 0);
    EXPECT_EQ(c.sharedBytes, 0);
    EXPECT_EQ(c.blocks(), 0);
    EXPECT_EQ(c.threadsPerBlock(), 0);
    EXPECT_EQ(tileSteps(stepInfo(id), 511), 0);
    EXPECT_TRUE(ownedCells(stepInfo(id), 0).empty());
  }
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

TEST(MatmulValidation, TileRefusedForTooManyThreads) {
  const Status s = validateTile(TileChoice{64, Precision::Float32}, BlockLimits{});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "4,096")) << s.message();
  EXPECT_TRUE(contains(s.message(), "1,024")) << s.message();
  EXPECT_TRUE(contains(s.message(), "32 x 32")) << s.message();  // the largest that fits
  // float64 at 64 is refused for threads too, before shared memory is looked at.
  const Status d = validateTile(TileChoice{64, Precision::Float64}, BlockLimits{});
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(contains(d.message(), "4,096")) << d.message();
}

TEST(MatmulValidation, TileAcceptedWithinLimits) {
  for (int t : {1, 4, 8, 16, 32}) {
    EXPECT_TRUE(validateTile(TileChoice{t, Precision::Float32}, BlockLimits{}).ok()) << t;
    EXPECT_TRUE(validateTile(TileChoice{t, Precision::Float64}, BlockLimits{}).ok()) << t;
  }
  EXPECT_TRUE(validateTile(TileChoice{32, Precision::Float32}, BlockLimits{1024, 48 * 1024}).ok());
  EXPECT_EQ((TileChoice{32, Precision::Float32}.sharedBytes()), 8192);
  EXPECT_EQ((TileChoice{16, Precision::Float64}.sharedBytes()), 4096);
  EXPECT_EQ((TileChoice{32, Precision::Float32}.threads()), 1024);
  EXPECT_FALSE(validateTile(TileChoice{0, Precision::Float32}, BlockLimits{}).ok());
  // Of the choices the panel offers, only 64 is refused on a default device.
  int refused = 0;
  for (int t : kTileChoices)
    refused += validateTile(TileChoice{t, Precision::Float32}, BlockLimits{}).ok() ? 0 : 1;
  EXPECT_EQ(refused, 1);
}

TEST(MatmulValidation, TileRefusedForSharedMemory) {
  const Status s = validateTile(TileChoice{32, Precision::Float32}, BlockLimits{1024, 4096});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "8,192")) << s.message();
  EXPECT_TRUE(contains(s.message(), "4,096")) << s.message();
  EXPECT_TRUE(contains(s.message(), "float32")) << s.message();
  // 16 x 16 float32 needs 2,048 bytes: fits; float64 needs 4,096: fits exactly.
  EXPECT_TRUE(validateTile(TileChoice{16, Precision::Float32}, BlockLimits{1024, 4096}).ok());
  EXPECT_TRUE(validateTile(TileChoice{16, Precision::Float64}, BlockLimits{1024, 4096}).ok());
  const Status d = validateTile(TileChoice{16, Precision::Float64}, BlockLimits{1024, 4095});
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(contains(d.message(), "float64")) << d.message();
  EXPECT_TRUE(contains(d.message(), "4,095")) << d.message();
}

TEST(MatmulValidation, EveryStepLaunchesWithinDefaultLimits) {
  for (const StepInfo& s : steps())
    EXPECT_TRUE(validateLaunch(s, BlockLimits{}).ok()) << s.key;
}

TEST(MatmulValidation, StepLaunchesRefusedWithTheNumbers) {
  // 32 threads per block: every hand-written step needs more (Tiled8 has the fewest, 64).
  for (const StepInfo& s : steps()) {
    const Status st = validateLaunch(s, BlockLimits{32, 48 * 1024});
    if (!handWritten(s)) {
      EXPECT_TRUE(st.ok()) << s.key;
      continue;
    }
    ASSERT_FALSE(st.ok()) << s.key;
    EXPECT_TRUE(contains(st.message(), "32 threads")) << st.message();
    EXPECT_TRUE(contains(st.message(), s.label)) << st.message();
  }
  const Status naive = validateLaunch(stepInfo(StepId::Naive), BlockLimits{128, 48 * 1024});
  ASSERT_FALSE(naive.ok());
  EXPECT_TRUE(contains(naive.message(), "256 threads")) << naive.message();
  EXPECT_TRUE(contains(naive.message(), "128 threads")) << naive.message();
  const Status tiled32 = validateLaunch(stepInfo(StepId::Tiled32), BlockLimits{512, 48 * 1024});
  ASSERT_FALSE(tiled32.ok());
  EXPECT_TRUE(contains(tiled32.message(), "1,024 threads")) << tiled32.message();

  // Shared memory: 16 KiB refuses the Warp step (24,832 bytes) and nothing else.
  for (const StepInfo& s : steps()) {
    const Status st = validateLaunch(s, BlockLimits{1024, 16 * 1024});
    if (s.id != StepId::Warp) {
      EXPECT_TRUE(st.ok()) << s.key << ": " << st.message();
      continue;
    }
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(contains(st.message(), "24,832 bytes")) << st.message();
    EXPECT_TRUE(contains(st.message(), "16,384 bytes")) << st.message();
  }
  const Status tiled16 = validateLaunch(stepInfo(StepId::Tiled16), BlockLimits{1024, 1000});
  ASSERT_FALSE(tiled16.ok());
  EXPECT_TRUE(contains(tiled16.message(), "2,048 bytes")) << tiled16.message();
  EXPECT_TRUE(contains(tiled16.message(), "1,000 bytes")) << tiled16.message();
}

TEST(MatmulValidation, SizesFromOneTo16384) {
  EXPECT_TRUE(validate(MatmulParams{}).ok());
  EXPECT_TRUE(validate(MatmulParams{1, 1, 1}).ok());
  EXPECT_TRUE(validate(MatmulParams{16384, 16384, 16384}).ok());
  EXPECT_TRUE(validate(MatmulParams{17, 33, 9}).ok());
  for (int bad : {0, -1, 16385}) {
    const Status m = validate(MatmulParams{bad, 5, 5});
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_TRUE(contains(m.message(), "M")) << m.message();
    EXPECT_TRUE(contains(m.message(), thousands(bad))) << m.message();
    const Status n = validate(MatmulParams{5, bad, 5});
    ASSERT_FALSE(n.ok()) << bad;
    EXPECT_TRUE(contains(n.message(), "N must")) << n.message();
    const Status k = validate(MatmulParams{5, 5, bad});
    ASSERT_FALSE(k.ok()) << bad;
    EXPECT_TRUE(contains(k.message(), "K must")) << k.message();
  }
  const Status big = validate(MatmulParams{16385, 1, 1});
  EXPECT_TRUE(contains(big.message(), "16,384")) << big.message();
  EXPECT_FALSE(validate(MatmulParams{8, 8, 8, -1, 10}).ok());
  EXPECT_FALSE(validate(MatmulParams{8, 8, 8, 2, 0}).ok());
  EXPECT_FALSE(validate(MatmulParams{8, 8, 8, 2, 1001}).ok());
  EXPECT_TRUE(validate(MatmulParams{8, 8, 8, 0, 1}).ok());
  EXPECT_TRUE(validate(MatmulParams{8, 8, 8, 0, 1000}).ok());
}

TEST(MatmulValidation, MemoryCheckRefusesWithTheSizes) {
  // 1024^3 in float64: 3 x 8 MiB for A, B and C plus 64 MiB of cuBLAS workspace = 88 MiB.
  const MatmulParams p{1024, 1024, 1024};
  const std::size_t mib = 1024 * 1024;
  EXPECT_TRUE(checkMemory(p, 88 * mib).ok());
  EXPECT_TRUE(checkMemory(p, 1000 * mib).ok());
  const Status s = checkMemory(p, 80 * mib);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "1024 x 1024 x 1024")) << s.message();
  EXPECT_TRUE(contains(s.message(), "88 MiB")) << s.message();
  EXPECT_TRUE(contains(s.message(), "80 MiB")) << s.message();
  EXPECT_FALSE(checkMemory(p, 88 * mib - 1).ok());
  // 16384^3 needs 3 x 2 GiB + 64 MiB = 6,208 MiB.
  const Status huge = checkMemory(MatmulParams{16384, 16384, 16384}, 4096 * mib);
  ASSERT_FALSE(huge.ok());
  EXPECT_TRUE(contains(huge.message(), "6,208 MiB")) << huge.message();
  EXPECT_TRUE(contains(huge.message(), "4,096 MiB")) << huge.message();
  EXPECT_FALSE(checkMemory(MatmulParams{1, 1, 1}, 0).ok());
}

// ---------------------------------------------------------------------------------------------
// Tiling model
// ---------------------------------------------------------------------------------------------

TEST(MatmulTiling, ThreadsPartitionTheBlockTile) {
  for (const StepInfo& s : steps()) {
    if (!handWritten(s)) continue;
    SCOPED_TRACE(s.key);
    const int threads = s.blockX * s.blockY;
    std::vector<int> owner(static_cast<std::size_t>(s.tileM) * static_cast<std::size_t>(s.tileN),
                           -1);
    for (int t = 0; t < threads; ++t) {
      const std::vector<Cell> cells = ownedCells(s, t);
      ASSERT_EQ(cells.size(), static_cast<std::size_t>(s.threadM * s.threadN)) << "thread " << t;
      for (const Cell& c : cells) {
        ASSERT_GE(c.row, 0);
        ASSERT_LT(c.row, s.tileM);
        ASSERT_GE(c.col, 0);
        ASSERT_LT(c.col, s.tileN);
        int& o = owner[static_cast<std::size_t>(c.row) * static_cast<std::size_t>(s.tileN) +
                       static_cast<std::size_t>(c.col)];
        ASSERT_EQ(o, -1) << "cell (" << c.row << ", " << c.col << ") owned by threads " << o
                         << " and " << t;
        o = t;
      }
    }
    for (std::size_t i = 0; i < owner.size(); ++i)
      ASSERT_NE(owner[i], -1) << "cell " << i << " has no owner";
    EXPECT_TRUE(ownedCells(s, -1).empty());
    EXPECT_TRUE(ownedCells(s, threads).empty());
  }
}

TEST(MatmulTiling, SimpleStepsOwnTheCellsTheKernelsWrite) {
  // Naive, course mapping: thread (x, y) = (3, 5) of a 16 x 16 block is row 3, column 5.
  EXPECT_EQ(ownedCells(stepInfo(StepId::Naive), 3 + 5 * 16), (std::vector<Cell>{{3, 5}}));
  EXPECT_EQ(ownedCells(stepInfo(StepId::Swapped), 3 + 5 * 16), (std::vector<Cell>{{5, 3}}));
  EXPECT_EQ(ownedCells(stepInfo(StepId::Tiled16), 3 + 5 * 16), (std::vector<Cell>{{5, 3}}));
  EXPECT_EQ(ownedCells(stepInfo(StepId::Tiled8), 7 + 2 * 8), (std::vector<Cell>{{2, 7}}));
  // reg1d: thread 70 is column 6 of the second group of 8 rows.
  const std::vector<Cell> r1 = ownedCells(stepInfo(StepId::Reg1D), 70);
  ASSERT_EQ(r1.size(), 8u);
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(r1[static_cast<std::size_t>(r)], (Cell{8 + r, 6}));
  // reg2d: 16 threads per row of 8 x 8 tiles; thread 17 is tile row 1, tile column 1.
  const std::vector<Cell> r2 = ownedCells(stepInfo(StepId::Reg2D), 17);
  ASSERT_EQ(r2.size(), 64u);
  EXPECT_EQ(r2.front(), (Cell{8, 8}));
  EXPECT_EQ(r2[1], (Cell{8, 9}));
  EXPECT_EQ(r2[8], (Cell{9, 8}));
  EXPECT_EQ(r2.back(), (Cell{15, 15}));
  const std::vector<Cell> last = ownedCells(stepInfo(StepId::Vec4), 255);
  ASSERT_EQ(last.size(), 64u);
  EXPECT_EQ(last.front(), (Cell{120, 120}));
  EXPECT_EQ(last.back(), (Cell{127, 127}));
}

// The Warp step's cells: rows x cols as sets, worked out by hand from WarpTiling<128, 256, 8, 64,
// 64, 4, 8>: 8 warps in 2 rows x 4 columns of 64 x 64; lanes 4 x 8; each lane 4 x 2 sub-tiles of
// 4 x 4, 16 rows and 32 columns apart.
void expectWarpCells(int thread, const std::vector<int>& rows, const std::vector<int>& cols) {
  SCOPED_TRACE("thread " + std::to_string(thread));
  const std::vector<Cell> cells = ownedCells(stepInfo(StepId::Warp), thread);
  ASSERT_EQ(cells.size(), rows.size() * cols.size());
  // Register order: output i (row) major, output j (column) minor.
  std::size_t n = 0;
  for (int r : rows)
    for (int c : cols)
      EXPECT_EQ(cells[n++], (Cell{r, c}));
}

TEST(MatmulTiling, WarpLanesWorkedByHand) {
  // Thread 0: warp 0 (rows 0.., columns 0..), lane 0.
  expectWarpCells(0, {0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51},
                  {0, 1, 2, 3, 32, 33, 34, 35});
  // Thread 1: lane 1 sits 4 columns right.
  expectWarpCells(1, {0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51},
                  {4, 5, 6, 7, 36, 37, 38, 39});
  // Thread 8: lane 8 starts the lanes' second row, 4 rows down.
  expectWarpCells(8, {4, 5, 6, 7, 20, 21, 22, 23, 36, 37, 38, 39, 52, 53, 54, 55},
                  {0, 1, 2, 3, 32, 33, 34, 35});
  // Thread 31: lane 31, the lanes' last row and column.
  expectWarpCells(31, {12, 13, 14, 15, 28, 29, 30, 31, 44, 45, 46, 47, 60, 61, 62, 63},
                  {28, 29, 30, 31, 60, 61, 62, 63});
  // Thread 32: warp 1, the next 64 columns.
  expectWarpCells(32, {0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51},
                  {64, 65, 66, 67, 96, 97, 98, 99});
  // Thread 128: warp 4, the second row of warps.
  expectWarpCells(128, {64, 65, 66, 67, 80, 81, 82, 83, 96, 97, 98, 99, 112, 113, 114, 115},
                  {0, 1, 2, 3, 32, 33, 34, 35});
  // Thread 255: warp 7 (row 1, column 3), lane 31.
  expectWarpCells(255, {76, 77, 78, 79, 92, 93, 94, 95, 108, 109, 110, 111, 124, 125, 126, 127},
                  {220, 221, 222, 223, 252, 253, 254, 255});
  EXPECT_EQ(warpOf(0), 0);
  EXPECT_EQ(warpOf(31), 0);
  EXPECT_EQ(warpOf(32), 1);
  EXPECT_EQ(warpOf(255), 7);
}

TEST(MatmulTiling, BlockRangesClipAtTheEdge) {
  const StepInfo& t16 = stepInfo(StepId::Tiled16);
  // Tiled at M = 17: block y = 1 has the last row only.
  EXPECT_EQ(blockRows(t16, 17, 40, 0, 1).begin, 16);
  EXPECT_EQ(blockRows(t16, 17, 40, 0, 1).end, 17);
  EXPECT_EQ(blockRows(t16, 17, 40, 0, 1).size(), 1);
  EXPECT_EQ(blockRows(t16, 17, 40, 0, 0).begin, 0);
  EXPECT_EQ(blockRows(t16, 17, 40, 0, 0).end, 16);
  // N = 40: block x = 2 has columns 32 .. 39.
  EXPECT_EQ(blockCols(t16, 17, 40, 2, 0).begin, 32);
  EXPECT_EQ(blockCols(t16, 17, 40, 2, 0).end, 40);
  EXPECT_EQ(blockCols(t16, 17, 40, 1, 1).begin, 16);
  EXPECT_EQ(blockCols(t16, 17, 40, 1, 1).end, 32);
  // Naive, course mapping at 17 x 33: block x walks rows, so block (1, 2) is row 16, column 32.
  const StepInfo& naive = stepInfo(StepId::Naive);
  EXPECT_EQ(blockRows(naive, 17, 33, 1, 2).begin, 16);
  EXPECT_EQ(blockRows(naive, 17, 33, 1, 2).end, 17);
  EXPECT_EQ(blockCols(naive, 17, 33, 1, 2).begin, 32);
  EXPECT_EQ(blockCols(naive, 17, 33, 1, 2).end, 33);
  // Swapped at 17 x 33: block (2, 1) is the same corner.
  const StepInfo& swapped = stepInfo(StepId::Swapped);
  EXPECT_EQ(blockRows(swapped, 17, 33, 2, 1).begin, 16);
  EXPECT_EQ(blockCols(swapped, 17, 33, 2, 1).begin, 32);
  EXPECT_EQ(blockCols(swapped, 17, 33, 2, 1).end, 33);
  // Reg1D at 257 x 129: block (2, 4) is rows 256 .. 256, columns 128 .. 128.
  const StepInfo& r1 = stepInfo(StepId::Reg1D);
  EXPECT_EQ(blockRows(r1, 257, 129, 2, 4).begin, 256);
  EXPECT_EQ(blockRows(r1, 257, 129, 2, 4).end, 257);
  EXPECT_EQ(blockCols(r1, 257, 129, 2, 4).begin, 128);
  EXPECT_EQ(blockCols(r1, 257, 129, 2, 4).end, 129);
}

TEST(MatmulTiling, WarpBlocksFollowTheGroupedOrder) {
  const StepInfo& w = stepInfo(StepId::Warp);
  // 4096^3: a 16 x 32 grid, groups of 8 tile rows. Launch block (1, 0) is tile row 1, column 0.
  EXPECT_EQ(blockRows(w, 4096, 4096, 1, 0).begin, 128);
  EXPECT_EQ(blockRows(w, 4096, 4096, 1, 0).end, 256);
  EXPECT_EQ(blockCols(w, 4096, 4096, 1, 0).begin, 0);
  EXPECT_EQ(blockCols(w, 4096, 4096, 1, 0).end, 256);
  // Block (8, 0) is launch id 8: tile row 0, column 1.
  EXPECT_EQ(blockRows(w, 4096, 4096, 8, 0).begin, 0);
  EXPECT_EQ(blockCols(w, 4096, 4096, 8, 0).begin, 256);
  EXPECT_EQ(blockCols(w, 4096, 4096, 8, 0).end, 512);
  // Block (0, 8) is launch id 128: the second group, tile row 8, column 0.
  EXPECT_EQ(blockRows(w, 4096, 4096, 0, 8).begin, 1024);
  EXPECT_EQ(blockCols(w, 4096, 4096, 0, 8).begin, 0);
  // 257 x 129: a 1 x 3 grid; block (0, 2) is the last row alone and every column.
  EXPECT_EQ(blockRows(w, 257, 129, 0, 2).begin, 256);
  EXPECT_EQ(blockRows(w, 257, 129, 0, 2).end, 257);
  EXPECT_EQ(blockCols(w, 257, 129, 0, 2).begin, 0);
  EXPECT_EQ(blockCols(w, 257, 129, 0, 2).end, 129);
}

TEST(MatmulTiling, TileStepsAndStepK) {
  const StepInfo& t16 = stepInfo(StepId::Tiled16);
  EXPECT_EQ(tileSteps(t16, 33), 3);
  EXPECT_EQ(tileSteps(t16, 32), 2);
  EXPECT_EQ(tileSteps(t16, 1), 1);
  EXPECT_EQ(tileSteps(stepInfo(StepId::Naive), 33), 33);
  EXPECT_EQ(tileSteps(stepInfo(StepId::Tiled8), 9), 2);
  EXPECT_EQ(tileSteps(stepInfo(StepId::Tiled32), 511), 16);
  EXPECT_EQ(tileSteps(stepInfo(StepId::Reg1D), 511), 64);
  EXPECT_EQ(tileSteps(stepInfo(StepId::Warp), 33), 5);

  EXPECT_EQ(stepK(t16, 33, 0).begin, 0);
  EXPECT_EQ(stepK(t16, 33, 0).end, 16);
  EXPECT_EQ(stepK(t16, 33, 1).begin, 16);
  EXPECT_EQ(stepK(t16, 33, 1).end, 32);
  EXPECT_EQ(stepK(t16, 33, 2).begin, 32);
  EXPECT_EQ(stepK(t16, 33, 2).end, 33);
  EXPECT_EQ(stepK(t16, 33, 2).size(), 1);
  EXPECT_EQ(stepK(t16, 33, 3).size(), 0);  // past K: empty
  EXPECT_EQ(stepK(stepInfo(StepId::Reg1D), 10, 1).begin, 8);
  EXPECT_EQ(stepK(stepInfo(StepId::Reg1D), 10, 1).end, 10);
  EXPECT_EQ(stepK(stepInfo(StepId::Naive), 9, 4).begin, 4);
  EXPECT_EQ(stepK(stepInfo(StepId::Naive), 9, 4).end, 5);
  EXPECT_EQ((Range{5, 3}).size(), 0);
}

TEST(MatmulTiling, GroupedTileWithoutGroupIsRowMajor) {
  for (int by = 0; by < 5; ++by)
    for (int bx = 0; bx < 7; ++bx) {
      const TileIndex t = groupedTile(bx, by, 7, 5, 0);
      EXPECT_EQ(t.row, by);
      EXPECT_EQ(t.col, bx);
    }
}

TEST(MatmulTiling, GroupedTileWalksDownColumnsOfAGroup) {
  // gridX = 4, gridY = 16, groups of 8: launch ids 0 .. 7 are tile rows 0 .. 7 of column 0,
  // ids 8 .. 15 the same rows of column 1.
  for (int id = 0; id < 8; ++id) {
    const TileIndex t = groupedTile(id % 4, id / 4, 4, 16, 8);
    EXPECT_EQ(t.row, id) << id;
    EXPECT_EQ(t.col, 0) << id;
  }
  const TileIndex t8 = groupedTile(0, 2, 4, 16, 8);  // id 8
  EXPECT_EQ(t8.row, 0);
  EXPECT_EQ(t8.col, 1);
  const TileIndex t31 = groupedTile(3, 7, 4, 16, 8);  // id 31: last of the first group
  EXPECT_EQ(t31.row, 7);
  EXPECT_EQ(t31.col, 3);
  const TileIndex t32 = groupedTile(0, 8, 4, 16, 8);  // id 32: the second group starts
  EXPECT_EQ(t32.row, 8);
  EXPECT_EQ(t32.col, 0);
}

TEST(MatmulTiling, GroupedTileHitsEveryTileOnce) {
  const std::vector<std::pair<int, int>> grids = {{4, 16}, {4, 13}, {1, 3}, {16, 32},
                                                  {3, 7},  {5, 8},  {7, 1}, {1, 1}};
  for (auto [gx, gy] : grids)
    for (int group : {0, 1, 3, 8}) {
      SCOPED_TRACE(std::to_string(gx) + " x " + std::to_string(gy) + " group " +
                   std::to_string(group));
      std::vector<int> hits(static_cast<std::size_t>(gx * gy), 0);
      for (int by = 0; by < gy; ++by)
        for (int bx = 0; bx < gx; ++bx) {
          const TileIndex t = groupedTile(bx, by, gx, gy, group);
          ASSERT_GE(t.row, 0);
          ASSERT_LT(t.row, gy);
          ASSERT_GE(t.col, 0);
          ASSERT_LT(t.col, gx);
          ++hits[static_cast<std::size_t>(t.row * gx + t.col)];
        }
      for (std::size_t i = 0; i < hits.size(); ++i)
        EXPECT_EQ(hits[i], 1) << "tile " << i;
    }
  // 4 x 13: the last group has 5 tile rows; launch id 32 + 5 = 37 is column 1 of tile row 8.
  const TileIndex t = groupedTile(1, 9, 4, 13, 8);
  EXPECT_EQ(t.row, 8);
  EXPECT_EQ(t.col, 1);
  const TileIndex last = groupedTile(3, 12, 4, 13, 8);  // id 51
  EXPECT_EQ(last.row, 12);
  EXPECT_EQ(last.col, 3);
}

// ---------------------------------------------------------------------------------------------
// Global traffic
// ---------------------------------------------------------------------------------------------

TEST(MatmulTraffic, GlobalBytesWorkedByHand) {
  // Naive at 2 x 3 x 4: 2 * 2*3*4 * 4 bytes read + 2*3 * 4 written = 192 + 24.
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Naive), 2, 3, 4), 216.0);
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Swapped), 2, 3, 4), 216.0);
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Naive64), 2, 3, 4), 432.0);
  // Tiled16 at 32^3: 4 blocks, each 16 + 16 rows/columns x 32 x 4 bytes, + 4,096 for C.
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Tiled16), 32, 32, 32), 20480.0);
  // float64: twice that.
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Tiled64), 32, 32, 32), 40960.0);
  // Tiled16 at 17 x 17 x 1: 4 blocks of 32 elements, plus 289 elements of C: (128 + 289) * 4.
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Tiled16), 17, 17, 1), 1668.0);
  // Library: each matrix once: (8 + 12 + 6) * 4.
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Cublas), 2, 3, 4), 104.0);
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::CublasTf32), 2, 3, 4), 104.0);
  EXPECT_DOUBLE_EQ(globalBytes(stepInfo(StepId::Cublas64), 2, 3, 4), 208.0);
  EXPECT_DOUBLE_EQ(flops(2, 3, 4), 48.0);
  EXPECT_DOUBLE_EQ(flops(16384, 16384, 16384), 2.0 * 16384.0 * 16384.0 * 16384.0);
}

TEST(MatmulTraffic, EachStepReadsLessThanTheOneBefore) {
  // At 4096^3 the ladder's hand-written float32 steps move ever less (or equal) global data, and
  // none reads less than the library's lower bound.
  const int n = 4096;
  const double library = globalBytes(stepInfo(StepId::Cublas), n, n, n);
  double previous = globalBytes(stepInfo(StepId::Naive), n, n, n);
  for (StepId id : {StepId::Tiled8, StepId::Tiled16, StepId::Tiled32, StepId::Reg1D, StepId::Reg2D,
                    StepId::Warp}) {
    const double b = globalBytes(stepInfo(id), n, n, n);
    EXPECT_LT(b, previous) << stepInfo(id).key;
    EXPECT_GT(b, library) << stepInfo(id).key;
    previous = b;
  }
}

}  // namespace
}  // namespace cudalab::matmul
