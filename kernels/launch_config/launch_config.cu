// The launch-config lesson on the GPU: the doubling kernel, its instrumented twin that records who
// wrote what, occupancy and device limits, and the measured Workload.
//
// [SECTION] Kernels           doubleKernel (timed) and instrumentedKernel (the picture); both ask
//                             clForEachElement where each thread writes, as the CPU model does
// [SECTION] Launchers         the only <<<>>> of the lesson
// [SECTION] Ownership         gpuOwnership
// [SECTION] Device            occupancy and limits
// [SECTION] Workload          DoublingWorkload for measure()
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <random>
#include <string>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "launch_config/launch_config.hpp"

namespace cudalab::launch_config {

// ---------------------------------------------------------------------------------------------
// [SECTION] Kernels
// ---------------------------------------------------------------------------------------------

namespace {

// Each variant is its own instantiation, as the one variant would be in a real program: the
// three switches become constants and their branches disappear from the compiled kernel. The
// geometry still carries them so the CPU model (which reads them at run time) agrees.
template <bool Grid2d, bool Guard, bool GridStride>
__device__ inline IndexGeometry fixed(IndexGeometry g) {
  g.grid2d = Grid2d;
  g.guard = Guard;
  g.gridStride = GridStride;
  return g;
}

// What is timed: one load, one multiply, one store per element, nothing else. With the guard off
// the index may reach the canary zone after the array (the allocation covers it).
// At most 32 registers: 65536 per SM / 2048 threads per SM (Hopper), so registers never limit how
// many blocks fit, which is what modelBlocksPerSM() assumes. The grid-stride variants would take a
// few more to unroll their loop, which a memory-bound loop does not need.
template <bool Grid2d, bool Guard, bool GridStride>
__global__ void __maxnreg__(32)
    doubleKernel(IndexGeometry g, const float* __restrict__ in, float* __restrict__ out) {
  clForEachElement(fixed<Grid2d, Guard, GridStride>(g), clThisThread(),
                   [&](long long e) { out[e] = 2.0f * in[e]; });
}

// The same index arithmetic, also recording the writer. atomicMin keeps the lowest thread number
// when several threads write one element, so the map does not depend on which write landed last
// (a race); atomicAdd counts the writes. Slower than doubleKernel, and never timed.
template <bool Grid2d, bool Guard, bool GridStride>
__global__ void instrumentedKernel(IndexGeometry g, const float* in, float* out, unsigned* owner,
                                   unsigned* writes) {
  const ThreadCoord t = clThisThread();
  // checkPictureLimits() guarantees every writing thread's number fits 32 bits.
  const unsigned tid = static_cast<unsigned>(clLinearThreadId(t));
  clForEachElement(fixed<Grid2d, Guard, GridStride>(g), t, [&](long long e) {
    if (out) out[e] = 2.0f * in[e];
    atomicMin(&owner[e], tid);
    atomicAdd(&writes[e], 1u);
  });
}

using DoubleFn = void (*)(IndexGeometry, const float*, float*);
using InstrumentedFn = void (*)(IndexGeometry, const float*, float*, unsigned*, unsigned*);

// The instantiation for a geometry's switches (a grid-stride loop is always guarded).
template <bool Grid2d>
DoubleFn doubleKernelFor2(const IndexGeometry& g) {
  if (g.gridStride) return doubleKernel<Grid2d, true, true>;
  return g.guard ? doubleKernel<Grid2d, true, false> : doubleKernel<Grid2d, false, false>;
}
DoubleFn doubleKernelFor(const IndexGeometry& g) {
  return g.grid2d ? doubleKernelFor2<true>(g) : doubleKernelFor2<false>(g);
}
template <bool Grid2d>
InstrumentedFn instrumentedKernelFor2(const IndexGeometry& g) {
  if (g.gridStride) return instrumentedKernel<Grid2d, true, true>;
  return g.guard ? instrumentedKernel<Grid2d, true, false>
                 : instrumentedKernel<Grid2d, false, false>;
}
InstrumentedFn instrumentedKernelFor(const IndexGeometry& g) {
  return g.grid2d ? instrumentedKernelFor2<true>(g) : instrumentedKernelFor2<false>(g);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Launchers
// ---------------------------------------------------------------------------------------------

namespace {

// The launch's dim3s, refusing what would not survive the conversion to CUDA's unsigned ints
// (validate() refuses it earlier, with the teaching sentence; this only keeps a skipped
// validation from launching a different grid than the shape describes).
Status launchDims(const LaunchShape& s, dim3& grid, dim3& block) {
  if (s.gridX < 1 || s.gridY < 1 || s.gridX > UINT_MAX || s.gridY > UINT_MAX || s.blockX < 1 ||
      s.blockY < 1) {
    return Status::error("This launch's grid (" + std::to_string(s.gridX) + " x " +
                         std::to_string(s.gridY) +
                         " blocks) cannot be launched; validate the configuration first.");
  }
  grid = dim3(static_cast<unsigned>(s.gridX), static_cast<unsigned>(s.gridY), 1);
  block = dim3(static_cast<unsigned>(s.blockX), static_cast<unsigned>(s.blockY), 1);
  return {};
}

}  // namespace

Status launchDouble(const LaunchConfig&, const LaunchShape& s, const float* in, float* out,
                    cudaStream_t stream) {
  dim3 grid, block;
  CUDALAB_TRY(launchDims(s, grid, block));
  doubleKernelFor(s.geometry)<<<grid, block, 0, stream>>>(s.geometry, in, out);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

Status launchInstrumented(const LaunchConfig&, const LaunchShape& s, const float* in, float* out,
                          uint32_t* owner, uint32_t* writes, cudaStream_t stream) {
  if ((in == nullptr) != (out == nullptr))
    return Status::error("The instrumented kernel needs both input and output, or neither.");
  dim3 grid, block;
  CUDALAB_TRY(launchDims(s, grid, block));
  static_assert(sizeof(uint32_t) == sizeof(unsigned), "atomicMin/atomicAdd take unsigned int");
  instrumentedKernelFor(s.geometry)<<<grid, block, 0, stream>>>(
      s.geometry, in, out, reinterpret_cast<unsigned*>(owner), reinterpret_cast<unsigned*>(writes));
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Ownership
// ---------------------------------------------------------------------------------------------

Result<OwnershipMap> gpuOwnership(const LaunchConfig& c, const DeviceLimits& limits,
                                  cudaStream_t stream) {
  CUDALAB_TRY(validate(c, limits));
  Result<LaunchShape> rs = shapeFor(c, limits);
  if (!rs) return rs.status();
  const LaunchShape& s = *rs;
  CUDALAB_TRY(checkPictureLimits(s));

  const size_t count = static_cast<size_t>(s.allocationElements);
  OwnershipMap m;
  m.n = s.n;
  m.fromModel = false;
  m.ownerThread.resize(count);
  m.writes.resize(count);

  DeviceArray<uint32_t> owner, writes;
  // Declared after the buffers the stream uses, so on any early return it is destroyed first and
  // waits for the stream's work before the buffers are freed under it.
  StreamDrain drain(stream);
  CUDALAB_TRY(owner.allocate(count));
  CUDALAB_TRY(writes.allocate(count));
  // 0xFF bytes make kNoOwner, which any writer's atomicMin replaces.
  CUDALAB_CUDA_TRY(cudaMemsetAsync(owner.get(), 0xFF, owner.bytes(), stream));
  CUDALAB_CUDA_TRY(cudaMemsetAsync(writes.get(), 0, writes.bytes(), stream));
  CUDALAB_TRY(launchInstrumented(c, s, nullptr, nullptr, owner.get(), writes.get(), stream));
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(m.ownerThread.data(), owner.get(), owner.bytes(),
                                   cudaMemcpyDeviceToHost, stream));
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(m.writes.data(), writes.get(), writes.bytes(),
                                   cudaMemcpyDeviceToHost, stream));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
  countOwnership(m);
  return m;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Device
// ---------------------------------------------------------------------------------------------

Result<int> occupancyBlocksPerSM(const LaunchConfig& c) {
  if (c.threadsPerBlock < 1)
    return Status::error("Threads per block must be at least 1 to ask for occupancy.");
  int blocks = 0;
  // The kernel the lesson times for this variant, at this block size, with no dynamic shared
  // memory.
  const IndexGeometry g{0, 1, 0, c.grid2d, c.guard || c.gridStride, c.gridStride};
  CUDALAB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, doubleKernelFor(g),
                                                                 c.threadsPerBlock, 0));
  return blocks;
}

Result<DeviceLimits> queryLimits(int device) {
  // The device is current while the limits are read (cudaMemGetInfo asks the current one); the
  // previous one is restored on return.
  CurrentDevice current;
  CUDALAB_TRY(current.set(device));
  DeviceLimits l;
  int gridX = 0;
  CUDALAB_CUDA_TRY(
      cudaDeviceGetAttribute(&l.maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, device));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&gridX, cudaDevAttrMaxGridDimX, device));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&l.maxGridY, cudaDevAttrMaxGridDimY, device));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&l.smCount, cudaDevAttrMultiProcessorCount, device));
  CUDALAB_CUDA_TRY(
      cudaDeviceGetAttribute(&l.maxThreadsPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  CUDALAB_CUDA_TRY(
      cudaDeviceGetAttribute(&l.maxBlocksPerSM, cudaDevAttrMaxBlocksPerMultiprocessor, device));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&l.warpSize, cudaDevAttrWarpSize, device));
  l.maxGridX = gridX;
  size_t freeBytes = 0, totalBytes = 0;
  CUDALAB_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
  l.freeBytes = freeBytes;
  cudaDeviceProp p{};
  CUDALAB_CUDA_TRY(cudaGetDeviceProperties(&p, device));
  l.name = p.name;
  l.fromDevice = true;
  return l;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Workload
