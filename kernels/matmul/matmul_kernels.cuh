// The hand-written kernels of the matmul ladder, C = A B, row-major (A: M x K, B: K x N).
//
// Each step's comment says what held the previous step back and what this one changes; the
// measured effect is in docs/BENCHMARKS.md. Every kernel checks its bounds (loads outside A or B
// read as 0, stores outside C are skipped), so any M, N, K works. The launch shapes live in one
// place, the step table in matmul_model.cpp, and launchStep() in matmul.cu reads them from there.
#pragma once

#include <cstddef>

#include "matmul/matmul_config.hpp"

namespace cudalab::matmul::kernels {

// ---------------------------------------------------------------------------------------------
// Step 1. The course's naive kernel: one thread per element of C, i (the row) on thread x.
// With the course's 16 x 16 blocks a warp is 16 consecutive rows i times 2 columns j: A[i][k] is
// 16 floats K apart (16 sectors for 64 useful bytes), B[k][j] two neighbouring floats. Every
// product reads both from global memory; nothing is reused on purpose, only by luck in the caches.
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void naiveCourse(const T* A, const T* B, T* C, int M, int N, int K) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  T sum = 0;
  for (int k = 0; k < K; ++k)
    sum += A[std::size_t(i) * K + k] * B[std::size_t(k) * N + j];
  C[std::size_t(i) * N + j] = sum;
}

// ---------------------------------------------------------------------------------------------
// Step 2. The same arithmetic with j (the column) on thread x. Now a warp is 16 consecutive
// columns times 2 rows: B[k][j] is 64 contiguous bytes (2 sectors) and A[i][k] two floats, one per
// row: 4 sectors per k instead of 17. That is the whole change; each product still reads global
// memory.
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void naiveSwapped(const T* A, const T* B, T* C, int M, int N, int K) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  T sum = 0;
  for (int k = 0; k < K; ++k)
    sum += A[std::size_t(i) * K + k] * B[std::size_t(k) * N + j];
  C[std::size_t(i) * N + j] = sum;
}

// ---------------------------------------------------------------------------------------------
// Step 3. The course's shared-memory tiling. The naive kernels read every element of A N times
// and every element of B M times from global memory. Here a TILE x TILE block loads one tile of A
// and one of B into shared memory together (one element per thread, coalesced), then every thread
// reads TILE values of each from shared memory: global traffic falls by a factor TILE. Where the
// course tests `m + k < K` inside the loop, out-of-range elements are loaded as 0 instead, which
// adds nothing to the sum and keeps the inner loop free of branches.
// ---------------------------------------------------------------------------------------------
template <class T, int TILE>
__global__ void __launch_bounds__(TILE* TILE)
    tiled(const T* A, const T* B, T* C, int M, int N, int K) {
  __shared__ T As[TILE][TILE];
  __shared__ T Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  T sum = 0;
  for (int m = 0; m < K; m += TILE) {
    As[ty][tx] = (row < M && m + tx < K) ? A[std::size_t(row) * K + m + tx] : T(0);
    Bs[ty][tx] = (m + ty < K && col < N) ? B[std::size_t(m + ty) * N + col] : T(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[std::size_t(row) * N + col] = sum;
}

// ---------------------------------------------------------------------------------------------
// Step 4. 1D register blocking. In the tiled kernel each multiply-add needs two shared-memory
// loads, so shared memory, not arithmetic, sets the pace. Here each thread computes TM results in
// one column: it loads B[k][col] once into a register and reuses it TM times, and the block's
// tile grows to 64 x 64 so each global load feeds more work.
// ---------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM* BN / TM)
    blocked1d(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int kThreads = BM * BN / TM;
  static_assert(BM * BK == kThreads && BK * BN == kThreads, "one element of each tile per thread");
  __shared__ float As[BM * BK];  // As[r][k]
  __shared__ float Bs[BK * BN];  // Bs[k][c]
  const int tid = threadIdx.x;
  const int col = tid % BN, rowGroup = tid / BN;
  const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
  const int ar = tid / BK, ak = tid % BK;
  const int bk = tid / BN, bc = tid % BN;
  float acc[TM] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    As[tid] = (rowBase + ar < M && k0 + ak < K) ? A[std::size_t(rowBase + ar) * K + k0 + ak] : 0.f;
    Bs[tid] = (k0 + bk < K && colBase + bc < N) ? B[std::size_t(k0 + bk) * N + colBase + bc] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k * BN + col];
#pragma unroll
      for (int r = 0; r < TM; ++r)
        acc[r] += As[(rowGroup * TM + r) * BK + k] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int row = rowBase + rowGroup * TM + r, c = colBase + col;
    if (row < M && c < N) C[std::size_t(row) * N + c] = acc[r];
  }
}

