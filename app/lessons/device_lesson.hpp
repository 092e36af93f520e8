// Lesson "device": what the CUDA runtime reports about each GPU, the peaks derived from it, and
// measured copy bandwidths (course file 002: PyCUDA's device query).
#pragma once

#include <memory>

#include "bench.hpp"
#include "lessons/lesson.hpp"

namespace cudalab {

extern const LessonInfo kDeviceLessonInfo;
std::unique_ptr<Lesson> makeDeviceLesson();
// Its benchmarks (device_bench.cpp).
std::span<const BenchEntry> deviceBenches();

}  // namespace cudalab
