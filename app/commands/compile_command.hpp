// `cudalab compile FILE [--exercise ID] [--arch sm_90] [--ptx] [--sass] [--json]`: what the
// playground's compile shows, as text or JSON, for a teacher's scripts and a learner's terminal.
// The file is compiled with NVRTC as the playground compiles it (with an exercise: as that
// exercise's program, its entry points checked; without: as it is), with cudalab's own checks;
// --ptx and --sass print the listings, each instruction with the line of FILE it came from;
// --compare KEY compiles it again with one thing changed (playground/compare.hpp: fast-math,
// restrict, unroll, double) and prints the registers of both and the SASS diff (' ' both, '-' only
// yours, '+' only the other's).
//
// Exit codes: 0 the file compiled, 1 it did not (the errors say why), 2 bad input (a missing
// file, a file that is not text, an unknown exercise or architecture), with one sentence.
#pragma once

#include <string>

namespace cudalab {

struct CompileCommand {
  std::string file{};
  std::string exercise{};  // empty: the file as it is
  std::string arch{};      // "sm_90", "90"; empty: this GPU's, or sm_90 without one
  bool ptx = false, sass = false, json = false;
  std::string compare{};  // a variant's key; empty: no comparison
};

struct CommandResult {
  int exitCode = 0;
  std::string out;  // for stdout
  std::string err;  // for stderr
};

CommandResult runCompileCommand(const CompileCommand& c);

}  // namespace cudalab
