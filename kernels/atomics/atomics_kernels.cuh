// The atomics lesson's kernels: the counter variants of the race lab, the contention kernel, and
// one kernel per step of the histogram ladder. Included by atomics.cu only.
#pragma once

#include <cstdint>

#include "atomics/atomics_bin.cuh"

namespace cudalab::atomics::kernels {

// ---------------------------------------------------------------------------------------------
// The race lab: every thread adds 1 to counter[0].
// ---------------------------------------------------------------------------------------------

// The course's thread_counter_race_condition: a read, an add and a write that other threads'
// reads and writes can fall between. Wrong on purpose: the lesson measures how wrong.
__global__ void counterPlain(unsigned* counter) {
  volatile unsigned* c = counter;  // one read and one write per thread, as Numba's += compiles
  *c = *c + 1;
}

// Fixes the race: the read-add-write is one operation, done in the L2 cache. Every thread's
// atomic aims at the same address, so they are serialised there.
__global__ void counterGlobal(unsigned* counter) {
  atomicAdd(counter, 1u);
}

// Fewer global atomics: the block counts in shared memory (cheap, on the SM), then one thread
// adds the block's count: one global atomic per block.
__global__ void counterShared(unsigned* counter) {
  __shared__ unsigned blockCount;
  if (threadIdx.x == 0) blockCount = 0;
  __syncthreads();
  atomicAdd(&blockCount, 1u);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(counter, blockCount);
}

// No shared memory at all: the warp's lanes add their 1s in registers and one lane issues the
// warp's atomic. __reduce_add_sync is one instruction on sm_80 and later; before, a shuffle tree.
__global__ void counterWarp(unsigned* counter) {
  const unsigned active = __activemask();
#if __CUDA_ARCH__ >= 800
  const unsigned warpCount = __reduce_add_sync(active, 1u);
#else
  const unsigned warpCount = __popc(active);  // each active lane adds 1
#endif
  const int lane = threadIdx.x % 32;
  if (lane == __ffs(active) - 1) atomicAdd(counter, warpCount);
}

// Contention against the number of addresses: thread t adds to counter t / group, so `group`
// neighbouring threads share each counter.
__global__ void counterSpread(unsigned* counters, long long threads, long long group) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) atomicAdd(&counters[t / group], 1u);
}

// ---------------------------------------------------------------------------------------------
// The histogram ladder. Every kernel counts with binOf (atomics_bin.cuh), the CPU's rule, and
// expects `hist` zeroed.
// ---------------------------------------------------------------------------------------------

// Step "global": the course exercise's natural answer. One thread per value, one atomicAdd on
// global memory per value: correct, but every atomic travels to L2, and values that share a bin
// wait for each other there.
template <class T>
__global__ void histGlobal(const T* x, long long n, BinRule r, unsigned* hist) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int k = binOf(x[i], r);
  if (k >= 0) atomicAdd(&hist[k], 1u);
}

// Zero `count` shared counters with the whole block.
__device__ inline void zeroShared(unsigned* s, int count) {
  for (int k = threadIdx.x; k < count; k += blockDim.x)
    s[k] = 0;
}

// Adds the block's `copies` sub-histograms bin by bin and merges the sums into the global
// histogram: one global atomic per non-empty bin per block. Copy c's counter of bin k is word
// k * binStride + c * copyStride: sub-histograms side by side (binStride 1, copyStride bins), or
// interleaved, the "lanes" step's columns (binStride copies, copyStride 1).
__device__ inline void mergeCopies(const unsigned* s, int copies, int bins, int binStride,
                                   int copyStride, unsigned* hist) {
  for (int k = threadIdx.x; k < bins; k += blockDim.x) {
    unsigned sum = 0;
    for (int c = 0; c < copies; ++c)
      sum += s[k * binStride + c * copyStride];
    if (sum) atomicAdd(&hist[k], sum);
  }
}

// Step "shared": what was wrong with "global" is that every value's atomic goes far (L2) and
// contends with the whole GPU's. Each block now counts into its own histogram in shared memory
// and merges it once; the grid fills the GPU once and each thread loops over many values, so
// there are few merges.
template <class T>
__global__ void histShared(const T* x, long long n, BinRule r, unsigned* hist) {
  extern __shared__ unsigned s[];
  zeroShared(s, r.bins);
  __syncthreads();
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int k = binOf(x[i], r);
    if (k >= 0) atomicAdd(&s[k], 1u);
  }
  __syncthreads();
  mergeCopies(s, 1, r.bins, 1, r.bins, hist);
}