// ---------------------------------------------------------------------------------------------
// Step 5. 2D register blocking. One column per thread still loads TM + 1 values for TM
// multiply-adds. An 8 x 8 tile per thread loads 8 + 8 values for 64 multiply-adds (an outer
// product in registers), and a 128 x 128 block tile halves global traffic again.
// ---------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    blocked2d(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ float As[BM * BK];  // As[r][k]
  __shared__ float Bs[BK * BN];  // Bs[k][c]
  const int tid = threadIdx.x;
  const int tCol = tid % (BN / TN), tRow = tid / (BN / TN);
  const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
  float acc[TM][TN] = {};
  float regM[TM], regN[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = tid; i < BM * BK; i += kThreads) {
      const int r = i / BK, k = i % BK;
      As[i] = (rowBase + r < M && k0 + k < K) ? A[std::size_t(rowBase + r) * K + k0 + k] : 0.f;
    }
#pragma unroll
    for (int i = tid; i < BK * BN; i += kThreads) {
      const int k = i / BN, c = i % BN;
      Bs[i] = (k0 + k < K && colBase + c < N) ? B[std::size_t(k0 + k) * N + colBase + c] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
        regM[i] = As[(tRow * TM + i) * BK + k];
#pragma unroll
      for (int j = 0; j < TN; ++j)
        regN[j] = Bs[k * BN + tCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] += regM[i] * regN[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = rowBase + tRow * TM + i, c = colBase + tCol * TN + j;
      if (row < M && c < N) C[std::size_t(row) * N + c] = acc[i][j];
    }
}

// Four consecutive floats of row `row` from column `col` of a rows x cols matrix, zero outside it.
// kVec: one 16-byte load (the caller guarantees cols % 4 == 0, so the address is aligned and the
// four are all inside or all outside); otherwise four checked loads.
template <bool kVec>
__device__ __forceinline__ float4 load4(const float* P, int rows, int cols, int row, int col) {
  if (row >= rows) return make_float4(0.f, 0.f, 0.f, 0.f);
  const float* p = P + std::size_t(row) * cols + col;
  if constexpr (kVec) {
    if (col < cols) return *reinterpret_cast<const float4*>(p);
    return make_float4(0.f, 0.f, 0.f, 0.f);
  } else {
    return make_float4(col < cols ? p[0] : 0.f, col + 1 < cols ? p[1] : 0.f,
                       col + 2 < cols ? p[2] : 0.f, col + 3 < cols ? p[3] : 0.f);
  }
}

// ---------------------------------------------------------------------------------------------
// Step 6. Vectorised loads, A's tile stored transposed. Step 5 moves data one float per
// instruction, and its threads read A's tile down a column (TM floats BK apart). Here global loads
// are float4 (one 16-byte instruction instead of four), and A's tile is written transposed,
// As[k][r], so a thread's TM values of A are contiguous and come in two float4 shared loads, as
// B's do. Needs K and N to be multiples of 4 for the 16-byte loads; other sizes take the same
// kernel with four checked scalar loads (kVec = false).
// ---------------------------------------------------------------------------------------------
template <int BM, int BN, int BK, int TM, int TN, bool kVec>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    vectorised(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM * BK / 4 == kThreads && BK * BN / 4 == kThreads,
                "one float4 of each per thread");
  __shared__ __align__(16) float As[BK * BM];  // As[k][r]: transposed
  __shared__ __align__(16) float Bs[BK * BN];  // Bs[k][c]
  const int tid = threadIdx.x;
  const int tCol = tid % (BN / TN), tRow = tid / (BN / TN);
  const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
  const int ar = tid / (BK / 4), ak = (tid % (BK / 4)) * 4;
  const int bk = tid / (BN / 4), bc = (tid % (BN / 4)) * 4;
  float acc[TM][TN] = {};
  float regM[TM], regN[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    const float4 a = load4<kVec>(A, M, K, rowBase + ar, k0 + ak);
    As[(ak + 0) * BM + ar] = a.x;
    As[(ak + 1) * BM + ar] = a.y;
    As[(ak + 2) * BM + ar] = a.z;
    As[(ak + 3) * BM + ar] = a.w;
    *reinterpret_cast<float4*>(&Bs[bk * BN + bc]) = load4<kVec>(B, K, N, k0 + bk, colBase + bc);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(&regM[i]) =
            *reinterpret_cast<const float4*>(&As[k * BM + tRow * TM + i]);
#pragma unroll
      for (int j = 0; j < TN; j += 4)
        *reinterpret_cast<float4*>(&regN[j]) =
            *reinterpret_cast<const float4*>(&Bs[k * BN + tCol * TN + j]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] += regM[i] * regN[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = rowBase + tRow * TM + i, c = colBase + tCol * TN + j;
      if (row < M && c < N) C[std::size_t(row) * N + c] = acc[i][j];
    }
}

