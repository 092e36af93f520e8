// [SECTION] index
//   construction and lesson selection
//   per-frame drawing: menu bar, sidebar (lessons + parameters), main view, status bar
//   keyboard shortcuts
//   figure export requests
#include "ui/shell.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: ImGui 1.86's GLFW backend indexes KeysDown by them

#include "common/device_fault.hpp"
#include "core/i18n.hpp"
#include "platform/drawing_path.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"

namespace cudalab {

std::string runtimeSentence(const RuntimeInfo& rt) {
  if (!rt.hasDevice() && !rt.driverInstalled)
    return tr(
        "No CUDA device can be used: no NVIDIA driver is installed (libcuda.so.1 was not "
        "found). Lessons show CPU references and analytic models instead, labelled as such.");
  if (rt.hasDevice())
    return trf("CUDA runtime %s, driver %s, %d device(s)",
               cudaVersionString(rt.runtimeVersion).c_str(),
               cudaVersionString(rt.driverVersion).c_str(), rt.deviceCount);
  return trf(
      "No CUDA device can be used (%s: %s). Lessons show CPU references and analytic models "
      "instead, labelled as such.",
      rt.status.cudaName().c_str(), rt.status.message().c_str());
}

// [SECTION] construction and lesson selection

Shell::Shell(std::span<const LessonEntry> catalogue, Settings& settings, RuntimeInfo runtime,
             std::string glInfo, bool headless)
    : catalogue_(catalogue),
      settings_(settings),
      runtime_(std::move(runtime)),
      glInfo_(std::move(glInfo)),
      headless_(headless),
      planUi_([this](const std::string& id) { return lesson(id); },
              [this]() -> Lesson* { return lessons_.empty() ? nullptr : &current(); },
              [this](const std::string& id) { return selectLesson(id); },
              [this](const std::string& id) {
                for (size_t i = 0; i < lessons_.size(); ++i)
                  if (id == lessons_[i]->info().id) return bool(shown_[i]);
                return false;
              },
              [this](const Status& st, const std::string& info) { report(st, info); }) {
  makeLessons();
  planUi_.setGpu(runtime_.hasDevice());
  // A plot's right-click menu (ui/plot): "Save as SVG" writes the plot at once; "Save as PNG"
  // renders it after the frame as a figure of that plot alone (the export job, as a panel's Save
  // PNG button does), at the export scale the learner chose.
  plot::SetExportHandler([this](const char* id, bool svg) {
    if (svg) {
      const std::string path = exportPath(id, "svg");
      finishExport(plot::SaveSvg(id, path), path);
    } else {
      exportJob_ = ExportJob{std::string(kPlotPrefix) + id, settings_.exportScale,
                             settings_.exportTransparent, ""};
    }
  });
}

Lesson* Shell::lesson(const std::string& id) {
  for (const auto& l : lessons_)
    if (id == l->info().id) return l.get();
  return nullptr;
}

void Shell::makeLessons() {
  lessons_.clear();
  for (const LessonEntry& e : catalogue_)
    lessons_.push_back(e.make());
  shown_.assign(lessons_.size(), false);
  if (!selectLesson(settings_.lesson)) current_ = 0;
}

void Shell::remakeLessons() {
  for (const auto& l : lessons_)
    l->cancelAll();
  makeLessons();  // each old lesson's destructor waits for its cancelled work
}

Shell::~Shell() {
  plot::SetExportHandler(nullptr);
}

bool Shell::selectLesson(std::string_view id) {
  for (size_t i = 0; i < lessons_.size(); ++i) {
    if (id == lessons_[i]->info().id) {
      current_ = i;
      settings_.lesson = std::string(id);
      return true;
    }
  }
  return false;
}

// CUDA cannot go on in a process after a sticky error (see common/device_fault.hpp): the shell
// stops the lessons' work, says what happened, and asks main() to start cudalab again with the
// lesson and parameters the learner had (relaunchState()); the new process calls restore().
void Shell::noticeDeviceFault() {
  if (relaunch_) return;
  for (const auto& l : lessons_)
    l->cancelAll();
  const Status cause = lastStickyError();
  faultSentence_ = cause.ok() ? std::string(tr("a sticky CUDA error.")) : cause.sentence();
  report(Status::error(trf("The GPU stopped on an error that ends CUDA in this process: %s cudalab "
                           "is starting again with your lesson and parameters.",
                           faultSentence_.c_str())),
         "");
  relaunch_ = true;
}

nlohmann::json Shell::relaunchState() const {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& l : lessons_)
    for (const ParamBinding& b : l->bindings())
      params[l->info().id][b.spec->id] = b.get();
  return {{"lesson", lessons_[current_]->info().id},
          {"fault", faultSentence_},
          {"relaunches", relaunches_ + 1},
          {"params", params}};
}

