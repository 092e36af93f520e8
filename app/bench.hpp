// `cudalab bench ID`: the benchmarks behind the performance targets of the lessons, run on a GPU
// machine through the app's own code, printed as Markdown tables (for docs/BENCHMARKS.md) and
// written as JSON next to them.
#pragma once

#include <span>
#include <string>

namespace cudalab {

struct BenchEntry {
  const char* id;
  const char* what;
  int (*run)(const std::string& outDir);
};

std::span<const BenchEntry> benchRegistry();
int runBench(const std::string& id, const std::string& outDir);

}  // namespace cudalab
