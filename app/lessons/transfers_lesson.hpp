// Lesson "transfers": when the GPU pays off, and where the time goes (course files 000 and 003).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kTransfersLessonInfo;
std::unique_ptr<Lesson> makeTransfersLesson();
// Its benchmarks (transfers_bench.cpp).
std::span<const BenchEntry> transfersBenches();

}  // namespace cudalab
