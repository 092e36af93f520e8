// The paths of a device fault that run without a GPU, and the parameter bindings every lesson
// offers (presets, the soak and the restart after a reset set parameters through them).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "common/cuda_check.hpp"
#include "common/device_fault.hpp"

#include "lessons/registry.hpp"
#include "commands/restart.hpp"
#include "platform/drawing_path.hpp"
#include "platform/framebuffer.hpp"
#include "platform/gl.hpp"
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
  clearFaultRecord();  // other tests in this process make sticky statuses too
  EXPECT_TRUE(isStickyCudaError(cudaErrorIllegalAddress));
  EXPECT_FALSE(isStickyCudaError(cudaErrorMemoryAllocation)) << "out of memory is not sticky";
  const Status first = cudaStatus(cudaErrorIllegalAddress, "kernel", "a.cu", 1);
  cudaStatus(cudaErrorLaunchFailure, "later", "b.cu", 2);
  EXPECT_TRUE(first.sticky());
  ASSERT_TRUE(deviceFaulted());
  EXPECT_EQ(lastStickyError().sentence(), first.sentence());
  clearFaultRecord();
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

// A sticky error seen by anything makes the shell stop the lessons' work and ask to be started
// again; the state it hands over brings the next process back to the same lesson with every
// parameter the learner had chosen, and a sentence about what happened. (Starting the process
// again is tested on the GPU, through the binary.)
TEST(Faults, TheShellAsksToStartAgainAndTheNewOneRestoresTheLessonAndParameters) {
  HeadlessContext gl;
  if (Status s = gl.create(-1); !s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  RuntimeInfo rt;
  rt.deviceCount = 1;  // as if there were a GPU: the shell reacts to faults only then
  rt.firstDeviceName = "pretend GPU";
  nlohmann::json state;
  double chosen = 0;
  std::string param;
  {
    Settings settings;
    settings.lesson = "reduction";
    Shell shell(lessonRegistry(), settings, rt, "test", /*headless=*/true);
    UiRenderer renderer(shell, settings);
    ASSERT_TRUE(renderer.init(nullptr).ok());
    ASSERT_TRUE(shell.selectLesson("transfers"));
    Lesson& l = shell.current();
    ASSERT_FALSE(l.bindings().empty());
    const ParamBinding b = l.bindings().front();
    param = b.spec->id;
    chosen = b.spec->min;
    ASSERT_TRUE(setParameter(l, param, chosen).ok());
    EXPECT_FALSE(shell.relaunchRequested());

    clearFaultRecord();
    cudaStatus(cudaErrorIllegalAddress, "kernel launch", "x.cu", 7);
    // One frame notices the fault; no pixels are read back after it (that can block the driver).
    const Result<Image> picture = renderer.capture(800, 600, 1, false, "", 2, 0.5);
    ASSERT_FALSE(picture.ok());
    EXPECT_NE(picture.status().message().find("the GPU stopped"), std::string::npos)
        << picture.status().message();
    ASSERT_TRUE(shell.relaunchRequested());
    EXPECT_NE(shell.lastError().message().find("starting again"), std::string::npos)
        << shell.lastError().message();
    state = shell.relaunchState();
  }
  clearFaultRecord();
  EXPECT_EQ(state.value("lesson", ""), "transfers");
  EXPECT_EQ(state.value("relaunches", 0), 1);

  Settings settings;
  Shell shell(lessonRegistry(), settings, rt, "test", /*headless=*/true);
  shell.restore(nlohmann::json::parse(state.dump()));  // through text, as through the file
  EXPECT_STREQ(shell.current().info().id, "transfers");
  EXPECT_EQ(shell.current().bindings().front().get(), chosen) << param;
  EXPECT_EQ(shell.relaunches(), 1);
  EXPECT_NE(shell.lastError().message().find("illegal"), std::string::npos)
      << shell.lastError().message();
  // It leads with what happened to the learner's work: the status bar shows three lines.
  EXPECT_EQ(shell.lastError().message().rfind("cudalab started again", 0), 0u)
      << shell.lastError().message();

  // The fourth start in a row runs with CUDA hidden, and says so.
  nlohmann::json giveUp = state;
  giveUp["without_gpu"] = true;
  giveUp["relaunches"] = 4;
  Shell fourth(lessonRegistry(), settings, rt, "test", /*headless=*/true);
  fourth.restore(giveUp);
  EXPECT_NE(fourth.lastError().message().find("started again without the GPU"), std::string::npos)
      << fourth.lastError().message();

  // The fault is kept for a further restart's state.
  EXPECT_NE(fourth.relaunchState().value("fault", "").find("illegal"), std::string::npos);

  // A state file of the wrong shape restores nothing and says so, never throws.
  Shell other(lessonRegistry(), settings, rt, "test", /*headless=*/true);
  other.restore(nlohmann::json::parse(R"({"params": 5, "lesson": 7})"));
  EXPECT_FALSE(other.lastError().ok());
}

// The whole restart through the binary, on any machine: a simulated sticky error (recorded as a
// real one, no kernel) in the lesson's first job; the process must replace itself by a fresh
// cudalab with the same lesson, press the action again there, write the picture and exit 0, and
// leave no state file behind.
TEST(Faults, TheBinaryStartsItselfAgainAndFinishesTheScreenshot) {
  const std::string dir = ::testing::TempDir() + "cudalab-restart";
  std::filesystem::create_directories(dir);
  const std::string png = dir + "/matmul.png", log = dir + "/matmul.txt";
  std::filesystem::remove(png);
  // Its own temporary folder, apart from the restore files of tests running beside it.
  const std::string tmp = dir + "/tmp";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  const std::string cmd = "TMPDIR='" + tmp + "' '" + CUDALAB_BINARY +
                          "' --headless --lesson matmul --inject-fault simulated --action course "
                          "--size 800x600 --wait 120 --screenshot '" +
                          png + "' >'" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  const std::string out((std::istreambuf_iterator<char>(in)), {});
  if (out.find("EGL") != std::string::npos && out.find("wrote") == std::string::npos &&
      out.find("Starting again") == std::string::npos)
    GTEST_SKIP() << "no headless GL here: " << out;
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("simulated fault"), std::string::npos) << out;
  EXPECT_NE(out.find("Starting again with the same lesson and parameters"), std::string::npos)
      << out;
  EXPECT_NE(out.find("wrote " + png), std::string::npos) << out;
  EXPECT_NE(out.find("lesson matmul"), std::string::npos) << out;
  // The new process read the state the faulted one left (the supervisor must not remove it).
  EXPECT_EQ(out.find("could not be read"), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(png)) << out;
  // The state file the faulted process left (named by its supervisor's pid) is gone.
  for (const auto& f : std::filesystem::directory_iterator(tmp))
    EXPECT_EQ(f.path().filename().string().rfind("cudalab-restore-", 0), std::string::npos)
        << f.path();
}

