// Faults the app must survive, on the GPU: a sticky error (an illegal address, a trap), after which
// the app starts again by itself and every lesson works; a sweep that runs out of device memory in
// the middle: it stops with a sentence naming the size, keeps its points and leaks nothing; and a
// kernel that runs for seconds, cancelled.
//
// These make errors on purpose, so tools/sanitize.sh runs them without a sanitizer watching
// (CUDALAB_SANITIZE=1 skips them): a sanitizer's job is to find the faults nobody meant.
#include <gtest/gtest.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/check_tally.hpp"
#include "common/device_fault.hpp"
#include "lessons/registry.hpp"
#include "matmul/matmul.hpp"
#include "platform/framebuffer.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "platform/stall_watch.hpp"
#include "reduction/reduction.hpp"
#include "tests/gpu/drawing.hpp"
#include "tests/gpu/sanitizing.hpp"
#include "tests/worker_binary.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

using testing_support::underSanitizer;

size_t freeBytes() {
  size_t f = 0, t = 0;
  EXPECT_EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
  return f;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// CUDA cannot go on in a process after a sticky error, so these run the app as a separate
// process: the fault strikes the lesson's first GPU job, the app must start again by itself with
// the same lesson, press the action again in the new process and write the screenshot, exit 0.
class FaultGpu : public ::testing::TestWithParam<FaultKind> {
 protected:
  void SetUp() override {
    if (underSanitizer()) GTEST_SKIP() << "a deliberate fault: not run under a sanitizer";
  }
};

TEST_P(FaultGpu, TheAppStartsAgainAndEveryLessonWorks) {
  const std::string dir = ::testing::TempDir() + "cudalab-faults";
  std::filesystem::create_directories(dir);
  // CUDALAB_FAULT_LESSONS=matmul,stencil keeps to those lessons.
  const char* only = std::getenv("CUDALAB_FAULT_LESSONS");
  struct Case {
    std::string id, png, log;
    int rc = -1;
  };
  std::vector<Case> cases;
  std::vector<std::string> commands;
  for (const LessonEntry& e : lessonRegistry()) {
    if (only && ("," + std::string(only) + ",").find("," + std::string(e.info->id) + ",") ==
                    std::string::npos)
      continue;
    std::unique_ptr<Lesson> l = e.make();
    const std::vector<std::string> actions = l->actionIds();
    if (actions.empty()) continue;
    Case c{e.info->id, dir + "/" + e.info->id + ".png", dir + "/" + e.info->id + ".txt"};
    std::filesystem::remove(c.png);
    std::string cmd = "'";
    cmd += cudalabBinary();
    cmd += "' --headless --lesson " + c.id + " --inject-fault " + faultKindName(GetParam()) +
           " --action " + actions.front() + " --size 960x600 --wait 300 --screenshot '" + c.png +
           "' >'" + c.log + "' 2>&1";
    commands.push_back(cmd);
    cases.push_back(c);
  }
  // Every lesson at once: each restart is seconds of waiting (a process ending, a fresh one
  // making its contexts). On the lent servers an illegal address also stops NVIDIA's OpenGL in
  // every process drawing at that moment, its neighbours' included (tools/gpu_probe.sh), which no
  // app can help: with a software renderer to go on with they all start again drawing in software;
  // without one, illegal addresses go one at a time.
  const size_t kAtOnce =
      GetParam() == FaultKind::Trap || testing_support::softwareRendererInstalled() ? cases.size()
                                                                                    : 1;
  for (size_t first = 0; first < cases.size(); first += kAtOnce) {
    std::vector<std::thread> running;
    for (size_t i = first; i < std::min(cases.size(), first + kAtOnce); ++i)
      running.emplace_back([&, i] { cases[i].rc = std::system(commands[i].c_str()); });
    for (std::thread& t : running)
      t.join();
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    const std::string out = readFile(c.log);
    EXPECT_EQ(c.rc, 0) << out;
    // Started again with the GPU; where the fault took NVIDIA's OpenGL down with it (the lent H100
    // and H200 after an illegal address), drawing in software; without the GPU only where no
    // software renderer is installed. Each saying why.
    const bool again =
        out.find("Starting again with the same lesson and parameters") != std::string::npos;
    const bool hung = out.find("did not draw its first picture") != std::string::npos;
    EXPECT_TRUE(again || hung) << out;
    // The fault struck: a start again to draw in software before it keeps the fault armed.
    EXPECT_NE(out.find("the GPU stopped:"), std::string::npos) << out;
    std::printf("%s, %s: %s\n", faultKindName(GetParam()), c.id.c_str(),
                out.find("without the GPU") != std::string::npos ? "went on without the GPU"
                : out.find("drawing in software") != std::string::npos
                    ? "started again with the GPU, drawing in software"
                    : "started again with the GPU");
    EXPECT_NE(out.find("wrote " + c.png), std::string::npos) << out;
    EXPECT_TRUE(std::filesystem::exists(c.png)) << out;
    EXPECT_EQ(out.find("Segmentation"), std::string::npos) << out;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, FaultGpu,
                         // The trap first: an illegal address stops NVIDIA's OpenGL beside CUDA
                         // on the lent servers until the GPU is reset.
                         ::testing::Values(FaultKind::Trap, FaultKind::IllegalAddress),
                         [](const ::testing::TestParamInfo<FaultKind>& kind) {
                           return kind.param == FaultKind::Trap ? "Trap" : "IllegalAddress";
                         });

// [SECTION] out of memory in the middle of a sweep

class OomGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (underSanitizer()) GTEST_SKIP() << "out of memory on purpose: not run under a sanitizer";
  }
};

