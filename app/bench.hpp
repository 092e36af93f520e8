// `cudalab bench ID`: the benchmarks behind the performance targets of the lessons, run on a GPU
// machine through the app's own code, printed as Markdown tables (for docs/BENCHMARKS.md) and
// written as JSON next to them.
//
// Each lesson's benchmarks live beside its panel (app/lessons/<lesson>_bench.cpp) and are
// registered by the lesson's one line in lessons/registry.cpp; benchRegistry() lists them all in
// lesson order.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "common/runtime_info.hpp"
#include "common/status.hpp"

namespace cudalab {

// How a benchmark is asked to run. `quick` (`cudalab bench ID --quick`) runs the same kernels at
// small sizes and few repetitions, so that tools/sanitize.sh can put every benchmark under
// compute-sanitizer (racecheck slows a kernel a hundredfold and more); its figures are not
// performance figures.
struct BenchOptions {
  std::string outDir = ".";
  bool quick = false;
};

struct BenchEntry {
  const char* id;
  const char* what;
  int (*run)(const BenchOptions& opt);
};

std::span<const BenchEntry> benchRegistry();
int runBench(const std::string& id, const BenchOptions& opt);

// ---------------------------------------------------------------------------------------------
// Helpers for the benchmark files: dates, statistics of host-clock times, exits, output files.
// ---------------------------------------------------------------------------------------------

std::string today();  // "2026-11-24"
// The runner's statistics (summarize), for times measured on the host clock.
double median(std::vector<double> v);
double percentile(std::vector<double> v, double p);
// Print why, return the exit code 1.
int noGpu(const RuntimeInfo& rt);
int fail(const Status& s);
// Writes outDir/bench-ID.md and .json and prints the Markdown.
Status writeOutputs(const std::string& outDir, const std::string& id, const std::string& md,
                    const nlohmann::json& j);

// printf into a string, for any argument types.
template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

}  // namespace cudalab
