// Lesson "matmul": the course's naive matrix product, then shared-memory tiles, register blocking,
// vector loads, warp tiles and cuBLAS, each step measured and checked against float64.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: sizes, measurements, export
//   the ladder: GFLOP/s, share of cuBLAS and of the FP32 peak, errors
//   GFLOP/s against size; the roofline; errors
//   the course's comparison
//   how tiling works: the block's tiles at step m, each thread's elements
//   the naive steps' reads: the memory lesson's sector view
//   work on the worker thread; export
#include "lessons/matmul_lesson.hpp"
#include "lessons/matmul_counters_panel.hpp"

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
#include "ui/plot.hpp"
#include "ui/theme.hpp"
#include "ui/warp_picture.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] lesson text, jobs and their results

const LessonInfo kMatmulLessonInfo{
    "matmul", "Matmul: from the naive kernel to cuBLAS",
    "course file 001: NumPy, Numba and PyTorch on a matrix product; shared memory, coalescing, "
    "thread-block tiling, and why cuBLAS wins",
    "C = A B through nine steps, each its own kernel checked against float64 and timed: GFLOP/s, "
    "share of cuBLAS and of the FP32 peak, a roofline, the course's comparison, and pictures of "
    "which tiles each block loads and which elements each thread owns."};

namespace {

using namespace matmul;

const char* kActionLadder = "ladder";
const char* kActionSweep = "sweep";
const char* kActionCourse = "course";
const char* kActionCounters = "counters";

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

// "100%", "12.5%", "0.8%": a decimal only where the value has one.
std::string percent(double f) {
  const double p = 100 * f;
  return trimmedFixed(p, std::fabs(p - std::round(p)) > 0.05 || p < 1 ? 1 : 0) + "%";
}

std::string kib(int bytes) {
  if (bytes == 0) return "-";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return trimmedFixed(bytes / 1024.0, 1) + " KiB";
}

// The steps the tiling picture offers (built once: the picture asks every frame).
const std::vector<const StepInfo*>& handWrittenSteps() {
  static const std::vector<const StepInfo*> v = [] {
    std::vector<const StepInfo*> out;
    for (const StepInfo& s : steps())
      if (handWritten(s)) out.push_back(&s);
    return out;
  }();
  return v;
}

std::string blockText(const StepInfo& s) {
  if (!handWritten(s)) return "cuBLAS";
  if (s.blockY > 1) return std::to_string(s.blockX) + " x " + std::to_string(s.blockY);
  return std::to_string(s.blockX);
}

class MatmulLesson final : public Lesson {
 public:
  const LessonInfo& info() const override { return kMatmulLessonInfo; }
  std::span<const ParamSpec> parameters() const override { return kParams; }
  std::vector<VariantRow> variants() const override {
    std::vector<VariantRow> rows;
    for (const StepInfo& s : steps())
      rows.push_back({s.key, s.label, s.help});
    return rows;
  }
  bool busy() const override {
    return ladderJob_.pending() || sweepJob_.pending() || courseJob_.pending() ||
           counters_.pending() || !queue_.empty();
  }
  std::vector<std::string> actionIds() const override {
    return {kActionLadder, kActionSweep, kActionCourse, kActionCounters};
  }
  bool startAction(const std::string& id) override {
    if (working()) return false;
    if (id == kActionLadder) return startLadder();
    if (id == kActionSweep) return startSweep();
    if (id == kActionCourse) return startCourse();
    if (id == kActionCounters) return gpu_ && counters_.start(MatmulParams{M_, N_, K_});
    return false;
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    limits_ = gpu_ ? deviceBlockLimits() : BlockLimits{};
    // Without a GPU the course's CPU rows still run; the ladder needs a GPU.
    queue_ = gpu_ ? std::vector<std::string>{kActionLadder, kActionCourse}
                  : std::vector<std::string>{kActionCourse};
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    ImGui::TextUnformatted("C (M x N) = A (M x K) B (K x N)");
    paramSlider(kSizeM, M_);
    paramSlider(kSizeN, N_);
    paramSlider(kSizeK, K_);
    const struct {
      const char* label;
      int m, n, k;
    } presets[] = {{"1024^3", 1024, 1024, 1024},
                   {"4096^3", 4096, 4096, 4096},
                   {"17x33x9", 17, 33, 9},
                   {"257x129x511", 257, 129, 511}};
    for (size_t i = 0; i < std::size(presets); ++i) {
      if (i % 2) ImGui::SameLine();
      if (ImGui::SmallButton(presets[i].label))
        M_ = presets[i].m, N_ = presets[i].n, K_ = presets[i].k;
    }
    if (!gpu_)
      mutedText(ctx.theme,
                "No GPU: the tiling pictures and the sector view are computed on the CPU, and the "
                "course's comparison runs its CPU rows. GFLOP/s of the kernels need a GPU.");
    ImGui::BeginDisabled(working() || !gpu_);
    if (ImGui::Button("Measure the ladder")) startLadder();
    helpTooltip(
        "Every step on fresh random M x K and K x N matrices: output poisoned, checked "
        "against the float64 CPU product, then timed (median of 10 runs; slow steps at "
        "large sizes get fewer).");
    if (ImGui::Button("GFLOP/s against size")) startSweep();
    helpTooltip("The float32 steps and cuBLAS on square matrices of 128 to 4096, 3 runs each.");
    ImGui::EndDisabled();
    ImGui::Spacing();
    paramSlider(kCourseSize, courseN_);
    ImGui::BeginDisabled(working());
    if (ImGui::Button("Run the course's comparison")) startCourse();
    ImGui::EndDisabled();
    helpTooltip(
        "The same n x n matrices on the CPU (one thread, then all cores), the naive "
        "kernel, the 16 x 16 tiled kernel and cuBLAS.");
    if (working()) {
      const JobProgress pr = ladderJob_.running()  ? ladderJob_.progress()
                             : sweepJob_.running() ? sweepJob_.progress()
                                                   : courseJob_.progress();
      ImGui::ProgressBar(pr.fraction, ImVec2(-1, 0), pr.what.c_str());
      if (ImGui::Button("Cancel")) {
        ladderJob_.cancel();
        sweepJob_.cancel();
        courseJob_.cancel();
        queue_.clear();
      }
    }
    ImGui::Spacing();
    if (ImGui::Button("Export CSV")) exportResults(ctx, false);
    ImGui::SameLine();
    if (ImGui::Button("Export JSON")) exportResults(ctx, true);
  }

