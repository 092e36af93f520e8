// The tensor-cores lesson's precision panel: how far a dot product of K terms strays when its
// inputs are rounded to BF16, FP16, TF32 or FP8 E4M3 and its sum kept in float32 (or in FP16), as
// K grows, beside float32 with FMAs. Computed on the CPU, the formats emulated bit for bit
// (kernels/tensor_cores: productErrors), on a worker thread when the lesson first shows.
#pragma once

#include <vector>

#include "common/async_job.hpp"
#include "core/kept_job.hpp"
#include "core/lesson.hpp"
#include "tensor_cores/tensor_cores.hpp"

namespace cudalab {

class TensorCoresPrecisionPanel {
 public:
  void start();  // the computation, once
  void draw(LessonContext& ctx);
  bool pending() const { return curves_.pending(); }
  void cancel() { curves_.cancel(); }

 private:
  KeptJob<std::vector<tensor_cores::MixedCurve>> curves_;
  bool started_ = false;
};

}  // namespace cudalab
