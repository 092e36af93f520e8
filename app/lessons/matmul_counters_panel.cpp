#include "lessons/matmul_counters_panel.hpp"

#include <algorithm>

#include "common/format.hpp"
#include "lessons/counters_helper.hpp"
#include "ui/i18n.hpp"

namespace cudalab {

using namespace matmul;

namespace {

// The headers, helps and texts are marked N_(): the counters' panel translates them where it
// draws them (a data table's headers, beginPanel, button, helpTooltip, mutedText).
constexpr CounterColumn kColumns[] = {
    {"global_load_sectors_per_request", N_("sectors / load"), CounterFormat::Ratio},
    {"shared_load_wavefronts_per_request", N_("passes / shared load"), CounterFormat::Ratio},
    {"shared_load_bank_conflicts", N_("bank conflicts"), CounterFormat::Count,
     N_("Extra passes shared memory needed because lanes hit different words of one bank: loads "
        "and stores together."),
     "shared_store_bank_conflicts"},
    {"achieved_occupancy", N_("occupancy reached"), CounterFormat::Percent,
     N_("Warps resident on an SM on average against the most it holds; in brackets the occupancy "
        "the CUDA calculator promises for the step's registers, shared memory and block size.")},
    {"l1_hit_rate", N_("L1 hits"), CounterFormat::Percent},
    {"dram_bytes_read", N_("read from DRAM"), CounterFormat::Bytes},
    {"instructions", N_("warp instructions"), CounterFormat::Count},
};

constexpr CountersPanelSpec kSpec{
    "counters",
    N_("Measured by the GPU's counters"),
    N_("Read the counters"),
    N_("Runs every hand-written step once more under the profiler (CUPTI, the library Nsight "
       "Compute uses), with M, N and K up to 1024, and reads what the hardware counted. Profiling "
       "replays kernels: these runs are separate from the timed ones."),
    N_("No GPU: there are no counters to read; the tiling picture and the sector picture model "
       "what each step loads."),
    kColumns,
    N_("Sectors / load: 32-byte pieces one warp's global load touches. The course's kernel reads "
       "B's column with lanes a row apart (many sectors, or one shared by all lanes); swapping the "
       "thread mapping makes lanes read neighbours. The tiles then move the reading into shared "
       "memory: passes / shared load is 1 without bank conflicts, more where lanes of a warp hit "
       "one bank. Occupancy reached against the calculator's promise (in brackets): big register "
       "tiles hold fewer warps per SM and make up for it with more work per thread. L1 hits and "
       "the bytes read from DRAM show how much of the re-reading the caches absorb; the warp "
       "instructions shrink as each thread computes more outputs per load."),
    false,
    N_("the calculator")};

// How the counters' helper process measures this panel (lessons/counters_helper.hpp).
const bool kHelperJob = registerCountersJob<MatmulParams>(
    "matmul",
    [](const MatmulParams& p, const std::atomic<bool>* cancel, const CountersProgress& progress) {
      return measureCounters(p, allStepIds(), cancel, progress);
    });

}  // namespace

const CountersPanelSpec& matmulCountersSpec() {
  return kSpec;
}

bool MatmulCountersPanel::start(const MatmulParams& lesson) {
  MatmulParams p = lesson;
  const int M = std::min(p.M, kCountersExtent), N = std::min(p.N, kCountersExtent),
            K = std::min(p.K, kCountersExtent);
  return panel_.start(
      [p](CountersPanel::Job::Control& c) {
        return measureInHelper("matmul", p, c.cancelFlag(),
                               [&c](float f, const std::string& what) { c.progress(f, what); });
      },
      // In the language of the moment it starts (the panel shows it as given).
      trf("M x N x K = %d x %d x %d (at most 1024 each: every kernel runs once per profiler pass).",
          M, N, K));
}

void MatmulCountersPanel::draw(LessonContext& ctx, bool gpu, const MatmulParams& p) {
  panel_.draw(ctx, gpu, kSpec, [&] { start(p); });
}

}  // namespace cudalab
