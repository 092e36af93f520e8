#include "lessons/atomics/atomics_race_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
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

// The plain counter against atomicAdd at the largest thread count measured, said from the
// numbers.
std::string plainVsAtomic(const AtomicsContentionView& contention) {
  const ContentionPoint *plain = nullptr, *global = nullptr;
  for (const ContentionPoint& p : contention.threads) {
    if (p.id == CounterId::Plain && (!plain || p.threads > plain->threads)) plain = &p;
    if (p.id == CounterId::Global && (!global || p.threads > global->threads)) global = &p;
  }
  if (!plain || !global || plain->threads != global->threads || global->ms <= 0) return "";
  const double ratio = plain->ms / global->ms;
  const std::string n = thousands(plain->threads), plainMs = trimmedFixed(plain->ms, 3),
                    atomicMs = trimmedFixed(global->ms, 3);
  if (ratio > 1.1)
    return trf(
        "At %s threads the plain counter took %s ms against atomicAdd's %s ms: the race is not "
        "even faster; every thread's read and write to the one address queue up in L2, while a "
        "warp's atomics travel as one.",
        n.c_str(), plainMs.c_str(), atomicMs.c_str());
  return trf(
      "At %s threads the plain counter took %s ms against atomicAdd's %s ms: the race saves "
      "little, and its answer is wrong.",
      n.c_str(), plainMs.c_str(), atomicMs.c_str());
}

}  // namespace

// [SECTION] the race lab

