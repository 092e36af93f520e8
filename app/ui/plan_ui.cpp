// [SECTION] index
//   construction, the user's folder
//   presets: the chooser, Save, Delete
//   plans: open, step, run
//   the plan's bar
//   menu, keys and dialogs
#include "ui/plan_ui.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cfloat>
#include <cstring>
#include <filesystem>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: ImGui 1.86's GLFW backend indexes KeysDown by them

#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

std::string shownText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (c != '`') out += c;
  return out;
}

// [SECTION] construction, the user's folder

PlanUi::PlanUi(LessonLookup lessons, Current current, Select select, Select shown, Report report)
    : lessons_(std::move(lessons)),
      current_(std::move(current)),
      select_(std::move(select)),
      shown_(std::move(shown)),
      report_(std::move(report)) {
  presets_.emplace(lessons_, "");
}

void PlanUi::setUserDir(const std::string& configDir) {
  presets_.emplace(lessons_, configDir.empty()
                                 ? std::string()
                                 : (std::filesystem::path(configDir) / "presets").string());
}

// [SECTION] presets: the chooser, Save, Delete

namespace {

std::string sentences(const std::vector<std::string>& all) {
  std::string out;
  for (const std::string& s : all)
    out += (out.empty() ? "" : "\n") + s;
  return out;
}

}  // namespace

Status PlanUi::applyPreset(Lesson& lesson, const std::string& nameOrFile) {
  std::vector<std::string> problems;
  Result<Preset> p = presets_->find(lesson.info().id, nameOrFile, &problems);
  if (!p) return p.status();
  apply(lesson, *p);
  // A file with bad fields still applies the good ones; the status bar says what was left out.
  if (!problems.empty())
    report_(Status::error(problems.front() +
                          (problems.size() > 1
                               ? " (and " + std::to_string(problems.size() - 1) + " more)"
                               : std::string())),
            "");
  return {};
}

void PlanUi::apply(Lesson& lesson, const Preset& p) {
  lesson.cancelAll();
  applyParameters(lesson, p.values, shown_(lesson.info().id));
  applied_[lesson.info().id] = {p.name, p.values};
  report_(Status{}, std::string(tr("Preset")) + " \"" + tr(p.name) + "\": " +
                        (p.description.empty() ? std::string(tr("applied.")) : tr(p.description)));
}

