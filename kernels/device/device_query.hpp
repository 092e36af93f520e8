// The "device" lesson: everything the CUDA runtime reports about each GPU, grouped and explained.
//
// This rebuilds the course's PyCUDA device query (name, compute capability, memory, SMs, cores per
// SM, then every attribute) and adds what the runtime cannot say by itself: the architecture
// family, FP32/FP64 units per SM (models/arch.hpp) and the theoretical peaks with their formulas.
//
// [SECTION] Raw numbers    what the CUDA runtime reports, as plain numbers (no CUDA types)
// [SECTION] Presentation   pure functions: raw numbers -> labelled, explained property groups
// [SECTION] Query          the only part that calls CUDA: fills the raw numbers for a device
// [SECTION] Reports        the text of `cudalab device` and its JSON
//
// Typical use (the app calls it once when the lesson opens; it takes milliseconds, plus context
// creation the first time a device is touched):
//
//   Result<std::vector<DeviceInfo>> r = queryDevices();
//   if (!r) return show(r.status().sentence());   // no driver or no device: CUDA's own reason
//   for (const DeviceInfo& d : *r) print(deviceText(d));
//
// Tests and machines without a GPU build the same groups from hand-filled numbers:
//
//   RawDeviceNumbers raw = ...;            // e.g. an H100's figures
//   DeviceInfo d = makeDeviceInfo(raw);    // groups, arch entry and peaks, no CUDA call
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.hpp"
#include "common/translatable.hpp"
#include "models/arch.hpp"

namespace cudalab::device {

// ---------------------------------------------------------------------------------------------
// [SECTION] Raw numbers
// ---------------------------------------------------------------------------------------------
// One field per fact the runtime reports (cudaGetDeviceProperties, cudaDeviceGetAttribute for
// what CUDA 13 removed from cudaDeviceProp, cudaMemGetInfo). Flags are bools, sizes are bytes,
// clocks are kHz as CUDA reports them. Defaults are zero so a test fills only what it needs.
struct RawDeviceNumbers {
  // Identity
  int index = 0;
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  int major = 0, minor = 0;
  int pciDomainId = 0, pciBusId = 0, pciDeviceId = 0;
  unsigned gpuPciDeviceId = 0;     // device id << 16 | vendor id (0x10de is NVIDIA)
  unsigned gpuPciSubsystemId = 0;  // subsystem id << 16 | subsystem vendor id
  bool integrated = false;
  bool tccDriver = false;
  bool multiGpuBoard = false;
  int multiGpuBoardGroupId = 0;
  int computeMode = 0;  // cudaComputeMode: 0 default, 1 exclusive thread, 2 prohibited, 3 process
  bool mpsEnabled = false;

  // Compute
  int multiProcessorCount = 0;
  double clockKHz = 0;  // cudaDevAttrClockRate: the maximum (boost) SM clock
  int warpSize = 0;
  int maxThreadsPerBlock = 0;
  int maxThreadsPerMultiProcessor = 0;
  int maxBlocksPerMultiProcessor = 0;
  int maxBlockDim[3] = {0, 0, 0};
  int maxGridDim[3] = {0, 0, 0};
  int regsPerBlock = 0;
  int regsPerMultiprocessor = 0;
  int singleToDoublePerfRatio = 0;  // cudaDevAttrSingleToDoublePrecisionPerfRatio
  bool concurrentKernels = false;
  bool cooperativeLaunch = false;
  bool clusterLaunch = false;
  bool computePreemption = false;
  bool streamPriorities = false;
  int memSyncDomainCount = 0;

  // Memory
  size_t totalGlobalMem = 0;
  size_t freeGlobalMem = 0;  // cudaMemGetInfo at query time
  int memoryBusWidthBits = 0;
  double memClockKHz = 0;  // cudaDevAttrMemoryClockRate (peak)
  int l2CacheBytes = 0;
  int persistingL2CacheMaxBytes = 0;
  int accessPolicyMaxWindowBytes = 0;
  size_t sharedMemPerBlock = 0;
  size_t sharedMemPerBlockOptin = 0;
  size_t sharedMemPerMultiprocessor = 0;
  size_t reservedSharedMemPerBlock = 0;
  size_t totalConstMem = 0;
  bool globalL1Cache = false;
  bool localL1Cache = false;
  bool eccEnabled = false;
  bool unifiedAddressing = false;
  bool managedMemory = false;
  bool concurrentManagedAccess = false;
  bool directManagedMemAccessFromHost = false;
  bool pageableMemoryAccess = false;
  bool pageableMemoryAccessUsesHostPageTables = false;
  bool memoryPoolsSupported = false;
  unsigned memoryPoolSupportedHandleTypes = 0;  // cudaMemAllocationHandleType bit mask
  int numaConfig = 0;  // cudaDeviceNumaConfig: 0 none, 1 the GPU memory is a NUMA node
  int numaId = -1;     // NUMA node of the GPU memory, -1 when none
  int hostNumaId = -1;

  // Transfers
  int asyncEngineCount = 0;
  bool canMapHostMemory = false;
  bool hostRegisterSupported = false;
  bool hostRegisterReadOnlySupported = false;
  bool canUseHostPointerForRegisteredMem = false;
  bool gpuOverlap = false;         // cudaDevAttrGpuOverlap (superseded by asyncEngineCount)
  bool kernelExecTimeout = false;  // a display watchdog limits kernel run time
  bool hostNativeAtomics = false;
  bool gpuDirectRdmaSupported = false;