void drawAtomicsRacePanel(LessonContext& ctx, const RaceReport* result, const RaceParams& chosen,
                          bool running, bool gpu) {
  if (!beginPanel(ctx, "race", "The race: counter += 1 against atomics")) return endPanel(ctx);
  const RaceReport* r = result;
  const RaceParams& p = r ? r->p : chosen;
  if (r)
    textWrapped(
        "%s blocks of %d threads on %s, %d runs of each: the counter should reach %s every "
        "time.",
        thousands(p.blocks).c_str(), p.threads, r->device.c_str(), p.repeats,
        thousands(p.expected()).c_str());
  if (r)
    staleNote(
        ctx.theme,
        p.blocks != chosen.blocks || p.threads != chosen.threads || p.repeats != chosen.repeats,
        "Run the race");
  else
    textWrapped("%s", running ? tr("Running...")
                      : gpu   ? tr("Not run yet: press \"Run the race\".")
                              : tr("No GPU: nothing runs. The atomics each variant issues "
                                     "are computed for the chosen launch."));
  // Short headers, readable on a projector; the text under the table says what each holds.
  // The counts and what was lost carry the lesson; the time gives way first.
  static const TableColumn kColumns[] = {
      {"variant"},
      {"counts", nullptr, 0, nullptr, true},
      {"updates lost", "lost", 0, nullptr, true},
      {"results", nullptr, 1, nullptr, true},
      {"atomics", nullptr, 2},
      {"time (ms)", "ms", 3, nullptr, true},
  };
  if (beginDataTable("##race", kColumns, static_cast<int>(counters().size()), r != nullptr)) {
    for (const CounterInfo& c : counters()) {
      const RaceVariant* v = r ? r->find(c.id) : nullptr;
      swatchRow(c.colour);
      ImGui::TextUnformatted(c.key);
      helpTooltip(trf("%s. %s", tr(c.label), tr(c.help)).c_str());
      auto cell = [&](const std::string& text, bool bad) {
        ImGui::TableNextColumn();
        if (bad) ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
        ImGui::TextUnformatted(text.c_str());
        if (bad) ImGui::PopStyleColor();
      };
      const bool wrong = v && (v->minCount() != p.expected() || v->maxCount() != p.expected());
      cell(v ? (v->minCount() == v->maxCount()
                    ? thousands(v->minCount())
                    : thousands(v->minCount()) + " - " + thousands(v->maxCount()))
             : "",
           wrong);
      cell(v ? thousands(std::llround(double(p.expected()) - v->meanCount())) : "", wrong);
      cell(v ? std::to_string(v->distinct()) : "", v && v->distinct() > 1);
      if (v)
        helpTooltip(trf("How many different final counts the %d runs gave.",
                        static_cast<int>(v->counts.size()))
                        .c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(thousands(globalAtomics(c.id, p.blocks, p.threads)).c_str());
      if (c.id == CounterId::Shared)
        helpTooltip(trf("And %s atomics on shared memory, one per thread.",
                        thousands(sharedAtomics(c.id, p.blocks, p.threads)).c_str())
                        .c_str());
      ImGui::TableNextColumn();
      if (v) ImGui::TextUnformatted(trimmedFixed(v->medianMs, 3).c_str());
    }
    endDataTable();
  }
  if (r && plot::BeginPlot("atomics_race", "The counter after each run##raceplot", ImVec2(-1, 0))) {
    plot::SetupAxes({N_("run")}, {N_("final count"), plot::Scale::Log10});
    plot::SetupLegend(plot::Legend::Outside);
    for (const RaceVariant& v : r->variants) {
      std::vector<double> xs, ys;
      for (size_t i = 0; i < v.counts.size(); ++i) {
        xs.push_back(double(i + 1));
        ys.push_back(std::max(1.0, double(v.counts[i])));
      }
      plot::SetNextColour(counterInfo(v.id).colour);
      plot::PlotScatter(counterInfo(v.id).key, xs.data(), ys.data(), int(xs.size()));
    }
    plot::SetNextColour(7);
    plot::PlotHLine("blocks x threads", double(p.expected()));
    plot::EndPlot();
  }
  // What the plain counter did in these runs, said from the numbers: whole sentences, each
  // translated on its own, between the two fixed paragraphs.
  std::string text =
      tr("counts: the lowest and highest final count over the runs; lost: the mean number "
         "of updates missing; results: how many different counts the runs gave; atomics: "
         "those the launch sends to the global counter. The course printed \"Should be "
         "4096\" and a much smaller number. The plain counter loses updates in two ways: "
         "the 32 threads of a warp read the same value and write the same value + 1 (one "
         "update out of 32 survives), and warps whose reads fall between another warp's "
         "read and write overwrite it.");
  if (const RaceVariant* v = r ? r->find(CounterId::Plain) : nullptr) {
    text += " ";
    if (v->minCount() == p.expected() && v->maxCount() == p.expected())
      text +=
          tr("Here the plain counter happened to count right in every run: with so few "
             "threads no two of them overlapped.");
    else if (v->distinct() == 1 && v->minCount() == 1)
      text +=
          trf("Here every run gave the same wrong count, %s: every thread read 0 before any write "
              "landed. With more blocks than the GPU holds at once (try 1,000 x 1,024), later "
              "blocks read what earlier ones wrote, and the count changes from run to run.",
              thousands(v->minCount()).c_str());
    else if (v->distinct() == 1)
      text +=
          trf("Here every run gave the same wrong count, %s. With more blocks than the GPU holds "
              "at once (try 1,000 x 1,024), later blocks read what earlier ones wrote, and the "
              "count changes from run to run.",
              thousands(v->minCount()).c_str());
    else
      text +=
          trf("Here the %d runs gave %d different counts, from %s to %s: how many updates survive "
              "depends on how the warps happen to interleave.",
              static_cast<int>(v->counts.size()), v->distinct(), thousands(v->minCount()).c_str(),
              thousands(v->maxCount()).c_str());
  }
  text += " ";
  text +=
      tr("The three atomic variants reach the exact count every time; they differ in how "
         "many atomics reach the one global address.");
  mutedText(ctx.theme, text.c_str());
  endPanel(ctx);
}

// [SECTION] how an update is lost

void drawAtomicsStoryPanel(LessonContext& ctx, bool& interleaved) {
  if (!beginPanel(ctx, "story", "How an update is lost: two warps, step by step"))
    return endPanel(ctx);
  checkbox("Warp B reads before warp A writes", &interleaved);
  const RaceStory st = raceStory(interleaved);
  const float s = ctx.scale;
  // Two warps' columns and the counter's, as wide as the panel allows: every label wraps inside
  // its box and every box is as tall as its text (at a projector's scale the lines would
  // otherwise run over the next column).
  ImFont* font = ImGui::GetFont();
  const float fs = ImGui::GetFontSize(), pad = 6 * s, gap = 10 * s;
  const char* counterHead = tr("counter");
  const float counterW =
      std::max(ImGui::CalcTextSize(counterHead).x, ImGui::CalcTextSize("0000").x) + 2 * pad;
  const float avail = ImGui::GetContentRegionAvail().x;
  const float colW = std::max(3 * fs, std::min(320.0f * s, (avail - counterW - 3 * gap) / 2));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
  const float counterX = o.x + 2 * colW + 2 * gap;
  auto wrappedHeight = [&](const char* t, float width) {
    return font->CalcTextSizeA(fs, FLT_MAX, width, t).y;
  };
  const char* headA = tr("warp A (32 threads)");
  const char* headB = tr("warp B (32 threads)");
  const float headH = std::max({wrappedHeight(headA, colW), wrappedHeight(headB, colW),
                                wrappedHeight(counterHead, counterW)});
  dl->AddText(font, fs, ImVec2(o.x, o.y), text, headA, nullptr, colW);
  dl->AddText(font, fs, ImVec2(o.x + colW + gap, o.y), text, headB, nullptr, colW);
  dl->AddText(font, fs, ImVec2(counterX, o.y), text, counterHead, nullptr, counterW);
  long long counter = 0;
  float y = o.y + headH + pad;
  for (size_t i = 0; i < st.events.size(); ++i) {
    const RaceEvent& e = st.events[i];
    const float x = o.x + float(e.warp) * (colW + gap);
    char what[96];
    std::snprintf(what, sizeof what, e.write ? tr("write %lld") : tr("read %lld"),
                  static_cast<long long>(e.value));
    const std::string label = std::string(what) + "\n" +
                              (e.write ? tr("each thread: its read + 1") : tr("all 32 the same"));
    const float boxH = wrappedHeight(label.c_str(), colW - 2 * pad) + 2 * pad;
    const ImU32 fill = paletteColour(e.warp == 0 ? 0 : 2, e.write ? 0.55f : 0.25f);
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + colW, y + boxH), fill, 4 * s);
    dl->AddRect(ImVec2(x, y), ImVec2(x + colW, y + boxH), border, 4 * s);
    dl->AddText(font, fs, ImVec2(x + pad, y + pad), text, label.c_str(), nullptr, colW - 2 * pad);
    if (e.write) counter = e.value;
    const std::string c = std::to_string(counter);
    dl->AddRect(ImVec2(counterX, y), ImVec2(counterX + counterW, y + boxH), border, 4 * s);
    dl->AddText(ImVec2(counterX + pad, y + pad), text, c.c_str());
    y += boxH + pad;
  }
  ImGui::Dummy(ImVec2(counterX + counterW - o.x, y - o.y));
  textWrapped(
      "Result %lld, for %lld additions: %lld lost. %s", st.result, st.expected,
      st.expected - st.result,
      interleaved
          ? tr("Warp B read 0 before warp A's write of 1 arrived, so both wrote 1: warp A's "
               "update was lost as well as 31 of each warp's 32.")
          : tr("Even when the warps take turns, each warp adds only 1: its 32 threads read the "
               "same value in the same instruction and write the same result."));
  mutedText(ctx.theme,
            "This picture is a model of two warps, not a measurement. An atomic operation "
            "makes read, add and write one step that no other thread can come between: the "
            "memory system (L2 for global memory, the SM for shared memory) applies the "
            "updates to one address one after another. That is why atomics are correct, and "
            "why they cost time when many threads aim at one address.");
  endPanel(ctx);
}

