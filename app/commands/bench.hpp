// `cudalab bench ID`: the runner. It lists every lesson's benchmarks (from the lessons main()
// hands it) and `bench counters`, which runs every counters-* benchmark at once.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/catalogue.hpp"

namespace cudalab {

// Every benchmark, in lesson order, then `counters`.
std::vector<BenchEntry> benchRegistry(std::span<const LessonEntry> lessons);
// Runs benchmark `id` with `opt` (opt.lessons: the registry; opt.rt is filled here): 1, said why,
// without a GPU; 2 when there is no such benchmark.
int runBench(const std::string& id, const BenchOptions& opt);

}  // namespace cudalab
