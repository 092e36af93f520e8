// The lesson registry: ids are unique command-line names, every lesson describes itself, declares
// valid parameter ranges and a variants table with unique ids and help for each row.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "lessons/registry.hpp"

namespace cudalab {
namespace {

TEST(Registry, IdsAreUniqueAndFindable) {
  std::set<std::string> ids;
  ASSERT_FALSE(lessonRegistry().empty());
  for (const LessonEntry& e : lessonRegistry()) {
    EXPECT_TRUE(ids.insert(e.info->id).second) << e.info->id;
    EXPECT_EQ(findLesson(e.info->id), &e);
    for (const char* c = e.info->id; *c; ++c)
      EXPECT_TRUE((*c >= 'a' && *c <= 'z') || *c == '-' || (*c >= '0' && *c <= '9')) << e.info->id;
  }
  EXPECT_EQ(findLesson("no-such-lesson"), nullptr);
  EXPECT_NE(findLesson("device"), nullptr);
}

TEST(Registry, EveryLessonDescribesItselfAndItsTables) {
  for (const LessonEntry& e : lessonRegistry()) {
    std::unique_ptr<Lesson> l = e.make();
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(&l->info(), e.info) << "the registry and the lesson share one LessonInfo";
    EXPECT_GT(std::strlen(l->info().title), 0u);
    EXPECT_GT(std::strlen(l->info().course), 0u);
    EXPECT_GT(std::strlen(l->info().summary), 20u);
    EXPECT_FALSE(l->busy()) << "a lesson starts no work before it is shown";
    std::set<std::string> params;
    for (const ParamSpec& p : l->parameters()) {
      EXPECT_TRUE(params.insert(p.id).second) << p.id;
      EXPECT_LT(p.min, p.max) << p.id;
      EXPECT_TRUE(checkRange(p, p.defaultValue).ok()) << p.id << ": default outside its range";
      EXPECT_FALSE(checkRange(p, p.max + 1).ok()) << p.id;
      EXPECT_GT(std::strlen(p.help), 10u) << p.id;
    }
    std::set<std::string> variants;
    for (const VariantRow& v : l->variants()) {
      EXPECT_TRUE(variants.insert(v.id).second) << v.id;
      EXPECT_FALSE(v.label.empty()) << v.id;
      EXPECT_GT(v.help.size(), 10u) << v.id;
    }
  }
}

// Every lesson's bindings (what presets, plans, the soak and the restart set): unique ids, a
// fresh lesson at each spec's default (a preset starts from the defaults, so they must be the
// lesson's own), and choices whose spec counts their options, named once each.
TEST(Registry, EveryBindingStartsAtItsDefaultAndNamesItsChoices) {
  for (const LessonEntry& e : lessonRegistry()) {
    std::unique_ptr<Lesson> l = e.make();
    std::set<std::string> ids;
    for (const ParamBinding& b : l->bindings()) {
      const ParamSpec& p = *b.spec;
      SCOPED_TRACE(std::string(e.info->id) + " " + p.id);
      EXPECT_TRUE(ids.insert(p.id).second) << "two bindings share the id";
      EXPECT_EQ(b.get(), p.defaultValue) << "a fresh lesson is not at the spec's default";
      EXPECT_TRUE(checkRange(p, p.defaultValue).ok());
      EXPECT_GT(std::strlen(p.help), 10u);
      if (b.choices.empty()) continue;
      EXPECT_EQ(p.min, 0);
      EXPECT_EQ(p.max, double(b.choices.size() - 1)) << "the spec's range is not the options'";
      EXPECT_TRUE(p.integer);
      std::set<std::string> names;
      for (const std::string& c : b.choices) {
        EXPECT_FALSE(c.empty());
        EXPECT_TRUE(names.insert(c).second) << c;
      }
    }
  }
}

}  // namespace
}  // namespace cudalab
