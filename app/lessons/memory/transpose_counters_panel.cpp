#include "lessons/memory/transpose_counters_panel.hpp"

#include "common/format.hpp"
#include "core/counters_helper.hpp"
#include "core/i18n.hpp"

namespace cudalab {

using namespace memory;

using namespace mem;

namespace {

// Headers, help and the panel's texts are marked N_(): the counters panel translates them where
// it shows them (the benchmark's Markdown keeps the English).
constexpr PanelColumn kColumns[] = {
    {"global_load_sectors_per_request"},
    {"global_store_sectors_per_request"},
    {"shared_load_wavefronts_per_request"},
    {"shared_load_bank_conflicts",
     N_("Extra passes shared memory needed because lanes hit different words of one bank: loads "
        "and stores together, as the L1 counts them.")},
    {"achieved_occupancy"}};

constexpr CountersPanelSpec kSpec{
    .noGpu = N_("No GPU: there are no counters to read; the model's sectors and wavefronts are in "
                "the ladder's table."),
    .columns = kColumns,
    .note = N_("The naive transpose reads rows (4 sectors per request: coalesced) and writes "
               "columns (32 sectors: every lane its own); the tiled steps turn the column into a "
               "row of a shared tile, so both sides move 4 sectors, but the tile's column read "
               "hits one bank 32 times (32 passes); one float of padding spreads it over all 32 "
               "banks (1 pass). In brackets: the model's per-request numbers. Agree: the model's "
               "total sectors and passes equal the GPU's (per request the GPU also counts requests "
               "of warps with every lane off at the matrix's edge; they move nothing)."),
    .agreement = true,
    .id = "transpose-counters",
    .title = N_("The transpose ladder, measured by the GPU's counters")};

// How the counters' helper process measures this panel (core/counters_helper.hpp).
const bool kHelperJob = registerCountersJob<TransposeParams>(
    "transpose",
    [](const TransposeParams& p, const std::atomic<bool>* cancel,
       const CountersProgress& progress) { return measureTransposeCounters(p, cancel, progress); });

// What the table's note says was measured.
std::string measuredMatrix(const TransposeParams& p) {
  return trf(
      "A %s x %s matrix: the size the model counts, with your matrix's edges (its size "
      "modulo 32).",
      thousands(modelExtent(p.rows)).c_str(), thousands(modelExtent(p.cols)).c_str());
}

}  // namespace

HelperCountersPanel<TransposeParams> makeTransposeCountersPanel() {
  return {"transpose", kSpec, &measuredMatrix};
}

}  // namespace cudalab
