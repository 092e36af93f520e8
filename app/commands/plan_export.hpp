// A lesson plan rendered without a window, for a teacher's slides: `cudalab --headless --plan
// PLAN --out DIR` goes through every step as a class would (the step's lesson and parameters, its
// action pressed and waited for) and writes into DIR, per step NN:
//
//   NN-<lesson>.png                 the window at the step, the plan's bar over the lesson
//   NN-<lesson>-<panel>.png         the step's panel alone (the slide's figure)
//   NN-<lesson>-<plot>.svg          each plot in that panel, as SVG
//   NN-<lesson>.json, -<table>.csv  what the lesson has measured (LessonResults)
//
// and plan.md (the steps in order: title, question, teacher's note, the files, what could not be
// done and why) and plan.json (the same for scripts). Steps whose action needs a GPU, on a machine
// without one, still get their pictures of the models, and plan.md says so.
#pragma once

#include <string>

namespace cudalab {

class Shell;
class UiRenderer;

struct PlanExportOptions {
  std::string plan;    // a course plan's stem or a plan file
  std::string outDir;  // created if missing
  int width = 1600, height = 900;
  int pixelScale = 1;
  double waitSeconds = 60;  // for each step's work
  std::string machine;      // where it ran ("NVIDIA H100 80GB HBM3", "no GPU: ...") for plan.md
};

// The exit code: 0 when every step's pictures were written (steps that could not run their action
// here are noted, not failures), 1 when a picture or file could not be written, 2 for a plan that
// cannot be opened.
int runPlanExport(Shell& shell, UiRenderer& renderer, const PlanExportOptions& o);

}  // namespace cudalab
