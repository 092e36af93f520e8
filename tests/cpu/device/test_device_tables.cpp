// The device lesson's tables, built from hand-filled numbers (an H100 SXM5 80 GB as
// cudaGetDeviceProperties reports it), so grouping, formatting and the reports are checked on
// any machine.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "device/device_query.hpp"

namespace cudalab {

using namespace device;
namespace {

RawDeviceNumbers h100() {
  RawDeviceNumbers r;
  r.index = 0;
  r.name = "NVIDIA H100 80GB HBM3";
  r.uuid = "GPU-12345678-9abc-def0-1234-56789abcdef0";
  r.major = 9;
  r.minor = 0;
  r.pciBusId = 0x1b;
  r.gpuPciDeviceId = 0x233010deu;
  r.multiProcessorCount = 132;
  r.clockKHz = 1980000;
  r.warpSize = 32;
  r.maxThreadsPerBlock = 1024;
  r.maxThreadsPerMultiProcessor = 2048;
  r.maxBlocksPerMultiProcessor = 32;
  r.maxBlockDim[0] = 1024;
  r.maxBlockDim[1] = 1024;
  r.maxBlockDim[2] = 64;
  r.maxGridDim[0] = 2147483647;
  r.maxGridDim[1] = 65535;
  r.maxGridDim[2] = 65535;
  r.regsPerBlock = 65536;
  r.regsPerMultiprocessor = 65536;
  r.singleToDoublePerfRatio = 2;
  r.concurrentKernels = true;
  r.cooperativeLaunch = true;
  r.clusterLaunch = true;
  r.totalGlobalMem = 85045870592ull;  // 79.2 GiB
  r.freeGlobalMem = 84490125312ull;
  r.memoryBusWidthBits = 5120;
  r.memClockKHz = 2619000;
  r.l2CacheBytes = 52428800;  // 50 MiB
  r.persistingL2CacheMaxBytes = 82837504;
  r.sharedMemPerBlock = 49152;
  r.sharedMemPerBlockOptin = 232448;
  r.sharedMemPerMultiprocessor = 233472;
  r.reservedSharedMemPerBlock = 1024;
  r.totalConstMem = 65536;
  r.eccEnabled = true;
  r.unifiedAddressing = true;
  r.managedMemory = true;
  r.asyncEngineCount = 3;
  r.canMapHostMemory = true;
  r.memPitch = 2147483647;
  r.maxTexture2D[0] = 131072;
  r.maxTexture2D[1] = 65536;
  return r;
}

const DeviceProperty* find(const DeviceInfo& d, const std::string& key) {
  for (const PropertyGroup& g : d.groups)
    for (const DeviceProperty& p : g.properties)
      if (p.key == key) return &p;
  return nullptr;
}

TEST(DeviceTables, GroupsArePresentInOrderAndNotEmpty) {
  DeviceInfo d = makeDeviceInfo(h100());
  const char* titles[] = {kGroupIdentity, kGroupCompute, kGroupMemory, kGroupTransfers,
                          kGroupLimits};
  ASSERT_EQ(d.groups.size(), std::size(titles));
  for (size_t i = 0; i < d.groups.size(); ++i) {
    EXPECT_EQ(d.groups[i].title, titles[i]);
    EXPECT_FALSE(d.groups[i].properties.empty()) << d.groups[i].title;
  }
}

TEST(DeviceTables, EveryPropertyHasLabelHelpValueAndUniqueSnakeCaseKey) {
  DeviceInfo d = makeDeviceInfo(h100());
  std::set<std::string> keys;
  size_t total = 0;
  for (const PropertyGroup& g : d.groups) {
    for (const DeviceProperty& p : g.properties) {
      ++total;
      EXPECT_FALSE(p.key.empty());
      for (char c : p.key)
        EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << p.key;
      EXPECT_TRUE(keys.insert(p.key).second) << "duplicate key " << p.key;
      EXPECT_FALSE(p.label.empty()) << p.key;
      EXPECT_FALSE(p.value.empty()) << p.key;
      EXPECT_GE(p.help.size(), 20u) << p.key << ": help should explain, not just name";
      EXPECT_EQ(p.help.back(), '.') << p.key << ": help is written as sentences";
    }
  }
  // "Everything the runtime reports": the course's PyCUDA query lists ~80 attributes.
  EXPECT_GE(total, 80u);
}

TEST(DeviceTables, HeadlineFiguresAndFormatting) {
  DeviceInfo d = makeDeviceInfo(h100());
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.sms, 132);
  EXPECT_EQ(d.l2Bytes, 52428800u);
  ASSERT_TRUE(d.arch.has_value());
  EXPECT_STREQ(d.arch->family, "Hopper");

