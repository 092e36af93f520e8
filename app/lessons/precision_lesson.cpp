// Lesson "precision" (course file 000): what float32 keeps and loses.
//
// [SECTION] index
//   jobs          the sweep, the values at one x, the sums and the FMA rates run on workers
//   parameters    expression, formulas, precisions, x, N, buttons
//   errors        relative error against x, log-log, with each format's epsilon
//   values        the results at the chosen x, their ULP errors and their bits
//   trap          (x + 1.0) - 1.0 against (x + 1.0f) - 1.0f, and the PTX that explains it
//   explorer      a typed number in the four formats: neighbours and spacing
//   summation     2^27 - 157 normal numbers summed five ways, and the error's growth with N
//   throughput    FMA rates in float32, float64 and half against the device's peaks
//   export        CSV and JSON of everything on screen
#include "ui/i18n.hpp"
#include "lessons/precision_lesson.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
#include "ui/plot.hpp"
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

const char* kActionEvaluate = "evaluate";
const char* kActionSum = "sum";
const char* kActionFma = "fma";

// The panel's choices, for presets and plans: the expression (expressions(), in its order), the
// formulas drawn, and which precisions are shown (in Precision's order).
constexpr ParamSpec kExprChoice{"expression",
                                "Expression",
                                0,
                                kExprCount - 1,
                                0,
                                "",
                                "The expression evaluated across x: each loses digits to "
                                "cancellation somewhere, and has a rewritten form that does not."};
constexpr ParamSpec kFormulaChoice{
    "formulas",
    "Formulas",
    0,
    2,
    2,
    "",
    "The formula as written, the rewritten formula that avoids the cancellation, or both."};
constexpr ParamSpec kShowChoice[kPrecisionCount] = {
    {"show_half", "Show half", 0, 1, 1, "",
     "Whether the half-precision (16-bit) curves are shown."},
    {"show_bf16", "Show bfloat16", 0, 1, 1, "", "Whether the bfloat16 curves are shown."},
    {"show_f32", "Show float32 (FMA allowed)", 0, 1, 1, "",
     "Whether the float32 curves, as nvcc compiles them by default, are shown."},
    {"show_f32_rn", "Show float32 (no FMA)", 0, 1, 0, "",
     "Whether the float32 curves rounded after every operation (as the CPU does) are shown."},
    {"show_f32_fast", "Show float32 (fast math)", 0, 1, 0, "",
     "Whether the float32 curves built with --use_fast_math are shown."},
    {"show_f64", "Show float64", 0, 1, 1, "", "Whether the float64 curves are shown."},
};

// Relative errors are drawn between these: 0 (exact) at the floor, overflow, NaN and errors of
// 10 or more at the ceiling.
constexpr double kErrFloor = 1e-18;
constexpr double kErrCeil = 10.0;
// Absolute summation errors of 0 are drawn here.
constexpr double kSumFloor = 1e-14;

// What the job hands the panel: the evaluation and the literal trap, plus the relative errors
// already clamped for the log plots (computed on the worker, not every frame).
struct SweepReport {
  Evaluation ev;
  TrapResult trap;
  std::vector<double> plotErr;  // indexed like ev.value
  std::vector<double> trapErrFloat, trapErrDouble;
};

struct SumReport {
  SumResults at;
  std::vector<SumResults> growth;
  TreeShape shape;
};

double clampErr(double e) {
  if (std::isnan(e)) return std::numeric_limits<double>::quiet_NaN();
  if (!(e < kErrCeil)) return kErrCeil;
  return std::max(e, kErrFloor);
}

