// Lesson "reduction": the sum of N numbers from Harris's first kernel to CUB, each step measured
// and checked against the exact sum; the float32 sums' errors; one block's tree drawn level by
// level.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: type, N, block, measurements, export
//   the ladder: Harris's table
//   GB/s against N
//   accuracy: every sum against the exact one
//   one block's tree, level by level: reduction_tree_panel.cpp
//   work on the worker thread; export
#include "core/i18n.hpp"
#include "core/kept_job.hpp"
#include "lessons/reduction/reduction_lesson.hpp"
#include "lessons/reduction/reduction_counters_panel.hpp"
#include "lessons/reduction/reduction_tree_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "models/memory_access.hpp"
#include "reduction/reduction.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] lesson text, jobs and their results

const LessonInfo kReductionLessonInfo{
    "reduction", N_("Reduction: Harris's seven steps to CUB"),
    N_("course file 002: a sum with Numba's reduce, a hand-written reduction after Harris's "
       "\"Optimizing Parallel Reduction in CUDA\" finished on the CPU, and CPU and GPU sums that "
       "differ in the last digits"),
    N_("The sum of N numbers through Harris's seven kernels, warp shuffles, an atomic finish, the "
       "course's kernel and CUB, each checked against the exact sum and timed: GB/s, speedups, "
       "share of the memory bandwidth and of CUB; the float32 errors of each order of additions; "
       "and "
       "one block's tree with its idle threads, divergent warps and bank conflicts.")};

namespace {

using namespace reduction;

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionLadder = "ladder", *kActionSweep = "sweep", *kActionCpu = "cpu",
                     *kActionCounters = "counters";

constexpr int kBlocks[] = {64, 128, 256, 512, 1024};

// "2,935 GB/s", "48.2 GB/s".
std::string gbps(double v) {
  return (v >= 100 ? thousands(std::llround(v)) : trimmedFixed(v, 1)) + " GB/s";
}

std::string percent(double f) {
  const double p = 100 * f;
  return trimmedFixed(p, p < 10 ? 1 : 0) + "%";
}

// A sum as the data's type prints it: int32 whole, float32 with 9 significant digits (enough to
// tell any two floats apart), float64 with 17.
std::string sumText(double v, DataType t) {
  char b[64];
  if (t == DataType::Int32) return thousands(static_cast<long long>(v));
  std::snprintf(b, sizeof b, t == DataType::Float32 ? "%.9g" : "%.17g", v);
  return b;
}

std::string exactText(long double v, DataType t) {
  char b[64];
  if (t == DataType::Int32) return thousands(static_cast<long long>(v));
  std::snprintf(b, sizeof b, "%.12Lf", v);
  return b;
}

class ReductionLesson final : public Lesson {
 public:
  ReductionLesson()
      : Lesson(kReductionLessonInfo, kReductionParams, variantRows(steps(), &StepInfo::key)) {
    declareActions({
        jobAction(kActionLadder, N_("Measure the ladder"),
                  N_("Every step on fresh random numbers: output and partial sums poisoned, the "
                     "sum checked against the exact sum, then timed (median of 10 runs)."),
                  ladder_, [this] { return !working() && startLadder(); }),
        jobAction(kActionSweep, N_("GB/s against N"),
                  N_("The main steps and CUB for N = 2^10 to 2^28 (every 2 octaves), 5 runs each."),
                  sweep_, [this] { return !working() && startSweep(); }),
        jobAction(kActionCpu, N_("CPU sums only"),
                  N_("Fresh numbers, their exact sum and the CPU's float sums: no GPU needed."),
                  cpuOnly_, [this] { return !working() && startCpu(); }),
        jobAction(kActionCounters, N_("Read the counters"),
                  N_("Runs every step once more under the profiler (CUPTI, the library Nsight "
                     "Compute uses) on up to 4 million numbers and reads what the hardware counted "
                     "in each step's first kernel, the pass over all the numbers. Profiling "
                     "replays kernels: these runs are separate from the timed ones."),
                  counters_, [this] { return gpu_ && counters_.start(params()); }),
    });
  }
  bool animating() const override { return tree_.playing(); }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::pair<std::string, DataType>> types;
    for (DataType t : kTypes)
      types.emplace_back(typeLabel(t), t);
    std::vector<std::pair<std::string, int>> blocks;
    for (int b : kBlocks)
      blocks.emplace_back(std::to_string(b), b);
    return {bindChoice(kTypeChoice, type_, std::move(types)), bindParam(kCount, n_),
            bindChoice(kBlockChoice, block_, std::move(blocks))};
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    // Without a GPU the exact sum and the CPU's sums still run.
    queueActions({gpu_ ? kActionLadder : kActionCpu});
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    ImGui::TextUnformatted(tr("sum = x[0] + x[1] + ... + x[N-1]"));
    if (beginCombo(halfWidthLabel("Type"), typeLabel(type_))) {
      for (DataType t : kTypes)
        if (ImGui::Selectable(typeLabel(t), t == type_)) type_ = t;
      ImGui::EndCombo();
    }
    helpTooltip(
        "The numbers are random normals (the course's data) in float32; float64 holds the same "
        "numbers, int32 those numbers times 100, rounded. int32 sums are exact in any order; "
        "float sums depend on the order of the additions.");
    paramSlider(kCount, n_);
    const struct {
      const char* label;
      long long n;
    } presets[] = {{N_("course: 2^27 - 157"), kCourseN},
                   {"2^28", 1LL << 28},
                   {"1,000,003", 1000003},
                   {"33", 33}};
    for (size_t i = 0; i < std::size(presets); ++i) {
      if (i) sameLineIfFits(smallButtonWidth(presets[i].label));
      if (smallButton(presets[i].label)) n_ = presets[i].n;
    }
    if (beginCombo(halfWidthLabel("Threads per block"), std::to_string(block_).c_str())) {
      for (int b : kBlocks)
        if (ImGui::Selectable(std::to_string(b).c_str(), b == block_)) block_ = b;
      ImGui::EndCombo();
    }
    helpTooltip(kBlock.help);
    {
      const double bytes = double(n_) * typeBytes(type_);
      char size[64];
      std::snprintf(size, sizeof size, tr("%s bytes"),
                    thousands(static_cast<long long>(bytes)).c_str());
      ImGui::Text(tr("%s numbers: %s"), thousands(n_).c_str(),
                  bytes < 1048576 ? size : mib(bytes).c_str());
    }
    runButtons(ctx, *this, {{kActionLadder, true}, {kActionSweep, true}, {kActionCpu}},
               N_("No GPU: the tree pictures are computed on the CPU, and the accuracy panel shows "
                  "the exact sum and the CPU's sums. Kernel timings need a GPU."));
    exportButtons(ctx, *this, {.spaced = true});
  }

