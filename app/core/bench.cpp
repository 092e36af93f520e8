// The benchmark registry (every lesson's benchmarks, from the lesson registry) and the helpers
// the benchmark files share.
#include "core/bench.hpp"

#include <algorithm>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/measurement.hpp"

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

nlohmann::json measuredRow(const char* key, const Measurement& m, const Correctness& e) {
  return {{"step", key},
          {"median_ms", m.kernel().medianMs},
          {"runs", m.runs},
          {"max_abs_error", e.maxAbsError},
          {"max_rel_error", e.maxRelError},
          {"checked", e.checked},
          {"correct", e.ok()}};
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

BenchDoc startBench(const BenchOptions& opt, const std::string& title) {
  BenchDoc d{opt.rt, {}, {}};
  d.md = "### " + title + ", " + today() + ", " + d.rt.firstDeviceName + "\n";
  d.j = {{"date", today()}, {"device", d.rt.firstDeviceName}};
  return d;
}

int BenchDoc::write(const BenchOptions& opt, const std::string& id) const {
  return writeOutputs(opt.outDir, id, md, j) ? 0 : 1;
}

const LessonEntry* findLesson(std::span<const LessonEntry> lessons, std::string_view id) {
  for (const LessonEntry& e : lessons)
    if (id == e.info->id) return &e;
  return nullptr;
}

}  // namespace cudalab
