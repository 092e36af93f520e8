#include "lessons/transpose_counters_panel.hpp"

#include "common/format.hpp"
#include "lessons/counters_helper.hpp"
#include "ui/i18n.hpp"

namespace cudalab {

using namespace mem;

namespace {

// Headers, help and the panel's texts are marked N_(): the counters panel translates them where
// it shows them (the benchmark's Markdown keeps the English).
constexpr CounterColumn kColumns[] = {
    {"global_load_sectors_per_request", N_("sectors / load"), CounterFormat::Ratio},
    {"global_store_sectors_per_request", N_("sectors / store"), CounterFormat::Ratio},
    {"shared_load_wavefronts_per_request", N_("passes / shared load"), CounterFormat::Ratio},
    {"shared_load_bank_conflicts", N_("bank conflicts"), CounterFormat::Count,
     N_("Extra passes shared memory needed because lanes hit different words of one bank: loads "
        "and stores together, as the L1 counts them."),
     "shared_store_bank_conflicts"},
    {"achieved_occupancy", N_("occupancy reached"), CounterFormat::Percent},
};

constexpr CountersPanelSpec kSpec{
    "transpose-counters",
    N_("The transpose ladder, measured by the GPU's counters"),
    N_("Read the ladder's counters"),
    N_("Runs every step's kernel once more under the profiler (CUPTI, the library Nsight Compute "
       "uses) at the size the model counts, and puts what the hardware counted beside the model's "
       "numbers (in brackets). Profiling replays kernels: these runs are separate from the timed "
       "ones."),
    N_("No GPU: there are no counters to read; the model's sectors and wavefronts are in the "
       "ladder's table."),
    kColumns,
    N_("The naive transpose reads rows (4 sectors per request: coalesced) and writes columns (32 "
       "sectors: every lane its own); the tiled steps turn the column into a row of a shared tile, "
       "so both sides move 4 sectors, but the tile's column read hits one bank 32 times (32 "
       "passes); one float of padding spreads it over all 32 banks (1 pass). In brackets: the "
       "model's per-request numbers. Agree: the model's total sectors and passes equal the GPU's "
       "(per request the GPU also counts requests of warps with every lane off at the matrix's "
       "edge; they move nothing)."),
    true};

// How the counters' helper process measures this panel (lessons/counters_helper.hpp).
const bool kHelperJob = registerCountersJob<TransposeParams>(
    "transpose",
    [](const TransposeParams& p, const std::atomic<bool>* cancel,
       const CountersProgress& progress) { return measureTransposeCounters(p, cancel, progress); });

}  // namespace

const CountersPanelSpec& transposeCountersSpec() {
  return kSpec;
}

bool TransposeCountersPanel::start(const TransposeParams& p) {
  return panel_.start(
      [p](CountersPanel::Job::Control& c) {
        return measureInHelper("transpose", p, c.cancelFlag(),
                               [&c](float f, const std::string& what) { c.progress(f, what); });
      },
      trf("A %s x %s matrix: the size the model counts, with your matrix's edges (its size "
          "modulo 32).",
          thousands(modelExtent(p.rows)).c_str(), thousands(modelExtent(p.cols)).c_str()));
}

void TransposeCountersPanel::draw(LessonContext& ctx, bool gpu, const TransposeParams& p) {
  panel_.draw(ctx, gpu, kSpec, [&] { start(p); });
}

}  // namespace cudalab
