// Lesson "precision": float32 against float64, catastrophic cancellation, the literal trap,
// summation error and the price of float64 (course file 000).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kPrecisionLesson;
// Its benchmarks (precision_bench.cpp).
extern const std::span<const BenchEntry> kPrecisionBenches;

}  // namespace cudalab
