// The benchmark runner: every lesson's benchmarks, and `bench counters`.
#include "commands/bench.hpp"

#include <cstdlib>

#include "core/bench.hpp"
#include "counters/counters.hpp"

namespace cudalab {

namespace {

std::vector<BenchEntry> lessonBenches(std::span<const LessonEntry> lessons) {
  std::vector<BenchEntry> v;
  for (const LessonEntry& e : lessons)
    for (const BenchEntry& b : e.benches)
      v.push_back(b);
  return v;
}

// `cudalab bench counters`: every lesson's counters-* benchmark in one run, with the raw counters
// of every kernel profiled, in launch order, in bench-counters.json for
// tools/ncu_counters_check.py. With CUDALAB_COUNTERS_MARK_ONLY=1 (set by that tool, under Nsight
// Compute) nothing is read: the same kernels only run, marked by an NVTX range.
int benchAllCounters(const BenchOptions& opt) {
  const RuntimeInfo& rt = opt.rt;
  const char* mark = std::getenv("CUDALAB_COUNTERS_MARK_ONLY");
  const bool markOnly = mark && std::string(mark) == "1";
  counters::setMarkOnly(markOnly);
  counters::setJournal(!markOnly);
  std::string md = "### The GPU's counters in the app, " + today() + ", " + rt.firstDeviceName +
                   "\n\n| benchmark | result |\n| --- | --- |\n";
  int code = 0;
  for (const BenchEntry& b : lessonBenches(opt.lessons)) {
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

std::vector<BenchEntry> benchRegistry(std::span<const LessonEntry> lessons) {
  std::vector<BenchEntry> v = lessonBenches(lessons);
  v.push_back({"counters", &benchAllCounters});
  return v;
}

int runBench(const std::string& id, const BenchOptions& opt) {
  for (const BenchEntry& b : benchRegistry(opt.lessons)) {
    if (id != b.id) continue;
    BenchOptions withGpu = opt;
    withGpu.rt = queryRuntime();
    if (!withGpu.rt.hasDevice()) return noGpu(withGpu.rt);
    return b.run(withGpu);
  }
  return 2;
}

}  // namespace cudalab
