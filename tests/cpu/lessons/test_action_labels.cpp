// Every action a lesson offers to plans and --action (Lesson::actionIds()) names the lesson's own
// button that starts it (Lesson::actionLabel()): a plan's "Run: ..." button shows that text,
// translated, so it must be there, not empty, and the shown text only (no ImGui "##id" suffix).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "lessons/registry.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "tests/without_gpu.hpp"

namespace cudalab {
namespace {

void expectEveryActionLabelled(const Lesson& l) {
  for (const std::string& id : l.actionIds()) {
    SCOPED_TRACE("action " + id);
    const char* label = l.actionLabel(id);
    ASSERT_NE(label, nullptr) << "no label for the action's button";
    EXPECT_GT(std::strlen(label), 0u);
    EXPECT_EQ(std::strstr(label, "##"), nullptr) << label << ": the shown text only";
  }
}

TEST(ActionLabels, EveryActionNamesItsButton) {
  // The lessons as the shell makes them, without a GPU, and fresh ones from the registry.
  Settings settings;
  Shell shell(settings, withoutGpu(), "test", /*headless=*/true);
  for (const LessonEntry& e : lessonRegistry()) {
    SCOPED_TRACE(e.info->id);
    ASSERT_TRUE(shell.selectLesson(e.info->id));
    expectEveryActionLabelled(shell.current());
    std::unique_ptr<Lesson> fresh = e.make();
    ASSERT_NE(fresh, nullptr);
    expectEveryActionLabelled(*fresh);
  }
  for (const auto& lesson : shell.lessons())
    lesson->cancelAll();
}

// An id the lesson does not offer has no label.
TEST(ActionLabels, UnknownActionsHaveNone) {
  for (const LessonEntry& e : lessonRegistry()) {
    std::unique_ptr<Lesson> l = e.make();
    EXPECT_EQ(l->actionLabel("no-such-action"), nullptr) << e.info->id;
  }
}

}  // namespace
}  // namespace cudalab
