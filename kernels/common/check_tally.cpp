#include "common/check_tally.hpp"

#include <mutex>

namespace cudalab {

namespace {
std::mutex gMutex;
CheckTally gTally;  // guarded by gMutex
}  // namespace

void noteCheck(bool ok, const char* where) {
  std::lock_guard<std::mutex> lock(gMutex);
  if (ok) {
    ++gTally.passed;
    return;
  }
  if (gTally.failed++ == 0) gTally.firstFailure = where;
}

CheckTally checkTally() {
  std::lock_guard<std::mutex> lock(gMutex);
  return gTally;
}

}  // namespace cudalab
