// cudalab's plots: numbers (formatting, nice ticks on linear and log axes) and colormaps.
#include <imgui_internal.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>
#include <utility>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot_internal.hpp"
#include "ui/theme.hpp"

namespace cudalab::plot {

//-------------------------------------------------------------------------------------------------
// [SECTION] Numbers: formatting and ticks
//-------------------------------------------------------------------------------------------------

static double pow10i(int e) {
  return std::pow(10.0, e);
}

static int floorLog10(double a) {
  return static_cast<int>(std::floor(std::log10(a) + 1e-12));
}

static bool nearInteger(double q) {
  return std::fabs(q - std::round(q)) <= 1e-6 * std::max(1.0, std::fabs(q));
}

// Digits after the point that tell multiples of `step` apart (0.25 -> 2, 200 -> 0).
static int decimalsFor(double step) {
  step = std::fabs(step);
  for (int d = 0; d < 17; ++d) {
    const double q = step * pow10i(d);
    if (q >= 0.999999 && nearInteger(q)) return d;
  }
  return 17;
}

// Digits after the point that give `x` `n` significant digits.
static int sigDecimals(double x, int n) {
  if (x == 0 || !std::isfinite(x)) return 0;
  return std::max(0, n - 1 - floorLog10(std::fabs(x)));
}

static double roundSig(double v, int n) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double p = pow10i(n - 1 - floorLog10(std::fabs(v)));
  return std::isfinite(p) ? std::round(v * p) / p : v;
}

static std::string nonFinite(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "inf" : "-inf";
}

// 0.25, 1k, 10M, 2.5G, 1e-6.
static std::string formatCompact(double v, double step) {
  if (!std::isfinite(v)) return nonFinite(v);
  if (step <= 0) v = roundSig(v, 4);
  const double a = std::fabs(v);
  if (a == 0 || (step > 0 && a < step * 1e-6)) return "0";
  if (a < 1e-3 || a >= 1e18) {
    int e = floorLog10(a);
    double m = v / pow10i(e);
    if (std::fabs(m) >= 10.0 - 1e-9) {
      m /= 10;
      ++e;
    }
    const int d = step > 0 ? std::min(decimalsFor(step / pow10i(e)), 6) : sigDecimals(m, 4);
    return trimmedFixed(m, d) + "e" + std::to_string(e);
  }
  static const struct {
    double scale;
    const char* suffix;
  } kSuffixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
  for (const auto& s : kSuffixes) {
    if (a >= s.scale * (1 - 1e-12)) {
      const double x = v / s.scale;
      return trimmedFixed(x, step > 0 ? decimalsFor(step / s.scale) : sigDecimals(x, 4)) + s.suffix;
    }
  }
  return trimmedFixed(v, step > 0 ? decimalsFor(step) : sigDecimals(v, 4));
}

// 20 µs, 1.5 TB/s.
static std::string formatSI(double v, double step, const char* unit) {
  if (!std::isfinite(v)) return nonFinite(v) + " " + unit;
  if (step <= 0) v = roundSig(v, 4);
  const double a = std::fabs(v);
  if (a == 0 || (step > 0 && a < step * 1e-6)) return std::string("0 ") + unit;
  static const char* const kPrefixes[] = {"f", "p", "n", "\xC2\xB5", "m", "",
                                          "k", "M", "G", "T",        "P"};
  const int e3 = std::clamp(static_cast<int>(std::floor(std::log10(a) / 3 + 1e-9)), -5, 5);
  const double scale = pow10i(3 * e3);
  const double x = v / scale;
  const int d = step > 0 ? decimalsFor(step / scale) : sigDecimals(x, 4);
  return trimmedFixed(x, d) + " " + kPrefixes[e3 + 5] + unit;
}

static double niceStep(double raw) {
  const double mag = pow10i(floorLog10(raw));
  const double n = raw / mag;
  const double m = n <= 1.000001 ? 1 : n <= 2.000001 ? 2 : n <= 5.000001 ? 5 : 10;
  return m * mag;
}

static std::vector<Tick> linearTicks(double lo, double hi, int target, const char* format) {
  std::vector<Tick> out;
  const double step = niceStep((hi - lo) / std::max(1, target));
  if (!(step > 0) || !std::isfinite(step)) return out;
  const double i0 = std::ceil(lo / step - 1e-9), i1 = std::floor(hi / step + 1e-9);
  if (i1 - i0 > 10000) return out;
  // Minor ticks split 1 and 5 steps in five, 2 steps in four.
  const int sub = nearInteger(step / pow10i(floorLog10(step)) / 2) ? 4 : 5;
  const double minor = step / sub;
  const double tol = step * 1e-9;
  for (double i = i0 - 1; i <= i1; ++i) {
    for (int j = 0; j < sub; ++j) {
      double v = j == 0 ? i * step : i * step + j * minor;
      if (v < lo - tol || v > hi + tol) continue;
      if (std::fabs(v) < tol) v = 0;
      if (j == 0)
        out.push_back({v, formatValue(v, format, step), true});
      else
        out.push_back({v, "", false});
    }
  }
  return out;
}

