#include "lessons/playground/playground_panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/format.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab::pg {

using namespace playground;

namespace {

std::string numberText(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[48];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// A comparison's note in the UI's language, from the report's fields (Comparison::note() is the
// same in English): the clauses joined by "; ".
std::string noteText(const Comparison& c) {
  std::vector<std::string> clauses;
  if (!c.failure.empty()) clauses.push_back(trf("could not run: %s", trPhrase(c.failure).c_str()));
  // A fixed phrase marked N_() in worker_run.cu.
  if (!c.how.empty()) clauses.push_back(tr(c.how));
  switch (c.outputs) {
    case Comparison::Outputs::NotCompared:
      break;
    case Comparison::Outputs::Identical:
      clauses.push_back(tr("outputs identical to yours, bit for bit"));
      break;
    case Comparison::Outputs::Differ:
      clauses.push_back(trf("%s elements differ from yours", thousands(c.differing).c_str()));
      break;
    case Comparison::Outputs::Unreadable:
      clauses.push_back(tr("could not be read back"));
      break;
  }
  std::string out;
  for (const std::string& clause : clauses)
    out += (out.empty() ? "" : "; ") + clause;
  return out;
}

// The verdict in the UI's language, from the report's counts (the worker's summary is the same in
// English), and the reduction's two sums (its own is unset when it is not a finite number).
std::string summaryText(const RunReport& r) {
  std::string verdict;
  if (r.ok) {
    verdict =
        trf("Correct: every one of %s checked values is right.", thousands(r.checked).c_str());
  } else {
    std::string parts;
    auto add = [&](long long n, const char* fmt) {
      if (n <= 0) return;
      parts += (parts.empty() ? "" : ", ") + trf(fmt, thousands(n).c_str());
    };
    add(r.unwritten, N_("%s never written"));
    add(r.wrong - r.unwritten, N_("%s wrong"));
    add(r.pastEnd, N_("%s writes past the end"));
    add(r.beforeStart, N_("%s writes before the start"));
    verdict = trf("Not correct: %s (of %s checked).", parts.c_str(), thousands(r.checked).c_str());
  }
  if (r.sum && r.exactSum)
    verdict.append(" ").append(trf("Your sum %s, the exact sum %s.", thousands(*r.sum).c_str(),
                                   thousands(*r.exactSum).c_str()));
  return verdict;
}

std::string msText(double ms) {
  if (ms <= 0) return "-";
  return ms < 0.1 ? trimmedFixed(ms * 1000, 1) + " us" : trimmedFixed(ms, ms < 10 ? 3 : 1) + " ms";
}

}  // namespace

void drawVerdict(LessonContext& ctx, const Exercise& e, const RunParams& p, const RunReport& r) {
  const Theme& t = ctx.theme;
  ImGui::PushStyleColor(ImGuiCol_Text, r.ok ? t.goodColour() : t.errorColour());
  ImGui::PushFont(t.fonts().bold);
  textWrapped("%s", summaryText(r).c_str());
  ImGui::PopFont();
  ImGui::PopStyleColor();
  mutedText(t, trf("Checked: %s.", tr(e.checkText)).c_str());
  if (r.first.empty()) return;
  ImGui::TextUnformatted(r.wrong == 1 && e.kind == Kind::Reduce ? tr("The total:")
                                                                : tr("The first wrong values:"));
  const char* where = e.kind == Kind::Counter     ? N_("run")
                      : e.kind == Kind::Histogram ? N_("bin")
                      : matrixProduct(e.kind)     ? N_("C[row, column]")
                      : squareMatrix(e.kind)      ? N_("out[row, column]")
                      : e.kind == Kind::Reduce    ? N_("partial sum")
                                                  : N_("element");
  const TableColumn kFirstColumns[] = {{where}, {"expected"}, {"got"}};
  if (beginDataTable("##first", kFirstColumns, static_cast<int>(r.first.size()))) {
    for (const Mismatch& m : r.first) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (squareMatrix(e.kind))
        ImGui::Text("[%lld, %lld]", m.index / p.n, m.index % p.n);
      else if (m.index < 0)
        ImGui::TextUnformatted(tr("sum"));
      else if (e.kind == Kind::Counter)
        ImGui::Text("%lld", m.index + 1);
      else
        ImGui::TextUnformatted(thousands(m.index).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::isnan(m.expected) ? tr("(any)") : numberText(m.expected).c_str());
      ImGui::TableNextColumn();
      if (m.unwritten)
        ImGui::TextColored(t.warningColour(), "%s", tr("never written"));
      else
        ImGui::TextUnformatted(numberText(m.got).c_str());
    }
    endDataTable();
  }
}