// ---------------------------------------------------------------------------------------------

namespace {

class DoublingWorkload final : public Workload {
 public:
  DoublingWorkload(const LaunchConfig& c, const LaunchShape& s) : c_(c), s_(s) {}

  // Device arrays cover the canary zone; host arrays hold the N elements that are copied.
  Status prepare(cudaStream_t stream) override {
    const size_t alloc = static_cast<size_t>(s_.allocationElements);
    const size_t n = static_cast<size_t>(s_.n);
    CUDALAB_TRY(in_.allocate(alloc));
    CUDALAB_TRY(out_.allocate(alloc));
    CUDALAB_TRY(hostIn_.allocate(n));
    CUDALAB_TRY(hostOut_.allocate(n));
    // Fresh random numbers every time: a kernel that wrote zeros, or yesterday's output, would not
    // pass. [1, 2) contains no zero, so a missing write can never look right.
    std::mt19937 gen(std::random_device{}());
    std::uniform_real_distribution<float> dist(1.0f, 2.0f);
    float* h = hostIn_.get();
    for (size_t i = 0; i < n; ++i)
      h[i] = dist(gen);
    // Unguarded threads also read the canary part of the input: give it defined contents.
    if (alloc > n) {
      CUDALAB_CUDA_TRY(cudaMemsetAsync(in_.get() + n, 0, (alloc - n) * sizeof(float), stream));
    }
    return {};
  }

