// The precision lesson's "Summing N random normal numbers" panel: the sum five ways against the
// exact (double-double) sum, with each method's error bound, and the error's growth with N.
#pragma once

#include <vector>

#include "core/lesson.hpp"
#include "precision/summation.hpp"

namespace cudalab {

// What the sum job hands the panel: the sums at N, and at the growing sizes up to N.
struct PrecisionSumReport {
  precision::SumResults at;
  std::vector<precision::SumResults> growth;
  precision::TreeShape shape;
};

// `sums`: nullptr until the job has summed; `summing`: the job is running; `n`: the N the slider
// shows now (results of another are said to be from before the change).
void drawPrecisionSummation(LessonContext& ctx, const PrecisionSumReport* sums, bool summing,
                            size_t n);

}  // namespace cudalab
