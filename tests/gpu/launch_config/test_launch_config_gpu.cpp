// The launch-config lesson on a real GPU: for random launches (N of 1 and primes, block sizes that
// are not multiples of 32, automatic and manual grids, guard on and off, grid-stride loops, 1D and
// 2D) the instrumented kernel's ownership map equals the CPU model's element by element, and the
// measured doubling kernel is correct exactly where the model says every element is written (and
// wrong on exactly the unwritten ones otherwise). main() (gpu_main.cpp) skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/check_tally.hpp"
#include "common/cuda_raii.hpp"
#include "common/measurement.hpp"
#include "launch_config/launch_config.hpp"

namespace cudalab {

using namespace launch_config;
namespace {

DeviceLimits limits() {
  Result<DeviceLimits> r = queryLimits(0);
  EXPECT_TRUE(r.ok()) << r.status().sentence();
  return r.ok() ? *r : DeviceLimits{};
}

long long ceilDiv(long long a, long long b) {
  return (a + b - 1) / b;
}

// Compares the GPU's map with the model's; reports the first difference rather than millions.
void expectSameOwnership(const OwnershipMap& gpu, const OwnershipMap& model) {
  EXPECT_FALSE(gpu.fromModel);
  ASSERT_EQ(gpu.ownerThread.size(), model.ownerThread.size());
  ASSERT_EQ(gpu.writes.size(), model.writes.size());
  size_t differences = 0, first = 0;
  for (size_t i = 0; i < gpu.writes.size(); ++i) {
    if (gpu.ownerThread[i] != model.ownerThread[i] || gpu.writes[i] != model.writes[i]) {
      if (differences++ == 0) first = i;
    }
  }
  EXPECT_EQ(differences, 0u) << "first at element " << first << ": GPU owner "
                             << gpu.ownerThread[first] << " writes " << gpu.writes[first]
                             << ", model owner " << model.ownerThread[first] << " writes "
                             << model.writes[first];
  EXPECT_EQ(gpu.unwritten, model.unwritten);
  EXPECT_EQ(gpu.multiplyWritten, model.multiplyWritten);
  EXPECT_EQ(gpu.canaryWrites, model.canaryWrites);
  EXPECT_EQ(gpu.totalWrites, model.totalWrites);
}

// The ownership maps agree, and the measured kernel is right exactly where the model says.
void checkLaunch(const LaunchConfig& c, const DeviceLimits& lim, cudaStream_t stream) {
  SCOPED_TRACE(describe(c));
  ASSERT_TRUE(validate(c, lim).ok()) << validate(c, lim).sentence();
  Result<LaunchShape> shape = shapeFor(c, lim);
  ASSERT_TRUE(shape.ok());

  Result<OwnershipMap> model = modelOwnership(c, lim);
  ASSERT_TRUE(model.ok()) << model.status().sentence();
  Result<OwnershipMap> gpu = gpuOwnership(c, lim, stream);
  ASSERT_TRUE(gpu.ok()) << gpu.status().sentence();
  expectSameOwnership(*gpu, *model);
  EXPECT_EQ(model->unwritten, shape->unwrittenElements);
  EXPECT_EQ(model->canaryWrites, shape->canaryWrites);

  std::unique_ptr<Workload> w = makeDoublingWorkload(c, *shape);
  EXPECT_EQ(w->wrongByDesign(), static_cast<size_t>(model->unwritten));
  MeasureOptions opt;
  opt.warmup = 1;
  opt.runs = 2;
  const CheckTally before = checkTally();
  Result<Measurement> m = measure(*w, opt, nullptr, stream);
  ASSERT_TRUE(m.ok()) << m.status().sentence();
  // The soak's tally counts a launch that leaves exactly the model's elements unwritten as right:
  // the lesson shows what it set out to show (both timed runs are verified).
  const CheckTally after = checkTally();
  EXPECT_EQ(after.failed, before.failed);
  EXPECT_EQ(after.passed, before.passed + 2);
  EXPECT_TRUE(m->check.ran);
  EXPECT_EQ(m->check.checked, static_cast<size_t>(c.n));
  // Unwritten elements still hold the NaN poison: wrong, and nothing else is.
  EXPECT_EQ(m->check.wrong, static_cast<size_t>(model->unwritten));
  if (model->unwritten == 0) {
    EXPECT_TRUE(m->check.ok());
  }
  for (const PhaseStats& p : m->phases) {
    EXPECT_GT(p.medianMs, 0.0);
    EXPECT_GE(p.minMs, 0.0);
    EXPECT_LE(p.minMs, p.medianMs);
    EXPECT_LE(p.medianMs, p.maxMs);
    EXPECT_EQ(p.samplesMs.size(), 2u);
  }
  EXPECT_DOUBLE_EQ(m->kernelBytes, 8.0 * static_cast<double>(c.n));
  EXPECT_DOUBLE_EQ(m->h2dBytes, 4.0 * static_cast<double>(c.n));
  EXPECT_DOUBLE_EQ(m->d2hBytes, 4.0 * static_cast<double>(c.n));

  Result<int> perSM = occupancyBlocksPerSM(c);
  ASSERT_TRUE(perSM.ok()) << perSM.status().sentence();
  EXPECT_GT(*perSM, 0);
}

// A random launch the device accepts and the picture can show.
LaunchConfig randomLaunch(std::mt19937& gen, const DeviceLimits& lim) {
  auto pick = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(gen);
  };
  const long long specialN[] = {1, 2, 31, 32, 33, 97, 7919, 65537, 1000003};
  const int tpbs[] = {1, 7, 32, 33, 64, 97, 100, 128, 256, 500, 512, 1024};
  for (;;) {
    LaunchConfig c;
    c.n = pick(0, 1) ? specialN[pick(0, 8)] : pick(1, 2000000);
    c.threadsPerBlock = tpbs[pick(0, 11)];
    c.grid2d = pick(0, 1) == 1;
    // Wide enough that the picture's rows fit the grid's 65535 blocks in y.
    c.width = pick(std::min<long long>(3000, c.n / 30000 + 1), 3000);
    c.guard = pick(0, 1) == 1;
    c.gridStride = pick(0, 2) == 0;
    c.autoBlocks = pick(0, 1) == 1;
    if (!c.grid2d) {
      c.blocks = pick(1, 2 * ceilDiv(c.n, c.threadsPerBlock));
    } else {
      const BlockShape2D b = blockShape2D(c.threadsPerBlock);
      c.blocks = pick(1, 2 * ceilDiv(c.width, b.x));
      c.blocksY = pick(1, std::min<long long>(65535, 2 * ceilDiv(ceilDiv(c.n, c.width), b.y)));
    }
    Result<LaunchShape> s = shapeFor(c, lim);
    if (s.ok() && validate(c, lim).ok() && checkPictureLimits(*s).ok()) return c;
  }
}

class LaunchConfigGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    lim_ = limits();
    ASSERT_TRUE(stream_.create().ok());
  }
  DeviceLimits lim_;
  StreamGuard stream_;
};

