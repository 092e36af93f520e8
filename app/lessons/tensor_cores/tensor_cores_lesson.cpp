// Lesson "tensor-cores": the matmul story continued where the CUDA cores stop, on the units that
// hold most of a modern GPU's arithmetic: WMMA, mma.sync with ldmatrix, a swizzled shared layout
// and a cp.async pipeline, each measured and checked against float64, beside cuBLAS in BF16, FP16,
// TF32 and float32.
//
// [SECTION] index
//   lesson text and the action table
//   parameters panel: sizes, the inputs' format, the measurement, export
//   the ladder: TFLOP/s, share of cuBLAS and of the tensor peak, what each step needs, correctness
//   the roofline: each step's intensity against the tensor and memory ceilings
//   (the fragment and bank pictures: tensor_cores_pictures.cpp; the formats' precision:
//   tensor_cores_precision_panel.cpp; the counters: tensor_cores_counters_panel.cpp)
//   work on the worker thread; pins and export
#include "lessons/tensor_cores/tensor_cores_lesson.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "core/i18n.hpp"
#include "core/kept_job.hpp"
#include "lessons/tensor_cores/tensor_cores_counters_panel.hpp"
#include "lessons/tensor_cores/tensor_cores_pictures.hpp"
#include "lessons/tensor_cores/tensor_cores_precision_panel.hpp"
#include "tensor_cores/tensor_cores.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] lesson text and the action table

const LessonInfo kTensorCoresLessonInfo{
    "tensor-cores", N_("Tensor cores: where the arithmetic is"),
    N_("after course file 001's matrix product: the units that do most of a modern GPU's "
       "arithmetic, which the course's float32 kernels never reach"),
    N_("The matmul lesson's ladder ends near cuBLAS SGEMM on the CUDA cores, about 50 TFLOP/s on "
       "an H100. The same chip multiplies BF16 and FP16 matrices about fifteen times faster on its "
       "tensor cores. C = A B through seven steps of our own, from WMMA to Hopper's TMA and wgmma, "
       "each checked against float64 and timed beside cuBLAS in four formats; pictures of which "
       "lane holds which element and of the banks an ldmatrix meets.")};

namespace {

using namespace tensor_cores;

constexpr const char *kActionLadder = "ladder", *kActionCounters = "counters";

// "337 TFLOP/s", "27.9 TFLOP/s".
std::string rate(double tflops) {
  return trimmedFixed(tflops, tflops >= 100 ? 0 : 1) + " TFLOP/s";
}

std::string percent(double f) {
  return trimmedFixed(100 * f, 100 * f < 10 ? 1 : 0) + "%";
}

class TensorCoresLesson final : public Lesson {
 public:
  TensorCoresLesson()
      : Lesson(kTensorCoresLessonInfo, kTensorParams, variantRows(steps(), &StepInfo::key)) {
    declareActions(
        {jobAction(kActionLadder, N_("Measure the ladder"),
                   N_("Every step and every cuBLAS row on fresh random M x K and K x N matrices: C "
                      "poisoned, "
                      "checked against the float64 CPU product, then timed (median of 10 runs; "
                      "slow steps at "
                      "large sizes get fewer)."),
                   ladder_, [this] { return !working() && startLadder(); }),
         jobAction(kActionCounters, N_("Read the counters"),
                   N_("Runs every hand-written step that runs here once more under the profiler "
                      "(CUPTI, the library Nsight Compute uses), with M, N and K up to 4096, and "
                      "reads what the hardware counted. Profiling replays kernels: these runs are "
                      "separate from the timed ones."),
                   counters_, [this] {
                     return gpu_ && counters_.start(TensorParams{M_, N_, K_, format_});
                   })});
  }
  std::vector<ParamBinding> bindings() override {
    return {bindParam(kSizeM, M_), bindParam(kSizeN, N_), bindParam(kSizeK, K_),
            bindChoice(kFormatChoice, format_,
                       {{"BF16", InputFormat::BFloat16}, {"FP16", InputFormat::Half}})};
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    precision_.start();  // on the CPU, with or without a GPU
    if (gpu_) queueActions({kActionLadder});
  }
  bool otherWorkPending() const override { return precision_.pending(); }
  void cancelOtherWork() override { precision_.cancel(); }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    ctx.errors(error_, {ladder_.collect()});
    productSizeControls(kSizeM, kSizeN, kSizeK, M_, N_, K_,
                        {{"4096^3", 4096, 4096, 4096},
                         {"8192^3", 8192, 8192, 8192},
                         {"1024^3", 1024, 1024, 1024},
                         {"4097x4095x4093", 4097, 4095, 4093}});
    const Padded pad = padded(M_, N_, K_);
    if (pad.M != M_ || pad.N != N_ || pad.K != K_)
      mutedText(ctx.theme, trf("Our steps compute %d x %d x %d: A, B and C padded with zeros to "
                               "whole tiles (TFLOP/s count only M x N x K).",
                               pad.M, pad.N, pad.K)
                               .c_str());
    ImGui::TextUnformatted(tr("Inputs of our steps"));
    helpTooltip(kFormatChoice.help);
    if (radioButton("BF16", format_ == InputFormat::BFloat16)) format_ = InputFormat::BFloat16;
    sameLineIfFits(ImGui::GetFrameHeight(), "FP16");
    if (radioButton("FP16", format_ == InputFormat::Half)) format_ = InputFormat::Half;
    runButtons(ctx, *this, {{kActionLadder, true}},
               N_("No GPU: nothing is measured. The fragment and bank pictures are computed on "
                  "the CPU from the same layouts the kernels use."));
    exportButtons(ctx, *this, {.enabled = bool(ladder_), .spaced = true});
  }