void drawPictureLegend(LessonContext& ctx, const RunReport& r) {
  struct Item {
    const char* name;
    ImU32 colour;
    long long count;
  } items[] = {
      {N_("right"), IM_COL32(0, 158, 115, 255), r.checked - r.wrong},
      {N_("wrong"), IM_COL32(230, 159, 0, 255), r.wrong - r.unwritten},
      {N_("never written (still the poison)"), IM_COL32(200, 200, 200, 255), r.unwritten},
      {N_("written past the end"), IM_COL32(217, 13, 26, 255), r.pastEnd},
  };
  for (const Item& it : items) {
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.15f),
                                              ImVec2(p.x + h * 0.7f, p.y + h * 0.85f), it.colour);
    ImGui::Dummy(ImVec2(h * 0.8f, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(
        trf("%s: %s", tr(it.name), thousands(std::max(0LL, it.count)).c_str()).c_str());
  }
  if (!r.guardCells.empty())
    mutedText(ctx.theme,
              "Below the gap: the guard zone the app keeps past the end of the output, "
              "grey while no thread writes there.");
  if (r.cellSpan > 1)
    mutedText(ctx.theme,
              trf("Each square is %s neighbouring elements, coloured by the worst of them.",
                  thousands(r.cellSpan).c_str())
                  .c_str());
}

