// The GPU's counters per line of CUDA source: CUPTI's SASS metrics count, for every machine
// instruction of a kernel, how often warps executed it, with how many threads, and the sectors and
// shared-memory passes its memory accesses needed; the line information the compiler keeps
// (-lineinfo) names the source line of each instruction. Summed per line, the learner sees which
// line of their kernel moves 32 sectors per request or makes 32-way bank conflicts.
//
// [SECTION] Metrics      the SASS metrics read, with what each means
// [SECTION] Per line     the records summed per source line (pure: tests feed canned records)
// [SECTION] Profiling    one run of a piece of work with the SASS metrics on (CUPTI), and the
//                        instruction -> line correlation from the cubin
//
//   Result<std::vector<SassRecord>> recs = counters::profileSass([&] { return launch(); });
//   auto lineOf = [&](const SassRecord& r) { return counters::sourceLine(cubin, r.function,
//                                                                        r.pcOffset); };
//   std::vector<LineCounters> lines = counters::countersByLine(*recs, lineOf);
//
// Like the range profiler, the SASS metrics patch the kernel's code for one run: a separate,
// slow run, never a timed one. Learners' kernels run in the playground's worker process, so this
// runs there.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace cudalab::counters {

// ---------------------------------------------------------------------------------------------
// [SECTION] Metrics
// ---------------------------------------------------------------------------------------------

enum class SassMetric {
  Instructions,        // warp instructions executed
  ThreadInstructions,  // threads that executed them (32 per instruction at best)
  GlobalSectors,       // 32-byte sectors of global loads and stores
  GlobalRequests,      // global load and store instructions executed
  SharedWavefronts,    // passes of shared-memory accesses
  SharedRequests,      // shared-memory instructions executed
  Count
};
struct SassMetricInfo {
  SassMetric id;
  // CUPTI's names: the first of these alternatives the GPU has is read, each a list of metrics
  // summed ("..._op_ld" and "..._op_st" where a chip has no metric for both).
  std::vector<std::vector<const char*>> cupti;
  const char* meaning;
};
std::span<const SassMetricInfo> sassMetrics();

// ---------------------------------------------------------------------------------------------
// [SECTION] Per line
// ---------------------------------------------------------------------------------------------

// One instruction's counts, as CUPTI reports them (summed over the SMs).
struct SassRecord {
  std::string function;  // the kernel (mangled, as in the cubin)
  std::uint64_t pcOffset = 0;
  std::uint64_t values[int(SassMetric::Count)] = {};
};

// Where an instruction came from: the file and line of the source (line 0: unknown).
struct SourcePlace {
  std::string file;
  int line = 0;
};

// The line of the program `programFile` that `place` names, 0 for a place in another file (a
// header) or on no line.
int programLine(const SourcePlace& place, const std::string& programFile);

struct LineCounters {
  int line = 0;  // 0: instructions of no line of the program (headers, the compiler's own)
  std::uint64_t values[int(SassMetric::Count)] = {};
  int instructionsOnLine = 0;  // SASS instructions the line compiled to
  std::uint64_t value(SassMetric m) const { return values[int(m)]; }
  double sectorsPerRequest() const;     // 0 without global accesses
  double wavefrontsPerRequest() const;  // 0 without shared accesses
  double threadsPerInstruction() const;
};

// Sums `records` per line of the program `programFile`: instructions `placeOf` puts in another
// file, or on no line, are summed under line 0. Lines in ascending order.
std::vector<LineCounters> countersByLine(
    std::span<const SassRecord> records, const std::string& programFile,
    const std::function<SourcePlace(const SassRecord&)>& placeOf);
// Two kernels' LineCounters joined: each line's counts and instructions added, lines ascending.
std::vector<LineCounters> joinLines(std::span<const LineCounters> a,
                                    std::span<const LineCounters> b);

// ---------------------------------------------------------------------------------------------
// [SECTION] Profiling
// ---------------------------------------------------------------------------------------------

// Runs `work` once with CUPTI's SASS metrics collected for every kernel it launches (on the
// current device's context), and returns one record per instruction executed. Call it for one
// piece of work per process: CUPTI 13.0 on an H100 returned no records for a second one. Fails with
// a sentence (failureSentence) where counters cannot be read, or when this GPU lacks a metric.
Result<std::vector<SassRecord>> profileSass(const std::function<Status()>& work);

// The source place of instruction `pcOffset` of `function` in `cubin` (compiled with -lineinfo).
Result<SourcePlace> sourcePlace(const std::string& cubin, const std::string& function,
                                std::uint64_t pcOffset);

}  // namespace cudalab::counters
