// Lesson "atomics": why `counter += 1` from many threads loses updates, what atomics cost as
// threads crowd onto one address, and the histogram ladder from one global atomic per value to
// CUB, every step checked bin by bin against the CPU.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: the race, the histogram, measurements, export
//   the race lab: every variant's counts over the runs
//   how an update is lost: two warps, told step by step
//   contention: time against threads on one address and against addresses
//   the histogram ladder
//   the histogram itself
//   time against skew
//   work on the worker thread; export
#include "ui/i18n.hpp"
#include "lessons/atomics_lesson.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "atomics/atomics.hpp"
#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "ui/data_table.hpp"
#include "ui/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] lesson text, jobs and their results

const LessonInfo kAtomicsLessonInfo{
    "atomics", N_("Atomics: races and the histogram"),
    N_("course file 004: 64 x 64 threads doing global_counter[0] += 1 do not count to 4,096; "
       "cuda.atomic.add fixes it; then a histogram kernel checked against cpu_histogram"),
    N_("The course's racing counter run hundreds of times beside three atomic versions, how an "
       "update is lost, what atomics cost as threads crowd onto one address, and a histogram from "
       "one global atomic per value through shared-memory and per-warp sub-histograms to CUB, "
       "every "
       "step checked bin by bin against the CPU and timed against the copy ceiling.")};

namespace {

using namespace atomics;

const char* kActionRace = "race";
const char* kActionContention = "contention";
const char* kActionLadder = "ladder";
const char* kActionSkew = "skew";
const char* kActionCpu = "cpu";

// The histogram's input as the panel chooses it (sources(), in its order), for presets and plans.
constexpr ParamSpec kSourceChoice{
    "source",
    "Histogram input",
    0,
    2,
    0,
    "",
    "What is counted: the course's normal float32 numbers, the 8-bit pixels of a generated image, "
    "or uniform 8-bit values with a share of them in one bin (skew)."};

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
  if (v < 0) return "CUB's own";
  if (v == 0) return "0";
  if (v >= 0.01) return trimmedFixed(v, v >= 10 ? 0 : 3);
  return sciText(v);
}

struct ContentionView {
  std::vector<ContentionPoint> threads, addresses;
};