void drawExercisePlot(LessonContext& ctx, const Exercise& e, const RunParams& p,
                      const RunReport& r) {
  const float h = 14.0f * ImGui::GetTextLineHeight();
  if (e.kind == Kind::Counter && !r.counts.empty()) {
    std::vector<double> ys(r.counts.begin(), r.counts.end());
    std::vector<std::string> names;
    for (size_t i = 0; i < ys.size(); ++i)
      names.push_back(std::to_string(i + 1));
    std::vector<const char*> cn;
    for (const std::string& n : names)
      cn.push_back(n.c_str());
    const Launch l = launchFor(e, p);
    if (plot::BeginPlot("playground_counts", "The counter after each run", ImVec2(-1, h))) {
      // Log scale: a racing counter can end at 1, which a linear axis up to 4,096 hides.
      plot::SetupAxes({N_("Run")}, {N_("Count"), plot::Scale::Log10, 0.5, NAN, nullptr});
      plot::SetupCategories(cn.data(), static_cast<int>(cn.size()));
      plot::PlotBars("counter[0]", ys.data(), static_cast<int>(ys.size()));
      plot::PlotHLine("threads launched", static_cast<double>(l.grid.count() * l.block.count()));
      plot::EndPlot();
    }
    mutedText(ctx.theme,
              "Every run starts from 0. With the race the count is far below the number of "
              "threads: on a fast GPU often just 1 or a few, since nearly every thread read the "
              "counter before any wrote it back. Which additions are lost depends on timing, so "
              "the count can change from run to run.");
  } else if (e.kind == Kind::Histogram && !r.binsGot.empty()) {
    const int bins = static_cast<int>(r.binsGot.size());
    std::vector<double> got(r.binsGot.begin(), r.binsGot.end());
    std::vector<double> want(r.binsExpected.begin(), r.binsExpected.end());
    std::vector<std::string> names;
    for (int b = 0; b < bins; ++b)
      names.push_back(bins <= 20 ? std::to_string(b)
                                 : (b % (bins / 10) == 0 ? std::to_string(b) : ""));
    std::vector<const char*> cn;
    for (const std::string& n : names)
      cn.push_back(n.c_str());
    if (plot::BeginPlot("playground_bins", "Counts per bin", ImVec2(-1, h))) {
      plot::SetupAxes({N_("Bin")}, {N_("Numbers"), plot::Scale::Linear, 0, NAN, nullptr});
      plot::SetupCategories(cn.data(), bins);
      plot::PlotBars("your kernel", got.data(), bins);
      plot::PlotBars("cpu_histogram", want.data(), bins);
      plot::EndPlot();
    }
  } else if (e.kind == Kind::Elementwise && !r.samples.empty()) {
    std::vector<double> xs, e32, e64;
    for (const RunReport::Sample& s : r.samples) {
      xs.push_back(s.x);
      auto rel = [&](double v) {
        const double err = std::fabs(v - s.exact) / std::fabs(s.exact);
        return std::isfinite(err) ? std::max(err, 1e-18) : 1.0;
      };
      e32.push_back(rel(s.f32));
      e64.push_back(rel(s.f64));
    }
    if (plot::BeginPlot("playground_f_error", "Relative error of your f against x",
                        ImVec2(-1, h))) {
      plot::SetupAxes({"x", plot::Scale::Log10, NAN, NAN, nullptr},
                      {N_("Relative error"), plot::Scale::Log10, 1e-18, 10, nullptr});
      plot::PlotLine("float", xs.data(), e32.data(), static_cast<int>(xs.size()));
      plot::PlotLine("double", xs.data(), e64.data(), static_cast<int>(xs.size()));
      plot::PlotHLine("8 ulps of float", kElementwiseUlps * std::ldexp(1.0, -23));
      plot::PlotHLine("8 ulps of double", kElementwiseUlps * std::ldexp(1.0, -52));
      plot::EndPlot();
    }
    mutedText(ctx.theme,
              "An error of 1 means no correct digit: the result came out as 0 (everything "
              "cancelled). Errors below 1e-18 are drawn at 1e-18.");
  }
}

void drawTimes(LessonContext& ctx, const Exercise& e, const RunReport& r, bool sanitized) {
  if (sanitized)
    ImGui::TextColored(ctx.theme.warningColour(), "%s",
                       tr("Run under compute-sanitizer: every access was checked, so these times "
                          "are many times the real ones."));
  ImGui::Text(tr("Your kernel: %s (median of %d runs after 2 warm-ups, CUDA events)"),
              msText(r.medianMs).c_str(), static_cast<int>(r.kernelMs.size()));
  if (matrixProduct(e.kind))
    ImGui::Text(tr("%s GFLOP/s (2 n^3 flops)"), thousands(std::llround(r.gflops())).c_str());
  else if (r.bytes > 8)
    ImGui::Text(tr("%s GB/s (%s read and written)"),
                trimmedFixed(r.gbps(), r.gbps() < 10 ? 2 : 0).c_str(), mib(r.bytes).c_str());
  if (r.comparisons.empty()) return;
  // The labels are the exercise table's builtIn (marked N_()) and library names.
  static const TableColumn kCmpColumns[] = {{"beside it"}, {"time"}, {"yours takes"}};
  if (beginDataTable("##cmp", kCmpColumns, static_cast<int>(r.comparisons.size()))) {
    for (const Comparison& c : r.comparisons) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(tr(c.label.c_str()));
      const std::string note = noteText(c);
      if (!note.empty()) helpTooltip(note.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(msText(c.ms).c_str());
      ImGui::TableNextColumn();
      if (c.ms > 0 && r.medianMs > 0)
        ImGui::Text(tr("%sx its time"), trimmedFixed(r.medianMs / c.ms, 2).c_str());
    }
    endDataTable();
  }
  for (const Comparison& c : r.comparisons)
    if (const std::string note = noteText(c); !note.empty())
      mutedText(ctx.theme, trf("%s: %s.", tr(c.label.c_str()), note.c_str()).c_str());
}