void Shell::restore(const nlohmann::json& state) {
  try {
    relaunches_ = state.value("relaunches", 0);
    if (state.contains("params") && state["params"].is_object())
      for (const auto& l : lessons_) {
        const auto it = state["params"].find(l->info().id);
        if (it == state["params"].end() || !it->is_object()) continue;
        for (const auto& [id, v] : it->items())
          if (v.is_number()) (void)restoreParameter(*l, id, v.get<double>());
      }
    selectLesson(state.value("lesson", std::string(current().info().id)));
    faultSentence_ = state.value("fault", std::string(tr("a sticky CUDA error.")));
    // What the learner must know first (the status bar shows three lines; the whole sentence is
    // in its tooltip), then the cause.
    std::string msg =
        state.value("without_gpu", false)
            ? trf("cudalab started again without the GPU %s, with your lesson and parameters and "
                  "the CPU references (start cudalab again to use the GPU). ",
                  tr(state.value("without_gpu_why", std::string(N_("after a GPU error")))).c_str())
        : state.value("software_drawing", false)
            ? trf("cudalab started again drawing in software (Mesa) %s. The kernels still run "
                  "and are measured on the GPU; only the pictures are drawn on the CPU, a little "
                  "slower. Your lesson and parameters are kept. ",
                  tr(state.value("software_drawing_why", std::string(N_("after a GPU error"))))
                      .c_str())
            : std::string(tr("cudalab started again after a GPU error, with your lesson and "
                             "parameters; results measured before are gone. "));
    if (!faultSentence_.empty())
      msg += trf("The error, which ends CUDA in a process: %s", faultSentence_.c_str());
    report(Status::error(msg), "");
  } catch (const std::exception& e) {
    report(Status::error(trf("cudalab started again after a GPU error, but could not restore your "
                             "parameters (%s).",
                             e.what())),
           "");
  }
}

bool Shell::wantsEveryFrame() const {
  return current().busy() || current().animating();
}

bool Shell::busy() const {
  return std::any_of(lessons_.begin(), lessons_.end(), [](const auto& l) { return l->busy(); });
}

void Shell::report(const Status& s, const std::string& info) {
  if (relaunch_) return;  // what follows a GPU fault is its consequence: keep the fault's sentence
  lastError_ = s.ok() ? Status{} : s;
  // The status bar's text, made here once rather than each frame.
  statusImportant_ = !s.ok() || !info.empty();
  statusText_ = !s.ok() ? trStatus(s) : !info.empty() ? info : std::string(tr(kStatusHint));
}

LessonContext Shell::makeContext(const Theme& theme, const FrameTarget& t) {
  LessonContext ctx{runtime_, theme, panels_, scale_, t.exporting, {}, {}, {}};
  ctx.report = [this](const Status& s, const std::string& i) { report(s, i); };
  ctx.exportPath = [this](const std::string& what, const std::string& ext) {
    return exportPath(what, ext);
  };
  ctx.userDataDir = userDataDir_;
  return ctx;
}

// [SECTION] per-frame drawing

void Shell::draw(Theme& theme, const FrameTarget& t) {
  // A sticky CUDA error anywhere (an illegal address, a trap) ends CUDA in this process: stop
  // the lessons' work and ask for a fresh process.
  if (deviceFaulted() && !relaunch_ && runtime_.hasDevice()) noticeDeviceFault();
  scale_ = theme.scale();
  scrollToTop_ = t.scrollToTop;
  panels_.beginFrame();
  if (!t.exporting) handleKeys();
  LessonContext ctx = makeContext(theme, t);
  if (!shown_[current_]) {
    shown_[current_] = true;
    current().onShow(ctx);
  }
  if (presenting_)
    drawPresentation(theme, ctx, t);
  else
    drawWindowLayout(theme, ctx, t);
  // In the window's pictures too (F12: the window as it is seen); not in a panel's figure.
  if (!t.exporting || !t.scrollToTop) drawHelpWindows(theme);
  if (!t.exporting) planUi_.drawPopups(theme, scale_);
  if (auto id = panels_.takeRequest())
    exportJob_ = ExportJob{*id, settings_.exportScale, settings_.exportTransparent, ""};
}

