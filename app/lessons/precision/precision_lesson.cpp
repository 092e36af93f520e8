// Lesson "precision" (course file 000): what float32 keeps and loses.
//
// [SECTION] index
//   jobs          the sweep, the values at one x, the sums and the FMA rates run on workers
//   parameters    expression, formulas, precisions, x, N, buttons
//   errors        relative error against x, log-log, with each format's epsilon
//   throughput    FMA rates in float32, float64 and half against the device's peaks
//   export        CSV and JSON of everything on screen
//   (the values at x and the float explorer: precision_values_panel.cpp; the literal trap and its
//   PTX: precision_trap_panel.cpp; the sums: precision_sums_panel.cpp)
#include "core/i18n.hpp"
#include "core/kept_job.hpp"
#include "lessons/precision/precision_lesson.hpp"
#include "lessons/precision/precision_sums_panel.hpp"
#include "lessons/precision/precision_trap_panel.hpp"
#include "lessons/precision/precision_values_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "models/arch.hpp"
#include "models/floats.hpp"
#include "precision/precision.hpp"
#include "precision/summation.hpp"
#include "precision/throughput.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace precision;

const LessonInfo kPrecisionLessonInfo{
    "precision", N_("Precision: float32, float64 and cancellation"),
    N_("course file 000: float32 keeps about 7 decimal digits; 1e-8 added to 1 and taken away "
       "again "
       "comes back as 0"),
    N_("Formulas that cancel catastrophically, evaluated on the GPU (or, without one, the CPU) in "
       "half, bfloat16, float32 (with "
       "and without fused multiply-add, and with fast math) and float64 against the exact value; "
       "the bits of each result; the literal trap; five ways to sum 2^27 - 157 numbers; and what "
       "float64 costs.")};

namespace {

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionEvaluate = "evaluate", *kActionSum = "sum", *kActionFma = "fma";

double clampErr(double e) {
  if (std::isnan(e)) return std::numeric_limits<double>::quiet_NaN();
  if (!(e < kPrecisionErrCeil)) return kPrecisionErrCeil;
  return std::max(e, kPrecisionErrFloor);
}

Result<PrecisionSweepReport> evaluateAll(const std::vector<double>& xs, bool gpu) {
  PrecisionSweepReport r;
  if (gpu) {
    Result<Evaluation> ev = evaluateGpu(xs);
    if (!ev) return ev.status();
    Result<TrapResult> t = literalTrapGpu(xs);
    if (!t) return t.status();
    r.ev = std::move(*ev);
    r.trap = std::move(*t);
  } else {
    r.ev = evaluateCpu(xs);
    r.trap = literalTrapCpu(xs);
  }
  const Evaluation& ev = r.ev;
  r.plotErr.assign(ev.value.size(), NAN);
  for (const PrecisionInfo& p : precisions())
    for (const ExprInfo& e : expressions())
      for (int f = 0; f < kFormulaCount; ++f)
        for (size_t i = 0; i < xs.size(); ++i) {
          // Where the format cannot hold x at all (half below 3e-8) there is nothing to compare:
          // "exactly 0 for x = 0" would look like a perfect result.
          if (floats::roundTo(p.format, xs[i]) == 0) continue;
          const Formula fo = static_cast<Formula>(f);
          r.plotErr[ev.index(p.precision, e.expr, fo, i)] =
              clampErr(ev.relError(p.precision, e.expr, fo, i));
        }
  for (size_t i = 0; i < xs.size(); ++i) {
    const double xf = static_cast<float>(xs[i]);
    r.trapErrFloat.push_back(clampErr(std::fabs(r.trap.floatLiteral[i] - xf) / xf));
    r.trapErrDouble.push_back(clampErr(std::fabs(r.trap.doubleLiteral[i] - xf) / xf));
  }
  return r;
}

// What the pins table calls an FMA rate (one whole name per type, translated where shown).
const char* fmaRowLabel(FmaType t) {
  switch (t) {
    case FmaType::Float32:
      return N_("FMA throughput, float32");
    case FmaType::Float64:
      return N_("FMA throughput, float64");
    case FmaType::Half2:
      return N_("FMA throughput, half (as half2)");
  }
  return "";
}

// The sum job's progress while it draws its numbers, a key: the panel shows a sentence with the
// job's N in its place (the worker does not translate).
const std::string kDrawingProgress = "drawing";

class PrecisionLesson final : public Lesson {
 public:
  PrecisionLesson()
      : Lesson(kPrecisionLessonInfo, kPrecisionParams,
               joinRows(variantRows(precisions(), &PrecisionInfo::id),
                        variantRows(expressions(), &ExprInfo::id),
                        // Summation methods get a prefix: "f64" also names a precision.
                        variantRows(sumMethods(), &SumMethodInfo::id, "sum_"))) {
    for (const PrecisionInfo& p : precisions())
      shown_[static_cast<size_t>(p.precision)] =
          p.precision != Precision::Float32Fast && p.precision != Precision::Float32NoFma;
    declareActions({
        jobAction(
            kActionEvaluate, N_("Evaluate again"),
            N_("Every expression and formula in every precision on the GPU, at every x of the "
               "sweep, against the exact value."),
            sweep_, [this] { return startSweep(); }, {},
            [this] {
              return gpu_ ? action(kActionEvaluate).help
                          : N_("Every expression and formula on the CPU in each precision.");
            }),
        jobAction(kActionSum, N_("Sum N numbers"),
                  N_("N random normal numbers summed five ways, and the same for growing N."), sum_,
                  [this] { return startSum(); }),
        jobAction(
            kActionFma, N_("Measure FMA throughput"),
            N_("Fused multiply-adds per second in float32, float64 and half."), fma_,
            [this] { return startFma(); }, {},
            [this] { return gpu_ ? action(kActionFma).help : N_("Needs a GPU."); }),
    });
  }

