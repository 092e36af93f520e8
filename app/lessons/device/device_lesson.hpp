// Lesson "device": what the CUDA runtime reports about each GPU, the peaks derived from it, and
// measured copy bandwidths (course file 002: PyCUDA's device query).
#pragma once

#include "core/catalogue.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// Its line in lessons/registry.cpp: the lesson's info, its factory and its benchmarks.
extern const LessonEntry kDeviceLesson;
// Its benchmarks (device_bench.cpp).
extern const std::span<const BenchEntry> kDeviceBenches;

}  // namespace cudalab
