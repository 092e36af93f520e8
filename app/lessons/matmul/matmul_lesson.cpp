// Lesson "matmul": the course's naive matrix product, then shared-memory tiles, register blocking,
// vector loads, warp tiles and cuBLAS, each step measured and checked against float64.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: sizes, measurements, export
//   the ladder: GFLOP/s, share of cuBLAS and of the FP32 peak, errors
//   GFLOP/s against size; the roofline; errors
//   the course's comparison
//   (the tiling and sector pictures: matmul_pictures_panel.cpp; the counters:
//   matmul_counters_panel.cpp)
//   work on the worker thread; export
#include "core/i18n.hpp"
#include "core/kept_job.hpp"
#include "lessons/matmul/matmul_lesson.hpp"
#include "lessons/matmul/matmul_counters_panel.hpp"
#include "lessons/matmul/matmul_pictures_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_config.hpp"
#include "memory/access_patterns.hpp"
#include "models/memory_access.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/warp_picture.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace memory;

// [SECTION] lesson text, jobs and their results

const LessonInfo kMatmulLessonInfo{
    "matmul", N_("Matmul: from the naive kernel to cuBLAS"),
    N_("course file 001: NumPy, Numba and PyTorch on a matrix product; shared memory, coalescing, "
       "thread-block tiling, and why cuBLAS wins"),
    N_("C = A B through nine steps, each its own kernel checked against float64 and timed: "
       "GFLOP/s, "
       "share of cuBLAS and of the FP32 peak, a roofline, the course's comparison, and pictures of "
       "which tiles each block loads and which elements each thread owns.")};

namespace {

using namespace matmul;

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionLadder = "ladder", *kActionSweep = "sweep", *kActionCourse = "course",
                     *kActionCounters = "counters";

// The measured ladder and the roofline's ceilings (measured once, kept for later ladders).
struct LadderView {
  LadderReport report;
  std::optional<Ceilings> ceilings;
};

// "44.6 TFLOP/s", "512 GFLOP/s", "3.1 GFLOP/s".
std::string rate(double gflops) {
  if (gflops >= 1000) return trimmedFixed(gflops / 1000, gflops >= 10000 ? 1 : 2) + " TFLOP/s";
  return trimmedFixed(gflops, gflops >= 100 ? 0 : 1) + " GFLOP/s";
}

// What the job does now, translated: a step's label or a phase marked N_() where the work
// reports it; the size sweep puts "512^3: " (no words) before it.
std::string blockText(const StepInfo& s) {
  if (!handWritten(s)) return "cuBLAS";
  if (s.blockY > 1) return std::to_string(s.blockX) + " x " + std::to_string(s.blockY);
  return std::to_string(s.blockX);
}

class MatmulLesson final : public Lesson {
 public:
  MatmulLesson() : Lesson(kMatmulLessonInfo, kMatmulParams, variantRows(steps(), &StepInfo::key)) {
    declareActions({
        jobAction(kActionLadder, N_("Measure the ladder"),
                  N_("Every step on fresh random M x K and K x N matrices: output poisoned, "
                     "checked against the float64 CPU product, then timed (median of 10 runs; slow "
                     "steps at large sizes get fewer)."),
                  ladder_, [this] { return !working() && startLadder(); }),
        jobAction(
            kActionSweep, N_("GFLOP/s against size"),
            N_("The float32 steps and cuBLAS on square matrices of 128 to 4096, 3 runs each."),
            sweep_, [this] { return !working() && startSweep(); }),
        jobAction(kActionCourse, N_("Run the course's comparison"),
                  N_("The same n x n matrices on the CPU (one thread, then all cores), the naive "
                     "kernel, the 16 x 16 tiled kernel and cuBLAS."),
                  course_, [this] { return !working() && startCourse(); }),
        jobAction(
            kActionCounters, N_("Read the counters"),
            N_("Runs every hand-written step once more under the profiler (CUPTI, the library "
               "Nsight Compute uses), with M, N and K up to 1024, and reads what the hardware "
               "counted. Profiling replays kernels: these runs are separate from the timed ones."),
            counters_,
            [this] {
              return gpu_ && counters_.start(MatmulParams{M_, N_, K_});
            }),
    });
  }
  bool animating() const override { return pictures_.playing(); }
  std::vector<ParamBinding> bindings() override {
    return {bindParam(kSizeM, M_), bindParam(kSizeN, N_), bindParam(kSizeK, K_),
            bindParam(kCourseSize, courseN_)};
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    limits_ = gpu_ ? deviceBlockLimits() : BlockLimits{};
    // Without a GPU the course's CPU rows still run; the ladder needs a GPU.
    queueActions(gpu_ ? std::vector<std::string>{kActionLadder, kActionCourse}
                      : std::vector<std::string>{kActionCourse});
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    productSizeControls(kSizeM, kSizeN, kSizeK, M_, N_, K_,
                        {{"1024^3", 1024, 1024, 1024},
                         {"4096^3", 4096, 4096, 4096},
                         {"17x33x9", 17, 33, 9},
                         {"257x129x511", 257, 129, 511}});
    runButtons(
        ctx, *this, {{kActionLadder, true}, {kActionSweep, true}},
        N_("No GPU: the tiling pictures and the sector view are computed on the CPU, and the "
           "course's comparison runs its CPU rows. GFLOP/s of the kernels need a GPU."),
        /*progress=*/false);
    ImGui::Spacing();
    paramSlider(kCourseSize, courseN_);
    runButtons(ctx, *this, {{kActionCourse}});
    exportButtons(ctx, *this, {.spaced = true});
  }

