// Lesson "atomics": why `counter += 1` from many threads loses updates, what atomics cost as
// threads crowd onto one address, and the histogram ladder from one global atomic per value to
// CUB, every step checked bin by bin against the CPU.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: the race, the histogram, measurements, export
//   (the race lab, how an update is lost and contention: atomics_race_panel.cpp; the histogram
//   ladder, the histogram itself and time against skew: atomics_histogram_panel.cpp)
//   work on the worker thread; export
#include "core/i18n.hpp"
#include "core/kept_job.hpp"
#include "lessons/atomics/atomics_lesson.hpp"
#include "lessons/atomics/atomics_histogram_panel.hpp"
#include "lessons/atomics/atomics_race_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "atomics/atomics.hpp"
#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
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

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionRace = "race", *kActionContention = "contention",
                     *kActionLadder = "ladder", *kActionSkew = "skew", *kActionCpu = "cpu";

class AtomicsLesson final : public Lesson {
 public:
  AtomicsLesson()
      : Lesson(kAtomicsLessonInfo, kAtomicsParams,
               joinRows(variantRows(counters(), &CounterInfo::key, "counter-"),
                        variantRows(histSteps(), &HistStepInfo::key))) {
    declareActions({
        jobAction(
            kActionRace, N_("Run the race"),
            N_("Each variant runs the chosen number of times, from a counter of 0 each time."),
            raceResult_, [this] { return !working() && startRace(); }),
        jobAction(kActionContention, N_("Contention curves"),
                  N_("Time for 2^10 to 2^24 threads all adding to one counter (each variant), and "
                     "for 2^22 threads spread over 1 to 2^22 counters (global atomicAdd)."),
                  contention_, [this] { return !working() && startContention(); }),
        jobAction(kActionLadder, N_("Measure the ladder"),
                  N_("Fresh random values; every step's output poisoned, then compared bin by bin "
                     "with the CPU's histogram, then timed (median of 10 runs)."),
                  ladder_, [this] { return !working() && startLadder(false); }),
        jobAction(
            kActionSkew, N_("Time against skew"),
            // xgettext:no-c-format
            N_("Uniform bytes with 0% to 100% of them in one bin, every GPU step at each (5 runs): "
               "where atomics on one counter collapse and privatised histograms hold."),
            skew_, [this] { return !working() && startSkew(); }),
        jobAction(
            kActionCpu, N_("CPU histograms only"),
            N_("Fresh values and the CPU's histograms (one thread, all cores): no GPU needed."),
            ladder_, [this] { return !working() && startLadder(true); }),
    });
  }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::pair<std::string, Source>> srcs;
    for (const SourceInfo& si : sources())
      srcs.emplace_back(si.key, si.id);
    // Without a GPU the histogram on screen is the CPU's: new data asks for it again, so what
    // is shown is always of the parameters shown (a preset or a plan's step changes them).
    auto histChanged = [this] {
      if (shown_ && !gpu_) queueActions({kActionCpu});
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

  void onShow(LessonContext& ctx) override {
    shown_ = true;
    gpu_ = ctx.runtime.hasDevice();
    // Without a GPU the CPU's histograms still run; the race is told on the model.
    queueActions(gpu_ ? std::vector<std::string>{kActionRace, kActionLadder}
                      : std::vector<std::string>{kActionCpu});
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    textWrapped("The race: every thread adds 1");
    paramSlider(kRaceBlocks, race_.blocks);
    paramSlider(kRaceThreads, race_.threads);
    paramSlider(kRaceRepeats, race_.repeats);
    if (smallButton("course: 64 x 64")) {
      race_.blocks = kCourseBlocks;
      race_.threads = kCourseThreads;
    }
    sameLineIfFits(smallButtonWidth("1,000 x 1,024"));
    if (smallButton("1,000 x 1,024")) {
      race_.blocks = 1000;
      race_.threads = 1024;
    }
    textWrapped("%s threads: the counter should reach %s.", thousands(race_.expected()).c_str(),
                thousands(race_.expected()).c_str());
    runButtons(ctx, *this, {{kActionRace, true}, {kActionContention, true}}, nullptr,
               /*progress=*/false);

    ImGui::Separator();
    ImGui::TextUnformatted(tr("The histogram"));
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    if (beginCombo("##source", tr(sourceInfo(hist_.source).label))) {
      // The key keeps each entry's id the same in every language.
      for (const SourceInfo& s : sources())
        if (ImGui::Selectable((std::string(tr(s.label)) + "##" + s.key).c_str(),
                              s.id == hist_.source))
          hist_.source = s.id;
      ImGui::EndCombo();
    }
    helpTooltip(sourceInfo(hist_.source).help);
    paramSlider(kHistN, hist_.n);
    paramSlider(kHistBins, hist_.bins);
    paramSlider(kHistBlock, hist_.block);
    if (hist_.source == Source::Uniform) paramSlider(kSkew, hist_.skew);
    if (hist_.source == Source::Normal)
      textWrapped("Range [%g, %g): bins of %g.", hist_.xmin, hist_.xmax,
                  double((hist_.xmax - hist_.xmin) / float(hist_.bins)));
    else
      textWrapped("Range 0..255 (one byte per value).");
    if (smallButton("course: 10,000 in 10 bins")) {
      hist_.source = Source::Normal;
      hist_.n = 10000;
      hist_.bins = 10;
    }
    sameLineIfFits(smallButtonWidth(tr("benchmark: 2^28, 256")));
    if (smallButton("benchmark: 2^28, 256")) {
      hist_.n = 1LL << 28;
      hist_.bins = 256;
      if (hist_.source == Source::Normal) hist_.source = Source::Uniform;
    }
    runButtons(
        ctx, *this, {{kActionLadder, true}, {kActionSkew, true}, {kActionCpu}},
        N_("No GPU: the CPU's histograms run, the atomics each step would issue are computed "
           "for an H100's grid, and the race is told on the model. Timings of kernels need a "
           "GPU."));
    ImGui::Spacing();
    if (button("Export JSON")) exportLessonResults(ctx, results(), true);
  }

  void drawMain(LessonContext& ctx) override {
    drawAtomicsRacePanel(ctx, raceResult_.get(), race_, raceResult_.running(), gpu_);
    drawAtomicsStoryPanel(ctx, interleaved_);
    drawAtomicsContentionPanel(ctx, contention_.get(), contention_.running(), gpu_);
    drawAtomicsLadderPanel(ctx, ladder_.get(), hist_, ladder_.running(), gpu_);
    drawAtomicsHistogramPanel(ctx, ladder_.get());
    drawAtomicsSkewPanel(ctx, skew_.get(), skew_.running(), gpu_);
  }

 private:
  // [SECTION] work on the worker thread; export

  void poll(LessonContext& ctx) {
    ctx.errors(error_,
               {raceResult_.collect(), contention_.collect(), ladder_.collect(), skew_.collect()});
  }

  bool startRace() {
    if (!mayStart(gpu_ && !working())) return false;
    const RaceParams p = race_;
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return raceResult_.start([p](AsyncJob<RaceReport>::Control& c) -> Result<RaceReport> {
      return runRace(p, c.cancelFlag(), c.progressFn());
    });
  }

  bool startContention() {
    if (!mayStart(gpu_ && !working())) return false;
    return contention_.start(
        [](AsyncJob<AtomicsContentionView>::Control& c) -> Result<AtomicsContentionView> {
          AtomicsContentionView v;
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
    if (!mayStart(!working() && (cpuOnly || gpu_))) return false;
    const HistParams p = hist_;
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return ladder_.start([p, cpuOnly](AsyncJob<HistReport>::Control& c) -> Result<HistReport> {
      auto progress = c.progressFn();
      if (cpuOnly) return measureHistCpu(p, c.cancelFlag(), progress);
      return measureHistLadder(p, allHistSteps(), c.cancelFlag(), progress);
    });
  }

  bool startSkew() {
    if (!mayStart(gpu_ && !working())) return false;
    HistParams p = hist_;
    p.source = Source::Uniform;
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return skew_.start([p](AsyncJob<AtomicsSkewView>::Control& c) -> Result<AtomicsSkewView> {
      Result<std::vector<SkewPoint>> r =
          measureSkewSweep(p, defaultSkews(), gpuHistSteps(), c.cancelFlag(), c.progressFn());
      if (!r) return r.status();
      return AtomicsSkewView{p, std::move(*r)};
    });
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (ladder_)
      for (const HistStepResult& s : ladder_->steps)
        rows.push_back({histStepInfo(s.step).key,
                        histStepInfo(s.step).label,
                        {{"GB/s", s.gbps, "GB/s", true}, {"ms", s.ms, "ms", false}}});
    // The counter's own label (it says it is a counter), which the pins table translates; a
    // "race: " prefix would make it a text the catalogue cannot hold.
    if (raceResult_)
      for (const RaceVariant& v : raceResult_->variants)
        rows.push_back(
            {std::string("race ") + counterInfo(v.id).key,
             counterInfo(v.id).label,
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
    out.noCsv = N_("This lesson saves JSON only.");
    return out;
  }

  bool gpu_ = false;
  RaceParams race_;
  HistParams hist_;
  bool shown_ = false;
  bool interleaved_ = true;

  KeptJob<RaceReport> raceResult_;
  KeptJob<AtomicsContentionView> contention_;
  KeptJob<HistReport> ladder_;
  KeptJob<AtomicsSkewView> skew_;
};

}  // namespace

const LessonEntry kAtomicsLesson{&kAtomicsLessonInfo, &makeLesson<AtomicsLesson>, kAtomicsBenches};

}  // namespace cudalab
