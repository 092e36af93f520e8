// The precision lesson's views of what a format stores, drawn from results already computed (no
// GPU here): the results at the chosen x with their ULP errors and their bits, and the float
// explorer (a typed number in the four formats, its neighbours, spacing and bits).
#pragma once

#include <string>

#include "core/lesson.hpp"
#include "precision/precision.hpp"

namespace cudalab {

// Text the precision lesson's panels share: "1e-08", "NaN", "-inf" (%g with `digits` significant
// digits).
std::string precisionSci(double v, int digits = 3);

// The "At x = ...: values, errors and bits" panel for `expr`: `atX` is the evaluation at one x
// (nullptr while it is first computed); `x` is the slider's x, titled until `atX` arrives.
void drawPrecisionValues(LessonContext& ctx, precision::Expr expr, const precision::Evaluation* atX,
                         double x);

// The float explorer: keeps the typed number between frames.
class PrecisionExplorerPanel {
 public:
  void draw(LessonContext& ctx);

 private:
  char text_[64] = "0.1";
};

}  // namespace cudalab
