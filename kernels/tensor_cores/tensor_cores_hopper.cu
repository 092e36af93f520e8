// Step 6 of the tensor-cores ladder, Hopper's own instructions: the Tensor Memory Accelerator
// (cp.async.bulk.tensor) copies whole tiles of A and B into shared memory, laid out in the 128-byte
// swizzle, and signals an mbarrier when their bytes have arrived; warpgroup MMA (wgmma) multiplies
// them straight from shared memory, asynchronously, 64 x 128 x 16 per instruction and warpgroup.
//
// wgmma exists only in code compiled for sm_90a, which runs only on compute capability 9.0 (H100,
// H200, GH200): this file is compiled for that architecture alone (kernels/CMakeLists.txt), its
// kernels' bodies guarded by __CUDA_ARCH_FEAT_SM90_ALL. The tensor maps TMA reads are made by the
// driver's cuTensorMapEncodeTiled, reached through cudaGetDriverEntryPointByVersion, so the app
// links no driver library and starts where there is none.
//
// Both operands are read K-major (a row of A and a column of B are contiguous): the step takes B
// transposed, N x K, which the ladder prepares beside the row-major B (cuBLAS's "TN" layout).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "common/translatable.hpp"
#include "tensor_cores/tensor_cores.hpp"
#include "tensor_cores/tensor_cores_hopper.hpp"

namespace cudalab::tensor_cores {

namespace {

inline constexpr int kHBM = 128, kHBN = 128, kHBK = 64, kHStages = 4, kHThreads = 256;

template <class T>
constexpr int hopperSharedBytes() {
  // The stages' tiles of A and B, and 1 KiB to align them to the 1024 bytes the swizzle repeats.
  return kHStages * (kHBM + kHBN) * kHBK * static_cast<int>(sizeof(T)) + 1024;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ uint32_t smemAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrierInit(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smemAddress(bar)), "r"(count));
}

// One arrival that also tells the barrier how many bytes TMA will deliver to it.
__device__ __forceinline__ void barrierExpect(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smemAddress(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void barrierWait(uint64_t* bar, uint32_t phase) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smemAddress(bar)), "r"(phase)
        : "memory");
  } while (!done);
}

// A box of the tensor map at element coordinates (x innermost, y) into shared memory.
__device__ __forceinline__ void tmaLoad(void* dst, const CUtensorMap* map, int x, int y,
                                        uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smemAddress(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smemAddress(bar))
      : "memory");
}

// A shared-memory matrix descriptor for wgmma: a K-major tile in the 128-byte swizzle, rows of
// 128 bytes in groups of 8 (1024 bytes, the stride between groups).
__device__ __forceinline__ uint64_t descriptor(const void* p) {
  const uint64_t addr = smemAddress(p);
  uint64_t d = (addr & 0x3FFFF) >> 4;          // start address, in 16-byte units
  d |= uint64_t((16 & 0x3FFFF) >> 4) << 16;    // leading byte offset (unused with the swizzle)
  d |= uint64_t((1024 & 0x3FFFF) >> 4) << 32;  // stride byte offset: 8 rows of 128 bytes
  d |= uint64_t(1) << 62;                      // the 128-byte swizzle
  return d;
}

// d (64 x 128 of C in float32, 64 values per thread) += A (64 x 16) B (16 x 128).
template <class T>
__device__ __forceinline__ void wgmma64x128(float (&d)[64], uint64_t a, uint64_t b) {
  // One asm statement per input type: the instruction's name holds it twice.
#define CUDALAB_WGMMA(TYPE)                                                                        \
  asm volatile(                                                                                    \
      "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"                                               \
      " wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE                                \
      " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "    \
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, " \
      "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, " \
      "%55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"                \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63])                                                                                \
      : "l"(a), "l"(b), "n"(1))
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    CUDALAB_WGMMA("bf16");
  else
    CUDALAB_WGMMA("f16");
#undef CUDALAB_WGMMA
}

