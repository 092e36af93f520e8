#include "lessons/atomics/atomics_histogram_panel.hpp"

#include <imgui.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace atomics;

namespace {

// An H100's grid for the model numbers shown without a GPU: 132 SMs x 8 blocks of 256 threads.
constexpr long long kModelBlocks = 132 * 8;

std::string gbps(double v) {
  return (v >= 100 ? thousands(std::llround(v)) : trimmedFixed(v, v < 1 ? 3 : 1)) + " GB/s";
}

std::string percent(double f) {
  const double p = 100 * f;
  return trimmedFixed(p, p < 10 ? 1 : 0) + "%";
}

// "1", "0.031", "2.6e-4": atomics per value.
std::string perValue(double v) {
  if (v < 0) return tr("CUB's own");
  if (v == 0) return "0";
  if (v >= 0.01) return trimmedFixed(v, v >= 10 ? 0 : 3);
  return sciText(v);
}

}  // namespace

// [SECTION] the histogram ladder

void drawAtomicsLadderPanel(LessonContext& ctx, const HistReport* result, const HistParams& chosen,
                            bool running, bool gpu) {
  if (!beginPanel(ctx, "ladder", "The histogram ladder: every step checked and timed"))
    return endPanel(ctx);
  const HistReport* r = result;
  const HistParams& p = r ? r->p : chosen;
  if (r) {
    const HistStepResult* cub = r->find(HistStepId::Cub);
    const HistStepResult* best = nullptr;
    for (const HistStepResult& s : r->steps)
      if (histStepInfo(s.step).gpu && s.step != HistStepId::Cub && (!best || s.gbps > best->gbps))
        best = &s;
    // Whole sentences, each chosen by what was measured.
    const std::string n = thousands(p.n),
                      size = mib(double(p.n) * sourceInfo(p.source).elementBytes);
    std::string text =
        r->device.empty()
            ? trf("%s values (%s, %s) into %d bins on the CPU.", n.c_str(),
                  tr(sourceInfo(p.source).label), size.c_str(), p.bins)
            : trf("%s values (%s, %s) into %d bins on %s.", n.c_str(),
                  tr(sourceInfo(p.source).label), size.c_str(), p.bins, r->device.c_str());
    if (p.source == Source::Uniform)
      text += std::string(" ") +
              trf("Share of the values in one bin (skew): %s.", trimmedFixed(p.skew, 2).c_str());
    if (best) {
      const char* label = tr(histStepInfo(best->step).label);
      text += " ";
      if (r->copyGBps > 0 && cub)
        text += trf("Best hand-written step: %s, %s, %s of the copy ceiling, %s of CUB's speed.",
                    label, gbps(best->gbps).c_str(), percent(best->ofCopy).c_str(),
                    percent(best->ofCub).c_str());
      else
        text += trf("Best hand-written step: %s, %s.", label, gbps(best->gbps).c_str());
    }
    textWrapped("%s", text.c_str());
    // (The block size shapes only the GPU's steps, the skew only uniform bytes; CPU results are
    // made again by their own button.)
    const bool gpuResults = !r->device.empty();
    staleNote(ctx.theme,
              p.n != chosen.n || p.bins != chosen.bins || p.source != chosen.source ||
                  (p.source == Source::Uniform && p.skew != chosen.skew) ||
                  (gpuResults && p.block != chosen.block),
              gpuResults ? "Measure the ladder" : "CPU histograms only");
  } else {
    ladderNotMeasured(running, gpu, N_("Computing the CPU's histograms..."));
  }
  // On a projector the step, its speed, its atomics and whether every bin is right carry the
  // lesson; the copy ratio and the grid give way first (the tooltips and the text still give
  // them).
  static const TableColumn kColumns[] = {
      {"step"},
      {"time, median (ms)", "ms", 2, nullptr, true},
      {"input GB/s", "GB/s", 0, "The input's bytes over the time: what a histogram must move.",
       true},
      {"of the copy ceiling", "of copy", 3, "This step's GB/s over a device-to-device copy's.",
       true},
      {"of CUB", nullptr, 1, "This step's GB/s over CUB's histogram, measured in the same run.",
       true},
      {"atomics per value, global / shared", "atomics", 1},
      {"blocks", nullptr, 3, "Blocks in the measured grid.", true},
      {"checked against the CPU", "checked", 0, nullptr, true},
  };
  if (beginDataTable("##ladder", kColumns, static_cast<int>(histSteps().size()), r != nullptr)) {
    for (const HistStepInfo& s : histSteps()) {
      const HistStepResult* m = r ? r->find(s.id) : nullptr;
      swatchRow(s.colour);
      ImGui::TextUnformatted(s.key);
      helpTooltip(trf("%s. %s", tr(s.label), tr(s.help)).c_str());
      ImGui::TableNextColumn();
      if (m) ImGui::TextUnformatted(trimmedFixed(m->ms, m->ms < 1 ? 4 : 2).c_str());
      ImGui::TableNextColumn();
      if (m) {
        ImGui::TextUnformatted(gbps(m->gbps).c_str());
        if (m->ofCopy > 0)
          helpTooltip(trf("%s of the copy ceiling", percent(m->ofCopy).c_str()).c_str());
      }
      ImGui::TableNextColumn();
      if (m && m->ofCopy > 0) ImGui::TextUnformatted(percent(m->ofCopy).c_str());
      ImGui::TableNextColumn();
      if (m && m->ofCub > 0) ImGui::TextUnformatted(percent(m->ofCub).c_str());
      // Atomics per value, global / shared: from the measured grid, or (no measurement) for an
      // H100's.
      const double distinct = r ? r->distinctPerWarp : 32;
      const AtomicsPerElement a =
          m && s.gpu ? m->atomics
                     : atomicsPerElement(s.id, p.n, p.bins,
                                         s.id == HistStepId::Global ? (p.n + p.block - 1) / p.block
                                                                    : kModelBlocks,
                                         distinct);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted((a.global < 0 ? std::string(tr("CUB's own"))
                                           : perValue(a.global) + " / " + perValue(a.shared))
                                 .c_str());
      std::string tip = tr("Atomics per value: on global memory / on shared memory.");
      if (s.gpu && s.id != HistStepId::Cub && s.id != HistStepId::Global)
        tip += std::string(" ") +
               (m ? tr("The global ones are the merges: one per bin per block, spread over all "
                       "the values.")
                  : tr("The global ones are the merges: one per bin per block, spread over all "
                       "the values; without a measurement, for an H100's grid of 132 SMs x 8 "
                       "blocks."));
      if (s.id == HistStepId::Aggregated)
        tip += std::string(" ") +
               (r ? trf("One shared atomic per distinct bin among a warp's 32 values: %s "
                        "on average for these values.",
                        trimmedFixed(distinct, 1).c_str())
                  : trf("One shared atomic per distinct bin among a warp's 32 values: %s "
                        "on average for these values (no data yet: at most 32).",
                        trimmedFixed(distinct, 1).c_str()));
      helpTooltip(tip.c_str());
      ImGui::TableNextColumn();
      if (m && m->blocks > 0) {
        ImGui::TextUnformatted(thousands(m->blocks).c_str());
        if (m->subHistograms > 0)
          helpTooltip(
              (s.id == HistStepId::Lanes
                   ? trf("%d counters per bin in each block, one per lane (lanes share "
                         "them when fewer than 32 fit).",
                         m->subHistograms)
                   : trf("%d sub-histogram(s) in each block's shared memory.", m->subHistograms))
                  .c_str());
      }
      ImGui::TableNextColumn();
      if (m) {
        ImGui::PushStyleColor(ImGuiCol_Text,
                              m->check.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
        ImGui::TextUnformatted(m->check.ok() ? tr("every bin") : tr("WRONG"));
        ImGui::PopStyleColor();
        if (!m->check.ok())
          helpTooltip(trf("%s bins differ; bin %d holds %s instead of %s.",
                          thousands(m->check.wrongBins).c_str(), m->check.firstWrong,
                          thousands(m->check.got).c_str(), thousands(m->check.expected).c_str())
                          .c_str());
      }
    }
    endDataTable();
  }
  if (r)  // ladderBarsPlot draws its title and reference line translated: marked here.
    ladderBarsPlot(
        "atomics_ladder", N_("Input GB/s per step##ladderplot"), r->steps,
        [](const HistStepResult& s) { return histStepInfo(s.step).key; },
        [](const HistStepResult& s) { return s.gbps; }, N_("device copy (read + write)"),
        r->copyGBps);
  if (r)
    mutedText(
        ctx.theme,
        trf("GB/s counts the input read once: what a histogram must move. The copy ceiling is a "
            "device-to-device copy of the same bytes, counting its reads and writes (%s). Every "
            "step's histogram was compared with the CPU's bin by bin, after the output was "
            "filled with 0xFF; %s values fell outside the range (or were NaN) and are not "
            "counted, by every step. Every step finds a value's bin as CUB does, (x - xmin) x "
            "bins / (xmax - xmin) rounded down in float32. The course's cpu_histogram divides "
            "by the bin width instead (near an edge a value can then fall in the neighbouring "
            "bin) and rounds toward zero, so values up to one bin below xmin land in bin 0 "
            "there; here they are dropped.",
            r->copyGBps > 0 ? gbps(r->copyGBps).c_str() : tr("not measured"),
            thousands(r->dropped).c_str())
            .c_str());
  endPanel(ctx);
}

// [SECTION] the histogram itself

void drawAtomicsHistogramPanel(LessonContext& ctx, const HistReport* result) {
  if (!result) return;
  if (!beginPanel(ctx, "histogram", "The histogram", kPanelCollapsible)) return endPanel(ctx);
  const HistReport& r = *result;
  if (plot::BeginPlot("atomics_histogram", "Values per bin (the CPU's)##hist", ImVec2(-1, 0))) {
    std::vector<double> xs, ys;
    for (size_t k = 0; k < r.reference.size(); ++k) {
      xs.push_back(double(k));
      ys.push_back(double(r.reference[k]));
    }
    plot::SetupAxes({N_("bin")}, {N_("values"), plot::Scale::Linear, 0, NAN});
    plot::SetupLegend(plot::Legend::Hidden);
    plot::SetNextColour(0);
    if (r.reference.size() <= 64)
      plot::PlotBars("values", ys.data(), int(ys.size()));
    else
      plot::PlotLine("values", xs.data(), ys.data(), int(xs.size()));
    plot::EndPlot();
  }
  long long most = 0;
  int at = 0;
  for (size_t k = 0; k < r.reference.size(); ++k)
    if (r.reference[k] > most) most = r.reference[k], at = int(k);
  mutedText(ctx.theme,
            trf("The fullest bin, %d, holds %s of %s values (%s): every value in it is an atomic "
                "on the same counter for the global step.",
                at, thousands(most).c_str(), thousands(r.p.n).c_str(),
                percent(r.p.n ? double(most) / double(r.p.n) : 0).c_str())
                .c_str());
  endPanel(ctx);
}

// [SECTION] time against skew

void drawAtomicsSkewPanel(LessonContext& ctx, const AtomicsSkewView* skew, bool running, bool gpu) {
  if (!beginPanel(ctx, "skew", "Time against skew: uniform to all in one bin"))
    return endPanel(ctx);
  if (waitingForMeasurement(bool(skew), running, gpu,
                            N_("Press \"Time against skew\" to measure.")))
    return endPanel(ctx);
  stepLinesPlot(
      "atomics_skew", "##skew", {N_("share of the values in one bin"), plot::Scale::Linear, 0, 1},
      {N_("time"), plot::Scale::Log10, NAN, NAN, "s"}, gpuHistSteps(), skew->points, histStepInfo,
      [](const SkewPoint& p) { return p.skew; }, [](const SkewPoint& p) { return p.ms * 1e-3; });
  const bool allOk = allCorrect(skew->points);
  const std::string n = thousands(skew->p.n);
  mutedText(ctx.theme,
            ((allOk ? trf("%s uniform bytes into %d bins, a growing share of them set to 0. "
                          "Every point checked bin by bin: all correct.",
                          n.c_str(), skew->p.bins)
                    : trf("%s uniform bytes into %d bins, a growing share of them set to 0. "
                          "Every point checked bin by bin: SOME WRONG.",
                          n.c_str(), skew->p.bins)) +
             " " +
             tr("The global step's atomics pile onto one counter in L2 as the skew grows; the "
                "shared-memory steps keep their contention inside one block or one warp; "
                "combining equal bins within a warp first turns 32 atomics on one counter into "
                "one (at a cost on every value, which uniform data does not repay), and a "
                "counter per lane removes the collisions altogether."))
                .c_str());
  endPanel(ctx);
}

}  // namespace cudalab