TEST_F(LaunchConfigGpu, LimitsComeFromTheDevice) {
  EXPECT_TRUE(lim_.fromDevice);
  EXPECT_EQ(lim_.maxThreadsPerBlock, 1024);
  EXPECT_EQ(lim_.maxGridX, 2147483647);
  EXPECT_EQ(lim_.maxGridY, 65535);
  EXPECT_EQ(lim_.warpSize, 32);
  EXPECT_GT(lim_.smCount, 0);
  EXPECT_GT(lim_.maxThreadsPerSM, 0);
  EXPECT_GT(lim_.maxBlocksPerSM, 0);
  EXPECT_GT(lim_.freeBytes, 0u);
  EXPECT_FALSE(lim_.name.empty());
  std::printf("%s: %d SMs, %d threads and %d blocks per SM\n", lim_.name.c_str(), lim_.smCount,
              lim_.maxThreadsPerSM, lim_.maxBlocksPerSM);
}

TEST_F(LaunchConfigGpu, HandWorkedCasesMatchTheModel) {
  // The CPU tests' hand-worked launches, now on the GPU.
  LaunchConfig c;
  c.n = 10;
  c.width = 5;
  c.threadsPerBlock = 4;
  checkLaunch(c, lim_, stream_.get());  // 3 blocks, 2 idle threads
  c.autoBlocks = false;
  c.blocks = 2;
  checkLaunch(c, lim_, stream_.get());  // elements 8 and 9 unwritten
  c.blocks = 3;
  c.guard = false;
  checkLaunch(c, lim_, stream_.get());  // 2 canary writes
  c.blocks = 2;
  c.gridStride = true;
  checkLaunch(c, lim_, stream_.get());  // threads 0 and 1 write two elements each
  LaunchConfig d;
  d.n = 10;
  d.width = 5;
  d.threadsPerBlock = 4;
  d.grid2d = true;
  d.guard = false;
  checkLaunch(d, lim_, stream_.get());  // elements 5, 6, 7 written twice, 3 canary writes
}

TEST_F(LaunchConfigGpu, RandomLaunchesMatchTheModel) {
  std::mt19937 gen(20261121);
  for (int i = 0; i < 20; ++i)
    checkLaunch(randomLaunch(gen, lim_), lim_, stream_.get());
}

TEST_F(LaunchConfigGpu, EveryVariantAtTheCourseSize) {
  // 30 million elements; blocks of 100 make a 25 x 4 2D block, so the unguarded 2D kernel's
  // 77 blocks per row (1925 threads) spill 5 writes per row into the next one.
  for (const LaunchVariant& v : launchVariants()) {
    LaunchConfig c = withVariant(LaunchConfig{}, v);
    c.threadsPerBlock = 100;
    checkLaunch(c, lim_, stream_.get());
  }
}

TEST_F(LaunchConfigGpu, OccupancyMatchesTheModel) {
  // The doubling kernel is capped at 32 registers and uses no shared memory, so only threads and
  // blocks per SM limit it, which is all modelBlocksPerSM() counts.
  for (const LaunchVariant& v : launchVariants()) {
    for (int tpb : {1, 32, 64, 100, 128, 256, 512, 1024}) {
      LaunchConfig c = withVariant(LaunchConfig{}, v);
      c.threadsPerBlock = tpb;
      Result<int> r = occupancyBlocksPerSM(c);
      ASSERT_TRUE(r.ok()) << r.status().sentence();
      EXPECT_EQ(*r, modelBlocksPerSM(tpb, lim_)) << v.id << ", " << tpb << " threads per block";
    }
  }
}

TEST_F(LaunchConfigGpu, RefusedLaunchesNeverReachTheDevice) {
  LaunchConfig c;
  c.threadsPerBlock = 2048;
  Result<OwnershipMap> r = gpuOwnership(c, lim_, stream_.get());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at most 1,024 threads"), std::string::npos);
  EXPECT_EQ(r.status().cudaCode(), 0);  // validation, not a CUDA error
}

}  // namespace
}  // namespace cudalab
