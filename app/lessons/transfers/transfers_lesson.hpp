// Lesson "transfers": when the GPU pays off, and where the time goes (course files 000 and 003).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kTransfersLesson;
// Its benchmarks (transfers_bench.cpp).
extern const std::span<const BenchEntry> kTransfersBenches;

}  // namespace cudalab
