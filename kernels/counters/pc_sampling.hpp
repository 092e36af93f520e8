// Where the learner's kernel waits: CUPTI's PC sampling. While a kernel runs, each SM's scheduler
// periodically records, for one of its warps, the instruction it is at and why it is not issuing
// (waiting on a global load, at a barrier, for a math pipe...): the "stall reasons" Nsight
// Compute's Source page shows per line and per instruction. A sample is a statistic, not a count:
// two runs of the same kernel give different numbers with the same proportions.
//
//   Result<StallSamples> s = samplePcs([&] { return launchOnce(); });
//   for (const StallRecord& r : s->records)            // one per instruction sampled
//     for (auto [reason, n] : r.samples) show(s->reasons[reason], n);
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/status.hpp"

namespace cudalab::counters {

struct StallRecord {
  std::string function;  // the kernel (mangled, as in the cubin)
  std::uint64_t pcOffset = 0;
  int line = 0;  // the program's line it came from (filled by the caller; 0: none of the program)
  // (index into StallSamples::reasons, samples), only the reasons with samples.
  std::vector<std::pair<int, std::uint32_t>> samples;
  std::uint64_t total() const;
};

struct StallSamples {
  // CUPTI's names with their prefix removed ("long_scoreboard", "barrier", "selected", ...).
  std::vector<std::string> reasons;
  std::vector<StallRecord> records;
  std::uint64_t totalSamples = 0, droppedSamples = 0;
  // Samples of kernels not the work's own, and instructions CUPTI listed (for a report on a run
  // that sampled nothing).
  std::uint64_t nonUserSamples = 0, pcs = 0;
  bool bufferFull = false;
};

// Runs `work` once with PC sampling on for every kernel it launches (the current device's context,
// kernels serialised) and returns the samples per instruction. Fails with a sentence where PC
// sampling cannot run (no CUPTI, a GPU without it, another profiler in the process).
Result<StallSamples> samplePcs(const std::function<Status()>& work);

// A stall reason for the learner: CUPTI's short name ("long_scoreboard"), a label of a few words
// for a table cell ("global memory") and what it means, both marked N_(). nullptr for a reason
// the app does not explain (shown by its CUPTI name).
struct StallText {
  const char* reason;
  const char* label;
  const char* meaning;
};
const StallText* stallText(const std::string& reason);

// Samples summed per reason (indexed like StallSamples::reasons, `reasons` of them), and in all.
struct StallTotals {
  explicit StallTotals(std::size_t reasons = 0) : byReason(reasons, 0) {}
  void add(const StallRecord& r);  // a reason past the names is not counted
  int top() const;                 // the reason with the most samples, -1 when none
  std::vector<std::uint64_t> byReason;
  std::uint64_t total = 0;
};
StallTotals stallTotals(std::span<const StallRecord> records, std::size_t reasons);

}  // namespace cudalab::counters