  void drawMain(LessonContext& ctx) override {
    drawLadder(ctx);
    drawRoofline(ctx);
    pictures_.drawFragments(ctx);
    pictures_.drawBanks(ctx);
    pictures_.drawPipeline(ctx);
    precision_.draw(ctx);
    counters_.draw(ctx, gpu_, action(kActionCounters));
  }

 private:
  // [SECTION] the ladder: TFLOP/s, share of cuBLAS, what each step needs, correctness

  void drawLadder(LessonContext& ctx) {
    if (!beginPanel(ctx, "ladder", "The ladder: every step measured")) return endPanel(ctx);
    const LadderReport* r = ladder_ ? &*ladder_ : nullptr;
    const InputFormat f = r ? r->p.format : format_;
    if (r) {
      const StepResult* lib = r->find(libraryFor(f));
      const StepResult* sgemm = r->find(StepId::CublasSgemm);
      const StepResult* best = fastestHandWritten(r->steps, &StepResult::tflops);
      if (best && lib && sgemm)
        textWrapped(
            "%d x %d x %d, %s inputs, on %s. Best step of ours: %s, %s = %s of cuBLAS in %s "
            "(%s), %s times cuBLAS SGEMM on the CUDA cores (%s).",
            r->p.M, r->p.N, r->p.K, formatLabel(f), r->device.c_str(),
            tr(stepInfo(best->step).label), rate(best->tflops).c_str(),
            percent(best->ofLibrary).c_str(), formatLabel(f), rate(lib->tflops).c_str(),
            trimmedFixed(best->tflops / std::max(sgemm->tflops, 1e-9), 1).c_str(),
            rate(sgemm->tflops).c_str());
      else
        textWrapped("%d x %d x %d, %s inputs, on %s.", r->p.M, r->p.N, r->p.K, formatLabel(f),
                    r->device.c_str());
    }
    const bool stale =
        r && (r->p.M != M_ || r->p.N != N_ || r->p.K != K_ || r->p.format != format_);
    ladderStatus(ctx.theme, r != nullptr, stale, ladder_.running(), gpu_,
                 N_("No GPU: nothing is measured. The table shows what "
                    "each step needs and the tile it works on."));
    // On a projector the step, its speed and whether it is right matter most; what it needs and
    // its tile give way first.
    static const TableColumn kColumns[] = {
        {"step"},
        {"needs", nullptr, 3, "The GPU architecture the step's instructions need."},
        {"block tile (M x N x K)", "tile", 4,
         "The piece of C one block computes (M x N), and the step it takes through K."},
        {"kernel time, median (ms)", "ms", 1, nullptr, true},
        {"TFLOP/s", nullptr, 0, "2 M N K operations over the kernel time.", true},
        {"of cuBLAS", nullptr, 1,
         "This step's TFLOP/s over cuBLAS's in the same format, measured in the same run.", true},
        {"of the tensor peak", "of peak", 2,
         "This step's TFLOP/s over the GPU's dense tensor-core peak in its format: the FP16 / "
         "BF16 peak the roofline panel gives, twice it for FP8, half of it for TF32.",
         true},
        {"max |error|", nullptr, 2, nullptr, true},
        {"checked against float64", "checked", 0, nullptr, true},
    };
    if (beginDataTable("##ladder", kColumns, static_cast<int>(steps().size()), r != nullptr)) {
      for (const StepInfo& s : steps()) {
        const StepResult* m = r ? r->find(s.id) : nullptr;
        stepNameCell(s.colour, s.label, s.help);  // marked N_() in the step table
        ImGui::TextUnformatted(archNeeded(s, f).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tileText(s).c_str());
        ImGui::TableNextColumn();
        if (!m) {
          // Skipped here: why, where the time would be.
          if (r)
            for (const Skipped& k : r->skipped)
              if (k.step == s.id) {
                ImGui::TextDisabled("%s", tr("not run"));
                helpTooltip(tr(k.why).c_str());
              }
          for (int c = 0; c < 5; ++c)
            ImGui::TableNextColumn();
          continue;
        }
        ImGui::TextUnformatted(trimmedFixed(m->m.kernel().medianMs, 3).c_str());
        ImGui::TableNextColumn();
        // The number alone: the header says TFLOP/s, and a projector's column stays narrow.
        ImGui::TextUnformatted(trimmedFixed(m->tflops, m->tflops >= 100 ? 0 : 1).c_str());
        ImGui::TableNextColumn();
        if (m->ofLibrary > 0) ImGui::TextUnformatted(percent(m->ofLibrary).c_str());
        ImGui::TableNextColumn();
        if (r->tensorPeakGflops > 0 && stepInfo(m->step).tensorCores) {
          const double peak =
              r->tensorPeakGflops * peakScale(inputsOf(stepInfo(m->step), r->p.format));
          ImGui::TextUnformatted(percent(m->tflops * 1000 / peak).c_str());
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(sciText(m->error.maxAbsError).c_str());
        helpTooltip("The largest |C - C_float64| over the elements checked.");
        ImGui::TableNextColumn();
        correctnessCell(
            ctx.theme, m->error,
            trf("Compared with the float64 CPU product on %s elements (all of C up to 1024 x "
                "1024, 64 sampled rows beyond); tolerance (2 K + 3) x 2^-24 x sum |A[i,k] B[k,j]|: "
                "the tensor cores add in float32 and may truncate each addition.",
                thousands(static_cast<long long>(m->error.checked)).c_str()));
      }
      endDataTable();
    }
    if (r && !r->steps.empty()) drawBars(*r);
    if (r && !r->skipped.empty())
      mutedText(ctx.theme, tr("Steps marked \"not run\" cannot run on this GPU or with this "
                              "build: their tooltip says why."));
    mutedText(ctx.theme,
              tr("The inputs are random numbers on a grid of 1/256 in [-1, 1], which BF16, FP16, "
                 "TF32 and float32 all hold exactly: every row multiplies the same numbers, so "
                 "the errors compare the additions alone. FP8 holds 3 mantissa bits: its row "
                 "multiplies the inputs as FP8 rounds them and is checked against the exact "
                 "product of those."));
    endPanel(ctx);
  }

  // [SECTION] the roofline: each step's intensity against the tensor and memory ceilings

  void drawRoofline(LessonContext& ctx) {
    if (!beginPanel(ctx, "roofline", "Roofline: arithmetic intensity against TFLOP/s"))
      return endPanel(ctx);
    const LadderReport* r = ladder_ ? &*ladder_ : nullptr;
    if (!r || r->steps.empty()) {
      ladderNotMeasured(ladder_.running(), gpu_,
                        N_("No GPU: nothing is measured. The roofline places each measured step "
                           "under the GPU's memory and tensor-core ceilings."));
      return endPanel(ctx);
    }
    const double bw = r->memoryPeakGBps, peak = r->tensorPeakGflops;
    textWrapped(
        "Each step at its arithmetic intensity: the operations of C = A B over the bytes it asks "
        "global memory for, a tile of A or B counted every time a block reads it (the cuBLAS rows "
        "at the least possible: A and B once). Under the sloped roof a step that got all its "
        "bytes from DRAM would be limited by DRAM's bandwidth; the later steps sit above it "
        "because the L2 cache serves many of their re-reads, which larger tiles and grouped "
        "blocks make more likely. The flat roof is the tensor cores' theoretical peak at the "
        "GPU's top clock, which it does not hold under this load.");
    if (plot::BeginPlot("tensor_roofline", "Roofline##tcroof", ImVec2(-1, 0))) {
      plot::SetupAxes({N_("FLOP per byte"), plot::Scale::Log10}, {"TFLOP/s", plot::Scale::Log10});
      plot::SetupLegend(plot::Legend::Outside);
      double lo = 1e9, hi = 0;
      for (const StepResult& m : r->steps) {
        const StepInfo& s = stepInfo(m.step);
        const double x =
            flops(r->p.M, r->p.N, r->p.K) / globalBytes(s, r->p.format, r->p.M, r->p.N, r->p.K);
        const double y = std::max(m.tflops, 1e-3);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        plot::SetNextColour(s.colour);
        plot::PlotScatter(s.key, &x, &y, 1);
      }
      if (bw > 0 && peak > 0) {
        // The roof from a decade left of the lowest step to a decade right of the highest.
        std::vector<double> xs, ys;
        const double a = std::log10(lo) - 1, b = std::log10(hi) + 1;
        for (int i = 0; i <= 60; ++i) {
          const double x = std::pow(10.0, a + (b - a) * i / 60);
          xs.push_back(x);
          ys.push_back(std::min(peak, x * bw) / 1000);
        }
        plot::SetNextColour(7);
        plot::PlotLine(N_("roof: min(tensor peak, DRAM x intensity)"), xs.data(), ys.data(),
                       int(xs.size()));
      }
      plot::EndPlot();
    }
    mutedText(ctx.theme, trf("DRAM: %s. Tensor cores (dense FP16 and BF16, float32 sums): %s; "
                             "twice that for FP8, half for TF32.",
                             r->memoryFormula.c_str(), r->tensorFormula.c_str())
                             .c_str());
    endPanel(ctx);
  }

  void drawBars(const LadderReport& r) {
    if (!plot::BeginPlot("tensor_ladder", "TFLOP/s per step##tcplot", ImVec2(-1, 0))) return;
    std::vector<const char*> names;
    std::vector<double> t;
    double sgemm = 0;
    for (const StepResult& s : r.steps) {
      names.push_back(stepInfo(s.step).key);
      t.push_back(std::max(s.tflops, 1e-3));
      if (s.step == StepId::CublasSgemm) sgemm = s.tflops;
    }
    plot::SetupAxes({N_("step")}, {"TFLOP/s", plot::Scale::Log10});
    plot::SetupCategories(names.data(), int(names.size()));  // the steps' keys: ids
    plot::SetupLegend(plot::Legend::Outside);
    plot::SetNextColour(0);
    plot::PlotBars("TFLOP/s", t.data(), int(t.size()));
    if (sgemm > 0) {
      plot::SetNextColour(5);
      plot::PlotHLine("cuBLAS SGEMM (CUDA cores)", sgemm);
    }
    plot::EndPlot();
  }

  // [SECTION] work on the worker thread; pins and export

  bool startLadder() {
    if (!mayStart(gpu_ && !ladder_.running())) return false;
    TensorParams p{.M = M_, .N = N_, .K = K_, .format = format_};
    if (Status v = validate(p); !v) {
      error_ = v;
      return false;
    }
    return ladder_.start([p](AsyncJob<LadderReport>::Control& c) -> Result<LadderReport> {
      return measureLadder(p, allStepIds(), c.cancelFlag(), c.progressFn());
    });
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (!ladder_) return rows;
    for (const StepResult& s : ladder_->steps)
      rows.push_back(
          {stepInfo(s.step).key,
           stepInfo(s.step).label,
           {{"TFLOP/s", s.tflops, "TFLOP/s", true}, {"ms", s.m.kernel().medianMs, "ms", false}}});
    return rows;
  }

  LessonResults results() const override {
    const std::vector<MeasuredRow> rows =
        stepRows(ladder_.get(), [](const LadderReport& r, const StepResult& s) {
          return productRow(stepInfo(s.step).key, r.p.M, r.p.N, r.p.K, "tflops", s.tflops,
                            s.ofLibrary, s.error, s.m);
        });
    nlohmann::json j;
    if (ladder_) {
      const LadderReport& r = *ladder_;
      j["device"] = r.device;
      j["format"] = formatLabel(r.p.format);
      j["memory_peak_gbps"] = r.memoryPeakGBps;
      j["tensor_peak_gflops"] = r.tensorPeakGflops;
      j["padded"] = {{"M", r.pad.M}, {"N", r.pad.N}, {"K", r.pad.K}};
      j["ladder"] = toJson(rows);
      for (const Skipped& k : r.skipped)
        j["skipped"].push_back({{"step", stepInfo(k.step).key}, {"why", phraseEnglish(k.why)}});
    }
    return ladderResults(std::move(j), rows,
                         N_("The CSV holds the measured ladder, and nothing is measured yet (it "
                            "needs a GPU)."));
  }

  bool gpu_ = false;
  int M_ = int(kSizeM.defaultValue), N_ = int(kSizeN.defaultValue), K_ = int(kSizeK.defaultValue);
  InputFormat format_ = InputFormat::BFloat16;
  KeptJob<LadderReport> ladder_;
  TensorCoresPictures pictures_;
  TensorCoresPrecisionPanel precision_;
  HelperCountersPanel<TensorParams> counters_ = makeTensorCoresCountersPanel();
};

}  // namespace

const LessonEntry kTensorCoresLesson{&kTensorCoresLessonInfo, &makeLesson<TensorCoresLesson>,
                                     kTensorCoresBenches};

}  // namespace cudalab
