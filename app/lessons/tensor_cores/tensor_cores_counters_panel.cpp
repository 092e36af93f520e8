#include "lessons/tensor_cores/tensor_cores_counters_panel.hpp"

#include <algorithm>

#include "core/counters_helper.hpp"
#include "core/i18n.hpp"

namespace cudalab {

using namespace tensor_cores;

namespace {

// The headers, helps and texts are marked N_(): the counters' panel translates them where it
// draws them.
constexpr PanelColumn kColumns[] = {
    {"tensor_pipe_active"},
    {"tensor_instructions",
     N_("Warp instructions the tensor cores executed; in brackets the count the tile arithmetic "
        "predicts: one HMMA per 16 x 8 x 16 piece for each warp (WMMA and mma.sync), one HGMMA "
        "per 64 x N x 16 in each of a warpgroup's four warps (wgmma).")},
    {"shared_load_bank_conflicts",
     N_("Extra passes shared-memory loads (ldmatrix among them) and stores needed because lanes "
        "hit different words of one bank. Step 3 against step 4 is the swizzle's whole point.")},
    {"shared_bank_conflicts"},
    {"dram_bytes_read",
     N_("Bytes read from the GPU's memory; in brackets the least any product reads, A and B "
        "once. The L2 cache serves the rest of the tiles' re-reading.")}};

constexpr CountersPanelSpec kSpec{
    .noGpu = N_("No GPU: there are no counters to read; the bank picture counts the conflicts of "
                "steps 3 and 4 from their layouts, and the pipeline picture models the stages."),
    .columns = kColumns,
    .note = N_(
        "Tensor cores busy: the share of the SMs' active cycles in which the tensor pipe worked; "
        "each step of the ladder keeps it fed better. Tensor instructions: WMMA and mma.sync "
        "issue one small HMMA per 16 x 8 x 16 piece for each warp, wgmma one large HGMMA in each "
        "warp of a warpgroup: sixteen to thirty-two times fewer for the same product. Bank "
        "conflicts: step 3's ldmatrix reads meet them, step 4's swizzle removes them, and the "
        "Hopper steps' TMA writes the swizzled layout the tensor cores read. Read from DRAM "
        "against A and B once: what the L2 cache absorbs of the tiles' re-reading. In brackets, "
        "what the sizes alone predict."),
    .modelLabel = N_("counted from the sizes")};

// How the counters' helper process measures this panel (core/counters_helper.hpp).
const bool kHelperJob =
    registerLadderCountersJob<TensorParams>("tensor-cores", &measureCounters, allStepIds());

}  // namespace

HelperCountersPanel<TensorParams> makeTensorCoresCountersPanel() {
  // The note says what was measured: measureCounters caps the sizes.
  return {"tensor-cores", kSpec, [](const TensorParams& p) {
            return cappedSizesNote(p, kCountersExtent, formatLabel(p.format));
          }};
}

}  // namespace cudalab
