// Lesson "stencil": a full-HD frame filtered inside the course's 33 ms budget (course file 000).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kStencilLessonInfo;
std::unique_ptr<Lesson> makeStencilLesson();
// Its benchmarks (stencil_bench.cpp).
std::span<const BenchEntry> stencilBenches();

}  // namespace cudalab
