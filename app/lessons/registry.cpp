#include "lessons/registry.hpp"

#include "lessons/atomics_lesson.hpp"
#include "lessons/device_lesson.hpp"
#include "lessons/launch_config_lesson.hpp"
#include "lessons/matmul_lesson.hpp"
#include "lessons/memory_lesson.hpp"
#include "lessons/playground_lesson.hpp"
#include "lessons/precision_lesson.hpp"
#include "lessons/reduction_lesson.hpp"
#include "lessons/stencil_lesson.hpp"
#include "lessons/transfers_lesson.hpp"

namespace cudalab {

namespace {
const LessonEntry kLessons[] = {
    {&kDeviceLessonInfo, &makeDeviceLesson, &deviceBenches},
    {&kLaunchConfigLessonInfo, &makeLaunchConfigLesson, &launchConfigBenches},
    {&kTransfersLessonInfo, &makeTransfersLesson, &transfersBenches},
    {&kPrecisionLessonInfo, &makePrecisionLesson, &precisionBenches},
    {&kMemoryLessonInfo, &makeMemoryLesson, &memoryBenches},
    {&kMatmulLessonInfo, &makeMatmulLesson, &matmulBenches},
    {&kReductionLessonInfo, &makeReductionLesson, &reductionBenches},
    {&kPlaygroundLessonInfo, &makePlaygroundLesson, &playgroundBenches},
    {&kAtomicsLessonInfo, &makeAtomicsLesson, &atomicsBenches},
    {&kStencilLessonInfo, &makeStencilLesson, &stencilBenches},
};
}  // namespace

std::span<const LessonEntry> lessonRegistry() {
  return kLessons;
}

const LessonEntry* findLesson(std::string_view id) {
  for (const LessonEntry& e : kLessons)
    if (id == e.info->id) return &e;
  return nullptr;
}

}  // namespace cudalab
