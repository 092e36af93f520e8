// Lesson "launch-config": hello kernel, indexing, too few and too many threads, grid-stride loops
// (course files 003 and 004).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kLaunchConfigLessonInfo;
std::unique_ptr<Lesson> makeLaunchConfigLesson();
// Its benchmarks (launch_config_bench.cpp).
std::span<const BenchEntry> launchConfigBenches();

}  // namespace cudalab
