// `cudalab check FILE... | DIR --exercise ID [--sizes all] [--grid X,Y,Z --block X,Y,Z] [--json]
// [--lines] [--stalls]`:
// a teacher's grading tool. Each file (a folder: its .cu files) is compiled as the exercise's
// program, run in the playground's worker process on the GPU, and checked against the CPU's
// reference, at the exercise's size or, with --sizes all, at every size the playground's "Check at
// every size" runs (kernels/playground/grading.hpp); a summary table (or JSON) follows. A kernel
// that faults or never ends is that file's verdict, and the next file gets a fresh worker.
//
// Exit codes: 0 every file is correct, 1 any is not, 2 bad input (a missing file, a file that is
// not text, a folder without .cu files, an unknown exercise, a grid or block out of range, no
// GPU), with one sentence.
#pragma once

#include <string>
#include <vector>

#include "commands/compile_command.hpp"

namespace cudalab {

struct CheckCommand {
  std::vector<std::string> paths{};
  std::string exercise{};
  bool allSizes = false;
  std::string grid{}, block{};  // "X,Y,Z" (Y and Z may be left out); empty: the exercise's
  bool json = false;
  std::string executable{};  // the cudalab binary the worker runs; empty: this one
  // With json, at the exercise's size only: the counters of each source line and each machine
  // instruction (CUPTI's SASS metrics in the worker), for tools/ncu_counters_check.py --playground.
  bool lines = false;
  // With json, at the exercise's size only: CUPTI's PC sampling of the kernel, the samples per
  // instruction and stall reason (counters/pc_sampling.hpp).
  bool stalls = false;
};

CommandResult runCheckCommand(const CheckCommand& c);

}  // namespace cudalab