TEST_F(OomGpu, MatmulSweepStopsAtTheSizeThatDoesNotFitAndKeepsItsPoints) {
  const std::vector<int> fit = {128, 256};
  const std::vector<matmul::StepId> which = {matmul::StepId::Tiled16, matmul::StepId::Cublas};
  ASSERT_TRUE(matmul::measureSweep(fit, which).stopped.ok());  // libraries loaded, caches warm
  const size_t before = freeBytes();
  MemoryBallast ballast;
  ASSERT_TRUE(ballast.hold(256).ok());
  // 8192^3 float32: three matrices of 256 MiB each, far more than the 256 MiB left.
  const std::vector<int> sizes = {128, 256, 8192};
  const SweepRun<matmul::SweepPoint> run = matmul::measureSweep(sizes, which);
  ASSERT_FALSE(run.stopped.ok());
  // Either the ladder's own check refuses before allocating ("... need 1,600 MiB ...; 256 MiB is
  // free") or an allocation fails: both say it is memory.
  EXPECT_TRUE(isOutOfMemory(run.stopped) ||
              run.stopped.message().find("MiB is free") != std::string::npos)
      << run.stopped.sentence();
  EXPECT_NE(run.stopped.message().find("8192"), std::string::npos) << run.stopped.sentence();
  ASSERT_EQ(run.points.size(), fit.size() * which.size()) << "the points before it are kept";
  for (const matmul::SweepPoint& p : run.points)
    EXPECT_TRUE(p.ok) << p.n;
  ballast.release();
  const double leaked = (double(before) - double(freeBytes())) / (1 << 20);
  EXPECT_LT(std::abs(leaked), 4.0) << leaked << " MiB not given back";
}

TEST_F(OomGpu, ReductionSweepStopsAtTheSizeThatDoesNotFitAndKeepsItsPoints) {
  using namespace reduction;
  const std::vector<long long> fit = {1 << 10, 1 << 16};
  ASSERT_TRUE(measureSweep(DataType::Float32, 256, fit, sweepStepIds()).stopped.ok());
  const size_t before = freeBytes();
  MemoryBallast ballast;
  ASSERT_TRUE(ballast.hold(256).ok());
  const std::vector<long long> sizes = {1 << 10, 1 << 16, 1LL << 28};  // 1 GiB of input
  const SweepRun<SweepPoint> run = measureSweep(DataType::Float32, 256, sizes, sweepStepIds());
  ASSERT_FALSE(run.stopped.ok());
  EXPECT_NE(run.stopped.message().find("268435456"), std::string::npos) << run.stopped.sentence();
  EXPECT_NE(run.stopped.message().find("memory"), std::string::npos) << run.stopped.sentence();
  ASSERT_EQ(run.points.size(), fit.size() * sweepStepIds().size());
  for (const SweepPoint& p : run.points)
    EXPECT_TRUE(p.ok) << p.n;
  ballast.release();
  const double leaked = (double(before) - double(freeBytes())) / (1 << 20);
  EXPECT_LT(std::abs(leaked), 4.0) << leaked << " MiB not given back";
}

// [SECTION] cancelling a kernel that runs for seconds

