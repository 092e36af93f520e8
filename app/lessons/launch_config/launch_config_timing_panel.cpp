#include "lessons/launch_config/launch_config_timing_panel.hpp"

#include <imgui.h>

#include <cmath>
#include <string>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace launch_config;

void drawLaunchTimingPanel(LessonContext& ctx, bool gpu, const Status& error,
                           const std::vector<MeasuredLaunch>& history, long long n) {
  if (!beginPanel(ctx, "timing", "Where the time goes (median of 10 runs)")) {
    endPanel(ctx);
    return;
  }
  if (!gpu) {
    textWrapped(
        "No GPU, so nothing is timed. The picture and the numbers above come from "
        "the CPU model.");
  } else if (!error.ok()) {
    errorText(ctx.theme, error);
  } else if (history.empty()) {
    textWrapped(
        "Predict first: how long will copying %s floats to the GPU and back take, "
        "compared with doubling them there? Then press Run and time.",
        thousands(n).c_str());
  } else {
    // Each run's name, made in the UI's language as it is drawn.
    std::vector<std::string> names;
    for (const MeasuredLaunch& h : history)
      names.push_back(
          trf("#%d %s, %d thr", h.run, tr(variantOf(h.config).label), h.config.threadsPerBlock));
    std::vector<const char*> cats;
    std::vector<double> values(3 * history.size());
    for (size_t i = 0; i < history.size(); ++i) {
      cats.push_back(names[i].c_str());
      for (int p = 0; p < 3; ++p)
        values[p * history.size() + i] = history[i].m.phases[p].medianMs;
    }
    // Bars a couple of lines thick each, so one measurement does not fill the panel.
    const float plotH =
        ImGui::GetTextLineHeight() * (5.0f + 2.2f * static_cast<float>(cats.size()));
    if (plot::BeginPlot("timing", "Time per phase", ImVec2(-1, plotH))) {
      plot::SetupCategories(cats.data(), static_cast<int>(cats.size()), plot::AxisId::Y);
      plot::SetupLegend(plot::Legend::Outside);  // inside, it would cover the bars
      plot::SetupAxes({N_("milliseconds")}, {nullptr});
      plot::PlotStackedBars(kPhaseNames, 3, values.data(), static_cast<int>(cats.size()), true);
      plot::EndPlot();
    }
    const MeasuredLaunch& last = history.back();
    const Correctness& c = last.m.check;
    ImGui::Text(tr("Kernel %.3f ms (min %.3f, max %.3f) = %.0f GB/s; with copies %.3f ms."),
                last.m.kernel().medianMs, last.m.kernel().minMs, last.m.kernel().maxMs,
                last.m.kernelGBps(), last.m.totalMedianMs());
    ImGui::PushStyleColor(ImGuiCol_Text,
                          c.wrong ? ctx.theme.errorColour() : ctx.theme.goodColour());
    if (c.wrong)
      textWrapped(
          "%s of %s elements wrong after every run (first at %zu): elements the "
          "launch never wrote keep the poison they started with.",
          thousands(static_cast<long long>(c.wrong)).c_str(),
          thousands(static_cast<long long>(c.checked)).c_str(), c.firstWrong);
    else
      textWrapped("All %s elements equal the CPU reference in every run.",
                  thousands(static_cast<long long>(c.checked)).c_str());
    ImGui::PopStyleColor();
  }
  endPanel(ctx);
}

void drawLaunchSweepPanel(LessonContext& ctx, const std::vector<LaunchSweepPoint>& sweep,
                          bool blocks, int smCount, const JobProgress* progress,
                          const Status& error) {
  if (sweep.empty() && !progress) return;
  if (beginPanel(ctx, "sweep",
                 blocks ? N_("Kernel time against blocks per grid (grid-stride loop)")
                        : N_("Kernel time against threads per block"))) {
    std::vector<double> xs, ys;
    for (const LaunchSweepPoint& p : sweep)
      if (p.m) {
        xs.push_back(p.x);
        ys.push_back(p.m->kernel().medianMs);
      }
    if (plot::BeginPlot("sweep", nullptr, ImVec2(-1, 0))) {
      plot::SetupAxes({blocks ? N_("blocks per grid") : N_("threads per block"),
                       blocks ? plot::Scale::Log10 : plot::Scale::Linear},
                      {N_("kernel time"), plot::Scale::Log10, NAN, NAN, "s"});
      if (blocks) {
        const double sms = smCount;
        plot::PlotVSpan("2-4 blocks per SM", kHeuristicBlocksPerSMLow * sms,
                        kHeuristicBlocksPerSMHigh * sms);
      }
      std::vector<double> ysSeconds(ys.size());
      for (size_t i = 0; i < ys.size(); ++i)
        ysSeconds[i] = ys[i] * 1e-3;
      plot::SetNextColour(0);
      plot::PlotLine("median kernel time", xs.data(), ysSeconds.data(),
                     static_cast<int>(xs.size()));
      plot::SetNextColour(0);  // the points in the line's colour
      plot::PlotScatter("##points", xs.data(), ysSeconds.data(), static_cast<int>(xs.size()));
      plot::EndPlot();
    }
    if (progress) {
      ImGui::ProgressBar(progress->fraction, ImVec2(-1, 0), tr(progress->what.c_str()));
    } else if (!error.ok()) {
      textWrapped("%s", tr(error.message()).c_str());
    }
  }
  endPanel(ctx);
}

}  // namespace cudalab
