#include "lessons/matmul/matmul_counters_panel.hpp"

#include <algorithm>

#include "common/format.hpp"
#include "core/counters_helper.hpp"
#include "core/i18n.hpp"

namespace cudalab {

using namespace matmul;

namespace {

// The headers, helps and texts are marked N_(): the counters' panel translates them where it
// draws them (a data table's headers, beginPanel, button, helpTooltip, mutedText).
constexpr PanelColumn kColumns[] = {
    {"global_load_sectors_per_request"},
    {"shared_load_wavefronts_per_request"},
    {"shared_load_bank_conflicts"},
    {"achieved_occupancy",
     N_("Warps resident on an SM on average against the most it holds; in brackets the occupancy "
        "the CUDA calculator promises for the step's registers, shared memory and block size.")},
    {"l1_hit_rate"},
    {"dram_bytes_read"},
    {"instructions"}};

constexpr CountersPanelSpec kSpec{
    .noGpu = N_("No GPU: there are no counters to read; the tiling picture and the sector picture "
                "model what each step loads."),
    .columns = kColumns,
    .note = N_(
        "Sectors / load: 32-byte pieces one warp's global load touches. The course's kernel reads "
        "B's column with lanes a row apart (many sectors, or one shared by all lanes); swapping "
        "the thread mapping makes lanes read neighbours. The tiles then move the reading into "
        "shared memory: passes / shared load is 1 without bank conflicts, more where lanes of a "
        "warp hit one bank. Occupancy reached against the calculator's promise (in brackets): big "
        "register tiles hold fewer warps per SM and make up for it with more work per thread. L1 "
        "hits and the bytes read from DRAM show how much of the re-reading the caches absorb; the "
        "warp instructions shrink as each thread computes more outputs per load."),
    .modelLabel = N_("the calculator")};

// How the counters' helper process measures this panel (core/counters_helper.hpp).
const bool kHelperJob =
    registerLadderCountersJob<MatmulParams>("matmul", &measureCounters, allStepIds());

}  // namespace

HelperCountersPanel<MatmulParams> makeMatmulCountersPanel() {
  // The note says what was measured: measureCounters caps the sizes.
  return {"matmul", kSpec,
          [](const MatmulParams& p) { return cappedSizesNote(p, kCountersExtent); }};
}

}  // namespace cudalab
