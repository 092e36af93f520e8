// The device lesson on a real GPU: the query agrees with CUDA asked directly, and the bandwidth
// measurement returns sane numbers for every variant. main() (gpu_main.cpp) skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cmath>
#include <set>
#include <string>

#include "device/device_bandwidth.hpp"
#include "device/device_query.hpp"

namespace cudalab {

using namespace device;
namespace {

int attr(cudaDeviceAttr a, int device) {
  int v = -1;
  EXPECT_EQ(cudaDeviceGetAttribute(&v, a, device), cudaSuccess);
  return v;
}

TEST(DeviceQueryGpu, MatchesCudaAskedDirectly) {
  Result<DeviceInfo> r = queryDevice(0);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  const DeviceInfo& d = *r;

  cudaDeviceProp p{};
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.name, std::string(p.name));
  EXPECT_EQ(d.major, p.major);
  EXPECT_EQ(d.minor, p.minor);
  EXPECT_EQ(d.sms, p.multiProcessorCount);
  EXPECT_EQ(d.totalGlobalMem, p.totalGlobalMem);
  EXPECT_EQ(d.warpSize, p.warpSize);
  EXPECT_EQ(d.maxThreadsPerBlock, p.maxThreadsPerBlock);
  EXPECT_EQ(d.l2Bytes, size_t(p.l2CacheSize));
  EXPECT_EQ(d.busWidthBits, p.memoryBusWidth);
  EXPECT_EQ(d.raw.sharedMemPerBlockOptin, p.sharedMemPerBlockOptin);
  EXPECT_EQ(d.raw.maxGridDim[0], p.maxGridSize[0]);
  EXPECT_EQ(d.clockKHz, double(attr(cudaDevAttrClockRate, 0)));
  EXPECT_EQ(d.memClockKHz, double(attr(cudaDevAttrMemoryClockRate, 0)));
  EXPECT_EQ(d.busWidthBits, attr(cudaDevAttrGlobalMemoryBusWidth, 0));
  EXPECT_EQ(d.raw.computeMode, attr(cudaDevAttrComputeMode, 0));
  EXPECT_GT(d.freeGlobalMem, 0u);
  EXPECT_LE(d.freeGlobalMem, d.totalGlobalMem);

  // The machines this runs on (H100, H200) are in the table, so the peaks are known.
  ASSERT_TRUE(d.arch.has_value()) << "compute capability " << d.major << "." << d.minor;
  EXPECT_TRUE(d.bandwidth.known) << d.bandwidth.formula;
  EXPECT_TRUE(d.fp32.known) << d.fp32.formula;
  EXPECT_GT(d.bandwidth.value, 0);

