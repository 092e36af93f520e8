// Lesson plans (app/plans/plan.hpp): the course's plans, one per course file, read without a
// problem or a warning, their presets found and their actions the lessons' own; a bad field costs
// its step only that field, a step for an unknown lesson is left out, unknown fields are warned
// about, and files that are not plans are refused whole with a sentence, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "lessons/registry.hpp"
#include "plans/plan.hpp"

namespace cudalab {
namespace {

struct Lessons {
  std::map<std::string, std::unique_ptr<Lesson>> all;
  Lessons() {
    for (const LessonEntry& e : lessonRegistry())
      all[e.info->id] = e.make();
  }
  LessonLookup lookup() {
    return [this](const std::string& id) -> Lesson* {
      auto it = all.find(id);
      return it == all.end() ? nullptr : it->second.get();
    };
  }
};

TEST(LessonPlan, TheCoursePlansReadCleanlyOnePerCourseFile) {
  Lessons lessons;
  PresetStore presets(lessons.lookup(), "");
  std::set<std::string> courses;
  for (const ShippedFile& f : shippedPlanFiles()) {
    SCOPED_TRACE(f.name);
    PlanRead r = readPlan(f.text, f.name, presets, lessons.lookup());
    ASSERT_TRUE(r.plan) << r.problems.front();
    EXPECT_TRUE(r.problems.empty()) << r.problems.front();
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    courses.insert(r.plan->course);
    EXPECT_GE(r.plan->steps.size(), 5u);
    for (const LessonPlanStep& s : r.plan->steps) {
      SCOPED_TRACE(s.title);
      EXPECT_FALSE(s.question.empty()) << "every step asks the class first";
      EXPECT_FALSE(s.note.empty());
      EXPECT_FALSE(s.panel.empty()) << "every step names the figure it makes";
    }
    // Found by the file's stem, as `--plan course-000` does.
    PlanRead byName = loadPlan(std::filesystem::path(f.name).stem(), presets, lessons.lookup());
    ASSERT_TRUE(byName.plan);
    EXPECT_EQ(byName.plan->title, r.plan->title);
  }
  EXPECT_EQ(courses, (std::set<std::string>{"000", "001", "002", "003", "004"}));
}

std::string plan(const std::string& steps) {
  return R"({"format": "cudalab-plan", "version": 1, "title": "T", "steps": )" + steps + "}";
}

TEST(LessonPlan, ABadFieldCostsItsStepOnlyThatField) {
  Lessons lessons;
  PresetStore presets(lessons.lookup(), "");
  PlanRead r = readPlan(plan(R"([
      {"title": "a", "lesson": "reduction", "preset": "no such preset", "action": "fly",
       "parameters": {"n": 33, "block": 7}, "question": 5, "colour": "red"},
      {"title": "b", "lesson": "nope"},
      {"lesson": "matmul", "preset": "Course 001: the course's matrices",
       "parameters": {"course_n": 64}},
      3])"),
                        "p.json", presets, lessons.lookup());
  ASSERT_TRUE(r.plan);
  ASSERT_EQ(r.plan->steps.size(), 2u) << "the unknown lesson's step and the number are left out";
  const LessonPlanStep& a = r.plan->steps[0];
  EXPECT_EQ(a.preset, "");
  EXPECT_EQ(a.action, "");
  EXPECT_EQ(a.question, "");
  ASSERT_EQ(a.values.size(), 1u);
  EXPECT_EQ(a.values[0].id, "n");
  EXPECT_EQ(a.values[0].value, 33);
  const LessonPlanStep& c = r.plan->steps[1];
  EXPECT_EQ(c.title, lessons.all["matmul"]->info().title) << "a step without a title: the lesson's";
  EXPECT_EQ(c.preset, "Course 001: the course's matrices");
  double courseN = 0;
  for (const ParamValue& v : c.values)
    if (v.id == "course_n") courseN = v.value;
  EXPECT_EQ(courseN, 64) << "the step's own value goes on top of the preset's";
  auto said = [&](const std::string& what) {
    for (const std::string& p : r.problems)
      if (p.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(said("step 1 (\"a\"): The lesson reduction has no preset \"no such preset\""));
  EXPECT_TRUE(said("has no action \"fly\" (its actions: ladder, sweep, cpu, counters)"));
  EXPECT_TRUE(said("\"block\": Threads per block must be"));
  EXPECT_TRUE(said("\"question\" is not text"));
  EXPECT_TRUE(said("step 2 (\"b\") is for the lesson \"nope\", which does not exist"));
  EXPECT_TRUE(said("step 4 is not an object"));
  EXPECT_EQ(r.problems.size(), 6u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("\"colour\""), std::string::npos);
}

TEST(LessonPlan, FilesThatAreNotPlansAreRefusedWhole) {
  Lessons lessons;
  PresetStore presets(lessons.lookup(), "");
  const std::pair<std::string, const char*> cases[] = {
      {"{", "not JSON"},
      {R"({"format": "cudalab-preset", "version": 1})", "\"format\""},
      {R"({"format": "cudalab-plan", "version": 2, "steps": []})", "newer cudalab"},
      {R"({"format": "cudalab-plan", "version": 1})", "no list of steps"},
      {plan(R"([{"lesson": "nope"}])"), "none of its steps"},
  };
  for (const auto& [text, why] : cases) {
    PlanRead r = readPlan(text, "f.json", presets, lessons.lookup());
    EXPECT_FALSE(r.plan) << text;
    ASSERT_FALSE(r.problems.empty());
    EXPECT_NE(r.problems[0].find(why), std::string::npos) << r.problems[0];
    EXPECT_NE(r.problems[0].find("f.json"), std::string::npos);
  }
  PlanRead missing = loadPlan("/nonexistent/plan.json", presets, lessons.lookup());
  EXPECT_FALSE(missing.plan);
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_NE(missing.problems[0].find("course-000"), std::string::npos) << "names the course's";
  // A course plan cut anywhere: a plan or a sentence, never a crash.
  const std::string good = shippedPlanFiles().front().text;
  std::mt19937 rng(std::random_device{}());
  for (int i = 0; i < 50; ++i) {
    PlanRead r =
        readPlan(good.substr(0, rng() % good.size()), "cut.json", presets, lessons.lookup());
    EXPECT_TRUE(r.plan || !r.problems.empty());
  }
  // A plan file on disk, with a user's preset file named by its path.
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "cudalab-plan-file";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "p.json") << plan(R"([{"lesson": "reduction", "action": "cpu"}])");
  PlanRead fromDisk = loadPlan((dir / "p.json").string(), presets, lessons.lookup());
  ASSERT_TRUE(fromDisk.plan);
  EXPECT_EQ(fromDisk.plan->steps[0].action, "cpu");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cudalab
