// The reduction ladder's kernels, one per step, after Mark Harris's "Optimizing Parallel Reduction
// in CUDA" (2007), then warp shuffles, an atomic finish and the course's kernel.
//
// Every kernel reads `n` numbers from `in` and writes one partial sum per block to out[blockIdx.x]
// (the Atomic kernel adds into out[0] instead). Threads past the end load 0, the sum's identity,
// so any n works (the course's kernel skips them instead). The shared-memory kernels (steps 1-7)
// get blockDim.x numbers of type T as dynamic shared memory; the shuffle kernels declare one slot
// per warp; the course's kernel uses none.
#pragma once

#include <cstdint>

namespace cudalab::reduction::kernels {

// One shared array for every T (an extern __shared__ array cannot be declared with two types).
template <class T>
__device__ T* sharedSlots() {
  extern __shared__ __align__(16) unsigned char slotsRaw[];
  return reinterpret_cast<T*>(slotsRaw);
}

// ---------------------------------------------------------------------------------------------
// Step 1. Interleaved addressing with a divergent branch.
// At stride s, threads whose tid is a multiple of 2s add slot tid + s into slot tid. The working
// threads are spread over every warp, so every warp diverges, and % is slow.
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void interleaved(const T* __restrict__ in, T* __restrict__ out, long long n) {
  T* s = sharedSlots<T>();
  const unsigned tid = threadIdx.x;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// ---------------------------------------------------------------------------------------------
// Step 2. Interleaved addressing with a strided index.
// What was wrong: divergence. The first blockDim / (2s) threads now do the work, on slot
// 2 s tid: whole warps work or rest. But neighbouring lanes are now 2s slots apart, so 2s of them
// (at most 32) share a bank: conflicts.
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void strided(const T* __restrict__ in, T* __restrict__ out, long long n) {
  T* s = sharedSlots<T>();
  const unsigned tid = threadIdx.x;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) s[index] += s[index + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// ---------------------------------------------------------------------------------------------
// Step 3. Sequential addressing.
// What was wrong: bank conflicts. The stride starts at blockDim / 2 and halves; thread tid adds
// slot tid + s, so a warp touches 32 consecutive slots, one per bank.
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void sequential(const T* __restrict__ in, T* __restrict__ out, long long n) {
  T* s = sharedSlots<T>();
  const unsigned tid = threadIdx.x;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// Two numbers blockDim apart, added while loading (steps 4 to 6).
template <class T>
__device__ T loadTwo(const T* __restrict__ in, long long n, unsigned block) {
  const long long i = static_cast<long long>(blockIdx.x) * (2 * block) + threadIdx.x;
  T v = i < n ? in[i] : T(0);
  if (i + block < n) v += in[i + block];
  return v;
}

// ---------------------------------------------------------------------------------------------
// Step 4. First add during the global load.
// What was wrong: half the threads idled after loading. Each now loads two numbers and adds
// them: a block covers 2 blockDim numbers.
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void firstAdd(const T* __restrict__ in, T* __restrict__ out, long long n) {
  T* s = sharedSlots<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = loadTwo(in, n, blockDim.x);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The last 64 slots summed by warp 0 alone (tid < 32), every lane at every level. Harris wrote
// this with `volatile` alone, relying on the warp's lanes running in lockstep; since Volta they
// need not, so __syncwarp() puts each level's reads before its writes.
template <class T>
__device__ void lastWarp(volatile T* s, unsigned tid) {
  T v = s[tid];
#pragma unroll
  for (unsigned stride = 32; stride > 0; stride >>= 1) {
    v += s[tid + stride];
    __syncwarp();
    s[tid] = v;
    __syncwarp();
  }
}

// ---------------------------------------------------------------------------------------------
// Step 5. Unroll the last warp.
// What was wrong: the last six levels (s <= 32) each paid a barrier and a branch for at most one
// warp of work. Warp 0 finishes them alone with __syncwarp.
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void unrollLast(const T* __restrict__ in, T* __restrict__ out, long long n) {
  T* s = sharedSlots<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = loadTwo(in, n, blockDim.x);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid < 32) lastWarp(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The tree with the block size known at compile time: each `if (B >= ...)` is decided by the
// compiler, so no loop, no counter, and levels a small block does not have are not compiled.
template <class T, unsigned B>
__device__ void unrolledTree(T* s, unsigned tid) {
  if constexpr (B >= 1024) {
    if (tid < 512) s[tid] += s[tid + 512];
    __syncthreads();
  }
  if constexpr (B >= 512) {
    if (tid < 256) s[tid] += s[tid + 256];
    __syncthreads();
  }
  if constexpr (B >= 256) {
    if (tid < 128) s[tid] += s[tid + 128];
    __syncthreads();
  }
  if constexpr (B >= 128) {
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
  }
  if (tid < 32) lastWarp(s, tid);
}

// ---------------------------------------------------------------------------------------------
// Step 6. Completely unrolled.
// What was wrong: the loop over s cost instructions at every level. B is a template parameter.
// ---------------------------------------------------------------------------------------------
template <class T, unsigned B>
__global__ void __launch_bounds__(B)
    unrolled(const T* __restrict__ in, T* __restrict__ out, long long n) {
  T* s = sharedSlots<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = loadTwo(in, n, B);
  __syncthreads();
  unrolledTree<T, B>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// ---------------------------------------------------------------------------------------------
// Step 7. Multiple elements per thread.
// What was wrong: two numbers per thread meant millions of threads, each paying the start-up and
// a whole tree for little work. A grid that fills the GPU once walks the array (grid-stride),
// each thread summing many numbers in a register; one block then adds the blocks' sums.
// ---------------------------------------------------------------------------------------------
template <class T, unsigned B>
__global__ void __launch_bounds__(B)
    multiple(const T* __restrict__ in, T* __restrict__ out, long long n) {
  T* s = sharedSlots<T>();
  const unsigned tid = threadIdx.x;
  const long long gridSize = 2LL * B * gridDim.x;
  T sum = T(0);
  for (long long i = static_cast<long long>(blockIdx.x) * (2 * B) + tid; i < n; i += gridSize) {
    sum += in[i];
    if (i + B < n) sum += in[i + B];
  }
  s[tid] = sum;
  __syncthreads();
  unrolledTree<T, B>(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// ---------------------------------------------------------------------------------------------
// Beyond Harris: warp shuffles and 16-byte loads.
// What was wrong with step 7: every level still goes through shared memory and, above the last
// warp, a barrier; and each load brings 4 or 8 bytes, so a thread needs many loads in flight to
// keep memory busy. __shfl_down_sync adds within a warp through registers, and int4 / float4 /
// double2 loads bring 16 bytes each, four in flight per thread.
// ---------------------------------------------------------------------------------------------
template <class T>
struct Vec16;
template <>
struct Vec16<int> {
  using type = int4;
};
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

__device__ inline int lanesSum(int4 v) {
  return (v.x + v.y) + (v.z + v.w);
}
__device__ inline float lanesSum(float4 v) {
  return (v.x + v.y) + (v.z + v.w);
}
__device__ inline double lanesSum(double2 v) {
  return v.x + v.y;
}

template <class T>
__device__ T warpSum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The block's sum, valid in thread 0: warps shuffle, lane 0s meet in shared memory, warp 0
// shuffles log2(B / 32) more times.
template <class T, unsigned B>
__device__ T blockSumShuffle(T v) {
  constexpr unsigned kWarps = B / 32;
  __shared__ T warpSums[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warpSum(v);
  if (lane == 0) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kWarps ? warpSums[lane] : T(0);
#pragma unroll
    for (unsigned offset = kWarps / 2; offset > 0; offset >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

// This thread's share of the array: 16-byte loads over the part that fills whole vectors (four
// in flight at a time), then the few numbers left over. `in` must be 16-byte aligned
// (cudaMalloc's allocations are).
template <class T, unsigned B>
__device__ T threadShare(const T* __restrict__ in, long long n) {
  using V = typename Vec16<T>::type;
  constexpr int kWidth = sizeof(V) / sizeof(T);
  const V* vin = reinterpret_cast<const V*>(in);
  const long long vectors = n / kWidth;
  const long long stride = static_cast<long long>(B) * gridDim.x;
  long long i = static_cast<long long>(blockIdx.x) * B + threadIdx.x;
  T a = T(0), b = T(0), c = T(0), d = T(0);
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    const V v0 = vin[i], v1 = vin[i + stride], v2 = vin[i + 2 * stride], v3 = vin[i + 3 * stride];
    a += lanesSum(v0);
    b += lanesSum(v1);
    c += lanesSum(v2);
    d += lanesSum(v3);
  }
  for (; i < vectors; i += stride)
    a += lanesSum(vin[i]);
  const long long tail = vectors * kWidth + static_cast<long long>(blockIdx.x) * B + threadIdx.x;
  if (tail < n) a += in[tail];
  return (a + b) + (c + d);
}

template <class T, unsigned B>
__global__ void __launch_bounds__(B)
    shuffle(const T* __restrict__ in, T* __restrict__ out, long long n) {
  const T v = blockSumShuffle<T, B>(threadShare<T, B>(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// ---------------------------------------------------------------------------------------------
// One atomicAdd per block.
// What was wrong with the shuffle kernel: a second launch for a few hundred numbers. Each block
// adds its sum into out[0] (zeroed before the launch) instead; blocks arrive in any order.
// ---------------------------------------------------------------------------------------------
template <class T, unsigned B>
__global__ void __launch_bounds__(B)
    atomic(const T* __restrict__ in, T* __restrict__ out, long long n) {
  const T v = blockSumShuffle<T, B>(threadShare<T, B>(in, n));
  if (threadIdx.x == 0) atomicAdd(out, v);
}

// ---------------------------------------------------------------------------------------------
// The course's kernel, as its Numba code does it: each block of 128 threads adds in place in the
// input array itself, in global memory, with sequential addressing, and thread 0 writes the
// block's sum. The course returns early from threads past n before the loop's barriers, which
// CUDA does not promise to work; here those threads stay and skip the additions (the
// `start + tid + stride < n` test already keeps the sum right).
// ---------------------------------------------------------------------------------------------
template <class T>
__global__ void course(T* data, T* __restrict__ out, long long n) {
  const unsigned tid = threadIdx.x;
  const long long start = static_cast<long long>(blockIdx.x) * blockDim.x;
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride && start + tid + stride < n) data[start + tid] += data[start + tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[start];
}

}  // namespace cudalab::reduction::kernels
