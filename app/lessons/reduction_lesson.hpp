// Lesson "reduction": Mark Harris's seven steps, warp shuffles and CUB (course file 002).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kReductionLessonInfo;
std::unique_ptr<Lesson> makeReductionLesson();
// Its benchmarks (reduction_bench.cpp).
std::span<const BenchEntry> reductionBenches();

}  // namespace cudalab
