// The tensor-cores ladder's kernels. Each works on whole tiles (M and N multiples of 128, K of 32:
// the host pads), A (M x K) and B (K x N) row-major in BF16 or FP16, C (M x N) row-major float32.
//
// The instructions exist from a given architecture on (WMMA in FP16: sm_70; in BF16, mma.sync
// m16n8k16, cp.async: sm_80). Where the code is compiled for an older one the kernel's body is
// empty: the host asks cudaFuncGetAttributes which architecture the loaded code was compiled for
// (tensor_cores.cu, available()) and never launches such a kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <type_traits>

namespace cudalab::tensor_cores {

// The compute capability (x10: 80 = sm_80; __CUDA_ARCH__ is x100) the code for T's instructions
// needs.
template <class T>
inline constexpr int kWmmaArch = 80;
template <>
inline constexpr int kWmmaArch<__half> = 70;
inline constexpr int kMmaArch = 80;

#if defined(__CUDA_ARCH__)
#define CUDALAB_TC_ARCH __CUDA_ARCH__
#else
#define CUDALAB_TC_ARCH 0
#endif

// ---------------------------------------------------------------------------------------------
// Step 1: WMMA, operands from global memory. A block of 4 warps covers 32 x 32 of C, each warp
// one 16 x 16 tile, stepping through K 16 at a time.
// ---------------------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(128)
    wmmaGlobalKernel(const T* A, const T* B, float* C, int M, int N, int K) {
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;  // unused where the body is compiled out
#if CUDALAB_TC_ARCH >= 700
  if constexpr (kWmmaArch<T> * 10 <= CUDALAB_TC_ARCH) {
    using namespace nvcuda;
    const int warp = threadIdx.x / 32;
    const int row = (blockIdx.y * 2 + warp / 2) * 16;
    const int col = (blockIdx.x * 2 + warp % 2) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < K; k += 16) {
      wmma::load_matrix_sync(a, A + static_cast<size_t>(row) * K + k, K);
      wmma::load_matrix_sync(b, B + static_cast<size_t>(k) * N + col, N);
      wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + static_cast<size_t>(row) * N + col, c, N, wmma::mem_row_major);
  }
#endif
}

// ---------------------------------------------------------------------------------------------
// The block tile of steps 2 to 5: 128 x 128 of C, K in steps of 32, 8 warps as 2 (rows) x 4
// (columns), each warp 64 x 32 of C.
// ---------------------------------------------------------------------------------------------

inline constexpr int kBM = 128, kBN = 128, kBK = 32, kThreads = 256;
inline constexpr int kWarpM = 64, kWarpN = 32;

// Copies 16 bytes (8 elements) per thread and call: A's tile is 128 x 4 chunks, B's 32 x 16, 512
// chunks each, two per thread.
inline constexpr int kChunksPerThread = (kBM * kBK / 8) / kThreads;

// ---------------------------------------------------------------------------------------------
// Step 2: WMMA with the tiles in shared memory, rows padded by 8 elements.
// ---------------------------------------------------------------------------------------------

inline constexpr int kPad = 8;

