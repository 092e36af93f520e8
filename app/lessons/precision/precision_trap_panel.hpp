// The precision lesson's literal trap: (x + 1.0f) - 1.0f against (x + 1.0) - 1.0 at the chosen x
// and across the sweep, with the evidence from the PTX nvcc generated (the trap kernels and the
// formula kernels' fused multiply-adds). Call draw every frame with the sweep's results; the PTX
// is read once, on the first draw.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/lesson.hpp"
#include "precision/precision.hpp"

namespace cudalab {

// Relative errors are drawn between these: 0 (exact) at the floor, overflow, NaN and errors of
// 10 or more at the ceiling.
constexpr double kPrecisionErrFloor = 1e-18;
constexpr double kPrecisionErrCeil = 10.0;

// What the job hands the panel: the evaluation and the literal trap, plus the relative errors
// already clamped for the log plots (computed on the worker, not every frame).
struct PrecisionSweepReport {
  precision::Evaluation ev;
  precision::TrapResult trap;
  std::vector<double> plotErr;  // indexed like ev.value
  std::vector<double> trapErrFloat, trapErrDouble;
};

class PrecisionTrapPanel {
 public:
  // `sweep`: every x of the sweep; `atX`: the chosen x alone (either nullptr until evaluated).
  // `gpu` and `device` say where they were computed.
  void draw(LessonContext& ctx, const PrecisionSweepReport* sweep, const PrecisionSweepReport* atX,
            bool gpu, const std::string& device);

 private:
  void drawPtxEvidence(LessonContext& ctx);

  bool ptxLoaded_ = false;
  precision::PtxKernel ptxFloat_, ptxDouble_;
  std::array<precision::PtxKernel, precision::kPrecisionCount> ptxEval_;
};

}  // namespace cudalab
