// The list of lessons, in teaching order: one line per lesson in registry.cpp. It includes every
// lesson, so it sits above them all; main() and the tests hand it to the shell, the soak and the
// benchmark runner, which know lessons only through core/catalogue.hpp.
#pragma once

#include <span>
#include <string_view>

#include "core/catalogue.hpp"

namespace cudalab {

std::span<const LessonEntry> lessonRegistry();
// nullptr when no lesson has this id.
inline const LessonEntry* findLesson(std::string_view id) {
  return findLesson(lessonRegistry(), id);
}

}  // namespace cudalab
