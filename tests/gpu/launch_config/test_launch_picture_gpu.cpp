// The picture's keys from the GPU equal the CPU model's, pixel by pixel, for random launches.
#include <gtest/gtest.h>

#include <random>

#include "common/cuda_raii.hpp"
#include "launch_config/launch_picture.hpp"

namespace cudalab {

using namespace launch_config;
namespace {

TEST(LaunchPictureGpu, GpuKeysEqualTheModel) {
  std::mt19937 rng(std::random_device{}());
  Result<DeviceLimits> limits = queryLimits(0);
  ASSERT_TRUE(limits.ok());
  StreamGuard stream;
  ASSERT_TRUE(stream.create().ok());
  for (int trial = 0; trial < 12; ++trial) {
    LaunchConfig c{};
    c.n = 1 + static_cast<long long>(rng() % (trial < 6 ? 5000 : 3'000'000));
    c.threadsPerBlock = 1 + static_cast<int>(rng() % 1024);
    c.autoBlocks = rng() % 2;
    c.blocks = 1 + static_cast<long long>(rng() % 3000);
    c.blocksY = 1 + static_cast<long long>(rng() % 40);
    c.grid2d = rng() % 2;
    c.width = 1 + static_cast<long long>(rng() % 2500);
    c.guard = rng() % 2;
    c.gridStride = rng() % 3 == 0;
    if (!validate(c, *limits).ok()) continue;
    Result<std::unique_ptr<DeviceOwnership>> d = runOwnershipOnDevice(c, *limits, stream.get());
    if (!d.ok())
      continue;  // e.g. too large for a picture: refused with a sentence, tested elsewhere
    Result<OwnershipMap> model = modelOwnership(c, *limits);
    ASSERT_TRUE(model.ok()) << describe(c);
    const PictureLayout L = pictureLayout((*d)->shape);
    DeviceArray<std::uint32_t> keys;
    ASSERT_TRUE(keys.allocate(static_cast<size_t>(L.width) * L.height).ok());
    for (ColourBy by : {ColourBy::Block, ColourBy::Warp, ColourBy::Thread, ColourBy::Writes}) {
      ASSERT_TRUE(pictureKeysGpu((*d)->owner.get(), (*d)->writes.get(), (*d)->shape, L, by,
                                 keys.get(), stream.get())
                      .ok());
      std::vector<std::uint32_t> gpu(keys.size());
      // The stream is non-blocking: a plain cudaMemcpy would not wait for the kernel.
      ASSERT_EQ(cudaMemcpyAsync(gpu.data(), keys.get(), keys.bytes(), cudaMemcpyDeviceToHost,
                                stream.get()),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
      std::vector<std::uint32_t> cpu = pictureKeysCpu(*model, (*d)->shape, L, by);
      size_t diff = 0;
      for (size_t i = 0; i < cpu.size(); ++i)
        diff += cpu[i] != gpu[i];
      EXPECT_EQ(diff, 0u) << describe(c) << " colour by " << static_cast<int>(by);
    }
  }
}

}  // namespace
}  // namespace cudalab