// The naive matmul at the largest size runs for seconds per launch. Cancel is checked between
// launches, so the lesson stops once the running kernel ends; the UI draws all the while. The
// latencies are printed for docs/RELIABILITY.md, never asserted (a test asserts no timing).
TEST(CancelGpu, TheLargestNaiveMatmulStopsAfterItsKernelAndTheUiKeepsDrawing) {
  if (underSanitizer()) GTEST_SKIP() << "minutes of kernels under a sanitizer";
  HeadlessContext gl;
  CUDALAB_TEST_DRAWING(gl, testing_support::NeedsNvidiaGl::No);
  Settings settings;
  settings.lesson = "matmul";
  Shell shell(lessonRegistry(), settings, queryRuntime(), gl.description(), /*headless=*/true);
  UiRenderer renderer(shell, settings);
  ASSERT_TRUE(renderer.init(nullptr).ok());
  Framebuffer fb;
  ASSERT_TRUE(fb.resize(1280, 800).ok());
  fb.bind();
  using Clock = std::chrono::steady_clock;
  double worstFrameMs = 0;
  int frames = 0;
  StallWatch stalls(2.0);  // a frame over 2 s prints where the UI thread waited
  auto frame = [&] {
    const auto t0 = Clock::now();
    stalls.frameStarted();
    renderer.frame(1280, 800, 1.0f, true, false, 1.0f / 60.0f);
    glFinish();
    stalls.frameEnded();
    worstFrameMs = std::max(worstFrameMs,
                            std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    ++frames;
  };
  for (int i = 0; i < 5 || shell.busy(); ++i)  // the lesson measures its default first
    frame();
  const double worstStartMs = worstFrameMs;
  const int startFrames = frames;
  worstFrameMs = 0;
  Lesson& l = shell.current();
  for (const char* id : {"m", "n", "k"})
    ASSERT_TRUE(setParameter(l, id, 16384).ok()) << id;
  ASSERT_TRUE(l.startAction("ladder"));
  const auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() < 8)
    frame();
  const int framesWhileRunning = frames - startFrames;
  ASSERT_TRUE(shell.busy()) << "the ladder at 16384^3 should still be running";
  const auto cancelAt = Clock::now();
  l.cancelAll();
  while (shell.busy() && std::chrono::duration<double>(Clock::now() - cancelAt).count() < 300)
    frame();
  const double cancelS = std::chrono::duration<double>(Clock::now() - cancelAt).count();
  EXPECT_FALSE(shell.busy()) << "cancel did not stop the ladder within 5 minutes";
  EXPECT_GT(framesWhileRunning, 5) << "the UI drew while the kernels ran";
  frame();
  EXPECT_NE(shell.lastError().message().find("cancelled"), std::string::npos)
      << shell.lastError().sentence();
  std::printf(
      "cancel: idle %.2f s after the cancel; %d frames drawn in the 8 s before it, the "
      "slowest %.1f ms from the ladder's start to idle (%.1f ms while the default measured); "
      "%d frames over 2 s\n",
      cancelS, framesWhileRunning, worstFrameMs, worstStartMs, stalls.stalls());
  Framebuffer::unbind();
}

// [SECTION] cancelling a counters reading

// A counters reading runs in a helper process and replays every kernel it profiles: seconds at
// large sizes. The lesson's Cancel (cancelAll: its Cancel buttons, presets and plans, the soak)
// ends it, and the status bar says the counters were not read. The 30-minute soak on an H200
// found launch-config's Cancel waiting 24.8 s for a reading to finish by itself: no lesson
// cancelled its counters. The time to idle is printed, never asserted.
TEST(CancelGpu, EveryCountersReadingEndsWhenItsLessonIsCancelled) {
  if (underSanitizer()) GTEST_SKIP() << "the helper runs outside the sanitizer anyway";
  // The panels start the helper from the running binary; this test process is not cudalab.
  ::setenv("CUDALAB_BINARY", cudalabBinary().c_str(), 1);
  HeadlessContext gl;
  CUDALAB_TEST_DRAWING(gl, testing_support::NeedsNvidiaGl::No);
  Framebuffer fb;
  ASSERT_TRUE(fb.resize(1280, 800).ok());
  fb.bind();
  using Clock = std::chrono::steady_clock;
  int tried = 0;
  for (const LessonEntry& e : lessonRegistry()) {
    Settings settings;
    settings.lesson = e.info->id;
    Shell shell(lessonRegistry(), settings, queryRuntime(), gl.description(), /*headless=*/true);
    UiRenderer renderer(shell, settings);
    ASSERT_TRUE(renderer.init(nullptr).ok());
    auto frame = [&] {
      renderer.frame(1280, 800, 1.0f, true, false, 1.0f / 60.0f);
      glFinish();
    };
    auto drawUntilIdle = [&](double limit) {
      const auto t0 = Clock::now();
      while (shell.busy() && std::chrono::duration<double>(Clock::now() - t0).count() < limit)
        frame();
      frame();
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    Lesson& l = shell.current();
    for (const std::string& a : l.actionIds()) {
      if (a.find("counters") == std::string::npos) continue;
      SCOPED_TRACE(std::string(e.info->id) + " " + a);
      for (int i = 0; i < 5; ++i)
        frame();
      drawUntilIdle(120);          // what the lesson measures when first shown
      shell.report(Status{}, "");  // the previous action's "Cancelled" must not count
      ASSERT_TRUE(l.startAction(a));
      frame();
      frame();
      ASSERT_TRUE(shell.busy()) << "the reading ended before it could be cancelled";
      l.cancelAll();
      const double s = drawUntilIdle(120);
      EXPECT_FALSE(shell.busy()) << "the lesson was still busy 120 s after its Cancel";
      EXPECT_NE(shell.lastError().message().find("Cancelled"), std::string::npos)
          << "the reading was not cancelled: " << shell.lastError().sentence();
      std::printf("cancel: %s %s idle %.2f s after the cancel\n", e.info->id, a.c_str(), s);
      ++tried;
    }
  }
  Framebuffer::unbind();
  EXPECT_GE(tried, 5) << "the lessons' counters actions";
}

}  // namespace
}  // namespace cudalab
