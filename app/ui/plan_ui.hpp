// Presets and lesson plans on screen: the preset chooser at the top of the sidebar's parameters,
// the plan's bar over the lesson's view, their File-menu items, dialogs and keys. The shell owns
// one and calls it every frame; the data (reading, checking, applying) is plans/preset.hpp and
// plans/plan.hpp.
//
//   PlanUi ui(lookup, currentLesson, selectLesson, wasShown, report);
//   ui.setUserDir(configDir);              // the user's presets: configDir/presets
//   ui.openPlan("course-002");             // --plan, File > Open lesson plan
//   ... each frame: ui.drawPresets(theme, lesson) in the sidebar, ui.drawPlanBar(...) over the
//   lesson's view, ui.drawFileMenu() inside File, ui.handleKeys(pressed), ui.drawPopups(theme).
//
// Stepping with a presenter's clicker: Page Down shows a step (its question asked first), then
// runs its action, then goes on to the next step; Page Up goes back a step.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plans/plan.hpp"
#include "plans/preset.hpp"

#include <imgui.h>

namespace cudalab {

class Theme;

// A plan's text (a question, a note) as the window shows it: Markdown's code marks (`if (i < n)`)
// are left out; plan.md keeps them.
std::string shownText(const std::string& text);

class PlanUi {
 public:
  using Report = std::function<void(const Status&, const std::string&)>;
  using Select = std::function<bool(const std::string& lessonId)>;
  using Current = std::function<Lesson*()>;
  // `current`: the lesson the shell shows; `select`: shows another; `shown`: whether a lesson
  // has been shown (a lesson not shown yet takes values without reacting, and starts its first
  // work with them).
  PlanUi(LessonLookup lessons, Current current, Select select, Select shown, Report report);

  // Whether a GPU runs the lessons' work (a step's action that cannot start says why).
  void setGpu(bool gpu) { gpu_ = gpu; }
  // Where the user's presets are kept: `configDir`/presets ("" keeps nothing on disk).
  void setUserDir(const std::string& configDir);
  PresetStore& presets() { return *presets_; }

  // ---- Presets -------------------------------------------------------------------------------
  // The chooser (course presets, the user's, the defaults), Save and Delete, drawn in the sidebar.
  void drawPresets(const Theme& theme, Lesson& lesson);
  // Applies a preset by name or file (--preset); says what it did in the status bar.
  Status applyPreset(Lesson& lesson, const std::string& nameOrFile);

  // ---- Plans ---------------------------------------------------------------------------------
  // Opens a plan (a course plan's stem, or a file) at its first step. The sentences about fields
  // left out go to `problems` when given (a headless run prints them), else to a dialog.
  Status openPlan(const std::string& nameOrFile, std::vector<std::string>* problems = nullptr);
  void closePlan();
  const LessonPlan* plan() const { return plan_ ? &*plan_ : nullptr; }
  int stepIndex() const { return step_; }
  // Shows step `i`: its lesson, with the step's parameters; its action is not run yet.
  void goToStep(int i);
  // Presses the step's action as its button would; false when it has none or cannot start.
  bool runStep();
  bool stepRan() const { return ran_; }
  // The panel the shell should bring into view once (after a step changed), or "".
  std::string takePanelToShow();

  // The bar over the lesson's view: the plan, the step, its question, Run, the teacher's note
  // (left out while presenting: the class sees the screen).
  void drawPlanBar(const Theme& theme, float scale, bool presenting);
  // "Predict, then run": until the step's action is pressed, its question covers the lesson's
  // view (many lessons show a first result at once, which would answer the question before it
  // is asked), with Run and a way to look at the lesson first. Drawn over `pos`, `size`.
  bool covering() const;
  void drawCover(const Theme& theme, float scale, ImVec2 pos, ImVec2 size);
  void drawFileMenu();
  // Page Down and Page Up step the plan; `pressed(key)` says whether a key (GLFW_KEY_*) was
  // pressed this frame, a tap between two frames included (the shell's own shortcuts' test).
  void handleKeys(const std::function<bool(int)>& pressed);
  void drawPopups(const Theme& theme, float scale);

 private:
  bool showing(const std::string& lessonId) const;
  void apply(Lesson& lesson, const Preset& p);
  void drawSavePopup(float scale);
  void drawOpenPopup(const Theme& theme, float scale);
  void drawProblemsPopup(float scale);

  LessonLookup lessons_;
  Current current_;
  Select select_, shown_;
  Report report_;
  bool gpu_ = true;
  std::optional<PresetStore> presets_;
  // The preset last chosen in each lesson, and its values (to mark it changed).
  struct Applied {
    std::string name;
    std::vector<ParamValue> values;
  };
  std::map<std::string, Applied> applied_;

  std::optional<LessonPlan> plan_;
  int step_ = 0;
  bool ran_ = false, tried_ = false;  // the step's action ran; was pressed (it may be refused)
  bool showNote_ = false;
  bool revealed_ = false;  // "Show the lesson first" on this step
  std::string panelToShow_;

  bool openSave_ = false, openOpen_ = false, openProblems_ = false;
  char name_[96] = {}, description_[256] = {}, path_[512] = {};
  Status saveError_;
  std::string problemsTitle_;
  std::vector<std::string> problems_;
};

}  // namespace cudalab
