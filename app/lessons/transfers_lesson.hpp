// Lesson "transfers": when the GPU pays off, and where the time goes (course files 000 and 003).
#pragma once

#include <memory>

#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kTransfersLessonInfo;
std::unique_ptr<Lesson> makeTransfersLesson();

}  // namespace cudalab
