#include "lessons/reduction_counters_panel.hpp"

#include <algorithm>

#include "common/format.hpp"
#include "lessons/counters_helper.hpp"
#include "ui/i18n.hpp"

namespace cudalab {

using namespace reduction;

namespace {

// Profiling replays every kernel once per pass: a few million numbers say as much as 2^27.
constexpr long long kCountersN = 1LL << 22;

constexpr CounterColumn kColumns[] = {
    {"instructions", N_("warp instructions"), CounterFormat::Count},
    {"warp_efficiency", N_("threads / instruction"), CounterFormat::Threads},
    {"divergent_branches", N_("divergent branches"), CounterFormat::Count},
    {"shared_load_bank_conflicts", N_("bank conflicts"), CounterFormat::Count,
     N_("Extra passes shared memory needed because lanes hit different words of one bank: loads "
        "and stores together."),
     "shared_store_bank_conflicts"},
    {"achieved_occupancy", N_("occupancy reached"), CounterFormat::Percent},
};

constexpr CountersPanelSpec kSpec{
    "counters",
    N_("Measured by the GPU's counters"),
    N_("Read the counters"),
    N_("Runs every step once more under the profiler (CUPTI, the library Nsight Compute uses) on "
       "up to 4 million numbers and reads what the hardware counted in each step's first kernel, "
       "the pass over all the numbers. Profiling replays kernels: these runs are separate from "
       "the timed ones."),
    N_("No GPU: there are no counters to read; the tree picture below models them."),
    kColumns,
    N_("Warp instructions: what the warps executed; step 1's tid % (2s) keeps every warp running "
       "every level of the tree with most of its threads idle (divergence), so it executes more "
       "than step 3, whose idle threads fill whole warps that skip the level. Threads per "
       "instruction: how many of a warp's 32 threads did work. Divergent branches: the compiler "
       "turns a short if into instructions the idle threads just do not apply (predication), so "
       "the tree steps show none; the course's kernel, with a real branch, does. Bank conflicts: "
       "extra passes shared memory needed because lanes hit different words of one bank; step 2's "
       "strided index makes far more than step 3's sequential addressing (the counter also sees a "
       "few from other L1 traffic). Occupancy reached: warps resident on an SM against the most it "
       "can hold.")};

// How the counters' helper process measures this panel (lessons/counters_helper.hpp).
const bool kHelperJob = registerCountersJob<ReduceParams>(
    "reduction",
    [](const ReduceParams& p, const std::atomic<bool>* cancel, const CountersProgress& progress) {
      return measureCounters(p, allStepIds(), cancel, progress);
    });

}  // namespace

const CountersPanelSpec& reductionCountersSpec() {
  return kSpec;
}

bool ReductionCountersPanel::start(const ReduceParams& lesson) {
  ReduceParams p = lesson;
  p.n = std::min(p.n, kCountersN);
  return panel_.start(
      [p](CountersPanel::Job::Control& c) {
        return measureInHelper("reduction", p, c.cancelFlag(),
                               [&c](float f, const std::string& what) { c.progress(f, what); });
      },
      trf("%s %s numbers, %d threads per block; each step's first kernel.", thousands(p.n).c_str(),
          typeLabel(p.type), p.block));
}

void ReductionCountersPanel::draw(LessonContext& ctx, bool gpu, const ReduceParams& p) {
  panel_.draw(ctx, gpu, kSpec, [&] { start(p); });
}

}  // namespace cudalab