static std::vector<Tick> logTicks(double lo, double hi, int target, const char* format) {
  std::vector<Tick> out;
  if (!(hi > 0)) return out;
  if (lo <= 0) lo = hi / 10;
  const double l0 = std::log10(lo), l1 = std::log10(hi);
  if (l1 - l0 < 1e-12) return {{lo, formatValue(lo, format, 0), true}};
  const int d0 = static_cast<int>(std::ceil(l0 - 1e-9));
  const int d1 = static_cast<int>(std::floor(l1 + 1e-9));
  const int decades = d1 - d0 + 1;  // decade ticks inside the range
  const bool few = l1 - l0 <= 2.5;
  auto inside = [&](double v) { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); };

  if (decades < 2) {
    // At most one decade inside: 1, 2 and 5 carry labels; else fall back to linear steps.
    int labelled = 0;
    for (int d = d0 - 1; d <= d1; ++d) {
      for (int m = 1; m <= 9; ++m) {
        const double v = m * pow10i(d);
        if (!inside(v)) continue;
        const bool label = m == 1 || m == 2 || m == 5;
        labelled += label;
        out.push_back({v, label ? formatValue(v, format, pow10i(d)) : "", m == 1});
      }
    }
    if (labelled >= 2) return out;
    return linearTicks(lo, hi, target, format);
  }

  // Decades are short labels, so allow half as many again as the target.
  const int limit = std::max(2, target) + std::max(2, target) / 2;
  int stride = 1;
  for (const int s : {1, 2, 3, 5, 10, 20, 50, 100}) {
    stride = s;
    if ((decades + s - 1) / s <= limit) break;
  }
  for (int d = d0 - 1; d <= d1; ++d) {
    const double dec = pow10i(d);
    if (inside(dec)) {
      const bool major = ((d % stride) + stride) % stride == 0;
      out.push_back({dec, major ? formatValue(dec, format, dec) : "", major});
    }
    if (stride != 1 || decades > 12) continue;
    for (int m = 2; m <= 9; ++m) {
      const double v = m * dec;
      if (!inside(v)) continue;
      const bool label = few && (m == 2 || m == 5);
      out.push_back({v, label ? formatValue(v, format, dec) : "", false});
    }
  }
  return out;
}

std::string formatValue(double v, const char* format, double step) {
  if (!format || !*format) return formatCompact(v, step);
  if (std::strchr(format, '%')) {
    char buf[128];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
  }
  return formatSI(v, step, format);
}

std::vector<Tick> computeTicks(double min, double max, Scale scale, int targetCount,
                               const char* format) {
  if (!std::isfinite(min) || !std::isfinite(max)) return {};
  if (min > max) std::swap(min, max);
  if (scale == Scale::Log10) return logTicks(min, max, targetCount, format);
  if (max - min <= 1e-14 * std::max(std::fabs(min), std::fabs(max)))
    return {{min, formatValue(min, format, 0), true}};
  return linearTicks(min, max, targetCount, format);
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Colours: colormaps
//-------------------------------------------------------------------------------------------------

ImU32 colormapColour(Colormap cmap, double t) {
  // viridis at i/9 (matplotlib's table, as R's viridis(10) gives it).
  static const unsigned char kViridis[][3] = {
      {68, 1, 84},    {72, 40, 120},  {62, 74, 137},  {49, 104, 142}, {38, 130, 142},
      {31, 158, 137}, {53, 183, 121}, {109, 205, 89}, {180, 222, 44}, {253, 231, 37}};
  // ColorBrewer RdBu (11 classes), blue for low values.
  static const unsigned char kDiverging[][3] = {{5, 48, 97},     {33, 102, 172},  {67, 147, 195},
                                                {146, 197, 222}, {209, 229, 240}, {247, 247, 247},
                                                {253, 219, 199}, {244, 165, 130}, {214, 96, 77},
                                                {178, 24, 43},   {103, 0, 31}};
  const bool viridis = cmap == Colormap::Viridis;
  const auto* table = viridis ? kViridis : kDiverging;
  const int n = viridis ? 10 : 11;
  if (!std::isfinite(t)) t = 0;
  const double u = std::clamp(t, 0.0, 1.0) * (n - 1);
  const int i = std::min(static_cast<int>(u), n - 2);
  const double w = u - i;
  auto mix = [&](int c) {
    return static_cast<int>(std::lround(table[i][c] * (1 - w) + table[i + 1][c] * w));
  };
  return IM_COL32(mix(0), mix(1), mix(2), 255);
}

}  // namespace cudalab::plot
