// The benchmark registry (every lesson's benchmarks, from the lesson registry) and the helpers
// the benchmark files share.
#include "bench.hpp"

#include <algorithm>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/measurement.hpp"
#include "counters/counters.hpp"
#include "lessons/registry.hpp"

namespace cudalab {

std::string today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char b[16];
  std::strftime(b, sizeof b, "%Y-%m-%d", &tm);
  return b;
}

// The runner's statistics (summarize), for times measured on the host clock.
double median(std::vector<double> v) {
  PhaseStats stats;
  stats.samplesMs = std::move(v);
  summarize(stats);
  return stats.medianMs;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1,
                    static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

int noGpu(const RuntimeInfo& rt) {
  std::fprintf(stderr, "cudalab: benchmarks need a GPU. %s\n", rt.summary().c_str());
  return 1;
}

int fail(const Status& s) {
  std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
  return 1;
}

Status writeOutputs(const std::string& outDir, const std::string& id, const std::string& md,
                    const nlohmann::json& j) {
  // The table is printed first: a folder that cannot be written must not lose a measurement.
  std::printf("%s\n", md.c_str());
  const std::string base = outDir + "/bench-" + id;
  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  std::ofstream(base + ".md") << md;
  std::ofstream out(base + ".json");
  out << j.dump(2) << "\n";
  if (!out) {
    const Status s = Status::error("Could not write " + base + ".json" +
                                   (ec ? " (" + ec.message() + ")" : std::string()) + ".");
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    return s;
  }
  std::printf("(written to %s.md and %s.json)\n", base.c_str(), base.c_str());
  return {};
}

namespace {

std::vector<BenchEntry> lessonBenches() {
  std::vector<BenchEntry> v;
  for (const LessonEntry& e : lessonRegistry())
    if (e.benches)
      for (const BenchEntry& b : e.benches())
        v.push_back(b);
  return v;
}

// `cudalab bench counters`: every lesson's counters-* benchmark in one run, with the raw counters
// of every kernel profiled, in launch order, in bench-counters.json for
// tools/ncu_counters_check.py. With CUDALAB_COUNTERS_MARK_ONLY=1 (set by that tool, under Nsight
// Compute) nothing is read: the same kernels only run, marked by an NVTX range.
int benchAllCounters(const BenchOptions& opt) {
  const RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) return noGpu(rt);
  const char* mark = std::getenv("CUDALAB_COUNTERS_MARK_ONLY");
  const bool markOnly = mark && std::string(mark) == "1";
  counters::setMarkOnly(markOnly);
  counters::setJournal(!markOnly);
  std::string md = "### The GPU's counters in the app, " + today() + ", " + rt.firstDeviceName +
                   "\n\n| benchmark | result |\n| --- | --- |\n";
  int code = 0;
  for (const BenchEntry& b : lessonBenches()) {
    if (std::string(b.id).rfind("counters-", 0) != 0) continue;
    counters::journalLabel(b.id);
    const int r = b.run(opt);
    code |= r;
    md +=
        std::string("| ") + b.id + " | " + (r == 0 ? "agrees" : "**failed or disagrees**") + " |\n";
  }
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}, {"mark_only", markOnly}};
  j["profiled"] = nlohmann::json::array();
  for (const counters::JournalEntry& e : counters::takeJournal()) {
    nlohmann::json entry = {{"what", e.what}, {"launches", nlohmann::json::array()}};
    for (const auto& launch : e.launches) {
      nlohmann::json values = nlohmann::json::object();
      for (const auto& [name, v] : launch)
        values[name] = v;
      entry["launches"].push_back(values);
    }
    j["profiled"].push_back(entry);
  }
  counters::setJournal(false);
  counters::setMarkOnly(false);
  if (markOnly) return 0;  // the tables are empty: Nsight Compute read the counters
  return writeOutputs(opt.outDir, "counters", md, j) ? code : 1;
}

}  // namespace

std::span<const BenchEntry> benchRegistry() {
  static const std::vector<BenchEntry> all = [] {
    std::vector<BenchEntry> v = lessonBenches();
    v.push_back({"counters",
                 "every counters-* benchmark at once, the raw counters of every kernel profiled "
                 "in the JSON (for tools/ncu_counters_check.py)",
                 &benchAllCounters});
    return v;
  }();
  return all;
}

int runBench(const std::string& id, const BenchOptions& opt) {
  for (const BenchEntry& b : benchRegistry())
    if (id == b.id) return b.run(opt);
  return 2;
}

}  // namespace cudalab
