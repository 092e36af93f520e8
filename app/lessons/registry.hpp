// The list of lessons, in teaching order. One line per lesson in registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

struct LessonEntry {
  const LessonInfo* info;
  std::unique_ptr<Lesson> (*make)();
  std::span<const BenchEntry> (*benches)();  // its `cudalab bench` entries (nullptr: none)
};

std::span<const LessonEntry> lessonRegistry();
// nullptr when no lesson has this id.
const LessonEntry* findLesson(std::string_view id);

}  // namespace cudalab
