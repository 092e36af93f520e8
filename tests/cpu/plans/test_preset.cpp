// Presets (app/plans/preset.hpp): every lesson's parameters survive a round trip through a preset
// file with fresh random values; the course's presets read cleanly; a bad field costs only itself
// with a sentence, an unknown one a warning; files that are not presets are refused whole with a
// sentence, never a crash; applying puts what the preset leaves out back to its default; the store
// saves, replaces, lists and deletes the user's presets and refuses the course's names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <unistd.h>

#include "lessons/registry.hpp"
#include "plans/preset.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

// One of each lesson, found by id, as the shell's own lessons are.
struct Lessons {
  std::map<std::string, std::unique_ptr<Lesson>> all;
  Lessons() {
    for (const LessonEntry& e : lessonRegistry())
      all[e.info->id] = e.make();
  }
  Lesson& operator[](const std::string& id) { return *all.at(id); }
  LessonLookup lookup() {
    return [this](const std::string& id) -> Lesson* {
      auto it = all.find(id);
      return it == all.end() ? nullptr : it->second.get();
    };
  }
};

// A random value the binding accepts: any option of a choice, any number in the spec's range.
double randomValid(const ParamBinding& b, std::mt19937& rng) {
  const ParamSpec& p = *b.spec;
  if (!b.choices.empty()) return double(rng() % b.choices.size());
  std::uniform_real_distribution<double> u(0, 1);
  double v = p.logScale && p.min > 0 ? p.min * std::pow(p.max / p.min, u(rng))
                                     : p.min + (p.max - p.min) * u(rng);
  if (p.integer) v = std::round(v);
  return std::clamp(v, p.min, p.max);
}

TEST(Preset, EveryLessonsParametersSurviveTheFile) {
  std::mt19937 rng(std::random_device{}());
  Lessons a, b;
  for (const LessonEntry& e : lessonRegistry()) {
    SCOPED_TRACE(e.info->id);
    Lesson& from = a[e.info->id];
    for (const ParamBinding& binding : from.bindings())
      binding.assign(randomValid(binding, rng));
    const std::vector<ParamValue> before = currentValues(from);
    const Preset p = capturePreset(from, "Round trip", "fresh random values");
    const std::string text = presetText(p, from);
    PresetRead r = readPreset(text, "trip.json", b.lookup());
    ASSERT_TRUE(r.preset) << (r.problems.empty() ? "" : r.problems.front());
    EXPECT_TRUE(r.problems.empty()) << r.problems.front();
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    EXPECT_EQ(r.preset->name, "Round trip");
    EXPECT_EQ(r.preset->description, "fresh random values");
    Lesson& to = b[e.info->id];
    applyParameters(to, r.preset->values);
    const std::vector<ParamValue> after = currentValues(to);
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < before.size(); ++i) {
      EXPECT_EQ(after[i].id, before[i].id);
      // Integers and choices exactly; other numbers as JSON writes doubles (exactly too).
      EXPECT_EQ(after[i].value, before[i].value) << before[i].id;
    }
    EXPECT_TRUE(parametersAre(to, r.preset->values));
  }
}

TEST(Preset, TheCoursePresetsReadCleanlyAndApply) {
  Lessons lessons;
  const std::vector<ShippedFile> files = shippedPresetFiles();
  ASSERT_FALSE(files.empty());
  std::map<std::string, std::set<std::string>> names;
  for (const ShippedFile& f : files) {
    SCOPED_TRACE(f.name);
    PresetRead r = readPreset(f.text, f.name, lessons.lookup());
    ASSERT_TRUE(r.preset) << r.problems.front();
    EXPECT_TRUE(r.problems.empty()) << r.problems.front();
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    EXPECT_FALSE(r.preset->values.empty());
    EXPECT_GT(r.preset->description.size(), 20u) << "a teacher reads what it is for";
    EXPECT_TRUE(names[r.preset->lesson].insert(r.preset->name).second) << "names are unique";
    Lesson& l = lessons[r.preset->lesson];
    applyParameters(l, r.preset->values);
    EXPECT_TRUE(parametersAre(l, r.preset->values));
  }
}

std::string withParameters(const std::string& params, const std::string& extra = "") {
  return R"({"format": "cudalab-preset", "version": 1, "lesson": "reduction", "name": "t",)" +
         extra + R"( "parameters": )" + params + "}";
}

