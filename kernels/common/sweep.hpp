// A sweep (one measurement at each of several sizes) that keeps what it measured when it stops.
//
//   SweepRun<Point> run;
//   for (int n : sizes) {
//     Result<Point> p = measureAt(n);
//     if (!p) { run.stopped = sweepStopped("n = " + std::to_string(n), p.status(),
//     run.points.size()); break; } run.points.push_back(*p);
//   }
//
// The panel plots run.points either way and shows run.stopped's sentence, which names the size
// that failed; out of device memory is said plainly. Every buffer of the failed size is freed by
// its owner before the sweep returns, so free memory is back where it was.
#pragma once

#include <string>
#include <vector>

#include "common/status.hpp"
#include "common/translatable.hpp"

namespace cudalab {

template <class P>
struct SweepRun {
  std::vector<P> points;  // in the order measured
  Status stopped;         // ok: every size was measured
};

inline bool isOutOfMemory(const Status& s) {
  return s.cudaName() == "cudaErrorMemoryAllocation" ||
         s.message().find("ALLOC_FAILED") != std::string::npos;
}

// "The sweep stopped at n = 8192: it did not fit in the GPU's free memory (...). The 5 points
// measured before it are kept."
// One whole sentence per case (out of memory or not; nothing, one point or several kept), so
// that each translates as a whole; the cause's own sentence goes in as it is.
inline Status sweepStopped(const std::string& at, const Status& cause, size_t kept) {
  const bool oom = isOutOfMemory(cause);
  const char* format = nullptr;
  if (oom)
    format = kept == 0   ? N_("The sweep stopped at %s: it did not fit in the GPU's free memory "
                                "(%s). Nothing was measured before it.")
             : kept == 1 ? N_("The sweep stopped at %s: it did not fit in the GPU's free memory "
                              "(%s). The point measured before it is kept.")
                         : N_("The sweep stopped at %s: it did not fit in the GPU's free memory "
                              "(%s). The %s points measured before it are kept.");
  else
    format = kept == 0   ? N_("The sweep stopped at %s: %s Nothing was measured before it.")
             : kept == 1 ? N_("The sweep stopped at %s: %s The point measured before it is kept.")
                         : N_("The sweep stopped at %s: %s The %s points measured before it are "
                              "kept.");
  std::vector<std::string> values{at, cause.sentence()};
  if (kept > 1) values.push_back(std::to_string(kept));
  return Status::errorf(format, std::move(values));
}

}  // namespace cudalab