// A fault can take the GPU's drawing down with it (an H100 after a fault: every new process that
// runs CUDA and draws hangs or draws blank). The process started again must then go on drawing in
// software (Mesa), the kernels still on the GPU, saying why. CUDALAB_TEST_FIRST_PICTURE makes the
// restarted app hang before its first picture (its supervisor must kill it), find it blank (it must
// start again itself), draw it and find a later picture (after the action) blank, as the H100 did,
// or draw it and then hang (its supervisor must notice the frames stopped), as an H100 also did.
class FirstPictureAfterRestart : public ::testing::TestWithParam<const char*> {};

TEST_P(FirstPictureAfterRestart, AHangOrABlankPictureGoesOnDrawingInSoftware) {
  const std::string how = GetParam();
  const std::string dir = ::testing::TempDir() + "cudalab-restart-" + how;
  std::filesystem::create_directories(dir);
  const std::string png = dir + "/matmul.png", log = dir + "/matmul.txt";
  std::filesystem::remove(png);
  // Its own temporary folder: the restore files it leaves (none, it should) are told apart from
  // those of other tests running beside it.
  const std::string tmp = dir + "/tmp";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  // hang-after-first needs no fault: a headless run is watched from its first start (a fault in
  // another process can stop its drawing).
  const bool fault = how != "hang-after-first" && how != "blank-after-first";
  const std::string cmd =
      "TMPDIR='" + tmp + "' CUDALAB_TEST_FIRST_PICTURE=" + how + " '" + CUDALAB_BINARY +
      "' --headless --lesson matmul" + (fault ? " --inject-fault simulated" : "") +
      " --action course --size 800x600 --wait 120 --screenshot '" + png + "' >'" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  const std::string out((std::istreambuf_iterator<char>(in)), {});
  if (out.find("EGL") != std::string::npos && out.find("wrote") == std::string::npos &&
      out.find("Starting again") == std::string::npos)
    GTEST_SKIP() << "no headless GL here: " << out;
  EXPECT_EQ(rc, 0) << out;
  if (fault) {
    EXPECT_NE(out.find("Starting again with the same lesson and parameters"), std::string::npos)
        << out;
  }
  if (how == "hang-after-first")
    EXPECT_NE(out.find("cudalab: the app drew its first picture, then nothing for 30 s; starting "
                       "again drawing in software"),
              std::string::npos)
        << out;
  else if (how == "hang")
    EXPECT_NE(out.find("did not draw its first picture"), std::string::npos) << out;
  else if (how == "hang-later")
    EXPECT_NE(out.find("drew its first picture, then nothing for 30 s; starting again drawing "
                       "in software"),
              std::string::npos)
        << out;
  else if (how == "blank-later" || how == "blank-after-first")
    EXPECT_NE(out.find("a picture after the first came out blank. Starting again with the same "
                       "lesson and parameters, drawing in software"),
              std::string::npos)
        << out;
  else
    EXPECT_NE(out.find("came out blank. Starting again with the same lesson and parameters, "
                       "drawing in software"),
              std::string::npos)
        << out;
  EXPECT_NE(out.find("wrote " + png), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(png)) << out;
  for (const auto& f : std::filesystem::directory_iterator(tmp))
    EXPECT_EQ(f.path().filename().string().rfind("cudalab-restore-", 0), std::string::npos)
        << f.path();
}

