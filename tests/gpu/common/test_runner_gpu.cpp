// The runner on a real GPU: phase times are positive with min <= median <= max, every timed run
// is recorded, and the poisoned-then-verified check passes. (Which phase takes longer, the copies
// or the kernel, is the benchmark's to show: under a sanitizer the kernel is many times slower.)
#include <gtest/gtest.h>

#include <utility>

#include "common/cuda_raii.hpp"
#include "common/measurement.hpp"
#include "launch_config/launch_config.hpp"
#include "tests/gpu/sanitizing.hpp"

namespace cudalab {

using namespace launch_config;
namespace {

TEST(RunnerGpu, PhasesArePositiveOrderedAndChecked) {
  Result<DeviceLimits> lim = queryLimits(0);
  ASSERT_TRUE(lim.ok());
  LaunchConfig c;  // 30 million floats, 128 threads per block, guarded
  Result<LaunchShape> s = shapeFor(c, *lim);
  ASSERT_TRUE(s.ok());
  StreamGuard stream;
  ASSERT_TRUE(stream.create().ok());
  std::unique_ptr<Workload> w = makeDoublingWorkload(c, *s);
  MeasureOptions opt;
  opt.warmup = 1;
  opt.runs = 5;
  Result<Measurement> m = measure(*w, opt, nullptr, stream.get());
  ASSERT_TRUE(m.ok()) << m.status().sentence();
  for (const PhaseStats& p : m->phases) {
    EXPECT_EQ(p.samplesMs.size(), 5u);
    EXPECT_GT(p.minMs, 0.0);
    EXPECT_LE(p.minMs, p.medianMs);
    EXPECT_LE(p.medianMs, p.maxMs);
  }
  EXPECT_TRUE(m->check.ok()) << m->check.wrong << " wrong";
  EXPECT_EQ(m->check.checked, static_cast<size_t>(c.n));
  EXPECT_DOUBLE_EQ(m->kernelBytes, 8.0 * static_cast<double>(c.n));
  EXPECT_GT(m->kernelGBps(), 0.0);
}

// The soak reports pinned memory apart from malloc's: every PinnedArray is counted while it lives.
TEST(RunnerGpu, PinnedArraysAreCountedWhileTheyLive) {
  const long long before = pinnedHostBytes().load();
  {
    PinnedArray<float> a;
    ASSERT_TRUE(a.allocate(1000).ok());
    EXPECT_EQ(pinnedHostBytes().load() - before, 4000);
    ASSERT_TRUE(a.allocate(10).ok());  // the first buffer is freed first
    EXPECT_EQ(pinnedHostBytes().load() - before, 40);
  }
  EXPECT_EQ(pinnedHostBytes().load(), before);
}

// The soak subtracts what the app's arrays hold from the device's memory in use, so that a lesson
// holding a large frame is not taken for growth: the count must follow every allocation and free.
TEST(RunnerGpu, DeviceArraysAreCountedWhileTheyLive) {
  const long long before = heldDeviceBytes().load(), buffers = heldDeviceBuffers().load();
  {
    DeviceArray<double> a;
    ASSERT_TRUE(a.allocate(1000).ok());
    EXPECT_EQ(heldDeviceBytes().load() - before, 8000);
    ASSERT_TRUE(a.allocate(10).ok());  // the first buffer is freed first
    EXPECT_EQ(heldDeviceBytes().load() - before, 80);
    EXPECT_EQ(heldDeviceBuffers().load() - buffers, 1);
    DeviceArray<double> b(std::move(a));  // the bytes move with the buffer, counted once
    EXPECT_EQ(heldDeviceBytes().load() - before, 80);
    a.reset();
    EXPECT_EQ(heldDeviceBytes().load() - before, 80);
    DeviceArray<int> c;
    ASSERT_TRUE(c.allocate(3).ok());
    EXPECT_EQ(heldDeviceBuffers().load() - buffers, 2);
  }
  EXPECT_EQ(heldDeviceBytes().load(), before);
  EXPECT_EQ(heldDeviceBuffers().load(), buffers);
  // A failed allocation counts nothing. Not under a sanitizer, which reports the refused
  // cudaMalloc made on purpose as an error (tools/sanitize.sh); the plain GPU run covers it.
  if (testing_support::underSanitizer()) return;
  DeviceArray<char> huge;
  EXPECT_FALSE(huge.allocate(size_t(1) << 50).ok());
  (void)cudaGetLastError();
  EXPECT_EQ(heldDeviceBytes().load(), before);
  EXPECT_EQ(heldDeviceBuffers().load(), buffers);
}

TEST(RunnerGpu, CancelStopsTheMeasurement) {
  Result<DeviceLimits> lim = queryLimits(0);
  ASSERT_TRUE(lim.ok());
  LaunchConfig c;
  c.n = 1000;
  Result<LaunchShape> s = shapeFor(c, *lim);
  ASSERT_TRUE(s.ok());
  StreamGuard stream;
  ASSERT_TRUE(stream.create().ok());
  std::unique_ptr<Workload> w = makeDoublingWorkload(c, *s);
  std::atomic<bool> cancel{true};
  Result<Measurement> m = measure(*w, MeasureOptions{}, &cancel, stream.get());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("cancelled"), std::string::npos);
}

}  // namespace
}  // namespace cudalab
