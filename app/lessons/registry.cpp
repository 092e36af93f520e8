#include "lessons/registry.hpp"

#include "lessons/atomics/atomics_lesson.hpp"
#include "lessons/device/device_lesson.hpp"
#include "lessons/launch_config/launch_config_lesson.hpp"
#include "lessons/matmul/matmul_lesson.hpp"
#include "lessons/memory/memory_lesson.hpp"
#include "lessons/playground/playground_lesson.hpp"
#include "lessons/precision/precision_lesson.hpp"
#include "lessons/reduction/reduction_lesson.hpp"
#include "lessons/stencil/stencil_lesson.hpp"
#include "lessons/tensor_cores/tensor_cores_lesson.hpp"
#include "lessons/transfers/transfers_lesson.hpp"

namespace cudalab {

std::span<const LessonEntry> lessonRegistry() {
  // Copied on first use, when every lesson file's entry has been made.
  static const LessonEntry kLessons[] = {
      kDeviceLesson,        // what the GPU is
      kLaunchConfigLesson,  // grids and blocks
      kTransfersLesson,     // host and device memory
      kPrecisionLesson,     // float32, float64 and cancellation
      kMemoryLesson,        // access patterns, shared memory, the transpose
      kMatmulLesson,        // tiling, from naive to cuBLAS
      kTensorCoresLesson,   // the tensor cores: WMMA, mma.sync, swizzle, pipelines
      kReductionLesson,     // the reduction ladder
      kPlaygroundLesson,    // the learner's own kernels
      kAtomicsLesson,       // races, atomics, the histogram
      kStencilLesson,       // a full-HD pipeline in a frame's budget
  };
  return kLessons;
}

}  // namespace cudalab