Result<SweepReport> evaluateAll(const std::vector<double>& xs, bool gpu) {
  SweepReport r;
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

std::string sci(double v, int digits = 3) {
  char b[48];
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

// A value with as many digits as its format needs to be read back exactly.
std::string fullValue(floats::Format f, double v) {
  const int digits = f == floats::Format::Float64 ? 17 : f == floats::Format::Float32 ? 9 : 5;
  return sci(v, digits);
}

std::string ulpText(double u) {
  if (std::isnan(u)) return "";
  if (std::isinf(u)) return "inf";
  if (u >= 1e6) return sci(u, 3);
  char b[32];
  std::snprintf(b, sizeof b, u < 10 ? "%.2f" : "%.0f", u);
  return b;
}

// Sign, exponent and mantissa bits in three colours (the palette's vermillion, blue, green),
// in the monospace font.
void drawBits(const Theme& theme, floats::Format f, uint64_t bits) {
  const std::string s = floats::bitString(f, bits);
  const size_t a = s.find(' '), b = s.find(' ', a + 1);
  ImGui::PushFont(theme.fonts().mono);
  const ImU32 colours[] = {paletteColour(5), paletteColour(0), paletteColour(2)};
  const std::string parts[] = {s.substr(0, a), s.substr(a + 1, b - a - 1), s.substr(b + 1)};
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine(0, ImGui::CalcTextSize(" ").x);
    ImGui::PushStyleColor(ImGuiCol_Text, colours[i]);
    ImGui::TextUnformatted(parts[i].c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PopFont();
  helpTooltip(
      "Sign (1 bit), exponent (stored with a bias) and mantissa (the digits after the leading "
      "1). The value is (-1)^sign x 1.mantissa x 2^(exponent - bias).");
}

// "normal, 2^-4"; zero, infinity and NaN without a power (it means nothing there).
std::string kindText(floats::Format f, uint64_t bits) {
  const floats::Fields fs = floats::fields(f, bits);
  if (fs.kind == floats::Kind::Normal || fs.kind == floats::Kind::Subnormal)
    return std::string(floats::kindName(fs.kind)) + ", 2^" + std::to_string(fs.power);
  return floats::kindName(fs.kind);
}

class PrecisionLesson final : public Lesson {
 public:
  PrecisionLesson() {
    for (const PrecisionInfo& p : precisions())
      shown_[static_cast<size_t>(p.precision)] =
          p.precision != Precision::Float32Fast && p.precision != Precision::Float32NoFma;
  }

  const LessonInfo& info() const override { return kPrecisionLessonInfo; }
  std::span<const ParamSpec> parameters() const override { return kParams; }
  std::vector<VariantRow> variants() const override {
    std::vector<VariantRow> rows;
    for (const PrecisionInfo& p : precisions())
      rows.push_back({p.id, p.label, p.help});
    for (const ExprInfo& e : expressions())
      rows.push_back({e.id, e.label, e.help});
    // Summation methods get a prefix: "f64" also names a precision.
    for (const SumMethodInfo& m : sumMethods())
      rows.push_back({std::string("sum_") + m.id, m.label, m.help});
    return rows;
  }
  bool busy() const override {
    return sweepJob_.pending() || pointJob_.pending() || sumJob_.pending() || fmaJob_.pending() ||
           !queue_.empty() || (started_ && pointStale());
  }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::pair<std::string, Expr>> exprs;
    for (const ExprInfo& e : expressions())
      exprs.emplace_back(e.id, e.expr);
    std::vector<ParamBinding> b = {bindChoice(kExprChoice, expr_, std::move(exprs)),
                                   bindChoice<int>(kFormulaChoice, formulaMode_,
                                                   {{"naive", 0}, {"rewritten", 1}, {"both", 2}})};
    for (const PrecisionInfo& p : precisions())
      b.push_back(bindToggle(kShowChoice[static_cast<size_t>(p.precision)],
                             shown_[static_cast<size_t>(p.precision)]));
    for (ParamBinding& n : std::vector<ParamBinding>{
             bindParam(kChosenX, x_),
             bindParam(kPointsPerDecade, perDecade_, [this] { startSweep(); }),
             bindParam(kSumCount, sumN_)})
      b.push_back(std::move(n));
    return b;
  }
  void cancelAll() override {
    sweepJob_.cancel();
    pointJob_.cancel();
    sumJob_.cancel();
    fmaJob_.cancel();
    queue_.clear();  // or the next queued measurement would start
  }

  std::vector<std::string> actionIds() const override {
    return {kActionEvaluate, kActionSum, kActionFma};
  }
  bool startAction(const std::string& id) override {
    if (id == kActionEvaluate) return startSweep();
    if (id == kActionSum) return startSum();
    if (id == kActionFma) return startFma();
    return false;
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    device_ = gpu_ ? ctx.runtime.firstDeviceName : std::string();
    started_ = true;
    // Without a GPU "float32 (FMA allowed)" cannot be evaluated: show the CPU's float32 instead.
    if (!gpu_) shown_[static_cast<size_t>(Precision::Float32NoFma)] = true;
    // The sweep is instant; the sums take a few seconds; the FMA rates need a GPU.
    startSweep();
    queue_ = {kActionSum};
    if (gpu_) queue_.push_back(kActionFma);
  }

  // [SECTION] parameters

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    ImGui::TextUnformatted(tr("Expression"));
    for (const ExprInfo& e : expressions()) {
      if (ImGui::RadioButton(e.label, expr_ == e.expr)) expr_ = e.expr;
      helpTooltip(e.help);
    }
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("Formulas"));
    const char* modes[] = {"naive", "rewritten", "both"};
    for (int i = 0; i < 3; ++i) {
      if (i) ImGui::SameLine();
      if (ImGui::RadioButton(modes[i], formulaMode_ == i)) formulaMode_ = i;
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
    if (smallButton(tr("1e-8 (course)"))) x_ = 1e-8;
    ImGui::SameLine();
    if (smallButton("1e-4")) x_ = 1e-4;
    ImGui::SameLine();
    if (smallButton("1")) x_ = 1.0;
    ImGui::SameLine();
    if (smallButton("100")) x_ = 100.0;
    if (paramSlider(kPointsPerDecade, perDecade_)) startSweep();
    paramSlider(kSumCount, sumN_);
    if (smallButton(tr("2^27 - 157 (course)"))) sumN_ = kCourseSumCount;
    ImGui::SameLine();
    if (smallButton("2^20")) sumN_ = size_t{1} << 20;

    ImGui::Spacing();
    ImGui::Separator();
    if (!gpu_)
      mutedText(ctx.theme,
                "No GPU: every formula is evaluated on the CPU, rounding after each operation "
                "in half, bfloat16, float32 and float64. Fused multiply-add and fast math exist "
                "only on the GPU, so those two variants are not shown.");
    ImGui::BeginDisabled(working());
    if (button(tr("Evaluate again"))) startSweep();
    helpTooltip(gpu_ ? "Every expression and formula in every precision on the GPU, at every x "
                       "of the sweep, against the exact value."
                     : "Every expression and formula on the CPU in each precision.");
    if (button(tr("Sum N numbers"))) startSum();
    helpTooltip("N random normal numbers summed five ways, and the same for growing N.");
    ImGui::EndDisabled();
    ImGui::BeginDisabled(working() || !gpu_);
    if (button(tr("Measure FMA throughput"))) startFma();
    ImGui::EndDisabled();
    helpTooltip(gpu_ ? "Fused multiply-adds per second in float32, float64 and half."
                     : "Needs a GPU.");
    if (working()) {
      const JobProgress pr = sumJob_.running()   ? sumJob_.progress()
                             : fmaJob_.running() ? fmaJob_.progress()
                                                 : sweepJob_.progress();
      ImGui::ProgressBar(pr.fraction, ImVec2(-1, 0), pr.what.c_str());
      if (button(tr("Cancel"))) {
        cancelAll();
      }
    }
    ImGui::BeginDisabled(!sweep_);
    if (button(tr("Export CSV"))) exportLessonResults(ctx, results(), false);
    ImGui::SameLine();
    if (button(tr("Export JSON"))) exportLessonResults(ctx, results(), true);
    ImGui::EndDisabled();
    helpTooltip(
        "Saves the sweep (every expression, formula and precision), the sums and the "
        "FMA rates.");
  }

  // [SECTION] main view

  void drawMain(LessonContext& ctx) override {
    startNextQueued(*this, queue_, working());
    if (started_ && pointStale() && !pointJob_.running()) startPoint();
    errorText(ctx.theme, error_);
    drawErrors(ctx);
    drawValues(ctx);
    drawTrap(ctx);
    drawExplorer(ctx);
    drawSummation(ctx);
    drawThroughput(ctx);
  }

 private:
  static constexpr ParamSpec kParams[] = {kChosenX, kPointsPerDecade, kSumCount};

  bool working() const { return sweepJob_.running() || sumJob_.running() || fmaJob_.running(); }
  // The values at x were last requested for another x (NaN before the first request).
  bool pointStale() const { return requestedX_ != x_; }
  bool available(Precision p) const { return gpu_ || precisionInfo(p).cpu; }
  std::string source() const {
    return gpu_ ? "on the GPU (" + device_ + ")" : "on the CPU, no GPU";
  }

  // [SECTION] jobs

  bool startSweep() {
    if (sweepJob_.running()) return false;
    const std::vector<double> xs = sweepXs(perDecade_);
    const bool gpu = gpu_;
    return sweepJob_.start([xs, gpu](AsyncJob<SweepReport>::Control& c) -> Result<SweepReport> {
      c.progress(0.5f, gpu ? "evaluating on the GPU" : "evaluating on the CPU");
      return evaluateAll(xs, gpu);
    });
  }

  bool startPoint() {
    const std::vector<double> xs = {x_};
    const bool gpu = gpu_;
    requestedX_ = x_;
    return pointJob_.start([xs, gpu](AsyncJob<SweepReport>::Control&) -> Result<SweepReport> {
      return evaluateAll(xs, gpu);
    });
  }

  bool startSum() {
    if (sumJob_.running()) return false;
    const size_t n = sumN_;
    const bool gpu = gpu_;
    return sumJob_.start([n, gpu](AsyncJob<SumReport>::Control& c) -> Result<SumReport> {
      c.progress(0.02f, "drawing " + thousands(static_cast<long long>(n)) + " normal numbers");
      const std::vector<float> x = normalFloats(n, 20261121u);
      if (c.cancelled()) return Status::error("Summation cancelled.");
      SumReport r;
      r.shape = defaultTreeShape();
      const std::vector<size_t> sizes = growthSizes(n);
      Result<std::vector<SumResults>> g = sumGrowth(
          x, sizes, gpu,
          [&](double f) { c.progress(0.1f + 0.9f * static_cast<float>(f), "summing"); },
          c.cancelFlag());
      if (!g) return g.status();
      r.growth = std::move(*g);
      if (r.growth.empty()) return Status::error("The summation returned no result.");
      r.at = r.growth.back();  // the last size is n itself
      return r;
    });
  }

  bool startFma() {
    if (!gpu_ || fmaJob_.running()) return false;
    return fmaJob_.start(
        [](AsyncJob<std::vector<FmaRate>>::Control& c) -> Result<std::vector<FmaRate>> {
          c.progress(0.3f, "timing fused multiply-adds");
          return measureFmaRates(0, c.cancelFlag());
        });
  }

  void poll(LessonContext& ctx) {
    for (const Status& s : {sweepJob_.takeInto(sweep_), pointJob_.takeInto(point_),
                            sumJob_.takeInto(sum_), fmaJob_.takeInto(fma_)})
      if (!s) {
        error_ = s;
        ctx.error(s);
      }
  }

  // [SECTION] errors

  void drawErrors(LessonContext& ctx) {
    const ExprInfo& e = exprInfo(expr_);
    const std::string title = std::string("Relative error of ") + e.label + " against x";
    if (beginPanel(ctx, "errors", title.c_str())) {
      if (e.stable)
        textWrapped(tr("Naive: %s     Rewritten: %s"), e.naive, e.stable);
      else
        textWrapped(tr("Naive: %s"), e.naive);
      mutedText(ctx.theme, e.help);
      if (!sweep_) {
        ImGui::TextUnformatted(sweepJob_.running() ? "Evaluating..." : "Not evaluated yet.");
      } else {
        const Evaluation& ev = sweep_->ev;
        const size_t n = ev.xs.size();
        if (plot::BeginPlot("precision_errors", "##errors", ImVec2(-1, 0))) {
          plot::SetupAxes({"x", plot::Scale::Log10, kSweepMin, kSweepMax},
                          {"Relative error", plot::Scale::Log10, kErrFloor, kErrCeil});
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
              const std::string label = std::string(p.label) + (f == 1 ? ", rewritten" : "");
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
        mutedText(ctx.theme, ("Evaluated " + source() + ". Exact value: " + e.exact +
                              ", for x as each precision holds it (a curve stops where the "
                              "format cannot hold x: half below 3e-8). Exact results sit on the "
                              "bottom edge; errors of 10 or more, overflow and NaN on the top "
                              "edge. The dashed lines are each format's epsilon: an error near it "
                              "is as good as that format gets.")
                                 .c_str());
      }
    }
    endPanel(ctx);
  }

  // [SECTION] values

  void drawValues(LessonContext& ctx) {
    const ExprInfo& e = exprInfo(expr_);
    // The x the shown values were computed for (the slider may already be ahead of it).
    const double px = point_ ? point_->ev.xs[0] : x_;
    const std::string title = "At x = " + sci(px, 6) + ": values, errors and bits";
    if (beginPanel(ctx, "values", title.c_str())) {
      if (!point_) {
        ImGui::TextUnformatted(tr("Evaluating..."));
      } else {
        const Evaluation& ev = point_->ev;
        // On a projector the results and how far off they are stay; the stored x and the exact
        // value (in the text above the table's columns' tooltips) give way first.
        static const TableColumn kStable[] = {
            {"Precision"},
            {"x as stored", nullptr, 2, "The nearest value the format has."},
            {"Naive result", nullptr, 0},
            {"ULPs off (naive)", "ULPs off", 0,
             "Distance from the exact value in units of the "
             "format's last place."},
            {"Rewritten", nullptr, 1},
            {"ULPs off (rewritten)", "ULPs off", 1},
            {"Exact", nullptr, 3, "The expression for the stored x, computed exactly."},
        };
        static const TableColumn kNaive[] = {kStable[0], kStable[1], kStable[2], kStable[3],
                                             kStable[6]};
        const int rows = static_cast<int>(precisions().size());
        if (e.stable ? beginDataTable("values", kStable, rows)
                     : beginDataTable("values_naive", kNaive, rows)) {
          for (const PrecisionInfo& p : precisions()) {
            if (!ev.available[static_cast<size_t>(p.precision)]) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushStyleColor(ImGuiCol_Text, paletteColour(p.colour));
            ImGui::TextUnformatted(p.label);
            ImGui::PopStyleColor();
            helpTooltip(p.help);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(fullValue(p.format, floats::roundTo(p.format, px)).c_str());
            for (int f = 0; f < (e.stable ? 2 : 1); ++f) {
              const double v = ev.at(p.precision, e.expr, static_cast<Formula>(f), 0);
              ImGui::TableNextColumn();
              ImGui::TextUnformatted(fullValue(p.format, v).c_str());
              ImGui::TableNextColumn();
              ImGui::TextUnformatted(
                  ulpText(ev.ulpError(p.precision, e.expr, static_cast<Formula>(f), 0)).c_str());
            }
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(
                sci(static_cast<double>(ev.exactAt(p.precision, e.expr, 0)), 10).c_str());
          }
          endDataTable();
        }
        mutedText(ctx.theme,
                  "x as stored: the nearest value the format has (half cannot hold 1e-8 and "
                  "stores 0). Exact: the expression for that stored x. ULPs off: the distance "
                  "from the exact value in units of the format's last place there; 0.5 is the "
                  "best rounding can do, millions mean no digit is right.");
        ImGui::Spacing();
        ImGui::TextUnformatted(tr("Bits of the naive result"));
        static const TableColumn kBits[] = {
            {"Precision"}, {"Kind", nullptr, 1}, {"sign  exponent  mantissa"}};
        if (beginDataTable("bits", kBits, static_cast<int>(precisions().size()))) {
          for (const PrecisionInfo& p : precisions()) {
            if (!ev.available[static_cast<size_t>(p.precision)]) continue;
            // Each format once: float32 from the first float32 variant that was evaluated.
            if (p.precision == Precision::Float32Fast) continue;
            if (p.precision == Precision::Float32NoFma &&
                ev.available[static_cast<size_t>(Precision::Float32)])
              continue;
            const double v = ev.at(p.precision, e.expr, Formula::Naive, 0);
            const uint64_t bits = floats::encode(p.format, v);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(p.label);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(kindText(p.format, bits).c_str());
            ImGui::TableNextColumn();
            drawBits(ctx.theme, p.format, bits);
          }
          endDataTable();
        }
      }
    }
    endPanel(ctx);
  }

  // [SECTION] trap

  void drawTrap(LessonContext& ctx) {
    if (beginPanel(ctx, "trap", "The literal trap: 1.0 is a double")) {
      textWrapped(
          "In C++ and CUDA a literal 1.0 is a float64. With a float32 x, (x + 1.0) - 1.0 converts "
          "x to float64, computes there and rounds only the result: the cancellation disappears "
          "and the float32 code seems to keep 16 digits. Numba types literals the same way. "
          "With 1.0f it stays in float32.");
      if (point_) {
        const TrapResult& t = point_->trap;
        if (!t.floatLiteral.empty()) {
          ImGui::PushFont(ctx.theme.fonts().mono);
          const double px = point_->ev.xs[0];
          ImGui::Text(tr("x = %s (as float32: %s)"), sci(px, 6).c_str(),
                      sci(static_cast<float>(px), 9).c_str());
          ImGui::Text("(x + 1.0f) - 1.0f = %s", sci(t.floatLiteral[0], 9).c_str());
          ImGui::Text("(x + 1.0)  - 1.0  = %s", sci(t.doubleLiteral[0], 9).c_str());
          ImGui::PopFont();
          mutedText(ctx.theme, (std::string("Computed ") + source() + ".").c_str());
        }
      }
      if (sweep_ && !sweep_->trap.xs.empty()) {
        const TrapResult& t = sweep_->trap;
        const size_t n = t.xs.size();
        if (plot::BeginPlot("precision_trap", "##trap", ImVec2(-1, 0))) {
          plot::SetupAxes({"x", plot::Scale::Log10, kSweepMin, kSweepMax},
                          {"Relative error", plot::Scale::Log10, kErrFloor, kErrCeil});
          plot::SetupLegend(plot::Legend::Outside);
          plot::SetNextColour(0);
          plot::PlotLine("1.0f (float32)", t.xs.data(), sweep_->trapErrFloat.data(),
                         static_cast<int>(n));
          plot::SetNextColour(2);
          plot::PlotLine("1.0 (float64 inside)", t.xs.data(), sweep_->trapErrDouble.data(),
                         static_cast<int>(n));
          plot::PlotHLine("float32 eps", floats::formatInfo(floats::Format::Float32).epsilon);
          plot::EndPlot();
        }
      }
      drawPtxEvidence(ctx);
    }
    endPanel(ctx);
  }

  static int approxCount(const PtxKernel& k) {
    int n = 0;
    for (const auto& [op, c] : k.opcodes)
      if (op.find(".approx") != std::string::npos) n += c;
    return n;
  }

  void drawPtxEvidence(LessonContext& ctx) {
    if (!ptxLoaded_) {
      ptxFloat_ = ptxKernel(kTrapFloatKernel);
      ptxDouble_ = ptxKernel(kTrapDoubleKernel);
      for (const PrecisionInfo& p : precisions())
        ptxEval_[static_cast<size_t>(p.precision)] = ptxKernel(evalKernelName(p.precision));
      ptxLoaded_ = true;
    }
    ImGui::Spacing();
    ImGui::Text(
        tr("Evidence: the PTX nvcc generated for these kernels (%s, embedded at build time)"),
        ptxArchitecture());
    if (!ptxFloat_.found || !ptxDouble_.found) {
      mutedText(ctx.theme, "This build has no PTX for the trap kernels.");
      return;
    }
    auto arith = [](const PtxKernel& k) {
      std::string s;
      for (const auto& [op, c] : k.opcodes)
        if (op.starts_with("add.") || op.starts_with("sub.") || op.starts_with("cvt.f") ||
            op.starts_with("cvt.rn.f"))
          if (op.find(".f32") != std::string::npos || op.find(".f64") != std::string::npos)
            s += (s.empty() ? "" : ", ") + op + (c > 1 ? " x" + std::to_string(c) : "");
      return s;
    };
    static const TableColumn kTrap[] = {{"Kernel"}, {"Floating-point instructions"}};
    if (beginDataTable("ptx_trap", kTrap, 2)) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("(x + 1.0f) - 1.0f");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(arith(ptxFloat_).c_str());
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("(x + 1.0) - 1.0");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(arith(ptxDouble_).c_str());
      endDataTable();
    }
    mutedText(ctx.theme,
              "cvt.f64.f32 widens x to float64, add.f64 adds in float64, cvt.rn.f32.f64 rounds "
              "the result back: the float32 cancellation never happens.");
    if (!ctx.exporting && ImGui::TreeNode(tr("PTX of the two kernels"))) {
      ImGui::PushFont(ctx.theme.fonts().mono);
      ImGui::TextUnformatted(("// " + ptxFloat_.name + "\n" + ptxFloat_.body).c_str());
      ImGui::TextUnformatted(("// " + ptxDouble_.name + "\n" + ptxDouble_.body).c_str());
      ImGui::PopFont();
      ImGui::TreePop();
    }
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("The same PTX for the formula kernels, one per precision"));
    static const TableColumn kEval[] = {
        {"Kernel"},
        {"fma.rn.f32", nullptr, 0, "Fused multiply-adds: one rounding for a * b + c."},
        {"mul.rn / add.rn .f32", "mul / add", 1, "Separate multiplies and adds."},
        {"approximate (.approx)", "approx", 0, "Instructions of the fast-math approximations."},
        {"f64 instructions", "f64", 1},
    };
    if (beginDataTable("ptx_eval", kEval, static_cast<int>(precisions().size()))) {
      for (const PrecisionInfo& p : precisions()) {
        const PtxKernel& k = ptxEval_[static_cast<size_t>(p.precision)];
        if (!k.found || p.format != floats::Format::Float32) continue;
        int f64 = 0;
        for (const auto& [op, c] : k.opcodes)
          if (op.ends_with(".f64")) f64 += c;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(p.label);
        helpTooltip(k.name.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%d", k.count("fma.rn.f32"));
        ImGui::TableNextColumn();
        ImGui::Text("%d", k.count("mul.rn.f32") + k.count("add.rn.f32") + k.count("sub.rn.f32"));
        ImGui::TableNextColumn();
        ImGui::Text("%d", approxCount(k));
        ImGui::TableNextColumn();
        ImGui::Text("%d", f64);
      }
      endDataTable();
    }
    const int fused = ptxEval_[static_cast<size_t>(Precision::Float32)].count("fma.rn.f32") -
                      ptxEval_[static_cast<size_t>(Precision::Float32NoFma)].count("fma.rn.f32");
    mutedText(ctx.theme,
              ("The default kernel has " + std::to_string(fused) +
               " more fused multiply-adds than the __fmul_rn/__fadd_rn kernel: nvcc fused the "
               "formulas' a*b + c, which the source never asked for. The FMAs both kernels share "
               "come from cosf, expf and logf, which use them on purpose. Fast math swaps those "
               "functions for hardware approximations (.approx). Counts are of each kernel's own "
               "body; functions it calls are not included.")
                  .c_str());
  }

  // [SECTION] explorer

  void drawExplorer(LessonContext& ctx) {
    if (beginPanel(ctx, "explorer", "Float explorer: one number in four formats")) {
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
      ImGui::InputText("Number", explorerText_, sizeof explorerText_);
      helpTooltip(
          "Type any number (0.1, 1e-8, 65504, 3.14159, 16777217...): each format rounds it "
          "to its nearest value.");
      for (const char* s : {"0.1", "1e-8", "65504", "16777217"}) {
        sameLineIfFits(ImGui::CalcTextSize(s).x + 2 * ImGui::GetStyle().FramePadding.x);
        if (smallButton(s)) std::snprintf(explorerText_, sizeof explorerText_, "%s", s);
      }
      char* end = nullptr;
      const long double v = std::strtold(explorerText_, &end);
      if (end == explorerText_ || (end && *end != '\0' && *end != ' ')) {
        ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
        textWrapped(tr("\"%s\" is not a number. Write it like 0.1, -3.5 or 1e-8."), explorerText_);
        ImGui::PopStyleColor();
      } else {
        static const TableColumn kExplorer[] = {
            {"Format"},
            {"Stored value"},
            {"Neighbours below / above", "Neighbours", 2},
            {"Spacing (ULP) below / above", "Spacing (ULP)", 1},
            {"Rounding error", nullptr, 0},
        };
        // Two lines a row (the neighbours, the spacings), three where the value over- or
        // underflows.
        const int lines = 3 * static_cast<int>(floats::formats().size());
        if (beginDataTable("explorer", kExplorer, lines)) {
          for (const floats::FormatInfo& fi : floats::formats()) {
            const floats::Neighbourhood nb = floats::explore(fi.format, v);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(fi.name);
            helpTooltip(("1 sign, " + std::to_string(fi.exponentBits) + " exponent and " +
                         std::to_string(fi.mantissaBits) + " mantissa bits; about " +
                         trimmedFixed(fi.decimalDigits, 1) + " decimal digits; largest " +
                         sci(fi.maxFinite, 5) + ".")
                            .c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(fullValue(fi.format, nb.value).c_str());
            if (nb.overflow) ImGui::TextUnformatted(tr("overflow: too large"));
            if (nb.underflow)
              ImGui::TextUnformatted(nb.value == 0 ? "underflow: too small, 0"
                                                   : "subnormal: fewer digits");
            const bool finite = std::isfinite(nb.value);
            ImGui::TableNextColumn();
            if (finite) {
              ImGui::Text("%s", fullValue(fi.format, nb.below).c_str());
              ImGui::Text("%s", fullValue(fi.format, nb.above).c_str());
            }
            ImGui::TableNextColumn();
            if (finite) {
              ImGui::Text(tr("%s below"), sci(nb.gapBelow, 4).c_str());
              ImGui::Text(tr("%s above"), sci(nb.gapAbove, 4).c_str());
            }
            ImGui::TableNextColumn();
            if (!finite && !std::isfinite(static_cast<double>(v)))
              ImGui::TextUnformatted("");
            else if (nb.exact)
              ImGui::TextUnformatted(tr("exact"));
            else
              ImGui::Text(tr("%s (%s relative)"),
                          sci(static_cast<double>(nb.roundingError), 3).c_str(),
                          sci(nb.relativeError, 2).c_str());
          }
          endDataTable();
        }
        static const TableColumn kExplorerBits[] = {
            {"Format"}, {"Kind", nullptr, 1}, {"sign  exponent  mantissa"}};
        if (beginDataTable("explorer_bits", kExplorerBits,
                           static_cast<int>(floats::formats().size()))) {
          for (const floats::FormatInfo& fi : floats::formats()) {
            const uint64_t bits = floats::encode(fi.format, v);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(fi.name);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(kindText(fi.format, bits).c_str());
            ImGui::TableNextColumn();
            drawBits(ctx.theme, fi.format, bits);
          }
          endDataTable();
        }
        mutedText(ctx.theme,
                  "The spacing doubles at every power of two: numbers are dense near 0 and sparse "
                  "far from it. Every format has the same relative spacing at each power of two, "
                  "its epsilon.");
      }
    }
    endPanel(ctx);
  }

  // [SECTION] summation

  void drawSummation(LessonContext& ctx) {
    if (beginPanel(ctx, "summation", "Summing N random normal numbers")) {
      if (!sum_) {
        ImGui::TextUnformatted(sumJob_.running() ? "Summing..." : "Not summed yet.");
      } else {
        const SumResults& s = sum_->at;
        ImGui::Text(tr("N = %s, exact sum %s (double-double), sum of |x| %s"),
                    thousands(static_cast<long long>(s.n)).c_str(),
                    sci(static_cast<double>(s.exact), 12).c_str(), sci(s.absSum, 6).c_str());
        // The method and its error carry the lesson; the sum's digits, then the bound's formula,
        // give way first on a projector.
        static const TableColumn kSums[] = {
            {"Method"},
            {"Sum", nullptr, 1},
            {"Error", nullptr, 0, "The sum minus the exact (double-double) sum."},
            {"Error bound", nullptr, 2, "How large the error of this method can grow."},
        };
        // The GPU tree's row has a second line.
        if (beginDataTable("sums", kSums, static_cast<int>(sumMethods().size()) + 1)) {
          for (const SumMethodInfo& m : sumMethods()) {
            const size_t k = static_cast<size_t>(m.method);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushStyleColor(ImGuiCol_Text, paletteColour(sumColour(m.method)));
            ImGui::TextUnformatted(m.label);
            ImGui::PopStyleColor();
            helpTooltip(m.help);
            if (m.method == SumMethod::GpuTree)
              ImGui::TextUnformatted(s.treeOnGpu ? "(on the GPU)" : "(CPU, same order)");
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(
                sci(s.value[k], m.method == SumMethod::Float64 ? 16 : 9).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(sci(s.error[k], 3).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(m.bound);
          }
          endDataTable();
        }
        if (s.treeOnGpu)
          mutedText(ctx.theme,
                    ("The tree order ran on the GPU with " + std::to_string(sum_->shape.blocks) +
                     " blocks of " + std::to_string(sum_->shape.threads) + " threads.")
                        .c_str());
        drawSumGrowth(ctx);
      }
    }
    endPanel(ctx);
  }

  static int sumColour(SumMethod m) {
    switch (m) {
      case SumMethod::Sequential:
        return 5;
      case SumMethod::GpuTree:
        return 0;
      case SumMethod::Pairwise:
        return 1;
      case SumMethod::Kahan:
        return 3;
      case SumMethod::Float64:
        return 2;
    }
    return 7;
  }

  void drawSumGrowth(LessonContext& ctx) {
    const std::vector<SumResults>& g = sum_->growth;
    if (g.size() < 2) return;
    std::vector<double> ns, ys;
    if (plot::BeginPlot("precision_sum_growth", "Error against N", ImVec2(-1, 0))) {
      plot::SetupAxes({"N", plot::Scale::Log10}, {"|error|", plot::Scale::Log10, kSumFloor, NAN});
      plot::SetupLegend(plot::Legend::Outside);
      for (const SumMethodInfo& m : sumMethods()) {
        ns.clear();
        ys.clear();
        for (const SumResults& r : g) {
          ns.push_back(static_cast<double>(r.n));
          ys.push_back(std::max(std::fabs(r.error[static_cast<size_t>(m.method)]), kSumFloor));
        }
        plot::SetNextColour(sumColour(m.method));
        plot::PlotLine(m.label, ns.data(), ys.data(), static_cast<int>(ns.size()));
      }
      plot::EndPlot();
    }
    mutedText(ctx.theme,
              "Sequential float32 error grows about like N (each addition rounds a large running "
              "sum); the tree and pairwise orders add numbers of similar size and grow slowly; "
              "Kahan's compensation and float64 stay near the last digit. Errors below 1e-14 "
              "(float64's) and errors of exactly 0 sit on the bottom edge.");
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
            ImGui::TextUnformatted(fp64RatioText(a).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(a.examples);
          }
          endDataTable();
        }
      } else if (!fma_) {
        ImGui::TextUnformatted(fmaJob_.running() ? "Measuring..." : "Not measured yet.");
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
          plot::SetupAxes({"Type"}, {"Throughput", plot::Scale::Linear, 0, NAN, "FLOP/s"});
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
            ImGui::TextUnformatted(fmaTypeInfo(r.type).label);
            helpTooltip(fmaTypeInfo(r.type).instruction);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(plot::formatValue(r.gflops * 1e9, "FLOP/s").c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(
                r.peak.known ? plot::formatValue(r.peak.value * 1e9, "FLOP/s").c_str() : "unknown");
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
          ImGui::Text(tr("float64 : float32 = 1 : %.1f measured on %s"), f32->gflops / f64->gflops,
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

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (fma_)
      for (const FmaRate& r : *fma_)
        rows.push_back({std::string("fma ") + fmaTypeInfo(r.type).id,
                        std::string("FMA throughput, ") + fmaTypeInfo(r.type).label,
                        {{"GFLOP/s", r.gflops, "GFLOP/s", true}}});
    if (sum_)
      for (const SumMethodInfo& m : sumMethods()) {
        const size_t k = static_cast<size_t>(m.method);
        rows.push_back({std::string("sum ") + m.id,
                        std::string("sum of ") + thousands(static_cast<long long>(sum_->at.n)) +
                            ": " + m.label,
                        {{"|error|", std::fabs(sum_->at.error[k]), "", false}}});
      }
    return rows;
  }

  LessonResults results() const override {
    // One table: every row names its section and leaves the columns of the others empty.
    nlohmann::json j;
    std::string csv =
        "section,expression,formula,precision,x,x_stored,n,method,type,value,exact,error,rel_error,"
        "ulp_error,peak,source\n";
    auto num = [](double v) { return std::isnan(v) ? std::string() : sci(v, 17); };
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
    LessonResults out;
    out.json = std::move(j);
    out.csv = std::move(csv);
    return out;
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
  char explorerText_[64] = "0.1";
  Status error_;
  std::vector<std::string> queue_;

  std::optional<SweepReport> sweep_, point_;
  double requestedX_ = NAN;
  std::optional<SumReport> sum_;
  std::optional<std::vector<FmaRate>> fma_;

  bool ptxLoaded_ = false;
  PtxKernel ptxFloat_, ptxDouble_;
  std::array<PtxKernel, kPrecisionCount> ptxEval_;

  AsyncJob<SweepReport> sweepJob_, pointJob_;
  AsyncJob<SumReport> sumJob_;
  AsyncJob<std::vector<FmaRate>> fmaJob_;
};

}  // namespace

std::unique_ptr<Lesson> makePrecisionLesson() {
  return std::make_unique<PrecisionLesson>();
}

}  // namespace cudalab
