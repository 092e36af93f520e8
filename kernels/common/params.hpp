// Lesson parameters: one table per lesson says what can be changed, in which range, and why.
//
// A lesson's header declares its parameters as a constexpr array of ParamSpec; the lesson's panel
// builds its controls from that table (label, range, unit, log slider, tooltip) and the registry
// test checks every table's ranges and defaults. Values are validated by pure functions, so a
// refusal (with a sentence that teaches) is testable on any machine.
//
//   inline constexpr ParamSpec kCopyMiB{.id = "copy_mib",
//                                       .label = "Copy size",
//                                       .min = 1,
//                                       .max = 4096,
//                                       .defaultValue = 256,
//                                       .unit = "MiB",
//                                       .help = "..."};
//   if (Status s = checkRange(kCopyMiB, v); !s) show(s.sentence());
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "common/format.hpp"
#include "common/status.hpp"
#include "common/translatable.hpp"

namespace cudalab {

struct ParamSpec {
  const char* id;     // stable name for the command line, presets and saved settings
  const char* label;  // what the UI shows
  double min;
  double max;
  double defaultValue;
  const char* unit = "";  // "" when unitless
  const char* help;       // a tooltip written for a learner
  bool integer = true;
  bool logScale = false;  // slider and sweeps move in powers rather than steps
};

inline std::string formatParamValue(const ParamSpec& p, double v) {
  char buf[64];
  // Whole numbers in full while they fit a line, grouped by three from 10,000 (16,777,216 is read
  // at a glance; 4096 and 1024 stay as CUDA's documentation writes them); past that (a typed
  // 1e300) in scientific form, with enough digits to show why 4294967296.5 is not whole.
  if (p.integer && std::floor(v) == v && std::fabs(v) >= 1e4 && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%s", thousands(static_cast<long long>(v)).c_str());
  else if (p.integer && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, std::floor(v) == v ? "%.0f" : "%.1f", v);
  else
    std::snprintf(buf, sizeof buf, "%.10g", v);
  std::string s = buf;
  if (p.unit && *p.unit) s += std::string(" ") + p.unit;
  return s;
}

// Refuses a value outside [min, max] (or not a whole number for integer parameters).
inline Status checkRange(const ParamSpec& p, double v) {
  if (!std::isfinite(v) || v < p.min || v > p.max) {
    return Status::errorf(
        N_("%s must be between %s and %s; %s is outside that range."),
        {p.label, formatParamValue(p, p.min), formatParamValue(p, p.max), formatParamValue(p, v)});
  }
  if (p.integer && std::floor(v) != v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return Status::errorf(N_("%s must be a whole number; %s is not."), {p.label, buf});
  }
  return {};
}

// Refuses a measurement without a timed run, with negative warm-up runs, or with more than 1000
// timed runs (a typing slip that would hold the GPU for minutes).
inline Status checkRuns(int warmup, int runs) {
  if (warmup < 0 || runs < 1 || runs > 1000)
    return Status::error(N_("Runs must be between 1 and 1000 and warm-up runs at least 0."));
  return {};
}

}  // namespace cudalab