  // The reports build from real numbers too.
  std::string text = deviceText(d);
  EXPECT_NE(text.find(d.name), std::string::npos);
  nlohmann::json j = deviceJson(d);
  EXPECT_EQ(j["groups"]["compute"]["multiprocessor_count"], p.multiProcessorCount);
  std::printf("%s\n", text.c_str());
}

TEST(DeviceQueryGpu, AllDevicesAndBadIndex) {
  Result<std::vector<DeviceInfo>> all = queryDevices();
  ASSERT_TRUE(all.ok()) << all.status().sentence();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(all->size(), size_t(count));

  Result<DeviceInfo> bad = queryDevice(count + 5);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no CUDA device"), std::string::npos)
      << bad.status().sentence();
  EXPECT_FALSE(queryDevice(-1).ok());
}

TEST(DeviceBandwidthGpu, EveryVariantGivesSaneNumbers) {
  BandwidthParams p;
  p.deviceCopyMiB = 64;
  p.hostCopyMiB = 64;
  p.repetitions = 3;
  std::atomic<bool> cancel{false};
  float lastFraction = 0;
  int calls = 0;
  Result<BandwidthReport> r =
      measureBandwidth(0, p, &cancel, [&](float fraction, const char* what) {
        EXPECT_GE(fraction, lastFraction);
        EXPECT_NE(what, nullptr);
        lastFraction = fraction;
        ++calls;
      });
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  EXPECT_EQ(r->device, 0);
  ASSERT_EQ(r->results.size(), copyVariants().size());
  EXPECT_EQ(calls, int(copyVariants().size()) * (p.repetitions + 1));
  EXPECT_FLOAT_EQ(lastFraction, 1.0f);

  const CopyResult* d2d = nullptr;
  const CopyResult* h2dPinned = nullptr;
  for (size_t i = 0; i < r->results.size(); ++i) {
    const CopyResult& c = r->results[i];
    const CopyVariant& v = copyVariants()[i];
    EXPECT_EQ(c.kind, v.kind) << v.id;
    EXPECT_EQ(c.bytes, size_t(64) << 20) << v.id;
    EXPECT_TRUE(std::isfinite(c.gbpsMedian)) << v.id;
    EXPECT_GT(c.gbpsMedian, 0) << v.id;
    EXPECT_GT(c.msMin, 0) << v.id;
    EXPECT_LE(c.msMin, c.msMedian) << v.id;
    EXPECT_LE(c.msMedian, c.msMax) << v.id;
    std::printf("%-28s %10.1f GB/s  (median %.3f ms, min %.3f, max %.3f)\n", v.label, c.gbpsMedian,
                c.msMedian, c.msMin, c.msMax);
    if (c.kind == CopyKind::DeviceToDevice) d2d = &c;
    if (c.kind == CopyKind::HostToDevicePinned) h2dPinned = &c;
  }
  // Which copy is faster is the benchmark's to show (bench device), not a test's: under a
  // sanitizer, or on a busy machine, any order can come out.
  ASSERT_NE(d2d, nullptr);
  ASSERT_NE(h2dPinned, nullptr);
}

TEST(DeviceBandwidthGpu, ValidateRefusesWhatCannotWork) {
  size_t freeBytes = 0, totalBytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&freeBytes, &totalBytes), cudaSuccess);
  BandwidthParams absurd;
  absurd.deviceCopyMiB = 1e9;
  Status s = validate(absurd, freeBytes);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Device copy size"), std::string::npos) << s.sentence();

  // In range, but more than is free: the sentence says how much is needed and how much is free.
  BandwidthParams big;
  big.deviceCopyMiB = 8192;
  Status tooBig = validate(big, size_t(5120) << 20);
  EXPECT_FALSE(tooBig.ok());
  EXPECT_EQ(tooBig.message(),
            "A 8192 MiB device copy needs two 8192 MiB buffers (16384 MiB in all), but only 5120 "
            "MiB of device memory is free. Choose a smaller device copy size.");

  // measureBandwidth itself refuses it before allocating anything.
  Result<BandwidthReport> r = measureBandwidth(0, absurd, nullptr, {});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().cudaCode(), 0) << r.status().sentence();

  BandwidthParams reps;
  reps.repetitions = 0;
  EXPECT_FALSE(validate(reps, freeBytes).ok());
  EXPECT_TRUE(validate(BandwidthParams{}, size_t(64) << 30).ok());
}

TEST(DeviceBandwidthGpu, CancelledBeforeStart) {
  std::atomic<bool> cancel{true};
  BandwidthParams p;
  p.deviceCopyMiB = 64;
  p.hostCopyMiB = 64;
  p.repetitions = 3;
  int calls = 0;
  Result<BandwidthReport> r = measureBandwidth(0, p, &cancel, [&](float, const char*) { ++calls; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Measurement cancelled.");
  EXPECT_EQ(calls, 0);
}

TEST(DeviceBandwidthGpu, CancelledDuringTheRun) {
  std::atomic<bool> cancel{false};
  BandwidthParams p;
  p.deviceCopyMiB = 64;
  p.hostCopyMiB = 64;
  p.repetitions = 5;
  Result<BandwidthReport> r = measureBandwidth(0, p, &cancel, [&](float fraction, const char*) {
    if (fraction > 0.3f) cancel = true;  // as the UI's cancel button would, mid-measurement
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Measurement cancelled.");
  // Everything was freed: the device still works and a new measurement succeeds.
  cancel = false;
  p.repetitions = 1;
  EXPECT_TRUE(measureBandwidth(0, p, &cancel, {}).ok());
}

TEST(DeviceBandwidthGpu, VariantsTable) {
  std::set<std::string> ids;
  for (const CopyVariant& v : copyVariants()) {
    EXPECT_TRUE(ids.insert(v.id).second) << v.id;
    EXPECT_EQ(&copyVariant(v.kind), &v) << v.id;
    EXPECT_EQ(v.bytesCountedPerByte, v.kind == CopyKind::DeviceToDevice ? 2 : 1) << v.id;
    EXPECT_GT(std::string(v.help).size(), 20u) << v.id;
  }
  EXPECT_EQ(copyVariants().size(), 5u);
}

TEST(DeviceBandwidthGpu, TimeStats) {
  TimeStats odd = timeStats({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.median, 2.0);
  EXPECT_EQ(odd.min, 1.0);
  EXPECT_EQ(odd.max, 3.0);
  TimeStats even = timeStats({4.0, 1.0, 2.0, 3.0});
  EXPECT_EQ(even.median, 2.5);
  EXPECT_TRUE(std::isnan(timeStats({}).median));
}

}  // namespace
}  // namespace cudalab