INSTANTIATE_TEST_SUITE_P(Ways, FirstPictureAfterRestart,
                         ::testing::Values("hang", "blank", "blank-later", "hang-later",
                                           "hang-after-first", "blank-after-first"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string name = p.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Runs the binary headless with `env` before it, in its own temporary folder; returns its output
// and exit code, and whether the machine has headless GL at all.
struct BinaryRun {
  int rc = -1;
  std::string out;
  bool noGl = false;
};

BinaryRun runBinary(const std::string& name, const std::string& env, const std::string& args) {
  const std::string dir = ::testing::TempDir() + "cudalab-" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/tmp");
  const std::string log = dir + "/log.txt";
  const std::string cmd = "cd '" + dir + "' && TMPDIR='" + dir + "/tmp' " + env + " '" +
                          CUDALAB_BINARY + "' " + args + " >'" + log + "' 2>&1";
  BinaryRun r;
  r.rc = std::system(cmd.c_str());
  std::ifstream in(log);
  r.out.assign(std::istreambuf_iterator<char>(in), {});
  r.noGl = r.out.find("EGL") != std::string::npos && r.out.find("wrote") == std::string::npos &&
           r.out.find("Starting again") == std::string::npos;
  for (const auto& f : std::filesystem::directory_iterator(dir + "/tmp"))
    EXPECT_EQ(f.path().filename().string().rfind("cudalab-restore-", 0), std::string::npos)
        << f.path();
  return r;
}

nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": " << e.what();
    return nlohmann::json::object();
  }
}