void drawAttempts(LessonContext& ctx, const std::vector<Attempt>& attempts) {
  std::vector<double> xOk, yOk, xBad, yBad;
  int compileFailures = 0;
  for (const Attempt& a : attempts) {
    if (!a.compiled) ++compileFailures;
    if (!a.ran) continue;
    (a.correct ? xOk : xBad).push_back(a.number);
    (a.correct ? yOk : yBad).push_back(a.ms / 1000.0);
  }
  if (xOk.empty() && xBad.empty()) {
    mutedText(ctx.theme,
              "Each run of your kernel adds a point here: its time, and whether it was "
              "right.");
    return;
  }
  if (plot::BeginPlot("playground_attempts", "Your attempts",
                      ImVec2(-1, 10.0f * ImGui::GetTextLineHeight()))) {
    const double last = attempts.empty() ? 1 : attempts.back().number;
    plot::SetupAxes({N_("Attempt"), plot::Scale::Linear, 0.5, std::max(5.0, last) + 0.5, "%.0f"},
                    {N_("Kernel time"), plot::Scale::Log10, NAN, NAN, "s"});
    plot::SetNextColour(2);
    plot::PlotScatter("right", xOk.data(), yOk.data(), static_cast<int>(xOk.size()));
    plot::SetNextColour(1);
    plot::PlotScatter("wrong", xBad.data(), yBad.data(), static_cast<int>(xBad.size()));
    plot::EndPlot();
  }
  if (compileFailures > 0)
    mutedText(
        ctx.theme,
        compileFailures == 1
            ? tr("1 attempt did not compile.")
            : trf("%s attempts did not compile.", thousands(compileFailures).c_str()).c_str());
}

void drawLaunchNumbers(LessonContext& ctx, const LaunchNumbers& n, bool fromDevice,
                       int gpuBlocksPerSM, int kernelMaxThreads, const std::string& smName) {
  // `what` and `help` are marked N_() at the calls and translated here.
  auto row = [](const char* what, const std::string& v, const char* help) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(tr(what));
    if (help) helpTooltip(help);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(v.c_str());
  };
  const BlockOccupancy& o = n.occupancy;
  const int rows = 7 + (gpuBlocksPerSM > 0) + (kernelMaxThreads > 0) + (n.waves > 0);
  static const TableColumn kLaunchColumns[] = {{"quantity"}, {"value"}};
  if (beginDataTable("##launch", kLaunchColumns, rows)) {
    row(N_("Threads"),
        trf("%s (%s blocks of %s)", thousands(n.threads).c_str(), thousands(n.blocks).c_str(),
            thousands(n.threadsPerBlock).c_str()),
        nullptr);
    row(N_("Idle threads"), thousands(n.idleThreads),
        N_("Threads beyond the work (elements, or elements of C). With a guard they do nothing; "
           "without one they write past the end."));
    const std::string warps = n.emptyLanes ? trf("%s (%s empty lanes)", thousands(n.warps).c_str(),
                                                 thousands(n.emptyLanes).c_str())
                                           : thousands(n.warps);
    row(N_("Warps"), warps,
        N_("Threads run in warps of 32; a block that is not a multiple of 32 leaves lanes of its "
           "last warp empty."));
    row(N_("Blocks per SM (model)"),
        o.blocksPerSM > 0
            ? trf("%s, limited by %s", thousands(o.blocksPerSM).c_str(), tr(limiterText(o.limiter)))
            : trf("none fit: %s", tr(limiterText(o.limiter))),
        N_("From the compiler's registers per thread and shared memory per block: by threads per "
           "SM, blocks per SM, registers (in units of 256 per warp) and shared memory, the "
           "smallest wins."));
    if (gpuBlocksPerSM > 0)
      row(N_("Blocks per SM (the GPU says)"), thousands(gpuBlocksPerSM),
          N_("cudaOccupancyMaxActiveBlocksPerMultiprocessor for your kernel at this block size."));
    if (kernelMaxThreads > 0)
      row(N_("Largest block for this kernel"),
          trf("%s threads", thousands(kernelMaxThreads).c_str()),
          N_("From the loaded kernel's attributes (cudaFuncGetAttributes): 1,024, unless its "
             "registers per thread make a full block too big for one SM."));
    row(N_("Occupancy"), trf("%s%% of the SM's warps", trimmedFixed(100 * o.occupancy, 0).c_str()),
        N_("Resident warps over the most an SM can hold. More warps hide more memory latency; past "
           "about half, more rarely helps a memory-bound kernel."));
    row(N_("By threads / registers / shared"),
        thousands(o.byThreads) + " / " + thousands(o.byRegisters) + " / " + thousands(o.byShared),
        N_("How many blocks each resource alone would allow."));
    if (n.waves > 0)
      row(N_("Waves"),
          trf("%s (last one %s%% full)", thousands(n.waves).c_str(),
              trimmedFixed(100 * n.tailFraction, 0).c_str()),
          N_("Blocks the GPU runs at once (blocks per SM x SMs) fill one wave; a grid of more "
             "blocks runs in several."));
    endDataTable();
  }
  mutedText(ctx.theme,
            fromDevice ? trf("SMs: %s on %s", thousands(n.smCount).c_str(), smName.c_str()).c_str()
                       : tr("Model of an H100 (132 SMs): no GPU to ask."));
}

