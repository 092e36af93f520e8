// Timing one piece of GPU work with CUDA events: the median of `runs` after `warmup`, each run
// enqueued on `stream` by `enqueue` (a callable returning Status) between two events.
//
//   Result<double> ms = timeMedian(stream, 2, 10, [&] { return launchMyKernel(stream); });
//
// For work that needs no poisoning or checking between runs (a copy, one kernel of a sweep);
// measure() in measurement.hpp is the runner for a whole Workload.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/measurement.hpp"

namespace cudalab {

template <class Enqueue>
Result<double> timeMedian(cudaStream_t stream, int warmup, int runs, Enqueue enqueue) {
  Event a, b;
  CUDALAB_TRY(a.create());
  CUDALAB_TRY(b.create());
  PhaseStats st;
  for (int i = 0; i < warmup + runs; ++i) {
    CUDALAB_CUDA_TRY(cudaEventRecord(a.get(), stream));
    CUDALAB_TRY(enqueue());
    CUDALAB_CUDA_TRY(cudaEventRecord(b.get(), stream));
    CUDALAB_CUDA_TRY(cudaEventSynchronize(b.get()));
    float ms = 0;
    CUDALAB_CUDA_TRY(cudaEventElapsedTime(&ms, a.get(), b.get()));
    if (i >= warmup) st.samplesMs.push_back(ms);
  }
  summarize(st);
  return st.medianMs;
}

}  // namespace cudalab
