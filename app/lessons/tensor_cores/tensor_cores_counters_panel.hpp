// The tensor-cores lesson's "measured by the GPU's counters" panel: every hand-written step that
// runs here profiled once (CUPTI, in the counters' helper process) for what the ladder changes and
// the timings only hint at: how busy the tensor cores are, how many instructions feed them, the
// bank conflicts step 4's swizzle removes, and the bytes read from DRAM against the least a
// product must read. spec() is also the benchmark's table.
#pragma once

#include "tensor_cores/tensor_cores.hpp"
#include "ui/counters_panel.hpp"

namespace cudalab {

HelperCountersPanel<tensor_cores::TensorParams> makeTensorCoresCountersPanel();

}  // namespace cudalab
