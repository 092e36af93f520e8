#include <cuda_runtime_api.h>

#include <algorithm>

#include "common/cuda_check.hpp"
#include "launch_config/launch_picture.hpp"
#include "launch_config/launch_picture_keys.cuh"

namespace cudalab::launch_config {
namespace {

__global__ void pictureKernel(const std::uint32_t* owner, const std::uint32_t* writes, long long n,
                              long long allocation, long long tpb, PictureLayout layout, int by,
                              std::uint32_t* out) {
  const int px = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int py = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (px >= layout.width || py >= layout.height) return;
  out[static_cast<size_t>(py) * layout.width + px] =
      pixelKey(owner, writes, n, allocation, tpb, layout, px, py, by);
}

}  // namespace

PictureLayout pictureLayout(const LaunchShape& s, int maxWidth, int maxHeight) {
  PictureLayout L;
  const long long alloc = std::max<long long>(1, s.allocationElements);
  if (s.geometry.grid2d) {
    L.rowElements = std::max<long long>(1, s.width);
  } else {
    // Square-ish, a whole number of warps per row, at most 1024 elements.
    long long side = 32;
    while (side * side < alloc && side < 1024)
      side *= 2;
    L.rowElements = side;
  }
  L.rows = (alloc + L.rowElements - 1) / L.rowElements;
  L.fx = static_cast<int>((L.rowElements + maxWidth - 1) / maxWidth);
  L.fy = static_cast<int>((L.rows + maxHeight - 1) / maxHeight);
  L.width = static_cast<int>((L.rowElements + L.fx - 1) / L.fx);
  L.height = static_cast<int>((L.rows + L.fy - 1) / L.fy);
  return L;
}

std::vector<std::uint32_t> pictureKeysCpu(const OwnershipMap& m, const LaunchShape& s,
                                          const PictureLayout& L, ColourBy by) {
  std::vector<std::uint32_t> keys(static_cast<size_t>(L.width) * L.height);
  const long long alloc = static_cast<long long>(m.ownerThread.size());
  for (int py = 0; py < L.height; ++py)
    for (int px = 0; px < L.width; ++px)
      keys[static_cast<size_t>(py) * L.width + px] =
          pixelKey(m.ownerThread.data(), m.writes.data(), s.n, alloc, s.threadsPerBlock, L, px, py,
                   static_cast<int>(by));
  return keys;
}

Status pictureKeysGpu(const std::uint32_t* owner, const std::uint32_t* writes, const LaunchShape& s,
                      const PictureLayout& L, ColourBy by, std::uint32_t* out,
                      cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((L.width + 31) / 32),
                  static_cast<unsigned>((L.height + 7) / 8));
  pictureKernel<<<grid, block, 0, stream>>>(owner, writes, s.n, s.allocationElements,
                                            s.threadsPerBlock, L, static_cast<int>(by), out);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

Result<std::unique_ptr<DeviceOwnership>> runOwnershipOnDevice(const LaunchConfig& c,
                                                              const DeviceLimits& limits,
                                                              cudaStream_t stream) {
  Result<LaunchShape> rs = shapeFor(c, limits);
  if (!rs) return rs.status();
  CUDALAB_TRY(checkPictureLimits(*rs));
  auto d = std::make_unique<DeviceOwnership>();
  d->shape = *rs;
  const size_t count = static_cast<size_t>(rs->allocationElements);
  CUDALAB_TRY(d->owner.allocate(count));
  CUDALAB_TRY(d->writes.allocate(count));
  // 0xFF bytes make kNoOwner, which any writer's atomicMin replaces.
  CUDALAB_CUDA_TRY(cudaMemsetAsync(d->owner.get(), 0xFF, d->owner.bytes(), stream));
  CUDALAB_CUDA_TRY(cudaMemsetAsync(d->writes.get(), 0, d->writes.bytes(), stream));
  CUDALAB_TRY(
      launchInstrumented(c, d->shape, nullptr, nullptr, d->owner.get(), d->writes.get(), stream));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
  return Result<std::unique_ptr<DeviceOwnership>>(std::move(d));
}

}  // namespace cudalab::launch_config