// Menu bar, sidebar (lessons and parameters), the lesson's view, status bar, and the splitter.
void Shell::drawWindowLayout(Theme& theme, LessonContext& ctx, const FrameTarget& t) {
  drawMenuBar(theme);
  const float menuH = ImGui::GetFrameHeight();
  // A sentence longer than the window is wide gets up to three lines (a projector's scale makes
  // many sentences that long; the tooltip has all of it); the device's line gives way first.
  if (!statusImportant_) statusText_ = tr(kStatusHint);  // in the language chosen since
  const std::string& message = statusText_;
  float extraLines = 0;
  if (statusImportant_) {
    const float wrapped = ImGui::CalcTextSize(message.c_str(), nullptr, false,
                                              t.width - 2 * ImGui::GetStyle().WindowPadding.x)
                              .y;
    extraLines = std::clamp(std::round(wrapped / ImGui::GetTextLineHeight()) - 1, 0.0f, 2.0f);
  }
  const float statusH =
      ImGui::GetFrameHeight() + 4.0f * scale_ + extraLines * ImGui::GetTextLineHeight();
  // Collapsed, the sidebar is a strip as wide as its one button (View > Sidebar, Ctrl+B): the
  // lesson's view gets the width a projector needs.
  const float sideW = settings_.sidebarCollapsed
                          ? ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().WindowPadding.x
                          : std::min(settings_.sidebarWidth * scale_, t.width * 0.3f);
  const float bodyH = std::max(1.0f, t.height - menuH - statusH);

  drawSidebar(theme, ctx, ImVec2(0, menuH), ImVec2(sideW, bodyH));
  drawMainView(theme, ctx, ImVec2(sideW, menuH), ImVec2(t.width - sideW, bodyH));
  drawStatusBar(theme, message, ImVec2(0, t.height - statusH), ImVec2(t.width, statusH));

  // The splitter between the sidebar and the main view: drag to resize (persisted). Its window is
  // submitted last and may come to the front (the others stay behind), or it could not be grabbed.
  if (!t.exporting && !settings_.sidebarCollapsed) {
    ImGui::SetNextWindowPos(ImVec2(sideW - 3 * scale_, menuH));
    ImGui::SetNextWindowSize(ImVec2(6 * scale_, bodyH));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
    ImGui::Begin("##splitter", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBackground);
    ImGui::InvisibleButton("##split", ImVec2(6 * scale_, bodyH));
    if (ImGui::IsItemHovered() || ImGui::IsItemActive())
      ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
    if (ImGui::IsItemActive())
      settings_.sidebarWidth =
          std::clamp(settings_.sidebarWidth + ImGui::GetIO().MouseDelta.x / scale_, 160.0f, 900.0f);
    ImGui::End();
    ImGui::PopStyleVar(2);
  }
}

// The lesson's view alone, filling the window, and a laser pointer's spot where the mouse is (a
// projector shows no cursor well). Exports while presenting draw the same view without the spot.
void Shell::drawPresentation(Theme& theme, LessonContext& ctx, const FrameTarget& t) {
  drawMainView(theme, ctx, ImVec2(0, 0), ImVec2(t.width, t.height));
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!t.exporting && ImGui::IsMousePosValid(&mouse) && mouse.x >= 0 && mouse.y >= 0 &&
      mouse.x < t.width && mouse.y < t.height) {
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const float r = 9 * scale_;
    dl->AddCircleFilled(mouse, r * 2.2f, IM_COL32(255, 40, 40, 50), 32);
    dl->AddCircleFilled(mouse, r, IM_COL32(255, 30, 30, 210), 32);
    dl->AddCircle(mouse, r, IM_COL32(255, 255, 255, 200), 32, 1.5f * scale_);
    ImGui::SetMouseCursor(ImGuiMouseCursor_None);
  }
}

