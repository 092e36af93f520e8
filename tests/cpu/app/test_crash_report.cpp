// The crash report: a fatal signal says which, what the app was doing and where, then ends the
// process by the same signal; SIGPIPE does not end it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "platform/crash_report.hpp"

namespace cudalab {
namespace {

// Kept out of line, so that the stack printed names it.
[[gnu::noinline]] void crashNow(volatile int* where) {
  *where = 1;
}

TEST(CrashReportDeathTest, ASegfaultSaysWhatTheAppWasDoingAndEndsByTheSameSignal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        installCrashReport();
        setCrashContext("an earlier step");
        setCrashContext("the soak ran memory counters (action 12)");
        volatile int* null = nullptr;
        crashNow(null);
      },
      testing::KilledBySignal(SIGSEGV),
      "cudalab: ended by signal 11 \\(segmentation fault\\) while the soak ran memory counters "
      "\\(action 12\\)\\. The thread that took it is here(.|\n)*cudalab_cpu_tests(.|\n)*"
      "cudalab: end of stack");
}

TEST(CrashReportDeathTest, AnAbortIsReportedWithoutAContextWhenNoneIsSet) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        installCrashReport();
        setCrashContext("");
        std::abort();
      },
      testing::KilledBySignal(SIGABRT), "cudalab: ended by signal 6 \\(aborted\\)\\. The thread");
}

TEST(CrashReportDeathTest, WritingToAPipeNobodyReadsIsAnErrorNotTheEnd) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        installCrashReport();
        int fds[2];
        if (pipe(fds) != 0) std::_Exit(3);
        close(fds[0]);
        const ssize_t n = write(fds[1], "x", 1);
        std::fprintf(stderr, "write gave %zd\n", n);
        std::_Exit(n < 0 ? 0 : 4);
      },
      testing::ExitedWithCode(0), "write gave -1");
}

}  // namespace
}  // namespace cudalab
