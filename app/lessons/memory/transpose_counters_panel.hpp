// The memory lesson's transpose ladder under the GPU's counters: every step's kernel profiled once
// (CUPTI, in the counters' helper process) at the size the access model counts, its sectors and
// wavefronts per request beside the model's, the totals compared. spec() is also the benchmark's
// table.
#pragma once

#include "memory/memory.hpp"
#include "ui/counters_panel.hpp"

namespace cudalab {

HelperCountersPanel<memory::TransposeParams> makeTransposeCountersPanel();

}  // namespace cudalab