// After a fault on the lent H100 and H200, NVIDIA's OpenGL draws nothing in a process that also
// runs CUDA (platform/drawing_path.hpp). The app checks its drawing once CUDA's context is made;
// CUDALAB_TEST_DRAWING=broken fails that check on this machine. The app must start again drawing
// in software, keep the lesson and parameters, say so in the status bar, and write its picture.
TEST(Faults, ADrawingThatFailsBesideCudaStartsAgainDrawingInSoftware) {
  const std::string dir = ::testing::TempDir() + "cudalab-draw-broken";
  const BinaryRun r =
      runBinary("draw-broken", "CUDALAB_TEST_DRAWING=broken",
                "--headless --lesson reduction --size 800x600 --screenshot shot.png "
                "--results shot.json");
  if (r.noGl) GTEST_SKIP() << "no headless GL here: " << r.out;
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("the GPU's OpenGL does not draw beside CUDA: OpenGL drew nothing: 64 of 64 "
                       "pixels"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Starting again with the same lesson and parameters, drawing in software"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/shot.png")) << r.out;
  const nlohmann::json j = readJson(dir + "/shot.json");
  EXPECT_EQ(j.value("lesson", ""), "reduction");
  EXPECT_NE(j.value("status", "")
                .find("started again drawing in software (Mesa) because the "
                      "GPU's OpenGL draws nothing beside CUDA"),
            std::string::npos)
      << j.dump(2);
  EXPECT_TRUE(j.contains("results") && j["results"].contains("cpu")) << j.dump(2);
}

// A start again to draw in software is not a fault: a fault armed for the first GPU job still
// strikes in the app that draws in software (which then starts again drawing in software), and
// the count of faults in a row does not grow with the drawing's restarts.
TEST(Faults, AFaultAfterASoftwareRestartStillStrikesAndKeepsSoftwareDrawing) {
  const std::string dir = ::testing::TempDir() + "cudalab-draw-then-fault";
  const BinaryRun r =
      runBinary("draw-then-fault", "CUDALAB_TEST_DRAWING=broken",
                "--headless --lesson matmul --inject-fault simulated --action course "
                "--size 800x600 --wait 120 --screenshot shot.png --results shot.json");
  if (r.noGl) GTEST_SKIP() << "no headless GL here: " << r.out;
  EXPECT_EQ(r.rc, 0) << r.out;
  const size_t drawing = r.out.find("does not draw beside CUDA");
  const size_t fault = r.out.find("the GPU stopped:");
  ASSERT_NE(drawing, std::string::npos) << r.out;
  ASSERT_NE(fault, std::string::npos) << r.out;
  EXPECT_LT(drawing, fault) << r.out;
  EXPECT_NE(r.out.find("simulated fault"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("Starting again with the same lesson and parameters, drawing in software", fault),
      std::string::npos)
      << r.out;
  const nlohmann::json j = readJson(dir + "/shot.json");
  EXPECT_NE(j.value("status", "").find("started again drawing in software"), std::string::npos)
      << j.dump(2);
  EXPECT_EQ(j.value("status", "").find("three GPU errors"), std::string::npos) << j.dump(2);
}

// Where no software renderer can be had (a server without Mesa), the app goes on without the GPU,
// saying why: the one case, with CUDA itself gone, where a figure falls back to CPU references.
TEST(Faults, WithoutASoftwareRendererItGoesOnWithoutTheGpu) {
  const std::string dir = ::testing::TempDir() + "cudalab-draw-no-software";
  const BinaryRun r =
      runBinary("draw-no-software", "CUDALAB_TEST_DRAWING=broken-no-software",
                "--headless --lesson reduction --size 800x600 --screenshot shot.png "
                "--results shot.json");
  if (r.noGl) GTEST_SKIP() << "no headless GL here: " << r.out;
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("drawing in software"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No software renderer could draw"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Starting again with the same lesson and parameters, without the GPU"),
            std::string::npos)
      << r.out;
  const nlohmann::json j = readJson(dir + "/shot.json");
  EXPECT_EQ(j.value("drawing", ""), "without a GPU") << j.dump(2);
  EXPECT_NE(j.value("status", "").find("no software renderer (Mesa) is installed"),
            std::string::npos)
      << j.dump(2);
}