  bool otherWorkPending() const override { return point_.pending() || (started_ && pointStale()); }
  void cancelOtherWork() override { point_.cancel(); }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::pair<std::string, Expr>> exprs;
    for (const ExprInfo& e : expressions())
      exprs.emplace_back(e.id, e.expr);
    std::vector<ParamBinding> b = {bindChoice(kExprChoice, expr_, std::move(exprs)),
                                   bindChoice<int>(kFormulaChoice, formulaMode_,
                                                   {{"naive", 0}, {"rewritten", 1}, {"both", 2}})};
    for (const PrecisionInfo& p : precisions()) {
      b.push_back(bindToggle(kShowChoice[static_cast<size_t>(p.precision)],
                             shown_[static_cast<size_t>(p.precision)]));
      // Without a GPU the lesson starts with the CPU's float32 shown (onShow): its default here.
      if (p.precision == Precision::Float32NoFma)
        b.back().defaultNow = [this, spec = b.back().spec] {
          return started_ && !gpu_ ? 1.0 : spec->defaultValue;
        };
    }
    for (ParamBinding& n : std::vector<ParamBinding>{
             bindParam(kChosenX, x_),
             bindParam(kPointsPerDecade, perDecade_, [this] { startSweep(); }),
             bindParam(kSumCount, sumN_)})
      b.push_back(std::move(n));
    return b;
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    device_ = gpu_ ? ctx.runtime.firstDeviceName : std::string();
    started_ = true;
    // Without a GPU "float32 (FMA allowed)" cannot be evaluated: show the CPU's float32 instead.
    if (!gpu_) shown_[static_cast<size_t>(Precision::Float32NoFma)] = true;
    // The sweep is instant; the sums take a few seconds; the FMA rates need a GPU.
    startSweep();
    queueActions(gpu_ ? std::vector<std::string>{kActionSum, kActionFma}
                      : std::vector<std::string>{kActionSum});
  }

