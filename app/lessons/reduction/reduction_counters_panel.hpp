// The reduction lesson's "measured by the GPU's counters" panel: every step's first kernel run
// under the profiler (CUPTI, in the counters' helper process), for what the tree picture models:
// divergence (active threads per warp instruction) and bank conflicts, with the occupancy reached.
// spec() is also the benchmark's table.
#pragma once

#include "reduction/reduction.hpp"
#include "ui/counters_panel.hpp"

namespace cudalab {

HelperCountersPanel<reduction::ReduceParams> makeReductionCountersPanel();

}  // namespace cudalab
