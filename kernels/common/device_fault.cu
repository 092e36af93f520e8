#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#include "common/cuda_check.hpp"
#include "common/device_fault.hpp"
#include "common/table.hpp"

namespace cudalab {

namespace {

std::atomic<int> gArmed{static_cast<int>(FaultKind::None)};
std::atomic<bool> gFaulted{false};
std::atomic<bool> gOtherProcessFaulted{false};
std::mutex gMutex;
Status gLast;  // guarded by gMutex

}  // namespace

// Deliberately wrong: the fault-recovery tests' kernel. An illegal address writes through a
// pointer no allocation owns; a trap stops the kernel as a failed device assert would.
__global__ void cudalabInjectedFault(int kind, int* nowhere) {
  if (kind == static_cast<int>(FaultKind::Trap)) __trap();
  *nowhere = 1;
}

namespace {
// FaultKind::None has no name of its own: nothing to inject.
constexpr EnumName<FaultKind> kFaultNames[] = {{FaultKind::IllegalAddress, "illegal-address"},
                                               {FaultKind::Trap, "trap"},
                                               {FaultKind::Simulated, "simulated"}};
}  // namespace

std::optional<FaultKind> parseFaultKind(std::string_view name) {
  return valueOf(kFaultNames, name);
}

const char* faultKindName(FaultKind k) {
  return nameOf(kFaultNames, k, "none");
}

void armFault(FaultKind k) {
  gArmed = static_cast<int>(k);
}
FaultKind armedFault() {
  return static_cast<FaultKind>(gArmed.load());
}

Status armFaultFromEnvironment() {
  const char* v = std::getenv("CUDALAB_INJECT_FAULT");
  if (!v || !*v) return {};
  const std::optional<FaultKind> k = parseFaultKind(v);
  if (!k)
    return Status::error(
        std::string("CUDALAB_INJECT_FAULT must be illegal-address, trap or simulated, not \"") + v +
        "\"; no fault is armed.");
  armFault(*k);
  return {};
}

Status injectArmedFault(cudaStream_t stream) {
  if (armedFault() == FaultKind::None) return {};
  if (armedFault() == FaultKind::Simulated) {
    if (gArmed.exchange(static_cast<int>(FaultKind::None)) !=
        static_cast<int>(FaultKind::Simulated))
      return {};  // another job took it first
    // Recorded as the real error would be (cudaStatus notes it), with no kernel and no GPU.
    return cudaStatus(cudaErrorIllegalAddress, "a simulated fault (--inject-fault simulated)",
                      __FILE__, __LINE__);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return {};
  const FaultKind k = static_cast<FaultKind>(gArmed.exchange(static_cast<int>(FaultKind::None)));
  if (k == FaultKind::None) return {};  // another job took it first
  // Just past null: aligned, and never mapped on the device.
  int* nowhere = reinterpret_cast<int*>(static_cast<uintptr_t>(0x10));
  cudalabInjectedFault<<<1, 1, 0, stream>>>(static_cast<int>(k), nowhere);
  CUDALAB_CUDA_TRY_LAUNCH();
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
  return Status::error("The injected fault did not fault.");
}

Status MemoryBallast::hold(double leaveFreeMiB) {
  release();
  size_t freeB = 0, totalB = 0;
  CUDALAB_CUDA_TRY(cudaMemGetInfo(&freeB, &totalB));
  const size_t keep = static_cast<size_t>(leaveFreeMiB * (1 << 20));
  // In blocks of 1 GiB and then smaller ones: one huge request can fail where several fit.
  for (size_t block = size_t{1} << 30; block >= (size_t{1} << 20); block /= 2) {
    while (freeB > keep + block) {
      void* p = nullptr;
      if (cudaMalloc(&p, block) != cudaSuccess) {
        (void)cudaGetLastError();
        break;
      }
      blocks_.push_back(p);
      held_ += block;
      CUDALAB_CUDA_TRY(cudaMemGetInfo(&freeB, &totalB));
    }
  }
  return {};
}

void MemoryBallast::release() {
  for (void* p : blocks_)
    (void)cudaFree(p);
  blocks_.clear();
  held_ = 0;
}

double MemoryBallast::heldMiB() const {
  return static_cast<double>(held_) / (1 << 20);
}

Status holdMemoryFromEnvironment() {
  const char* v = std::getenv("CUDALAB_LEAVE_FREE_MIB");
  if (!v || !*v) return {};
  char* end = nullptr;
  const double mib = std::strtod(v, &end);
  if (end == v || *end || !(mib >= 0))
    return Status::error(std::string("CUDALAB_LEAVE_FREE_MIB must be a number of MiB, not \"") + v +
                         "\".");
  static MemoryBallast ballast;  // for the whole run: never freed before the process ends
  return ballast.hold(mib);
}

void noteStickyError(const Status& s) {
  std::lock_guard<std::mutex> lock(gMutex);
  if (!gFaulted) gLast = s;  // the first one is the cause; later ones are its consequences
  gFaulted = true;
}

void noteOtherProcessFault() {
  gOtherProcessFaulted = true;
}

bool takeOtherProcessFault() {
  return gOtherProcessFaulted.exchange(false);
}

bool deviceFaulted() {
  return gFaulted.load();
}

Status lastStickyError() {
  std::lock_guard<std::mutex> lock(gMutex);
  return gLast;
}

void clearFaultRecord() {
  std::lock_guard<std::mutex> lock(gMutex);
  gFaulted = false;
  gLast = {};
}

}  // namespace cudalab