// Step "warps": in one block's histogram every warp of the block still contends for the same
// counters. Each warp now counts into a copy of its own (warps beyond `copies` share), so only a
// warp's own lanes can collide; the copies are added before the merge.
template <class T>
__global__ void histWarps(const T* x, long long n, BinRule r, int copies, unsigned* hist) {
  extern __shared__ unsigned s[];
  zeroShared(s, copies * r.bins);
  __syncthreads();
  unsigned* mine = s + (threadIdx.x / 32 % copies) * r.bins;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int k = binOf(x[i], r);
    if (k >= 0) atomicAdd(&mine[k], 1u);
  }
  __syncthreads();
  mergeCopies(s, copies, r.bins, 1, r.bins, hist);
}

// Adds one value's bin to a sub-histogram: directly, or combined with the warp's other lanes
// that hold the same bin (__match_any_sync groups them; the lowest lane of each group adds the
// group's size). Lanes may have left the loop: the group is among the lanes active now.
template <bool kAggregate>
__device__ inline void countBin(unsigned* h, int k) {
  if constexpr (kAggregate) {
    const unsigned active = __activemask();
    const unsigned same = __match_any_sync(active, k);
    if (k >= 0 && (threadIdx.x % 32) == __ffs(same) - 1) atomicAdd(&h[k], __popc(same));
  } else {
    if (k >= 0) atomicAdd(&h[k], 1u);
  }
}

// How the vector steps count one value.
enum class Count {
  PerWarp,     // "vector": atomicAdd on the warp's sub-histogram
  Aggregated,  // "aggregated": equal bins of the warp combined first
  Lanes,       // "lanes": lane l's counter of each bin is word bin * columns + l % columns
};

// Steps "vector", "aggregated" and "lanes": "warps" loads one value per instruction, for 8-bit
// data one byte, far too little to keep the memory system busy. Each thread now loads 16 bytes
// at once (16 pixels or 4 floats) and counts them from registers. "aggregated" also combines
// equal bins across the warp before its shared atomics (skewed data, flat image areas); "lanes"
// instead gives every lane its own counter of each bin, interleaved so that lane l's counters
// all lie in bank l: no two lanes of a warp can collide, on a counter or on a bank.
// kColumns: the Lanes step's columns when known at compile time (32, the usual case: a counter's
// address is then a shift and an add; on an H100 2.6 TB/s against 2.1 with the columns a run-time
// number), 0 when they are the run-time `copies`.
template <class T, Count kCount, int kColumns = 0>
__global__ void histVector(const T* x, long long n, BinRule r, int copies, unsigned* hist) {
  extern __shared__ unsigned s[];
  if (kColumns > 0) copies = kColumns;
  zeroShared(s, copies * r.bins);
  __syncthreads();
  // PerWarp and Aggregated: the warp's sub-histogram, bins side by side. Lanes: the lane's
  // column, one counter every `copies` words.
  unsigned* mine = kCount == Count::Lanes ? s + threadIdx.x % 32 % copies
                                          : s + (threadIdx.x / 32 % copies) * r.bins;
  const int step = kCount == Count::Lanes ? copies : 1;
  // Every byte has a bin (binOf never says -1 for 8-bit data): no test, so the 16 atomics of a
  // chunk follow each other without branches (with the test, the "lanes" step ran at 1.4 TB/s
  // on an H100 instead of 2.6).
  constexpr bool kAlwaysCounted = sizeof(T) == 1;
  auto count = [&](int k) {
    if constexpr (kCount == Count::Aggregated)
      countBin<true>(mine, k);
    else if (kAlwaysCounted || k >= 0)
      atomicAdd(&mine[k * step], 1u);
  };
  constexpr int kPer = 16 / sizeof(T);
  const long long chunks = n / kPer;
  const uint4* v = reinterpret_cast<const uint4*>(x);
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long c = first; c < chunks; c += stride) {
    const uint4 w = v[c];
    const T* e = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int j = 0; j < kPer; ++j)
      count(binOf(e[j], r));
  }
  // The values past the last whole 16 bytes, one per thread.
  for (long long i = chunks * kPer + first; i < n; i += stride)
    count(binOf(x[i], r));
  __syncthreads();
  if constexpr (kCount == Count::Lanes)
    mergeCopies(s, copies, r.bins, copies, 1, hist);
  else
    mergeCopies(s, copies, r.bins, 1, r.bins, hist);
}

}  // namespace cudalab::atomics::kernels