template <class T>
__global__ void __launch_bounds__(kThreads)
    wmmaSharedKernel(const T* A, const T* B, float* C, int M, int N, int K) {
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
#if CUDALAB_TC_ARCH >= 700
  if constexpr (kWmmaArch<T> * 10 <= CUDALAB_TC_ARCH) {
    using namespace nvcuda;
    // WMMA wants 32-byte aligned fragment addresses: rows of 40 and 136 elements keep every
    // 16-row and 16-column step on a multiple of 32 bytes.
    __shared__ alignas(128) T As[kBM][kBK + kPad];
    __shared__ alignas(128) T Bs[kBK][kBN + kPad];
    const int tid = threadIdx.x, warp = tid / 32;
    const int bm = blockIdx.y * kBM, bn = blockIdx.x * kBN;
    const int wm = (warp / 4) * kWarpM, wn = (warp % 4) * kWarpN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[4][2];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j)
        wmma::fill_fragment(c[i][j], 0.0f);
    for (int k0 = 0; k0 < K; k0 += kBK) {
      for (int i = 0; i < kChunksPerThread; ++i) {
        const int chunk = tid + i * kThreads;
        const int ar = chunk / 4, ac = (chunk % 4) * 8;
        *reinterpret_cast<uint4*>(&As[ar][ac]) =
            *reinterpret_cast<const uint4*>(A + static_cast<size_t>(bm + ar) * K + k0 + ac);
        const int br = chunk / 16, bc = (chunk % 16) * 8;
        *reinterpret_cast<uint4*>(&Bs[br][bc]) =
            *reinterpret_cast<const uint4*>(B + static_cast<size_t>(k0 + br) * N + bn + bc);
      }
      __syncthreads();
      for (int kk = 0; kk < kBK; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[4];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b[2];
        for (int i = 0; i < 4; ++i)
          wmma::load_matrix_sync(a[i], &As[wm + i * 16][kk], kBK + kPad);
        for (int j = 0; j < 2; ++j)
          wmma::load_matrix_sync(b[j], &Bs[kk][wn + j * 16], kBN + kPad);
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 2; ++j)
            wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
      }
      __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j)
        wmma::store_matrix_sync(C + static_cast<size_t>(bm + wm + i * 16) * N + bn + wn + j * 16,
                                c[i][j], N, wmma::mem_row_major);
  }
#endif
}

// ---------------------------------------------------------------------------------------------
// Steps 3 to 5: mma.sync.m16n8k16 fed by ldmatrix. Shared tiles unpadded: A 128 x 32, B 32 x 128,
// each 16-byte chunk stored where storedChunk() (tensor_cores.hpp) says.
// ---------------------------------------------------------------------------------------------

template <bool Swizzled>
__device__ __forceinline__ int offsetA(int row, int col) {  // col a multiple of 8
  const int chunk = col / 8;
  return row * kBK + (Swizzled ? chunk ^ ((row >> 1) & 3) : chunk) * 8;
}
template <bool Swizzled>
__device__ __forceinline__ int offsetB(int row, int col) {
  const int chunk = col / 8;
  return row * kBN + (Swizzled ? chunk ^ (row & 7) : chunk) * 8;
}

__device__ __forceinline__ unsigned sharedAddress(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrixX4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(p)));
}
__device__ __forceinline__ void ldmatrixX4Trans(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(p)));
}

template <class T>
__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void cpAsync16(void* sharedDst, const void* globalSrc) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sharedAddress(sharedDst)),
               "l"(globalSrc));
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int Pending>
__device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// Shared memory the mma steps use: Stages x (A's tile + B's tile).
template <class T>
constexpr int mmaSharedBytes(int stages) {
  return stages * (kBM * kBK + kBK * kBN) * static_cast<int>(sizeof(T));
}

// One tile of A and one of B into shared memory: with cp.async (no registers, no wait) or through
// registers.
template <class T, bool Swizzled, bool Async>
__device__ __forceinline__ void loadTiles(T* As, T* Bs, const T* A, const T* B, int N, int K,
                                          int bm, int bn, int k0) {
  for (int i = 0; i < kChunksPerThread; ++i) {
    const int chunk = threadIdx.x + i * kThreads;
    const int ar = chunk / 4, ac = (chunk % 4) * 8;
    const int br = chunk / 16, bc = (chunk % 16) * 8;
    const T* srcA = A + static_cast<size_t>(bm + ar) * K + k0 + ac;
    const T* srcB = B + static_cast<size_t>(k0 + br) * N + bn + bc;
    T* dstA = As + offsetA<Swizzled>(ar, ac);
    T* dstB = Bs + offsetB<Swizzled>(br, bc);
    if constexpr (Async) {
      cpAsync16(dstA, srcA);
      cpAsync16(dstB, srcB);
    } else {
      *reinterpret_cast<uint4*>(dstA) = *reinterpret_cast<const uint4*>(srcA);
      *reinterpret_cast<uint4*>(dstB) = *reinterpret_cast<const uint4*>(srcB);
    }
  }
}

