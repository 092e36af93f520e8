// The device lesson's data: raw numbers from CUDA, then labelled and explained groups.
//
// (the property groups: device_properties.cpp)
// [SECTION] Reports           (pure: deviceText, deviceJson)
// [SECTION] CUDA query        (the only CUDA calls: queryRawDevice, queryDevice, queryDevices)
#include "device/device_query.hpp"

#include "common/format.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/translatable.hpp"
#include "device/device_internal.hpp"

namespace cudalab::device {

// ---------------------------------------------------------------------------------------------
// [SECTION] Reports
// ---------------------------------------------------------------------------------------------

std::string groupKey(const std::string& title) {
  std::string key;
  for (char c : title) {
    if (c >= 'A' && c <= 'Z') {
      key += char(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      key += c;
    } else if (!key.empty() && key.back() != '_') {
      key += '_';
    }
  }
  while (!key.empty() && key.back() == '_')
    key.pop_back();
  return key;
}

std::string deviceText(const DeviceInfo& d) {
  std::string out = "Device " + std::to_string(d.index) + ": " + d.name + "\n";
  out += "  Compute capability " + computeCapabilityString(d.major, d.minor) + " (" +
         (d.arch ? d.arch->family : "unknown architecture") + "), " + std::to_string(d.sms) +
         " SMs";
  if (d.arch && d.arch->fp32CoresPerSM > 0)
    out += " x " + std::to_string(d.arch->fp32CoresPerSM) +
           " FP32 cores = " + std::to_string(d.sms * d.arch->fp32CoresPerSM) + " CUDA cores";
  out += ", " + formatBytes(double(d.totalGlobalMem)) + "\n";

  out += "\nTheoretical peaks (upper bounds; measured values are lower)\n";
  auto peakLine = [&](const char* label, const Peak& p) {
    // The formula ends with the value, so it is the whole line; an unknown peak says why.
    out += std::string("  ") + label + ": " + p.formula + "\n";
  };
  peakLine("Memory bandwidth", d.bandwidth);
  peakLine("FP32", d.fp32);
  peakLine("FP64", d.fp64);

  for (const PropertyGroup& g : d.groups) {
    out += "\n" + g.title + "\n";
    size_t width = 0;
    for (const DeviceProperty& p : g.properties)
      width = std::max(width, p.label.size());
    for (const DeviceProperty& p : g.properties) {
      out += "  " + p.label + ":" + std::string(width - p.label.size() + 1, ' ') + p.value + "\n";
    }
  }
  return out;
}

namespace {

// Integral values become JSON integers ("132", not "132.0"); others stay doubles.
nlohmann::json jsonNumber(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9007199254740992.0)  // 2^53: exact in a double
    return static_cast<std::int64_t>(v);
  return v;
}

nlohmann::json propertyJson(const DeviceProperty& p) {
  if (!p.dims.empty()) {
    nlohmann::json a = nlohmann::json::array();
    for (double v : p.dims)
      a.push_back(jsonNumber(v));
    return a;
  }
  if (p.value == "yes" || p.value == "no") return p.value == "yes";
  if (std::isnan(p.number)) return p.value;
  return jsonNumber(p.number);
}

nlohmann::json peakJson(const Peak& p) {
  return {{"value", p.known ? nlohmann::json(p.value) : nlohmann::json(nullptr)},
          {"unit", p.unit},
          {"formula", p.formula},
          {"known", p.known}};
}

}  // namespace

nlohmann::json deviceJson(const DeviceInfo& d) {
  nlohmann::json j;
  j["index"] = d.index;
  j["name"] = d.name;
  j["compute_capability"] = computeCapabilityString(d.major, d.minor);
  j["architecture"] = d.arch ? nlohmann::json(d.arch->family) : nlohmann::json(nullptr);
  nlohmann::json groups = nlohmann::json::object();
  for (const PropertyGroup& g : d.groups) {
    nlohmann::json props = nlohmann::json::object();
    for (const DeviceProperty& p : g.properties)
      props[p.key] = propertyJson(p);
    groups[groupKey(g.title)] = std::move(props);
  }
  j["groups"] = std::move(groups);
  j["peaks"] = {{"bandwidth_gbs", peakJson(d.bandwidth)},
                {"fp32_gflops", peakJson(d.fp32)},
                {"fp64_gflops", peakJson(d.fp64)}};
  return j;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] CUDA query
// ---------------------------------------------------------------------------------------------

namespace {

std::string uuidText(const cudaUUID_t& u) {
  // nvidia-smi's layout: 8-4-4-4-12 hex digits.
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += hex(static_cast<unsigned char>(u.bytes[i]), 2);
  }
  return s;
}

void assignAttr(bool& field, int v) {
  field = v != 0;
}
void assignAttr(int& field, int v) {
  field = v;
}
void assignAttr(double& field, int v) {
  field = v;
}

}  // namespace

// Reads one attribute into a field; the failing attribute's name lands in the Status.
#define CUDALAB_READ_ATTR(field, attr)                                  \
  do {                                                                  \
    int cudalab_v_ = 0;                                                 \
    CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&cudalab_v_, attr, index)); \
    assignAttr(field, cudalab_v_);                                      \
  } while (0)