// d (64 x 256 of C, 128 values per thread) += A (64 x 16) B (16 x 256).
template <class T>
__device__ __forceinline__ void wgmma64x256(float (&d)[128], uint64_t a, uint64_t b) {
  // One asm statement per input type: the instruction's name holds it twice.
#define CUDALAB_WGMMA(TYPE)                                                                        \
  asm volatile(                                                                                    \
      "{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n"                                              \
      " wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE                                \
      " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "    \
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, " \
      "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, " \
      "%55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, " \
      "%73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, " \
      "%91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, "    \
      "%107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, " \
      "%122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"                       \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), \
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),          \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),        \
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),        \
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),        \
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])         \
      : "l"(a), "l"(b), "n"(1))
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    CUDALAB_WGMMA("bf16");
  else
    CUDALAB_WGMMA("f16");
#undef CUDALAB_WGMMA
}

__device__ __forceinline__ void barrierArrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smemAddress(bar)) : "memory");
}

// A warpgroup's multiply of one stage, once its tiles have arrived: 64 rows of A's tile at `a`
// against B's tile at `b` (128 or 256 rows, as `d` holds 64 or 128 accumulators), four steps of
// 16 through the 64 of K (32 bytes on within the swizzled rows), waited for before it returns.
template <class T, int Regs>
__device__ __forceinline__ void multiplyStage(float (&d)[Regs], const T* a, const T* b) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int kk = 0; kk < kHBK; kk += 16) {
    if constexpr (Regs == 64)
      wgmma64x128<T>(d, descriptor(a + kk), descriptor(b + kk));
    else
      wgmma64x256<T>(d, descriptor(a + kk), descriptor(b + kk));
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

// The stages' tiles start on a 1024-byte boundary, where the 128-byte swizzle's pattern repeats.
template <class T>
__device__ __forceinline__ T* alignedTiles(unsigned char* raw) {
  return reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
}

// A warpgroup's accumulators into C, as mma.sync's C fragments, one per 8 columns: warp w of the
// warpgroup has rows 16 w + lane / 4 and + 8 (from `row`, the warpgroup's first), columns
// 8 j + 2 (lane % 4) and + 1 (from `col`).
template <int Chunks>
__device__ __forceinline__ void storeAccumulators(const float (&d)[4 * Chunks], float* C, int N,
                                                  int row, int col) {
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const size_t r = static_cast<size_t>(row + warp * 16 + lane / 4);
#pragma unroll
  for (int j = 0; j < Chunks; ++j) {
    float* c = C + r * N + col + j * 8 + (lane % 4) * 2;
    *reinterpret_cast<float2*>(c) = make_float2(d[4 * j], d[4 * j + 1]);
    *reinterpret_cast<float2*>(c + static_cast<size_t>(8) * N) =
        make_float2(d[4 * j + 2], d[4 * j + 3]);
  }
}

#endif

// C = A B^T with A M x K and Bt N x K, both K-major, through TMA and wgmma. Two warpgroups each
// own 64 rows of the block's 128 x 128 tile of C. Thread 0 keeps kHStages tiles in flight; all wait
// for a stage's barrier, multiply it, and wait for each other before thread 0 refills it.
template <class T>
__global__ void __launch_bounds__(kHThreads)
    wgmmaKernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
                float* C, int M, int N, int K) {
  (void)mapA, (void)mapB, (void)C, (void)M, (void)N, (void)K;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) unsigned char raw[];
  T* const sA = alignedTiles<T>(raw);
  T* const sB = sA + kHStages * kHBM * kHBK;
  __shared__ uint64_t full[kHStages];
  const int tid = threadIdx.x, wg = tid / 128;
  const int bm = blockIdx.y * kHBM, bn = blockIdx.x * kHBN;
  const int tiles = K / kHBK;
  if (tid == 0) {
    for (int s = 0; s < kHStages; ++s)
      barrierInit(&full[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](int t) {
    const int s = t % kHStages;
    barrierExpect(&full[s], (kHBM + kHBN) * kHBK * sizeof(T));
    tmaLoad(sA + s * kHBM * kHBK, &mapA, t * kHBK, bm, &full[s]);
    tmaLoad(sB + s * kHBN * kHBK, &mapB, t * kHBK, bn, &full[s]);
  };
  if (tid == 0)
    for (int t = 0; t < kHStages && t < tiles; ++t)
      issue(t);
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i)
    d[i] = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int s = t % kHStages;
    barrierWait(&full[s], (t / kHStages) & 1);
    multiplyStage<T>(d, sA + s * kHBM * kHBK + wg * 64 * kHBK, sB + s * kHBN * kHBK);
    __syncthreads();  // both warpgroups are done with stage s
    if (tid == 0 && t + kHStages < tiles) issue(t + kHStages);
  }
  storeAccumulators<16>(d, C, N, bm + wg * 64, bn);
