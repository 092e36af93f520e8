// What CUDA runtime and driver this process sees, and whether there is a device at all.
//
// Call queryRuntime() once at start-up (it is cheap and never throws). When no device can be used,
// `status` carries CUDA's own reason (no driver, driver too old, no device) and `summary()` says in
// one sentence what happened and what in the app still works.
#pragma once

#include <cstddef>
#include <string>

#include "common/status.hpp"

namespace cudalab {

struct RuntimeInfo {
  int runtimeVersion = 0;  // e.g. 13000 for CUDA 13.0
  int driverVersion = 0;   // 0 when no driver is installed
  int deviceCount = 0;
  Status status;                // why deviceCount is 0, when it is
  bool driverInstalled = true;  // false when libcuda.so.1 cannot be loaded at all
  std::string firstDeviceName;

  bool hasDevice() const { return deviceCount > 0; }
  // "CUDA 13.0 runtime, driver 13.0, 1 device" or "No CUDA device: <reason>. ..."
  std::string summary() const;
};

// Formats CUDA's integer versions: 13000 -> "13.0", 12080 -> "12.8".
std::string cudaVersionString(int v);

RuntimeInfo queryRuntime();

// The current device's name ("NVIDIA H100 80GB HBM3"), or "unknown GPU" when CUDA cannot say.
std::string currentDeviceName();
// The current device's compute capability x 10 (90 for an H100), 0 without one.
int currentComputeCapability();
// cudaMemGetInfo's free bytes on the current device.
Status freeDeviceBytes(std::size_t& free);

// Whether a lesson's parameters `p` can run now: its validate(p), then its checkMemory(p, free)
// against the device's free memory (both found by argument in the lesson's namespace), the first
// failure's sentence.
template <class P>
Status validateAndFit(const P& p) {
  if (Status s = validate(p); !s) return s;
  std::size_t free = 0;
  if (Status s = freeDeviceBytes(free); !s) return s;
  return checkMemory(p, free);
}

// Makes CUDA's context on `device` now (it is otherwise made by the first GPU work), so that the
// app can check, before it draws, that the GPU's OpenGL still draws beside CUDA
// (app/platform/drawing_path.hpp).
Status makeDeviceContext(int device);

}  // namespace cudalab
