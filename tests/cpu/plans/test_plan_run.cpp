// Lesson plans at work: stepping through one in the shell selects each step's lesson with its
// parameters (a lesson not shown yet only takes them), refuses actions that cannot run here with a
// sentence, and a headless run through the binary writes every step's pictures, SVG plots,
// results, plan.md and plan.json.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "plans/plan.hpp"
#include "platform/image.hpp"
#include "lessons/registry.hpp"
#include "commands/restart.hpp"
#include "ui/plan_ui.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "tests/without_gpu.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

double param(Lesson& l, const std::string& id) {
  for (const ParamBinding& b : l.bindings())
    if (id == b.spec->id) return b.get();
  ADD_FAILURE() << "no parameter " << id;
  return -1;
}

TEST(PlanRun, SteppingSelectsEachStepsLessonWithItsParameters) {
  Settings settings;
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  std::vector<std::string> problems;
  ASSERT_TRUE(shell.plans().openPlan("course-004", &problems).ok());
  EXPECT_TRUE(problems.empty());
  const LessonPlan& plan = *shell.plans().plan();
  ASSERT_GE(plan.steps.size(), 5u);
  EXPECT_EQ(shell.plans().stepIndex(), 0);
  EXPECT_STREQ(shell.current().info().id, "launch-config");
  EXPECT_EQ(param(shell.current(), "n"), 4096);
  EXPECT_EQ(param(shell.current(), "blocks"), 32);
  EXPECT_EQ(param(shell.current(), "auto_blocks"), 0) << "off";
  shell.plans().goToStep(1);
  EXPECT_EQ(param(shell.current(), "threads_per_block"), 64) << "too few threads";
  shell.plans().goToStep(2);
  EXPECT_EQ(param(shell.current(), "variant"), 1) << "1d_unguarded";
  // Without a GPU the race cannot run: refused, with a sentence in the status bar.
  int race = -1;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].action == "race") race = int(i);
  ASSERT_GE(race, 0);
  shell.plans().goToStep(race);
  EXPECT_STREQ(shell.current().info().id, "atomics");
  EXPECT_EQ(param(shell.current(), "race_blocks"), 64);
  EXPECT_FALSE(shell.plans().runStep());
  EXPECT_FALSE(shell.plans().stepRan());
  // It says why: the app knows there is no GPU (it said "it may need a GPU, or the lesson is
  // busy").
  EXPECT_NE(shell.lastError().message().find("needs a GPU, and this machine has none"),
            std::string::npos)
      << shell.lastError().sentence();
  // Past either end: the last or the first step.
  shell.plans().goToStep(1000);
  EXPECT_EQ(shell.plans().stepIndex(), int(plan.steps.size()) - 1);
  shell.plans().goToStep(-3);
  EXPECT_EQ(shell.plans().stepIndex(), 0);
  shell.plans().closePlan();
  EXPECT_EQ(shell.plans().plan(), nullptr);
  // An unknown plan: a sentence that names the course's.
  const Status bad = shell.plans().openPlan("course-999", &problems);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("course-000"), std::string::npos);
}

// The course's questions mark code as Markdown does (`if (i < n)`); the window shows them
// without the marks (they showed literally).
TEST(PlanRun, QuestionsShowWithoutMarkdownsCodeMarks) {
  Settings settings;
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  ASSERT_TRUE(shell.plans().openPlan("course-004", nullptr).ok());
  int marked = 0;
  for (const LessonPlanStep& s : shell.plans().plan()->steps) {
    if (s.question.find('`') == std::string::npos) continue;
    ++marked;
    const std::string shown = shownText(s.question);
    EXPECT_EQ(shown.find('`'), std::string::npos) << shown;
    EXPECT_NE(shown.find("if (i < n)"), std::string::npos) << shown;
  }
  EXPECT_GE(marked, 1) << "course-004 no longer marks code: pick another question";
}