void Shell::drawMenuBar(Theme& theme) {
  (void)theme;
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu(tr("File"))) {
    if (ImGui::MenuItem(tr("Save window as PNG (1x)"), "F12")) requestWindowExport(1);
    if (ImGui::MenuItem(tr("Save window as PNG (2x)"), "Shift+F12")) requestWindowExport(2);
    ImGui::Separator();
    ImGui::TextDisabled(tr("Panels' \"Save PNG\" buttons use:"));
    int scale = settings_.exportScale;
    if (ImGui::RadioButton("1x", &scale, 1)) settings_.exportScale = 1;
    ImGui::SameLine();
    if (ImGui::RadioButton(tr("2x (slides)"), &scale, 2)) settings_.exportScale = 2;
    ImGui::MenuItem(tr("Transparent background"), nullptr, &settings_.exportTransparent);
    const std::string dir = settings_.exportDir.empty() ? defaultExportDir() : settings_.exportDir;
    ImGui::TextDisabled(tr("Figures go to %s"), dir.c_str());
    ImGui::Separator();
    planUi_.drawFileMenu();
    ImGui::Separator();
    if (ImGui::MenuItem(tr("Quit"), "Ctrl+Q")) quit_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("View"))) {
    if (ImGui::MenuItem(tr("Dark theme"), nullptr, settings_.theme == "dark"))
      settings_.theme = "dark";
    if (ImGui::MenuItem(tr("Light theme (projector)"), nullptr, settings_.theme == "light"))
      settings_.theme = "light";
    ImGui::Separator();
    struct ScaleChoice {
      const char* name;
      float scale;
    };
    for (const ScaleChoice& p :
         {ScaleChoice{N_("Normal (1x)"), 1.0f}, ScaleChoice{N_("Large (1.5x)"), 1.5f},
          ScaleChoice{N_("Projector (2x)"), 2.0f}, ScaleChoice{N_("Lecture hall (2.5x)"), 2.5f}}) {
      if (ImGui::MenuItem(tr(p.name), nullptr, std::abs(settings_.uiScale - p.scale) < 0.01f))
        settings_.uiScale = p.scale;
    }
    float s = settings_.uiScale;
    ImGui::SetNextItemWidth(160 * scale_);
    if (ImGui::SliderFloat(tr("UI scale"), &s, Settings::kMinScale, Settings::kMaxScale, "%.2fx"))
      settings_.uiScale = s;
    ImGui::TextDisabled(tr("Ctrl+= and Ctrl+- change the scale"));
    ImGui::Separator();
    if (ImGui::MenuItem(tr("Sidebar"), "Ctrl+B", !settings_.sidebarCollapsed))
      settings_.sidebarCollapsed = !settings_.sidebarCollapsed;
    if (ImGui::MenuItem(tr("Presentation mode"), "F5", presenting_)) presenting_ = !presenting_;
    float p = settings_.presentationScale;
    ImGui::SetNextItemWidth(160 * scale_);
    if (ImGui::SliderFloat(tr("Presentation scale"), &p, Settings::kMinScale, Settings::kMaxScale,
                           "%.2fx"))
      settings_.presentationScale = p;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("Language"))) {
    const std::string system = systemLanguage();
    const Language* sys = findLanguage(system);
    char label[96];
    std::snprintf(label, sizeof label, "%s (%s)", tr("The system's"), sys ? sys->name : "English");
    if (ImGui::MenuItem(label, nullptr, settings_.language.empty())) settings_.language.clear();
    ImGui::Separator();
    for (const Language& l : languages()) {
      std::snprintf(label, sizeof label, "%s##%s", l.name, l.code);
      if (ImGui::MenuItem(label, nullptr, settings_.language == l.code))
        settings_.language = l.code;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l.english);
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("Lesson"))) {
    for (const auto& l : lessons_)
      if (ImGui::MenuItem(tr(l->info().title), nullptr, l.get() == &current()))
        selectLesson(l->info().id);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("Help"))) {
    if (ImGui::MenuItem(tr("Getting started"))) showGettingStarted_ = true;
    if (ImGui::MenuItem(tr("Keyboard shortcuts"))) showShortcuts_ = true;
    ImGui::Separator();
    if (ImGui::MenuItem(tr("About cudalab"))) showAbout_ = true;
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

const char* shortName(const LessonInfo& info, char (&out)[96]) {
  const char* title = tr(info.title);
  const char* colon = std::strchr(title, ':');
  std::snprintf(out, sizeof out, "%.*s##%s",
                static_cast<int>(colon ? colon - title : std::strlen(title)), title, info.id);
  return out;
}

namespace {

void lessonTooltip(const Theme& theme, const LessonInfo& info) {
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
  ImGui::PushFont(theme.fonts().bold);
  ImGui::TextUnformatted(tr(info.title));
  ImGui::PopFont();
  ImGui::TextUnformatted(tr(info.summary));
  ImGui::TextDisabled(tr("Follows: %s"), tr(info.course));
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

}  // namespace

void Shell::drawSidebar(Theme& theme, LessonContext& ctx, ImVec2 pos, ImVec2 size) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::Begin("##sidebar", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  if (settings_.sidebarCollapsed) {
    if (ImGui::ArrowButton("##expand", ImGuiDir_Right)) settings_.sidebarCollapsed = false;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("Show the lessons and parameters (Ctrl+B)"));
    ImGui::End();
    return;
  }
  ImGui::PushFont(theme.fonts().bold);
  ImGui::TextUnformatted(tr("Lessons"));
  ImGui::PopFont();
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::GetFrameHeight());
  if (ImGui::ArrowButton("##collapse", ImGuiDir_Left)) settings_.sidebarCollapsed = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("Fold the sidebar to a strip (Ctrl+B)"));
  char name[96];
  // Where the list would take more than two fifths of the height (a projector's scale on a
  // laptop's screen), the lessons are a drop-down list and the parameters keep the room.
  const float listH = float(lessons_.size()) * ImGui::GetTextLineHeightWithSpacing();
  auto lessonList = [&] {
    for (const auto& l : lessons_) {
      if (ImGui::Selectable(shortName(l->info(), name), l.get() == &current()))
        selectLesson(l->info().id);
      lessonTooltip(theme, l->info());
    }
  };
  if (listH > 0.4f * size.y) {
    ImGui::SetNextItemWidth(-1);
    if (beginCombo("##lesson", shortName(current().info(), name))) {
      lessonList();
      ImGui::EndCombo();
    }
    lessonTooltip(theme, current().info());
  } else {
    lessonList();
  }
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::PushFont(theme.fonts().bold);
  ImGui::TextUnformatted(tr("Parameters"));
  ImGui::PopFont();
  planUi_.drawPresets(theme, current());
  {
    const int pinned = pins_.count(current().info().id);
    char label[64];
    if (pinned)
      std::snprintf(label, sizeof label, tr("Pin these results (%d of %d)"), pinned,
                    PinBoard::kMaxPins);
    else
      std::snprintf(label, sizeof label, "%s", tr("Pin these results"));
    std::strncat(label, "###pin", sizeof label - std::strlen(label) - 1);
    if (smallButton(label)) pinCurrent();
    helpTooltip(
        N_("Keeps what the lesson has measured, to compare with the next runs: change the "
           "parameters, run again, and the pinned runs show beside the new one in the \"Runs side "
           "by side\" table and as dashed lines on the plots (Ctrl+P)."));
  }
  // A lesson's headings and notes wrap at the sidebar's edge rather than run past it.
  ImGui::PushTextWrapPos(0.0f);
  current().drawParameters(ctx);
  ImGui::PopTextWrapPos();
  ImGui::End();
}