  EXPECT_EQ(find(d, "multiprocessor_count")->value, "132");
  EXPECT_EQ(find(d, "multiprocessor_count")->number, 132.0);
  EXPECT_EQ(find(d, "compute_capability")->value, "9.0");
  EXPECT_EQ(find(d, "architecture")->value, "Hopper");
  EXPECT_EQ(find(d, "fp32_cores_per_sm")->value, "128");
  EXPECT_EQ(find(d, "cuda_cores")->value, "16896");
  EXPECT_EQ(find(d, "fp64_units_per_sm")->value, "64");
  EXPECT_EQ(find(d, "fp64_to_fp32_ratio")->value, "1:2");
  EXPECT_EQ(find(d, "clock_rate")->value, "1980 MHz");
  EXPECT_EQ(find(d, "clock_rate")->number, 1980000.0);
  EXPECT_EQ(find(d, "memory_clock")->value, "2619 MHz");
  EXPECT_EQ(find(d, "memory_bus_width")->value, "5120 bit");
  EXPECT_EQ(find(d, "warp_size")->value, "32 threads");
  EXPECT_EQ(find(d, "max_warps_per_multiprocessor")->value, "64");

  // Memory in binary units, the raw byte count kept in `number`.
  const DeviceProperty* total = find(d, "total_global_memory");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->value, "79.2 GiB");
  EXPECT_EQ(total->number, 85045870592.0);
  EXPECT_EQ(find(d, "l2_cache_size")->value, "50 MiB");
  EXPECT_EQ(find(d, "shared_mem_per_block")->value, "48 KiB");
  EXPECT_EQ(find(d, "shared_mem_per_block_optin")->value, "227 KiB");
  EXPECT_EQ(find(d, "total_constant_memory")->value, "64 KiB");
  EXPECT_EQ(find(d, "reserved_shared_mem_per_block")->value, "1 KiB");

  // Flags, dimensions, identity strings.
  EXPECT_EQ(find(d, "ecc_enabled")->value, "yes");
  EXPECT_EQ(find(d, "integrated")->value, "no");
  EXPECT_EQ(find(d, "integrated")->number, 0.0);
  const DeviceProperty* block = find(d, "max_block_dim");
  EXPECT_EQ(block->value, "1024 x 1024 x 64");
  EXPECT_TRUE(std::isnan(block->number));
  EXPECT_EQ(block->dims, (std::vector<double>{1024, 1024, 64}));
  EXPECT_EQ(find(d, "max_grid_dim")->value, "2147483647 x 65535 x 65535");
  EXPECT_EQ(find(d, "pci_location")->value, "0000:1b:00.0");
  EXPECT_EQ(find(d, "pci_vendor_device")->value, "10de:2330");
  EXPECT_EQ(find(d, "compute_mode")->value, "default (shared)");
}

TEST(DeviceTables, PeaksFollowFromTheNumbers) {
  DeviceInfo d = makeDeviceInfo(h100());
  ASSERT_TRUE(d.bandwidth.known);
  EXPECT_NEAR(d.bandwidth.value, 3352.32, 0.01);
  ASSERT_TRUE(d.fp32.known);
  EXPECT_NEAR(d.fp32.value, 66908.16, 0.01);
  ASSERT_TRUE(d.fp64.known);
  EXPECT_NEAR(d.fp64.value, 33454.08, 0.01);
}

TEST(DeviceTables, UnknownComputeCapabilityShowsUnknownNotAGuess) {
  RawDeviceNumbers r = h100();
  r.major = 42;
  r.minor = 7;
  DeviceInfo d = makeDeviceInfo(r);
  EXPECT_FALSE(d.arch.has_value());
  EXPECT_EQ(find(d, "fp32_cores_per_sm")->value, "unknown");
  EXPECT_TRUE(std::isnan(find(d, "fp32_cores_per_sm")->number));
  EXPECT_EQ(find(d, "cuda_cores")->value, "unknown");
  EXPECT_EQ(find(d, "fp64_units_per_sm")->value, "unknown");
  EXPECT_NE(find(d, "architecture")->value.find("unknown"), std::string::npos);
  // The peaks that need the unit counts are unknown and say why; bandwidth still is known.
  EXPECT_FALSE(d.fp32.known);
  EXPECT_FALSE(d.fp64.known);
  EXPECT_NE(d.fp32.formula.find("per SM"), std::string::npos) << d.fp32.formula;
  EXPECT_TRUE(d.bandwidth.known);
}

