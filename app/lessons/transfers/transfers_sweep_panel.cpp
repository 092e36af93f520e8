#include "lessons/transfers/transfers_sweep_panel.hpp"

#include <imgui.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace transfers;

namespace {

// Line colours of the modes in the sweep, apart from the CPU's grey and yellow.
constexpr int kModeColour[kTransferModeCount] = {0, 4, 2, 3, 1};

// The link as PcieLink::describe() says it, in the UI's language (describe() stays English for
// the exports).
std::string describeLink(const PcieLink& l) {
  return trf("PCIe %d.0 x%d, %.1f GB/s each way", l.generation, l.width, l.gbpsPerDirection());
}

}  // namespace

// [SECTION] size sweep: log-log, crossover

void drawTransfersSweep(LessonContext& ctx, const TransfersSweepView& sweep, int markedMode,
                        const char* source) {
  if (sweep.points.empty() && !sweep.progress) return;
  const bool modelled = !sweep.points.empty() && sweep.points.front().modelled;
  const char* op = tr(transferOp(sweep.params.op).label);
  const char* from = modelled ? tr("GPU modelled, CPU measured") : source;
  const std::string title =
      sweep.params.calls == 1
          ? trf("When does the GPU pay off? %s, %d call (%s)", op, sweep.params.calls, from)
          : trf("When does the GPU pay off? %s, %d calls (%s)", op, sweep.params.calls, from);
  if (!beginPanel(ctx, "transfers_sweep", title.c_str())) {
    endPanel(ctx);
    return;
  }
  std::vector<double> ns, cpu1, cpuAll, cpuBest;
  std::vector<std::vector<double>> modeS(kTransferModeCount), modeMs(kTransferModeCount);
  for (const SizePoint& p : sweep.points) {
    ns.push_back(static_cast<double>(p.n));
    cpu1.push_back(p.cpu.oneThreadMs * 1e-3);
    cpuAll.push_back(p.cpu.allCoresMs * 1e-3);
    cpuBest.push_back(p.cpu.bestMs());
    for (int m = 0; m < kTransferModeCount; ++m) {
      modeS[m].push_back(p.modeMs[m] * 1e-3);
      modeMs[m].push_back(p.modeMs[m]);
    }
  }
  const int n = static_cast<int>(ns.size());
  std::optional<double> cross;
  if (n > 0) cross = findCrossover(ns, modeMs[static_cast<size_t>(markedMode)], cpuBest);
  if (plot::BeginPlot("transfers_sweep", nullptr, ImVec2(-1, 0))) {
    plot::SetupAxes({N_("elements N"), plot::Scale::Log10},
                    {N_("total time"), plot::Scale::Log10, NAN, NAN, "s"});
    plot::SetupLegend(plot::Legend::Outside);
    for (int m = 0; m < kTransferModeCount; ++m) {
      plot::SetNextColour(kModeColour[m]);
      plot::PlotLine(transferModes()[static_cast<size_t>(m)].label, ns.data(), modeS[m].data(), n);
    }
    plot::SetNextColour(7);
    plot::PlotLine("CPU, 1 thread", ns.data(), cpu1.data(), n);
    plot::SetNextColour(6);
    plot::PlotLine(
        transfersCpuAllLabel(sweep.points.empty() ? 0 : sweep.points.front().cpu.threads).c_str(),
        ns.data(), cpuAll.data(), n);
    if (cross)
      plot::PlotVLine(
          trf("pays off: %s", tr(transferModes()[static_cast<size_t>(markedMode)].label)).c_str(),
          *cross);
    plot::EndPlot();
  }
  if (sweep.progress) {
    const JobProgress& pr = *sweep.progress;
    ImGui::ProgressBar(pr.fraction, ImVec2(-1, 0), tr(pr.what).c_str());
  }
  errorText(ctx.theme, sweep.error);
  if (n > 0) {
    // One line per mode: a list a translator can write in any order of words.
    textWrapped("From which N each mode beats the CPU's best (one thread or all cores) for good:");
    ImGui::Indent();
    for (int m = 0; m < kTransferModeCount; ++m) {
      std::optional<double> c = findCrossover(ns, modeMs[m], cpuBest);
      const char* name = tr(transferModes()[static_cast<size_t>(m)].label);
      const std::string line =
          !c ? trf("%s: never up to this N", name)
          : *c <= ns.front()
              ? trf("%s: already at %s", name, thousands(std::llround(ns.front())).c_str())
              : trf("%s: about %s", name, thousands(std::llround(*c)).c_str());
      textWrapped("%s", line.c_str());
    }
    ImGui::Unindent();
    mutedText(ctx.theme,
              "Small arrays: every copy and launch costs microseconds whatever its size, while "
              "one CPU thread finishes a few thousand numbers in less. Large arrays: the time "
              "follows bandwidth: PCIe (tens of GB/s) for copies against the CPU's own memory "
              "bandwidth. With copies on every call a kernel this light wins only by a little, "
              "if at all: PCIe is slower than the CPU's own memory. It wins clearly when the "
              "data stays on the device or the kernel does more work per byte (try Iterate). "
              "The mode shown in the timeline is marked.");
  }
  endPanel(ctx);
}

