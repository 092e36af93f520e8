// The launch-config lesson's "The launch in numbers" panel, drawn from the data it is given: the
// grid and the block, the threads, the idle threads and the warps, the elements never written,
// written past the end or twice, and, once the picture's job has said how many blocks fit on an
// SM, the occupancy, the waves and the conclusion in sentences. The lesson owns the parameters
// and the jobs (launch_config_lesson.cpp) and calls it from drawMain.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launch_config/launch_config.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// `shape`: the launch's shape, or why it has none (said instead of the numbers). `blocksPerSM`:
// from the picture's job (nullopt: not yet), `blocksPerSMFromGpu` when the CUDA occupancy API
// gave it rather than the model.
void drawLaunchNumbersPanel(LessonContext& ctx, const launch_config::LaunchConfig& c,
                            const Result<launch_config::LaunchShape>& shape,
                            const launch_config::DeviceLimits& limits,
                            std::optional<int> blocksPerSM, bool blocksPerSMFromGpu);

}  // namespace cudalab
