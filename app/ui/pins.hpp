// Runs side by side: a learner pins what a lesson has measured (up to four runs), changes the
// parameters, runs again, and sees the pinned runs beside the new one: in a table of the lesson's
// rows (Lesson::comparable()) with each pinned value and its difference from now, and on every
// plot as dashed series of the same colours (ui/plot/plot.hpp, SetPinnedRuns). Each pinned run is
// named by the parameters that tell the runs apart ("A: block 128"). The table and every run's
// parameters and results export together as CSV and JSON.
//
//   PinBoard pins;
//   pins.pin(lesson);                   // the sidebar's "Pin these results" (Ctrl+P)
//   ... each frame, around the lesson's drawing:
//   pins.beginLesson(lesson);           // its pinned runs' plots are overlaid from here on
//   pins.drawPanel(ctx, lesson);        // "Runs side by side", when it has pinned runs
//   lesson.drawMain(ctx);
//   pins.endLesson();
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/lesson.hpp"
#include "plans/preset.hpp"
#include "ui/plot/plot.hpp"

namespace cudalab {

class Theme;

struct PinnedRunData {
  std::vector<ParamValue> values;  // the lesson's parameters when it was pinned
  nlohmann::json parameters;       // the same as a preset writes them (names of choices)
  std::vector<ComparedRow> rows;
  std::shared_ptr<const plot::PlotSnapshot> plots;
  LessonResults results;
};

class PinBoard {
 public:
  static constexpr int kMaxPins = 4;

  // Pins what the lesson has measured now; refuses, with a sentence, when it has measured nothing
  // yet or four runs are pinned already.
  Status pin(Lesson& lesson);
  void unpin(const std::string& lesson, int index);
  void clear(const std::string& lesson);
  int count(const std::string& lesson) const;
  const std::vector<PinnedRunData>& runs(const std::string& lesson) const;

  // "A: block 128": the letter, then the parameters whose values differ between the pinned runs
  // and the lesson now (at most three, by the parameter's label and value); "A" alone when none
  // differ.
  std::vector<std::string> names(Lesson& lesson) const;

  void beginLesson(Lesson& lesson);
  void endLesson();
  void drawPanel(LessonContext& ctx, Lesson& lesson);

  // Every run, pinned and now: their names, parameters and rows (long CSV: one value a line).
  std::string comparisonCsv(Lesson& lesson) const;
  nlohmann::json comparisonJson(Lesson& lesson) const;

 private:
  std::vector<std::pair<std::string, std::vector<PinnedRunData>>> byLesson_;
  std::string metric_;  // the table's chosen measure
  std::vector<PinnedRunData>* find(const std::string& lesson);
};

}  // namespace cudalab
