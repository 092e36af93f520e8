// Inside kernels/counters only: libcupti loaded at run time (dlopen), so the app starts, and every
// other lesson works, where it is missing; and the helpers every CUPTI call site shares.
#pragma once

#include <cuda.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <mutex>
#include <string>

#include "common/status.hpp"

namespace cudalab::counters {

// CUPTI's entry points. `problem` says why the Range Profiler's are missing (nothing can be
// read); `sassProblem` why the SASS metrics' are (per-line counters cannot be read).
struct Cupti {
#define CUDALAB_CUPTI_FN(name) decltype(&::name) name = nullptr
  CUDALAB_CUPTI_FN(cuptiGetResultString);
  CUDALAB_CUPTI_FN(cuptiProfilerInitialize);
  CUDALAB_CUPTI_FN(cuptiProfilerDeInitialize);
  CUDALAB_CUPTI_FN(cuptiDeviceGetChipName);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerEnable);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerDisable);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerSetConfig);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerStart);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerStop);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerDecodeData);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerGetCounterDataSize);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerCounterDataImageInitialize);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerGetCounterDataInfo);
  CUDALAB_CUPTI_FN(cuptiRangeProfilerCounterDataGetRangeInfo);
  CUDALAB_CUPTI_FN(cuptiProfilerHostInitialize);
  CUDALAB_CUPTI_FN(cuptiProfilerHostDeinitialize);
  CUDALAB_CUPTI_FN(cuptiProfilerHostConfigAddMetrics);
  CUDALAB_CUPTI_FN(cuptiProfilerHostGetConfigImageSize);
  CUDALAB_CUPTI_FN(cuptiProfilerHostGetConfigImage);
  CUDALAB_CUPTI_FN(cuptiProfilerHostEvaluateToGpuValues);
  CUDALAB_CUPTI_FN(cuptiSassMetricsGetProperties);
  CUDALAB_CUPTI_FN(cuptiSassMetricsGetNumOfMetrics);
  CUDALAB_CUPTI_FN(cuptiSassMetricsGetMetrics);
  CUDALAB_CUPTI_FN(cuptiSassMetricsSetConfig);
  CUDALAB_CUPTI_FN(cuptiSassMetricsUnsetConfig);
  CUDALAB_CUPTI_FN(cuptiSassMetricsEnable);
  CUDALAB_CUPTI_FN(cuptiSassMetricsDisable);
  CUDALAB_CUPTI_FN(cuptiSassMetricsGetDataProperties);
  CUDALAB_CUPTI_FN(cuptiSassMetricsFlushData);
  CUDALAB_CUPTI_FN(cuptiGetSassToSourceCorrelation);
  CUDALAB_CUPTI_FN(cuptiPCSamplingGetNumStallReasons);
  CUDALAB_CUPTI_FN(cuptiPCSamplingGetStallReasons);
  CUDALAB_CUPTI_FN(cuptiPCSamplingSetConfigurationAttribute);
  CUDALAB_CUPTI_FN(cuptiPCSamplingEnable);
  CUDALAB_CUPTI_FN(cuptiPCSamplingDisable);
  CUDALAB_CUPTI_FN(cuptiPCSamplingGetData);
#undef CUDALAB_CUPTI_FN
  std::string problem;
  std::string sassProblem;
  std::string pcProblem;  // why PC sampling's entry points are missing (no stall reasons)
};
const Cupti& cupti();

// A parameter struct with its size set and everything else zero, as CUPTI expects.
template <class P>
P params(size_t structSize) {
  P p{};
  p.structSize = structSize;
  return p;
}

// One CUPTI call through the Cupti `c` in scope, its failure as a Status with the learner's
// sentence (failureSentence).
#define CUDALAB_CUPTI_TRY(call, params)                                                         \
  do {                                                                                          \
    const CUptiResult cudalab_r_ = c.call(&(params));                                           \
    if (cudalab_r_ != CUPTI_SUCCESS)                                                            \
      return ::cudalab::Status::error(::cudalab::counters::failureSentence(cudalab_r_, #call)); \
  } while (0)

// The driver's current context (the runtime's primary context after cudaFree(0)), without
// linking the driver library: the app must start where there is none.
Result<CUcontext> currentContext();

// One profiling session at a time in the process.
std::mutex& profilerMutex();

}  // namespace cudalab::counters
