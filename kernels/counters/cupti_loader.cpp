#include "counters/cupti_loader.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include "common/cuda_check.hpp"
#include "counters/counters.hpp"

namespace cudalab::counters {

const Cupti& cupti() {
  static const Cupti loaded = [] {
    Cupti c;
    void* lib = nullptr;
    std::string tried;
    for (const char* name : {"libcupti.so.13", "libcupti.so",
#ifdef CUDALAB_CUPTI_LIBRARY
                             CUDALAB_CUPTI_LIBRARY,
#endif
                             "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"}) {
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
      tried += std::string(tried.empty() ? "" : ", ") + name;
    }
    if (!lib) {
      c.problem =
          "The GPU's counters need CUPTI (libcupti, part of the CUDA toolkit), and it "
          "could not be loaded (tried " +
          tried + "). The models still work.";
      c.sassProblem = c.pcProblem = c.problem;
      return c;
    }
#define CUDALAB_CUPTI_LOAD(name, field, why)                      \
  c.name = reinterpret_cast<decltype(c.name)>(dlsym(lib, #name)); \
  if (!c.name) c.field = "This CUPTI has no " #name ": " why " The models still work.";
#define CUDALAB_CUPTI_RANGE(name) \
  CUDALAB_CUPTI_LOAD(name, problem, "the Range Profiler needs CUDA 12.6 or newer.")
#define CUDALAB_CUPTI_SASS(name) \
  CUDALAB_CUPTI_LOAD(name, sassProblem, "counters per source line need CUDA 12.4 or newer.")
    CUDALAB_CUPTI_RANGE(cuptiGetResultString)
    CUDALAB_CUPTI_RANGE(cuptiProfilerInitialize)
    CUDALAB_CUPTI_RANGE(cuptiProfilerDeInitialize)
    CUDALAB_CUPTI_RANGE(cuptiDeviceGetChipName)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerEnable)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerDisable)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerSetConfig)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerStart)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerStop)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerDecodeData)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerGetCounterDataSize)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerCounterDataImageInitialize)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerGetCounterDataInfo)
    CUDALAB_CUPTI_RANGE(cuptiRangeProfilerCounterDataGetRangeInfo)
    CUDALAB_CUPTI_RANGE(cuptiProfilerHostInitialize)
    CUDALAB_CUPTI_RANGE(cuptiProfilerHostDeinitialize)
    CUDALAB_CUPTI_RANGE(cuptiProfilerHostConfigAddMetrics)
    CUDALAB_CUPTI_RANGE(cuptiProfilerHostGetConfigImageSize)
    CUDALAB_CUPTI_RANGE(cuptiProfilerHostGetConfigImage)
    CUDALAB_CUPTI_RANGE(cuptiProfilerHostEvaluateToGpuValues)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsGetProperties)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsGetNumOfMetrics)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsGetMetrics)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsSetConfig)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsUnsetConfig)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsEnable)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsDisable)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsGetDataProperties)
    CUDALAB_CUPTI_SASS(cuptiSassMetricsFlushData)
    CUDALAB_CUPTI_SASS(cuptiGetSassToSourceCorrelation)
#define CUDALAB_CUPTI_PC(name)        \
  CUDALAB_CUPTI_LOAD(name, pcProblem, \
                     "stall reasons need CUPTI's PC sampling (CUDA 11.3 or newer).")
    CUDALAB_CUPTI_PC(cuptiPCSamplingGetNumStallReasons)
    CUDALAB_CUPTI_PC(cuptiPCSamplingGetStallReasons)
    CUDALAB_CUPTI_PC(cuptiPCSamplingSetConfigurationAttribute)
    CUDALAB_CUPTI_PC(cuptiPCSamplingEnable)
    CUDALAB_CUPTI_PC(cuptiPCSamplingDisable)
    CUDALAB_CUPTI_PC(cuptiPCSamplingGetData)
#undef CUDALAB_CUPTI_PC
#undef CUDALAB_CUPTI_SASS
#undef CUDALAB_CUPTI_RANGE
#undef CUDALAB_CUPTI_LOAD
    if (!c.problem.empty() && c.sassProblem.empty()) c.sassProblem = c.problem;
    // PC sampling needs none of the Range Profiler's entry points: a CUPTI too old for those can
    // still sample.
    return c;
  }();
  return loaded;
}

Result<CUcontext> currentContext() {
  CUDALAB_CUDA_TRY(cudaFree(nullptr));
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CUDALAB_CUDA_TRY(
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q));
  if (!fn || q != cudaDriverEntryPointSuccess)
    return Status::error("The CUDA driver has no cuCtxGetCurrent.");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    return Status::error("There is no CUDA context to profile.");
  return ctx;
}

std::mutex& profilerMutex() {
  static std::mutex m;
  return m;
}

}  // namespace cudalab::counters