class AtomicsLesson final : public Lesson {
 public:
  const LessonInfo& info() const override { return kAtomicsLessonInfo; }
  std::span<const ParamSpec> parameters() const override { return kParams; }
  std::vector<VariantRow> variants() const override {
    std::vector<VariantRow> rows;
    for (const CounterInfo& c : counters())
      rows.push_back({std::string("counter-") + c.key, c.label, c.help});
    for (const HistStepInfo& s : histSteps())
      rows.push_back({s.key, s.label, s.help});
    return rows;
  }
  bool busy() const override {
    return raceJob_.pending() || contentionJob_.pending() || ladderJob_.pending() ||
           skewJob_.pending() || !queue_.empty();
  }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::pair<std::string, Source>> srcs;
    for (const SourceInfo& si : sources())
      srcs.emplace_back(si.key, si.id);
    // Without a GPU the histogram on screen is the CPU's: new data asks for it again, so what
    // is shown is always of the parameters shown (a preset or a plan's step changes them).
    auto histChanged = [this] {
      if (shown_ && !gpu_ && std::find(queue_.begin(), queue_.end(), kActionCpu) == queue_.end())
        queue_.push_back(kActionCpu);
    };
    return {bindParam(kRaceBlocks, race_.blocks),
            bindParam(kRaceThreads, race_.threads),
            bindParam(kRaceRepeats, race_.repeats),
            bindParam(kHistN, hist_.n, histChanged),
            bindParam(kHistBins, hist_.bins, histChanged),
            bindParam(kHistBlock, hist_.block),
            bindParam(kSkew, hist_.skew, histChanged),
            bindChoice(kSourceChoice, hist_.source, std::move(srcs), histChanged)};
  }
  void cancelAll() override {
    raceJob_.cancel();
    contentionJob_.cancel();
    ladderJob_.cancel();
    skewJob_.cancel();
    queue_.clear();  // or the next queued measurement would start
  }

  std::vector<std::string> actionIds() const override {
    return {kActionRace, kActionContention, kActionLadder, kActionSkew, kActionCpu};
  }
  bool startAction(const std::string& id) override {
    if (working()) return false;
    if (id == kActionRace) return startRace();
    if (id == kActionContention) return startContention();
    if (id == kActionLadder) return startLadder(false);
    if (id == kActionCpu) return startLadder(true);
    if (id == kActionSkew) return startSkew();
    return false;
  }

  void onShow(LessonContext& ctx) override {
    shown_ = true;
    gpu_ = ctx.runtime.hasDevice();
    // Without a GPU the CPU's histograms still run; the race is told on the model.
    if (gpu_)
      queue_ = {kActionRace, kActionLadder};
    else
      queue_ = {kActionCpu};
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    textWrapped(tr("The race: every thread adds 1"));
    paramSlider(kRaceBlocks, race_.blocks);
    paramSlider(kRaceThreads, race_.threads);
    paramSlider(kRaceRepeats, race_.repeats);
    if (smallButton(tr("course: 64 x 64"))) {
      race_.blocks = kCourseBlocks;
      race_.threads = kCourseThreads;
    }
    sameLineIfFits(smallButtonWidth("1,000 x 1,024"));
    if (smallButton("1,000 x 1,024")) {
      race_.blocks = 1000;
      race_.threads = 1024;
    }
    textWrapped(tr("%s threads: the counter should reach %s."), thousands(race_.expected()).c_str(),
                thousands(race_.expected()).c_str());
    ImGui::BeginDisabled(working() || !gpu_);
    if (button(tr("Run the race"))) startRace();
    helpTooltip("Each variant runs the chosen number of times, from a counter of 0 each time.");
    if (button(tr("Contention curves"))) startContention();
    helpTooltip(
        "Time for 2^10 to 2^24 threads all adding to one counter (each variant), and for 2^22 "
        "threads spread over 1 to 2^22 counters (global atomicAdd).");
    ImGui::EndDisabled();

    ImGui::Separator();
    ImGui::TextUnformatted(tr("The histogram"));
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    if (beginCombo("##source", sourceInfo(hist_.source).label)) {
      for (const SourceInfo& s : sources())
        if (ImGui::Selectable(s.label, s.id == hist_.source)) hist_.source = s.id;
      ImGui::EndCombo();
    }
    helpTooltip(sourceInfo(hist_.source).help);
    paramSlider(kHistN, hist_.n);
    paramSlider(kHistBins, hist_.bins);
    paramSlider(kHistBlock, hist_.block);
    if (hist_.source == Source::Uniform) paramSlider(kSkew, hist_.skew);
    if (hist_.source == Source::Normal)
      textWrapped(tr("Range [%g, %g): bins of %g."), hist_.xmin, hist_.xmax,
                  double((hist_.xmax - hist_.xmin) / float(hist_.bins)));
    else
      textWrapped(tr("Range 0..255 (one byte per value)."));
    if (smallButton(tr("course: 10,000 in 10 bins"))) {
      hist_.source = Source::Normal;
      hist_.n = 10000;
      hist_.bins = 10;
    }
    sameLineIfFits(smallButtonWidth("benchmark: 2^28, 256"));
    if (smallButton(tr("benchmark: 2^28, 256"))) {
      hist_.n = 1LL << 28;
      hist_.bins = 256;
      if (hist_.source == Source::Normal) hist_.source = Source::Uniform;
    }
    if (!gpu_)
      mutedText(ctx.theme,
                "No GPU: the CPU's histograms run, the atomics each step would issue are computed "
                "for an H100's grid, and the race is told on the model. Timings of kernels need a "
                "GPU.");
    ImGui::BeginDisabled(working() || !gpu_);
    if (button(tr("Measure the ladder"))) startLadder(false);
    helpTooltip(
        "Fresh random values; every step's output poisoned, then compared bin by bin with the "
        "CPU's histogram, then timed (median of 10 runs).");
    if (button(tr("Time against skew"))) startSkew();
    helpTooltip(
        "Uniform bytes with 0% to 100% of them in one bin, every GPU step at each (5 runs): "
        "where atomics on one counter collapse and privatised histograms hold.");
    ImGui::EndDisabled();
    ImGui::BeginDisabled(working());
    if (button(tr("CPU histograms only"))) startLadder(true);
    ImGui::EndDisabled();
    helpTooltip("Fresh values and the CPU's histograms (one thread, all cores): no GPU needed.");
    if (working()) {
      const JobProgress pr = raceJob_.running()         ? raceJob_.progress()
                             : contentionJob_.running() ? contentionJob_.progress()
                             : ladderJob_.running()     ? ladderJob_.progress()
                                                        : skewJob_.progress();
      ImGui::ProgressBar(pr.fraction, ImVec2(-1, 0), pr.what.c_str());
      if (button(tr("Cancel"))) {
        cancelAll();
      }
    }
    ImGui::Spacing();
    if (button(tr("Export JSON"))) exportLessonResults(ctx, results(), true);
  }

  void drawMain(LessonContext& ctx) override {
    startNextQueued(*this, queue_, working());
    errorText(ctx.theme, error_);
    drawRace(ctx);
    drawStory(ctx);
    drawContention(ctx);
    drawLadder(ctx);
    drawHistogram(ctx);
    drawSkew(ctx);
  }

 private:
  static constexpr ParamSpec kParams[] = {kRaceBlocks, kRaceThreads, kRaceRepeats, kHistN,
                                          kHistBins,   kHistBlock,   kSkew};

  bool working() const {
    return raceJob_.running() || contentionJob_.running() || ladderJob_.running() ||
           skewJob_.running();
  }

  // [SECTION] the race lab

  void drawRace(LessonContext& ctx) {
    if (!beginPanel(ctx, "race", "The race: counter += 1 against atomics")) return endPanel(ctx);
    const RaceReport* r = raceResult_ ? &*raceResult_ : nullptr;
    const RaceParams& p = r ? r->p : race_;
    if (r)
      textWrapped(
          "%s blocks of %d threads on %s, %d runs of each: the counter should reach %s every "
          "time.",
          thousands(p.blocks).c_str(), p.threads, r->device.c_str(), p.repeats,
          thousands(p.expected()).c_str());
    else
      textWrapped("%s", raceJob_.running() ? "Running..."
                        : gpu_             ? "Not run yet: press \"Run the race\"."
                               : "No GPU: nothing runs. The atomics each variant issues "
                                 "are computed for the chosen launch.");
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
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        colourSwatch(c.colour);
        ImGui::TextUnformatted(c.key);
        helpTooltip((std::string(c.label) + ". " + c.help).c_str());
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
          helpTooltip(("How many different final counts the " + std::to_string(v->counts.size()) +
                       " runs gave.")
                          .c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(thousands(globalAtomics(c.id, p.blocks, p.threads)).c_str());
        if (c.id == CounterId::Shared)
          helpTooltip(("And " + thousands(sharedAtomics(c.id, p.blocks, p.threads)) +
                       " atomics on shared memory, one per thread.")
                          .c_str());
        ImGui::TableNextColumn();
        if (v) ImGui::TextUnformatted(trimmedFixed(v->medianMs, 3).c_str());
      }
      endDataTable();
    }
    if (r &&
        plot::BeginPlot("atomics_race", "The counter after each run##raceplot", ImVec2(-1, 0))) {
      plot::SetupAxes({"run"}, {"final count", plot::Scale::Log10});
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
    // What the plain counter did in these runs, said from the numbers.
    std::string plainSaid;
    if (const RaceVariant* v = r ? r->find(CounterId::Plain) : nullptr) {
      if (v->minCount() == p.expected() && v->maxCount() == p.expected())
        plainSaid =
            "Here the plain counter happened to count right in every run: with so few "
            "threads no two of them overlapped. ";
      else if (v->distinct() == 1)
        plainSaid =
            "Here every run gave the same wrong count, " + thousands(v->minCount()) +
            (v->minCount() == 1 ? ": every thread read 0 before any write landed. " : ". ") +
            "With more blocks than the GPU holds at "
            "once (try 1,000 x 1,024), later blocks read what earlier ones wrote, and the "
            "count changes from run to run. ";
      else
        plainSaid = "Here the " + std::to_string(v->counts.size()) + " runs gave " +
                    std::to_string(v->distinct()) + " different counts, from " +
                    thousands(v->minCount()) + " to " + thousands(v->maxCount()) +
                    ": how many updates survive depends on how the warps happen to interleave. ";
    }
    mutedText(ctx.theme,
              ("counts: the lowest and highest final count over the runs; lost: the mean number "
               "of updates missing; results: how many different counts the runs gave; atomics: "
               "those the launch sends to the global counter. The course printed \"Should be "
               "4096\" and a much smaller number. The plain counter loses updates in two ways: "
               "the 32 threads of a warp read the same value and write the same value + 1 (one "
               "update out of 32 survives), and warps whose reads fall between another warp's "
               "read and write overwrite it. " +
               plainSaid +
               "The three atomic variants reach the exact count every time; they differ in how "
               "many atomics reach the one global address.")
                  .c_str());
    endPanel(ctx);
  }

  // [SECTION] how an update is lost

  void drawStory(LessonContext& ctx) {
    if (!beginPanel(ctx, "story", "How an update is lost: two warps, step by step"))
      return endPanel(ctx);
    checkbox(tr("Warp B reads before warp A writes"), &interleaved_);
    const RaceStory st = raceStory(interleaved_);
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
        interleaved_
            ? "Warp B read 0 before warp A's write of 1 arrived, so both wrote 1: warp A's "
              "update was lost as well as 31 of each warp's 32."
            : "Even when the warps take turns, each warp adds only 1: its 32 threads read the "
              "same value in the same instruction and write the same result.");
    mutedText(ctx.theme,
              "This picture is a model of two warps, not a measurement. An atomic operation "
              "makes read, add and write one step that no other thread can come between: the "
              "memory system (L2 for global memory, the SM for shared memory) applies the "
              "updates to one address one after another. That is why atomics are correct, and "
              "why they cost time when many threads aim at one address.");
    endPanel(ctx);
  }

  // [SECTION] contention

  void drawContention(LessonContext& ctx) {
    if (!beginPanel(ctx, "contention", "Contention: what atomics cost on one address"))
      return endPanel(ctx);
    if (!contention_) {
      textWrapped("%s", contentionJob_.running() ? "Measuring..."
                        : gpu_                   ? "Press \"Contention curves\" to measure."
                                                 : "No GPU: nothing is measured.");
      return endPanel(ctx);
    }
    if (plot::BeginPlot("atomics_threads", "All threads on one counter##threads", ImVec2(-1, 0))) {
      plot::SetupAxes({"threads", plot::Scale::Log10}, {"time", plot::Scale::Log10, NAN, NAN, "s"});
      plot::SetupLegend(plot::Legend::Outside);
      for (const CounterInfo& c : counters()) {
        std::vector<double> xs, ys;
        for (const ContentionPoint& p : contention_->threads)
          if (p.id == c.id) xs.push_back(double(p.threads)), ys.push_back(p.ms * 1e-3);
        plot::SetNextColour(c.colour);
        plot::PlotLine(c.key, xs.data(), ys.data(), int(xs.size()));
      }
      plot::EndPlot();
    }
    const long long t = contention_->addresses.empty() ? 0 : contention_->addresses[0].threads;
    if (plot::BeginPlot(
            "atomics_addresses",
            ("atomicAdd from " + thousands(t) + " threads over N counters##addresses").c_str(),
            ImVec2(-1, 0))) {
      plot::SetupAxes({"counters", plot::Scale::Log10},
                      {"time", plot::Scale::Log10, NAN, NAN, "s"});
      plot::SetupLegend(plot::Legend::Outside);
      std::vector<double> xs, ys;
      for (const ContentionPoint& p : contention_->addresses)
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
    for (const auto* list : {&contention_->threads, &contention_->addresses})
      for (const ContentionPoint& p : *list)
        allOk = allOk && (p.ok || !counterInfo(p.id).exact);
    // The compiler's own warp aggregation, shown by the two plots' common point: all threads on
    // one counter, once with an address the compiler sees is the same for the whole warp, once
    // with an address each thread computes.
    std::string aggregation;
    const ContentionPoint* uniform = nullptr;
    const ContentionPoint* computed = nullptr;
    for (const ContentionPoint& p : contention_->threads)
      if (p.id == CounterId::Global && p.threads == t) uniform = &p;
    for (const ContentionPoint& p : contention_->addresses)
      if (p.addresses == 1) computed = &p;
    if (uniform && computed && uniform->ms > 0)
      aggregation = " At " + thousands(t) + " threads on one counter, atomicAdd(counter, 1) took " +
                    trimmedFixed(uniform->ms, 3) + " ms in the first plot and " +
                    trimmedFixed(computed->ms, 3) + " ms in the second (" +
                    trimmedFixed(computed->ms / uniform->ms, 0) +
                    "x): where the compiler can see that a warp's 32 atomics go to one address, "
                    "it adds them in the warp and sends one, as the warp variant does by hand; "
                    "counters[t / group] hides that, and every thread's atomic reaches L2.";
    mutedText(ctx.theme,
              (std::string("Every atomic point was checked: ") +
               (allOk ? "all counters exact. " : "SOME COUNTS WRONG. ") +
               "Atomics on one address are applied one after another in the L2 cache, so the "
               "time grows with the number of atomics that reach it; the warp and block variants "
               "send 32 and blockDim times fewer. Spread over more counters, the same atomics "
               "run side by side in different L2 slices, until each thread has its own and the "
               "time is that of any write. " +
               plainVsAtomic() + aggregation)
                  .c_str());
    endPanel(ctx);
  }

  // The plain counter against atomicAdd at the largest thread count measured, said from the
  // numbers.
  std::string plainVsAtomic() const {
    const ContentionPoint *plain = nullptr, *global = nullptr;
    for (const ContentionPoint& p : contention_->threads) {
      if (p.id == CounterId::Plain && (!plain || p.threads > plain->threads)) plain = &p;
      if (p.id == CounterId::Global && (!global || p.threads > global->threads)) global = &p;
    }
    if (!plain || !global || plain->threads != global->threads || global->ms <= 0) return "";
    const double ratio = plain->ms / global->ms;
    return "At " + thousands(plain->threads) + " threads the plain counter took " +
           trimmedFixed(plain->ms, 3) + " ms against atomicAdd's " + trimmedFixed(global->ms, 3) +
           " ms: " +
           (ratio > 1.1 ? "the race is not even faster; every thread's read and write to the one "
                          "address queue up in L2, while a warp's atomics travel as one."
                        : "the race saves little, and its answer is wrong.");
  }

  // [SECTION] the histogram ladder

  void drawLadder(LessonContext& ctx) {
    if (!beginPanel(ctx, "ladder", "The histogram ladder: every step checked and timed"))
      return endPanel(ctx);
    const HistReport* r = ladder_ ? &*ladder_ : nullptr;
    const HistParams& p = r ? r->p : hist_;
    if (r) {
      const HistStepResult* cub = r->find(HistStepId::Cub);
      const HistStepResult* best = nullptr;
      for (const HistStepResult& s : r->steps)
        if (histStepInfo(s.step).gpu && s.step != HistStepId::Cub && (!best || s.gbps > best->gbps))
          best = &s;
      textWrapped(
          "%s values (%s, %s) into %d bins%s%s. %s", thousands(p.n).c_str(),
          sourceInfo(p.source).key, mib(double(p.n) * sourceInfo(p.source).elementBytes).c_str(),
          p.bins, r->device.empty() ? " on the CPU" : (" on " + r->device).c_str(),
          p.source == Source::Uniform ? (", skew " + trimmedFixed(p.skew, 2)).c_str() : "",
          best ? ("Best hand-written step: " + std::string(histStepInfo(best->step).label) + ", " +
                  gbps(best->gbps) +
                  (r->copyGBps > 0 ? ", " + percent(best->ofCopy) + " of the copy ceiling" : "") +
                  (cub ? ", " + percent(best->ofCub) + " of CUB's speed" : "") + ".")
                     .c_str()
               : "");
    } else {
      textWrapped("%s", ladderJob_.running() ? "Measuring..."
                        : gpu_               ? "Not measured yet: press \"Measure the ladder\"."
                                             : "Computing the CPU's histograms...");
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
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        colourSwatch(s.colour);
        ImGui::TextUnformatted(s.key);
        helpTooltip((std::string(s.label) + ". " + s.help).c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(trimmedFixed(m->ms, m->ms < 1 ? 4 : 2).c_str());
        ImGui::TableNextColumn();
        if (m) {
          ImGui::TextUnformatted(gbps(m->gbps).c_str());
          if (m->ofCopy > 0) helpTooltip((percent(m->ofCopy) + " of the copy ceiling").c_str());
        }
        ImGui::TableNextColumn();
        if (m && m->ofCopy > 0) ImGui::TextUnformatted(percent(m->ofCopy).c_str());
        ImGui::TableNextColumn();
        if (m && m->ofCub > 0) ImGui::TextUnformatted(percent(m->ofCub).c_str());
        // Atomics per value, global / shared: from the measured grid, or (no measurement) for an
        // H100's.
        const double distinct = r ? r->distinctPerWarp : 32;
        const AtomicsPerElement a =
            m && s.gpu
                ? m->atomics
                : atomicsPerElement(
                      s.id, p.n, p.bins,
                      s.id == HistStepId::Global ? (p.n + p.block - 1) / p.block : kModelBlocks,
                      distinct);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted((a.global < 0 ? std::string("CUB's own")
                                             : perValue(a.global) + " / " + perValue(a.shared))
                                   .c_str());
        std::string tip = "Atomics per value: on global memory / on shared memory.";
        if (s.gpu && s.id != HistStepId::Cub && s.id != HistStepId::Global)
          tip +=
              " The global ones are the merges: one per bin per block, spread over all the "
              "values" +
              std::string(m ? "."
                            : "; without a measurement, for an H100's grid of 132 SMs "
                              "x 8 blocks.");
        if (s.id == HistStepId::Aggregated)
          tip += " One shared atomic per distinct bin among a warp's 32 values: " +
                 trimmedFixed(distinct, 1) + " on average for these values" +
                 (r ? "." : " (no data yet: at most 32).");
        helpTooltip(tip.c_str());
        ImGui::TableNextColumn();
        if (m && m->blocks > 0) {
          ImGui::TextUnformatted(thousands(m->blocks).c_str());
          if (m->subHistograms > 0)
            helpTooltip((s.id == HistStepId::Lanes
                             ? std::to_string(m->subHistograms) +
                                   " counters per bin in each block, one per lane (lanes share "
                                   "them when fewer than 32 fit)."
                             : std::to_string(m->subHistograms) +
                                   " sub-histogram(s) in each block's shared memory.")
                            .c_str());
        }
        ImGui::TableNextColumn();
        if (m) {
          ImGui::PushStyleColor(ImGuiCol_Text,
                                m->check.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
          ImGui::TextUnformatted(m->check.ok() ? "every bin" : "WRONG");
          ImGui::PopStyleColor();
          if (!m->check.ok())
            helpTooltip((thousands(m->check.wrongBins) + " bins differ; bin " +
                         std::to_string(m->check.firstWrong) + " holds " + thousands(m->check.got) +
                         " instead of " + thousands(m->check.expected) + ".")
                            .c_str());
        }
      }
      endDataTable();
    }
    if (r) {
      std::vector<const char*> names;
      std::vector<double> g;
      for (const HistStepResult& s : r->steps) {
        names.push_back(histStepInfo(s.step).key);
        g.push_back(s.gbps);
      }
      ladderBarsPlot("atomics_ladder", "Input GB/s per step##ladderplot", names, g,
                     "device copy (read + write)", r->copyGBps);
    }
    if (r)
      mutedText(
          ctx.theme,
          ("GB/s counts the input read once: what a histogram must move. The copy ceiling is a "
           "device-to-device copy of the same bytes, counting its reads and writes (" +
           (r->copyGBps > 0 ? gbps(r->copyGBps) : std::string("not measured")) +
           "). Every step's histogram was compared with the CPU's bin by bin, after the output "
           "was filled with 0xFF; " +
           thousands(r->dropped) +
           " values fell outside the range (or were NaN) and are not counted, by every step. "
           "Every step finds a value's bin as CUB does, (x - xmin) x bins / (xmax - xmin) rounded "
           "down in float32. The course's cpu_histogram divides by the bin width instead (near "
           "an edge a value can then fall in the neighbouring bin) and rounds toward zero, so "
           "values up to one bin below xmin land in bin 0 there; here they are dropped.")
              .c_str());
    endPanel(ctx);
  }

  // [SECTION] the histogram itself

  void drawHistogram(LessonContext& ctx) {
    if (!ladder_) return;
    if (!beginPanel(ctx, "histogram", "The histogram", kPanelCollapsible)) return endPanel(ctx);
    const HistReport& r = *ladder_;
    if (plot::BeginPlot("atomics_histogram", "Values per bin (the CPU's)##hist", ImVec2(-1, 0))) {
      std::vector<double> xs, ys;
      for (size_t k = 0; k < r.reference.size(); ++k) {
        xs.push_back(double(k));
        ys.push_back(double(r.reference[k]));
      }
      plot::SetupAxes({"bin"}, {"values", plot::Scale::Linear, 0, NAN});
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
              ("The fullest bin, " + std::to_string(at) + ", holds " + thousands(most) + " of " +
               thousands(r.p.n) + " values (" + percent(r.p.n ? double(most) / double(r.p.n) : 0) +
               "): every value in it is an atomic on the same counter for the global step.")
                  .c_str());
    endPanel(ctx);
  }

  // [SECTION] time against skew

  void drawSkew(LessonContext& ctx) {
    if (!beginPanel(ctx, "skew", "Time against skew: uniform to all in one bin"))
      return endPanel(ctx);
    if (!skew_) {
      textWrapped("%s", skewJob_.running() ? "Measuring..."
                        : gpu_             ? "Press \"Time against skew\" to measure."
                                           : "No GPU: nothing is measured.");
      return endPanel(ctx);
    }
    if (plot::BeginPlot("atomics_skew", "##skew", ImVec2(-1, 0))) {
      plot::SetupAxes({"share of the values in one bin", plot::Scale::Linear, 0, 1},
                      {"time", plot::Scale::Log10, NAN, NAN, "s"});
      plot::SetupLegend(plot::Legend::Outside);
      for (HistStepId id : gpuHistSteps()) {
        std::vector<double> xs, ys;
        for (const SkewPoint& p : skew_->points)
          if (p.step == id) xs.push_back(p.skew), ys.push_back(p.ms * 1e-3);
        if (xs.empty()) continue;
        plot::SetNextColour(histStepInfo(id).colour);
        plot::PlotLine(histStepInfo(id).key, xs.data(), ys.data(), int(xs.size()));
      }
      plot::EndPlot();
    }
    bool allOk = true;
    for (const SkewPoint& p : skew_->points)
      allOk = allOk && p.ok;
    mutedText(ctx.theme,
              (thousands(skew_->p.n) + " uniform bytes into " + std::to_string(skew_->p.bins) +
               " bins, a growing share of them set to 0. Every point checked bin by bin: " +
               (allOk ? "all correct. " : "SOME WRONG. ") +
               "The global step's atomics pile onto one counter in L2 as the skew grows; the "
               "shared-memory steps keep their contention inside one block or one warp; "
               "combining equal bins within a warp first turns 32 atomics on one counter into one "
               "(at a cost on every value, which uniform data does not repay), and a counter per "
               "lane removes the collisions altogether.")
                  .c_str());
    endPanel(ctx);
  }

  // [SECTION] work on the worker thread; export

  struct SkewView {
    HistParams p;
    std::vector<SkewPoint> points;
  };

  void poll(LessonContext& ctx) {
    for (const Status& st : {raceJob_.takeInto(raceResult_), contentionJob_.takeInto(contention_),
                             ladderJob_.takeInto(ladder_), skewJob_.takeInto(skew_)})
      if (!st) {
        error_ = st;
        ctx.error(st);
      }
  }

  bool startRace() {
    if (!gpu_ || working()) return false;
    error_ = {};
    const RaceParams p = race_;
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return raceJob_.start([p](AsyncJob<RaceReport>::Control& c) -> Result<RaceReport> {
      return runRace(p, c.cancelFlag(),
                     [&c](float f, const std::string& what) { c.progress(f, what); });
    });
  }

  bool startContention() {
    if (!gpu_ || working()) return false;
    error_ = {};
    return contentionJob_.start([](AsyncJob<ContentionView>::Control& c) -> Result<ContentionView> {
      ContentionView v;
      Result<std::vector<ContentionPoint>> t =
          measureThreadSweep(defaultThreadCounts(), c.cancelFlag(),
                             [&c](float f, const std::string& w) { c.progress(0.5f * f, w); });
      if (!t) return t.status();
      v.threads = std::move(*t);
      Result<std::vector<ContentionPoint>> a = measureAddressSweep(
          kAddressSweepThreads, defaultAddressCounts(kAddressSweepThreads), c.cancelFlag(),
          [&c](float f, const std::string& w) { c.progress(0.5f + 0.5f * f, w); });
      if (!a) return a.status();
      v.addresses = std::move(*a);
      return v;
    });
  }

  bool startLadder(bool cpuOnly) {
    if (working() || (!cpuOnly && !gpu_)) return false;
    error_ = {};
    const HistParams p = hist_;
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return ladderJob_.start([p, cpuOnly](AsyncJob<HistReport>::Control& c) -> Result<HistReport> {
      auto progress = [&c](float f, const std::string& what) { c.progress(f, what); };
      if (cpuOnly) return measureHistCpu(p, c.cancelFlag(), progress);
      return measureHistLadder(p, allHistSteps(), c.cancelFlag(), progress);
    });
  }

  bool startSkew() {
    if (!gpu_ || working()) return false;
    error_ = {};
    HistParams p = hist_;
    p.source = Source::Uniform;
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return skewJob_.start([p](AsyncJob<SkewView>::Control& c) -> Result<SkewView> {
      Result<std::vector<SkewPoint>> r =
          measureSkewSweep(p, defaultSkews(), gpuHistSteps(), c.cancelFlag(),
                           [&c](float f, const std::string& what) { c.progress(f, what); });
      if (!r) return r.status();
      return SkewView{p, std::move(*r)};
    });
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (ladder_)
      for (const HistStepResult& s : ladder_->steps)
        rows.push_back({histStepInfo(s.step).key,
                        histStepInfo(s.step).label,
                        {{"GB/s", s.gbps, "GB/s", true}, {"ms", s.ms, "ms", false}}});
    if (raceResult_)
      for (const RaceVariant& v : raceResult_->variants)
        rows.push_back(
            {std::string("race ") + counterInfo(v.id).key,
             std::string("race: ") + counterInfo(v.id).label,
             {{"counter (mean)", v.meanCount(), "", true}, {"ms", v.medianMs, "ms", false}}});
    return rows;
  }

  LessonResults results() const override {
    nlohmann::json j;
    if (raceResult_) {
      j["race"]["blocks"] = raceResult_->p.blocks;
      j["race"]["threads"] = raceResult_->p.threads;
      for (const RaceVariant& v : raceResult_->variants)
        j["race"]["variants"].push_back(
            {{"variant", counterInfo(v.id).key}, {"counts", v.counts}, {"ms", v.medianMs}});
    }
    if (contention_)
      for (const auto* list : {&contention_->threads, &contention_->addresses})
        for (const ContentionPoint& p : *list)
          j["contention"].push_back({{"variant", counterInfo(p.id).key},
                                     {"threads", p.threads},
                                     {"counters", p.addresses},
                                     {"ms", p.ms},
                                     {"exact", p.ok}});
    if (ladder_) {
      const HistReport& r = *ladder_;
      j["histogram"] = {{"device", r.device},
                        {"source", sourceInfo(r.p.source).key},
                        {"n", r.p.n},
                        {"bins", r.p.bins},
                        {"skew", r.p.skew},
                        {"copy_gbps", r.copyGBps},
                        {"reference", r.reference},
                        {"dropped", r.dropped}};
      for (const HistStepResult& s : r.steps)
        j["histogram"]["steps"].push_back({{"step", histStepInfo(s.step).key},
                                           {"ms", s.ms},
                                           {"gbps", s.gbps},
                                           {"of_copy", s.ofCopy},
                                           {"of_cub", s.ofCub},
                                           {"global_atomics_per_value", s.atomics.global},
                                           {"shared_atomics_per_value", s.atomics.shared},
                                           {"correct", s.check.ok()}});
    }
    if (skew_)
      for (const SkewPoint& p : skew_->points)
        j["skew"].push_back({{"step", histStepInfo(p.step).key},
                             {"skew", p.skew},
                             {"ms", p.ms},
                             {"correct", p.ok}});
    LessonResults out;
    out.json = std::move(j);
    out.noCsv = "This lesson saves JSON only.";
    return out;
  }

  bool gpu_ = false;
  Status error_;
  std::vector<std::string> queue_;
  RaceParams race_;
  HistParams hist_;
  bool shown_ = false;
  bool interleaved_ = true;

  AsyncJob<RaceReport> raceJob_;
  std::optional<RaceReport> raceResult_;
  AsyncJob<ContentionView> contentionJob_;
  std::optional<ContentionView> contention_;
  AsyncJob<HistReport> ladderJob_;
  std::optional<HistReport> ladder_;
  AsyncJob<SkewView> skewJob_;
  std::optional<SkewView> skew_;
};

}  // namespace

std::unique_ptr<Lesson> makeAtomicsLesson() {
  return std::make_unique<AtomicsLesson>();
}

}  // namespace cudalab
