// Lesson plans: an ordered list of steps a teacher walks a class through, each a lesson with its
// parameters (a preset, and/or values of its own), an action to run, a question to ask the class
// before running it ("predict, then run") and a note for the teacher.
//
//   {"format": "cudalab-plan", "version": 1,
//    "title": "Course 002: the sum of many numbers", "course": "002",
//    "description": "What the class will see, in a sentence or two.",
//    "steps": [
//      {"title": "Harris's ladder", "lesson": "reduction",
//       "preset": "Course 002: 2^27 - 157 float32 numbers", "parameters": {"block": 256},
//       "action": "ladder", "panel": "ladder",
//       "question": "Which step do you expect to gain the most, and why?",
//       "note": "Step 4 halves the blocks: point at the blocks column."}]}
//
// Reading follows presets (plans/preset.hpp): one sentence per bad field, the step kept without
// it (a step whose lesson is unknown is left out), unknown fields warned about, a file that is not
// a plan refused whole. The course's plans ship in assets/plans/ (embedded at build time), one per
// course file; `cudalab --plan FILE` or File > Open plan opens one, Page Up / Page Down step
// through it, and `cudalab --headless --plan FILE --out DIR` renders every step (plan_export.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plans/preset.hpp"

namespace cudalab {

inline constexpr const char* kPlanFormat = "cudalab-plan";
inline constexpr int kPlanVersion = 1;

struct LessonPlanStep {
  std::string title;
  std::string lesson;
  std::string preset;              // the preset's name ("" when the step names none)
  std::vector<ParamValue> values;  // the preset's, then the step's own on top
  std::string action;              // one of the lesson's actionIds(), or ""
  std::string panel;               // the panel the step's figure shows ("" = the whole window)
  std::string question;            // asked before running
  std::string note;                // for the teacher
};

struct LessonPlan {
  std::string title, course, description;
  std::vector<LessonPlanStep> steps;
  std::string file;
};

struct PlanRead {
  std::optional<LessonPlan> plan;     // empty when the file is not a plan (or has no step)
  std::vector<std::string> problems;  // why not, or each field left out
  std::vector<std::string> warnings;  // unknown fields, ignored
};

// Reads `text` (the contents of `file`). Presets are looked up in `presets` (the course's and the
// user's, or a preset file's path), lessons through the store's lookup.
PlanRead readPlan(const std::string& text, const std::string& file, PresetStore& presets,
                  const LessonLookup& find);

// The course's plans as shipped (assets/plans), and one found by the file's stem ("course-002");
// a path to a file is read from the disk.
std::vector<ShippedFile> shippedPlanFiles();
PlanRead loadPlan(const std::string& nameOrFile, PresetStore& presets, const LessonLookup& find);

}  // namespace cudalab
