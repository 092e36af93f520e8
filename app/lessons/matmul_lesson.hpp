// Lesson "matmul": from the course's naive kernel to cuBLAS, every step measured (course file 001).
#pragma once

#include <memory>

#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kMatmulLessonInfo;
std::unique_ptr<Lesson> makeMatmulLesson();

}  // namespace cudalab