#endif
}

// Step 7: warp specialisation. In step 6 every warp waited for each tile and for the other
// warpgroup before the next load could start. Here a producer warpgroup (one thread of it) only
// loads: it waits until a stage is free ("empty" barrier), asks TMA for its tiles and moves on.
// Two consumer warpgroups only multiply, each 64 x 256 of a 128 x 256 tile of C (wgmma
// m64n256k16, 128 accumulators per thread), and tell the producer when they are done with a
// stage. setmaxnreg moves registers from the producer, which needs few, to the consumers. The
// blocks are ordered in groups of tile rows so that those running together share L2.
inline constexpr int kWsBM = 128, kWsBN = 256, kWsStages = 4, kWsThreads = 384, kWsGroup = 16;

template <class T>
constexpr int wsSharedBytes() {
  return kWsStages * (kWsBM + kWsBN) * kHBK * static_cast<int>(sizeof(T)) + 1024;
}

template <class T>
__global__ void __launch_bounds__(kWsThreads, 1)
    wgmmaWsKernel(const __grid_constant__ CUtensorMap mapA,
                  const __grid_constant__ CUtensorMap mapB, float* C, int M, int N, int K) {
  (void)mapA, (void)mapB, (void)C, (void)M, (void)N, (void)K;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) unsigned char raw[];
  T* const sA = alignedTiles<T>(raw);
  T* const sB = sA + kWsStages * kWsBM * kHBK;
  __shared__ uint64_t full[kWsStages], empty[kWsStages];
  const int tid = threadIdx.x, wg = tid / 128;
  // The blocks run in groups of kWsGroup tile rows, column by column within a group: the blocks
  // resident at once then read a few rows of A and a few columns of B, which stay in L2, rather
  // than one row of A and every column of B.
  const int tilesM = M / kWsBM, tilesN = N / kWsBN, perGroup = kWsGroup * tilesN;
  const int id = blockIdx.x, first = (id / perGroup) * kWsGroup;
  const int rows = min(tilesM - first, kWsGroup);
  const int bm = (first + (id % perGroup) % rows) * kWsBM, bn = ((id % perGroup) / rows) * kWsBN;
  const int tiles = K / kHBK;
  if (tid == 0) {
    for (int s = 0; s < kWsStages; ++s) {
      barrierInit(&full[s], 1);
      barrierInit(&empty[s], 2);  // one arrival per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0)
      for (int t = 0; t < tiles; ++t) {
        const int s = t % kWsStages;
        if (t >= kWsStages) barrierWait(&empty[s], ((t / kWsStages) - 1) & 1);
        barrierExpect(&full[s], (kWsBM + kWsBN) * kHBK * sizeof(T));
        tmaLoad(sA + s * kWsBM * kHBK, &mapA, t * kHBK, bm, &full[s]);
        tmaLoad(sB + s * kWsBN * kHBK, &mapB, t * kHBK, bn, &full[s]);
      }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int c = wg - 1;  // the consumer: rows 64 c .. 64 c + 63 of the tile
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i)
    d[i] = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int s = t % kWsStages;
    barrierWait(&full[s], (t / kWsStages) & 1);
    multiplyStage<T>(d, sA + s * kWsBM * kHBK + c * 64 * kHBK, sB + s * kWsBN * kHBK);
    if (tid % 128 == 0) barrierArrive(&empty[s]);
  }
  storeAccumulators<32>(d, C, N, bm + c * 64, bn);
