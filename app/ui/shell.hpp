// The shell around the lessons: menu bar, lesson list, the current lesson's parameter panel, its
// main view and the status bar (device, driver and runtime versions, frame rate, last message).
//
// The layout is computed from the display size every frame (no free-floating windows), so the same
// UI can be drawn again off-screen at 2x for figure export or headless screenshots.
//
//   Shell shell(lessonRegistry(), settings, queryRuntime(), "Mesa llvmpipe", /*headless=*/false);
//   shell.selectLesson("device");
//   ... each frame, between ImGui::NewFrame() and ImGui::Render():
//   shell.draw(theme, target);
//   if (auto job = shell.takeExportJob()) { ...render off-screen...; shell.finishExport(...); }
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/runtime_info.hpp"
#include "common/translatable.hpp"
#include "core/catalogue.hpp"
#include "core/lesson.hpp"
#include "ui/pins.hpp"
#include "ui/plan_ui.hpp"
#include "ui/settings.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// RuntimeInfo::summary in the UI's language (the command line prints the English one): the
// lesson's sentence about the GPU, About's and Getting started's.
std::string runtimeSentence(const RuntimeInfo& rt);
// A lesson's name in the sidebar: its title up to the colon ("Matmul", "Transfers"), which fits
// a sidebar at projector scale; the whole title heads the lesson and its tooltip. `##id` keeps
// ImGui's ids apart.
const char* shortName(const LessonInfo& info, char (&out)[96]);

class Theme;

struct FrameTarget {
  float width = 0, height = 0;  // in pixels of the target
  float pixelScale = 1;         // 2 when drawing a 2x figure; multiplies the UI scale
  bool exporting = false;
  bool transparent = false;
  bool scrollToTop = false;  // a panel figure: the main view starts at its top
};

// Export jobs for a plot (rather than a panel) carry this prefix before the plot's id.
inline constexpr const char* kPlotPrefix = "plot:";

struct ExportJob {
  std::string panelId;  // empty: the whole window; "plot:<id>" for one plot
  int pixelScale = 2;
  bool transparent = false;
  std::string path;
};

class Shell {
 public:
  // `catalogue`: the lessons it makes, one of each (lessons/registry.hpp's list, from main()).
  Shell(std::span<const LessonEntry> catalogue, Settings& settings, RuntimeInfo runtime,
        std::string glInfo, bool headless);
  ~Shell();

  bool selectLesson(std::string_view id);
  Lesson& current() { return *lessons_[current_]; }
  const Lesson& current() const { return *lessons_[current_]; }
  const std::vector<std::unique_ptr<Lesson>>& lessons() const { return lessons_; }

  void draw(Theme& theme, const FrameTarget& target);
  bool busy() const;
  // Whether the window should draw every frame: the lesson on screen is working (its results
  // arrive on a later frame) or animating. Hidden lessons' jobs wait until they are shown.
  bool wantsEveryFrame() const;
  bool quitRequested() const { return quit_; }
  // A first run's welcome: what cudalab is, where to start, what works without a GPU.
  void showGettingStarted() { showGettingStarted_ = true; }
  // The window's key presses since the last frame (GlfwWindow::takeKeyPresses), for the
  // shortcuts: a tap that starts and ends between two frames still counts.
  void noteKeyPresses(const std::vector<PressedKey>& presses) {
    keyPresses_.insert(keyPresses_.end(), presses.begin(), presses.end());
  }

  // A figure the user asked for (menu, key or a panel's button), to be rendered by the caller.
  std::optional<ExportJob> takeExportJob();
  void requestWindowExport(int pixelScale);
  void finishExport(const Status& s, const std::string& path);

  PanelRegistry& panels() { return panels_; }
  // Where lessons keep the learner's work (LessonContext::userDataDir) and the user's presets are
  // saved; unset, they keep nothing.
  void setUserDataDir(std::string dir) {
    userDataDir_ = std::move(dir);
    planUi_.setUserDir(userDataDir_);
  }
  // Presets and lesson plans (ui/plan_ui.hpp): --preset, --plan and the headless plan run use it.
  PlanUi& plans() { return planUi_; }
  // Runs pinned side by side (ui/pins.hpp).
  PinBoard& pins() { return pins_; }
  // Pins the current lesson's results, saying what happened in the status bar (button, Ctrl+P).
  void pinCurrent();
  Lesson* lesson(const std::string& id);
  // Every lesson made afresh, as when the app starts: their work cancelled and waited for, their
  // parameters and results gone (pins stay). The soak reads memory after it, so that what
  // outlives the lessons (a leak, a cache, the allocator's free memory) is told apart from what a
  // lesson holds for the sizes it was last given.
  void remakeLessons();
  // Where the main view was in the last frame (panels outside it were cut off).
  PixelRect mainViewRect() const { return mainView_; }
  void report(const Status& s, const std::string& info);
  // After a sticky CUDA error (see common/device_fault.hpp) the process cannot use CUDA again:
  // the shell stops the lessons' work and asks for cudalab to be started again. main() writes
  // relaunchState() to a file and starts a fresh process, which calls restore() with it: the same
  // lesson, every lesson's parameters and a sentence about what happened. The fourth start in a
  // row has CUDA hidden ("without_gpu" in the state): the lessons keep to their CPU references.
  bool relaunchRequested() const { return relaunch_; }
  // What draw() does when it sees a fault; main() calls it too when a fault ended a capture before
  // the next frame (a faulted process cannot render with the GPU either). Idempotent.
  void noticeDeviceFault();
  nlohmann::json relaunchState() const;
  void restore(const nlohmann::json& state);
  int relaunches() const { return relaunches_; }

