// The matmul lesson's "measured by the GPU's counters" panel: every hand-written step profiled
// once (CUPTI, in the counters' helper process) for what each rung of the ladder changes: sectors
// per load, shared-memory passes and bank conflicts, the occupancy reached beside the calculator's.
// spec() is also the benchmark's table.
#pragma once

#include "matmul/matmul.hpp"
#include "ui/counters_panel.hpp"

namespace cudalab {

HelperCountersPanel<matmul::MatmulParams> makeMatmulCountersPanel();

}  // namespace cudalab
