// Lesson "matmul": from the course's naive kernel to cuBLAS, every step measured (course file 001).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kMatmulLesson;
// Its benchmarks (matmul_bench.cpp).
extern const std::span<const BenchEntry> kMatmulBenches;

}  // namespace cudalab
