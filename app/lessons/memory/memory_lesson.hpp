// Lesson "memory": coalescing, the transpose and shared-memory bank conflicts (course files 000
// and 001).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kMemoryLesson;
// Its benchmarks (memory_bench.cpp).
extern const std::span<const BenchEntry> kMemoryBenches;

}  // namespace cudalab