  // [SECTION] parameters

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    ImGui::TextUnformatted(tr("Expression"));
    for (const ExprInfo& e : expressions()) {
      if (radioButton(e.label, expr_ == e.expr)) expr_ = e.expr;
      helpTooltip(e.help);
    }
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("Formulas"));
    const char* modes[] = {N_("naive"), N_("rewritten"), N_("both")};
    for (int i = 0; i < 3; ++i) {
      if (i) sameLineIfFits(ImGui::GetFrameHeight(), tr(modes[i]));
      if (radioButton(modes[i], formulaMode_ == i)) formulaMode_ = i;
    }
    helpTooltip(
        "The formula as written, the rewritten formula that avoids the cancellation, or "
        "both (rewritten as dots).");
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("Precisions"));
    for (const PrecisionInfo& p : precisions()) {
      const bool can = gpu_ || p.cpu;
      ImGui::BeginDisabled(!can);
      bool on = shown_[static_cast<size_t>(p.precision)] && can;
      ImGui::PushStyleColor(ImGuiCol_CheckMark, paletteColour(p.colour));
      if (checkbox(p.label, &on)) shown_[static_cast<size_t>(p.precision)] = on;
      ImGui::PopStyleColor();
      ImGui::EndDisabled();
      helpTooltip(p.help);
    }
    ImGui::Spacing();
    paramSlider(kChosenX, x_);
    if (smallButton("1e-8 (course)")) x_ = 1e-8;
    ImGui::SameLine();
    if (smallButton("1e-4")) x_ = 1e-4;
    ImGui::SameLine();
    if (smallButton("1")) x_ = 1.0;
    ImGui::SameLine();
    if (smallButton("100")) x_ = 100.0;
    if (paramSlider(kPointsPerDecade, perDecade_)) startSweep();
    paramSlider(kSumCount, sumN_);
    if (smallButton("2^27 - 157 (course)")) sumN_ = kCourseSumCount;
    ImGui::SameLine();
    if (smallButton("2^20")) sumN_ = size_t{1} << 20;

    ImGui::Spacing();
    ImGui::Separator();
    runButtons(ctx, *this, {{kActionEvaluate}, {kActionSum}, {kActionFma, true}},
               N_("No GPU: every formula is evaluated on the CPU, rounding after each operation "
                  "in half, bfloat16, float32 and float64. Fused multiply-add and fast math exist "
                  "only on the GPU, so those two variants are not shown."),
               /*progress=*/false);
    workProgress(*this, [this](const JobProgress& p) {
      return p.what == kDrawingProgress ? trf("drawing %s normal numbers",
                                              thousands(static_cast<long long>(sumJobN_)).c_str())
                                        : std::string(tr(p.what.c_str()));
    });
    exportButtons(ctx, *this, {.enabled = bool(sweep_)});
    helpTooltip(
        "Saves the sweep (every expression, formula and precision), the sums and the "
        "FMA rates.");
  }

  // [SECTION] main view

  void drawMain(LessonContext& ctx) override {
    if (started_ && pointStale() && !point_.running()) startPoint();
    drawErrors(ctx);
    drawPrecisionValues(ctx, expr_, point_ ? &point_->ev : nullptr, x_);
    trap_.draw(ctx, sweep_.get(), point_.get(), gpu_, device_);
    explorer_.draw(ctx);
    drawPrecisionSummation(ctx, sum_.get(), sum_.running(), sumN_);
    drawThroughput(ctx);
  }

 private:
  // The values at x were last requested for another x (NaN before the first request).
  bool pointStale() const { return requestedX_ != x_; }
  bool available(Precision p) const { return gpu_ || precisionInfo(p).cpu; }
  // Where the values were computed, as a whole sentence for each place.
  std::string evaluatedWhere() const {
    return gpu_ ? trf("Evaluated on the GPU (%s).", device_.c_str())
                : std::string(tr("Evaluated on the CPU (no GPU)."));
  }

  // [SECTION] jobs

  bool startSweep() {
    if (sweep_.running()) return false;
    const std::vector<double> xs = sweepXs(perDecade_);
    const bool gpu = gpu_;
    return sweep_.start(
        [xs, gpu](AsyncJob<PrecisionSweepReport>::Control& c) -> Result<PrecisionSweepReport> {
          // Fixed texts, translated where the progress bar shows them.
          c.progress(0.5f, gpu ? N_("evaluating on the GPU") : N_("evaluating on the CPU"));
          return evaluateAll(xs, gpu);
        });
  }

  bool startPoint() {
    const std::vector<double> xs = {x_};
    const bool gpu = gpu_;
    requestedX_ = x_;
    return point_.start(
        [xs, gpu](AsyncJob<PrecisionSweepReport>::Control&) -> Result<PrecisionSweepReport> {
          return evaluateAll(xs, gpu);
        });
  }

  bool startSum() {
    if (sum_.running()) return false;
    const size_t n = sumN_;
    const bool gpu = gpu_;
    sumJobN_ = n;
    return sum_.start(
        [n, gpu](AsyncJob<PrecisionSumReport>::Control& c) -> Result<PrecisionSumReport> {
          c.progress(0.02f, kDrawingProgress);
          const std::vector<float> x = normalFloats(n, 20261121u, c.cancelFlag());
          if (c.cancelled()) return Status::error(N_("Summation cancelled."));
          PrecisionSumReport r;
          r.shape = defaultTreeShape();
          const std::vector<size_t> sizes = growthSizes(n);
          Result<std::vector<SumResults>> g = sumGrowth(
              x, sizes, gpu,
              [&](double f) { c.progress(0.1f + 0.9f * static_cast<float>(f), N_("summing")); },
              c.cancelFlag());
          if (!g) return g.status();
          r.growth = std::move(*g);
          if (r.growth.empty()) return Status::error(N_("The summation returned no result."));
          r.at = r.growth.back();  // the last size is n itself
          return r;
        });
  }

  bool startFma() {
    if (!gpu_ || fma_.running()) return false;
    return fma_.start(
        [](AsyncJob<std::vector<FmaRate>>::Control& c) -> Result<std::vector<FmaRate>> {
          c.progress(0.3f, N_("timing fused multiply-adds"));
          return measureFmaRates(0, c.cancelFlag());
        });
  }

  void poll(LessonContext& ctx) {
    ctx.errors(error_, {sweep_.collect(), point_.collect(), sum_.collect(), fma_.collect()});
  }

  // [SECTION] errors

  void drawErrors(LessonContext& ctx) {
    const ExprInfo& e = exprInfo(expr_);
    const std::string title = trf("Relative error of %s against x", tr(e.label));
    if (beginPanel(ctx, "errors", title.c_str())) {
      if (e.stable)
        textWrapped("Naive: %s     Rewritten: %s", e.naive, tr(e.stable));
      else
        textWrapped("Naive: %s", e.naive);
      mutedText(ctx.theme, e.help);
      if (!sweep_) {
        ImGui::TextUnformatted(sweep_.running() ? tr("Evaluating...") : tr("Not evaluated yet."));
      } else {
        const Evaluation& ev = sweep_->ev;
        const size_t n = ev.xs.size();
        if (plot::BeginPlot("precision_errors", "##errors", ImVec2(-1, 0))) {
          plot::SetupAxes(
              {"x", plot::Scale::Log10, kSweepMin, kSweepMax},
              {N_("Relative error"), plot::Scale::Log10, kPrecisionErrFloor, kPrecisionErrCeil});
          plot::SetupLegend(plot::Legend::Outside);
          // Per format, the colour of its first shown precision (-1: none shown).
          int formatColour[4] = {-1, -1, -1, -1};
          for (const PrecisionInfo& p : precisions()) {
            if (!shown_[static_cast<size_t>(p.precision)] ||
                !ev.available[static_cast<size_t>(p.precision)])
              continue;
            int& fc = formatColour[static_cast<int>(p.format)];
            if (fc < 0) fc = p.colour;
            for (int f = 0; f < kFormulaCount; ++f) {
              if ((f == 0 && formulaMode_ == 1) || (f == 1 && formulaMode_ == 0)) continue;
              if (f == 1 && !e.stable) continue;
              const double* ys = sweep_->plotErr.data() +
                                 ev.index(p.precision, e.expr, static_cast<Formula>(f), 0);
              // The series' name, translated here (the plot translates English labels only).
              const std::string label = f == 1 ? trf("%s, rewritten", tr(p.label)) : tr(p.label);
              plot::SetNextColour(p.colour);
              if (f == 1 && formulaMode_ == 2)
                plot::PlotScatter(label.c_str(), ev.xs.data(), ys, static_cast<int>(n));
              else
                plot::PlotLine(label.c_str(), ev.xs.data(), ys, static_cast<int>(n));
            }
          }
          for (const floats::FormatInfo& fi : floats::formats()) {
            const int fc = formatColour[static_cast<int>(fi.format)];
            if (fc < 0) continue;
            plot::SetNextColour(fc);
            plot::PlotHLine((std::string(fi.id) + " eps").c_str(), fi.epsilon);
          }
          plot::PlotVLine("x", x_);
          plot::EndPlot();
        }
        mutedText(ctx.theme,
                  (evaluatedWhere() + " " +
                   trf("Exact value: %s, for x as each precision holds it (a curve stops where "
                       "the format cannot hold x: half below 3e-8). Exact results sit on the "
                       "bottom edge; errors of 10 or more, overflow and NaN on the top edge. The "
                       "dashed lines are each format's epsilon: an error near it is as good as "
                       "that format gets.",
                       tr(e.exact)))
                      .c_str());
      }
    }
    endPanel(ctx);
  }

  // [SECTION] throughput

  void drawThroughput(LessonContext& ctx) {
    if (beginPanel(ctx, "throughput", "The price of precision: FMA throughput")) {
      if (!gpu_) {
        textWrapped(
            "No GPU to measure. From the architecture table (not measured): float64 runs at "
            "these fractions of float32.");
        static const TableColumn kRatio[] = {
            {"Architecture"}, {"float64 : float32"}, {"Examples", nullptr, 1}};
        if (beginDataTable("fp64_ratio", kRatio, static_cast<int>(archTable().size()))) {
          for (const ArchInfo& a : archTable()) {
            if (a.major < 6) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%s %d.%d", a.family, a.major, a.minor);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tr(fp64RatioText(a)).c_str());  // "1:64", or "unknown"
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tr(a.examples));  // product names, or a marked sentence
          }
          endDataTable();
        }
      } else if (!fma_) {
        ImGui::TextUnformatted(fma_.running() ? tr("Measuring...") : tr("Not measured yet."));
      } else {
        const std::vector<FmaRate>& rates = *fma_;
        std::vector<const char*> names;
        std::vector<double> measured, peak;
        for (const FmaRate& r : rates) {
          names.push_back(fmaTypeInfo(r.type).label);
          measured.push_back(r.gflops * 1e9);
          peak.push_back(r.peak.known ? r.peak.value * 1e9 : NAN);
        }
        if (plot::BeginPlot("precision_fma", "##fma", ImVec2(-1, 0))) {
          plot::SetupAxes({N_("Type")}, {N_("Throughput"), plot::Scale::Linear, 0, NAN, "FLOP/s"});
          plot::SetupCategories(names.data(), static_cast<int>(names.size()));
          plot::SetupLegend(plot::Legend::Outside);
          plot::SetNextColour(0);
          plot::PlotBars("measured", measured.data(), static_cast<int>(measured.size()));
          plot::SetNextColour(7);
          plot::PlotBars("theoretical peak", peak.data(), static_cast<int>(peak.size()));
          plot::EndPlot();
        }
        static const TableColumn kFma[] = {
            {"Type"}, {"Measured"}, {"Peak", nullptr, 1}, {"Of peak"}};
        if (beginDataTable("fma", kFma, static_cast<int>(rates.size()))) {
          for (const FmaRate& r : rates) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tr(fmaTypeInfo(r.type).label));
            helpTooltip(fmaTypeInfo(r.type).instruction);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(plot::formatValue(r.gflops * 1e9, "FLOP/s").c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(r.peak.known
                                       ? plot::formatValue(r.peak.value * 1e9, "FLOP/s").c_str()
                                       : tr("unknown"));
            helpTooltip(r.peak.formula.c_str());
            ImGui::TableNextColumn();
            if (r.peak.known) ImGui::Text("%.0f%%", 100 * r.fractionOfPeak());
          }
          endDataTable();
        }
        const FmaRate* f32 = nullptr;
        const FmaRate* f64 = nullptr;
        for (const FmaRate& r : rates) {
          if (r.type == FmaType::Float32) f32 = &r;
          if (r.type == FmaType::Float64) f64 = &r;
        }
        if (f32 && f64 && f64->gflops > 0) {
          textWrapped("float64 : float32 = 1 : %.1f measured on %s", f32->gflops / f64->gflops,
                      device_.c_str());
          mutedText(ctx.theme,
                    "Data-centre GPUs (P100, V100, A100, H100) have float64 units at half the "
                    "float32 rate; most consumer GPUs keep only a few, at 1/32 or 1/64. Choose "
                    "float64 where the digits matter, and know what it costs on your GPU.");
        }
      }
    }
    endPanel(ctx);
  }

  // [SECTION] export

  LessonResults results() const override {
    // One table: every row names its section and leaves the columns of the others empty.
    nlohmann::json j;
    std::string csv =
        "section,expression,formula,precision,x,x_stored,n,method,type,value,exact,error,rel_error,"
        "ulp_error,peak,source\n";
    auto num = [](double v) { return std::isnan(v) ? std::string() : precisionSci(v, 17); };
    // JSON has no NaN or infinity: null stands for "none".
    auto jnum = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
    const std::string src = gpu_ ? device_ : "cpu (no GPU)";
    j["source"] = src;
    if (sweep_) {
      const Evaluation& ev = sweep_->ev;
      for (const PrecisionInfo& p : precisions()) {
        if (!ev.available[static_cast<size_t>(p.precision)]) continue;
        for (const ExprInfo& e : expressions())
          for (int f = 0; f < kFormulaCount; ++f) {
            if (f == 1 && !e.stable) continue;
            const char* fid = f == 0 ? "naive" : "rewritten";
            const Formula fo = static_cast<Formula>(f);
            for (size_t i = 0; i < ev.xs.size(); ++i) {
              const double xs = floats::roundTo(p.format, ev.xs[i]);
              const double v = ev.at(p.precision, e.expr, fo, i);
              const double ex = static_cast<double>(ev.exactAt(p.precision, e.expr, i));
              const double re = ev.relError(p.precision, e.expr, fo, i);
              const double ue = ev.ulpError(p.precision, e.expr, fo, i);
              csv += std::string("sweep,") + e.id + "," + fid + "," + p.id + "," + num(ev.xs[i]) +
                     "," + num(xs) + ",,,," + num(v) + "," + num(ex) + "," + num(v - ex) + "," +
                     num(re) + "," + num(ue) + ",," + src + "\n";
              j["sweep"].push_back({{"expression", e.id},
                                    {"formula", fid},
                                    {"precision", p.id},
                                    {"x", ev.xs[i]},
                                    {"x_stored", xs},
                                    {"value", jnum(v)},
                                    {"exact", jnum(ex)},
                                    {"rel_error", jnum(re)},
                                    {"ulp_error", jnum(ue)}});
            }
          }
      }
    }
    if (sum_) {
      for (const SumResults& r : sum_->growth)
        for (const SumMethodInfo& m : sumMethods()) {
          const size_t k = static_cast<size_t>(m.method);
          const bool onGpu = m.method == SumMethod::GpuTree && r.treeOnGpu;
          const double ex = static_cast<double>(r.exact);
          csv += "sum,,,,,," + std::to_string(r.n) + "," + m.id + ",," + num(r.value[k]) + "," +
                 num(ex) + "," + num(r.error[k]) + "," + num(std::fabs(r.error[k] / ex)) + ",,," +
                 (onGpu ? device_ : "cpu") + "\n";
          j["sums"].push_back({{"n", r.n},
                               {"method", m.id},
                               {"sum", jnum(r.value[k])},
                               {"exact", jnum(ex)},
                               {"error", jnum(r.error[k])},
                               {"source", onGpu ? device_ : "cpu"}});
        }
    }
    if (fma_) {
      for (const FmaRate& r : *fma_) {
        csv += std::string("fma,,,,,,,,") + fmaTypeInfo(r.type).id + "," + num(r.gflops * 1e9) +
               ",,,,," + (r.peak.known ? num(r.peak.value * 1e9) : "") + "," + device_ + "\n";
        j["fma"].push_back({{"type", fmaTypeInfo(r.type).id},
                            {"gflops", r.gflops},
                            {"peak_gflops", r.peak.known ? jnum(r.peak.value) : nlohmann::json()},
                            {"peak_formula", r.peak.formula},
                            {"device", device_}});
      }
    }
    return {.json = std::move(j), .csv = std::move(csv)};
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (fma_)
      for (const FmaRate& r : *fma_)
        rows.push_back({std::string("fma ") + fmaTypeInfo(r.type).id,
                        fmaRowLabel(r.type),
                        {{"GFLOP/s", r.gflops, "GFLOP/s", true}}});
    if (sum_)
      for (const SumMethodInfo& m : sumMethods()) {
        const size_t k = static_cast<size_t>(m.method);
        // The label is the method's name alone (the pins table translates it; N is a parameter,
        // shown there where the runs differ).
        rows.push_back({std::string("sum ") + m.id,
                        m.label,
                        {{"|error|", std::fabs(sum_->at.error[k]), "", false}}});
      }
    return rows;
  }

  // State
  bool gpu_ = false;
  bool started_ = false;  // onShow ran: the values at x are kept up to date from then on
  std::string device_;
  Expr expr_ = Expr::PlusOne;
  int formulaMode_ = 2;
  std::array<bool, kPrecisionCount> shown_{};
  double x_ = kChosenX.defaultValue;
  int perDecade_ = static_cast<int>(kPointsPerDecade.defaultValue);
  size_t sumN_ = kCourseSumCount;
  size_t sumJobN_ = kCourseSumCount;  // the N of the sum job last started (its progress names it)

  KeptJob<PrecisionSweepReport> sweep_;
  KeptJob<PrecisionSweepReport> point_;
  double requestedX_ = NAN;
  KeptJob<PrecisionSumReport> sum_;
  KeptJob<std::vector<FmaRate>> fma_;

  PrecisionTrapPanel trap_;
  PrecisionExplorerPanel explorer_;
};

}  // namespace

const LessonEntry kPrecisionLesson{&kPrecisionLessonInfo, &makeLesson<PrecisionLesson>,
                                   kPrecisionBenches};

}  // namespace cudalab