  void drawMain(LessonContext& ctx) override {
    startNextQueued(*this, queue_, working());
    errorText(ctx.theme, error_);
    drawLadder(ctx);
    drawSweep(ctx);
    drawRoofline(ctx);
    drawErrors(ctx);
    drawCourse(ctx);
    drawTiling(ctx);
    drawSectors(ctx);
    counters_.draw(ctx, gpu_, MatmulParams{M_, N_, K_});
  }

 private:
  static constexpr ParamSpec kParams[] = {kSizeM, kSizeN, kSizeK, kCourseSize};

  bool working() const {
    return ladderJob_.running() || sweepJob_.running() || courseJob_.running();
  }

  // [SECTION] the ladder: GFLOP/s, share of cuBLAS and of the FP32 peak, errors

  void drawLadder(LessonContext& ctx) {
    if (!beginPanel(ctx, "ladder", "The ladder: every step measured")) return endPanel(ctx);
    const LadderReport* r = ladder_ ? &ladder_->report : nullptr;
    const Ceilings* ceil = ladder_ && ladder_->ceilings ? &*ladder_->ceilings : nullptr;
    if (r) {
      const StepResult* lib = r->find(StepId::Cublas);
      const StepResult* best = nullptr;
      for (const StepResult& s : r->steps)
        if (handWritten(stepInfo(s.step)) && stepInfo(s.step).precision == Precision::Float32 &&
            (!best || s.gflops > best->gflops))
          best = &s;
      const StepResult* t16 = r->find(StepId::Tiled16);
      ImGui::TextWrapped(
          "%d x %d x %d on %s. Best hand-written step: %s, %s%s. The course's tile size (16): "
          "%s; the course's Numba tiled kernel reached 7.9 TFLOP/s on an H200.",
          r->p.M, r->p.N, r->p.K, r->device.c_str(), best ? stepInfo(best->step).label : "-",
          best ? rate(best->gflops).c_str() : "-",
          best && lib
              ? (" = " + percent(best->ofLibrary) + " of cuBLAS SGEMM (" + rate(lib->gflops) + ")")
                    .c_str()
              : "",
          t16 ? rate(t16->gflops).c_str() : "-");
    } else {
      ImGui::TextWrapped("%s", ladderJob_.running() ? "Measuring..."
                               : gpu_ ? "Not measured yet: press \"Measure the ladder\"."
                                      : "No GPU: nothing is measured. The table shows each step's "
                                        "launch for the chosen sizes.");
    }
    const int M = r ? r->p.M : M_, N = r ? r->p.N : N_, K = r ? r->p.K : K_;
    const ImGuiTableFlags flags =
        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("##ladder", 11, flags)) {
      const char* heads[] = {"step",        "block",    "grid",      "shared",
                             "ms",          "GFLOP/s",  "of cuBLAS", "of FP32 peak",
                             "max |error|", "relative", "checked"};
      for (const char* h : heads)
        ImGui::TableSetupColumn(h, 0, std::string(h) == "step" ? 3.0f : 1.0f);
      ImGui::TableHeadersRow();
      for (const StepInfo& s : steps()) {
        const StepResult* m = r ? r->find(s.id) : nullptr;
        const LaunchConfig c = launchConfig(s, M, N, K);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        // The step's colour as a swatch (the same as in the plots); text stays readable in
        // both themes.
        colourSwatch(s.colour);
        ImGui::TextUnformatted(s.label);
        helpTooltip(s.help);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(blockText(s).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(
            handWritten(s) ? (thousands(c.gridX) + " x " + thousands(c.gridY)).c_str() : "-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(kib(s.sharedBytes).c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::Text("%s", trimmedFixed(m->m.kernel().medianMs, 3).c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(rate(m->gflops).c_str());
        ImGui::TableNextColumn();
        if (m && m->ofLibrary > 0) ImGui::TextUnformatted(percent(m->ofLibrary).c_str());
        ImGui::TableNextColumn();
        if (m && ceil && ceil->fp32PeakGflops > 0 && s.precision == Precision::Float32)
          ImGui::TextUnformatted(percent(m->gflops / ceil->fp32PeakGflops).c_str());
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(sciText(m->error.maxAbsError).c_str());
        helpTooltip("The largest |C - C_float64| over the elements checked.");
        ImGui::TableNextColumn();
        if (m) ImGui::TextUnformatted(sciText(m->error.maxRelError).c_str());
        helpTooltip(
            "The largest error over the largest |C_float64|: relative to the size of the "
            "results, without blowing up where an element happens to be near 0.");
        ImGui::TableNextColumn();
        if (m) {
          ImGui::PushStyleColor(ImGuiCol_Text,
                                m->error.ok() ? ImGui::ColorConvertU32ToFloat4(paletteColour(2))
                                              : ctx.theme.errorColour());
          ImGui::TextUnformatted(
              m->error.ok()
                  ? "correct"
                  : (thousands(static_cast<long long>(m->error.wrong)) + " wrong").c_str());
          ImGui::PopStyleColor();
          helpTooltip(("Compared with the float64 CPU product on " +
                       thousands(static_cast<long long>(m->error.checked)) +
                       " elements (all of C up to 1024 x 1024, 64 sampled rows beyond); "
                       "tolerance K x 2^-24 x sum |A[i,k] B[k,j]| for float32.")
                          .c_str());
        }
      }
      ImGui::EndTable();
    }
    if (r && plot::BeginPlot("matmul_ladder", "GFLOP/s per step##ladderplot", ImVec2(-1, 0))) {
      std::vector<const char*> names;
      std::vector<double> g;
      for (const StepResult& s : r->steps) {
        if (stepInfo(s.step).precision == Precision::Float64) continue;
        names.push_back(stepInfo(s.step).key);
        g.push_back(s.gflops);
      }
      plot::SetupAxes({"step"}, {"GFLOP/s", plot::Scale::Log10});
      plot::SetupCategories(names.data(), int(names.size()));
      plot::SetupLegend(plot::Legend::Hidden);
      plot::SetNextColour(0);
      plot::PlotBars("##gflops", g.data(), int(g.size()));
      if (ceil && ceil->fp32Gflops > 0) plot::PlotHLine("FP32 FMA, measured", ceil->fp32Gflops);
      plot::EndPlot();
    }
    if (ceil)
      mutedText(ctx.theme, ("FP32 peak: " + rate(ceil->fp32PeakGflops) +
                            " in theory (every core, one FMA per clock at the boost clock); " +
                            rate(ceil->fp32Gflops) +
                            " measured with independent FMAs. TF32 runs on tensor cores, above "
                            "that roof.")
                               .c_str());
    endPanel(ctx);
  }

  // [SECTION] GFLOP/s against size; the roofline; errors

  void drawSweep(LessonContext& ctx) {
    if (!beginPanel(ctx, "sweep", "GFLOP/s against size")) return endPanel(ctx);
    if (!sweep_) {
      ImGui::TextWrapped("%s", sweepJob_.running() ? "Measuring..."
                               : gpu_ ? "Press \"GFLOP/s against size\" to measure square "
                                        "matrices from 128 to 4096."
                                      : "No GPU: nothing is measured.");
      return endPanel(ctx);
    }
    if (plot::BeginPlot("matmul_sweep", "##sweep", ImVec2(-1, 0))) {
      plot::SetupAxes({"n (M = N = K)", plot::Scale::Log10, NAN, NAN, "%.0f"},
                      {"GFLOP/s", plot::Scale::Log10});
      plot::SetupLegend(plot::Legend::Outside);
      for (StepId id : sweepStepIds()) {
        std::vector<double> xs, ys;
        for (const SweepPoint& p : *sweep_)
          if (p.step == id) xs.push_back(p.n), ys.push_back(p.gflops);
        if (xs.empty()) continue;
        plot::SetNextColour(stepInfo(id).colour);
        plot::PlotLine(stepInfo(id).key, xs.data(), ys.data(), int(xs.size()));
      }
      plot::EndPlot();
    }
    bool allOk = true;
    for (const SweepPoint& p : *sweep_)
      allOk = allOk && p.ok;
    mutedText(ctx.theme,
              (std::string("Every point checked against float64: ") +
               (allOk ? "all correct. " : "SOME WRONG. ") +
               "Small matrices leave most of the GPU idle (a 128 x 256 tile per block gives a "
               "512-square product only 8 blocks for 132 SMs); cuBLAS picks its tiles per size.")
                  .c_str());
    endPanel(ctx);
  }

  void drawRoofline(LessonContext& ctx) {
    if (!beginPanel(ctx, "roofline", "Roofline: arithmetic intensity against GFLOP/s"))
      return endPanel(ctx);
    if (!ladder_ || !ladder_->ceilings) {
      ImGui::TextWrapped("%s", gpu_ ? "Measure the ladder first: the roofline needs the measured "
                                      "copy bandwidth and FMA rate of this GPU."
                                    : "No GPU: nothing is measured.");
      return endPanel(ctx);
    }
    const Ceilings& c = *ladder_->ceilings;
    const LadderReport& r = ladder_->report;
    if (plot::BeginPlot("matmul_roofline", "##roofline", ImVec2(-1, 0))) {
      plot::SetupAxes({"flops per byte asked of global memory", plot::Scale::Log10, 0.1, 1000},
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
              ("The roof: a device copy moves " + trimmedFixed(c.memoryGBps, 0) +
               " GB/s, and independent FMAs reach " + rate(c.fp32Gflops) +
               ". A step's intensity counts the bytes its loads ask for: a naive thread reads 8 "
               "bytes per multiply-add (0.25 flop/byte), 16 x 16 tiles read each value once per "
               "16 uses (4 flop/byte), 128 x 256 tiles about 43 flop/byte. cuBLAS sits at the "
               "least any kernel must read. "
               "Steps far below the roof at high intensity are limited by something else: "
               "shared-memory loads, latency, registers. Steps above the slanted roof are not "
               "breaking it: the roof is DRAM's, and most of what the naive kernels ask for "
               "comes from the L1 and L2 caches.")
                  .c_str());
    endPanel(ctx);
  }

  void drawErrors(LessonContext& ctx) {
    if (!beginPanel(ctx, "errors", "Error against the float64 CPU product")) return endPanel(ctx);
    if (!ladder_) {
      ImGui::TextWrapped("%s", gpu_ ? "Measure the ladder first."
                                    : "No GPU: nothing is measured. "
                                      "The course's comparison "
                                      "below shows the CPU's error.");
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
      plot::SetupAxes({"step"}, {"max |C - C_float64|", plot::Scale::Log10});
      plot::SetupCategories(names.data(), int(names.size()));
      plot::SetupLegend(plot::Legend::Hidden);
      plot::SetNextColour(5);
      plot::PlotBars("##err", e.data(), int(e.size()));
      plot::EndPlot();
    }
    const StepResult* f = r.find(StepId::Tiled16);
    const StepResult* t = r.find(StepId::CublasTf32);
    const StepResult* d = r.find(StepId::Tiled64);
    mutedText(ctx.theme,
              ("Inputs uniform in [-1, 1], K = " + std::to_string(r.p.K) +
               ". float32 steps: " + (f ? sciText(f->error.maxAbsError) : "-") +
               " (tiled 16); TF32: " + (t ? sciText(t->error.maxAbsError) : "-") +
               "; float64: " + (d ? sciText(d->error.maxAbsError) : "-") +
               ". The course reported \"Numba vs NumPy 1.5e-4\": two float32 results that differ "
               "only in the order of their sums. TF32 rounds every input to 10 mantissa bits, so "
               "its error is about 1000 times larger: the price of its speed. The float64 "
               "steps come out at or near 0 (0 is drawn at the axis' bottom): products of float32 "
               "inputs are exact in float64, and our kernels add them in the same order as the "
               "reference.")
                  .c_str());
    endPanel(ctx);
  }

  // [SECTION] the course's comparison

  void drawCourse(LessonContext& ctx) {
    if (!beginPanel(ctx, "course", "The course's comparison")) return endPanel(ctx);
    if (!course_) {
      ImGui::TextWrapped("%s", courseJob_.running() ? "Running..." : "Not run yet.");
      return endPanel(ctx);
    }
    const CourseReport& c = *course_;
    ImGui::TextWrapped(
        "%d x %d times %d x %d, float32. The CPU rows are this app's own i-k-j loop (vectorised by "
        "the compiler, %d threads for \"all cores\"), standing in for NumPy; GPU times are the "
        "kernel alone, as the course timed Numba.",
        c.n, c.n, c.n, c.n, c.cpuThreads);
    double oneThread = 0;
    bool gpuRan = false;
    for (const CourseRow& row : c.rows)
      gpuRan = gpuRan || (row.gpu && row.ran);
    for (const CourseRow& row : c.rows)
      if (row.ran && row.what.find("one thread") != std::string::npos) oneThread = row.ms;
    if (ImGui::BeginTable("##course", 6,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      for (const char* h : {"", "ms", "GFLOP/s", "vs one CPU thread", "max |diff| vs CPU",
                            "max |error| vs float64"})
        ImGui::TableSetupColumn(h, 0, h[0] ? 1.0f : 2.4f);
      ImGui::TableHeadersRow();
      for (const CourseRow& row : c.rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.what.c_str());
        if (!row.ran) {
          ImGui::TableNextColumn();
          mutedText(ctx.theme, row.note.c_str());
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
                                   ? "(the CPU result)"
                                   : sciText(row.maxAbsVsCpu).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(sciText(row.maxAbsVsRef).c_str());
        if (!row.note.empty()) {
          ImGui::SameLine();
          ImGui::TextUnformatted(row.note.c_str());
        }
      }
      ImGui::EndTable();
    }
    mutedText(ctx.theme,
              gpuRan ? "The course found Numba's naive kernel slower than NumPy. Here too the "
                       "naive kernel is far below cuBLAS: its warps wait on memory. The "
                       "differences from the CPU are not mistakes: float32 sums in another order "
                       "round differently."
                     : "Without a GPU only the CPU rows run. The one-thread row differs from the "
                       "all-cores row by 0: both add in the same order.");
    endPanel(ctx);
  }

  // [SECTION] how tiling works: the block's tiles at step m, each thread's elements

  // The step the picture shows: a ladder step, or the tiled kernel with a tile of the learner's
  // choosing (which may be refused).
  StepInfo pictureStep() const {
    const std::vector<const StepInfo*>& hw = handWrittenSteps();
    StepInfo s = *hw[static_cast<size_t>(std::clamp(pictureIndex_, 0, int(hw.size()) - 1))];
    if (s.family == Family::Tiled && s.precision == Precision::Float32) {
      s.blockX = s.blockY = s.tileM = s.tileN = s.tileK = tile_;
      s.sharedBytes = TileChoice{tile_, Precision::Float32}.sharedBytes();
    }
    return s;
  }

  void drawTiling(LessonContext& ctx) {
    if (!beginPanel(ctx, "tiling", "How tiling works: one block, tile step by tile step"))
      return endPanel(ctx);
    const float s = ctx.scale;
    const std::vector<const StepInfo*>& hw = handWrittenSteps();
    ImGui::SetNextItemWidth(260 * s);
    const bool chooseTile = hw[size_t(pictureIndex_)]->id == StepId::Tiled16;
    if (ImGui::BeginCombo("Step##tiling", chooseTile ? "3. Shared tiles (choose the tile)"
                                                     : hw[size_t(pictureIndex_)]->label)) {
      for (int i = 0; i < int(hw.size()); ++i) {
        if (hw[size_t(i)]->id == StepId::Tiled8 || hw[size_t(i)]->id == StepId::Tiled32) continue;
        const bool tiled = hw[size_t(i)]->id == StepId::Tiled16;
        if (ImGui::Selectable(tiled ? "3. Shared tiles (choose the tile)" : hw[size_t(i)]->label,
                              i == pictureIndex_))
          pictureIndex_ = i, m_ = 0, thread_ = 0;
      }
      ImGui::EndCombo();
    }
    StepInfo st = pictureStep();
    if (st.family == Family::Tiled && st.precision == Precision::Float32) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(110 * s);
      if (ImGui::BeginCombo("Tile",
                            (std::to_string(tile_) + " x " + std::to_string(tile_)).c_str())) {
        for (int t : kTileChoices)
          if (ImGui::Selectable((std::to_string(t) + " x " + std::to_string(t)).c_str(),
                                t == tile_))
            tile_ = t, m_ = 0, thread_ = 0;
        ImGui::EndCombo();
      }
      st = pictureStep();
      const Status ok = validateTile({tile_, Precision::Float32}, limits_);
      if (!ok) {
        ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
        ImGui::TextWrapped("Refused: %s", ok.sentence().c_str());
        ImGui::PopStyleColor();
        mutedText(ctx.theme, gpu_ ? "Limits of this GPU." : "Limits of every GPU since Volta.");
        return endPanel(ctx);
      }
    }
    const int M = M_, N = N_, K = K_;
    const LaunchConfig lc = launchConfig(st, M, N, K);
    const int steps = tileSteps(st, K);
    bx_ = std::clamp(bx_, 0, lc.gridX - 1);
    by_ = std::clamp(by_, 0, lc.gridY - 1);
    const int threads = lc.threadsPerBlock();
    thread_ = std::clamp(thread_, 0, threads - 1);
    // Animation: one tile step every 0.7 s while playing.
    if (playing_ && !ctx.exporting) {
      const double now = ImGui::GetTime();
      if (now - lastStep_ > 0.7) m_ = (m_ + 1) % std::max(steps, 1), lastStep_ = now;
    }
    m_ = std::clamp(m_, 0, std::max(steps - 1, 0));
    ImGui::SetNextItemWidth(120 * s);
    ImGui::SliderInt("block x", &bx_, 0, lc.gridX - 1);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120 * s);
    ImGui::SliderInt("block y", &by_, 0, lc.gridY - 1);
    ImGui::SetNextItemWidth(160 * s);
    int shown = m_ + (st.family == Family::Naive ? 0 : 1);  // k from 0; tile steps from 1
    const int first = st.family == Family::Naive ? 0 : 1;
    if (ImGui::SliderInt(st.family == Family::Naive ? "k" : "tile step", &shown, first,
                         std::max(steps - 1, 0) + first))
      m_ = shown - first;
    ImGui::SameLine();
    if (!ctx.exporting) ImGui::Checkbox("Play", &playing_);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(140 * s);
    ImGui::SliderInt("thread", &thread_, 0, threads - 1);

    const Range rows = blockRows(st, M, N, bx_, by_), cols = blockCols(st, M, N, bx_, by_);
    const Range ks = stepK(st, K, m_);
    const std::vector<Cell> mine = ownedCells(st, thread_);
    std::string text;
    text = "Block (" + std::to_string(bx_) + ", " + std::to_string(by_) + ") of " +
           thousands(lc.gridX) + " x " + thousands(lc.gridY) + " computes C[" +
           std::to_string(rows.begin) + ":" + std::to_string(rows.end) + ", " +
           std::to_string(cols.begin) + ":" + std::to_string(cols.end) + "]";
    if (st.id == StepId::Warp && (bx_ != cols.begin / st.tileN || by_ != rows.begin / st.tileM))
      text += " (blocks walk C in groups of 8 tile rows, so block (" + std::to_string(bx_) + ", " +
              std::to_string(by_) + ") computes tile row " + std::to_string(rows.begin / st.tileM) +
              ", column " + std::to_string(cols.begin / st.tileN) + ")";
    if (st.family == Family::Naive)
      text += ". No shared memory: at k = " + std::to_string(ks.begin) +
              " each thread reads A[i, k] and B[k, j] straight from global memory.";
    else
      text += ". At step " + std::to_string(m_ + 1) + " of " + std::to_string(steps) +
              " it loads A[" + std::to_string(rows.begin) + ":" + std::to_string(rows.end) + ", " +
              std::to_string(ks.begin) + ":" + std::to_string(ks.end) + "] and B[" +
              std::to_string(ks.begin) + ":" + std::to_string(ks.end) + ", " +
              std::to_string(cols.begin) + ":" + std::to_string(cols.end) +
              "] into shared memory (" + kib(st.sharedBytes) +
              "), then every thread multiplies "
              "from there.";
    int inside = 0;
    for (const Cell& c : mine)
      inside += rows.begin + c.row < rows.end && cols.begin + c.col < cols.end;
    text += " Thread " + std::to_string(thread_) + " owns " + std::to_string(mine.size()) +
            (mine.size() == 1 ? " element" : " elements") + " of the tile" +
            (mine.size() > 1 ? ", kept in registers until the end" : "");
    if (inside < int(mine.size()))
      text += "; " + std::to_string(inside) +
              " of them inside C (the rest are computed from "
              "zeros and never stored)";
    text += ".";
    ImGui::TextWrapped("%s", text.c_str());

    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float height = 300 * s;
    const float gap = 14 * s;
    const float leftW = width * 0.55f;
    drawMatrices(ctx, st, M, N, K, rows, cols, ks, mine, ImVec2(o.x, o.y), leftW, height);
    drawOwnership(ctx, st, mine, ImVec2(o.x + leftW + gap, o.y), width - leftW - gap, height);
    ImGui::Dummy(ImVec2(width, height + ImGui::GetTextLineHeight() + 6 * s));
    mutedText(
        ctx.theme,
        "Left: A (left), B (top) and C, to scale (around the block when the matrices are large; "
        "the labels then give the rows and columns shown). Light: the block's bands of A and B and "
        "its tile of C; strong: what it loads at this step; in the text colour: the rows and "
        "columns the chosen thread uses. Right: the block's tile of C, one colour per warp "
        "(lighter and darker cells: neighbouring threads), the chosen thread's elements in "
        "the text colour.");
    endPanel(ctx);
  }

  // The part of one dimension the picture shows: all of it when short, otherwise six tiles (at
  // least 24 elements) around the block's band or the current tile step, aligned to tiles.
  struct Window {
    int begin = 0, end = 0, total = 0;
    int size() const { return std::max(end - begin, 1); }
    bool cut() const { return begin > 0 || end < total; }
  };
  static Window window(int n, int tile, Range focus) {
    tile = std::max(tile, 1);
    const int span = std::max(6 * tile, 24);
    if (n <= span) return {0, n, n};
    int b = std::clamp(focus.begin - 2 * tile, 0, n - span);
    b = (b / tile) * tile;
    return {b, std::min(n, b + span), n};
  }

  void drawMatrices(LessonContext& ctx, const StepInfo& st, int M, int N, int K, Range rows,
                    Range cols, Range ks, const std::vector<Cell>& mine, ImVec2 o, float w,
                    float h) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = ctx.scale;
    const float label = ImGui::GetTextLineHeight();
    const float gap = label + 6 * s;
    const Window wm = window(M, st.tileM, rows), wn = window(N, st.tileN, cols),
                 wk = window(K, st.tileK, ks);
    const double f = std::min((w - gap) / double(wk.size() + wn.size()),
                              (h - gap - label) / double(wk.size() + wm.size()));
    auto len = [&](int n) { return std::max(float(n * f), 3.0f * s); };
    const float wA = len(wk.size()), hA = len(wm.size()), wB = len(wn.size()), hB = len(wk.size());
    const ImVec2 a0(o.x, o.y + label + hB + gap), b0(o.x + wA + gap, o.y + label),
        c0(o.x + wA + gap, o.y + label + hB + gap);
    const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 frame = ImGui::GetColorU32(ImGuiCol_FrameBg);
    const ImU32 band = paletteColour(0, 0.45f), strong = paletteColour(1, 0.9f),
                cTile = paletteColour(2, 0.7f);
    struct View {
      ImVec2 p, sz;
      Window r, c;
    };
    const View A{a0, ImVec2(wA, hA), wm, wk}, B{b0, ImVec2(wB, hB), wk, wn},
        C{c0, ImVec2(wB, hA), wm, wn};
    // Fills elements [r0, r1) x [c0, c1) of a view, clipped to its window.
    auto fill = [&](const View& v, int r0, int r1, int c0_, int c1, ImU32 col) {
      auto x = [&](int c) {
        return v.p.x + v.sz.x * float(std::clamp(c - v.c.begin, 0, v.c.size())) / float(v.c.size());
      };
      auto y = [&](int r) {
        return v.p.y + v.sz.y * float(std::clamp(r - v.r.begin, 0, v.r.size())) / float(v.r.size());
      };
      if (x(c1) <= x(c0_) || y(r1) <= y(r0)) return;
      dl->AddRectFilled(ImVec2(x(c0_), y(r0)),
                        ImVec2(std::max(x(c1), x(c0_) + 1), std::max(y(r1), y(r0) + 1)), col);
    };
    for (const View* v : {&A, &B, &C})
      dl->AddRectFilled(v->p, ImVec2(v->p.x + v->sz.x, v->p.y + v->sz.y), frame);
    // Bands, the tile step, and C's tile.
    fill(A, rows.begin, rows.end, 0, K, band);
    fill(B, 0, K, cols.begin, cols.end, band);
    fill(A, rows.begin, rows.end, ks.begin, ks.end, strong);
    fill(B, ks.begin, ks.end, cols.begin, cols.end, strong);
    fill(C, rows.begin, rows.end, cols.begin, cols.end, cTile);
    // The chosen thread's rows of A and columns of B at this step, and its elements of C.
    for (const Cell& c : mine) {
      const int r = rows.begin + c.row, cc = cols.begin + c.col;
      if (r < rows.end) fill(A, r, r + 1, ks.begin, ks.end, text);
      if (cc < cols.end) fill(B, ks.begin, ks.end, cc, cc + 1, text);
      if (r < rows.end && cc < cols.end) fill(C, r, r + 1, cc, cc + 1, text);
    }
    // Tile boundaries where they are at least 5 pixels apart.
    auto grid = [&](const View& v, int stepR, int stepC) {
      if (stepR > 0 && v.sz.y * float(stepR) / float(v.r.size()) >= 5 * s)
        for (int r = (v.r.begin / stepR + 1) * stepR; r < v.r.end; r += stepR) {
          const float y = v.p.y + v.sz.y * float(r - v.r.begin) / float(v.r.size());
          dl->AddLine(ImVec2(v.p.x, y), ImVec2(v.p.x + v.sz.x, y), border);
        }
      if (stepC > 0 && v.sz.x * float(stepC) / float(v.c.size()) >= 5 * s)
        for (int c = (v.c.begin / stepC + 1) * stepC; c < v.c.end; c += stepC) {
          const float x = v.p.x + v.sz.x * float(c - v.c.begin) / float(v.c.size());
          dl->AddLine(ImVec2(x, v.p.y), ImVec2(x, v.p.y + v.sz.y), border);
        }
    };
    grid(A, st.tileM, st.tileK);
    grid(B, st.tileK, st.tileN);
    grid(C, st.tileM, st.tileN);
    auto name = [](const char* m, const View& v) {
      std::string t = m;
      if (v.r.cut() || v.c.cut())
        t += "[" + std::to_string(v.r.begin) + ":" + std::to_string(v.r.end) + ", " +
             std::to_string(v.c.begin) + ":" + std::to_string(v.c.end) + "]";
      return t;
    };
    // B's and C's names above them; A's below it, where C's cannot run into it.
    for (auto [m, v] : {std::pair{"A", &A}, std::pair{"B", &B}, std::pair{"C", &C}}) {
      dl->AddRect(v->p, ImVec2(v->p.x + v->sz.x, v->p.y + v->sz.y), text);
      const float y = v == &A ? v->p.y + v->sz.y + 2 * s : v->p.y - label - 2 * s;
      dl->AddText(ImVec2(v->p.x, y), text, name(m, *v).c_str());
    }
  }