// The first app to find the GPU's drawing broken writes a record; a later app on this machine
// draws in software from its start (no check that could pass now and hang later, no start again),
// says so and how to go back; CUDALAB_DRAWING=gpu forgets the record.
TEST(Faults, ABrokenDrawingIsRememberedAndLaterAppsDrawInSoftwareFromTheStart) {
  const std::string record = ::testing::TempDir() + "cudalab-drawing-record.txt";
  std::filesystem::remove(record);
  const std::string named = "CUDALAB_DRAWING_RECORD='" + record + "' ";
  const BinaryRun first =
      runBinary("record-first", named + "CUDALAB_TEST_DRAWING=broken",
                "--headless --lesson device --size 800x600 --screenshot shot.png");
  if (first.noGl) GTEST_SKIP() << "no headless GL here: " << first.out;
  EXPECT_EQ(first.rc, 0) << first.out;
  ASSERT_TRUE(std::filesystem::exists(record)) << first.out;

  const std::string dir = ::testing::TempDir() + "cudalab-record-later";
  const BinaryRun later =
      runBinary("record-later", named,
                "--headless --lesson reduction --size 800x600 --screenshot shot.png "
                "--results shot.json");
  EXPECT_EQ(later.rc, 0) << later.out;
  EXPECT_NE(later.out.find("cudalab draws in software (Mesa): NVIDIA's OpenGL stopped drawing "
                           "beside CUDA on this machine at "),
            std::string::npos)
      << later.out;
  EXPECT_NE(later.out.find("OpenGL drew nothing: 64 of 64 pixels"), std::string::npos) << later.out;
  EXPECT_NE(later.out.find("CUDALAB_DRAWING=gpu"), std::string::npos) << later.out;
  EXPECT_EQ(later.out.find("Starting again"), std::string::npos) << later.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/shot.png")) << later.out;
  const nlohmann::json j = readJson(dir + "/shot.json");
  EXPECT_NE(j.value("status", "").find("cudalab draws in software (Mesa)"), std::string::npos)
      << j.dump(2);

  const BinaryRun back =
      runBinary("record-forgotten", named + "CUDALAB_DRAWING=gpu",
                "--headless --lesson device --size 800x600 --screenshot shot.png");
  EXPECT_EQ(back.rc, 0) << back.out;
  EXPECT_EQ(back.out.find("draws in software"), std::string::npos) << back.out;
  EXPECT_FALSE(std::filesystem::exists(record)) << back.out;
}