void Shell::drawMainView(Theme& theme, LessonContext& ctx, ImVec2 pos, ImVec2 size) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::Begin("##main", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  mainView_ = PixelRect{static_cast<int>(pos.x), static_cast<int>(pos.y), static_cast<int>(size.x),
                        static_cast<int>(size.y)};
  // A lesson plan's bar stays over the lesson's view, which scrolls below it.
  planUi_.drawPlanBar(theme, scale_, presenting_);
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0, 0, 0, 0));  // the view's own background
  // A view of its own for each lesson, so each keeps its own scroll: a lesson opens at its top
  // the first time, and where the learner left it afterwards (one view for all opened each
  // lesson at the previous lesson's scroll, its title and introduction off screen).
  ImGui::PushID(current().info().id);
  ImGui::BeginChild("##lesson", ImVec2(0, 0), false);
  ImGui::PopStyleColor();
  if (scrollToTop_) ImGui::SetScrollY(0);
  const ImVec2 viewPos = ImGui::GetWindowPos();
  if (std::string p = planUi_.takePanelToShow(); !p.empty()) {
    panelToShow_ = p;
    showFrames_ = 4;  // the panel's place settles as results and fonts arrive
  }
  const LessonInfo& info = current().info();
  ImGui::PushFont(theme.fonts().heading);
  textWrapped("%s", tr(info.title));  // wraps at a projector's scale
  ImGui::PopFont();
  // A short view (a projector's scale on a laptop's 720 lines) has room for about 20 lines of
  // text: the introduction and the no-GPU sentence in full took 60% of it.
  const bool shortView = size.y < 22.0f * ImGui::GetTextLineHeightWithSpacing();
  drawIntroduction(theme, info, shortView);
  if (!runtime_.hasDevice()) {
    ImGui::PushStyleColor(ImGuiCol_Text, theme.warningColour());
    if (shortView) {
      textWrapped("%s", tr("No CUDA device: CPU references and models instead."));
      ImGui::PopStyleColor();
      helpTooltip(runtimeSentence(runtime_).c_str());
    } else {
      textWrapped("%s", runtimeSentence(runtime_).c_str());
      ImGui::PopStyleColor();
    }
  }
  ImGui::Spacing();
  pins_.beginLesson(current());
  pins_.drawPanel(ctx, current());
  current().startNextQueued();
  errorText(theme, current().error());
  current().drawMain(ctx);
  pins_.endLesson();
  // A plan's step shows its panel: scroll so that its top is at the top of the view.
  if (showFrames_ > 0 && !scrollToTop_) {
    --showFrames_;
    if (const auto r = panels_.rect(panelToShow_))
      ImGui::SetScrollY(std::max(0.0f, ImGui::GetScrollY() + float(r->y) - viewPos.y));
  }
  const ImVec2 coverPos = ImGui::GetWindowPos(), coverSize = ImGui::GetWindowSize();
  mainScrollY_ = ImGui::GetScrollY();
  ImGui::EndChild();
  ImGui::PopID();
  ImGui::End();
  // A plan's step asks its question over the lesson until it runs (not on exported figures).
  if (!ctx.exporting) planUi_.drawCover(theme, scale_, coverPos, coverSize);
}

