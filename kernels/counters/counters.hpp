// The GPU's own hardware counters, read in the app's process through CUPTI's Range Profiler (the
// library Nsight Compute is built on), to show beside the lessons' models what the hardware
// measured.
//
// [SECTION] Metrics     one table: a short key, CUPTI's metric name, its unit, what it means;
//                       and the ratios of two of them (sectors per request, ...)
// [SECTION] Profiling   every kernel a piece of work launches, its metrics, one set per launch
// [SECTION] Ladders     one reading per ladder step, beside what the lesson's model predicts
// [SECTION] Checking    a journal of every raw counter read, and a mode that only marks the same
//                       kernels for Nsight Compute, so tools/ncu_counters_check.py compares them
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

#include <atomic>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "common/translatable.hpp"

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

// A quotient of two metrics, asked for and read like one: profile() collects both.
struct RatioInfo {
  const char* key;  // "global_load_sectors_per_request"
  const char* num;  // "global_load_sectors"
  const char* den;  // "global_load_requests"
  const char* meaning;
};
std::span<const RatioInfo> ratios();
const RatioInfo* findRatio(const std::string& key);
// The metric keys CUPTI must collect for `keys` (ratios expanded, each once, in order); fails
// with a sentence on a key that is neither a metric nor a ratio.
Result<std::vector<std::string>> rawKeys(const std::vector<std::string>& keys);

// ---------------------------------------------------------------------------------------------
// [SECTION] Profiling
// ---------------------------------------------------------------------------------------------

// The metrics of one kernel launch, in the order they were asked for.
struct LaunchCounters {
  std::string range;  // CUPTI's name for the range (with one range per launch: its index)
  std::vector<std::string> keys;
  std::vector<double> values;
  // A metric's value, or a ratio's (nullopt when its denominator is 0 or it was not collected).
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
// [SECTION] Ladders
// ---------------------------------------------------------------------------------------------

// One step of a lesson's ladder under the profiler: the counters of its main kernel, and beside
// them what the lesson's model predicts for some of the same keys. The lessons' measureCounters
// functions return these; the app's counters panel and `cudalab bench counters` draw them.
struct StepReading {
  std::string key;    // the step's stable id ("tiled16")
  std::string label;  // the step's name in English (the benchmark's tables, logs)
  // The name as the UI shows it when it is made with numbers ("yours: 128 threads x 8 blocks"),
  // translated from its format; empty: `label` is a marked text (a ladder's step name) and the UI
  // translates it whole. Readings cross a pipe from the counters' helper, so the app never reads
  // numbers back out of `label`.
  Phrase labelPhrase;
  int colour = 0;    // palette index of the step
  int launches = 0;  // kernels the step launched; `measured` is its main one
  LaunchCounters measured;
  std::vector<std::pair<std::string, double>> model;
  // Where the model and the counters must agree and do not: one sentence each (empty: they agree,
  // or the model predicts nothing exact for this step), English through english().
  std::vector<Phrase> mismatches;
  std::optional<double> modelValue(const std::string& key) const;
};

// Profiles one ladder step's `work` for `keys` and returns its reading: the counters of the first
// kernel it launches (a ladder step's main pass; later launches finish the job), no model yet.
Result<StepReading> profileStep(std::string key, std::string label, int colour,
                                const std::vector<std::string>& keys,
                                const std::function<Status()>& work);

// A ladder under the counters, step by step in its order: `info(item)` is the step's row (with a
// `label`), `keep(row)` says whether it is read (a library's kernels are its own), and
// `read(row, index)` reads it (profileStep with the step's launch, and the model's values).
// Reports each step's label through `progress` (fraction, text), then "done"; stops with
// "Measurement cancelled." once `cancel` is set.
//   return counters::profileSteps(steps, &stepInfo, &handWritten, [&](const StepInfo& s,
//       std::size_t) { return counters::profileStep(s.key, ..., [&] { return launch(s); }); },
//       cancel, progress);
template <class Items, class Info, class Keep, class Read>
Result<std::vector<StepReading>> profileSteps(
    const Items& items, Info info, Keep keep, Read read, const std::atomic<bool>* cancel,
    const std::function<void(float, const std::string&)>& progress) {
  std::vector<StepReading> out;
  const std::size_t n = std::size(items);
  std::size_t i = 0;
  for (const auto& item : items) {
    const auto& s = info(item);
    const std::size_t index = i++;
    if (!keep(s)) continue;
    if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));
    if (progress) progress(float(index) / float(n), s.label);
    Result<StepReading> r = read(s, index);
    if (!r) return r.status();
    out.push_back(std::move(*r));
  }
  if (progress) progress(1, N_("done"));
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Checking
// ---------------------------------------------------------------------------------------------

// With the journal on, every profile() call appends the raw counters (CUPTI's names) of every
// launch it saw. `cudalab bench counters` writes them to its JSON.
struct JournalEntry {
  std::string what;  // the label given to profile()'s caller by journalLabel()
  std::vector<std::vector<std::pair<std::string, double>>> launches;
};
void setJournal(bool on);
void journalLabel(const std::string& what);  // names the entries that follow
std::vector<JournalEntry> takeJournal();

// Under Nsight Compute the app cannot read counters itself (one profiler per process). With this
// mode on, profile() runs the work once inside an NVTX range named kNvtxRange and returns one
// launch without values, so `ncu --nvtx --nvtx-include cudalab-counters/` profiles exactly the
// kernels the app profiles, in the same order.
inline constexpr const char* kNvtxRange = "cudalab-counters";
void setMarkOnly(bool on);
bool markOnly();

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