// ---------------------------------------------------------------------------------------------
// Step 7. Warp tiling and double buffering. Step 6 still stalls twice per tile: every thread
// waits at __syncthreads while the next tile's global loads arrive, and lanes reading B at
// 32-byte strides (tCol * 8) collide in shared-memory banks. Here:
//  - each warp owns a WM x WN piece of the block tile, and its 32 lanes sit in a LM x LN grid
//    whose 4 x 4 sub-tiles repeat RM x RN times across it: at each k a warp reads LM and LN
//    consecutive float4s of A and B, conflict-free and mostly broadcast;
//  - the next tile is loaded from global memory into registers while the current one is
//    multiplied, then stored into the other of two shared buffers: one barrier per tile and the
//    load latency hidden behind 8 x 64 multiply-adds;
//  - A's transposed tile is padded by 4 floats a row so the transposing stores do not collide;
//  - the block tile grows to 128 x 256 with 16 x 8 outputs per thread (one block per SM, 223
//    registers a thread), and blocks walk C in groups of 8 tile rows so those running together
//    share A and B in L2. The shape is WarpConfig in matmul_config.hpp.
// ---------------------------------------------------------------------------------------------
template <class W, bool kVec>
__global__ void __launch_bounds__(W::kThreads, W::kMinBlocks)
    warpTiled(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int BM = W::kBM, BN = W::kBN, BK = W::kBK;
  constexpr int TM = W::TM, TN = W::TN, kPad = W::kPadA;
  constexpr int kStrideA = BM + kPad;
  __shared__ __align__(16) float As[2][BK * kStrideA];  // As[buf][k][r]: transposed, padded
  __shared__ __align__(16) float Bs[2][BK * BN];        // Bs[buf][k][c]
  const int tid = threadIdx.x;
  const TileIndex tile = groupedTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, W::kGroup);
  const int rowBase = tile.row * BM, colBase = tile.col * BN;

  float4 nextA[W::kLoadsA], nextB[W::kLoadsB];
  auto loadTile = [&](int k0) {
#pragma unroll
    for (int l = 0; l < W::kLoadsA; ++l) {
      const int f = tid + l * W::kThreads;
      nextA[l] = load4<kVec>(A, M, K, rowBase + f / (BK / 4), k0 + (f % (BK / 4)) * 4);
    }
#pragma unroll
    for (int l = 0; l < W::kLoadsB; ++l) {
      const int f = tid + l * W::kThreads;
      nextB[l] = load4<kVec>(B, K, N, k0 + f / (BN / 4), colBase + (f % (BN / 4)) * 4);
    }
  };
  auto storeTile = [&](int buf) {
#pragma unroll
    for (int l = 0; l < W::kLoadsA; ++l) {
      const int f = tid + l * W::kThreads;
      const int r = f / (BK / 4), k = (f % (BK / 4)) * 4;
      As[buf][(k + 0) * kStrideA + r] = nextA[l].x;
      As[buf][(k + 1) * kStrideA + r] = nextA[l].y;
      As[buf][(k + 2) * kStrideA + r] = nextA[l].z;
      As[buf][(k + 3) * kStrideA + r] = nextA[l].w;
    }
#pragma unroll
    for (int l = 0; l < W::kLoadsB; ++l) {
      const int f = tid + l * W::kThreads;
      *reinterpret_cast<float4*>(&Bs[buf][(f / (BN / 4)) * BN + (f % (BN / 4)) * 4]) = nextB[l];
    }
  };

  float acc[TM][TN] = {};
  float a[TM], b[TN];
  const int aOff = W::rowOf(tid, 0), bOff = W::colOf(tid, 0);
  const int tiles = (K + BK - 1) / BK;
  loadTile(0);
  storeTile(0);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    if (t + 1 < tiles) loadTile((t + 1) * BK);  // in flight while this tile is multiplied
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < W::RM; ++i)
        *reinterpret_cast<float4*>(&a[i * 4]) =
            *reinterpret_cast<const float4*>(&As[buf][k * kStrideA + aOff + i * W::kLM4]);
#pragma unroll
      for (int j = 0; j < W::RN; ++j)
        *reinterpret_cast<float4*>(&b[j * 4]) =
            *reinterpret_cast<const float4*>(&Bs[buf][k * BN + bOff + j * W::kLN4]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] += a[i] * b[j];
    }
    // The other buffer was last read before the previous barrier: safe to fill now.
    if (t + 1 < tiles) storeTile(buf ^ 1);
    __syncthreads();
  }

  // Each thread's outputs are RM x RN runs of 4 consecutive columns: float4 stores when N % 4 == 0.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = rowBase + W::rowOf(tid, i);
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; j += 4) {
      const int col = colBase + W::colOf(tid, j);
      float* c = C + std::size_t(row) * N + col;
      if (kVec && col + 3 < N) {
        *reinterpret_cast<float4*>(c) =
            make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (col + q < N) c[q] = acc[i][j + q];
      }
    }
  }
}

}  // namespace cudalab::matmul::kernels