  // Presentation mode (F5, View menu, --presentation): the lesson's view fills the window at the
  // presentation scale, without menu, sidebar or status bar, and the mouse carries a laser
  // pointer's spot. F5 or Esc leaves it.
  bool presenting() const { return presenting_; }
  void setPresenting(bool on) { presenting_ = on; }
  // The UI scale in effect: the presentation scale while presenting.
  float uiScale() const { return presenting_ ? settings_.presentationScale : settings_.uiScale; }
  const Status& lastError() const { return lastError_; }
  // What the status bar's message says now (the last error, result or hint), translated.
  const std::string& statusText() const { return statusText_; }
  const RuntimeInfo& runtime() const { return runtime_; }
  // How far the current lesson's view is scrolled down, in pixels, as last drawn.
  float mainViewScrollY() const { return mainScrollY_; }
  // "cudalab-device-20261121-143005.png" or "cudalab-device-bandwidth-20261121-143005.png"
  std::string exportFileName(const std::string& what, const std::string& extension) const;
  // The same name in the export folder, which is created if needed.
  std::string exportPath(const std::string& what, const std::string& extension) const;

 private:
  void drawMenuBar(Theme& theme);
  void drawSidebar(Theme& theme, LessonContext& ctx, ImVec2 pos, ImVec2 size);
  void drawMainView(Theme& theme, LessonContext& ctx, ImVec2 pos, ImVec2 size);
  void drawPresentation(Theme& theme, LessonContext& ctx, const FrameTarget& t);
  void drawWindowLayout(Theme& theme, LessonContext& ctx, const FrameTarget& t);
  void drawStatusBar(Theme& theme, const std::string& message, ImVec2 pos, ImVec2 size);
  // The lesson's introduction; on a short view its first two lines and "more" (or all and
  // "less", once opened).
  void drawIntroduction(Theme& theme, const LessonInfo& info, bool shortView);
  // Help's windows (shell_help.cpp): Getting started (shown by itself on a first run), the
  // keyboard shortcuts, About.
  void drawHelpWindows(Theme& theme);
  void drawAbout(Theme& theme);
  void drawGettingStarted(Theme& theme);
  void drawShortcuts();
  void handleKeys();
  void makeLessons();  // one of each, from the catalogue; the settings' lesson current
  LessonContext makeContext(const Theme& theme, const FrameTarget& t);

  std::span<const LessonEntry> catalogue_;
  Settings& settings_;
  RuntimeInfo runtime_;
  std::string glInfo_;
  bool headless_;
  std::string userDataDir_;
  std::vector<std::unique_ptr<Lesson>> lessons_;
  std::vector<bool> shown_;
  size_t current_ = 0;
  PanelRegistry panels_;
  std::optional<ExportJob> exportJob_;
  Status lastError_;
  // What the status bar says: the last error, else the last information (both important: they
  // may take three lines and push the device's line away), else a hint.
  static constexpr const char* kStatusHint =
      N_("F12 saves the window as PNG; View > UI scale for projectors");
  std::string statusText_ = kStatusHint;
  bool statusImportant_ = false;
  bool quit_ = false;
  std::vector<PressedKey> keyPresses_;
  bool presenting_ = false;
  bool showAbout_ = false;
  bool showGettingStarted_ = false;
  bool showShortcuts_ = false;
  float scale_ = 1;
  PixelRect mainView_;
  bool scrollToTop_ = false;
  float mainScrollY_ = 0;
  std::set<std::string> introOpen_;  // lessons whose whole introduction a short view shows
  PlanUi planUi_;
  PinBoard pins_;
  std::string panelToShow_;  // a plan's step brings its panel into view over a few frames
  int showFrames_ = 0;
  bool relaunch_ = false;
  int relaunches_ = 0;
  std::string faultSentence_;
};

}  // namespace cudalab
