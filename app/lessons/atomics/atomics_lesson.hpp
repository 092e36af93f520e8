// Lesson "atomics": the counter race, atomic operations and their contention, and the histogram
// ladder from one global atomic per value to CUB (course file 004).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kAtomicsLesson;
// Its benchmarks (atomics_bench.cpp).
extern const std::span<const BenchEntry> kAtomicsBenches;

}  // namespace cudalab
