// The launch-config lesson's index arithmetic, shared by the GPU kernels and the CPU model.
//
// The lesson's picture (which thread wrote which element) comes from the GPU when there is one and
// from a CPU model when there is none. Both call the functions below, so the model cannot drift
// from what the kernel does: the kernel passes blockIdx/threadIdx/gridDim/blockDim, the model
// passes the same numbers from its own loops.
//
// Everything here is plain arithmetic on integers, so a plain C++ compiler can include this file:
// CL_HD expands to __host__ __device__ only under nvcc.
//
//   ThreadCoord t = clThisThread();                        // in a kernel
//   clForEachElement(g, t, [&](long long e) { out[e] = 2.0f * in[e]; });
//
//   ThreadCoord t{bx, by, tx, ty, gridX, gridY, blockX, blockY};   // in the model
//   clForEachElement(g, t, [&](long long e) { ++writes[e]; });
#pragma once

#ifdef __CUDACC__
#define CL_HD __host__ __device__
#else
#define CL_HD
#endif

namespace cudalab::launch_config {

// Every GPU since the first runs threads in warps of 32 (CUDA's warpSize).
inline constexpr int kWarpSize = 32;

// What every thread of one launch knows besides its own coordinates: the array and the kernel's
// choices. Plain data, passed to the kernel by value.
struct IndexGeometry {
  long long n;       // elements in the array
  long long width;   // row length when the array is seen as a 2D picture (2D grids)
  long long height;  // rows: ceil(n / width); the last row is partial when width does not divide n
  bool grid2d;       // 2D grid and blocks (x along a row, y down the rows)
  bool guard;        // the bounds check `if (i < n)`; a grid-stride loop's condition is its guard
  bool gridStride;   // each thread loops over elements, a whole grid's width apart
};

// One thread's coordinates and the launch's dimensions: CUDA's blockIdx, threadIdx, gridDim and
// blockDim (x and y; this lesson never uses z).
struct ThreadCoord {
  unsigned blockX, blockY;    // blockIdx
  unsigned threadX, threadY;  // threadIdx
  unsigned gridX, gridY;      // gridDim
  unsigned blockDimX, blockDimY;
};

#ifdef __CUDACC__
// The calling GPU thread's coordinates.
__device__ inline ThreadCoord clThisThread() {
  return ThreadCoord{blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y,
                     gridDim.x,  gridDim.y,  blockDim.x,  blockDim.y};
}
#endif

// 1D global index: blockIdx.x * blockDim.x + threadIdx.x (Numba's cuda.grid(1)). Computed in 64
// bits: 2^31 blocks of 1024 threads overflow a 32-bit int.
CL_HD inline long long clGlobalX(const ThreadCoord& t) {
  return static_cast<long long>(t.blockX) * t.blockDimX + t.threadX;
}
CL_HD inline long long clGlobalY(const ThreadCoord& t) {
  return static_cast<long long>(t.blockY) * t.blockDimY + t.threadY;
}

// Threads in the whole grid along x and y: the grid-stride loop's step (Numba's cuda.gridsize).
CL_HD inline long long clGridSizeX(const ThreadCoord& t) {
  return static_cast<long long>(t.gridX) * t.blockDimX;
}
CL_HD inline long long clGridSizeY(const ThreadCoord& t) {
  return static_cast<long long>(t.gridY) * t.blockDimY;
}

// A thread's number in the whole launch, in the order CUDA numbers them: blocks row by row
// (blockIdx.y * gridDim.x + blockIdx.x), and inside a block threadIdx.x fastest. Consecutive
// numbers inside a block form warps, so warp and block follow from this number alone.
CL_HD inline long long clLinearThreadId(const ThreadCoord& t) {
  const long long block = static_cast<long long>(t.blockY) * t.gridX + t.blockX;
  const long long threadsPerBlock = static_cast<long long>(t.blockDimX) * t.blockDimY;
  return block * threadsPerBlock + static_cast<long long>(t.threadY) * t.blockDimX + t.threadX;
}

CL_HD inline long long clBlockOfThread(long long tid, long long threadsPerBlock) {
  return tid / threadsPerBlock;
}

// Warps never span two blocks: a block of 100 threads has 4 warps, the last one partly empty.
CL_HD inline long long clWarpsPerBlock(long long threadsPerBlock) {
  return (threadsPerBlock + kWarpSize - 1) / kWarpSize;
}
CL_HD inline long long clWarpOfThread(long long tid, long long threadsPerBlock) {
  return (tid / threadsPerBlock) * clWarpsPerBlock(threadsPerBlock) +
         (tid % threadsPerBlock) / kWarpSize;
}

// Element of the 2D picture at column x, row y: rows are stored one after the other.
CL_HD inline long long clElement2D(long long x, long long y, long long width) {
  return y * width + x;
}

// The textbook 2D guard is `x < width && y < height`. The last row is partial when width does not
// divide n, so the element must also be below n.
CL_HD inline bool clInside2D(long long x, long long y, const IndexGeometry& g) {
  return x < g.width && y < g.height && clElement2D(x, y, g.width) < g.n;
}

// Calls write(e) for every element index e that thread t writes, in the order it writes them.
// Without the guard, e can be n or more (the canary zone after the array) and, in 2D, a thread with
// x >= width writes e = y * width + x, which is an element of the NEXT row: that element is then
// written twice. The allocation is sized (shapeFor in launch_config.hpp) so no index leaves it.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class Write>
CL_HD inline void clForEachElement(const IndexGeometry& g, const ThreadCoord& t, Write&& write) {
  if (!g.grid2d) {
    const long long i = clGlobalX(t);
    if (g.gridStride) {
      // The loop condition `k < n` is the guard: a grid-stride loop cannot run without one.
      const long long stride = clGridSizeX(t);
      for (long long k = i; k < g.n; k += stride)
        write(k);
    } else if (!g.guard || i < g.n) {
      write(i);
    }
    return;
  }
  const long long x = clGlobalX(t);
  const long long y = clGlobalY(t);
  if (g.gridStride) {
    // Rows a grid's height apart, and in each row columns a grid's width apart.
    const long long strideX = clGridSizeX(t);
    const long long strideY = clGridSizeY(t);
    for (long long yy = y; yy < g.height; yy += strideY) {
      for (long long xx = x; xx < g.width; xx += strideX) {
        const long long e = clElement2D(xx, yy, g.width);
        if (e < g.n) write(e);  // the partial last row
      }
    }
  } else if (!g.guard || clInside2D(x, y, g)) {
    write(clElement2D(x, y, g.width));
  }
}

}  // namespace cudalab::launch_config
