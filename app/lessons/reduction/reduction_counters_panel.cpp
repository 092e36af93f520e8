#include "lessons/reduction/reduction_counters_panel.hpp"

#include <algorithm>

#include "common/format.hpp"
#include "core/counters_helper.hpp"
#include "core/i18n.hpp"

namespace cudalab {

using namespace reduction;

namespace {

// Profiling replays every kernel once per pass: a few million numbers say as much as 2^27.
constexpr long long kCountersN = 1LL << 22;

constexpr PanelColumn kColumns[] = {{"instructions"},
                                    {"warp_efficiency"},
                                    {"divergent_branches"},
                                    {"shared_load_bank_conflicts"},
                                    {"achieved_occupancy"}};

constexpr CountersPanelSpec kSpec{
    .noGpu = N_("No GPU: there are no counters to read; the tree picture below models them."),
    .columns = kColumns,
    .note =
        N_("Warp instructions: what the warps executed; step 1's tid % (2s) keeps every warp "
           "running every level of the tree with most of its threads idle (divergence), so it "
           "executes more than step 3, whose idle threads fill whole warps that skip the level. "
           "Threads per instruction: how many of a warp's 32 threads did work. Divergent branches: "
           "the compiler turns a short if into instructions the idle threads just do not apply "
           "(predication), so the tree steps show none; the course's kernel, with a real branch, "
           "does. Bank conflicts: extra passes shared memory needed because lanes hit different "
           "words of one bank; step 2's strided index makes far more than step 3's sequential "
           "addressing (the counter also sees a few from other L1 traffic). Occupancy reached: "
           "warps resident on an SM against the most it can hold.")};

// How the counters' helper process measures this panel (core/counters_helper.hpp).
const bool kHelperJob = registerCountersJob<ReduceParams>(
    "reduction", [](const ReduceParams& lesson, const std::atomic<bool>* cancel,
                    const CountersProgress& progress) {
      ReduceParams p = lesson;
      p.n = std::min(p.n, kCountersN);
      return measureCounters(p, allStepIds(), cancel, progress);
    });

// What the table's note says was measured.
std::string measuredNumbers(const ReduceParams& p) {
  return trf("%s %s numbers, %d threads per block; each step's first kernel.",
             thousands(std::min(p.n, kCountersN)).c_str(), typeLabel(p.type), p.block);
}

}  // namespace

HelperCountersPanel<ReduceParams> makeReductionCountersPanel() {
  return {"reduction", kSpec, &measuredNumbers};
}

}  // namespace cudalab
