// Lesson "stencil": a full-HD frame filtered inside the course's 33 ms budget (course file 000).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kStencilLesson;
// Its benchmarks (stencil_bench.cpp).
extern const std::span<const BenchEntry> kStencilBenches;

}  // namespace cudalab
