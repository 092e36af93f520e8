// Every comparison of a GPU result with its CPU reference, counted for the whole process.
//
// The runner (measure()) and the other places that check a result call noteCheck(); the soak
// (`cudalab soak`) reads checkTally() to say whether any result in any lesson failed its check,
// without knowing each lesson's report types.
//
//   noteCheck(c.ok(), "matmul ladder");
//   CheckTally t = checkTally();   // t.failed == 0: every checked result was right
#pragma once

#include <string>

namespace cudalab {

struct CheckTally {
  long long passed = 0;
  long long failed = 0;
  std::string firstFailure;  // where the first failed check happened
};

void noteCheck(bool ok, const char* where);
CheckTally checkTally();

}  // namespace cudalab
