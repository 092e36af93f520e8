// Lesson "atomics": the counter race, atomic operations and their contention, and the histogram
// ladder from one global atomic per value to CUB (course file 004).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kAtomicsLessonInfo;
std::unique_ptr<Lesson> makeAtomicsLesson();
// Its benchmarks (atomics_bench.cpp).
std::span<const BenchEntry> atomicsBenches();

}  // namespace cudalab
