#include "lessons/transfers/transfers_modes_panel.hpp"

#include <imgui.h>

#include <algorithm>
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

using namespace transfers;

// [SECTION] texts the panels share

std::string transfersCpuAllLabel(int threads) {
  return trf("CPU, all cores (%d)", threads);
}

std::string transfersMs(double v) {
  return plot::formatValue(v * 1e-3, "s");
}

TransfersSpeedup transfersFaster(double slowMs, double fastMs) {
  const double r = slowMs / std::max(fastMs, 1e-12);
  if (r >= 1.05) return {1, trimmedFixed(r, 1)};
  if (r > 1 / 1.05) return {0, ""};
  return {-1, trimmedFixed(1 / r, 1)};
}

std::string transfersJoined(const std::vector<std::string>& sentences) {
  std::string s;
  for (const std::string& x : sentences)
    s += (s.empty() ? "" : " ") + x;
  return s;
}

std::string transfersDescribeN(long long n) {
  std::string s = thousands(n);
  if (n > 0 && (n & (n - 1)) == 0)
    s += " (2^" + std::to_string(static_cast<int>(std::log2(static_cast<double>(n)))) + ")";
  return s;
}

void transfersCheckText(LessonContext& ctx, const Correctness& c, long long n, bool modelled) {
  if (modelled) return;
  ImGui::PushStyleColor(ImGuiCol_Text, c.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
  if (c.ok())
    textWrapped("Output checked: %s of %s elements equal the float64 reference in every run.",
                thousands(static_cast<long long>(c.checked)).c_str(), thousands(n).c_str());
  else
    textWrapped("%s of %s elements wrong (first at %zu).",
                thousands(static_cast<long long>(c.wrong)).c_str(),
                thousands(static_cast<long long>(c.checked)).c_str(), c.firstWrong);
  ImGui::PopStyleColor();
}

namespace {

// A share in percent, with a decimal below 1% (and above 99%) so a small share does not read as
// nothing.
std::string percent(double part, double whole) {
  const double p = 100 * part / std::max(whole, 1e-12);
  return trimmedFixed(p, p < 1 || p > 99 ? 1 : 0) + "%";  // never "100%" for 99.7%
}

// The modes' table: each mode's phases, wall time, copies, the model's time and its check, then
// the CPU's two rows.
void drawModesTable(LessonContext& ctx, const TransfersModesReport& r) {
  // On a projector the mode, its wall time and whether its output is right matter most; the
  // phases, then the copy counts, give way first.
  static const TableColumn kColumns[] = {
      {"mode"},
      {"copy in (ms)", "in", 2, "Host to device, median."},
      {"kernel (ms)", "kernel", 2, "The kernel alone, median."},
      {"copy out (ms)", "out", 2, "Device to host, median."},
      {"wall time (ms)", "wall", 0, "From the first copy's start to the last copy's end."},
      {"copies in / out", "copies", 3, "How many copies each way this mode makes."},
      {"the model's wall time (ms)", "model", 1,
       "What the transfer model predicts from the link's measured bandwidth."},
      {"output checked", "output", 0, "Compared element by element with the CPU's result."},
  };
  if (!beginDataTable("modes_table", kColumns, kTransferModeCount + 2)) return;
  for (int m = 0; m < kTransferModeCount; ++m) {
    const TransfersModeResult& x = r.modes[m];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(tr(transferModes()[static_cast<size_t>(m)].label));
    helpTooltip(transferModes()[static_cast<size_t>(m)].help);
    for (int k = 0; k < 3; ++k) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(transfersMs(x.phases[k]).c_str());
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(transfersMs(x.wallMs).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d / %d", x.h2dCopies, x.d2hCopies);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(transfersMs(x.predicted.wallMs).c_str());
    ImGui::TableNextColumn();
    if (r.modelled) {
      ImGui::TextUnformatted(tr("model"));
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text,
                            x.check.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
      ImGui::TextUnformatted(x.check.ok() ? tr("correct") : tr("WRONG"));
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(tr("%s of %s elements checked, max relative error %.2g"),
                          thousands(static_cast<long long>(x.check.checked)).c_str(),
                          thousands(r.p.n).c_str(), x.check.maxRelError);
    }
  }
  auto cpuRow = [&](const std::string& label, double t) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label.c_str());
    for (int k = 0; k < 3; ++k) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k == 1 ? transfersMs(t).c_str() : "");
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(transfersMs(t).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(tr("none"));
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(ImGuiCol_Text,
                          r.cpu.check.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
    ImGui::TextUnformatted(r.cpu.check.ok() ? tr("correct") : tr("WRONG"));
    ImGui::PopStyleColor();
  };
  cpuRow(tr("CPU, 1 thread"), r.cpu.oneThreadMs);
  cpuRow(transfersCpuAllLabel(r.cpu.threads), r.cpu.allCoresMs);
  endDataTable();
  if (!r.modelled) {
    bool ok = true;
    for (const TransfersModeResult& x : r.modes)
      ok = ok && x.check.ok();
    if (ok)
      transfersCheckText(ctx, r.modes[0].check, r.p.n, false);
    else
      errorText(ctx.theme,
                Status::error(N_("Some outputs differ from the reference: see the last column.")));
  }
  if (r.cpu.timedElements < static_cast<size_t>(r.p.n))
    mutedText(ctx.theme,
              trf("The CPU was timed on the first %s elements and scaled to N: its time grows "
                  "in proportion to N.",
                  thousands(static_cast<long long>(r.cpu.timedElements)).c_str())
                  .c_str());
}

// What to conclude from the modes, as one paragraph below the table.
std::string conclusion(const TransfersModesReport& r) {
  const TransfersModeResult& imp = r.modes[0];
  const TransfersModeResult& exp = r.modes[1];
  const TransfersModeResult& impPinned = r.modes[2];
  const TransfersModeResult& streams = r.modes[4];
  const TransfersModeResult& best =
      *std::min_element(r.modes.begin(), r.modes.end(),
                        [](const TransfersModeResult& a, const TransfersModeResult& b) {
                          return a.wallMs < b.wallMs;
                        });
  const size_t bestIndex = static_cast<size_t>(&best - r.modes.data());
  const double cpu = r.cpu.bestMs();
  // Shares of the phases' sum: the wall time's median can be a little shorter than the sum of
  // the phases' medians.
  const double total = imp.phases[0] + imp.phases[1] + imp.phases[2];
  // One whole sentence per fact (three versions where it says faster, no faster or slower).
  std::vector<std::string> out;
  out.push_back(trf("Copies take %s of the implicit mode's time, the kernel %s.",
                    percent(imp.phases[0] + imp.phases[2], total).c_str(),
                    percent(imp.phases[1], total).c_str()));
  if (r.p.calls > 1) {
    const TransfersSpeedup e = transfersFaster(imp.wallMs, exp.wallMs);
    const int calls = r.p.calls;
    out.push_back(e.kind > 0 ? trf("Keeping the data on the device (explicit) makes %d calls %sx "
                                   "faster than copying around each one.",
                                   calls, e.times.c_str())
                  : e.kind == 0 ? trf("Keeping the data on the device (explicit) makes %d calls "
                                      "no faster than copying around each one.",
                                      calls)
                                : trf("Keeping the data on the device (explicit) makes %d calls "
                                      "%sx slower than copying around each one.",
                                      calls, e.times.c_str()));
  } else {
    out.push_back(
        tr("With one call, implicit and explicit copy the same: raise the kernel calls "
           "to see what keeping the data on the device saves."));
  }
  const TransfersSpeedup pin = transfersFaster(imp.wallMs, impPinned.wallMs);
  if (pin.kind > 0)
    out.push_back(trf("From pinned memory the same copies are %sx faster.", pin.times.c_str()));
  else if (pin.kind == 0)
    out.push_back(tr("From pinned memory the same copies are no faster."));
  else
    out.push_back(trf("From pinned memory the same copies are %sx slower.", pin.times.c_str()));
  const TransfersSpeedup st = transfersFaster(impPinned.wallMs, streams.wallMs);
  if (st.kind > 0)
    out.push_back(
        trf("Split over streams so they overlap, they are %sx faster again.", st.times.c_str()));
  else if (st.kind == 0)
    out.push_back(tr("Split over streams so they overlap, they are no faster."));
  else
    out.push_back(
        trf("Split over streams so they overlap, they are %sx slower.", st.times.c_str()));
  const char* bestName = tr(transferModes()[bestIndex].label);
  out.push_back(
      best.wallMs < cpu
          ? trf("The fastest mode, %s, takes %s; the CPU's best takes %s, so at this size the "
                "GPU wins by %sx.",
                bestName, transfersMs(best.wallMs).c_str(), transfersMs(cpu).c_str(),
                trimmedFixed(cpu / best.wallMs, 1).c_str())
          : trf("The fastest mode, %s, takes %s; the CPU's best takes %s, so at this size the "
                "CPU wins by %sx.",
                bestName, transfersMs(best.wallMs).c_str(), transfersMs(cpu).c_str(),
                trimmedFixed(best.wallMs / std::max(cpu, 1e-9), 1).c_str()));
  out.push_back(
      tr("The wall-time dots include overlap; the ceiling dots are the least time the "
         "measured copy and device bandwidths allow."));
  return transfersJoined(out);
}

}  // namespace

// [SECTION] modes: a stacked bar per mode and the CPU, the ceilings, a table, what to conclude

void drawTransfersModes(LessonContext& ctx, const std::optional<TransfersModesReport>& report,
                        const transfers::TransferParams& now, const char* source) {
  const long long n = now.n;
  std::string title = tr("Where the time goes");
  if (report) {
    const TransferParams& mp = report->p;
    const char* op = tr(transferOp(mp.op).label);
    const char* from = report->modelled ? tr("GPU modelled, CPU measured") : source;
    title = mp.calls == 1 ? trf("Where the time goes: %s, N = %s, %d call (%s)", op,
                                transfersDescribeN(mp.n).c_str(), mp.calls, from)
                          : trf("Where the time goes: %s, N = %s, %d calls (%s)", op,
                                transfersDescribeN(mp.n).c_str(), mp.calls, from);
  }
  if (!beginPanel(ctx, "transfers_modes", title.c_str())) {
    endPanel(ctx);
    return;
  }
  if (!report) {
    textWrapped(
        "Predict first: for %s numbers, will copying them to the GPU and back take longer "
        "than the kernel? Longer than the CPU doing the work itself?",
        thousands(n).c_str());
    endPanel(ctx);
    return;
  }
  const TransfersModesReport& r = *report;
  // Results of other parameters than the panel's (Kernel calls moved since, say): said, with the
  // button that measures again (the title names what they were measured for).
  staleNote(ctx.theme, !(r.p == now), "Measure all modes");
  const auto modes = transferModes();
  // When the CPU takes far longer than every GPU mode (the iterate kernel), its bars would
  // flatten the GPU's to nothing: leave them to the table and the text.
  double slowestGpu = 0;
  for (const TransfersModeResult& x : r.modes)
    slowestGpu = std::max(slowestGpu, x.wallMs);
  const bool cpuRows = r.cpu.bestMs() < 20 * slowestGpu;
  const int rows = kTransferModeCount + (cpuRows ? 2 : 0);
  std::vector<std::string> labelStore;
  for (const TransferModeInfo& m : modes)
    labelStore.push_back(m.label);
  if (cpuRows) {
    labelStore.push_back(N_("CPU, 1 thread"));  // the plot translates its categories
    labelStore.push_back(transfersCpuAllLabel(r.cpu.threads));
  }
  // Category 0 is drawn at the bottom: list them backwards so the first mode is on top.
  std::vector<const char*> cats;
  for (auto it = labelStore.rbegin(); it != labelStore.rend(); ++it)
    cats.push_back(it->c_str());
  auto row = [rows](int i) { return rows - 1 - i; };
  // Phases in seconds (the plot's unit): [series * rows + row].
  const char* series[] = {N_("Host to device"), N_("Kernel"), N_("Device to host"), N_("CPU")};
  std::vector<double> v(4 * rows, 0.0);
  std::vector<double> wallX, wallY, ceilX, ceilY;
  for (int m = 0; m < kTransferModeCount; ++m) {
    for (int k = 0; k < 3; ++k)
      v[k * rows + row(m)] = r.modes[m].phases[k] * 1e-3;
    wallX.push_back(r.modes[m].wallMs * 1e-3);
    wallY.push_back(row(m));
    ceilX.push_back(r.modes[m].ceilingMs * 1e-3);
    ceilY.push_back(row(m));
  }
  if (cpuRows) {
    v[3 * rows + row(kTransferModeCount)] = r.cpu.oneThreadMs * 1e-3;
    v[3 * rows + row(kTransferModeCount + 1)] = r.cpu.allCoresMs * 1e-3;
  }
  const float h = ImGui::GetTextLineHeight() * (6.0f + 2.0f * static_cast<float>(rows));
  if (plot::BeginPlot("transfers_modes", nullptr, ImVec2(-1, h))) {
    plot::SetupCategories(cats.data(), rows, plot::AxisId::Y);
    plot::SetupLegend(plot::Legend::Outside);
    plot::SetupAxes({N_("time"), plot::Scale::Linear, 0, NAN, "s"}, {nullptr});
    plot::PlotStackedBars(series, cpuRows ? 4 : 3, v.data(), rows, true);
    plot::SetNextColour(7);
    plot::PlotScatter("wall time", wallX.data(), wallY.data(), kTransferModeCount);
    plot::SetNextColour(5);
    plot::PlotScatter("ceiling", ceilX.data(), ceilY.data(), kTransferModeCount);
    plot::EndPlot();
  }
  if (!cpuRows)
    mutedText(ctx.theme,
              trf("The CPU (%s, %sx the slowest GPU mode) is left out of the chart: see the "
                  "table.",
                  transfersMs(r.cpu.bestMs()).c_str(),
                  trimmedFixed(r.cpu.bestMs() / slowestGpu, 0).c_str())
                  .c_str());
  drawModesTable(ctx, r);
  mutedText(ctx.theme, conclusion(r).c_str());
  if (r.modelled) mutedText(ctx.theme, r.link.source);
  endPanel(ctx);
}

// [SECTION] timeline: one row per stream, a span per copy and kernel

void drawTransfersTimeline(LessonContext& ctx, const TransfersModesReport& r, int& mode,
                           bool& showModel) {
  const TransfersModeResult& m = r.modes[static_cast<size_t>(mode)];
  const Timeline& t = showModel ? m.predicted : m.timeline;
  const char* modeName = tr(transferModes()[static_cast<size_t>(mode)].label);
  const std::string title = r.modelled || showModel ? trf("Timeline: %s (model)", modeName)
                                                    : trf("Timeline: %s (CUDA events)", modeName);
  if (!beginPanel(ctx, "transfers_timeline", title.c_str())) {
    endPanel(ctx);
    return;
  }
  if (!ctx.exporting) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (beginCombo("mode##timeline", modeName)) {
      for (int i = 0; i < kTransferModeCount; ++i) {
        ImGui::PushID(i);
        if (ImGui::Selectable(tr(transferModes()[static_cast<size_t>(i)].label), i == mode))
          mode = i;
        ImGui::PopID();
      }
      ImGui::EndCombo();
    }
    if (!r.modelled) {
      ImGui::SameLine();
      checkbox("show the model's prediction", &showModel);
      helpTooltip(
          "The same plan replayed on the model: one copy engine each way, one kernel at a "
          "time, pageable copies holding the host. Where the measurement differs, the model "
          "is missing something.");
    }
  }
  std::vector<std::string> rowNames;
  for (int s = 0; s < t.streams; ++s)  // row 0 is drawn at the bottom: stream 1 on top
    rowNames.push_back(trf("stream %d", t.streams - s));
  std::vector<const char*> rows;
  for (const std::string& s : rowNames)
    rows.push_back(s.c_str());
  const float h = ImGui::GetTextLineHeight() * (6.0f + 1.6f * static_cast<float>(t.streams));
  if (plot::BeginPlot("transfers_timeline", nullptr, ImVec2(-1, h))) {
    plot::SetupCategories(rows.data(), t.streams, plot::AxisId::Y);
    plot::SetupLegend(plot::Legend::Outside);
    plot::SetupAxes({N_("time since the first copy"), plot::Scale::Linear, 0, NAN, "s"}, {nullptr});
    for (int k = 0; k < 3; ++k) {
      std::vector<int> rs;
      std::vector<double> x0, x1;
      for (const Span& s : t.spans) {
        if (static_cast<int>(s.kind) != k) continue;
        rs.push_back(t.streams - 1 - s.stream);  // stream 1 on top
        x0.push_back(s.startMs * 1e-3);
        x1.push_back(s.endMs * 1e-3);
      }
      plot::SetNextColour(k);
      plot::PlotSpans(kSpanKindNames[k], rs.data(), x0.data(), x1.data(),
                      static_cast<int>(rs.size()));
    }
    plot::EndPlot();
  }
  const auto ph = t.phaseMs();
  const double overlap = t.overlapMs();
  if (overlap < 1e-3)
    textWrapped(
        "Copies in %s, kernels %s, copies out %s: %s one after another; the wall clock says %s. "
        "Nothing overlapped.",
        transfersMs(ph[0]).c_str(), transfersMs(ph[1]).c_str(), transfersMs(ph[2]).c_str(),
        transfersMs(ph[0] + ph[1] + ph[2]).c_str(), transfersMs(t.wallMs).c_str());
  else
    textWrapped(
        "Copies in %s, kernels %s, copies out %s: %s one after another; the wall clock says %s. "
        "Copies and kernels ran at the same time for %s.",
        transfersMs(ph[0]).c_str(), transfersMs(ph[1]).c_str(), transfersMs(ph[2]).c_str(),
        transfersMs(ph[0] + ph[1] + ph[2]).c_str(), transfersMs(t.wallMs).c_str(),
        transfersMs(overlap).c_str());
  if (transferModes()[static_cast<size_t>(mode)].streams && !showModel && !r.modelled)
    mutedText(ctx.theme,
              "A span starts when its stream reaches it, so a copy waiting behind another "
              "stream's copy for the copy engine (one each way) looks longer than it is; the "
              "phase times above count the time covered, not the sum.");
  else if (!transferModes()[static_cast<size_t>(mode)].pinned)
    mutedText(ctx.theme,
              "Pageable copies go through a pinned staging buffer that the CPU fills, and hold "
              "the host until they finish: nothing can overlap them.");
  endPanel(ctx);
}

}  // namespace cudalab
