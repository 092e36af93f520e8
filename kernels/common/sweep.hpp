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
inline Status sweepStopped(const std::string& at, const Status& cause, size_t kept) {
  std::string msg = "The sweep stopped at ";
  msg.append(at).append(": ");
  if (isOutOfMemory(cause))
    msg.append("it did not fit in the GPU's free memory (").append(cause.sentence()).append(").");
  else
    msg.append(cause.sentence());
  msg.append(kept == 0   ? " Nothing was measured before it."
             : kept == 1 ? " The point measured before it is kept."
                         : " The " + std::to_string(kept) + " points measured before it are kept.");
  return Status::error(msg);
}

}  // namespace cudalab
