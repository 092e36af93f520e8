// The atomics lesson's histogram panels, drawn from the data they are given: the ladder (every
// step's time, GB/s against the copy ceiling and CUB, atomics per value, checked bin by bin against
// the CPU; the atomics modelled for an H100's grid before any measurement), the histogram itself
// (the CPU's bins) and time against skew (every GPU step as more values fall in one bin). The
// lesson owns the parameters and the jobs (atomics_lesson.cpp) and calls one function per panel
// from drawMain.
#pragma once

#include <vector>

#include "atomics/atomics.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// The skew job's result: the parameters it ran with (uniform bytes) and every step's points.
struct AtomicsSkewView {
  atomics::HistParams p;
  std::vector<atomics::SkewPoint> points;
};

// `result`: the last ladder or CPU-only run (nullptr: none yet; the atomics per value are then
// those of `chosen`, the sliders' histogram). `running`: the ladder job is running; `gpu`: there
// is a device to run it.
void drawAtomicsLadderPanel(LessonContext& ctx, const atomics::HistReport* result,
                            const atomics::HistParams& chosen, bool running, bool gpu);
// Nothing is drawn before the first result (the panel appears with it).
void drawAtomicsHistogramPanel(LessonContext& ctx, const atomics::HistReport* result);
// `skew`: the last sweep (nullptr: none yet); `running` and `gpu` choose what is said then.
void drawAtomicsSkewPanel(LessonContext& ctx, const AtomicsSkewView* skew, bool running, bool gpu);

}  // namespace cudalab
