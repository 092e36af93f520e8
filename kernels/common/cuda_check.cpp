#include "common/cuda_check.hpp"

#include "common/device_fault.hpp"

namespace cudalab {

bool isStickyCudaError(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

Status cudaStatus(cudaError_t e, const char* expr, const char* file, int line) {
  Status s = Status::cuda(static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e), expr,
                          projectPath(file), line, isStickyCudaError(e));
  // Whichever thread or lesson met it first, the app notices and resets the device.
  if (s.sticky()) noteStickyError(s);
  return s;
}

}  // namespace cudalab
