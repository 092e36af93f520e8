// Sticky CUDA errors: noticing them and causing one on purpose.
//
// After an illegal address, a trap or another sticky error in any kernel, every later CUDA call in
// the process fails, and CUDA's documentation says the process must end and be started again to
// use CUDA: measured on an H100 (driver 580), cudaDeviceReset() after such an error leaves every
// later call failing with cudaErrorDevicesUnavailable. So the app does not try to carry on in the
// same process: cudaStatus() (common/cuda_check.hpp) records each sticky error here, whichever
// thread or lesson met it, and the shell starts cudalab again with the same lesson and parameters
// (see Shell::relaunchState and main.cpp):
//
//   if (deviceFaulted()) { save what the learner chose; start a fresh process; }
//
// For tests: armFault(FaultKind::IllegalAddress) (or
// CUDALAB_INJECT_FAULT=illegal-address|trap|simulated in the environment, or the hidden
// `--inject-fault KIND` option) makes the next GPU job fault. Every AsyncJob calls
// injectArmedFault() before its work, so the job's first GPU step fails exactly as a faulting
// kernel of its own would make it fail. The faulting kernel is named cudalabInjectedFault.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab {

// Simulated records a sticky error as a real one would, without a kernel: the restart that follows
// can then be tested on a machine without a GPU (the CPU tests do).
enum class FaultKind { None, IllegalAddress, Trap, Simulated };

// "illegal-address", "trap" or "simulated"; nullopt for anything else.
std::optional<FaultKind> parseFaultKind(std::string_view name);
const char* faultKindName(FaultKind k);

// Arms (or, with None, disarms) a fault for the next GPU job.
void armFault(FaultKind k);
FaultKind armedFault();
// Arms from CUDALAB_INJECT_FAULT when it is set; an unknown value is refused with a sentence.
Status armFaultFromEnvironment();

// When a fault is armed and a GPU is present: disarms it, launches cudalabInjectedFault on
// `stream`, waits for it, and returns the sticky Status that results. A simulated fault is
// recorded and returned with or without a GPU. Otherwise returns ok and launches nothing.
Status injectArmedFault(cudaStream_t stream = nullptr);

// Recorded by cudaStatus() for every sticky error.
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

// A sticky error in another process of the app (the playground's worker, which runs learners'
// kernels; the counters' helper runs only the app's own).
// This process's CUDA goes on, but on some servers its OpenGL stops drawing
// (app/platform/drawing_path.hpp): the app checks its drawing once more when it takes this.
void noteOtherProcessFault();
bool takeOtherProcessFault();

// Forgets a recorded fault (tests that fake one without a GPU).
void clearFaultRecord();

}  // namespace cudalab