  // Which thread owns each element of the block's tile (row-major tileM x tileN), computed when
  // the step or tile changes rather than every frame (the warp step's tile has 32,768 elements).
  const std::vector<int>& ownerMap(const StepInfo& st) {
    const std::pair<StepId, int> key{st.id, st.tileM};
    if (ownerFor_ != key) {
      ownerFor_ = key;
      owner_.assign(size_t(st.tileM) * size_t(st.tileN), -1);
      for (int t = 0; t < st.blockX * st.blockY; ++t)
        for (const Cell& c : ownedCells(st, t))
          if (c.row < st.tileM && c.col < st.tileN)
            owner_[size_t(c.row) * size_t(st.tileN) + size_t(c.col)] = t;
    }
    return owner_;
  }

  void drawOwnership(LessonContext& ctx, const StepInfo& st, const std::vector<Cell>& mine,
                     ImVec2 o, float w, float h) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = ctx.scale;
    const float label = ImGui::GetTextLineHeight();
    const int tm = st.tileM, tn = st.tileN;
    const float cell = std::min(w / float(tn), (h - label) / float(tm));
    const ImVec2 p(o.x, o.y + label);
    dl->AddText(o, ImGui::GetColorU32(ImGuiCol_Text),
                (std::string("the block's ") + std::to_string(tm) + " x " + std::to_string(tn) +
                 " tile of C")
                    .c_str());
    const std::vector<int>& owner = ownerMap(st);
    for (int r = 0; r < tm; ++r)
      for (int c = 0; c < tn; ++c) {
        const int t = owner[size_t(r) * size_t(tn) + size_t(c)];
        const int warp = t / 32;
        const float alpha = 0.3f + 0.3f * float(t % 2);  // neighbouring threads told apart
        const ImVec2 a(p.x + float(c) * cell, p.y + float(r) * cell);
        dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), paletteColour(warp % 8, alpha));
      }
    for (const Cell& c : mine) {
      const ImVec2 a(p.x + float(c.col) * cell, p.y + float(c.row) * cell);
      dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), ImGui::GetColorU32(ImGuiCol_Text));
    }
    dl->AddRect(p, ImVec2(p.x + cell * float(tn), p.y + cell * float(tm)),
                ImGui::GetColorU32(ImGuiCol_Text), 0, 0, 1.5f * s);
    // Thread numbers when the cells are large enough to hold them (one element per thread).
    if (st.threadM * st.threadN == 1 && cell > ImGui::CalcTextSize("000").x + 2 * s)
      for (int r = 0; r < tm; ++r)
        for (int c = 0; c < tn; ++c) {
          const std::string n = std::to_string(owner[size_t(r) * size_t(tn) + size_t(c)]);
          dl->AddText(ImVec2(p.x + float(c) * cell + 2 * s, p.y + float(r) * cell + 1),
                      ImGui::GetColorU32(ImGuiCol_Text), n.c_str());
        }
  }

  // [SECTION] the naive steps' reads: the memory lesson's sector view

  void drawSectors(LessonContext& ctx) {
    if (!beginPanel(ctx, "sectors", "The naive steps' reads: one warp, one k"))
      return endPanel(ctx);
    const float s = ctx.scale;
    ImGui::RadioButton("1. the course's mapping (i on x)", &sectorCourse_, 1);
    ImGui::SameLine();
    ImGui::RadioButton("2. swapped (j on x)", &sectorCourse_, 0);
    mem::PatternParams p;
    p.rows = M_;
    p.cols = N_;
    p.inner = K_;
    p.matmulBlockX = kNaiveBlock;
    p.matmulBlockY = kNaiveBlock;
    const mem::PatternId a =
        sectorCourse_ ? mem::PatternId::MatmulA : mem::PatternId::MatmulSwappedA;
    const mem::PatternId b =
        sectorCourse_ ? mem::PatternId::MatmulB : mem::PatternId::MatmulSwappedB;
    const long long warps = mem::launchShape(mem::patternInfo(a).kernel, p).warps();
    int maxWarp = static_cast<int>(std::min<long long>(warps - 1, 1 << 30));
    warp_ = std::clamp(warp_, 0, maxWarp);
    k_ = std::clamp(k_, 0, K_ - 1);
    ImGui::SetNextItemWidth(160 * s);
    ImGui::SliderInt("warp##sectors", &warp_, 0, maxWarp);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(160 * s);
    ImGui::SliderInt("k##sectors", &k_, 0, K_ - 1);
    for (auto [id, what] : {std::pair{a, "A[i, k]"}, std::pair{b, "B[k, j]"}}) {
      const mem::WarpRequest r = mem::warpRequest(id, p, warp_, k_);
      const mem::GlobalAccess g = mem::analyzeGlobal(r);
      if (r.activeMask == 0) {
        ImGui::Text("Reading %s: this warp has no lane inside C.", what);
        continue;
      }
      ImGui::Text(
          "Reading %s: %d lanes, %d sector%s of 32 bytes for %lld bytes asked for (%s "
          "used).",
          what, r.activeLanes(), g.sectorCount(), g.sectorCount() == 1 ? "" : "s",
          static_cast<long long>(g.bytesRequested), percent(g.efficiency()).c_str());
      drawWarpPicture(ctx.theme, s, r, g);
    }
    mutedText(ctx.theme,
              "The course's blockdim=(16, 16): a warp is two rows of 16 threads. With i on x its "
              "lanes read A down a column, 16 rows apart; with j on x they read B along a row. "
              "The memory lesson shows the same kernels with 32 x 8 blocks, where a warp is one "
              "row of 32.");
    endPanel(ctx);
  }

  // [SECTION] work on the worker thread; export

  void poll(LessonContext& ctx) {
    for (const Status& s :
         {ladderJob_.takeInto(ladder_), sweepJob_.takeInto(sweep_), courseJob_.takeInto(course_)})
      if (!s) {
        error_ = s;
        ctx.error(s);
      }
    if (ladder_ && ladder_->ceilings) ceilings_ = ladder_->ceilings;
  }

  bool startLadder() {
    if (!gpu_ || ladderJob_.running()) return false;
    error_ = {};
    MatmulParams p{M_, N_, K_};
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    const std::optional<Ceilings> known = ceilings_;
    return ladderJob_.start([p, known](AsyncJob<LadderView>::Control& c) -> Result<LadderView> {
      LadderView v;
      v.ceilings = known;
      if (!v.ceilings) {
        c.progress(0, "the roofline's ceilings: a device copy and FMAs");
        Result<Ceilings> ce = measureCeilings(c.cancelFlag());
        if (!ce) return ce.status();
        v.ceilings = *ce;
      }
      Result<LadderReport> r =
          measureLadder(p, allStepIds(), c.cancelFlag(),
                        [&c](float f, const std::string& what) { c.progress(f, what); });
      if (!r) return r.status();
      v.report = std::move(*r);
      return v;
    });
  }

  bool startSweep() {
    if (!gpu_ || sweepJob_.running()) return false;
    error_ = {};
    return sweepJob_.start(
        [](AsyncJob<std::vector<SweepPoint>>::Control& c) -> Result<std::vector<SweepPoint>> {
          return measureSweep(defaultSweepSizes(), sweepStepIds(), c.cancelFlag(),
                              [&c](float f, const std::string& what) { c.progress(f, what); });
        });
  }

  bool startCourse() {
    if (courseJob_.running()) return false;
    error_ = {};
    const int n = courseN_;
    const bool gpu = gpu_;
    return courseJob_.start([n, gpu](AsyncJob<CourseReport>::Control& c) -> Result<CourseReport> {
      return measureCourse(n, gpu, c.cancelFlag(),
                           [&c](float f, const std::string& what) { c.progress(f, what); });
    });
  }

  void exportResults(LessonContext& ctx, bool json) {
    std::vector<MeasuredRow> rows;
    nlohmann::json j;
    if (ladder_) {
      const LadderReport& r = ladder_->report;
      for (const StepResult& s : r.steps)
        rows.push_back({stepInfo(s.step).key,
                        {{"M", r.p.M},
                         {"N", r.p.N},
                         {"K", r.p.K},
                         {"gflops", s.gflops},
                         {"of_cublas", s.ofLibrary},
                         {"max_abs_error", s.error.maxAbsError},
                         {"max_rel_error", s.error.maxRelError},
                         {"correct", s.error.ok() ? 1.0 : 0.0}},
                        s.m});
      j["device"] = r.device;
      j["ladder"] = toJson(rows);
      if (ladder_->ceilings)
        j["ceilings"] = {{"memory_gbps", ladder_->ceilings->memoryGBps},
                         {"fp32_gflops", ladder_->ceilings->fp32Gflops},
                         {"memory_peak_gbps", ladder_->ceilings->memoryPeakGBps},
                         {"fp32_peak_gflops", ladder_->ceilings->fp32PeakGflops}};
    }
    if (sweep_)
      for (const SweepPoint& p : *sweep_)
        j["sweep"].push_back(
            {{"n", p.n}, {"step", stepInfo(p.step).key}, {"gflops", p.gflops}, {"correct", p.ok}});
    if (course_)
      for (const CourseRow& row : course_->rows)
        j["course"].push_back({{"n", course_->n},
                               {"what", row.what},
                               {"ran", row.ran},
                               {"ms", row.ms},
                               {"gflops", row.gflops},
                               {"max_abs_vs_cpu", row.maxAbsVsCpu},
                               {"max_abs_vs_float64", row.maxAbsVsRef},
                               {"note", row.note}});
    if (!json && rows.empty()) {
      ctx.error(
          Status::error("The CSV holds the measured ladder, and nothing is measured yet"
                        " (it needs a GPU). Export JSON saves the course's comparison."));
      return;
    }
    const std::string path = ctx.exportPath(json ? "results" : "ladder", json ? "json" : "csv");
    const Status st = writeText(path, json ? j.dump(2) : toCsv(rows));
    if (st)
      ctx.info("Saved " + path);
    else
      ctx.error(st);
  }

  bool gpu_ = false;
  BlockLimits limits_;
  MatmulCountersPanel counters_;
  Status error_;
  std::vector<std::string> queue_;
  int M_ = int(kSizeM.defaultValue), N_ = int(kSizeN.defaultValue), K_ = int(kSizeK.defaultValue);
  int courseN_ = int(kCourseSize.defaultValue);

  AsyncJob<LadderView> ladderJob_;
  std::optional<LadderView> ladder_;
  std::optional<Ceilings> ceilings_;
  AsyncJob<std::vector<SweepPoint>> sweepJob_;
  std::optional<std::vector<SweepPoint>> sweep_;
  AsyncJob<CourseReport> courseJob_;
  std::optional<CourseReport> course_;

  // The tiling picture.
  int pictureIndex_ = 3;  // tiled 16
  int tile_ = 16;
  int bx_ = 1, by_ = 0, m_ = 1, thread_ = 17;
  bool playing_ = false;
  std::optional<std::pair<StepId, int>> ownerFor_;  // the step and tile owner_ was made for
  std::vector<int> owner_;
  double lastStep_ = 0;
  // The sector view.
  int sectorCourse_ = 1;
  int warp_ = 0, k_ = 0;
};

}  // namespace

std::unique_ptr<Lesson> makeMatmulLesson() {
  return std::make_unique<MatmulLesson>();
}

}  // namespace cudalab