void Shell::drawIntroduction(Theme& theme, const LessonInfo& info, bool shortView) {
  const char* text = tr(info.summary);
  const bool open = introOpen_.count(info.id) > 0;
  if (!shortView || open) {
    mutedText(theme, text);
    if (shortView && smallButton("less")) introOpen_.erase(info.id);
    return;
  }
  // Its first two lines, cut at a word so that "... more" ends the second.
  ImFont* font = ImGui::GetFont();
  const float scale = ImGui::GetFontSize() / font->FontSize;
  const float width = ImGui::GetContentRegionAvail().x;
  const char* end = text + std::strlen(text);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float more = ImGui::CalcTextSize(" ... ").x + ImGui::CalcTextSize(tr("more")).x +
                     2 * style.FramePadding.x + 2 * style.ItemSpacing.x;
  const char* first = font->CalcWordWrapPositionA(scale, text, end, width);
  const char* second = first;
  while (second < end && (*second == ' ' || *second == '\n'))
    ++second;
  const char* cut =
      second < end ? font->CalcWordWrapPositionA(scale, second, end, width - more) : end;
  if (cut >= end) return mutedText(theme, text);  // two lines hold it
  // Each line an item of its own: "more" then sits after the second line's end.
  ImGui::PushStyleColor(ImGuiCol_Text, theme.mutedColour());
  ImGui::TextUnformatted(text, first);
  ImGui::TextUnformatted((std::string(second, cut) + " ...").c_str());
  ImGui::PopStyleColor();
  ImGui::SameLine();
  if (smallButton("more")) introOpen_.insert(info.id);
}