TEST(DeviceTables, JsonHasGroupedKeysAndPeaks) {
  DeviceInfo d = makeDeviceInfo(h100());
  nlohmann::json j = deviceJson(d);
  EXPECT_EQ(j["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(j["compute_capability"], "9.0");
  EXPECT_EQ(j["architecture"], "Hopper");

  ASSERT_TRUE(j.contains("groups"));
  for (const char* g : {"identity", "compute", "memory", "transfers", "limits_and_other_features"})
    EXPECT_TRUE(j["groups"].contains(g)) << g;
  // Every property key appears under its group.
  for (const PropertyGroup& g : d.groups)
    for (const DeviceProperty& p : g.properties)
      EXPECT_TRUE(j["groups"][groupKey(g.title)].contains(p.key)) << p.key;

  EXPECT_EQ(j["groups"]["compute"]["multiprocessor_count"], 132);
  EXPECT_TRUE(j["groups"]["compute"]["multiprocessor_count"].is_number_integer());
  EXPECT_EQ(j["groups"]["memory"]["total_global_memory"], 85045870592ull);
  EXPECT_EQ(j["groups"]["memory"]["ecc_enabled"], true);
  EXPECT_EQ(j["groups"]["compute"]["max_block_dim"], nlohmann::json({1024, 1024, 64}));
  EXPECT_EQ(j["groups"]["identity"]["name"], "NVIDIA H100 80GB HBM3");

  ASSERT_TRUE(j.contains("peaks"));
  for (const char* k : {"bandwidth_gbs", "fp32_gflops", "fp64_gflops"}) {
    ASSERT_TRUE(j["peaks"].contains(k)) << k;
    EXPECT_TRUE(j["peaks"][k]["known"].get<bool>()) << k;
    EXPECT_FALSE(j["peaks"][k]["formula"].get<std::string>().empty()) << k;
  }
  EXPECT_NEAR(j["peaks"]["bandwidth_gbs"]["value"].get<double>(), 3352.32, 0.01);
  EXPECT_NEAR(j["peaks"]["fp32_gflops"]["value"].get<double>(), 66908.16, 0.01);

  // Unknown peaks are null, not 0.
  RawDeviceNumbers r = h100();
  r.major = 42;
  nlohmann::json u = deviceJson(makeDeviceInfo(r));
  EXPECT_TRUE(u["peaks"]["fp32_gflops"]["value"].is_null());
  EXPECT_FALSE(u["peaks"]["fp32_gflops"]["known"].get<bool>());
  EXPECT_TRUE(u["architecture"].is_null());
  EXPECT_EQ(u["groups"]["compute"]["fp32_cores_per_sm"], "unknown");
}

TEST(DeviceTables, TextReportHasHeadingsAndPeaks) {
  DeviceInfo d = makeDeviceInfo(h100());
  std::string t = deviceText(d);
  EXPECT_NE(t.find("Device 0: NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(t.find("16896 CUDA cores"), std::string::npos);
  for (const PropertyGroup& g : d.groups)
    EXPECT_NE(t.find("\n" + g.title + "\n"), std::string::npos) << g.title;
  EXPECT_NE(t.find("Theoretical peaks"), std::string::npos);
  EXPECT_NE(t.find("2 x 2619 MHz x 5120 bit / 8 = 3352.3 GB/s"), std::string::npos);
  EXPECT_NE(t.find("Multiprocessors (SMs):"), std::string::npos);
  EXPECT_NE(t.find("79.2 GiB"), std::string::npos);
}

TEST(DeviceTables, GroupKey) {
  EXPECT_EQ(groupKey("Limits and other features"), "limits_and_other_features");
  EXPECT_EQ(groupKey("Identity"), "identity");
  EXPECT_EQ(groupKey(" A-b  C "), "a_b_c");
}

}  // namespace
}  // namespace cudalab
