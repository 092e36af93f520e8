#include "common/cuda_check.hpp"

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
  return Status::cuda(static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e), expr,
                      projectPath(file), line, isStickyCudaError(e));
}

}  // namespace cudalab
