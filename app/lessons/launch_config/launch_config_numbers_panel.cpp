#include "lessons/launch_config/launch_config_numbers_panel.hpp"

#include <imgui.h>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace launch_config;

void drawLaunchNumbersPanel(LessonContext& ctx, const LaunchConfig& c,
                            const Result<LaunchShape>& shape, const DeviceLimits& limits,
                            std::optional<int> blocksPerSM, bool blocksPerSMFromGpu) {
  if (!beginPanel(ctx, "numbers", "The launch in numbers")) {
    endPanel(ctx);
    return;
  }
  if (shape) {
    const LaunchShape& s = *shape;
    // Two label-value pairs a row, or one where the panel is narrow (a projector's scale): a
    // cell past the last column starts the next row.
    const bool twoPairs = ImGui::GetContentRegionAvail().x > 36 * ImGui::GetFontSize();
    if (ImGui::BeginTable("nums", twoPairs ? 4 : 2, ImGuiTableFlags_SizingStretchSame)) {
      auto cell = [](const char* label, const std::string& value, const char* help) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(label));
        helpTooltip(help);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(value.c_str());
      };
      ImGui::TableNextRow();
      cell(N_("Grid"),
           s.gridY > 1
               ? trf("%s x %s blocks", thousands(s.gridX).c_str(), thousands(s.gridY).c_str())
               : trf("%s blocks", thousands(s.gridX).c_str()),
           N_("Blocks per grid (x, and y for a 2D grid)."));
      cell(N_("Block"),
           s.blockY > 1 ? trf("%d x %d threads", s.blockX, s.blockY) : trf("%d threads", s.blockX),
           N_("Threads per block (x, and y for 2D blocks)."));
      ImGui::TableNextRow();
      cell(N_("Total threads"), thousands(s.totalThreads), N_("Blocks times threads per block."));
      cell(N_("Idle threads"), thousands(s.idleThreads),
           N_("Threads that find no element to work on (past the end, guarded)."));
      ImGui::TableNextRow();
      cell(N_("Warps"),
           s.partialWarps ? trf("%s (%s partly empty)", thousands(s.warps).c_str(),
                                thousands(s.partialWarps).c_str())
                          : thousands(s.warps),
           N_("Groups of 32 threads the SM schedules together. A block that is not a multiple "
              "of 32 ends with a partly empty warp whose lanes are wasted."));
      cell(N_("Elements never written"), thousands(s.unwrittenElements),
           N_("Elements no thread reached: the grid is too small and there is no grid-stride "
              "loop."));
      ImGui::TableNextRow();
      cell(N_("Writes past the end"), thousands(s.canaryWrites),
           N_("Writes by unguarded threads beyond the array; here they land in a canary zone we "
              "allocated, in a real program they corrupt other data or crash."));
      cell(N_("Elements written twice"), thousands(s.extraWrites),
           N_("Unguarded 2D threads past the row's end write into the next row."));
      if (blocksPerSM) {
        const OccupancyNumbers o = occupancyNumbers(s, limits, *blocksPerSM);
        ImGui::TableNextRow();
        cell(N_("Blocks per SM that fit"),
             blocksPerSMFromGpu ? trf("%d (CUDA occupancy API)", o.blocksPerSM)
                                : trf("%d (model)", o.blocksPerSM),
             N_("cudaOccupancyMaxActiveBlocksPerMultiprocessor: how many blocks of this kernel "
                "one SM holds at once, limited by threads, blocks, registers and shared "
                "memory."));
        cell(N_("Waves"),
             trf("%s (last %.0f%% full)", thousands(o.waves).c_str(), o.tailFraction * 100.0),
             N_("How many rounds of resident blocks the grid needs: blocks / (blocks per SM x "
                "SMs)."));
        ImGui::EndTable();
        ImGui::Spacing();
        textWrapped("%s", trPhrases(conclusion(c, s, o, limits)).c_str());
      } else {
        ImGui::EndTable();
      }
    }
    // The GPU's name as the driver gives it; the model's name is in the catalogue.
    mutedText(ctx.theme,
              trf("Limits: %s, %d SMs.", tr(limits.name.c_str()), limits.smCount).c_str());
  } else {
    textWrapped("%s", shape.status().message().c_str());
  }
  endPanel(ctx);
}

}  // namespace cudalab
