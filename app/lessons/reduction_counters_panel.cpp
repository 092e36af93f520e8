#include "lessons/reduction_counters_panel.hpp"

#include <imgui.h>

#include <algorithm>

#include "common/format.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace reduction;

namespace {
// Profiling replays every kernel once per pass: a few million numbers say as much as 2^27.
constexpr long long kCountersN = 1LL << 22;

// "32.9 M", "23.1 k", "163": counts short enough for a projector's columns.
std::string shortCount(double v) {
  if (v >= 1e6) return trimmedFixed(v / 1e6, 1) + " M";
  if (v >= 1e4) return trimmedFixed(v / 1e3, 1) + " k";
  return thousands(std::llround(v));
}
}  // namespace

bool ReductionCountersPanel::start(const ReduceParams& lesson) {
  error_ = {};
  ReduceParams p = lesson;
  p.n = std::min(p.n, kCountersN);
  return job_.start([p](AsyncJob<Reading>::Control& c) -> Result<Reading> {
    Result<std::vector<StepCounters>> r =
        measureCounters(p, allStepIds(), c.cancelFlag(),
                        [&c](float f, const std::string& what) { c.progress(f, what); });
    if (!r) return r.status();
    return Reading{p, std::move(*r)};
  });
}

void ReductionCountersPanel::draw(LessonContext& ctx, bool gpu, const ReduceParams& p) {
  if (const Status s = job_.takeInto(last_); !s) error_ = s;
  if (!beginPanel(ctx, "counters", "Measured by the GPU's counters", kPanelCollapsible))
    return endPanel(ctx);
  ImGui::BeginDisabled(!gpu || job_.running());
  if (!ctx.exporting && ImGui::Button("Read the counters")) start(p);
  ImGui::EndDisabled();
  helpTooltip(
      "Runs every step once more under the profiler (CUPTI, the library Nsight Compute uses) on "
      "up to 4 million numbers and reads what the hardware counted in each step's first kernel, "
      "the pass over all the numbers. Profiling replays kernels: these runs are separate from "
      "the timed ones.");
  if (!gpu) {
    mutedText(ctx.theme,
              "No GPU: there are no counters to read; the tree picture below models them.");
    return endPanel(ctx);
  }
  if (job_.running()) ImGui::ProgressBar(job_.progress().fraction, ImVec2(-1, 0), "profiling");
  if (!error_.ok()) {
    errorText(ctx.theme, error_);
    return endPanel(ctx);
  }
  if (last_ && ImGui::BeginTable("##counters", 5,
                                 ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    for (const char* h :
         {"step", "warp instructions", "divergent branches", "bank conflicts", "occupancy reached"})
      ImGui::TableSetupColumn(h, 0, std::string(h) == "step" ? 2.0f : 1.0f);
    ImGui::TableHeadersRow();
    for (const StepCounters& s : last_->steps) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      colourSwatch(stepInfo(s.step).colour);
      ImGui::TextUnformatted(stepInfo(s.step).label);
      helpTooltip(("The first of the step's " + std::to_string(s.launches) +
                   " kernel launches: its pass over all the numbers.")
                      .c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(shortCount(s.instructions).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(shortCount(s.divergentBranches).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(shortCount(s.sharedLoadConflicts + s.sharedStoreConflicts).c_str());
      helpTooltip(("Loads " + thousands(std::llround(s.sharedLoadConflicts)) + ", stores " +
                   thousands(std::llround(s.sharedStoreConflicts)) + ", in " +
                   thousands(std::llround(s.sharedLoads)) + " shared-load instructions.")
                      .c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted((trimmedFixed(s.achievedOccupancy, 0) + "%").c_str());
    }
    ImGui::EndTable();
    mutedText(
        ctx.theme,
        (thousands(last_->p.n) + " " + typeLabel(last_->p.type) + " numbers, " +
         std::to_string(last_->p.block) +
         " threads per block, the first kernel of each step. Warp instructions: what the warps "
         "executed; step 1's tid % (2s) keeps every warp running every level of the tree with "
         "most of its threads idle (divergence), so it executes more than step 3, whose idle "
         "threads fill whole warps that skip the level. Divergent branches: the compiler "
         "turns a short if into instructions the idle threads just do not apply "
         "(predication), so the tree steps show none; the course's kernel, with a real "
         "branch, does. Bank conflicts: extra passes shared memory needed because lanes hit "
         "different words of one bank; step 2's strided index makes far more than step 3's "
         "sequential addressing (the counter also sees a few from other L1 traffic). "
         "Occupancy reached: warps resident on an SM against the most it can hold.")
            .c_str());
  }
  endPanel(ctx);
}

}  // namespace cudalab