  void drawMain(LessonContext& ctx) override {
    drawLadder(ctx);
    drawSweep(ctx);
    drawAccuracy(ctx);
    counters_.draw(ctx, gpu_, action(kActionCounters));
    tree_.draw(ctx);
  }

 private:
  // [SECTION] the ladder: Harris's table

  void drawLadder(LessonContext& ctx) {
    if (!beginPanel(ctx, "ladder", "The ladder: every step measured")) return endPanel(ctx);
    const LadderReport* r = ladder_.get();
    if (r) {
      const StepResult* cub = r->find(StepId::Cub);
      const StepResult* best = fastestHandWritten(r->steps, &StepResult::gbps);
      const std::string n = thousands(r->p.n);
      const std::string bytes = mib(double(r->p.n) * typeBytes(r->p.type));
      // One whole sentence per case, so that a translation can order its parts freely.
      if (best && cub)
        textWrapped(
            "%s %s numbers (%s) on %s, %d threads per block. Best hand-written step: %s, %s = %s "
            "of CUB (%s).",
            n.c_str(), typeLabel(r->p.type), bytes.c_str(), r->device.c_str(), r->p.block,
            tr(stepInfo(best->step).label), gbps(best->gbps).c_str(),
            percent(best->ofLibrary).c_str(), gbps(cub->gbps).c_str());
      else if (best)
        textWrapped(
            "%s %s numbers (%s) on %s, %d threads per block. Best hand-written step: %s, %s.",
            n.c_str(), typeLabel(r->p.type), bytes.c_str(), r->device.c_str(), r->p.block,
            tr(stepInfo(best->step).label), gbps(best->gbps).c_str());
      else
        textWrapped("%s %s numbers (%s) on %s, %d threads per block.", n.c_str(),
                    typeLabel(r->p.type), bytes.c_str(), r->device.c_str(), r->p.block);
    }
    const bool stale = r && (r->p.n != n_ || r->p.type != type_ || r->p.block != block_);
    ladderStatus(ctx.theme, r != nullptr, stale, ladder_.running(), gpu_,
                 N_("No GPU: nothing is measured. The table shows how many "
                    "passes each step makes for the chosen N."));
    // On a projector the step, its speed and whether it is right matter most; the launch plan
    // and the speedups give way first.
    static const TableColumn kColumns[] = {
        {"step"},
        {"blocks per launch", "blocks", 4, "Blocks in each launch, one launch per arrow."},
        {"kernel time, median (ms)", "ms", 1, nullptr, true},
        {"GB/s", nullptr, 0, "The input's bytes over the kernel time.", true},
        {"speedup over the previous step", "step speedup", 3, nullptr, true},
        {"speedup over step 1", "total speedup", 2, nullptr, true},
        {"of the memory bandwidth's peak", "of peak", 2, nullptr, true},
        {"of CUB", nullptr, 1, "This step's GB/s over CUB's, measured in the same run.", true},
        {"|error| against the exact sum", "|error|", 3, nullptr, true},
        {"checked against the exact sum", "checked", 0, nullptr, true},
    };
    if (beginDataTable("##ladder", kColumns, static_cast<int>(steps().size()), r != nullptr)) {
      for (const StepInfo& s : steps()) {
        const StepResult* m = r ? r->find(s.id) : nullptr;
        stepNameCell(s.colour, s.label, s.help);
        // Blocks per launch, one number per launch; the grid-stride grids need the device.
        const bool fills = s.shape == Shape::GridStride || s.shape == Shape::Atomic;
        const ReduceParams rp = r ? r->p : ReduceParams{type_, n_, block_};
        const std::vector<Pass> plan =
            passPlan(s.id, rp.type, rp.n, rp.block, m ? m->residentBlocks : 1);
        if (fills && !m)
          ImGui::TextUnformatted(tr("fills the GPU once"));
        else
          ImGui::TextUnformatted(plan.empty() ? tr("CUB's own")
                                              : describePlan(plan, false).c_str());
        helpTooltip(
            (s.shape == Shape::Library ? std::string(tr("CUB chooses its launches."))
             : fills && s.shape == Shape::GridStride
                 ? trf("One launch with as many blocks of %d threads as this GPU holds at once "
                       "(SMs x blocks per SM), then one block adds their sums.",
                       rp.block)
             : fills ? trf("One launch with as many blocks of %d threads as this GPU holds at "
                           "once (SMs x blocks per SM).",
                           rp.block)
                     : trf("Blocks of %d threads in each launch; each launch sums what the one "
                           "before left.",
                           plan.empty() ? 0 : plan.front().block))
                .c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(trimmedFixed(m->ms, m->ms < 1 ? 4 : 3).c_str());
        if (m && s.id == StepId::Course)
          helpTooltip(trf("Kernel %s ms + copying the partial sums back and adding them on the "
                          "CPU %s ms.",
                          trimmedFixed(m->m.kernel().medianMs, 3).c_str(),
                          trimmedFixed(m->cpuFinishMs, 3).c_str())
                          .c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(gbps(m->gbps).c_str());
        ImGui::TableNextColumn();
        if (m && m->stepSpeedup > 0)
          ImGui::TextUnformatted((trimmedFixed(m->stepSpeedup, 2) + "x").c_str());
        ImGui::TableNextColumn();
        if (m && m->totalSpeedup > 0)
          ImGui::TextUnformatted((trimmedFixed(m->totalSpeedup, 2) + "x").c_str());
        ImGui::TableNextColumn();
        if (m && m->ofPeak > 0) ImGui::TextUnformatted(percent(m->ofPeak).c_str());
        ImGui::TableNextColumn();
        if (m && m->ofLibrary > 0) ImGui::TextUnformatted(percent(m->ofLibrary).c_str());
        ImGui::TableNextColumn();
        if (m) {
          ImGui::TextUnformatted(sciText(std::fabs(m->error)).c_str());
          const std::string sum = sumText(m->value, r->p.type);
          const std::string exact = exactText(r->cpu.exact, r->p.type);
          const std::string bound = sciText(m->bound);
          helpTooltip((r->p.type == DataType::Int32
                           ? trf("The sum %s; the exact sum %s. Allowed: %s (int32 must be exact)",
                                 sum.c_str(), exact.c_str(), bound.c_str())
                           : trf("The sum %s; the exact sum %s. Allowed: %s (the bound for this "
                                 "order of additions)",
                                 sum.c_str(), exact.c_str(), bound.c_str()))
                          .c_str());
        }
        ImGui::TableNextColumn();
        if (m) {
          ImGui::PushStyleColor(ImGuiCol_Text,
                                m->ok ? ctx.theme.goodColour() : ctx.theme.errorColour());
          ImGui::TextUnformatted(m->ok ? tr("correct") : tr("WRONG"));
          ImGui::PopStyleColor();
        }
      }
      endDataTable();
    }
    if (r) {
      ladderBarsPlot(
          "reduction_ladder", N_("GB/s per step##ladderplot"), r->steps,
          [](const StepResult& s) { return stepInfo(s.step).key; },
          [](const StepResult& s) { return s.gbps; }, N_("memory bandwidth (theory)"), r->peakGBps);
      mutedText(
          ctx.theme,
          trf("GB/s counts each input number read once, N x %d bytes over the time until "
              "the sum exists: what a reduction must move. \"of peak\" is against this "
              "GPU's theoretical memory bandwidth (%s, memory clock x bus width); no kernel "
              "reaches it, a good one gets 85-95%%. Harris's G80 table went from 2 to 62 "
              "GB/s, a 30x total speedup. The step speedups follow the ladder (each rung "
              "over the one above it); the course's kernel and CUB stand beside it.",
              typeBytes(r->p.type), r->peakGBps > 0 ? gbps(r->peakGBps).c_str() : tr("unknown"))
              .c_str());
    }
    endPanel(ctx);
  }

  // [SECTION] GB/s against N

  void drawSweep(LessonContext& ctx) {
    if (!beginPanel(ctx, "sweep", "GB/s against N")) return endPanel(ctx);
    if (waitingForMeasurement(bool(sweep_), sweep_.running(), gpu_,
                              N_("Press \"GB/s against N\" to measure N = 2^10 to 2^28.")))
      return endPanel(ctx);
    staleNote(ctx.theme, sweep_->type != type_ || sweep_->block != block_,
              actionLabel(kActionSweep));
    stepLinesPlot(
        "reduction_sweep", "##sweep", {"N", plot::Scale::Log10}, {"GB/s", plot::Scale::Log10},
        sweepStepIds(), sweep_->points, stepInfo, [](const SweepPoint& p) { return double(p.n); },
        [](const SweepPoint& p) { return p.gbps; });
    endSweepPanel(ctx, *sweep_,
                  trf("%s, %d threads per block.", typeLabel(sweep_->type), sweep_->block),
                  N_("the exact sum"),
                  N_("Small N cannot fill the GPU and pay the launches (the tree steps launch "
                     "once per pass); only from tens of millions of numbers on does the memory "
                     "system, not the launch, set the time."));
  }

  // [SECTION] accuracy: every sum against the exact one

  void drawAccuracy(LessonContext& ctx) {
    if (!beginPanel(ctx, "accuracy", "Accuracy: each order of additions against the exact sum"))
      return endPanel(ctx);
    const Sums latest = latestSums();
    const CpuSums* cpu = latest.cpu;
    const ReduceParams* p = latest.p;
    // Until the sums come the panel is laid out as it will be, the rows named and the values
    // "...", so that the panels under it do not jump down when they come: a click meant for the
    // tree's Play landed on a plot.
    const bool waiting = !cpu || !p;
    const ReduceParams now = params();
    const ReduceParams& shown = waiting ? now : *p;
    const bool withSteps = waiting ? gpu_ : latest.fromLadder;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    struct Row {
      std::string what;
      double value;
      int colour;
    };
    const DataType t = shown.type;
    std::vector<Row> rows;
    std::vector<const char*> names;
    if (t == DataType::Int32) {
      rows.push_back({tr("CPU, a loop (int64 accumulator)"), cpu ? cpu->sequential : nan, 7});
      names.push_back(N_("cpu loop"));
    } else {
      rows.push_back({tr("CPU, one accumulator in a loop"), cpu ? cpu->sequential : nan, 7});
      rows.push_back({tr("CPU, NumPy's np.sum order"), cpu ? cpu->numpy : nan, 7});
      rows.push_back({tr("CPU, pairwise (halves to the end)"), cpu ? cpu->pairwise : nan, 7});
      rows.push_back({tr("CPU, Kahan compensated"), cpu ? cpu->kahan : nan, 7});
      // Category names: the plot translates them.
      names.insert(names.end(),
                   {N_("cpu loop"), N_("cpu numpy"), N_("cpu pairwise"), N_("cpu kahan")});
    }
    if (withSteps && waiting) {
      for (StepId id : allStepIds()) {
        rows.push_back({tr(stepInfo(id).label), nan, stepInfo(id).colour});
        names.push_back(stepInfo(id).key);
      }
    } else if (withSteps) {
      for (const StepResult& s : ladder_->steps) {
        rows.push_back({tr(stepInfo(s.step).label), s.value, stepInfo(s.step).colour});
        names.push_back(stepInfo(s.step).key);
      }
    }
    // "N = ..." rather than "... numbers": no plural to agree with N.
    const std::string count = thousands(shown.n);
    if (withSteps)
      textWrapped(
          "N = %s %s, fresh random numbers (not the course's). The exact sum is accumulated in "
          "double-double (about 106 bits).",
          count.c_str(), typeLabel(t));
    else
      textWrapped(
          "N = %s %s, fresh random numbers (not the course's), CPU only: measure the ladder on a "
          "GPU to add each kernel's sum. The exact sum is accumulated in double-double (about 106 "
          "bits).",
          count.c_str(), typeLabel(t));
    // On a line of its own, short enough for one line at any width the panel has, so that the
    // "..." before the sums come takes the lines the numbers will.
    textWrapped("Exact sum %s; sum of |x| = %s.", cpu ? exactText(cpu->exact, t).c_str() : "...",
                cpu ? sciText(cpu->absSum).c_str() : "...");
    if (!waiting && (p->n != n_ || t != type_))
      mutedText(ctx.theme,
                "These are the last numbers summed; the parameters have changed since. "
                "Press a button on the left to sum the new ones.");
    // How each sum was made and its error carry the lesson; the sum's digits give way first.
    static const TableColumn kFloat32[] = {
        {"how"},
        {"sum", nullptr, 2},
        {"error", nullptr, 0, "The sum minus the exact sum."},
        {"in float32 ulps of the sum", "ulps", 1,
         "The error in units of float32's last place at the exact sum."},
    };
    static const TableColumn kOther[] = {
        kFloat32[0], kFloat32[1], kFloat32[2], {"relative error", "relative", 1}};
    // While waiting: "..." as wide as a value like `like` will be. The sums of N numbers around
    // 0 with a spread of 1 are about sqrt(N) in size, so the table's columns, and which of them
    // fit, are the same when the values come.
    const double typical = -1.2345678 * std::sqrt(static_cast<double>(shown.n));
    auto waitingCell = [](const std::string& like) {
      ImGui::TextUnformatted("...");
      const float pad = ImGui::CalcTextSize(like.c_str()).x - ImGui::CalcTextSize("...").x;
      if (pad > 0) {
        ImGui::SameLine(0, 0);
        ImGui::Dummy(ImVec2(pad, 1));
      }
    };
    if (beginDataTable("##accuracy", t == DataType::Float32 ? kFloat32 : kOther,
                       static_cast<int>(rows.size()))) {
      const double ulp =
          t == DataType::Float32 && cpu
              ? std::fabs(double(std::nextafter(float(cpu->exact), INFINITY) - float(cpu->exact)))
              : 0;
      for (const Row& row : rows) {
        swatchRow(row.colour);
        ImGui::TextUnformatted(row.what.c_str());
        ImGui::TableNextColumn();
        if (waiting) {
          waitingCell(sumText(typical, t));
          ImGui::TableNextColumn();
          waitingCell(t == DataType::Int32 ? "-000" : "-0.0e-00");
          ImGui::TableNextColumn();
          waitingCell(t == DataType::Float32 ? "000.0" : "0.0e-00");
          continue;
        }
        const double err = static_cast<double>(static_cast<long double>(row.value) - cpu->exact);
        ImGui::TextUnformatted(sumText(row.value, t).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(t == DataType::Int32 ? thousands(std::llround(err)).c_str()
                                                    : sciText(err).c_str());
        ImGui::TableNextColumn();
        if (t == DataType::Float32 && ulp > 0)
          ImGui::TextUnformatted(trimmedFixed(std::fabs(err) / ulp, 1).c_str());
        else if (cpu->exact != 0)
          ImGui::TextUnformatted(
              sciText(std::fabs(err) / std::fabs(static_cast<double>(cpu->exact))).c_str());
      }
      endDataTable();
    }
    if (t != DataType::Int32 &&
        plot::BeginPlot("reduction_errors", "|sum - exact|##errors", ImVec2(-1, 0))) {
      std::vector<double> e;
      for (const Row& row : rows)
        e.push_back(waiting ? nan
                            : std::max(std::fabs(static_cast<double>(
                                           static_cast<long double>(row.value) - cpu->exact)),
                                       t == DataType::Float32 ? 1e-9 : 1e-18));
      plot::SetupAxes({N_("how")}, {N_("|sum - exact|"), plot::Scale::Log10});
      plot::SetupCategories(names.data(), int(names.size()));
      plot::SetupLegend(plot::Legend::Hidden);
      plot::SetNextColour(5);
      plot::PlotBars("##err", e.data(), int(e.size()));
      plot::EndPlot();
    }
    if (t == DataType::Int32)
      mutedText(ctx.theme,
                "Integer additions are exact (as long as no sum leaves the int32 range), so every "
                "order gives the same sum: every row's error is 0.");
    else
      mutedText(
          ctx.theme,
          "The course printed 2670.03662 from np.sum and 2670.00024 from Numba's reduce for its "
          "own 2^27 - 157 normal numbers; the numbers here are fresh ones, so the sums differ, "
          "but the pattern is the same. float32 keeps 24 bits, so every addition rounds, and how "
          "much error piles up depends on the order. One accumulator in a loop adds each number "
          "to a large running sum: N - 1 roundings, each relative to that large sum. NumPy adds "
          "pairwise inside each 8,192-number buffer but adds the buffers' sums one after "
          "another: at 2^27 numbers that is 16,384 roundings in a chain, where the course's CPU "
          "result lost its last digits. Pairwise summation to the end, and every GPU step here, "
          "add partial sums of about equal size in trees (the grid-stride steps after a loop of a "
          "few hundred numbers per thread; the atomic step then adds its ~1,000 block sums in a "
          "chain): close to the exact sum, as Numba's reduce was. Kahan "
          "carries each rounding's lost bits forward. float64 holds these float32 numbers "
          "exactly and keeps every sum to about 13 digits; a float64 loop over up to a million "
          "of them is often exact.");
    endPanel(ctx);
  }

  // [SECTION] work on the worker thread; export

  struct SweepView {
    DataType type;
    int block;
    std::vector<SweepPoint> points;
    Status stopped;  // why it ended before its last size (the points before it are kept)
  };

  void poll(LessonContext& ctx) {
    const Status ladder = ladder_.collect();
    // A ladder that failed or was cancelled leaves the CPU-only sums the newest.
    if (!ladder && cpuOnly_) cpuOnlyNewer_ = true;
    ctx.errors(error_, {ladder, sweep_.collectSweep(), cpuOnly_.collect()});
  }

  // The sums the accuracy panel and the export show: the newest of the ladder's and the CPU-only
  // run's.
  struct Sums {
    const CpuSums* cpu = nullptr;
    const ReduceParams* p = nullptr;
    bool fromLadder = false;
  };
  Sums latestSums() const {
    if (ladder_ && (!cpuOnly_ || !cpuOnlyNewer_)) return {&ladder_->cpu, &ladder_->p, true};
    if (cpuOnly_) return {&cpuOnly_->cpu, &cpuOnly_->p, false};
    return {};
  }

  ReduceParams params() const { return ReduceParams{type_, n_, block_}; }

  bool startLadder() {
    if (!mayStart(gpu_ && !ladder_.running())) return false;
    const ReduceParams p = params();
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    cpuOnlyNewer_ = false;
    return ladder_.start([p](AsyncJob<LadderReport>::Control& c) -> Result<LadderReport> {
      return measureLadder(p, allStepIds(), c.cancelFlag(), c.progressFn());
    });
  }

  bool startSweep() {
    if (!mayStart(gpu_ && !sweep_.running())) return false;
    const DataType t = type_;
    const int b = block_;
    return sweep_.start([t, b](AsyncJob<SweepView>::Control& c) -> Result<SweepView> {
      const std::vector<long long> sizes = defaultSweepSizes();
      SweepRun<SweepPoint> r =
          measureSweep(t, b, sizes, sweepStepIds(), c.cancelFlag(), c.progressFn());
      return SweepView{t, b, std::move(r.points), r.stopped};
    });
  }

  bool startCpu() {
    if (!mayStart(!cpuOnly_.running())) return false;
    cpuOnlyNewer_ = true;
    const ReduceParams p = params();
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return cpuOnly_.start([p](AsyncJob<CpuReport>::Control& c) -> Result<CpuReport> {
      return measureCpu(p, c.cancelFlag(), c.progressFn());
    });
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    // The CPU's sums (with or without a GPU), then the ladder's steps.
    const Sums latest = latestSums();
    if (latest.cpu) {
      const CpuSums& c = *latest.cpu;
      const double exact = static_cast<double>(c.exact);
      for (const auto& [key, label, v] :
           {std::tuple<const char*, const char*, double>{"cpu sequential",
                                                         N_("CPU, one accumulator"), c.sequential},
            {"cpu numpy", N_("CPU, NumPy's order"), c.numpy},
            {"cpu pairwise", N_("CPU, pairwise"), c.pairwise},
            {"cpu kahan", N_("CPU, Kahan"), c.kahan}})
        rows.push_back({key, label, {{"error", std::fabs(v - exact), "", false}}});
    }
    if (!ladder_) return rows;
    for (const StepResult& s : ladder_->steps)
      rows.push_back({stepInfo(s.step).key,
                      stepInfo(s.step).label,
                      {{"GB/s", s.gbps, "GB/s", true},
                       {"ms", s.ms, "ms", false},
                       {"error", std::fabs(s.error), "", false}}});
    return rows;
  }

  LessonResults results() const override {
    const std::vector<MeasuredRow> rows =
        stepRows(ladder_.get(), [](const LadderReport& r, const StepResult& s) {
          MeasuredRow row{stepInfo(s.step).key, {{"n", double(r.p.n)}, {"block", r.p.block}}, s.m};
          for (auto& value : stepValues(s))
            row.params.push_back(std::move(value));
          return row;
        });
    nlohmann::json j;
    if (ladder_) {
      const LadderReport& r = *ladder_;
      j["device"] = r.device;
      j["type"] = typeLabel(r.p.type);
      j["exact"] = static_cast<double>(r.cpu.exact);
      j["ladder"] = toJson(rows);
    }
    const Sums latest = latestSums();
    const CpuSums* cpu = latest.cpu;
    if (cpu)
      j["cpu"] = {{"n", latest.p->n},          {"type", typeLabel(latest.p->type)},
                  {"numpy_order", cpu->numpy}, {"exact", static_cast<double>(cpu->exact)},
                  {"abs_sum", cpu->absSum},    {"sequential", cpu->sequential},
                  {"pairwise", cpu->pairwise}, {"kahan", cpu->kahan}};
    if (sweep_)
      for (const SweepPoint& p : sweep_->points)
        j["sweep"].push_back(toJson(p));
    return ladderResults(
        std::move(j), rows,
        N_("The CSV holds the measured ladder, and nothing is measured yet (it needs a GPU). "
           "Export JSON saves the CPU's sums."));
  }

  bool gpu_ = false;
  DataType type_ = DataType::Float32;
  long long n_ = kCourseN;
  int block_ = static_cast<int>(kBlock.defaultValue);

  KeptJob<LadderReport> ladder_;
  KeptJob<SweepView> sweep_;
  HelperCountersPanel<ReduceParams> counters_ = makeReductionCountersPanel();
  KeptJob<CpuReport> cpuOnly_;
  bool cpuOnlyNewer_ = false;  // the CPU-only sums were started after the last ladder

  ReductionTreePanel tree_;
};

}  // namespace

const LessonEntry kReductionLesson{&kReductionLessonInfo, &makeLesson<ReductionLesson>,
                                   kReductionBenches};

}  // namespace cudalab
