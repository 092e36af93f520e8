// What the benchmark files share. `cudalab bench ID` runs the benchmarks behind the performance
// targets of the lessons on a GPU machine through the app's own code, printed as Markdown tables
// (for docs/BENCHMARKS.md) and written as JSON next to them.
//
// Each lesson's benchmarks live beside its panels (app/lessons/<lesson>/<lesson>_bench.cpp) and
// are registered by the lesson's one line in lessons/registry.cpp (core/catalogue.hpp says what a
// BenchEntry is); the runner (commands/bench.hpp) lists them all in lesson order.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "common/measurement.hpp"
#include "common/runtime_info.hpp"
#include "common/status.hpp"
#include "core/catalogue.hpp"

namespace cudalab {

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
// One benchmark's output, begun: the Markdown under "### title, date, device" and the JSON with
// the date and the device; written (and printed) by write(), which returns the exit code.
//   BenchDoc doc = startBench(opt, "Atomics");
//   auto& [rt, md, j] = doc;
//   ...
//   return doc.write(opt, "atomics");
struct BenchDoc {
  RuntimeInfo rt;
  std::string md;
  nlohmann::json j;
  int write(const BenchOptions& opt, const std::string& id) const;
};
BenchDoc startBench(const BenchOptions& opt, const std::string& title);
// A ladder step's JSON row: its key, the kernel's median time and runs, and its check against the
// reference; the lesson adds its own rates ("gflops", "of_cublas", ...) to the object.
nlohmann::json measuredRow(const char* key, const Measurement& m, const Correctness& e);
// Writes outDir/bench-ID.md and .json and prints the Markdown.
Status writeOutputs(const std::string& outDir, const std::string& id, const std::string& md,
                    const nlohmann::json& j);

// A ladder's sweep as a Markdown table under "#### heading": a row per size (`sizeLabel(size)` in
// the first column, headed `sizeHeader`), a column per step (its key from `info(step)`), each
// cell `cell(point)` for the step's point at that size, marked "(WRONG)" where the check failed;
// and every point as JSON (its toJson) in j["sweep"].
template <class Sizes, class Steps, class Points, class Info, class Label, class Cell>
void sweepTable(std::string& md, nlohmann::json& j, const std::string& heading,
                const char* sizeHeader, const Sizes& sizes, const Steps& steps,
                const Points& points, Info info, Label sizeLabel, Cell cell) {
  md += "\n#### " + heading + "\n\n| " + sizeHeader + " |";
  for (const auto& step : steps)
    md += std::string(" ") + info(step).key + " |";
  md += "\n| ---: |";
  for (size_t i = 0; i < std::size(steps); ++i)
    md += " ---: |";
  for (const auto& n : sizes) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    md += "\n| ";
    md += sizeLabel(n);
    md += " |";
    for (const auto& step : steps)
      for (const auto& p : points)
        if (p.n == n && p.step == step) {
          md += " ";
          md += cell(p);
          md += p.ok ? " |" : " (WRONG) |";
        }
  }
  md += "\n";
  for (const auto& p : points)
    j["sweep"].push_back(toJson(p));
}

// printf into a string, for any argument types.
template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

}  // namespace cudalab