Result<RawDeviceNumbers> queryRawDevice(int index) {
  int count = 0;
  CUDALAB_CUDA_TRY(cudaGetDeviceCount(&count));
  if (index < 0 || index >= count) {
    // Two whole sentences (one device, several), so that each language words its own plural.
    return Status::errorf(
        count == 1
            ? N_("There is no CUDA device %s; this machine has %s device, numbered from 0.")
            : N_("There is no CUDA device %s; this machine has %s devices, numbered from 0."),
        {std::to_string(index), std::to_string(count)});
  }

  cudaDeviceProp p{};
  CUDALAB_CUDA_TRY(cudaGetDeviceProperties(&p, index));

  RawDeviceNumbers r;
  r.index = index;
  r.name = p.name;
  r.uuid = uuidText(p.uuid);
  r.major = p.major;
  r.minor = p.minor;
  r.pciDomainId = p.pciDomainID;
  r.pciBusId = p.pciBusID;
  r.pciDeviceId = p.pciDeviceID;
  r.gpuPciDeviceId = p.gpuPciDeviceID;
  r.gpuPciSubsystemId = p.gpuPciSubsystemID;
  r.integrated = p.integrated != 0;
  r.tccDriver = p.tccDriver != 0;
  r.multiGpuBoard = p.isMultiGpuBoard != 0;
  r.multiGpuBoardGroupId = p.multiGpuBoardGroupID;
  r.mpsEnabled = p.mpsEnabled != 0;

  r.multiProcessorCount = p.multiProcessorCount;
  r.warpSize = p.warpSize;
  r.maxThreadsPerBlock = p.maxThreadsPerBlock;
  r.maxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  r.maxBlocksPerMultiProcessor = p.maxBlocksPerMultiProcessor;
  for (int i = 0; i < 3; ++i) {
    r.maxBlockDim[i] = p.maxThreadsDim[i];
    r.maxGridDim[i] = p.maxGridSize[i];
  }
  r.regsPerBlock = p.regsPerBlock;
  r.regsPerMultiprocessor = p.regsPerMultiprocessor;
  r.concurrentKernels = p.concurrentKernels != 0;
  r.cooperativeLaunch = p.cooperativeLaunch != 0;
  r.clusterLaunch = p.clusterLaunch != 0;
  r.computePreemption = p.computePreemptionSupported != 0;
  r.streamPriorities = p.streamPrioritiesSupported != 0;

  r.totalGlobalMem = p.totalGlobalMem;
  r.memoryBusWidthBits = p.memoryBusWidth;
  r.l2CacheBytes = p.l2CacheSize;
  r.persistingL2CacheMaxBytes = p.persistingL2CacheMaxSize;
  r.accessPolicyMaxWindowBytes = p.accessPolicyMaxWindowSize;
  r.sharedMemPerBlock = p.sharedMemPerBlock;
  r.sharedMemPerBlockOptin = p.sharedMemPerBlockOptin;
  r.sharedMemPerMultiprocessor = p.sharedMemPerMultiprocessor;
  r.reservedSharedMemPerBlock = p.reservedSharedMemPerBlock;
  r.totalConstMem = p.totalConstMem;
  r.globalL1Cache = p.globalL1CacheSupported != 0;
  r.localL1Cache = p.localL1CacheSupported != 0;
  r.eccEnabled = p.ECCEnabled != 0;
  r.unifiedAddressing = p.unifiedAddressing != 0;
  r.managedMemory = p.managedMemory != 0;
  r.concurrentManagedAccess = p.concurrentManagedAccess != 0;
  r.directManagedMemAccessFromHost = p.directManagedMemAccessFromHost != 0;
  r.pageableMemoryAccess = p.pageableMemoryAccess != 0;
  r.pageableMemoryAccessUsesHostPageTables = p.pageableMemoryAccessUsesHostPageTables != 0;
  r.memoryPoolsSupported = p.memoryPoolsSupported != 0;
  r.memoryPoolSupportedHandleTypes = p.memoryPoolSupportedHandleTypes;
  r.numaConfig = p.deviceNumaConfig;
  r.numaId = p.deviceNumaId;
  r.hostNumaId = p.hostNumaId;

  r.asyncEngineCount = p.asyncEngineCount;
  r.canMapHostMemory = p.canMapHostMemory != 0;
  r.hostRegisterSupported = p.hostRegisterSupported != 0;
  r.hostRegisterReadOnlySupported = p.hostRegisterReadOnlySupported != 0;
  r.canUseHostPointerForRegisteredMem = p.canUseHostPointerForRegisteredMem != 0;
  r.hostNativeAtomics = p.hostNativeAtomicSupported != 0;
  r.gpuDirectRdmaSupported = p.gpuDirectRDMASupported != 0;

  r.memPitch = p.memPitch;
  r.textureAlignment = p.textureAlignment;
  r.texturePitchAlignment = p.texturePitchAlignment;
  r.surfaceAlignment = p.surfaceAlignment;
  r.maxTexture1D = p.maxTexture1D;
  r.maxTexture1DMipmap = p.maxTexture1DMipmap;
  std::copy(std::begin(p.maxTexture2D), std::end(p.maxTexture2D), r.maxTexture2D);
  std::copy(std::begin(p.maxTexture2DMipmap), std::end(p.maxTexture2DMipmap), r.maxTexture2DMipmap);
  std::copy(std::begin(p.maxTexture2DLinear), std::end(p.maxTexture2DLinear), r.maxTexture2DLinear);
  std::copy(std::begin(p.maxTexture2DGather), std::end(p.maxTexture2DGather), r.maxTexture2DGather);
  std::copy(std::begin(p.maxTexture3D), std::end(p.maxTexture3D), r.maxTexture3D);
  std::copy(std::begin(p.maxTexture3DAlt), std::end(p.maxTexture3DAlt), r.maxTexture3DAlt);
  r.maxTextureCubemap = p.maxTextureCubemap;
  std::copy(std::begin(p.maxTexture1DLayered), std::end(p.maxTexture1DLayered),
            r.maxTexture1DLayered);
  std::copy(std::begin(p.maxTexture2DLayered), std::end(p.maxTexture2DLayered),
            r.maxTexture2DLayered);
  std::copy(std::begin(p.maxTextureCubemapLayered), std::end(p.maxTextureCubemapLayered),
            r.maxTextureCubemapLayered);
  r.maxSurface1D = p.maxSurface1D;
  std::copy(std::begin(p.maxSurface2D), std::end(p.maxSurface2D), r.maxSurface2D);
  std::copy(std::begin(p.maxSurface3D), std::end(p.maxSurface3D), r.maxSurface3D);
  std::copy(std::begin(p.maxSurface1DLayered), std::end(p.maxSurface1DLayered),
            r.maxSurface1DLayered);
  std::copy(std::begin(p.maxSurface2DLayered), std::end(p.maxSurface2DLayered),
            r.maxSurface2DLayered);
  r.maxSurfaceCubemap = p.maxSurfaceCubemap;
  std::copy(std::begin(p.maxSurfaceCubemapLayered), std::end(p.maxSurfaceCubemapLayered),
            r.maxSurfaceCubemapLayered);
  r.sparseCudaArraySupported = p.sparseCudaArraySupported != 0;
  r.deferredMappingCudaArraySupported = p.deferredMappingCudaArraySupported != 0;
  r.timelineSemaphoreInteropSupported = p.timelineSemaphoreInteropSupported != 0;
  r.ipcEventSupported = p.ipcEventSupported != 0;
  r.unifiedFunctionPointers = p.unifiedFunctionPointers != 0;

  // CUDA 13 removed these from cudaDeviceProp; they remain device attributes.
  CUDALAB_READ_ATTR(r.clockKHz, cudaDevAttrClockRate);
  CUDALAB_READ_ATTR(r.memClockKHz, cudaDevAttrMemoryClockRate);
  CUDALAB_READ_ATTR(r.computeMode, cudaDevAttrComputeMode);
  CUDALAB_READ_ATTR(r.kernelExecTimeout, cudaDevAttrKernelExecTimeout);
  CUDALAB_READ_ATTR(r.singleToDoublePerfRatio, cudaDevAttrSingleToDoublePrecisionPerfRatio);
  CUDALAB_READ_ATTR(r.gpuOverlap, cudaDevAttrGpuOverlap);
  CUDALAB_READ_ATTR(r.maxTexture1DLinear, cudaDevAttrMaxTexture1DLinearWidth);
  CUDALAB_READ_ATTR(r.memSyncDomainCount, cudaDevAttrMemSyncDomainCount);

  // Free memory needs a context on the device (cudaMemGetInfo reports on the current device).
  // A device in "prohibited" compute mode refuses contexts, so it is reported as 0 free rather
  // than failing the whole query.
  if (r.computeMode != cudaComputeModeProhibited) {
    // Restores the calling thread's current device on every path out of the query, so asking
    // about device 1 does not silently move the app's later allocations there. Restoring can only
    // fail if the device vanished; a destructor cannot report it, and the next CUDA call will.
    CurrentDevice restore;
    CUDALAB_TRY(restore.set(index));
    size_t freeBytes = 0, totalBytes = 0;
    CUDALAB_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
    r.freeGlobalMem = freeBytes;
  }
  return r;
}

#undef CUDALAB_READ_ATTR

Result<DeviceInfo> queryDevice(int index) {
  Result<RawDeviceNumbers> raw = queryRawDevice(index);
  if (!raw) return raw.status();
  return makeDeviceInfo(*raw);
}

Result<std::vector<DeviceInfo>> queryDevices() {
  int count = 0;
  // No driver, a driver too old for this runtime, or no GPU: CUDA's own error says which.
  CUDALAB_CUDA_TRY(cudaGetDeviceCount(&count));
  std::vector<DeviceInfo> devices;
  devices.reserve(size_t(count));
  for (int i = 0; i < count; ++i) {
    Result<DeviceInfo> d = queryDevice(i);
    if (!d) return d.status().context("querying device " + std::to_string(i));
    devices.push_back(std::move(*d));
  }
  return devices;
}

}  // namespace cudalab::device