TEST(Preset, ABadFieldCostsOnlyItselfAndSaysWhy) {
  Lessons lessons;
  PresetRead r = readPreset(withParameters(R"({"type": "float64", "n": 0, "block": 100,
      "colour": 3, "n2": 5})",
                                           R"( "author": "me",)"),
                            "bad.json", lessons.lookup());
  ASSERT_TRUE(r.preset);
  ASSERT_EQ(r.preset->values.size(), 1u) << "only the type was good";
  EXPECT_EQ(r.preset->values[0].id, "type");
  EXPECT_EQ(r.preset->values[0].value, 2.0) << "float64 is the third type";
  ASSERT_EQ(r.problems.size(), 2u);
  auto said = [&](const std::string& what) {
    return std::any_of(r.problems.begin(), r.problems.end(),
                       [&](const std::string& p) { return p.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(said("\"n\": N must be between 1 and")) << r.problems[0] << r.problems[1];
  EXPECT_TRUE(
      said("\"block\": Threads per block must be 64, 128, 256, 512 or 1024; 100 is not "
           "one of them."))
      << r.problems[0] << r.problems[1];
  ASSERT_EQ(r.warnings.size(), 3u) << "colour, n2 and author are unknown";
  for (const std::string& w : r.warnings)
    EXPECT_NE(w.find("ignored"), std::string::npos) << w;

  // Wrong types, NaN-like and huge numbers.
  r = readPreset(withParameters(R"({"type": 1.5, "n": "many", "block": true})"), "t.json",
                 lessons.lookup());
  ASSERT_TRUE(r.preset);
  EXPECT_TRUE(r.preset->values.empty());
  EXPECT_EQ(r.problems.size(), 3u);
  r = readPreset(withParameters(R"({"n": 1e300})"), "t.json", lessons.lookup());
  ASSERT_EQ(r.problems.size(), 1u);
  r = readPreset(withParameters(R"([1, 2])"), "t.json", lessons.lookup());
  ASSERT_TRUE(r.preset);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("must be an object"), std::string::npos);
  // On/off choices take true and false.
  r = readPreset(R"({"format": "cudalab-preset", "version": 1, "lesson": "stencil", "name": "t",
      "parameters": {"sobel": false, "threshold": "on", "blur": 1}})",
                 "t.json", lessons.lookup());
  ASSERT_TRUE(r.preset);
  EXPECT_EQ(r.preset->values.size(), 2u);
  EXPECT_EQ(r.problems.size(), 1u) << "1 is not off or on";
}

TEST(Preset, FilesThatAreNotPresetsAreRefusedWhole) {
  Lessons lessons;
  const std::pair<const char*, const char*> cases[] = {
      {"", "not JSON"},
      {"[1]", "not an object"},
      {R"({"format": "cudalab-plan", "version": 1})", "\"format\""},
      {R"({"format": "cudalab-preset"})", "\"version\""},
      {R"({"format": "cudalab-preset", "version": 7, "lesson": "reduction", "name": "x"})",
       "newer cudalab"},
      {R"({"format": "cudalab-preset", "version": 1, "lesson": "nope", "name": "x"})",
       "no lesson \"nope\""},
      {R"({"format": "cudalab-preset", "version": 1, "name": "x"})", "names no lesson"},
      {R"({"format": "cudalab-preset", "version": 1, "lesson": "reduction", "name": ""})",
       "no name"},
  };
  for (const auto& [text, why] : cases) {
    PresetRead r = readPreset(text, "f.json", lessons.lookup());
    EXPECT_FALSE(r.preset) << text;
    ASSERT_EQ(r.problems.size(), 1u) << text;
    EXPECT_NE(r.problems[0].find(why), std::string::npos) << r.problems[0];
    EXPECT_NE(r.problems[0].find("f.json"), std::string::npos) << "the sentence names the file";
  }
  // A good file cut anywhere: a preset (perhaps with fewer values) or a sentence, never a crash.
  const std::string good = shippedPresetFiles().front().text;
  std::mt19937 rng(std::random_device{}());
  for (int i = 0; i < 50; ++i) {
    const std::string cut = good.substr(0, rng() % good.size());
    PresetRead r = readPreset(cut, "cut.json", lessons.lookup());
    EXPECT_TRUE(r.preset || !r.problems.empty());
  }
}

