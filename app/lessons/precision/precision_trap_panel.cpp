#include "lessons/precision/precision_trap_panel.hpp"

#include <imgui.h>

#include <string>

#include "lessons/precision/precision_values_panel.hpp"
#include "models/floats.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace precision;

namespace {

// Where the trap at x was computed, as a whole sentence for each place.
std::string computedWhere(bool gpu, const std::string& device) {
  return gpu ? trf("Computed on the GPU (%s).", device.c_str())
             : std::string(tr("Computed on the CPU (no GPU)."));
}

// Instructions of the fast-math approximations (.approx) in a kernel's own body.
int approxCount(const PtxKernel& k) {
  int n = 0;
  for (const auto& [op, c] : k.opcodes)
    if (op.find(".approx") != std::string::npos) n += c;
  return n;
}

}  // namespace

// [SECTION] trap

void PrecisionTrapPanel::draw(LessonContext& ctx, const PrecisionSweepReport* sweep,
                              const PrecisionSweepReport* atX, bool gpu,
                              const std::string& device) {
  if (beginPanel(ctx, "trap", "The literal trap: 1.0 is a double")) {
    textWrapped(
        "In C++ and CUDA a literal 1.0 is a float64. With a float32 x, (x + 1.0) - 1.0 converts "
        "x to float64, computes there and rounds only the result: the cancellation disappears "
        "and the float32 code seems to keep 16 digits. Numba types literals the same way. "
        "With 1.0f it stays in float32.");
    if (atX) {
      const TrapResult& t = atX->trap;
      if (!t.floatLiteral.empty()) {
        ImGui::PushFont(ctx.theme.fonts().mono);
        const double px = atX->ev.xs[0];
        ImGui::Text(tr("x = %s (as float32: %s)"), precisionSci(px, 6).c_str(),
                    precisionSci(static_cast<float>(px), 9).c_str());
        ImGui::Text("(x + 1.0f) - 1.0f = %s", precisionSci(t.floatLiteral[0], 9).c_str());
        ImGui::Text("(x + 1.0)  - 1.0  = %s", precisionSci(t.doubleLiteral[0], 9).c_str());
        ImGui::PopFont();
        mutedText(ctx.theme, computedWhere(gpu, device).c_str());
      }
    }
    if (sweep && !sweep->trap.xs.empty()) {
      const TrapResult& t = sweep->trap;
      const size_t n = t.xs.size();
      if (plot::BeginPlot("precision_trap", "##trap", ImVec2(-1, 0))) {
        plot::SetupAxes(
            {"x", plot::Scale::Log10, kSweepMin, kSweepMax},
            {N_("Relative error"), plot::Scale::Log10, kPrecisionErrFloor, kPrecisionErrCeil});
        plot::SetupLegend(plot::Legend::Outside);
        plot::SetNextColour(0);
        plot::PlotLine("1.0f (float32)", t.xs.data(), sweep->trapErrFloat.data(),
                       static_cast<int>(n));
        plot::SetNextColour(2);
        plot::PlotLine("1.0 (float64 inside)", t.xs.data(), sweep->trapErrDouble.data(),
                       static_cast<int>(n));
        plot::PlotHLine("float32 eps", floats::formatInfo(floats::Format::Float32).epsilon);
        plot::EndPlot();
      }
    }
    drawPtxEvidence(ctx);
  }
  endPanel(ctx);
}

// [SECTION] PTX evidence

void PrecisionTrapPanel::drawPtxEvidence(LessonContext& ctx) {
  if (!ptxLoaded_) {
    ptxFloat_ = ptxKernel(kTrapFloatKernel);
    ptxDouble_ = ptxKernel(kTrapDoubleKernel);
    for (const PrecisionInfo& p : precisions())
      ptxEval_[static_cast<size_t>(p.precision)] = ptxKernel(evalKernelName(p.precision));
    ptxLoaded_ = true;
  }
  ImGui::Spacing();
  textWrapped("Evidence: the PTX nvcc generated for these kernels (%s, embedded at build time)",
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
  // The node's id stays the same in every language (it keeps the node open).
  if (!ctx.exporting &&
      ImGui::TreeNode((std::string(tr("PTX of the two kernels")) + "###ptx_trap").c_str())) {
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
      ImGui::TextUnformatted(tr(p.label));
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
            trf("The default kernel has %d more fused multiply-adds than the "
                "__fmul_rn/__fadd_rn kernel: nvcc fused the formulas' a*b + c, which the source "
                "never asked for. The FMAs both kernels share come from cosf, expf and logf, "
                "which use them on purpose. Fast math swaps those functions for hardware "
                "approximations (.approx). Counts are of each kernel's own body; functions it "
                "calls are not included.",
                fused)
                .c_str());
}

}  // namespace cudalab
