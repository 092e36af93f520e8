// The paths of a device fault that run without a GPU, and the parameter bindings every lesson
// offers (presets, the soak and the restart after a reset set parameters through them).
#include <gtest/gtest.h>

#include <cmath>

#include "common/cuda_check.hpp"
#include "common/device_fault.hpp"
#include "lessons/registry.hpp"
#include "platform/headless_egl.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

TEST(Faults, KindsParseAndUnknownOnesAreRefused) {
  EXPECT_EQ(parseFaultKind("illegal-address"), FaultKind::IllegalAddress);
  EXPECT_EQ(parseFaultKind("trap"), FaultKind::Trap);
  EXPECT_FALSE(parseFaultKind("segfault").has_value());
  EXPECT_FALSE(parseFaultKind("").has_value());
  setenv("CUDALAB_INJECT_FAULT", "sometimes", 1);
  const Status s = armFaultFromEnvironment();
  unsetenv("CUDALAB_INJECT_FAULT");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("sometimes"), std::string::npos);
  EXPECT_EQ(armedFault(), FaultKind::None);
}

TEST(Faults, StickyErrorsAreNoticedAndTheFirstIsTheCause) {
  EXPECT_TRUE(isStickyCudaError(cudaErrorIllegalAddress));
  EXPECT_FALSE(isStickyCudaError(cudaErrorMemoryAllocation)) << "out of memory is not sticky";
  const Status first = cudaStatus(cudaErrorIllegalAddress, "kernel", "a.cu", 1);
  cudaStatus(cudaErrorLaunchFailure, "later", "b.cu", 2);
  EXPECT_TRUE(first.sticky());
  ASSERT_TRUE(deviceFaulted());
  EXPECT_EQ(lastStickyError().sentence(), first.sentence());
  (void)resetDevice();  // without a GPU the reset fails, with a sentence; the fault is cleared
  EXPECT_FALSE(deviceFaulted());
  EXPECT_FALSE(cudaStatus(cudaErrorMemoryAllocation, "cudaMalloc", "c.cu", 3).sticky());
  EXPECT_FALSE(deviceFaulted());
}

// Every lesson's bindings: the default goes in and comes out; NaN, values past either end and
// halves of integer parameters are refused and change nothing; an unknown id is refused by name.
TEST(ParamBindings, EveryLessonSetsValidValuesAndRefusesInvalidOnes) {
  for (const LessonEntry& e : lessonRegistry()) {
    std::unique_ptr<Lesson> l = e.make();
    for (const ParamBinding& b : l->bindings()) {
      const ParamSpec& p = *b.spec;
      SCOPED_TRACE(std::string(e.info->id) + " " + p.id);
      ASSERT_TRUE(setParameter(*l, p.id, p.max).ok());
      EXPECT_EQ(b.get(), p.max);
      ASSERT_TRUE(setParameter(*l, p.id, p.defaultValue).ok());
      EXPECT_EQ(b.get(), p.defaultValue);
      for (double bad : {std::nan(""), p.max + 1, p.min - 1, HUGE_VAL}) {
        EXPECT_FALSE(setParameter(*l, p.id, bad).ok()) << bad;
        EXPECT_EQ(b.get(), p.defaultValue) << bad;
      }
      if (p.integer) {
        EXPECT_FALSE(setParameter(*l, p.id, p.min + 0.5).ok());
      }
    }
    const Status unknown = setParameter(*l, "no_such_parameter", 1);
    EXPECT_FALSE(unknown.ok());
    EXPECT_NE(unknown.message().find("no_such_parameter"), std::string::npos);
  }
}

// A sticky error seen by anything makes the shell start every lesson again at its next frame,
// with the parameters the learner had chosen, and say so. Without a GPU the reset itself fails:
// the lessons then keep to their CPU references.
TEST(Faults, TheShellRestartsEveryLessonKeepingTheParameters) {
  HeadlessContext gl;
  if (Status s = gl.create(-1); !s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  Settings settings;
  settings.lesson = "reduction";
  RuntimeInfo rt;
  rt.status = Status::error("hidden from this test");
  Shell shell(settings, rt, "test", /*headless=*/true);
  UiRenderer renderer(shell, settings);
  ASSERT_TRUE(renderer.init(nullptr).ok());
  ASSERT_TRUE(renderer.capture(800, 600, 1, false, "", 2, 0.5).ok());
  Lesson* before = &shell.current();
  ASSERT_FALSE(before->bindings().empty());
  const ParamBinding b = before->bindings().front();
  const double chosen = b.spec->min;
  ASSERT_TRUE(setParameter(*before, b.spec->id, chosen).ok());

  cudaStatus(cudaErrorIllegalAddress, "kernel launch", "x.cu", 7);
  ASSERT_TRUE(deviceFaulted());
  ASSERT_TRUE(renderer.capture(800, 600, 1, false, "", 2, 0.5).ok());
  EXPECT_FALSE(deviceFaulted());
  EXPECT_EQ(shell.deviceRecoveries(), 1);
  EXPECT_STREQ(shell.current().info().id, "reduction");
  EXPECT_EQ(shell.current().bindings().front().get(), chosen) << "the learner's value is kept";
  EXPECT_FALSE(shell.lastError().ok());
  EXPECT_NE(shell.lastError().message().find("illegal"), std::string::npos)
      << shell.lastError().message();
  // Every lesson draws again after the restart.
  for (const LessonEntry& e : lessonRegistry()) {
    ASSERT_TRUE(shell.selectLesson(e.info->id));
    ASSERT_TRUE(renderer.capture(800, 600, 1, false, "", 2, 0.5).ok()) << e.info->id;
  }
}

}  // namespace
}  // namespace cudalab
