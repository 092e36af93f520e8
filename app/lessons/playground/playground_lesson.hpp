// Lesson "playground": write your own kernel, compile it in the app (NVRTC), run it in a separate
// worker process, check it element by element and time it (course files 000-004).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kPlaygroundLesson;
// Its benchmark (playground_bench.cpp).
extern const std::span<const BenchEntry> kPlaygroundBenches;

}  // namespace cudalab