void PlanUi::drawPresets(const Theme& theme, Lesson& lesson) {
  const std::string& id = lesson.info().id;
  const std::vector<const Preset*> list = presets_->of(id);
  // The preset chosen last, by value: choosing or deleting below changes applied_.
  std::optional<Applied> chosen;
  if (const auto it = applied_.find(id); it != applied_.end()) chosen = it->second;
  std::string preview = tr("(your own values)");
  if (chosen) {
    preview = tr(chosen->name);
    if (!parametersAre(lesson, chosen->values)) preview += std::string(" ") + tr("(changed)");
  } else if (parametersAre(lesson, {})) {
    preview = tr("Defaults");
  }
  // The chooser is an arrow; the preset's name beside it wraps rather than being cut (names are
  // sentences, and the sidebar is narrow at a projector's scale). Its list is as wide as its
  // longest name (an arrow's width would wrap every name).
  float listW = ImGui::CalcTextSize(tr("Defaults")).x;
  for (const Preset* p : list) {
    askForGlyphs(tr(p->name.c_str()));  // names a teacher wrote, in any language
    listW = std::max(listW, ImGui::CalcTextSize(tr(p->name.c_str())).x);
  }
  listW = std::min(listW + 4 * ImGui::GetStyle().WindowPadding.x,
                   ImGui::GetIO().DisplaySize.x - ImGui::GetCursorScreenPos().x);
  ImGui::SetNextWindowSizeConstraints(ImVec2(listW, 0), ImVec2(FLT_MAX, FLT_MAX));
  const bool open = ImGui::BeginCombo("##preset", nullptr, ImGuiComboFlags_NoPreview);
  // (While open, the list is the current window: the name beside the arrow comes after it.)
  const bool hovered = !open && ImGui::IsItemHovered();
  const Preset* pick = nullptr;
  bool defaults = false;
  if (open) {
    ImGui::PushTextWrapPos(-1.0f);  // the sidebar wraps its text; the list does not
    if (ImGui::Selectable(tr("Defaults"), false)) defaults = true;
    helpTooltip(N_("Every parameter of the lesson back to where it starts."));
    bool shippedShown = false, userShown = false;
    for (const Preset* p : list) {
      if (p->shipped && !shippedShown) {
        ImGui::Separator();
        ImGui::TextDisabled("%s", tr("The course's"));
        shippedShown = true;
      }
      if (!p->shipped && !userShown) {
        ImGui::Separator();
        ImGui::TextDisabled("%s", tr("Yours"));
        userShown = true;
      }
      ImGui::PushID(p->file.c_str());
      if (ImGui::Selectable(tr(p->name.c_str()), chosen && chosen->name == p->name)) pick = p;
      if (!p->description.empty()) helpTooltip(tr(p->description).c_str());
      ImGui::PopID();
    }
    ImGui::PopTextWrapPos();
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  textWrapped("%s", preview.c_str());
  if (hovered || ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(
        tr("Presets: the course's settings for its experiments, and your own. Choosing one sets "
           "every parameter it names and puts the others back to their defaults."));
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  // Chosen this frame: applied (the Preset object itself, not its name: a name could be
  // another's too) before anything below reads the choice again.
  if (defaults) {
    lesson.cancelAll();
    applyParameters(lesson, {}, shown_(lesson.info().id));
    applied_.erase(id);
    chosen.reset();
    report_(Status{}, tr("Every parameter of this lesson is back to its default."));
  } else if (pick) {
    apply(lesson, *pick);
    chosen = applied_[id];
  }
  if (smallButton(tr("Save as preset..."))) {
    openSave_ = true;
    saveError_ = {};
    std::snprintf(name_, sizeof name_, "%s", chosen ? chosen->name.c_str() : "");
    description_[0] = '\0';
  }
  helpTooltip(presets_->userDir().empty()
                  ? N_("This run keeps nothing on disk (a headless or scripted run).")
                  : trf("Saved in %s", presets_->userDir().c_str()).c_str());
  // The user's own preset can be deleted.
  const Preset* mine = nullptr;
  if (chosen)
    for (const Preset* p : list)
      if (!p->shipped && p->name == chosen->name) mine = p;
  if (mine) {
    sameLineIfFits(smallButtonWidth(tr("Delete")));
    if (smallButton(tr("Delete"))) ImGui::OpenPopup("Delete this preset?");
    if (ImGui::BeginPopup("Delete this preset?")) {
      ImGui::Text(tr("Delete \"%s\"?"), mine->name.c_str());
      if (button(tr("Delete"))) {
        const Preset gone = *mine;  // the store reloads: `mine` is not used after this
        if (Status s = presets_->remove(gone); !s)
          report_(s, "");
        else
          report_(Status{}, std::string(tr("Deleted the preset")) + " \"" + gone.name + "\".");
        applied_.erase(id);
        ImGui::CloseCurrentPopup();
      }
      ImGui::SameLine();
      if (button(tr("Keep it"))) ImGui::CloseCurrentPopup();
      ImGui::EndPopup();
    }
  }
  const std::vector<std::string>& problems = presets_->problems();
  if (!problems.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, theme.warningColour());
    textWrapped("%s", tr("Some of your preset files could not be read in full."));
    ImGui::PopStyleColor();
    helpTooltip(sentences(problems).c_str());
  }
}

void PlanUi::drawSavePopup(float scale) {
  if (openSave_) {
    ImGui::OpenPopup("Save as preset");
    openSave_ = false;
  }
  ImGui::SetNextWindowSize(ImVec2(460 * scale, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Save as preset", nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  Lesson* lesson = current_();
  textWrapped(tr("Every parameter of %s as it is now, under a name."),
              lesson ? tr(lesson->info().title) : tr("the lesson"));
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(-1);
  const bool enter =
      ImGui::InputTextWithHint("##name", tr("Name, e.g. Small sizes for the demo"), name_,
                               sizeof name_, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##description", tr("What it is for (optional)"), description_,
                           sizeof description_);
  askForGlyphs(name_);  // a teacher names presets in their own language
  askForGlyphs(description_);
  bool exists = false;
  if (lesson)
    for (const Preset* p : presets_->of(lesson->info().id))
      exists |= !p->shipped && p->name == name_;
  if (!saveError_) textWrapped("%s", saveError_.sentence().c_str());
  if (button(exists ? N_("Replace") : N_("Save")) || enter) {
    if (!lesson) {
      ImGui::CloseCurrentPopup();
    } else {
      const Preset p = capturePreset(*lesson, name_, description_);
      saveError_ = presets_->save(p, *lesson);
      if (saveError_) {
        applied_[lesson->info().id] = {p.name, p.values};
        report_(Status{},
                trf("Saved the preset \"%s\" in %s.", p.name.c_str(), presets_->userDir().c_str()));
        ImGui::CloseCurrentPopup();
      }
    }
  }
  ImGui::SameLine();
  if (button(tr("Cancel"))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

// [SECTION] plans: open, step, run

namespace {

// What a step's action is called on its button in the lesson, translated (the id when the lesson
// does not say).
const char* actionName(const Lesson* lesson, const std::string& id) {
  const char* label = lesson ? lesson->actionLabel(id) : nullptr;
  return label ? tr(label) : id.c_str();
}

}  // namespace

Status PlanUi::openPlan(const std::string& nameOrFile, std::vector<std::string>* problems) {
  PlanRead r = loadPlan(nameOrFile, *presets_, lessons_);
  if (!r.plan) {
    const Status s = Status::error(r.problems.empty() ? "?" : r.problems.front());
    report_(s, "");
    return s;
  }
  plan_ = std::move(*r.plan);
  goToStep(0);
  showNote_ = false;
  problems_ = r.problems;
  problems_.insert(problems_.end(), r.warnings.begin(), r.warnings.end());
  if (problems) {
    *problems = problems_;
  } else if (!problems_.empty()) {
    problemsTitle_ = problems_.size() == 1
                         ? std::string(tr("The plan opened, but 1 of its fields was left out"))
                         : trf("The plan opened, but %d of its fields were left out",
                               static_cast<int>(problems_.size()));
    openProblems_ = true;
  }
  return {};
}

void PlanUi::closePlan() {
  plan_.reset();
  step_ = 0;
  ran_ = false;
}

void PlanUi::goToStep(int i) {
  if (!plan_ || plan_->steps.empty()) return;
  step_ = std::clamp(i, 0, int(plan_->steps.size()) - 1);
  ran_ = tried_ = showNote_ = revealed_ = false;
  const LessonPlanStep& s = plan_->steps[size_t(step_)];
  // What the status bar said belongs to the step before.
  char where[48];
  std::snprintf(where, sizeof where, tr("Step %d of %d"), step_ + 1, int(plan_->steps.size()));
  report_(Status{}, std::string(where) + ": " + tr(s.title));
  Lesson* lesson = lessons_(s.lesson);
  if (!lesson || !select_(s.lesson)) return;
  lesson->cancelAll();
  applyParameters(*lesson, s.values, shown_(s.lesson));
  if (!s.preset.empty())
    applied_[s.lesson] = {s.preset, s.values};
  else
    applied_.erase(s.lesson);
  panelToShow_ = s.panel;
}

bool PlanUi::runStep() {
  if (!plan_) return false;
  const LessonPlanStep& s = plan_->steps[size_t(step_)];
  Lesson* lesson = lessons_(s.lesson);
  if (!lesson || s.action.empty()) return false;
  tried_ = true;
  if (!lesson->startAction(s.action)) {
    // Why, as far as the plan can tell: the lesson still working, or no GPU to run on.
    const char* name = actionName(lesson, s.action);
    report_(
        Status::error(
            lesson->busy()
                ? trf("The step's action \"%s\" cannot start yet: the lesson is still working "
                      "(wait for it, or press Cancel).",
                      name)
            : !gpu_ ? trf("The step's action \"%s\" needs a GPU, and this machine has none: the "
                          "lesson shows its CPU references and models instead.",
                          name)
                    : trf("The step's action \"%s\" cannot start here: the lesson refused "
                          "it.",
                          name)),
        "");
    return false;
  }
  ran_ = true;
  panelToShow_ = s.panel;
  return true;
}

std::string PlanUi::takePanelToShow() {
  std::string out;
  std::swap(out, panelToShow_);
  return out;
}

// [SECTION] the plan's bar

void PlanUi::drawPlanBar(const Theme& theme, float scale, bool presenting) {
  if (!plan_) return;
  const LessonPlanStep& s = plan_->steps[size_t(step_)];
  const int count = int(plan_->steps.size());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float pad = 8 * scale;
  dl->ChannelsSplit(2);
  dl->ChannelsSetCurrent(1);
  ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPosX() + pad, ImGui::GetCursorPosY() + pad));
  const float width = ImGui::GetContentRegionAvail().x - 2 * pad;
  ImGui::BeginGroup();
  const float x0 = ImGui::GetCursorPosX();
  ImGui::PushTextWrapPos(x0 + width);
  // Line 1: where we are, and a way out.
  const float lineY = ImGui::GetCursorPosY();
  ImGui::BeginDisabled(step_ == 0);
  if (ImGui::ArrowButton("##previous", ImGuiDir_Left)) goToStep(step_ - 1);
  ImGui::EndDisabled();
  helpTooltip("The step before (Page Up)");
  ImGui::SameLine();
  ImGui::BeginDisabled(step_ + 1 >= count);
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) goToStep(step_ + 1);
  ImGui::EndDisabled();
  helpTooltip("The next step (Page Down, which first runs this step's action if it has one)");
  ImGui::SameLine();
  char where[64];
  std::snprintf(where, sizeof where, "%d / %d", step_ + 1, count);
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", where);
  helpTooltip(
      (tr(plan_->title) + (plan_->description.empty() ? "" : "\n\n" + tr(plan_->description)))
          .c_str());
  // The step's title beside them, wrapped short of the close button at the right.
  const float closeW = presenting ? 0.0f : ImGui::CalcTextSize("x").x + 2 * style.FramePadding.x;
  ImGui::SameLine();
  ImGui::PushTextWrapPos(x0 + width - closeW - style.ItemSpacing.x);
  ImGui::PushFont(theme.fonts().bold);
  textWrapped("%s", tr(s.title).c_str());
  ImGui::PopFont();
  ImGui::PopTextWrapPos();
  if (!presenting) {
    const ImVec2 below = ImGui::GetCursorPos();
    ImGui::SetCursorPos(ImVec2(x0 + width - closeW, lineY));
    if (smallButton("x##closeplan")) {
      closePlan();
      ImGui::PopTextWrapPos();
      ImGui::EndGroup();
      dl->ChannelsMerge();
      return;
    }
    helpTooltip("Close the plan (File > Close lesson plan)");
    ImGui::SetCursorPos(below);
  }
  // Line 2: the question, asked before running.
  if (!s.question.empty() && !covering()) {  // (while covering, the cover asks it)
    ImGui::PushStyleColor(ImGuiCol_Text, ran_ ? theme.mutedColour() : theme.warningColour());
    ImGui::PushFont(theme.fonts().bold);
    textWrapped("%s %s", ran_ ? tr("Asked:") : tr("Ask first:"), shownText(tr(s.question)).c_str());
    ImGui::PopFont();
    ImGui::PopStyleColor();
  }
  // Line 3: run, and the teacher's note.
  // Line 3: run, and the teacher's note (folded: at a projector's scale it would take the view's
  // room; the class should not read it first anyway).
  if (!s.action.empty()) {
    const char* name = actionName(lessons_(s.lesson), s.action);
    const std::string label = (ran_ ? trf("Run again: %s", name) : trf("Run: %s", name)) + "###run";
    if (button(label.c_str())) runStep();
    helpTooltip(trf("Presses the lesson's \"%s\" button, as a click on it would (Page Down does it "
                    "too, once).",
                    name)
                    .c_str());
  }
  if (!presenting && !s.note.empty()) {
    if (!s.action.empty()) sameLineIfFits(smallButtonWidth(tr("Teacher's note")));
    if (smallButton(showNote_ ? tr("Hide the note") : tr("Teacher's note"))) showNote_ = !showNote_;
    if (!showNote_) helpTooltip(shownText(tr(s.note)).c_str());
    if (showNote_) {
      ImGui::PushStyleColor(ImGuiCol_Text, theme.mutedColour());
      textWrapped("%s", shownText(tr(s.note)).c_str());
      ImGui::PopStyleColor();
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  dl->ChannelsSetCurrent(0);
  ImVec4 bg = style.Colors[ImGuiCol_FrameBg];
  bg.w = std::max(bg.w, 0.6f);
  dl->AddRectFilled(ImVec2(min.x - pad, min.y - pad), ImVec2(min.x + width + pad, max.y + pad),
                    ImGui::GetColorU32(bg), 6 * scale);
  dl->AddRect(ImVec2(min.x - pad, min.y - pad), ImVec2(min.x + width + pad, max.y + pad),
              ImGui::GetColorU32(ImGuiCol_Border), 6 * scale);
  dl->ChannelsMerge();
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + pad);
  ImGui::Spacing();
}

bool PlanUi::showing(const std::string& lessonId) const {
  const Lesson* l = current_();
  return l && l->info().id == lessonId;
}

bool PlanUi::covering() const {
  if (!plan_ || revealed_ || tried_) return false;
  const LessonPlanStep& s = plan_->steps[size_t(step_)];
  return !s.action.empty() && !s.question.empty() && showing(s.lesson);
}

void PlanUi::drawCover(const Theme& theme, float scale, ImVec2 pos, ImVec2 size) {
  if (!covering()) return;
  const LessonPlanStep& s = plan_->steps[size_t(step_)];
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  bg.w = 1.0f;
  ImGui::PushStyleColor(ImGuiCol_WindowBg, bg);
  ImGui::Begin("##predict", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing);
  const float margin = std::min(60.0f * scale, size.x * 0.08f);
  ImGui::SetCursorPos(ImVec2(margin, std::min(60.0f * scale, size.y * 0.12f)));
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(size.x - margin);
  ImGui::PushStyleColor(ImGuiCol_Text, theme.mutedColour());
  ImGui::TextUnformatted(tr("Predict, then run"));
  ImGui::PopStyleColor();
  ImGui::PushFont(theme.fonts().heading);
  textWrapped("%s", shownText(tr(s.question)).c_str());
  ImGui::PopFont();
  ImGui::Spacing();
  ImGui::Spacing();
  const std::string run = trf("Run: %s", actionName(lessons_(s.lesson), s.action)) + "###run";
  if (button(run.c_str())) runStep();
  helpTooltip(N_("Runs the step: Page Down does it too."));
  sameLineIfFits(smallButtonWidth(tr("Show the lesson first")));
  if (smallButton(tr("Show the lesson first"))) revealed_ = true;
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  ImGui::End();
  ImGui::PopStyleColor();
}

// [SECTION] menu, keys and dialogs

void PlanUi::drawFileMenu() {
  if (ImGui::BeginMenu(tr("Open lesson plan"))) {
    for (const ShippedFile& f : shippedPlanFiles()) {
      // The title without reading every plan each frame: the file's own line.
      const char* t = std::strstr(f.text, "\"title\": \"");
      std::string title = std::filesystem::path(f.name).stem().string();
      if (t) {
        t += std::strlen("\"title\": \"");
        const char* end = std::strchr(t, '"');
        if (end) title = std::string(t, end);
      }
      ImGui::PushID(f.name);
      if (ImGui::MenuItem(tr(title).c_str())) (void)openPlan(std::filesystem::path(f.name).stem());
      ImGui::PopID();
    }
    ImGui::Separator();
    if (ImGui::MenuItem(tr("A plan file..."))) openOpen_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::MenuItem(tr("Close lesson plan"), nullptr, false, plan_.has_value())) closePlan();
}

void PlanUi::handleKeys(const std::function<bool(int)>& pressed) {
  ImGuiIO& io = ImGui::GetIO();
  // With a plan open, Page Up and Page Down are the plan's: ImGui's keyboard navigation would
  // also scroll the sidebar and move its focus with them.
  io.KeyMap[ImGuiKey_PageUp] = plan_ ? -1 : GLFW_KEY_PAGE_UP;
  io.KeyMap[ImGuiKey_PageDown] = plan_ ? -1 : GLFW_KEY_PAGE_DOWN;
  if (!plan_ || io.WantTextInput) return;
  const int count = int(plan_->steps.size());
  if (pressed(GLFW_KEY_PAGE_DOWN)) {
    const LessonPlanStep& s = plan_->steps[size_t(step_)];
    if (!showing(s.lesson))
      goToStep(step_);  // the teacher looked at another lesson: back to the step first
    else if (!s.action.empty() && !tried_)
      runStep();  // predict, then run: the second press runs; a refusal stays on the step
    else if (step_ + 1 < count)
      goToStep(step_ + 1);
  }
  if (pressed(GLFW_KEY_PAGE_UP) && step_ > 0) goToStep(step_ - 1);
}

void PlanUi::drawOpenPopup(const Theme& theme, float scale) {
  if (openOpen_) {
    ImGui::OpenPopup("Open a lesson plan");
    openOpen_ = false;
  }
  ImGui::SetNextWindowSize(ImVec2(560 * scale, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Open a lesson plan", nullptr, ImGuiWindowFlags_NoSavedSettings))
    return;
  textWrapped(
      "A plan is a JSON file of steps (see the README's \"Lesson plans\"). The course's plans are "
      "in File > Open lesson plan.");
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(-1);
  const bool enter = ImGui::InputTextWithHint("##path", tr("/path/to/plan.json"), path_,
                                              sizeof path_, ImGuiInputTextFlags_EnterReturnsTrue);
  askForGlyphs(path_);
  if (button(tr("Open")) || enter) {
    if (openPlan(path_)) ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (button(tr("Cancel"))) ImGui::CloseCurrentPopup();
  (void)theme;
  ImGui::EndPopup();
}

void PlanUi::drawProblemsPopup(float scale) {
  if (openProblems_) {
    ImGui::OpenPopup("Problems in the plan");
    openProblems_ = false;
  }
  ImGui::SetNextWindowSize(ImVec2(640 * scale, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Problems in the plan", nullptr, ImGuiWindowFlags_NoSavedSettings))
    return;
  ImGui::PushTextWrapPos(0.0f);
  textWrapped("%s:", problemsTitle_.c_str());
  for (const std::string& p : problems_) {
    ImGui::Bullet();
    textWrapped("%s", p.c_str());
  }
  ImGui::PopTextWrapPos();
  if (button(tr("OK"))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

void PlanUi::drawPopups(const Theme& theme, float scale) {
  drawSavePopup(scale);
  drawOpenPopup(theme, scale);
  drawProblemsPopup(scale);
}

}  // namespace cudalab