// The record belongs to this boot of the machine and its GPUs: another boot's is not taken; an
// app going on without the GPU (CUDA hidden) draws with the GPU's OpenGL alone and takes none;
// a test hook does not write one unless the record's file is named.
TEST(Drawing, TheRecordIsThisBootsAndOnlyAnAppWithTheGpuTakesIt) {
  const std::string record = ::testing::TempDir() + "cudalab-drawing-record-unit.txt";
  std::filesystem::remove(record);
  setenv("CUDALAB_DRAWING_RECORD", record.c_str(), 1);
  unsetenv(kDrawingVariable);
  rememberBrokenDrawing("a check drew nothing");
  std::optional<DrawingRecord> r = recordedBrokenDrawing();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->why, "a check drew nothing");
  EXPECT_LE(std::abs(std::difftime(std::time(nullptr), r->when)), 5.0);

  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_FALSE(adoptRecordedDrawing().has_value());
  EXPECT_EQ(drawingPath(), DrawingPath::Gpu);
  unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_TRUE(adoptRecordedDrawing().has_value());
  EXPECT_EQ(drawingPath(), DrawingPath::Software);
  ASSERT_TRUE(drawingFromRecord().has_value());
  unsetenv(kDrawingVariable);
  EXPECT_FALSE(drawingFromRecord().has_value()) << "only an app that took the record says so";

  {  // another boot's record
    std::ifstream in(record);
    std::string key, rest((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(record) << "another-boot" << rest.substr(rest.find('\n'));
  }
  EXPECT_FALSE(recordedBrokenDrawing().has_value());
  EXPECT_FALSE(adoptRecordedDrawing().has_value());
  EXPECT_EQ(drawingPath(), DrawingPath::Gpu);

  std::filesystem::remove(record);
  unsetenv("CUDALAB_DRAWING_RECORD");
  setenv("CUDALAB_TEST_DRAWING", "broken", 1);
  const std::string usual = drawingRecordFile();
  const bool before = std::filesystem::exists(usual);
  rememberBrokenDrawing("a test hook");
  EXPECT_EQ(std::filesystem::exists(usual), before) << usual;
  unsetenv("CUDALAB_TEST_DRAWING");
}

// --results needs a headless screenshot; the refusal says so.
TEST(Faults, ResultsNeedAHeadlessScreenshot) {
  const BinaryRun r = runBinary("results-alone", "", "--results x.json list");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--results goes with --headless --screenshot"), std::string::npos) << r.out;
}

// The drawing check itself, on this machine's OpenGL: it passes where OpenGL draws, leaves the
// framebuffer, viewport and clear colour as it found them, and fails with a sentence naming what
// came back when the test hook stands for a GPU that stopped drawing.
TEST(Drawing, TheCheckPassesWhereOpenGlDrawsAndLeavesTheStateAsItWas) {
  HeadlessContext gl;
  if (Status s = gl.create(-1); !s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  Framebuffer fb;
  ASSERT_TRUE(fb.resize(40, 30).ok());
  fb.bind();
  glViewport(3, 4, 20, 10);
  glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
  ASSERT_TRUE(checkDrawing().ok());
  GLint fbo = 0, vp[4] = {};
  GLfloat clear[4] = {};
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo);
  glGetIntegerv(GL_VIEWPORT, vp);
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear);
  GLint pack = -1;
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack);
  EXPECT_NE(fbo, 0);
  EXPECT_EQ(vp[0], 3);
  EXPECT_EQ(vp[1], 4);
  EXPECT_EQ(vp[2], 20);
  EXPECT_EQ(vp[3], 10);
  EXPECT_FLOAT_EQ(clear[2], 0.75f);
  EXPECT_EQ(pack, 0);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  setenv("CUDALAB_TEST_DRAWING", "broken", 1);
  const Status broken = checkDrawing();
  unsetenv("CUDALAB_TEST_DRAWING");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.message().find("OpenGL drew nothing: 64 of 64 pixels"), std::string::npos)
      << broken.sentence();
  Framebuffer::unbind();
}

TEST(Faults, APictureOfOneColourIsBlank) {
  Image img;
  EXPECT_TRUE(pictureIsBlank(img)) << "no pixels";
  img.width = 3;
  img.height = 2;
  img.rgba.assign(3 * 2 * 4, 0);
  EXPECT_TRUE(pictureIsBlank(img)) << "all black";
  std::fill(img.rgba.begin(), img.rgba.end(), std::uint8_t{37});
  EXPECT_TRUE(pictureIsBlank(img)) << "one grey";
  img.rgba[5 * 4 + 2] = 38;  // the last pixel's blue
  EXPECT_FALSE(pictureIsBlank(img)) << "one pixel differs";
}

}  // namespace
}  // namespace cudalab
