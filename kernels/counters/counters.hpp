// The GPU's own hardware counters, read in the app's process through CUPTI's Range Profiler (the
// library Nsight Compute is built on), to show beside the lessons' models what the hardware
// measured.
//
// [SECTION] Metrics     one table: a short key, CUPTI's metric name, its unit, what it means
// [SECTION] Profiling   every kernel a piece of work launches, its metrics, one set per launch
// [SECTION] Failures    the sentence for each reason counters cannot be read, with the fix
//
//   Result<std::vector<LaunchCounters>> r =
//       counters::profile({"global_load_sectors", "global_load_requests"},
//                         [&] { return launchMyKernel(); });
//   if (!r) show(r.status().sentence());     // no GPU, no permission, no CUPTI: one sentence
//   else show((*r)[0].value("global_load_sectors"));
//
// Profiling replays each kernel once per pass (kernel replay), so the work must be repeatable
// (its kernels may run several times) and is far slower than a timed run: profiling runs are
// separate from timed runs. CUPTI is loaded when first needed (dlopen), so the app starts, and
// every other lesson works, where it is missing.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace cudalab::counters {

// ---------------------------------------------------------------------------------------------
// [SECTION] Metrics
// ---------------------------------------------------------------------------------------------

struct MetricInfo {
  const char* key;      // the app's name: "global_load_sectors"
  const char* cupti;    // CUPTI's (and Nsight Compute's): "l1tex__t_sectors_pipe_lsu_mem_..."
  const char* unit;     // "sectors", "requests", "bytes", "%", "warps", "instructions"
  const char* meaning;  // for learners
};
std::span<const MetricInfo> metrics();
const MetricInfo* findMetric(const std::string& key);

// ---------------------------------------------------------------------------------------------
// [SECTION] Profiling
// ---------------------------------------------------------------------------------------------

// The metrics of one kernel launch, in the order they were asked for.
struct LaunchCounters {
  std::string range;  // CUPTI's name for the range (with one range per launch: its index)
  std::vector<std::string> keys;
  std::vector<double> values;
  std::optional<double> value(const std::string& key) const;
};

// Runs `work` once under the profiler (its kernels are replayed as many times as the metrics
// need) and returns the metrics of every kernel it launched, in launch order. `maxLaunches`
// bounds the kernels counted. Fails with a sentence (failureSentence) when counters cannot be
// read.
Result<std::vector<LaunchCounters>> profile(const std::vector<std::string>& keys,
                                            const std::function<Status()>& work,
                                            int maxLaunches = 16);

// ---------------------------------------------------------------------------------------------
// [SECTION] Failures
// ---------------------------------------------------------------------------------------------

// Why counters could not be read, as a learner should read it: `code` is a CUPTIResult value
// (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES says how to allow profiling; not supported devices,
// missing CUPTI and no GPU have their own sentences), `what` the CUPTI call that failed.
std::string failureSentence(int code, const std::string& what);
// CUPTIResult values the sentences know (from cupti_result.h), for callers and tests.
inline constexpr int kCuptiInsufficientPrivileges = 35;
inline constexpr int kCuptiNotSupported = 27;
inline constexpr int kCuptiNotInitialized = 15;

}  // namespace cudalab::counters
