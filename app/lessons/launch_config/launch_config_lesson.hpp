// Lesson "launch-config": hello kernel, indexing, too few and too many threads, grid-stride loops
// (course files 003 and 004).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kLaunchConfigLesson;
// Its benchmarks (launch_config_bench.cpp).
extern const std::span<const BenchEntry> kLaunchConfigBenches;

}  // namespace cudalab
