#include "lessons/precision/precision_values_panel.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/format.hpp"
#include "models/floats.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace precision;

std::string precisionSci(double v, int digits) {
  char b[48];
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

namespace {

// A value with as many digits as its format needs to be read back exactly.
std::string fullValue(floats::Format f, double v) {
  const int digits = f == floats::Format::Float64 ? 17 : f == floats::Format::Float32 ? 9 : 5;
  return precisionSci(v, digits);
}

std::string ulpText(double u) {
  if (std::isnan(u)) return "";
  if (std::isinf(u)) return "inf";
  if (u >= 1e6) return precisionSci(u, 3);
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

// "normal, 2^-4"; zero, infinity and NaN without a power (it means nothing there). Translated
// here, whole: floats::kindName is the English name the tests and exports use.
std::string kindText(floats::Format f, uint64_t bits) {
  const floats::Fields fs = floats::fields(f, bits);
  switch (fs.kind) {
    case floats::Kind::Normal:
      return trf("normal, 2^%d", fs.power);
    case floats::Kind::Subnormal:
      return trf("subnormal, 2^%d", fs.power);
    case floats::Kind::Zero:
      return tr("zero");
    case floats::Kind::Infinite:
      return tr("infinity");
    case floats::Kind::NaN:
      break;
  }
  return floats::kindName(fs.kind);
}

}  // namespace

// [SECTION] values

void drawPrecisionValues(LessonContext& ctx, Expr expr, const Evaluation* atX, double x) {
  const ExprInfo& e = exprInfo(expr);
  // The x the shown values were computed for (the slider may already be ahead of it).
  const double px = atX ? atX->xs[0] : x;
  const std::string title = trf("At x = %s: values, errors and bits", precisionSci(px, 6).c_str());
  if (beginPanel(ctx, "values", title.c_str())) {
    if (!atX) {
      ImGui::TextUnformatted(tr("Evaluating..."));
    } else {
      const Evaluation& ev = *atX;
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
          ImGui::TextUnformatted(tr(p.label));
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
              precisionSci(static_cast<double>(ev.exactAt(p.precision, e.expr, 0)), 10).c_str());
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
          ImGui::TextUnformatted(tr(p.label));
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

// [SECTION] explorer

void PrecisionExplorerPanel::draw(LessonContext& ctx) {
  if (beginPanel(ctx, "explorer", "Float explorer: one number in four formats")) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    ImGui::InputText((std::string(tr("Number")) + "###number").c_str(), text_, sizeof text_);
    helpTooltip(
        "Type any number (0.1, 1e-8, 65504, 3.14159, 16777217...): each format rounds it "
        "to its nearest value.");
    for (const char* s : {"0.1", "1e-8", "65504", "16777217"}) {
      sameLineIfFits(ImGui::CalcTextSize(s).x + 2 * ImGui::GetStyle().FramePadding.x);
      if (smallButton(s)) std::snprintf(text_, sizeof text_, "%s", s);
    }
    char* end = nullptr;
    const long double v = std::strtold(text_, &end);
    if (end == text_ || (end && *end != '\0' && *end != ' ')) {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
      textWrapped(tr("\"%s\" is not a number. Write it like 0.1, -3.5 or 1e-8."), text_);
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
          helpTooltip(trf("1 sign, %d exponent and %d mantissa bits; about %s decimal digits; "
                          "largest %s.",
                          fi.exponentBits, fi.mantissaBits,
                          trimmedFixed(fi.decimalDigits, 1).c_str(),
                          precisionSci(fi.maxFinite, 5).c_str())
                          .c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(fullValue(fi.format, nb.value).c_str());
          if (nb.overflow) ImGui::TextUnformatted(tr("overflow: too large"));
          if (nb.underflow)
            ImGui::TextUnformatted(nb.value == 0 ? tr("underflow: too small, 0")
                                                 : tr("subnormal: fewer digits"));
          const bool finite = std::isfinite(nb.value);
          ImGui::TableNextColumn();
          if (finite) {
            ImGui::Text("%s", fullValue(fi.format, nb.below).c_str());
            ImGui::Text("%s", fullValue(fi.format, nb.above).c_str());
          }
          ImGui::TableNextColumn();
          if (finite) {
            ImGui::Text(tr("%s below"), precisionSci(nb.gapBelow, 4).c_str());
            ImGui::Text(tr("%s above"), precisionSci(nb.gapAbove, 4).c_str());
          }
          ImGui::TableNextColumn();
          if (!finite && !std::isfinite(static_cast<double>(v)))
            ImGui::TextUnformatted("");
          else if (nb.exact)
            ImGui::TextUnformatted(tr("exact"));
          else
            ImGui::Text(tr("%s (%s relative)"),
                        precisionSci(static_cast<double>(nb.roundingError), 3).c_str(),
                        precisionSci(nb.relativeError, 2).c_str());
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

}  // namespace cudalab