// [SECTION] contention

void drawAtomicsContentionPanel(LessonContext& ctx, const AtomicsContentionView* contention,
                                bool running, bool gpu) {
  if (!beginPanel(ctx, "contention", "Contention: what atomics cost on one address"))
    return endPanel(ctx);
  if (waitingForMeasurement(bool(contention), running, gpu,
                            N_("Press \"Contention curves\" to measure.")))
    return endPanel(ctx);
  if (plot::BeginPlot("atomics_threads", "All threads on one counter##threads", ImVec2(-1, 0))) {
    plot::SetupAxes({N_("threads"), plot::Scale::Log10},
                    {N_("time"), plot::Scale::Log10, NAN, NAN, "s"});
    plot::SetupLegend(plot::Legend::Outside);
    for (const CounterInfo& c : counters()) {
      std::vector<double> xs, ys;
      for (const ContentionPoint& p : contention->threads)
        if (p.id == c.id) xs.push_back(double(p.threads)), ys.push_back(p.ms * 1e-3);
      plot::SetNextColour(c.colour);
      plot::PlotLine(c.key, xs.data(), ys.data(), int(xs.size()));
    }
    plot::EndPlot();
  }
  const long long t = contention->addresses.empty() ? 0 : contention->addresses[0].threads;
  if (plot::BeginPlot(
          "atomics_addresses",
          (trf("atomicAdd from %s threads over N counters", thousands(t).c_str()) + "##addresses")
              .c_str(),
          ImVec2(-1, 0))) {
    plot::SetupAxes({N_("counters"), plot::Scale::Log10},
                    {N_("time"), plot::Scale::Log10, NAN, NAN, "s"});
    plot::SetupLegend(plot::Legend::Outside);
    std::vector<double> xs, ys;
    for (const ContentionPoint& p : contention->addresses)
      xs.push_back(double(p.addresses)), ys.push_back(p.ms * 1e-3);
    plot::SetNextColour(0);
    plot::PlotLine("global atomicAdd", xs.data(), ys.data(), int(xs.size()));
    plot::SetNextColour(5);
    plot::PlotVLine("1 per warp", double(t) / 32);
    plot::SetNextColour(7);
    plot::PlotVLine("1 per thread", double(t));
    plot::EndPlot();
  }
  bool allOk = true;
  for (const auto* list : {&contention->threads, &contention->addresses})
    for (const ContentionPoint& p : *list)
      allOk = allOk && (p.ok || !counterInfo(p.id).exact);
  // The compiler's own warp aggregation, shown by the two plots' common point: all threads on
  // one counter, once with an address the compiler sees is the same for the whole warp, once
  // with an address each thread computes.
  std::string aggregation;
  const ContentionPoint* uniform = nullptr;
  const ContentionPoint* computed = nullptr;
  for (const ContentionPoint& p : contention->threads)
    if (p.id == CounterId::Global && p.threads == t) uniform = &p;
  for (const ContentionPoint& p : contention->addresses)
    if (p.addresses == 1) computed = &p;
  if (uniform && computed && uniform->ms > 0)
    aggregation = std::string(" ") +
                  trf("At %s threads on one counter, atomicAdd(counter, 1) took %s ms in the "
                      "first plot and %s ms in the second (%sx): where the compiler can "
                      "see that a warp's 32 atomics go to one address, it adds them in "
                      "the warp and sends one, as the warp variant does by hand; "
                      "counters[t / group] hides that, and every thread's atomic reaches "
                      "L2.",
                      thousands(t).c_str(), trimmedFixed(uniform->ms, 3).c_str(),
                      trimmedFixed(computed->ms, 3).c_str(),
                      trimmedFixed(computed->ms / uniform->ms, 0).c_str());
  const std::string vs = plainVsAtomic(*contention);
  mutedText(ctx.theme,
            (std::string(allOk ? tr("Every atomic point was checked: all counters exact.")
                               : tr("Every atomic point was checked: SOME COUNTS WRONG.")) +
             " " +
             tr("Atomics on one address are applied one after another in the L2 cache, so the "
                "time grows with the number of atomics that reach it; the warp and block "
                "variants send 32 and blockDim times fewer. Spread over more counters, the same "
                "atomics run side by side in different L2 slices, until each thread has its own "
                "and the time is that of any write.") +
             (vs.empty() ? "" : " " + vs) + aggregation)
                .c_str());
  endPanel(ctx);
}

}  // namespace cudalab