TEST(PlanRun, APresetFromTheCommandLinesPathAppliesAndSaysSo) {
  Settings settings;
  settings.lesson = "reduction";
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  ASSERT_TRUE(
      shell.plans().applyPreset(shell.current(), "Course 002: 2^27 - 157 float32 numbers").ok());
  EXPECT_EQ(param(shell.current(), "n"), 134217571);
  EXPECT_EQ(param(shell.current(), "block"), 1) << "128 is the second block size";
  EXPECT_FALSE(shell.current().busy()) << "a lesson not shown yet starts nothing";
  const Status unknown = shell.plans().applyPreset(shell.current(), "nope");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("Course 002"), std::string::npos) << "lists the presets";
}

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The whole headless run, through the binary, on a small plan of two CPU-friendly steps.
TEST(PlanRun, TheHeadlessRunWritesEveryStepsFiles) {
  const fs::path dir = fs::path(::testing::TempDir()) / "cudalab-plan-run";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path planFile = dir / "plan.json";
  std::ofstream(planFile) << R"({"format": "cudalab-plan", "version": 1, "title": "Two steps",
    "steps": [
      {"title": "Sums on the CPU", "lesson": "reduction", "parameters": {"n": 100003},
       "action": "cpu", "panel": "accuracy", "question": "Which order of additions is closest?",
       "note": "The loop loses the most."},
      {"title": "Lost digits", "lesson": "precision",
       "preset": "Course 000: (x + 1) - 1 at x = 1e-8", "panel": "errors",
       "question": "What is (1e-8 + 1) - 1 in float32?", "note": "Zero."}]})";
  const fs::path out = dir / "slides", log = dir / "log.txt";
  const std::string cmd = "CUDA_VISIBLE_DEVICES= '" + std::string(CUDALAB_BINARY) +
                          "' --headless --plan '" + planFile.string() + "' --out '" + out.string() +
                          "' --size 1000x700 --wait 120 >'" + log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string said = readText(log);
  if (said.find("EGL") != std::string::npos && !fs::exists(out / "plan.md"))
    GTEST_SKIP() << "no headless GL here: " << said;
  ASSERT_EQ(rc, 0) << said;
  for (const char* f : {"01-reduction.png", "01-reduction-accuracy.png", "01-reduction.json",
                        "01-reduction-reduction_errors.svg", "02-precision.png",
                        "02-precision-errors.png", "plan.md", "plan.json"})
    EXPECT_TRUE(fs::exists(out / f)) << f << "\n" << said;
  for (const char* f :
       {"01-reduction.png", "01-reduction-accuracy.png", "02-precision-errors.png"}) {
    Result<Image> img = readPng((out / f).string());
    ASSERT_TRUE(img.ok()) << f;
    EXPECT_FALSE(pictureIsBlank(*img)) << f;
  }
  Result<Image> window = readPng((out / "01-reduction.png").string());
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(window->width, 1000);
  EXPECT_EQ(window->height, 700);
  // The CPU's sums of the step's 100,003 numbers were measured and saved.
  const nlohmann::json results = nlohmann::json::parse(readText(out / "01-reduction.json"));
  EXPECT_EQ(results.at("cpu").at("n").get<long long>(), 100003);
  EXPECT_NE(readText(out / "01-reduction-reduction_errors.svg").find("<svg"), std::string::npos);
  const std::string md = readText(out / "plan.md");
  EXPECT_NE(md.find("# Two steps"), std::string::npos);
  EXPECT_NE(md.find("Ask first: Which order of additions is closest?"), std::string::npos);
  EXPECT_NE(md.find("Teacher's note: Zero."), std::string::npos);
  EXPECT_NE(md.find("![01-reduction-accuracy.png](01-reduction-accuracy.png)"), std::string::npos);
  const nlohmann::json index = nlohmann::json::parse(readText(out / "plan.json"));
  ASSERT_EQ(index.at("steps").size(), 2u);
  EXPECT_EQ(index["steps"][1]["preset"], "Course 000: (x + 1) - 1 at x = 1e-8");

  // A plan that cannot be opened: exit code 2 and the sentence.
  const std::string bad = "'" + std::string(CUDALAB_BINARY) + "' --headless --plan nope --out '" +
                          out.string() + "' >'" + log.string() + "' 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
  EXPECT_NE(readText(log).find("There is no lesson plan \"nope\""), std::string::npos)
      << readText(log);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cudalab
