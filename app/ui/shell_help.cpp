// Help's windows: Getting started (a first run's welcome: what cudalab is, which lesson follows
// which part of the course, what works without a GPU, where to start), the keyboard shortcuts,
// and About. Members of Shell, kept out of shell.cpp.
#include <imgui.h>

#include <algorithm>

#include "common/runtime_info.hpp"
#include "core/i18n.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

namespace {

// A window in the middle of the screen, `width` logical pixels wide.
bool beginCentred(const char* title, bool* open, float width, float scale) {
  // Never past the screen (a projector's scale on a laptop's): a scroll bar instead.
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(display.x * 0.95f, display.y * 0.9f));
  ImGui::SetNextWindowSize(ImVec2(width * scale, 0), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  const bool shown = ImGui::Begin(title, open, ImGuiWindowFlags_NoSavedSettings);
  // Kept on the screen when the scale grows under it (Ctrl+= with the window open).
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  const ImVec2 fit(std::clamp(pos.x, 0.0f, std::max(0.0f, display.x - size.x)),
                   std::clamp(pos.y, 0.0f, std::max(0.0f, display.y - size.y)));
  if (fit.x != pos.x || fit.y != pos.y) ImGui::SetWindowPos(fit);
  return shown;
}

// The shortcuts Help's window lists (About opens it): the key, what it does.
struct Shortcut {
  const char* keys;
  const char* what;
};
constexpr Shortcut kShortcuts[] = {
    {"F12", N_("save the window as PNG (Shift+F12: at twice the pixels)")},
    {"F5", N_("presentation mode: the lesson alone, large (Escape comes back)")},
    {"Ctrl+=  Ctrl+-", N_("UI scale up and down (in presentation mode: its own scale)")},
    {"Ctrl+B", N_("fold or unfold the sidebar")},
    {"Ctrl+P", N_("pin the results, to compare the next runs with them")},
    {"Page Down  Page Up", N_("a lesson plan's next and previous step")},
    {"Ctrl+Z  Ctrl+Y", N_("in the playground's editor: undo, redo")},
    {"Ctrl+Q", N_("quit (the settings are kept)")},
};

}  // namespace

void Shell::drawHelpWindows(Theme& theme) {
  if (showGettingStarted_) drawGettingStarted(theme);
  if (showShortcuts_) drawShortcuts();
  if (showAbout_) drawAbout(theme);
}

void Shell::drawGettingStarted(Theme& theme) {
  if (beginCentred(tr("Getting started"), &showGettingStarted_, 720, scale_)) {
    ImGui::PushFont(theme.fonts().heading);
    textWrapped("%s", tr("Welcome to cudalab"));
    ImGui::PopFont();
    textWrapped("%s", tr("cudalab teaches CUDA by running real kernels and showing what they do. "
                         "Change the grid, the block, the precision or the algorithm: the lesson "
                         "runs again and draws the time, the memory accesses and the numbers."));
    ImGui::Spacing();
    textWrapped("%s", runtime_.hasDevice()
                          ? trf("Your GPU: %s. Every lesson runs its kernels on it and measures "
                                "them.",
                                runtime_.firstDeviceName.c_str())
                                .c_str()
                          : tr("This machine has no NVIDIA GPU that CUDA can use. Every lesson "
                               "still opens: the CPU references, the models and the playground's "
                               "compiler work, each labelled as such; the kernels' times need a "
                               "GPU."));
    ImGui::Spacing();
    textWrapped("%s", tr("The lessons follow the course in order. Each one goes with what you "
                         "have just read:"));
    if (ImGui::BeginTable("##course", 2,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                              ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn(tr("lesson"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableSetupColumn(tr("after reading"), ImGuiTableColumnFlags_WidthStretch, 3.0f);
      ImGui::TableHeadersRow();
      char name[96];
      for (const auto& l : lessons_) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (ImGui::Selectable(shortName(l->info(), name), false,
                              ImGuiSelectableFlags_SpanAllColumns)) {
          selectLesson(l->info().id);
          showGettingStarted_ = false;
        }
        ImGui::TableNextColumn();
        textWrapped("%s", tr(l->info().course));
      }
      ImGui::EndTable();
    }
    ImGui::Spacing();
    textWrapped("%s", tr("Click a lesson to open it; the first, Your GPU, is where to start. For a "
                         "class, File > Open lesson plan walks through the course's experiments "
                         "step by step (Page Down goes on). Help has this page again and the "
                         "keyboard shortcuts."));
    if (ImGui::Button(tr("Start with the first lesson"))) {
      selectLesson(lessons_.front()->info().id);
      showGettingStarted_ = false;
    }
  }
  ImGui::End();
}

void Shell::drawShortcuts() {
  if (beginCentred(tr("Keyboard shortcuts"), &showShortcuts_, 620, scale_)) {
    if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const Shortcut& k : kShortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(k.keys);
        ImGui::TableNextColumn();
        textWrapped("%s", tr(k.what));
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

void Shell::drawAbout(Theme& theme) {
  if (beginCentred("About cudalab", &showAbout_, 560, scale_)) {
    textWrapped(
        "cudalab teaches CUDA by running real kernels and showing what they do. Its lessons follow "
        "a course on Numba CUDA, PyCUDA and cuda-python, rebuilt in CUDA C++.");
    ImGui::Separator();
    textWrapped(tr("CUDA: %s"), runtimeSentence(runtime_).c_str());
    textWrapped(tr("Graphics: %s"), glInfo_.c_str());
    textWrapped(tr("Font: %s"), theme.fonts().source.c_str());
    textWrapped(tr("Settings: %s"), settingsPath().c_str());
    if (ImGui::SmallButton(tr("Keyboard shortcuts"))) showShortcuts_ = true;
  }
  ImGui::End();
}

}  // namespace cudalab
