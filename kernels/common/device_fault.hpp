// Sticky CUDA errors: noticing them, causing one on purpose, and resetting the device.
//
// After an illegal address or a trap in any kernel, every later CUDA call in the process fails
// until cudaDeviceReset(). cudaStatus() (common/cuda_check.hpp) records each sticky error here,
// so the app notices one whichever thread or lesson hit it:
//
//   if (deviceFaulted()) {                 // the shell, once per frame
//     stop everything that uses CUDA (lessons, their jobs, interop buffers and textures);
//     Status s = resetDevice();            // then create them again
//   }
//
// For tests and the soak: armFault(FaultKind::IllegalAddress) (or CUDALAB_INJECT_FAULT=
// illegal-address|trap in the environment, or the hidden `--inject-fault KIND` option) makes the
// next GPU job fault. Every AsyncJob calls injectArmedFault() before its work, so the job's first
// GPU step fails exactly as a faulting kernel of its own would make it fail. The faulting kernel is
// named cudalabInjectedFault (tools/sanitize.sh excludes it by name).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab {

enum class FaultKind { None, IllegalAddress, Trap };

// "illegal-address" or "trap"; nullopt for anything else.
std::optional<FaultKind> parseFaultKind(std::string_view name);
const char* faultKindName(FaultKind k);

// Arms (or, with None, disarms) a fault for the next GPU job.
void armFault(FaultKind k);
FaultKind armedFault();
// Arms from CUDALAB_INJECT_FAULT when it is set; an unknown value is refused with a sentence.
Status armFaultFromEnvironment();

// When a fault is armed and a GPU is present: disarms it, launches cudalabInjectedFault on
// `stream`, waits for it, and returns the sticky Status that results. Otherwise returns ok and
// launches nothing.
Status injectArmedFault(cudaStream_t stream = nullptr);

// Recorded by cudaStatus() for every sticky error; cleared by resetDevice().
void noteStickyError(const Status& s);
bool deviceFaulted();
Status lastStickyError();

// Out of memory on purpose: holds device memory so that only `leaveFreeMiB` MiB stay free (for
// the out-of-memory tests, and CUDALAB_LEAVE_FREE_MIB=N for the app: the sweeps then stop where
// the GPU is full). release() or the destructor gives it back.
class MemoryBallast {
 public:
  MemoryBallast() = default;
  ~MemoryBallast() { release(); }
  MemoryBallast(const MemoryBallast&) = delete;
  MemoryBallast& operator=(const MemoryBallast&) = delete;
  Status hold(double leaveFreeMiB);
  void release();
  double heldMiB() const;

 private:
  std::vector<void*> blocks_;
  size_t held_ = 0;
};
// The app's ballast from CUDALAB_LEAVE_FREE_MIB, held until the process ends; ok when unset.
Status holdMemoryFromEnvironment();

// Resets the current device (cudaDeviceReset). The caller must first stop and destroy everything
// that holds CUDA resources: they are invalid afterwards. Clears the fault and counts the reset.
Status resetDevice();
int deviceResets();

}  // namespace cudalab
