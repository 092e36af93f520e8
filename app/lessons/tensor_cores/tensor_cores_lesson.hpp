// Lesson "tensor-cores": where an H100's arithmetic really is, the matmul story continued on the
// tensor cores, every step measured and checked (after course file 001).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kTensorCoresLesson;
// Its benchmarks (tensor_cores_bench.cpp).
extern const std::span<const BenchEntry> kTensorCoresBenches;

}  // namespace cudalab