void Shell::drawStatusBar(Theme& theme, const std::string& message, ImVec2 pos, ImVec2 size) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::GetStyleColorVec4(ImGuiCol_MenuBarBg));
  ImGui::Begin("##status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  // Right: the device, versions and frame rate. Left, in the space that remains: the last message,
  // which is what the user is looking for after an action.
  char right[256];
  if (runtime_.hasDevice())
    std::snprintf(right, sizeof right, tr("%s  |  driver %s, runtime %s  |  "),
                  runtime_.firstDeviceName.c_str(),
                  cudaVersionString(runtime_.driverVersion).c_str(),
                  cudaVersionString(runtime_.runtimeVersion).c_str());
  else
    // The same reason as the lesson's sentence gives (no driver at all is what most learners
    // without a GPU have; CUDA's name for it, cudaErrorInsufficientDriver, says something else).
    std::snprintf(
        right, sizeof right, tr("No CUDA device (%s)  |  runtime %s  |  "),
        runtime_.driverInstalled ? runtime_.status.cudaName().c_str() : tr("no NVIDIA driver"),
        cudaVersionString(runtime_.runtimeVersion).c_str());
  // Drawing in software beside the GPU (platform/drawing_path.hpp): said on the right, in the
  // warning colour, with why in its tooltip.
  const bool software = runtime_.hasDevice() && drawingPath() == DrawingPath::Software;
  const char* softwareText = software ? tr("drawn in software  |  ") : "";
  char fps[32];
  if (headless_)
    std::snprintf(fps, sizeof fps, "%s", tr("headless"));
  else
    std::snprintf(fps, sizeof fps, "%.0f fps", static_cast<double>(ImGui::GetIO().Framerate));
  const float avail = ImGui::GetContentRegionAvail().x;
  const float msgTextW = ImGui::CalcTextSize(message.c_str()).x;
  // The device's line shows only when a message (an error, a result) leaves room for it; the
  // hint gives way to the device's line instead.
  const bool important = statusImportant_;
  const float rightW = ImGui::CalcTextSize(right).x + ImGui::CalcTextSize(softwareText).x +
                       ImGui::CalcTextSize(fps).x;
  // An error may take the whole bar; a result ("Saved ...") keeps the device's line beside it,
  // wrapped into the lines the bar has (at UI scale 2 on 1280 x 720 a saved file's path pushed
  // the device, runtime and frame rate off the screen).
  const bool showRight =
      !important || static_cast<bool>(lastError_) || msgTextW + rightW + 16 * scale_ <= avail;
  const float msgW = showRight ? std::max(0.0f, avail - rightW - 16 * scale_) : avail;
  if (important) {
    // Only whole lines, as many as the bar was given; the tooltip has the rest.
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float lineH = ImGui::GetTextLineHeight();
    const float lines = std::max(1.0f, std::floor((pos.y + size.y - at.y) / lineH));
    ImGui::PushClipRect(at, ImVec2(pos.x + size.x, at.y + lines * lineH), true);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + msgW);
    ImGui::PushStyleColor(
        ImGuiCol_Text, !lastError_ ? theme.errorColour() : ImGui::GetStyleColorVec4(ImGuiCol_Text));
    textWrapped("%s", message.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    ImGui::PopClipRect();
  } else if (msgTextW <= msgW) {
    ImGui::TextDisabled("%s", message.c_str());
  } else {
    // A hint cut in the middle ("F12 saves the wi") says nothing: it shows whole or not at all.
    ImGui::Dummy(ImVec2(msgW, ImGui::GetTextLineHeight()));
  }
  if (ImGui::IsItemHovered() && important) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    ImGui::TextUnformatted(message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  if (!showRight) {
    ImGui::End();
    ImGui::PopStyleColor();
    return;
  }
  ImGui::SameLine(std::max(msgW + 16 * scale_, avail - rightW));
  if (!runtime_.hasDevice()) ImGui::PushStyleColor(ImGuiCol_Text, theme.warningColour());
  ImGui::TextUnformatted(right);
  if (!runtime_.hasDevice()) ImGui::PopStyleColor();
  helpTooltip(glInfo_.c_str());
  if (software) {
    ImGui::SameLine(0, 0);
    ImGui::PushStyleColor(ImGuiCol_Text, theme.warningColour());
    ImGui::TextUnformatted(softwareText);
    ImGui::PopStyleColor();
    helpTooltip(trf("The pictures are drawn by Mesa's software renderer (%s), because the GPU's "
                    "OpenGL stopped drawing beside CUDA after a GPU error, here or in another "
                    "program; it stays so until the GPU is reset. The kernels still run and are "
                    "measured on the GPU.",
                    glInfo_.c_str())
                    .c_str());
  }
  ImGui::SameLine(0, 0);
  ImGui::TextUnformatted(fps);
  ImGui::End();
  ImGui::PopStyleColor();
}

// [SECTION] keyboard shortcuts

void Shell::handleKeys() {
  const ImGuiIO& io = ImGui::GetIO();
  const std::vector<PressedKey> presses = std::exchange(keyPresses_, {});
  if (io.WantTextInput) return;
  // Pressed this frame: seen by ImGui (down now, up before), or a tap the window caught between
  // two frames. With `ctrl`, only with Ctrl held.
  auto pressed = [&](int key, bool ctrl = false) -> std::optional<PressedKey> {
    for (const PressedKey& k : presses)
      if (k.key == key && (!ctrl || k.ctrl)) return k;
    if (ImGui::IsKeyPressed(key, false) && (!ctrl || io.KeyCtrl))
      return PressedKey{key, io.KeyCtrl, io.KeyShift};
    return std::nullopt;
  };
  if (auto k = pressed(GLFW_KEY_F12)) requestWindowExport(k->shift ? 2 : 1);
  if (pressed(GLFW_KEY_Q, true)) quit_ = true;
  if (pressed(GLFW_KEY_B, true)) settings_.sidebarCollapsed = !settings_.sidebarCollapsed;
  if (pressed(GLFW_KEY_F5)) presenting_ = !presenting_;
  planUi_.handleKeys([&](int key) { return pressed(key).has_value(); });
  if (pressed(GLFW_KEY_P, true)) pinCurrent();
  if (presenting_ && pressed(GLFW_KEY_ESCAPE)) presenting_ = false;
  // Ctrl+= and Ctrl+- change the scale in effect: the presentation's while presenting.
  float& scale = presenting_ ? settings_.presentationScale : settings_.uiScale;
  if (pressed(GLFW_KEY_EQUAL, true) || pressed(GLFW_KEY_KP_ADD, true))
    scale = std::min(Settings::kMaxScale, scale + 0.25f);
  if (pressed(GLFW_KEY_MINUS, true) || pressed(GLFW_KEY_KP_SUBTRACT, true))
    scale = std::max(Settings::kMinScale, scale - 0.25f);
}

void Shell::pinCurrent() {
  if (Status s = pins_.pin(current()); !s) return report(s, "");
  const std::vector<std::string> names = pins_.names(current());
  report(Status{}, trf("Pinned as %s. Change the parameters and run again: the runs show side by "
                       "side.",
                       names.back().c_str()));
}

// [SECTION] figure export requests

void Shell::requestWindowExport(int pixelScale) {
  exportJob_ = ExportJob{"", pixelScale, settings_.exportTransparent, ""};
}

std::optional<ExportJob> Shell::takeExportJob() {
  if (!exportJob_) return std::nullopt;
  ExportJob job = *exportJob_;
  exportJob_.reset();
  std::string what = job.panelId;
  if (what.rfind(kPlotPrefix, 0) == 0) what = what.substr(std::strlen(kPlotPrefix));
  job.path = exportPath(what, "png");
  return job;
}

std::string Shell::exportFileName(const std::string& what, const std::string& extension) const {
  // Milliseconds too, so two figures saved in the same second do not overwrite each other.
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const long long ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[40];
  const size_t len = std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::snprintf(stamp + len, sizeof stamp - len, "-%03lld", ms);
  std::string name = std::string("cudalab-") + lessons_[current_]->info().id;
  if (!what.empty()) name += "-" + what;
  return name + "-" + stamp + "." + extension;
}

std::string Shell::exportPath(const std::string& what, const std::string& extension) const {
  const std::string dir = settings_.exportDir.empty() ? defaultExportDir() : settings_.exportDir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return (std::filesystem::path(dir) / exportFileName(what, extension)).string();
}

void Shell::finishExport(const Status& s, const std::string& path) {
  if (s)
    report(s, trf("Saved %s", path.c_str()));
  else
    report(s, "");
}

}  // namespace cudalab
