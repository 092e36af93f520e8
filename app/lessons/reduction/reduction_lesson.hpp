// Lesson "reduction": Mark Harris's seven steps, warp shuffles and CUB (course file 002).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kReductionLesson;
// Its benchmarks (reduction_bench.cpp).
extern const std::span<const BenchEntry> kReductionBenches;

}  // namespace cudalab
