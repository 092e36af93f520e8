// Lesson "memory": coalescing, the transpose and shared-memory bank conflicts (course files 000
// and 001).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kMemoryLessonInfo;
std::unique_ptr<Lesson> makeMemoryLesson();
// Its benchmarks (memory_bench.cpp).
std::span<const BenchEntry> memoryBenches();

}  // namespace cudalab
