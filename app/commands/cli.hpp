// The command line, parsed into options without side effects so every bad input is testable.
//
//   cudalab [--lesson ID]                               open the window
//   cudalab --headless --screenshot F.png [...]         render without a window (EGL)
//   cudalab [--headless --out DIR] --plan PLAN          open a lesson plan; headless: render every
//                                                       step's figures and data into DIR
//   cudalab list                                        the lessons
//   cudalab device [--json]                             what the Device lesson shows
//   cudalab bench ID [--out DIR] [--quick]              a lesson's benchmark (GPU machine)
//   cudalab compile FILE [--exercise ID] [--arch sm_90] [--ptx] [--sass] [--compare KEY] [--json]
//                                                       compile a kernel as the playground does;
//                                                       its messages, resources, PTX and SASS
//   cudalab check FILE...|DIR --exercise ID [--sizes all] [--grid X,Y,Z --block X,Y,Z] [--json]
//                                                       grade kernels on the GPU, a summary table
//   cudalab soak --minutes M [--out DIR]                every lesson and action, again and again,
//                                                       headless; memory, files and frame time
//   cudalab worker                                      (the app starts it) runs the playground's
//                                                       kernels, requests on fd 3, replies on fd 4
//   cudalab counters-helper                             (the app starts it) reads the GPU's
//                                                       counters for a panel, then ends (requests
//                                                       on fd 3, replies on fd 4)
//
// parseCommandLine() never exits: it returns what to print and the exit code (2 for a bad
// argument, with one sentence for stderr).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudalab {

enum class Command {
  Window,
  Headless,
  List,
  Device,
  Bench,
  Soak,
  Worker,
  CountersHelper,
  Compile,
  Check
};

struct CliOptions {
  Command command = Command::Window;
  std::string lesson;      // empty: the last one used (window) or the first (headless)
  std::string screenshot;  // write a PNG after `frames` frames and exit
  std::string panel;       // with --screenshot: only this panel
  bool asSeen = false;     // with --panel: its buttons too, as the learner sees it
  std::string results;     // with --headless --screenshot: what the picture shows, as JSON
  std::string action;      // with --headless: start this lesson action (a run, a sweep) first
  int width = 1600, height = 900;  // logical size of the headless canvas
  int scale = 1;                   // pixel scale of the screenshot (2 = twice the pixels)
  int frames = 3;
  double waitSeconds = 60;  // how long a screenshot waits for a busy lesson
  std::optional<std::string> theme;
  std::optional<std::string> language;  // --language: en, ko, zh_CN, fr
  std::optional<float> uiScale;
  bool presentation = false;  // start in presentation mode (F5)
  bool transparent = false;
  bool json = false;               // device --json
  bool measure = false;            // device --measure
  bool idsOnly = false;            // list --ids
  std::string bench;               // bench ID
  std::string outDir = ".";        // bench --out
  bool quick = false;              // bench --quick: small sizes, for the sanitizers
  double soakMinutes = 10;         // soak --minutes
  unsigned soakSeed = 0;           // soak --seed (0: from the clock)
  std::string injectFault;         // hidden --inject-fault KIND: the first GPU job faults (tests)
  std::string restore;             // hidden --restore FILE: started again after a GPU fault
  std::string plan;                // --plan: a course plan (course-002) or a plan file
  std::string preset;              // --preset: the starting lesson's preset, by name or file
  std::string planOut;             // --out with --headless --plan: where the steps' files go
  std::string file;                // compile FILE
  std::string exercise;            // compile --exercise ID
  std::string arch;                // compile --arch sm_90
  bool ptx = false, sass = false;  // compile --ptx, --sass
  std::string compare;             // compile --compare KEY
  std::vector<std::string> checkPaths;  // check FILE... | DIR
  bool allSizes = false;                // check --sizes all
  std::string grid, block;              // check --grid, --block
  bool lines = false;                   // check --lines
  bool stalls = false;                  // check --stalls
};

struct CliParse {
  int exitCode = -1;   // -1: run with `options`; otherwise exit with this code
  std::string output;  // for stdout (help)
  std::string error;   // one sentence for stderr
  CliOptions options;
};

CliParse parseCommandLine(int argc, const char* const* argv);

}  // namespace cudalab
