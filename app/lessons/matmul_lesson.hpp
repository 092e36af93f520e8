// Lesson "matmul": from the course's naive kernel to cuBLAS, every step measured (course file 001).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kMatmulLessonInfo;
std::unique_ptr<Lesson> makeMatmulLesson();
// Its benchmarks (matmul_bench.cpp).
std::span<const BenchEntry> matmulBenches();

}  // namespace cudalab