#endif
}

// The driver's tensor-map encoder, found once.
PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr;
    (void)cudaGetLastError();
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// A rows x K matrix of 16-bit elements, K-major, read in boxes of `boxRows` rows x 64 elements
// (128 bytes: the swizzle's span).
template <class T>
Status encodeMap(CUtensorMap& map, const void* ptr, int rows, int K, int boxRows) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = tensorMapEncoder();
  if (!encode) return Status::error(N_("The driver offers no cuTensorMapEncodeTiled."));
  const cuuint64_t dims[2] = {cuuint64_t(K), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(K) * sizeof(T)};
  const cuuint32_t box[2] = {kHBK, cuuint32_t(boxRows)};
  const cuuint32_t elementStrides[2] = {1, 1};
  const CUresult r = encode(&map,
                            std::is_same_v<T, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                            2, const_cast<void*>(ptr), dims, strides, box, elementStrides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::error("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(r)) +
                         ".");
  return {};
}

template <class T>
Status launchTyped(StepId step, const void* A, const void* Bt, float* C, int M, int N, int K,
                   cudaStream_t stream) {
  const bool ws = step == StepId::WgmmaWs;
  const int bm = ws ? kWsBM : kHBM, bn = ws ? kWsBN : kHBN;
  if (M % bm || N % bn || K % kHBK || M <= 0 || N <= 0 || K <= 0)
    return Status::error(std::string("The wgmma kernels take M in multiples of ") +
                         std::to_string(bm) + ", N of " + std::to_string(bn) + ", K of 64.");
  // The maps of the last launch, kept: encoding is a host call that would otherwise fall between
  // the timing events and the kernel.
  struct Maps {
    const void *a = nullptr, *b = nullptr;
    int M = 0, N = 0, K = 0, bm = 0, bn = 0;
    CUtensorMap mapA{}, mapB{};
  };
  thread_local Maps last;
  if (last.a != A || last.b != Bt || last.M != M || last.N != N || last.K != K || last.bm != bm ||
      last.bn != bn) {
    last.a = nullptr;  // until both are made
    CUDALAB_TRY(encodeMap<T>(last.mapA, A, M, K, bm));
    CUDALAB_TRY(encodeMap<T>(last.mapB, Bt, N, K, bn));
    last.a = A, last.b = Bt, last.M = M, last.N = N, last.K = K, last.bm = bm, last.bn = bn;
  }
  if (ws) {
    const int bytes = wsSharedBytes<T>();
    CUDALAB_CUDA_TRY(
        cudaFuncSetAttribute(wgmmaWsKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    wgmmaWsKernel<T>
        <<<(N / bn) * (M / bm), kWsThreads, bytes, stream>>>(last.mapA, last.mapB, C, M, N, K);
  } else {
    const int bytes = hopperSharedBytes<T>();
    CUDALAB_CUDA_TRY(
        cudaFuncSetAttribute(wgmmaKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    wgmmaKernel<T>
        <<<dim3(N / bn, M / bm), kHThreads, bytes, stream>>>(last.mapA, last.mapB, C, M, N, K);
  }
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

}  // namespace

bool hopperCodeBuilt() {
#if defined(CUDALAB_SM90A)
  return true;
#else
  return false;
#endif
}

Status launchHopperStep(StepId s, InputFormat f, const void* A, const void* Bt, float* C, int M,
                        int N, int K, cudaStream_t stream) {
  if (s != StepId::WgmmaTma && s != StepId::WgmmaWs) return Status::error("Not a Hopper step.");
  if (f == InputFormat::Half) return launchTyped<__half>(s, A, Bt, C, M, N, K, stream);
  return launchTyped<__nv_bfloat16>(s, A, Bt, C, M, N, K, stream);
}

}  // namespace cudalab::tensor_cores