  void drawMain(LessonContext& ctx) override {
    drawLadder(ctx);
    drawSweep(ctx);
    drawRoofline(ctx);
    drawErrors(ctx);
    drawCourse(ctx);
    pictures_.draw(ctx, gpu_, M_, N_, K_, limits_);
    counters_.draw(ctx, gpu_, action(kActionCounters));
  }

 private:
  // [SECTION] the ladder: GFLOP/s, share of cuBLAS and of the FP32 peak, errors

  void drawLadder(LessonContext& ctx) {
    if (!beginPanel(ctx, "ladder", "The ladder: every step measured")) return endPanel(ctx);
    const LadderReport* r = ladder_ ? &ladder_->report : nullptr;
    const Ceilings* ceil = ladder_ && ladder_->ceilings ? &*ladder_->ceilings : nullptr;
    if (r) {
      const StepResult* lib = r->find(StepId::Cublas);
      const StepResult* best = fastestHandWritten(
          r->steps, &StepResult::gflops,
          [](const StepResult& s) { return stepInfo(s.step).precision == Precision::Float32; });
      const StepResult* t16 = r->find(StepId::Tiled16);
      const char* bestName = best ? tr(stepInfo(best->step).label) : "-";
      const std::string bestRate = best ? rate(best->gflops) : "-";
      const std::string tiled16 = t16 ? rate(t16->gflops) : "-";
      if (best && lib)
        textWrapped(
            "%d x %d x %d on %s. Best hand-written step: %s, %s = %s of cuBLAS SGEMM (%s). The "
            "course's tile size (16): %s; the course's Numba tiled kernel reached 7.9 TFLOP/s on "
            "an H200.",
            r->p.M, r->p.N, r->p.K, r->device.c_str(), bestName, bestRate.c_str(),
            matmulPercent(best->ofLibrary).c_str(), rate(lib->gflops).c_str(), tiled16.c_str());
      else
        textWrapped(
            "%d x %d x %d on %s. Best hand-written step: %s, %s. The course's tile size (16): "
            "%s; the course's Numba tiled kernel reached 7.9 TFLOP/s on an H200.",
            r->p.M, r->p.N, r->p.K, r->device.c_str(), bestName, bestRate.c_str(), tiled16.c_str());
    }
    const bool stale = r && (r->p.M != M_ || r->p.N != N_ || r->p.K != K_);
    ladderStatus(ctx.theme, r != nullptr, stale, ladder_.running(), gpu_,
                 N_("No GPU: nothing is measured. The table shows each step's "
                    "launch for the chosen sizes."));
    const int M = r ? r->p.M : M_, N = r ? r->p.N : N_, K = r ? r->p.K : K_;
    // On a projector the step, its speed and whether it is right matter most; the launch shape
    // and the finer numbers give way first.
    static const TableColumn kColumns[] = {
        {"step"},
        {"block", nullptr, 3, "Threads per block (x by y)."},
        {"grid", nullptr, 4, "Blocks in the grid (x by y) for these sizes."},
        {"shared memory per block", "shared", 4},
        {"kernel time, median (ms)", "ms", 1, nullptr, true},
        {"GFLOP/s", nullptr, 0, "2 M N K floating-point operations over the kernel time.", true},
        {"of cuBLAS", nullptr, 1,
         "This step's GFLOP/s over cuBLAS SGEMM's, measured in the same run.", true},
        {"of FP32 peak", "of peak", 2, "This step's GFLOP/s over the GPU's float32 peak.", true},
        {"max |error|", nullptr, 2, nullptr, true},
        {"relative error", "relative", 3, nullptr, true},
        {"checked against float64", "checked", 0, nullptr, true},
    };
    if (beginDataTable("##ladder", kColumns, static_cast<int>(steps().size()), r != nullptr)) {
      for (const StepInfo& s : steps()) {
        const StepResult* m = r ? r->find(s.id) : nullptr;
        const StepLaunch c = stepLaunch(s, M, N, K);
        // The step's colour as a swatch (the same as in the plots); text stays readable in
        // both themes.
        stepNameCell(s.colour, s.label, s.help);  // marked N_() in the step table
        ImGui::TextUnformatted(blockText(s).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(
            handWritten(s) ? (thousands(c.gridX) + " x " + thousands(c.gridY)).c_str() : "-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(matmulKib(s.sharedBytes).c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::Text("%s", trimmedFixed(m->m.kernel().medianMs, 3).c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(rate(m->gflops).c_str());
        ImGui::TableNextColumn();
        if (m && m->ofLibrary > 0) ImGui::TextUnformatted(matmulPercent(m->ofLibrary).c_str());
        ImGui::TableNextColumn();
        if (m && ceil && ceil->fp32PeakGflops > 0 && s.precision == Precision::Float32)
          ImGui::TextUnformatted(matmulPercent(m->gflops / ceil->fp32PeakGflops).c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(sciText(m->error.maxAbsError).c_str());
        helpTooltip("The largest |C - C_float64| over the elements checked.");
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(sciText(m->error.maxRelError).c_str());
        helpTooltip(
            "The largest error over the largest |C_float64|: relative to the size of the "
            "results, without blowing up where an element happens to be near 0.");
        ImGui::TableNextColumn();
        if (m)
          correctnessCell(ctx.theme, m->error,
                          trf("Compared with the float64 CPU product on %s elements (all of C up "
                              "to 1024 x 1024, 64 sampled rows beyond); tolerance K x 2^-24 x sum "
                              "|A[i,k] B[k,j]| for float32.",
                              thousands(static_cast<long long>(m->error.checked)).c_str()));
      }
      endDataTable();
    }
    if (r && plot::BeginPlot("matmul_ladder", "GFLOP/s per step##ladderplot", ImVec2(-1, 0))) {
      std::vector<const char*> names;
      std::vector<double> g;
      for (const StepResult& s : r->steps) {
        if (stepInfo(s.step).precision == Precision::Float64) continue;
        names.push_back(stepInfo(s.step).key);
        g.push_back(s.gflops);
      }
      plot::SetupAxes({N_("step")}, {"GFLOP/s", plot::Scale::Log10});
      plot::SetupCategories(names.data(), int(names.size()));  // the steps' keys: ids
      plot::SetupLegend(plot::Legend::Hidden);
      plot::SetNextColour(0);
      plot::PlotBars("##gflops", g.data(), int(g.size()));
      if (ceil && ceil->fp32Gflops > 0) plot::PlotHLine("FP32 FMA, measured", ceil->fp32Gflops);
      plot::EndPlot();
    }
    if (ceil)
      mutedText(ctx.theme, trf("FP32 peak: %s in theory (every core, one FMA per clock at the "
                               "boost clock); %s measured with independent FMAs. TF32 runs on "
                               "tensor cores, above that roof.",
                               rate(ceil->fp32PeakGflops).c_str(), rate(ceil->fp32Gflops).c_str())
                               .c_str());
    endPanel(ctx);
  }

  // [SECTION] GFLOP/s against size; the roofline; errors

  void drawSweep(LessonContext& ctx) {
    if (!beginPanel(ctx, "sweep", "GFLOP/s against size")) return endPanel(ctx);
    if (waitingForMeasurement(bool(sweep_), sweep_.running(), gpu_,
                              N_("Press \"GFLOP/s against size\" to measure "
                                 "square matrices from 128 to 4096.")))
      return endPanel(ctx);
    stepLinesPlot(
        "matmul_sweep", "##sweep", {"n (M = N = K)", plot::Scale::Log10, NAN, NAN, "%.0f"},
        {"GFLOP/s", plot::Scale::Log10}, sweepStepIds(), sweep_->points, stepInfo,
        [](const SweepPoint& p) { return p.n; }, [](const SweepPoint& p) { return p.gflops; });
    endSweepPanel(ctx, *sweep_, "", N_("float64"),
                  N_("Small matrices leave most of the GPU idle (a 128 x 256 tile per block gives "
                     "a 512-square product only 8 blocks for 132 SMs); cuBLAS picks its tiles "
                     "per size."));
  }

  void drawRoofline(LessonContext& ctx) {
    if (!beginPanel(ctx, "roofline", "Roofline: arithmetic intensity against GFLOP/s"))
      return endPanel(ctx);
    if (!ladder_ || !ladder_->ceilings) {
      textWrapped("%s", gpu_ ? tr("Measure the ladder first: the roofline needs the measured "
                                  "copy bandwidth and FMA rate of this GPU.")
                             : tr("No GPU: nothing is measured."));
      return endPanel(ctx);
    }
    const Ceilings& c = *ladder_->ceilings;
    const LadderReport& r = ladder_->report;
    if (plot::BeginPlot("matmul_roofline", "##roofline", ImVec2(-1, 0))) {
      plot::SetupAxes({N_("flops per byte asked of global memory"), plot::Scale::Log10, 0.1, 1000},
                      {"GFLOP/s", plot::Scale::Log10, 50, std::max(c.fp32Gflops * 2, 1000.0)});
      plot::SetupLegend(plot::Legend::Outside);
      const double ridge = c.fp32Gflops / c.memoryGBps;
      const double xs[] = {0.1, ridge, 1000};
      const double ys[] = {0.1 * c.memoryGBps, c.fp32Gflops, c.fp32Gflops};
      plot::SetNextColour(7);
      plot::PlotLine("roof (measured)", xs, ys, 3);
      for (const StepResult& s : r.steps) {
        const StepInfo& i = stepInfo(s.step);
        if (i.precision != Precision::Float32) continue;
        const double ai = flops(r.p.M, r.p.N, r.p.K) / globalBytes(i, r.p.M, r.p.N, r.p.K);
        plot::SetNextColour(i.colour);
        plot::PlotScatter(i.key, &ai, &s.gflops, 1);
      }
      plot::EndPlot();
    }
    mutedText(ctx.theme,
              trf("The roof: a device copy moves %s GB/s, and independent FMAs reach %s. "
                  "A step's intensity counts the bytes its loads ask for: a naive thread reads 8 "
                  "bytes per multiply-add (0.25 flop/byte), 16 x 16 tiles read each value once per "
                  "16 uses (4 flop/byte), 128 x 256 tiles about 43 flop/byte. cuBLAS sits at the "
                  "least any kernel must read. "
                  "Steps far below the roof at high intensity are limited by something else: "
                  "shared-memory loads, latency, registers. Steps above the slanted roof are not "
                  "breaking it: the roof is DRAM's, and most of what the naive kernels ask for "
                  "comes from the L1 and L2 caches.",
                  trimmedFixed(c.memoryGBps, 0).c_str(), rate(c.fp32Gflops).c_str())
                  .c_str());
    endPanel(ctx);
  }

  void drawErrors(LessonContext& ctx) {
    if (!beginPanel(ctx, "errors", "Error against the float64 CPU product")) return endPanel(ctx);
    if (!ladder_) {
      textWrapped("%s", gpu_ ? tr("Measure the ladder first.")
                             : tr("No GPU: nothing is measured. The course's comparison below "
                                  "shows the CPU's error."));
      return endPanel(ctx);
    }
    const LadderReport& r = ladder_->report;
    if (plot::BeginPlot("matmul_errors", "##errors", ImVec2(-1, 0))) {
      std::vector<const char*> names;
      std::vector<double> e;
      for (const StepResult& s : r.steps) {
        names.push_back(stepInfo(s.step).key);
        e.push_back(std::max(s.error.maxAbsError, 1e-18));
      }
      plot::SetupAxes({N_("step")}, {"max |C - C_float64|", plot::Scale::Log10});
      plot::SetupCategories(names.data(), int(names.size()));
      plot::SetupLegend(plot::Legend::Hidden);
      plot::SetNextColour(5);
      plot::PlotBars("##err", e.data(), int(e.size()));
      plot::EndPlot();
    }
    const StepResult* f = r.find(StepId::Tiled16);
    const StepResult* t = r.find(StepId::CublasTf32);
    const StepResult* d = r.find(StepId::Tiled64);
    mutedText(
        ctx.theme,
        trf("Inputs uniform in [-1, 1], K = %d. float32 steps: %s (tiled 16); TF32: %s; "
            "float64: %s. The course reported \"Numba vs NumPy 1.5e-4\": two float32 results that "
            "differ only in the order of their sums. TF32 rounds every input to 10 mantissa bits, "
            "so its error is about 1000 times larger: the price of its speed. The float64 steps "
            "come out at or near 0 (0 is drawn at the axis' bottom): products of float32 inputs "
            "are exact in float64, and our kernels add them in the same order as the reference.",
            r.p.K, (f ? sciText(f->error.maxAbsError) : "-").c_str(),
            (t ? sciText(t->error.maxAbsError) : "-").c_str(),
            (d ? sciText(d->error.maxAbsError) : "-").c_str())
            .c_str());
    endPanel(ctx);
  }

  // [SECTION] the course's comparison

  void drawCourse(LessonContext& ctx) {
    if (!beginPanel(ctx, "course", "The course's comparison")) return endPanel(ctx);
    if (!course_) {
      textWrapped("%s", course_.running() ? tr("Running...") : tr("Not run yet."));
      return endPanel(ctx);
    }
    const CourseReport& c = *course_;
    textWrapped(
        "%d x %d times %d x %d, float32. The CPU rows are this app's own i-k-j loop (vectorised by "
        "the compiler, %d threads for \"all cores\"), standing in for NumPy; GPU times are the "
        "kernel alone, as the course timed Numba.",
        c.n, c.n, c.n, c.n, c.cpuThreads);
    staleNote(ctx.theme, c.n != courseN_, actionLabel(kActionCourse));
    double oneThread = 0;
    bool gpuRan = false;
    for (const CourseRow& row : c.rows)
      gpuRan = gpuRan || (row.gpu && row.ran);
    for (const CourseRow& row : c.rows)
      if (row.ran && row.what.find("one thread") != std::string::npos) oneThread = row.ms;
    // The run, its speed and its speedup carry the course's comparison; the differences give way
    // first on a projector.
    static const TableColumn kColumns[] = {
        {"run"},
        {"time (ms)", "ms", 1},
        {"GFLOP/s", nullptr, 0},
        {"speedup over one CPU thread", "vs one thread", 0},
        {"max |diff| against the CPU's result", "|diff| vs CPU", 2},
        {"max |error| against float64", "|error| vs f64", 2},
    };
    if (beginDataTable("##course", kColumns, static_cast<int>(c.rows.size()))) {
      for (const CourseRow& row : c.rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(row.what.c_str()));  // marked N_() where the rows are made
        if (!row.ran) {  // why not ("no GPU"), where the speed would be: that column stays
          ImGui::TableNextColumn();
          ImGui::TableNextColumn();
          ImGui::TextDisabled("%s", tr(row.note).c_str());
          continue;
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(trimmedFixed(row.ms, row.ms < 10 ? 3 : 1).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(rate(row.gflops).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(
            oneThread > 0
                ? (trimmedFixed(oneThread / row.ms, oneThread / row.ms < 10 ? 1 : 0) + "x").c_str()
                : "");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.what.find("all cores") != std::string::npos
                                   ? tr("(the CPU result)")
                                   : sciText(row.maxAbsVsCpu).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(sciText(row.maxAbsVsRef).c_str());
        if (!row.note.empty()) {
          ImGui::SameLine();
          ImGui::TextUnformatted(tr(row.note).c_str());
        }
      }
      endDataTable();
    }
    mutedText(ctx.theme,
              gpuRan ? tr("The course found Numba's naive kernel slower than NumPy. Here too the "
                          "naive kernel is far below cuBLAS: its warps wait on memory. The "
                          "differences from the CPU are not mistakes: float32 sums in another "
                          "order round differently.")
                     : tr("Without a GPU only the CPU rows run. The one-thread row differs from "
                          "the all-cores row by 0: both add in the same order."));
    endPanel(ctx);
  }

  // [SECTION] work on the worker thread; export

  void poll(LessonContext& ctx) {
    ctx.errors(error_, {ladder_.collect(), sweep_.collectSweep(), course_.collect()});
    if (ladder_ && ladder_->ceilings) ceilings_ = ladder_->ceilings;
  }

  bool startLadder() {
    if (!mayStart(gpu_ && !ladder_.running())) return false;
    MatmulParams p{M_, N_, K_};
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    const std::optional<Ceilings> known = ceilings_;
    return ladder_.start([p, known](AsyncJob<LadderView>::Control& c) -> Result<LadderView> {
      LadderView v;
      v.ceilings = known;
      if (!v.ceilings) {
        c.progress(0, N_("the roofline's ceilings: a device copy and FMAs"));
        Result<Ceilings> ce = measureCeilings(c.cancelFlag());
        if (!ce) return ce.status();
        v.ceilings = *ce;
      }
      Result<LadderReport> r = measureLadder(p, allStepIds(), c.cancelFlag(), c.progressFn());
      if (!r) return r.status();
      v.report = std::move(*r);
      return v;
    });
  }

  bool startSweep() {
    if (!mayStart(gpu_ && !sweep_.running())) return false;
    return sweep_.start(
        [](AsyncJob<SweepRun<SweepPoint>>::Control& c) -> Result<SweepRun<SweepPoint>> {
          return measureSweep(defaultSweepSizes(), sweepStepIds(), c.cancelFlag(), c.progressFn());
        });
  }

  bool startCourse() {
    if (!mayStart(!course_.running())) return false;
    const int n = courseN_;
    const bool gpu = gpu_;
    return course_.start([n, gpu](AsyncJob<CourseReport>::Control& c) -> Result<CourseReport> {
      return measureCourse(n, gpu, c.cancelFlag(), c.progressFn());
    });
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (course_)  // the course's comparison: its CPU rows run without a GPU too
      for (const CourseRow& r : course_->rows)
        if (r.ran)
          rows.push_back({"course " + r.what,
                          // The pins show it as given (tr finds no entry for a label with n).
                          trf("course (n = %d): %s", course_->n, tr(r.what.c_str())),
                          {{"GFLOP/s", r.gflops, "GFLOP/s", true},
                           {"ms", r.ms, "ms", false},
                           {N_("max error vs float64"), r.maxAbsVsRef, "", false}}});
    if (!ladder_) return rows;
    for (const StepResult& s : ladder_->report.steps)
      rows.push_back({stepInfo(s.step).key,
                      stepInfo(s.step).label,
                      {{"GFLOP/s", s.gflops, "GFLOP/s", true},
                       {"ms", s.m.kernel().medianMs, "ms", false},
                       {N_("max relative error"), s.error.maxRelError, "", false}}});
    return rows;
  }

  LessonResults results() const override {
    const std::vector<MeasuredRow> rows = stepRows(
        ladder_ ? &ladder_->report : nullptr, [](const LadderReport& r, const StepResult& s) {
          return productRow(stepInfo(s.step).key, r.p.M, r.p.N, r.p.K, "gflops", s.gflops,
                            s.ofLibrary, s.error, s.m);
        });
    nlohmann::json j;
    if (ladder_) {
      j["device"] = ladder_->report.device;
      j["ladder"] = toJson(rows);
      if (ladder_->ceilings)
        j["ceilings"] = {{"memory_gbps", ladder_->ceilings->memoryGBps},
                         {"fp32_gflops", ladder_->ceilings->fp32Gflops},
                         {"memory_peak_gbps", ladder_->ceilings->memoryPeakGBps},
                         {"fp32_peak_gflops", ladder_->ceilings->fp32PeakGflops}};
    }
    if (sweep_)
      for (const SweepPoint& p : sweep_->points)
        j["sweep"].push_back(toJson(p));
    if (course_)
      for (const CourseRow& row : course_->rows)
        j["course"].push_back({{"n", course_->n},
                               {"what", row.what},
                               {"ran", row.ran},
                               {"ms", row.ms},
                               {"gflops", row.gflops},
                               {"max_abs_vs_cpu", row.maxAbsVsCpu},
                               {"max_abs_vs_float64", row.maxAbsVsRef},
                               {"note", phraseEnglish(row.note)}});
    return ladderResults(
        std::move(j), rows,
        N_("The CSV holds the measured ladder, and nothing is measured yet (it needs a GPU). "
           "Export JSON saves the course's comparison."));
  }

  bool gpu_ = false;
  BlockLimits limits_;
  HelperCountersPanel<MatmulParams> counters_ = makeMatmulCountersPanel();
  MatmulPicturesPanel pictures_;
  int M_ = int(kSizeM.defaultValue), N_ = int(kSizeN.defaultValue), K_ = int(kSizeK.defaultValue);
  int courseN_ = int(kCourseSize.defaultValue);

  KeptJob<LadderView> ladder_;
  std::optional<Ceilings> ceilings_;
  KeptJob<SweepRun<SweepPoint>> sweep_;  // its points, and why it stopped early if it did
  KeptJob<CourseReport> course_;
};

}  // namespace

const LessonEntry kMatmulLesson{&kMatmulLessonInfo, &makeLesson<MatmulLesson>, kMatmulBenches};

}  // namespace cudalab