namespace {

// A line's stall cells: its share of all the samples, the reason most of its samples give, and a
// tooltip with every reason; marked from a fifth of the samples on.
void stallCells(LineRow& row, const counters::StallTotals& line, std::uint64_t all,
                const std::vector<std::string>& reasons) {
  const double share = double(line.total) / double(all);
  row.stalls = trimmedFixed(100 * share, 1) + "%";
  row.hot = share >= 0.2;
  const int top = line.top();
  if (top < 0) return;
  auto labelOf = [&](std::size_t i, bool meaning) -> std::string {
    const counters::StallText* t = counters::stallText(reasons[i]);
    return t ? tr(meaning ? t->meaning : t->label) : reasons[i];
  };
  row.waitingFor = labelOf(std::size_t(top), false);
  row.stallsTip = trf("%s of the %s samples were taken with a warp at this line:",
                      thousands(static_cast<long long>(line.total)).c_str(),
                      thousands(static_cast<long long>(all)).c_str());
  std::vector<std::pair<std::uint64_t, std::size_t>> order;
  for (std::size_t i = 0; i < line.byReason.size(); ++i)
    if (line.byReason[i] > 0) order.push_back({line.byReason[i], i});
  std::sort(order.rbegin(), order.rend());
  for (const auto& [n, i] : order)
    row.stallsTip +=
        trf("\n  %.0f%%  %s", 100.0 * double(n) / double(line.total), labelOf(i, true).c_str());
}

}  // namespace