  // Limits and other features
  size_t memPitch = 0;
  size_t textureAlignment = 0;
  size_t texturePitchAlignment = 0;
  size_t surfaceAlignment = 0;
  int maxTexture1D = 0;
  int maxTexture1DMipmap = 0;
  int maxTexture1DLinear = 0;  // cudaDevAttrMaxTexture1DLinearWidth
  int maxTexture2D[2] = {0, 0};
  int maxTexture2DMipmap[2] = {0, 0};
  int maxTexture2DLinear[3] = {0, 0, 0};  // width, height, pitch (bytes)
  int maxTexture2DGather[2] = {0, 0};
  int maxTexture3D[3] = {0, 0, 0};
  int maxTexture3DAlt[3] = {0, 0, 0};
  int maxTextureCubemap = 0;
  int maxTexture1DLayered[2] = {0, 0};     // width, layers
  int maxTexture2DLayered[3] = {0, 0, 0};  // width, height, layers
  int maxTextureCubemapLayered[2] = {0, 0};
  int maxSurface1D = 0;
  int maxSurface2D[2] = {0, 0};
  int maxSurface3D[3] = {0, 0, 0};
  int maxSurface1DLayered[2] = {0, 0};
  int maxSurface2DLayered[3] = {0, 0, 0};
  int maxSurfaceCubemap = 0;
  int maxSurfaceCubemapLayered[2] = {0, 0};
  bool sparseCudaArraySupported = false;
  bool deferredMappingCudaArraySupported = false;
  bool timelineSemaphoreInteropSupported = false;
  bool ipcEventSupported = false;
  bool unifiedFunctionPointers = false;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Presentation
// ---------------------------------------------------------------------------------------------

// One line of the device table and its tooltip.
struct DeviceProperty {
  std::string key;    // stable snake_case id for JSON, tests and saved settings
  std::string label;  // "Multiprocessors (SMs)"
  std::string value;  // formatted with unit: "132", "79.2 GiB", "1980 MHz", "yes", "unknown"
  double number;      // the raw number (bytes, kHz, count, 1/0 for flags); NaN when not numeric
  std::string help;   // 1-3 sentences for a learner: what it is, why it matters for kernels
  std::vector<double> dims = {};  // sizes with several dimensions (block, grid, textures)
};

struct PropertyGroup {
  std::string title;  // "Identity", "Compute", "Memory", "Transfers", "Limits and other features"
  std::vector<DeviceProperty> properties;
};

// The group titles, in display order.
inline constexpr const char* kGroupIdentity = N_("Identity");
inline constexpr const char* kGroupCompute = N_("Compute");
inline constexpr const char* kGroupMemory = N_("Memory");
inline constexpr const char* kGroupTransfers = N_("Transfers");
inline constexpr const char* kGroupLimits = N_("Limits and other features");

// Builds the labelled, explained groups from raw numbers. Pure: no CUDA call.
std::vector<PropertyGroup> describeProperties(const RawDeviceNumbers& raw);

// One device, ready to show: the headline figures, the architecture entry (nullopt when the table
// does not know the compute capability), the theoretical peaks and every property group.
struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;
  int sms = 0;
  double clockKHz = 0, memClockKHz = 0;
  int busWidthBits = 0;
  size_t totalGlobalMem = 0;
  size_t freeGlobalMem = 0;
  size_t l2Bytes = 0;
  int warpSize = 0;
  int maxThreadsPerBlock = 0;
  std::optional<ArchInfo> arch;
  Peak bandwidth, fp32, fp64;
  std::vector<PropertyGroup> groups;
  RawDeviceNumbers raw;  // everything else, for lessons that need a limit (shared memory, ...)
};

// Builds a DeviceInfo from raw numbers: arch lookup, peaks, groups. Pure: no CUDA call.
DeviceInfo makeDeviceInfo(const RawDeviceNumbers& raw);

// ---------------------------------------------------------------------------------------------
// [SECTION] Query
// ---------------------------------------------------------------------------------------------
// Both return CUDA's own reason (no driver, no device, invalid index) as a Status instead of
// crashing. They leave the calling thread's current device as they found it.

// The raw numbers of one device (cudaGetDeviceProperties, cudaDeviceGetAttribute, cudaMemGetInfo).
Result<RawDeviceNumbers> queryRawDevice(int index);

Result<DeviceInfo> queryDevice(int index);
Result<std::vector<DeviceInfo>> queryDevices();

// ---------------------------------------------------------------------------------------------
// [SECTION] Reports
// ---------------------------------------------------------------------------------------------

// Human-readable report for `cudalab device`: a headline, the theoretical peaks with formulas,
// then every group under its title, one "label: value" line per property.
std::string deviceText(const DeviceInfo& d);

// {"index", "name", "compute_capability", "architecture",
//  "groups": {"identity": {"name": ..., "multiprocessor_count": 132, ...}, "compute": {...}, ...},
//  "peaks": {"bandwidth_gbs": {"value", "unit", "formula", "known"}, "fp32_gflops": {...},
//            "fp64_gflops": {...}}}
// Property values are the raw number when there is one (bytes, kHz, counts, booleans as
// true/false), an array for several dimensions, otherwise the formatted text. Unknown peaks
// have value null.
nlohmann::json deviceJson(const DeviceInfo& d);

// The JSON key of a group title: "Limits and other features" -> "limits_and_other_features".
std::string groupKey(const std::string& title);

}  // namespace cudalab::device
