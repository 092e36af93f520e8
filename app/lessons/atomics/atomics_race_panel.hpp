// The atomics lesson's counter panels, drawn from the data they are given: the race lab (every
// variant's final counts over the runs, the atomics it sends, a plot of each run's count), how an
// update is lost (two warps told step by step, a model: no GPU needed) and contention (time against
// threads on one counter and against the number of counters). The lesson owns the parameters and
// the jobs (atomics_lesson.cpp) and calls one function per panel from drawMain.
#pragma once

#include <vector>

#include "atomics/atomics.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// The contention job's result: both sweeps, measured one after the other.
struct AtomicsContentionView {
  std::vector<atomics::ContentionPoint> threads, addresses;
};

// `result`: the last race run (nullptr: none yet; the table then shows the atomics of `chosen`,
// the slider's launch). `running`: the race job is running; `gpu`: there is a device to run it.
void drawAtomicsRacePanel(LessonContext& ctx, const atomics::RaceReport* result,
                          const atomics::RaceParams& chosen, bool running, bool gpu);
// `interleaved` is the panel's checkbox (warp B reads before warp A writes), kept by the lesson.
void drawAtomicsStoryPanel(LessonContext& ctx, bool& interleaved);
// `contention`: the last sweeps (nullptr: none yet); `running` and `gpu` choose what is said then.
void drawAtomicsContentionPanel(LessonContext& ctx, const AtomicsContentionView* contention,
                                bool running, bool gpu);

}  // namespace cudalab