// [SECTION] chain: foo, bar, baz with and without round trips

void drawTransfersChain(LessonContext& ctx, const TransfersChainReport& c, const char* source) {
  const int k = c.p.chain;
  const std::string title =
      trf("Chained kernels: k = %d, N = %s (%s)", k, transfersDescribeN(c.p.n).c_str(),
          c.modelled ? tr("model, no GPU") : source);
  if (!beginPanel(ctx, "transfers_chain", title.c_str())) {
    endPanel(ctx);
    return;
  }
  const char* cats[] = {N_("round trips"), N_("on the device")};
  const char* series[] = {N_("Host to device"), N_("Kernel"), N_("Device to host")};
  double v[6];
  for (int s = 0; s < 3; ++s) {
    v[s * 2 + 0] = c.trips.phases[s] * 1e-3;
    v[s * 2 + 1] = c.resident.phases[s] * 1e-3;
  }
  if (plot::BeginPlot("transfers_chain", nullptr, ImVec2(-1, ImGui::GetTextLineHeight() * 10))) {
    plot::SetupCategories(cats, 2, plot::AxisId::Y);
    plot::SetupLegend(plot::Legend::Outside);
    plot::SetupAxes({N_("time"), plot::Scale::Linear, 0, NAN, "s"}, {nullptr});
    plot::PlotStackedBars(series, 3, v, 2, true);
    plot::EndPlot();
  }
  std::string names;
  for (int j = 0; j < k; ++j)
    names += std::string(j ? ", " : "") + chainKernels()[static_cast<size_t>(j % 3)].name + " (" +
             chainKernels()[static_cast<size_t>(j % 3)].formula + ")";
  const int tripCopies = c.trips.h2dCopies + c.trips.d2hCopies;
  const int residentCopies = c.resident.h2dCopies + c.resident.d2hCopies;
  const TransfersSpeedup gain = transfersFaster(c.trips.wallMs, c.resident.wallMs);
  const std::string tripMs = transfersMs(c.trips.wallMs),
                    residentMs = transfersMs(c.resident.wallMs);
  if (gain.kind > 0)
    textWrapped(
        "%s: with a round trip through the host around each kernel, %d copies (%s); with the "
        "data left on the device, %d copies (%s). 2(k-1) = %d copies saved: %sx faster.",
        names.c_str(), tripCopies, tripMs.c_str(), residentCopies, residentMs.c_str(),
        tripCopies - residentCopies, gain.times.c_str());
  else if (gain.kind == 0)
    textWrapped(
        "%s: with a round trip through the host around each kernel, %d copies (%s); with the "
        "data left on the device, %d copies (%s). 2(k-1) = %d copies saved: no faster.",
        names.c_str(), tripCopies, tripMs.c_str(), residentCopies, residentMs.c_str(),
        tripCopies - residentCopies);
  else
    textWrapped(
        "%s: with a round trip through the host around each kernel, %d copies (%s); with the "
        "data left on the device, %d copies (%s). 2(k-1) = %d copies saved: %sx slower.",
        names.c_str(), tripCopies, tripMs.c_str(), residentCopies, residentMs.c_str(),
        tripCopies - residentCopies, gain.times.c_str());
  if (!c.modelled) {
    Correctness worst =
        c.trips.check.wrong >= c.resident.check.wrong ? c.trips.check : c.resident.check;
    transfersCheckText(ctx, worst, c.p.n, false);
  }
  endPanel(ctx);
}

