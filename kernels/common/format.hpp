// Numbers as learners read them, shared by formulas, tables, plots and panels.
//
//   trimmedFixed(1593.50, 2) == "1593.5"   trimmedFixed(48.0, 1) == "48"   never "-0"
//   thousands(30000000) == "30,000,000"
//   mib(3.0 * 1024 * 1024 * 1024) == "3,072 MiB"
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace cudalab {

// At most `decimals` decimals, trailing zeros dropped, so formulas read like hand arithmetic.
inline std::string trimmedFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0')
      s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

// Digits grouped by three (built forwards: GCC 12 warns falsely about insert() here).
inline std::string thousands(long long v) {
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out = v < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// An error or a tiny quantity in two significant digits: "1.2e-03", "0" for 0, "inf" when not
// finite (an error bound that says nothing).
inline std::string sciText(double v) {
  if (!std::isfinite(v)) return "inf";
  if (v == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

// Bytes in whole mebibytes, rounded to nearest, digits grouped: the unit of every memory check.
inline std::string mib(double bytes) {
  return thousands(static_cast<long long>(bytes / (1024.0 * 1024.0) + 0.5)) + " MiB";
}

}  // namespace cudalab
