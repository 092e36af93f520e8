// The playground lesson's result panels, drawn from what a run returned: the verdict and the
// first wrong elements, the output picture's legend, the exercise's own plot (counts per run,
// histogram bins, the element-wise function's errors), the times beside the built-in kernels and
// the library, the attempts so far, and the launch in numbers. Pure drawing: the lesson owns the
// state and the jobs (playground_lesson.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/lesson.hpp"
#include "playground/compile.hpp"
#include "playground/playground.hpp"

namespace cudalab::pg {

// One compile (and run) of the learner's kernel, for the attempts plot.
struct Attempt {
  int number = 0;
  bool compiled = false;
  bool ran = false;
  bool correct = false;
  double ms = 0;  // kernel median
};

// Verdict, summary and the first wrong elements (index, expected, got).
void drawVerdict(LessonContext& ctx, const playground::Exercise& e, const playground::RunParams& p,
                 const playground::RunReport& r);
// The colours of the output picture.
void drawPictureLegend(LessonContext& ctx, const playground::RunReport& r);
// Counter: the count of each run; histogram: every bin against cpu_histogram; element-wise: the
// relative error of float and double against x. Nothing for the other exercises.
void drawExercisePlot(LessonContext& ctx, const playground::Exercise& e,
                      const playground::RunParams& p, const playground::RunReport& r);
// Median time, GB/s or GFLOP/s, and the comparisons.
void drawTimes(LessonContext& ctx, const playground::Exercise& e, const playground::RunReport& r,
               bool sanitized);
// Time and correctness of every attempt.
void drawAttempts(LessonContext& ctx, const std::vector<Attempt>& attempts);
// Threads, idle threads, warps, blocks per SM (the model from the compiler's registers and shared
// memory, and the GPU's own answer once run), the largest block the kernel allows (once run),
// occupancy, waves.
void drawLaunchNumbers(LessonContext& ctx, const playground::LaunchNumbers& n, bool fromDevice,
                       int gpuBlocksPerSM, int kernelMaxThreads, const std::string& smName);
// The GPU's counters per line of the learner's kernel (RunParams::lineCounters): how often each
// line ran, with how many threads, sectors per global request and passes per shared request,
// with the lines that waste the most marked; and where PC sampling ran (RunParams::stalls), the
// line's share of the samples and what its warps waited for most; or why they could not be read.
// The rows are made once per run (lineRows), not every frame.
struct LineRow {
  std::string line, source, sourceTip;
  std::string instructions, threads, sectors, sectorsTip, passes;  // "": no such access
  bool idleThreads = false, spread = false, conflicts = false;     // marked as waste
  std::string stalls, waitingFor, stallsTip;                       // "": no sample on the line
  bool hot = false;  // a large share of the samples: marked
};
std::vector<LineRow> lineRows(const std::string& text, const playground::RunReport& r);
void drawLineCounters(LessonContext& ctx, const std::vector<LineRow>& rows,
                      const playground::RunReport& r);
// Registers, shared and local memory per kernel, as ptxas reported them, with what they mean.
void drawResources(LessonContext& ctx, const playground::CompileResult& c);

// "117,188, 1, 1": a grid or block as the panels write it.
std::string dimText(const playground::Dim3& d);
// Three number fields for a grid or block, each kept between 1 and `max` (validate() explains
// the real limits).
void dimInputs(const char* id, playground::Dim3& d, long long max);

}  // namespace cudalab::pg
