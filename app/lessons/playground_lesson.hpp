// Lesson "playground": write your own kernel, compile it in the app (NVRTC), run it in a separate
// worker process, check it element by element and time it (course files 000-004).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kPlaygroundLessonInfo;
std::unique_ptr<Lesson> makePlaygroundLesson();
// Its benchmark (playground_bench.cpp).
std::span<const BenchEntry> playgroundBenches();

}  // namespace cudalab