std::vector<LineRow> lineRows(const std::string& text, const RunReport& r) {
  using counters::SassMetric;
  std::vector<std::string> lines;
  for (size_t start = 0;;) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  auto count = [](std::uint64_t v) { return thousands(static_cast<long long>(v)); };
  // The PC samples summed per line, and in all.
  std::map<int, counters::StallTotals> stallsByLine;
  counters::StallTotals allStalls(r.stallReasons.size());
  for (const counters::StallRecord& s : r.stalls) {
    stallsByLine.try_emplace(s.line, r.stallReasons.size()).first->second.add(s);
    allStalls.add(s);
  }
  std::vector<LineRow> rows;
  for (const counters::LineCounters& l : r.lines) {
    if (l.value(SassMetric::Instructions) == 0) continue;
    LineRow row;
    row.line = l.line > 0 ? std::to_string(l.line) : "-";
    // Translated here: the rows are made again for each run (the learner's lines are not).
    row.source = l.line == 0 ? tr("(no line of yours: headers, the compiler's own code)")
                 : l.line <= int(lines.size())
                     ? lines[size_t(l.line - 1)]
                     : tr("(added by cudalab: the loop that calls your f)");
    row.source.erase(0, row.source.find_first_not_of(" \t"));
    row.sourceTip = trf("%d machine instructions of the compiled kernel come from this line.",
                        static_cast<int>(l.instructionsOnLine));
    row.instructions = count(l.value(SassMetric::Instructions));
    row.threads = trimmedFixed(l.threadsPerInstruction(), 1);
    row.idleThreads = l.threadsPerInstruction() < 31.5;
    if (l.value(SassMetric::GlobalRequests) > 0) {
      row.sectors = trimmedFixed(l.sectorsPerRequest(), 1);
      // 4 sectors carry a warp's 32 consecutive floats; 8 or more means lanes spread out.
      row.spread = l.sectorsPerRequest() >= 8;
      row.sectorsTip =
          trf("%s sectors in %s warp-wide loads and stores. 4 per access when a warp "
              "reads 32 consecutive floats; 32 when every lane reads its own sector.",
              count(l.value(SassMetric::GlobalSectors)).c_str(),
              count(l.value(SassMetric::GlobalRequests)).c_str());
    }
    if (l.value(SassMetric::SharedRequests) > 0) {
      row.passes = trimmedFixed(l.wavefrontsPerRequest(), 1);
      row.conflicts = l.wavefrontsPerRequest() >= 2;
    }
    if (const auto it = stallsByLine.find(l.line); it != stallsByLine.end() && allStalls.total > 0)
      stallCells(row, it->second, allStalls.total, r.stallReasons);
    rows.push_back(std::move(row));
  }
  return rows;
}

void drawLineCounters(LessonContext& ctx, const std::vector<LineRow>& rows, const RunReport& r) {
  if (!beginPanel(ctx, "lines", "Measured by the GPU's counters, line by line", kPanelCollapsible))
    return endPanel(ctx);
  if (!r.linesProblem.empty()) {
    errorText(ctx.theme, Status::error(r.linesProblem));
    return endPanel(ctx);
  }
  // Every column as wide as its widest cell (the source in the editor's font), never cut: a
  // narrow window or a projector's scale scrolls the table sideways instead. All of priority 0:
  // none hides to make room for a long line of source.
  static const TableColumn kLineColumns[] = {
      {"line"},
      {"source"},
      {"stall samples"},
      {"waiting most for"},
      {"warp instructions"},
      {"threads / instruction"},
      {"sectors / global access"},
      {"passes / shared access"},
  };
  // A value in the warning colour where it marks waste, "-" where the line has no such access.
  auto cell = [&](const std::string& text, bool marked) {
    ImGui::TableNextColumn();
    if (marked) ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.warningColour());
    ImGui::TextUnformatted(text.empty() ? "-" : text.c_str());
    if (marked) ImGui::PopStyleColor();
  };
  if (beginDataTable("##lines", kLineColumns, static_cast<int>(rows.size()))) {
    for (const LineRow& row : rows) {
      ImGui::TableNextRow();
      cell(row.line, false);
      ImGui::TableNextColumn();
      ImGui::PushFont(ctx.theme.fonts().mono);
      ImGui::TextUnformatted(row.source.c_str());
      ImGui::PopFont();
      helpTooltip(row.sourceTip.c_str());
      // Where the time goes first, beside the line; then what each execution did.
      cell(row.stalls, row.hot);
      if (!row.stallsTip.empty()) helpTooltip(row.stallsTip.c_str());
      cell(row.waitingFor, false);
      if (!row.stallsTip.empty()) helpTooltip(row.stallsTip.c_str());
      cell(row.instructions, false);
      cell(row.threads, row.idleThreads);
      cell(row.sectors, row.spread);
      if (!row.sectorsTip.empty()) helpTooltip(row.sectorsTip.c_str());
      cell(row.passes, row.conflicts);
      if (!row.passes.empty())
        helpTooltip(
            "Passes shared memory needed per warp-wide access: 1 without bank "
            "conflicts, up to 32 when all lanes hit different words of one bank.");
    }
    endDataTable();
  }
  mutedText(ctx.theme,
            "Read by the GPU's counters (CUPTI's SASS metrics, as in Nsight Compute's source "
            "view) on the first launch of your kernel, which is not timed. Marked: lines whose "
            "warps run with idle threads (a branch or a guard), whose global accesses spread "
            "over 8 or more sectors (lanes far apart), or whose shared accesses need 2 or more "
            "passes (bank conflicts).");
  // The samples come from untimed runs of their own (WorkerClient::run).
  if (!r.stallsProblem.empty())
    errorText(ctx.theme, Status::error(r.stallsProblem));
  else if (!r.stalls.empty())
    mutedText(ctx.theme,
              "Stall samples: while your kernel ran again, each SM's scheduler noted every few "
              "hundred cycles which instruction a warp was at and why it was not issuing (CUPTI's "
              "PC sampling, as in Nsight Compute's source view). A line's share of the samples is "
              "about its share of the time warps spent there; marked from a fifth on. Hover for "
              "every reason.");
  endPanel(ctx);
}

