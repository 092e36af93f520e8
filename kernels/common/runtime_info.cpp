#include "common/runtime_info.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "common/cuda_check.hpp"

namespace cudalab {

std::string cudaVersionString(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string RuntimeInfo::summary() const {
  if (!hasDevice() && !driverInstalled) {
    return "No CUDA device can be used: no NVIDIA driver is installed (libcuda.so.1 was not "
           "found). Lessons show CPU references and analytic models instead, labelled as such.";
  }
  if (hasDevice()) {
    return "CUDA runtime " + cudaVersionString(runtimeVersion) + ", driver " +
           cudaVersionString(driverVersion) + ", " + std::to_string(deviceCount) +
           (deviceCount == 1 ? " device" : " devices");
  }
  return "No CUDA device can be used (" + status.cudaName() + ": " + status.message() +
         "). Lessons show CPU references and analytic models instead, labelled as such.";
}

RuntimeInfo queryRuntime() {
  RuntimeInfo info;
  // CUDA calls a missing driver "insufficient", which sends people to upgrade a driver they do not
  // have; look for the library itself.
  if (void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(h);
  } else {
    info.driverInstalled = false;
  }
  cudaRuntimeGetVersion(&info.runtimeVersion);
  if (cudaDriverGetVersion(&info.driverVersion) != cudaSuccess) info.driverVersion = 0;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear it: the app goes on without a GPU
    info.status = cudaStatus(e, "cudaGetDeviceCount(&count)", __FILE__, __LINE__);
    return info;
  }
  info.deviceCount = count;
  if (count > 0) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) info.firstDeviceName = p.name;
  }
  return info;
}

std::string currentDeviceName() {
  cudaDeviceProp prop{};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return "unknown GPU";
  return prop.name;
}

int currentComputeCapability() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return major * 10 + minor;
}

Status freeDeviceBytes(std::size_t& free) {
  std::size_t total = 0;
  CUDALAB_CUDA_TRY(cudaMemGetInfo(&free, &total));
  return {};
}

Status makeDeviceContext(int device) {
  CUDALAB_CUDA_TRY(cudaSetDevice(device));
  CUDALAB_CUDA_TRY(cudaFree(nullptr));
  return {};
}

}  // namespace cudalab
