// Lesson "precision": float32 against float64, catastrophic cancellation, the literal trap,
// summation error and the price of float64 (course file 000).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kPrecisionLessonInfo;
std::unique_ptr<Lesson> makePrecisionLesson();
// Its benchmarks (precision_bench.cpp).
std::span<const BenchEntry> precisionBenches();

}  // namespace cudalab
