// Faults the app must survive, on the GPU: a sticky error (an illegal address, a trap) followed by
// a reset after which every lesson works again, and a sweep that runs out of device memory in the
// middle: it stops with a sentence naming the size, keeps its points and leaks nothing.
//
// These make errors on purpose, so tools/sanitize.sh runs them without a sanitizer watching
// (CUDALAB_UNDER_SANITIZER=1 skips them): a sanitizer's job is to find the faults nobody meant.
#include <gtest/gtest.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "common/check_tally.hpp"
#include "common/device_fault.hpp"
#include "lessons/registry.hpp"
#include "matmul/matmul.hpp"
#include "platform/framebuffer.hpp"
#include "platform/gl.hpp"
#include "platform/headless_egl.hpp"
#include "reduction/reduction.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

bool underSanitizer() {
  const char* v = std::getenv("CUDALAB_UNDER_SANITIZER");
  return v && *v == '1';
}

size_t freeBytes() {
  size_t f = 0, t = 0;
  EXPECT_EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
  return f;
}

// A small reduction ladder, every step checked against the exact sum.
void expectReductionWorks() {
  const Result<reduction::LadderReport> r = reduction::measureLadder(
      reduction::ReduceParams{reduction::DataType::Float32, 100003, 256, 1, 2},
      reduction::allStepIds());
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  for (const reduction::StepResult& s : r->steps)
    EXPECT_TRUE(s.ok) << reduction::stepInfo(s.step).key;
}

class FaultGpu : public ::testing::TestWithParam<FaultKind> {
 protected:
  void SetUp() override {
    if (underSanitizer()) GTEST_SKIP() << "a deliberate fault: not run under a sanitizer";
  }
};

TEST_P(FaultGpu, IsStickyUntilTheDeviceIsReset) {
  expectReductionWorks();
  armFault(GetParam());
  const Status s = injectArmedFault();
  ASSERT_FALSE(s.ok()) << "the injected kernel must fault";
  EXPECT_TRUE(s.sticky()) << s.sentence();
  EXPECT_TRUE(deviceFaulted());
  EXPECT_EQ(armedFault(), FaultKind::None) << "a fault strikes once";
  void* p = nullptr;
  EXPECT_NE(cudaMalloc(&p, 1024), cudaSuccess) << "the context is unusable after a sticky error";
  const Status reset = resetDevice();
  ASSERT_TRUE(reset.ok()) << reset.sentence();
  EXPECT_FALSE(deviceFaulted());
  expectReductionWorks();
}

// The whole app, headless: the fault strikes a lesson's job; the shell resets the device and
// makes every lesson again; then every lesson's first action runs on the new context, interop
// pictures included, with every checked result right and no CUDA error reported.
TEST_P(FaultGpu, TheAppResetsAndEveryLessonWorksAgain) {
  HeadlessContext gl;
  ASSERT_TRUE(gl.create(0).ok());
  Settings settings;
  settings.lesson = "reduction";
  Shell shell(settings, queryRuntime(), gl.description(), /*headless=*/true);
  UiRenderer renderer(shell, settings);
  ASSERT_TRUE(renderer.init(nullptr).ok());
  Framebuffer fb;
  ASSERT_TRUE(fb.resize(1280, 800).ok());
  fb.bind();
  auto frame = [&] {
    renderer.frame(1280, 800, 1.0f, true, false, 1.0f / 60.0f);
    glFinish();
  };
  auto settle = [&](double seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 3 || shell.busy(); ++i) {
      frame();
      if (std::chrono::steady_clock::now() - t0 > std::chrono::duration<double>(seconds)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    frame();
    frame();
  };
  settle(120);
  armFault(GetParam());
  ASSERT_TRUE(shell.current().startAction(shell.current().actionIds().front()));
  settle(120);
  EXPECT_EQ(shell.deviceRecoveries(), 1);
  EXPECT_FALSE(deviceFaulted());
  ASSERT_FALSE(shell.lastError().ok());
  EXPECT_NE(shell.lastError().message().find("reset the device"), std::string::npos)
      << shell.lastError().message();

  const long long failedBefore = checkTally().failed;
  const long long passedBefore = checkTally().passed;
  for (const LessonEntry& e : lessonRegistry()) {
    SCOPED_TRACE(e.info->id);
    shell.report(Status{}, "");
    ASSERT_TRUE(shell.selectLesson(e.info->id));
    settle(120);
    const std::vector<std::string> actions = shell.current().actionIds();
    if (!actions.empty()) {
      EXPECT_TRUE(shell.current().startAction(actions.front())) << actions.front();
      settle(300);
    }
    EXPECT_FALSE(deviceFaulted());
    EXPECT_TRUE(shell.lastError().ok() || shell.lastError().cudaName().empty())
        << shell.lastError().sentence();
  }
  EXPECT_EQ(checkTally().failed, failedBefore) << checkTally().firstFailure;
  EXPECT_GT(checkTally().passed, passedBefore) << "results were checked after the reset";
  EXPECT_EQ(shell.deviceRecoveries(), 1);
  Framebuffer::unbind();
}

INSTANTIATE_TEST_SUITE_P(Kinds, FaultGpu,
                         ::testing::Values(FaultKind::IllegalAddress, FaultKind::Trap),
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
  EXPECT_TRUE(isOutOfMemory(run.stopped) ||
              run.stopped.message().find("GPU's free memory") != std::string::npos)
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

}  // namespace
}  // namespace cudalab
