// "Check at every size": a learner's kernel graded as a teacher would, not only at the size the
// exercise shows. Small fixed inputs let wrong answers through (a kernel right for N = 30,000,000
// and 256 threads per block can be wrong for 1, for 33, for a prime, for N below the threads or for
// the largest N); the kernel runs at each of a set of sizes chosen for the exercise, each with
// fresh random inputs, poisoned outputs and guard zones (the worker's run), and passes only when
// every size is right. The verdict names each size that failed and why.
//
//   for (const GradeCase& c : gradingCases(e, p)) ...              // what will run, and why
//   Grade g = gradeAtEverySize(e, p, [&](const RunParams& q) { return worker.run(c, e, q); });
//   if (!g.passed()) for (const SizeVerdict& v : g.sizes) if (!v.ok) say(v.c.label, v.why);
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "playground/playground.hpp"

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] The sizes
// ---------------------------------------------------------------------------------------------

// One run of the grading: N (or, for the counter, whose N is 1, a launch) and why it is there.
struct GradeCase {
  long long n = 0;
  Launch launch;  // the learner's block; the grid follows N where the learner's does
  bool autoGrid = true;
  Phrase why;  // "one warp and one more (33)", marked for translation
};

// For exercise e with the learner's choices p: 1 and the smallest N it takes; 31, 32 and 33 around
// a warp; the block size and one either side; a prime (1,009); a size that is no multiple of
// anything (3 blocks + 7); the exercise's own N; N smaller than the threads of a fixed grid; and
// the largest, capped at 2^28 elements (a matrix product: 1,536 x 1,536) so that the CPU's
// reference stays within seconds; each within the exercise's limits, each once, in ascending order.
// The counter, whose N is 1, runs at five launches instead, from one thread to a million.
std::vector<GradeCase> gradingCases(const Exercise& e, const RunParams& p);

// ---------------------------------------------------------------------------------------------
// [SECTION] Grading
// ---------------------------------------------------------------------------------------------

struct SizeVerdict {
  GradeCase c;
  bool ran = false;  // the kernel ran and was checked (else `why` says why not)
  bool ok = false;
  // Empty when right: what was wrong, one clause each ("519 of 775 never written", "1 write past
  // the end"), or why it could not run.
  std::vector<Phrase> why;
  double ms = 0;  // the kernel's time at this size (one run)
};

struct Grade {
  std::vector<SizeVerdict> sizes;
  bool cancelled = false;
  bool passed() const;  // every size ran and was right
  int failed() const;
};

// What a checked run found wrong, one clause per kind of mistake with its count (never written,
// wrong, written past the end or before the start; the reduction's total against the exact sum,
// the counter's final count); empty when it was right.
std::vector<Phrase> verdictOf(const RunReport& r);
// The clauses in English, joined with "; " (the command line, logs).
std::string englishOf(const std::vector<Phrase>& clauses);

// Runs every case of gradingCases(e, p) through `run` (one timed run each, nothing compared, no
// counters), in ascending size. A run that fails (a fault, the time limit) is that size's verdict
// and the grading goes on (`run` starts a fresh worker). `cancel` stops it between sizes.
Grade gradeAtEverySize(const Exercise& e, const RunParams& p,
                       const std::function<Result<RunReport>(const RunParams&)>& run,
                       const std::atomic<bool>* cancel = nullptr,
                       const std::function<void(float, const std::string&)>& progress = {});

}  // namespace cudalab::playground
