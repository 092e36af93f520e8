// The shapes of the matmul ladder's hand-written kernels: one place for each, read by the kernels
// (matmul_kernels.cuh), the step table and launch arithmetic (matmul_model.cpp) and the pictures.
// Plain C++, so the tiling pictures and their tests work without CUDA.
#pragma once

#ifdef __CUDACC__
#define CUDALAB_HD __host__ __device__
#else
#define CUDALAB_HD
#endif

namespace cudalab::matmul {

// Steps 1 and 2: the course's blockdim=(16, 16).
inline constexpr int kNaiveBlock = 16;

// Step 4: a 64 x 64 tile of C per block, K in steps of 8, 8 rows per thread: 512 threads.
struct Blocked1D {
  static constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
  static constexpr int kThreads = BM * BN / TM;
};

// Steps 5 and 6: a 128 x 128 tile per block, K in steps of 8, 8 x 8 per thread: 256 threads.
struct Blocked2D {
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  static constexpr int kThreads = (BM / TM) * (BN / TN);
};

// The tile of C (in tile rows and columns) that block (bx, by) of a gridX x gridY launch
// computes. group 0: tile (by, bx). Otherwise blocks, which start roughly in launch order, walk C
// in groups of `group` tile rows, column by column, so the blocks running at once share bands of
// A and B and find them in L2.
struct TileIndex {
  int row = 0, col = 0;
};
CUDALAB_HD constexpr TileIndex groupedTile(int bx, int by, int gridX, int gridY, int group) {
  if (group <= 0 || gridX <= 0 || gridY <= 0) return {by, bx};
  const int id = by * gridX + bx;
  const int perGroup = group * gridX;
  const int first = (id / perGroup) * group;
  const int rows = gridY - first < group ? gridY - first : group;
  return {first + (id % perGroup) % rows, (id % perGroup) / rows};
}

// Step 7's shape, as a type the kernel is instantiated with. A block tile BM x BN split into
// warp tiles WM x WN; a warp's lanes in an LM x LN grid; each lane owns RM x RN sub-tiles of
// 4 x 4 spaced LM*4 rows and LN*4 columns apart.
template <int BM, int BN, int BK, int WM, int WN, int LM, int LN, int MinBlocks = 2, int Group = 0>
struct WarpTiling {
  static constexpr int kBM = BM, kBN = BN, kBK = BK;
  static constexpr int kMinBlocks = MinBlocks;  // blocks per SM the registers must allow
  static constexpr int kGroup = Group;          // block rows per group in the launch order (0: off)
  static constexpr int kWarps = (BM / WM) * (BN / WN);
  static constexpr int kThreads = kWarps * 32;
  static constexpr int RM = WM / (LM * 4), RN = WN / (LN * 4);  // sub-tiles per thread
  static constexpr int TM = RM * 4, TN = RN * 4;                // outputs per thread
  static constexpr int kPadA = 4;
  static constexpr int kLM4 = LM * 4, kLN4 = LN * 4;  // distance between a thread's sub-tiles
  static constexpr int kLoadsA = BM * BK / 4 / kThreads, kLoadsB = BK * BN / 4 / kThreads;
  static_assert(LM * LN == 32, "a warp is 32 lanes");
  static_assert(RM * LM * 4 == WM && RN * LN * 4 == WN, "sub-tiles cover the warp tile");
  static_assert(kLoadsA * kThreads * 4 == BM * BK && kLoadsB * kThreads * 4 == BK * BN,
                "the tiles split into whole float4s per thread");
  // Where thread `tid` sits: its warp's corner in the block tile and its lane's in the warp's.
  CUDALAB_HD static constexpr int warpRow(int tid) { return (tid / 32) / (BN / WN); }
  CUDALAB_HD static constexpr int warpCol(int tid) { return (tid / 32) % (BN / WN); }
  CUDALAB_HD static constexpr int laneRow(int tid) { return (tid % 32) / LN; }
  CUDALAB_HD static constexpr int laneCol(int tid) { return (tid % 32) % LN; }
  // Row (in the block tile) of the thread's output i (0 .. TM-1), and column of output j.
  CUDALAB_HD static constexpr int rowOf(int tid, int i) {
    return warpRow(tid) * WM + (i / 4) * (LM * 4) + laneRow(tid) * 4 + i % 4;
  }
  CUDALAB_HD static constexpr int colOf(int tid, int j) {
    return warpCol(tid) * WN + (j / 4) * (LN * 4) + laneCol(tid) * 4 + j % 4;
  }
};

// Step 7 as measured (docs/BENCHMARKS.md): on an H100 at 4096^3, 128 x 256 tiles with one block
// of 256 threads per SM (223 registers each) and launch order grouped by 8 block rows beat
// 128 x 128 tiles with two blocks per SM (41.4 TFLOP/s) by 8%.
using WarpConfig = WarpTiling<128, 256, 8, 64, 64, 4, 8, 1, 8>;

}  // namespace cudalab::matmul