  // 0xFFFFFFFF is a NaN, which no doubling of the inputs produces, so an element no thread wrote
  // cannot pass the check. The canary zone is poisoned too.
  Status poison(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), stream));
    return {};
  }

  Status copyIn(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(in_.get(), hostIn_.get(), hostIn_.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, stream));
    return {};
  }

  Status launch(cudaStream_t stream) override {
    return launchDouble(c_, s_, in_.get(), out_.get(), stream);
  }

  Status copyOut(cudaStream_t stream) override {
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(hostOut_.get(), out_.get(), hostOut_.size() * sizeof(float),
                                     cudaMemcpyDeviceToHost, stream));
    return {};
  }

  Result<Correctness> verify() override {
    return compareWithReference(std::span<const float>(hostIn_.get(), hostIn_.size()),
                                std::span<const float>(hostOut_.get(), hostOut_.size()));
  }

  // The model's count of elements no thread writes (grid too small, no stride loop).
  size_t wrongByDesign() const override { return static_cast<size_t>(s_.unwrittenElements); }
  double kernelBytes() const override { return 8.0 * static_cast<double>(s_.n); }
  double kernelFlops() const override { return static_cast<double>(s_.n); }
  double h2dBytes() const override { return 4.0 * static_cast<double>(s_.n); }
  double d2hBytes() const override { return 4.0 * static_cast<double>(s_.n); }

 private:
  LaunchConfig c_;
  LaunchShape s_;
  DeviceArray<float> in_, out_;
  PinnedArray<float> hostIn_, hostOut_;
};

}  // namespace

std::unique_ptr<Workload> makeDoublingWorkload(const LaunchConfig& c, const LaunchShape& s) {
  return std::make_unique<DoublingWorkload>(c, s);
}

}  // namespace cudalab::launch_config