TEST(Preset, ApplyingPutsWhatItLeavesOutBackToItsDefault) {
  Lessons lessons;
  Lesson& l = lessons["reduction"];
  ASSERT_TRUE(setParameter(l, "type", 0).ok());
  ASSERT_TRUE(setParameter(l, "block", 4).ok());
  PresetRead r = readPreset(withParameters(R"({"n": 33})"), "t.json", lessons.lookup());
  ASSERT_TRUE(r.preset);
  applyParameters(l, r.preset->values);
  for (const ParamBinding& b : l.bindings())
    EXPECT_EQ(b.get(), std::string(b.spec->id) == "n" ? 33.0 : b.spec->defaultValue) << b.spec->id;
  EXPECT_TRUE(parametersAre(l, r.preset->values));
  ASSERT_TRUE(setParameter(l, "block", 0).ok());
  EXPECT_FALSE(parametersAre(l, r.preset->values)) << "a control moved: the preset is changed";
}

TEST(Preset, TheStoreKeepsTheUsersPresetsBesideTheCourses) {
  Lessons lessons;
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("cudalab-presets-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  PresetStore store(lessons.lookup(), dir.string());
  Lesson& l = lessons["reduction"];
  const size_t shipped = store.of("reduction").size();
  ASSERT_GE(shipped, 1u);
  EXPECT_TRUE(store.problems().empty());

  ASSERT_TRUE(setParameter(l, "n", 1000).ok());
  ASSERT_TRUE(store.save(capturePreset(l, "Small sum", ""), l).ok());
  ASSERT_TRUE(setParameter(l, "n", 2000).ok());
  ASSERT_TRUE(store.save(capturePreset(l, "Small sum", "replaced"), l).ok());
  std::vector<const Preset*> all = store.of("reduction");
  ASSERT_EQ(all.size(), shipped + 1) << "the same name replaces";
  EXPECT_TRUE(all.front()->shipped) << "the course's come first";
  const Preset* mine = all.back();
  EXPECT_FALSE(mine->shipped);
  EXPECT_EQ(mine->description, "replaced");
  EXPECT_TRUE(fs::exists(dir / "reduction" / "small-sum.json"));
  Result<Preset> found = store.find("reduction", "Small sum");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(setParameter(l, "n", 5).ok());
  applyParameters(l, found->values);
  EXPECT_EQ(l.bindings()[1].get(), 2000.0);

  // By file, and refusals.
  EXPECT_TRUE(store.find("reduction", (dir / "reduction" / "small-sum.json").string()).ok());
  EXPECT_FALSE(store.find("matmul", (dir / "reduction" / "small-sum.json").string()).ok());
  Result<Preset> none = store.find("reduction", "no such");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("Small sum"), std::string::npos) << "lists the names";
  EXPECT_FALSE(store.save(capturePreset(l, all.front()->name, ""), l).ok())
      << "a course preset's name is refused";
  EXPECT_FALSE(store.remove(*all.front()).ok()) << "course presets stay";

  // A corrupt file beside it: a sentence, and the good ones still listed.
  std::ofstream(dir / "reduction" / "broken.json") << "{\"format\": \"cudalab-pre";
  ASSERT_TRUE(store.save(capturePreset(l, "Another", ""), l).ok());
  EXPECT_EQ(store.of("reduction").size(), shipped + 2);
  ASSERT_EQ(store.problems().size(), 1u);
  EXPECT_NE(store.problems()[0].find("broken.json"), std::string::npos);

  Result<Preset> another = store.find("reduction", "Another");
  ASSERT_TRUE(another.ok());
  EXPECT_TRUE(store.remove(*another).ok());
  EXPECT_EQ(store.of("reduction").size(), shipped + 1);

  PresetStore nowhere(lessons.lookup(), "");
  EXPECT_FALSE(nowhere.save(capturePreset(l, "x", ""), l).ok()) << "a run that keeps nothing";
  // A folder that cannot be made (a file is in its way): a sentence, and the store still lists
  // the course's presets.
  const fs::path blocked = dir.string() + "-file";
  std::ofstream(blocked) << "not a folder";
  PresetStore unwritable(lessons.lookup(), (blocked / "presets").string());
  const Status refused = unwritable.save(capturePreset(l, "x", ""), l);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("Could not save the preset"), std::string::npos)
      << refused.sentence();
  EXPECT_EQ(unwritable.of("reduction").size(), shipped);
  fs::remove(blocked);
  fs::remove_all(dir);
}

TEST(Preset, FileStemsAreSafe) {
  EXPECT_EQ(presetFileStem("The course's sum"), "the-course-s-sum");
  EXPECT_EQ(presetFileStem("../../etc/passwd"), "etc-passwd");
  EXPECT_EQ(presetFileStem("!!!"), "preset");
  EXPECT_EQ(presetFileStem("커널 1"), "커널-1");
}

}  // namespace
}  // namespace cudalab