// [SECTION] link: pageable against pinned, against the link's ceiling

void drawTransfersLink(LessonContext& ctx, const TransfersLinkReport& l) {
  const std::string title = trf("Pageable against pinned copies (%s)",
                                l.measured ? l.device.c_str() : tr("reference H200, no GPU here"));
  if (!beginPanel(ctx, "transfers_link", title.c_str())) {
    endPanel(ctx);
    return;
  }
  const char* cats[] = {N_("host to device"), N_("device to host")};
  const double pageable[] = {l.model.h2dPageableGBps * 1e9, l.model.d2hPageableGBps * 1e9};
  const double pinned[] = {l.model.h2dPinnedGBps * 1e9, l.model.d2hPinnedGBps * 1e9};
  if (plot::BeginPlot("transfers_link", nullptr, ImVec2(-1, ImGui::GetTextLineHeight() * 14))) {
    plot::SetupCategories(cats, 2);
    plot::SetupLegend(plot::Legend::Outside);
    plot::SetupAxes({nullptr}, {N_("bandwidth"), plot::Scale::Linear, 0, NAN, "B/s"});
    plot::SetNextColour(4);
    plot::PlotBars("pageable (ordinary) memory", pageable, 2);
    plot::SetNextColour(0);
    plot::PlotBars("pinned (page-locked) memory", pinned, 2);
    if (l.pcie) plot::PlotHLine(describeLink(*l.pcie).c_str(), l.pcie->gbpsPerDirection() * 1e9);
    plot::EndPlot();
  }
  std::vector<std::string> out;
  out.push_back(
      trf("Pinned copies reach %s GB/s in and %s GB/s out; pageable ones %s and %s "
          "GB/s, because the CPU first copies them into a pinned staging buffer.",
          trimmedFixed(l.model.h2dPinnedGBps, 1).c_str(),
          trimmedFixed(l.model.d2hPinnedGBps, 1).c_str(),
          trimmedFixed(l.model.h2dPageableGBps, 1).c_str(),
          trimmedFixed(l.model.d2hPageableGBps, 1).c_str()));
  if (l.pcie)
    out.push_back(
        trf("The link (%s) allows at most %s GB/s: pinned copies reach %s%% of it (packet "
            "headers take the rest).",
            describeLink(*l.pcie).c_str(), trimmedFixed(l.pcie->gbpsPerDirection(), 1).c_str(),
            trimmedFixed(100 * l.model.h2dPinnedGBps / l.pcie->gbpsPerDirection(), 0).c_str()));
  else if (l.measured)
    out.push_back(tr("The link's rate is not readable from this system's sysfs."));
  out.push_back(
      trf("Inside the GPU a device-to-device copy moves %s GB/s: the ceiling for the "
          "kernels.",
          trimmedFixed(l.model.deviceGBps, 0).c_str()));
  const std::string s = transfersJoined(out);
  textWrapped("%s", s.c_str());
  if (!l.measured) mutedText(ctx.theme, l.model.source);
  endPanel(ctx);
}

}  // namespace cudalab
