// The soak's stall watch: a frame over its limit gets the UI thread's stack printed, once; a
// quick frame gets nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "platform/stall_watch.hpp"

namespace cudalab {
namespace {

TEST(StallWatch, ASlowFramePrintsTheStackOnceAndAQuickOneNothing) {
  StallWatch watch(0.15);
  testing::internal::CaptureStderr();
  watch.frameStarted();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  watch.frameEnded();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(watch.stalls(), 0);

  watch.frameStarted();
  // sleep_for restarts after the signal (SA_RESTART does not apply to nanosleep, which returns
  // early): sleep in steps until the wall clock has passed.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
  while (std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  watch.frameEnded();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(watch.stalls(), 1) << err;
  EXPECT_NE(err.find("stall: the UI thread is here"), std::string::npos) << err;
  EXPECT_NE(err.find("stall: end of stack"), std::string::npos) << err;
  // The stack reaches this test's own code (the binary's frames are listed).
  EXPECT_NE(err.find("cudalab_cpu_tests"), std::string::npos) << err;
}

}  // namespace
}  // namespace cudalab