void drawResources(LessonContext& ctx, const CompileResult& c) {
  if (c.resources.empty()) {
    mutedText(ctx.theme, "The compiler did not report resources for this program.");
    return;
  }
  // Registers and spills carry the lesson; shared memory and the stack give way first.
  static const TableColumn kColumns[] = {
      {"kernel"},
      {"registers per thread", "registers", 0},
      {"shared memory per block", "shared", 1},
      {"local memory (the stack)", "local", 2},
      {"spills", nullptr, 0, "Registers that did not fit, stored to local memory and back."},
  };
  if (beginDataTable("##res", kColumns, static_cast<int>(c.resources.size()))) {
    for (const PtxasInfo& p : c.resources) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.function.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", p.registers);
      ImGui::TableNextColumn();
      ImGui::Text("%s B", thousands(p.sharedBytes).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s B", thousands(p.stackBytes).c_str());
      ImGui::TableNextColumn();
      if (p.spillStores + p.spillLoads > 0)
        ImGui::TextColored(ctx.theme.warningColour(), "%s B",
                           thousands(p.spillStores + p.spillLoads).c_str());
      else
        ImGui::TextUnformatted(tr("none"));
    }
    endDataTable();
  }
  mutedText(ctx.theme,
            "Registers are the fastest storage, but an SM has 65,536 of them: the more each thread "
            "uses, the fewer threads fit. Local memory is the thread's stack in device memory (an "
            "array indexed at run time lands there); spills are registers that did not fit.");
}

std::string dimText(const Dim3& d) {
  return thousands(d.x) + ", " + thousands(d.y) + ", " + thousands(d.z);
}

void dimInputs(const char* id, Dim3& d, long long max) {
  ImGui::PushID(id);
  const float w = (ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3;
  long long* v[] = {&d.x, &d.y, &d.z};
  const char* names[] = {"##x", "##y", "##z"};
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    ImGui::InputScalar(names[i], ImGuiDataType_S64, v[i]);
    helpTooltip(i == 0 ? "x" : i == 1 ? "y" : "z");
    *v[i] = std::clamp<long long>(*v[i], 1, max);
  }
  ImGui::PopID();
}

}  // namespace cudalab::pg
