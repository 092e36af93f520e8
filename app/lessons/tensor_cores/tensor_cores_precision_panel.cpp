#include "lessons/tensor_cores/tensor_cores_precision_panel.hpp"

#include <imgui.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "models/floats.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace tensor_cores;

namespace {

constexpr int kSamples = 32;
constexpr std::uint64_t kSeed = 20261128;

// The point at K in a curve, or nullptr.
const MixedPoint* pointAt(const MixedCurve& c, int K) {
  for (const MixedPoint& p : c.points)
    if (p.K == K) return &p;
  return nullptr;
}

}  // namespace

void TensorCoresPrecisionPanel::start() {
  if (started_) return;
  started_ = true;
  curves_.start(
      [](AsyncJob<std::vector<MixedCurve>>::Control& c) -> Result<std::vector<MixedCurve>> {
        c.progress(0.1f, N_("emulating the formats on the CPU"));
        return productErrors(defaultPrecisionKs(), kSamples, kSeed);
      });
}

void TensorCoresPrecisionPanel::draw(LessonContext& ctx) {
  if (!beginPanel(ctx, "precision", "Precision: what each format costs a dot product"))
    return endPanel(ctx);
  (void)curves_.collect();
  textWrapped(
      "The tensor cores round A and B to a narrow format, multiply exactly and add in float32. "
      "How far is the result from the exact dot product? Each line is the median of %d dot "
      "products of two random vectors of K numbers in [-1, 1], computed on the CPU with each "
      "format emulated bit for bit; the error is measured against the sum of |a_i b_i|, as "
      "rounding bounds are. Beside them: float32 with fused multiply-adds, as SGEMM computes on "
      "the CUDA cores, and FP16 inputs with the sums kept in FP16 too, which the tensor cores "
      "avoid.",
      kSamples);
  if (!curves_) {
    textWrapped("%s", tr("Computing..."));
    return endPanel(ctx);
  }
  const std::vector<MixedCurve>& curves = *curves_;
  if (plot::BeginPlot("tensor_precision", "Error of a dot product against its length K",
                      ImVec2(-1, 0))) {
    plot::SetupAxes({"K", plot::Scale::Log10, NAN, NAN, "%.0f"},
                    {N_("|error| / sum |a b|"), plot::Scale::Log10});
    plot::SetupLegend(plot::Legend::Outside);
    for (const MixedCurve& c : curves) {
      std::vector<double> xs, ys;
      for (const MixedPoint& p : c.points) {
        xs.push_back(p.K);
        ys.push_back(std::max(p.median, 1e-12));  // a log axis has no 0
      }
      plot::SetNextColour(mixedInfo(c.id).colour);
      plot::PlotLine(mixedInfo(c.id).key, xs.data(), ys.data(), int(xs.size()));
    }
    plot::EndPlot();
  }
  // The format, its mantissa, its unit roundoff and the errors at two lengths: the numbers the
  // conclusion below rests on stay; the unit roundoff gives way first on a projector.
  static const TableColumn kColumns[] = {
      {"inputs and sums"},
      {"mantissa bits", "bits", 2, "Stored fraction bits of the inputs' format."},
      {"unit roundoff", "u", 1,
       "Half the gap between 1 and the next number of the inputs' format: the largest relative "
       "error of rounding one input."},
      {"median error at K = 1,024", "K = 1,024", 0, nullptr, true},
      {"median error at K = 16,384", "K = 16,384", 0, nullptr, true},
  };
  if (beginDataTable("##precision", kColumns, static_cast<int>(curves.size()))) {
    for (const MixedCurve& c : curves) {
      const MixedInfo& m = mixedInfo(c.id);
      const floats::FormatInfo& f = floats::formatInfo(static_cast<floats::Format>(m.inputFormat));
      swatchRow(m.colour);
      ImGui::TextUnformatted(tr(m.label));
      helpTooltip(m.help);  // marked N_() in the table
      ImGui::TableNextColumn();
      ImGui::Text("%d", f.mantissaBits);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(sciText(f.epsilon / 2).c_str());
      for (int K : {1024, 16384}) {
        ImGui::TableNextColumn();
        if (const MixedPoint* p = pointAt(c, K)) ImGui::TextUnformatted(sciText(p->median).c_str());
      }
    }
    endDataTable();
  }
  mutedText(ctx.theme,
            tr("Rounding the inputs costs at most about twice the format's unit roundoff per "
               "product (both factors are rounded), and relative to the sum of |a_i b_i| it "
               "shrinks as K grows: the roundings are "
               "independent and partly cancel. Sums kept in float32 add almost nothing. Sums kept "
               "in FP16 lose digits at every addition, and that loss does not shrink with K: at "
               "K = 16,384 it is some 50 times the rounding of the same FP16 inputs. TF32 and FP16 "
               "keep the same 10 mantissa bits, so on numbers within FP16's range their lines "
               "coincide. So BF16 and FP16 with float32 sums are safe where 2 to 3 digits of the "
               "inputs are enough (training, most inference); FP8 needs a scale per matrix and "
               "work that tolerates 1 digit; a solver that needs 7 digits stays in float32."));
  endPanel(ctx);
}

}  // namespace cudalab
