#include "lessons/precision/precision_sums_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "lessons/precision/precision_values_panel.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace precision;

namespace {

// Absolute summation errors of 0 are drawn here.
constexpr double kSumFloor = 1e-14;

int sumColour(SumMethod m) {
  switch (m) {
    case SumMethod::Sequential:
      return 5;
    case SumMethod::GpuTree:
      return 0;
    case SumMethod::Pairwise:
      return 1;
    case SumMethod::Kahan:
      return 3;
    case SumMethod::Float64:
      return 2;
  }
  return 7;
}

void drawSumGrowth(LessonContext& ctx, const std::vector<SumResults>& g) {
  if (g.size() < 2) return;
  std::vector<double> ns, ys;
  if (plot::BeginPlot("precision_sum_growth", "Error against N", ImVec2(-1, 0))) {
    plot::SetupAxes({"N", plot::Scale::Log10}, {N_("|error|"), plot::Scale::Log10, kSumFloor, NAN});
    plot::SetupLegend(plot::Legend::Outside);
    for (const SumMethodInfo& m : sumMethods()) {
      ns.clear();
      ys.clear();
      for (const SumResults& r : g) {
        ns.push_back(static_cast<double>(r.n));
        ys.push_back(std::max(std::fabs(r.error[static_cast<size_t>(m.method)]), kSumFloor));
      }
      plot::SetNextColour(sumColour(m.method));
      plot::PlotLine(m.label, ns.data(), ys.data(), static_cast<int>(ns.size()));
    }
    plot::EndPlot();
  }
  mutedText(ctx.theme,
            "Sequential float32 error grows about like N (each addition rounds a large running "
            "sum); the tree and pairwise orders add numbers of similar size and grow slowly; "
            "Kahan's compensation and float64 stay near the last digit. Errors below 1e-14 "
            "(float64's) and errors of exactly 0 sit on the bottom edge.");
}

}  // namespace

// [SECTION] summation

void drawPrecisionSummation(LessonContext& ctx, const PrecisionSumReport* sums, bool summing,
                            size_t n) {
  if (beginPanel(ctx, "summation", "Summing N random normal numbers")) {
    if (!sums) {
      ImGui::TextUnformatted(summing ? tr("Summing...") : tr("Not summed yet."));
    } else {
      const SumResults& s = sums->at;
      textWrapped("N = %s, exact sum %s (double-double), sum of |x| %s",
                  thousands(static_cast<long long>(s.n)).c_str(),
                  precisionSci(static_cast<double>(s.exact), 12).c_str(),
                  precisionSci(s.absSum, 6).c_str());
      staleNote(ctx.theme, s.n != n, "Sum N numbers");
      // The method and its error carry the lesson; the sum's digits, then the bound's formula,
      // give way first on a projector.
      static const TableColumn kSums[] = {
          {"Method"},
          {"Sum", nullptr, 1},
          {"Error", nullptr, 0, "The sum minus the exact (double-double) sum."},
          {"Error bound", nullptr, 2, "How large the error of this method can grow."},
      };
      // The GPU tree's row has a second line.
      if (beginDataTable("sums", kSums, static_cast<int>(sumMethods().size()) + 1)) {
        for (const SumMethodInfo& m : sumMethods()) {
          const size_t k = static_cast<size_t>(m.method);
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::PushStyleColor(ImGuiCol_Text, paletteColour(sumColour(m.method)));
          ImGui::TextUnformatted(tr(m.label));
          ImGui::PopStyleColor();
          helpTooltip(m.help);
          if (m.method == SumMethod::GpuTree)
            ImGui::TextUnformatted(s.treeOnGpu ? tr("(on the GPU)") : tr("(CPU, same order)"));
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(
              precisionSci(s.value[k], m.method == SumMethod::Float64 ? 16 : 9).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(precisionSci(s.error[k], 3).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(tr(m.bound));
        }
        endDataTable();
      }
      if (s.treeOnGpu)
        mutedText(ctx.theme, trf("The tree order ran on the GPU with %d blocks of %d threads.",
                                 sums->shape.blocks, sums->shape.threads)
                                 .c_str());
      drawSumGrowth(ctx, sums->growth);
    }
  }
  endPanel(ctx);
}

}  // namespace cudalab