// The warp's 64 x 32 of C from one 128 x 32 tile of A and 32 x 128 of B: two k-steps of 16, each
// 4 fragments of A (ldmatrix.x4: a 16 x 16 piece), 4 of B (two ldmatrix.x4.trans: 16 deep x 16
// wide, two n8 fragments each) and 16 mma.sync.
template <class T, bool Swizzled>
__device__ __forceinline__ void multiplyTile(float (&acc)[4][4][4], const T* As, const T* Bs,
                                             int wm, int wn, int lane) {
  for (int kk = 0; kk < kBK; kk += 16) {
    uint32_t a[4][4], b[4][2];
    // Lanes 0-15 give the rows of the left 8 columns, lanes 16-31 of the right 8.
    for (int i = 0; i < 4; ++i)
      ldmatrixX4(a[i], As + offsetA<Swizzled>(wm + i * 16 + lane % 16, kk + (lane / 16) * 8));
    // Lanes 0-15 give B's rows k .. k+15 of the first 8 columns, lanes 16-31 of the next 8;
    // .trans hands each lane the column-major pairs mma.sync wants for B.
    for (int p = 0; p < 2; ++p) {
      uint32_t r[4];
      ldmatrixX4Trans(r, Bs + offsetB<Swizzled>(kk + lane % 16, wn + p * 16 + (lane / 16) * 8));
      b[2 * p][0] = r[0];
      b[2 * p][1] = r[1];
      b[2 * p + 1][0] = r[2];
      b[2 * p + 1][1] = r[3];
    }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        mma16816<T>(acc[i][j], a[i], b[j][0], b[j][1]);
  }
}

template <class T, bool Swizzled, int Stages>
__global__ void __launch_bounds__(kThreads)
    mmaKernel(const T* A, const T* B, float* C, int M, int N, int K) {
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
#if CUDALAB_TC_ARCH >= 800
  extern __shared__ __align__(128) unsigned char shared[];
  T* const As = reinterpret_cast<T*>(shared);  // Stages tiles of A
  T* const Bs = As + Stages * kBM * kBK;       // then Stages tiles of B
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int bm = blockIdx.y * kBM, bn = blockIdx.x * kBN;
  const int wm = (warp / 4) * kWarpM, wn = (warp % 4) * kWarpN;
  float acc[4][4][4] = {};
  const int tiles = K / kBK;
  if constexpr (Stages == 1) {
    // Load, wait, multiply, wait: the tensor cores idle during every load.
    for (int t = 0; t < tiles; ++t) {
      loadTiles<T, Swizzled, false>(As, Bs, A, B, N, K, bm, bn, t * kBK);
      __syncthreads();
      multiplyTile<T, Swizzled>(acc, As, Bs, wm, wn, lane);
      __syncthreads();
    }
  } else {
    // Stages - 1 tiles in flight before the first multiply; then each step waits for the oldest,
    // starts the next load into the buffer the step before finished with, and multiplies. One
    // commit per step (empty at the end) keeps the count of pending groups right.
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < tiles)
        loadTiles<T, Swizzled, true>(As + s * kBM * kBK, Bs + s * kBK * kBN, A, B, N, K, bm, bn,
                                     s * kBK);
      cpAsyncCommit();
    }
    for (int t = 0; t < tiles; ++t) {
      cpAsyncWait<Stages - 2>();
      __syncthreads();
      const int next = t + Stages - 1;
      if (next < tiles) {
        const int s = next % Stages;
        loadTiles<T, Swizzled, true>(As + s * kBM * kBK, Bs + s * kBK * kBN, A, B, N, K, bm, bn,
                                     next * kBK);
      }
      cpAsyncCommit();
      const int s = t % Stages;
      multiplyTile<T, Swizzled>(acc, As + s * kBM * kBK, Bs + s * kBK * kBN, wm, wn, lane);
    }
    cpAsyncWait<0>();
  }
  // C's fragment layout: lane / 4 picks the row (and row + 8), lane % 4 the pair of columns.
  const int row = bm + wm + lane / 4, col = bn + wn + (lane % 4) * 2;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float* c = C + static_cast<size_t>(row + i * 16) * N + col + j * 8;
      *reinterpret_cast<float2*>(c) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(c + static_cast<size_t>(8) * N) =
          make_float2(acc[i][j][2], acc[i][j][3]);
    }
#endif
}

}  // namespace cudalab::tensor_cores
