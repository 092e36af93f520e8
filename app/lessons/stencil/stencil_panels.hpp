// The stencil lesson's lower panels. The blur's ladder: each blur kernel's time against the
// radius beside a device copy of the frame, every point checked against the CPU, in sentences
// that say which wins and why. One block's tile and halo: a 3 x 3 neighbourhood of tiles with
// each input pixel coloured by how many blocks load it, and the loads per output pixel of the
// naive, tiled and separable blurs against the radius.
//
//   drawStencilSweepPanel(ctx, report_, measureJob_.running(), gpu_, stale);
//   tile_.draw(ctx, pipe_, validate(pipe_, width, height, sharedLimit));
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "core/lesson.hpp"
#include "stencil/stencil.hpp"

namespace cudalab {

// "0.0123 ms", "1.23 ms", "12.3 ms": the lesson's times, with the digits that matter.
std::string stencilMsText(double ms);

// The ladder's measurement (nothing until measured; `measuring` and `gpu` choose what to say);
// `stale`: measured with another frame size or tile than the controls show now (said so).
void drawStencilSweepPanel(LessonContext& ctx, const std::optional<stencil::KernelReport>& report,
                           bool measuring, bool gpu, bool stale);

class StencilTilePanel {
 public:
  // `refusal` is the pipeline's validate() against this GPU's shared memory (48 KiB without one).
  void draw(LessonContext& ctx, const stencil::Pipeline& pipe, const Status& refusal);

 private:
  std::vector<int> loads_;  // the picture's counts, for for_ (tile, radius)
  std::pair<int, int> for_{0, 0};
};

}  // namespace cudalab
