#include "common/measurement_export.hpp"

#include <cstdio>
#include <fstream>

#include "common/translatable.hpp"

namespace cudalab {
namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

const char* kPhaseKeys[] = {"h2d", "kernel", "d2h"};

}  // namespace

std::string toCsv(const std::vector<MeasuredRow>& rows) {
  // Built with append(): GCC 12 warns falsely (-Wrestrict) on chains of operator+ here.
  std::string out = "label";
  if (!rows.empty())
    for (const auto& [k, v] : rows.front().params)
      out.append(",").append(csvField(k));
  for (const char* p : kPhaseKeys) {
    for (const char* stat : {"_median_ms", "_min_ms", "_max_ms"})
      out.append(",").append(p).append(stat);
  }
  out.append(
      ",total_median_ms,kernel_gbps,kernel_gflops,checked,wrong,max_abs_error,max_rel_error,"
      "runs\n");
  for (const MeasuredRow& r : rows) {
    out.append(csvField(r.label));
    for (const auto& [k, v] : r.params)
      out.append(",").append(num(v));
    for (const PhaseStats& p : r.m.phases) {
      for (double v : {p.medianMs, p.minMs, p.maxMs})
        out.append(",").append(num(v));
    }
    for (double v : {r.m.totalMedianMs(), r.m.kernelGBps(), r.m.kernelGFlops()})
      out.append(",").append(num(v));
    out.append(",").append(std::to_string(r.m.check.checked));
    out.append(",").append(std::to_string(r.m.check.wrong));
    out.append(",").append(num(r.m.check.maxAbsError));
    out.append(",").append(num(r.m.check.maxRelError));
    out.append(",").append(std::to_string(r.m.runs)).append("\n");
  }
  return out;
}

nlohmann::json toJson(const std::vector<MeasuredRow>& rows) {
  nlohmann::json all = nlohmann::json::array();
  for (const MeasuredRow& r : rows) {
    nlohmann::json j;
    j["label"] = r.label;
    for (const auto& [k, v] : r.params)
      j["params"][k] = v;
    for (int p = 0; p < 3; ++p) {
      const PhaseStats& s = r.m.phases[p];
      j["phases"][kPhaseKeys[p]] = {{"median_ms", s.medianMs},
                                    {"min_ms", s.minMs},
                                    {"max_ms", s.maxMs},
                                    {"samples_ms", s.samplesMs}};
    }
    j["kernel_bytes"] = r.m.kernelBytes;
    j["kernel_flops"] = r.m.kernelFlops;
    j["kernel_gbps"] = r.m.kernelGBps();
    j["warmup"] = r.m.warmup;
    j["runs"] = r.m.runs;
    j["check"] = {{"ran", r.m.check.ran},
                  {"checked", r.m.check.checked},
                  {"wrong", r.m.check.wrong},
                  {"max_abs_error", r.m.check.maxAbsError},
                  {"max_rel_error", r.m.check.maxRelError}};
    all.push_back(j);
  }
  return all;
}

Status writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) return Status::errorf(N_("Could not open %s for writing."), {path});
  out << text;
  if (!out) return Status::errorf(N_("Could not write %s."), {path});
  return {};
}

}  // namespace cudalab
