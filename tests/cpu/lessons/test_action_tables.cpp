// Every lesson's action table (core/action.hpp) and what the Lesson base class derives from it:
// the ids that plans, --action and the soak use, the labels of the buttons (a plan's "Run: ..."
// button shows them translated), busy(), cancelAll() and the queue of first measurements.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>

#include "core/i18n.hpp"
#include "lessons/registry.hpp"
#include "tests/without_gpu.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

void expectWellFormed(const Lesson& l) {
  std::set<std::string> seen;
  ASSERT_EQ(l.actionIds().size(), l.actions().size());
  for (size_t i = 0; i < l.actions().size(); ++i) {
    const LessonAction& a = l.actions()[i];
    SCOPED_TRACE("action " + a.id);
    EXPECT_EQ(l.actionIds()[i], a.id) << "actionIds() lists the table in its order";
    EXPECT_FALSE(a.id.empty());
    EXPECT_EQ(a.id.find_first_of(" \t\n"), std::string::npos) << "an id is one word";
    EXPECT_TRUE(seen.insert(a.id).second) << "ids are unique";
    ASSERT_TRUE(a.start && a.pending && a.cancel) << "start, pending and cancel are all given";
    for (const char* label : {a.label, a.currentLabel()}) {
      ASSERT_NE(label, nullptr) << "no label for the action's button";
      EXPECT_GT(std::strlen(label), 0u);
      EXPECT_EQ(std::strstr(label, "##"), nullptr) << label << ": the shown text only";
    }
    EXPECT_STREQ(l.actionLabel(a.id), a.currentLabel());
    if (const char* help = a.currentHelp()) {
      EXPECT_GT(std::strlen(help), 0u);
    }
  }
  EXPECT_EQ(l.actionLabel("no-such-action"), nullptr);
}

TEST(ActionTables, EveryLessonsTableIsWellFormed) {
  // Fresh lessons from the registry, and the lessons as the shell shows them without a GPU (a
  // label or tooltip may follow the GPU).
  Settings settings;
  Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
  for (const LessonEntry& e : lessonRegistry()) {
    SCOPED_TRACE(e.info->id);
    std::unique_ptr<Lesson> fresh = e.make();
    ASSERT_NE(fresh, nullptr);
    expectWellFormed(*fresh);
    for (const LessonAction& a : fresh->actions())
      EXPECT_FALSE(a.pending()) << a.id << ": nothing runs before the lesson is shown";
    EXPECT_FALSE(fresh->busy());
    EXPECT_FALSE(fresh->startAction("no-such-action"));
    ASSERT_TRUE(shell.selectLesson(e.info->id));
    expectWellFormed(shell.current());
  }
  for (const auto& lesson : shell.lessons())
    lesson->cancelAll();
}

// The base class on a lesson of its own: each derived list follows the table.
const LessonInfo kTableInfo{"table", "Table", "", ""};

class TableLesson final : public Lesson {
 public:
  TableLesson() : Lesson(kTableInfo, {}, {}) {
    declareActions({{.id = "one",
                     .label = "One",
                     .help = "The first.",
                     .start = [this] { return !running[0] && (running[0] = true); },
                     .pending = [this] { return running[0]; },
                     .cancel = [this] { running[0] = false; },
                     .progress = [this] { return progressOf(0); }},
                    {.id = "two",
                     .label = "Two",
                     .start = [this] { return !running[1] && (running[1] = true); },
                     .pending = [this] { return running[1]; },
                     .cancel = [this] { running[1] = false; },
                     .labelNow = [this] { return modelled ? "Model two" : "Two"; },
                     .progress = [this] { return progressOf(1); }}});
  }
  void drawParameters(LessonContext&) override {}
  void drawMain(LessonContext&) override {}
  bool otherWorkPending() const override { return other; }
  void cancelOtherWork() override { other = false; }
  void queue(const std::vector<std::string>& ids) { queueActions(ids); }
  bool isWorking() const { return working(); }
  std::optional<JobProgress> progressOf(int i) const {
    if (!running[i]) return std::nullopt;
    return JobProgress{0.5f, i == 0 ? "one" : "two"};
  }

  bool running[2] = {false, false};
  bool other = false, modelled = false;
};

TEST(ActionTables, TheBaseClassDerivesEveryListFromTheTable) {
  TableLesson l;
  EXPECT_EQ(l.actionIds(), (std::vector<std::string>{"one", "two"}));
  EXPECT_STREQ(l.actionLabel("one"), "One");
  EXPECT_STREQ(l.actionLabel("two"), "Two");
  l.modelled = true;
  EXPECT_STREQ(l.actionLabel("two"), "Model two") << "the label as it is now";
  EXPECT_EQ(l.actionLabel("three"), nullptr);
  EXPECT_FALSE(l.busy());
  EXPECT_TRUE(l.startAction("two"));
  EXPECT_FALSE(l.startAction("two")) << "start() refuses while its work runs";
  EXPECT_FALSE(l.startAction("three"));
  EXPECT_TRUE(l.busy());
  EXPECT_TRUE(l.isWorking()) << "working() follows the actions' progress";
  ASSERT_TRUE(l.runningProgress());
  EXPECT_EQ(l.runningProgress()->what, "two");
  l.cancelAll();
  EXPECT_FALSE(l.busy());
  EXPECT_FALSE(l.isWorking());
  EXPECT_FALSE(l.runningProgress());
  l.other = true;
  EXPECT_TRUE(l.busy()) << "other work counts";
  l.cancelAll();
  EXPECT_FALSE(l.other) << "cancelAll() stops other work too";
}

TEST(ActionTables, QueuedActionsStartOneAfterAnotherAndCancelDropsThem) {
  TableLesson l;
  l.queue({"one", "two", "one"});
  EXPECT_TRUE(l.busy()) << "queued actions count as work";
  l.startNextQueued();
  EXPECT_TRUE(l.running[0]);
  EXPECT_FALSE(l.running[1]);
  l.startNextQueued();
  EXPECT_FALSE(l.running[1]) << "nothing starts while an action's work runs";
  l.running[0] = false;  // "one" finished
  l.startNextQueued();
  EXPECT_TRUE(l.running[1]);
  l.cancelAll();
  l.startNextQueued();
  EXPECT_FALSE(l.running[0]) << "one was queued once only";
  EXPECT_FALSE(l.busy());

  l.queue({"two", "one"});
  l.cancelAll();
  EXPECT_FALSE(l.busy()) << "cancelAll() drops the queue";
  l.startNextQueued();
  EXPECT_FALSE(l.running[0] || l.running[1]);
}

}  // namespace
}  // namespace cudalab
