#include "lessons/playground/playground_files_panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab::pg {

using namespace playground;

bool drawFiles(LessonContext& ctx, const Exercise& e, CodeEditor& editor, std::string& path,
               Status& status, std::optional<std::string>& beforeSolution, bool keptBetweenRuns) {
  bool replaced = false;
  ImGui::TextUnformatted(tr("File"));
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##path", &path);
  askForGlyphs(path);
  if (button("Save .cu")) status = saveFile(path, editor.text());
  sameLineIfButtonFits(tr("Load .cu"));
  if (button("Load .cu")) {
    std::ifstream in(path);
    if (!in) {
      status = Status::error(trf("Could not open %s.", path.c_str()));
    } else {
      std::stringstream ss;
      ss << in.rdbuf();
      editor.setText(ss.str());
      replaced = true;
      status = {};
      ctx.info(trf("Loaded %s.", path.c_str()));
    }
  }
  sameLineIfButtonFits(tr("Starting kernel"));
  if (button("Starting kernel")) {
    editor.setText(std::string(starterSource(e)));
    beforeSolution.reset();
    replaced = true;
  }
  helpTooltip("Put the exercise's starting kernel back in the editor.");
  errorText(ctx.theme, status);
  if (keptBetweenRuns) mutedText(ctx.theme, "Your code is kept between runs of the app.");
  return replaced;
}

bool drawHints(LessonContext& ctx, const Exercise& e, CodeEditor& editor, int& hintsShown,
               std::optional<std::string>& beforeSolution) {
  bool replaced = false;
  const int total = static_cast<int>(e.hints.size());
  for (int i = 0; i < hintsShown && i < total; ++i)
    textWrapped("Hint %d: %s", i + 1, tr(e.hints[static_cast<size_t>(i)]));
  if (hintsShown < total) {
    // One id whatever the count and the language.
    const std::string label = trf("Show a hint (%d of %d)", hintsShown + 1, total) + "###hint";
    if (button(label.c_str())) ++hintsShown;
  }
  if (!beforeSolution) {
    if (button("Show the solution")) {
      showSolution(e, editor, beforeSolution);
      replaced = true;
    }
    helpTooltip(
        "Replaces your code with a course-style solution; \"Back to my code\" returns "
        "to yours.");
  } else if (button("Back to my code")) {
    editor.setText(*beforeSolution);
    beforeSolution.reset();
    replaced = true;
  }
  (void)ctx;
  return replaced;
}

void showSolution(const Exercise& e, CodeEditor& editor,
                  std::optional<std::string>& beforeSolution) {
  if (!beforeSolution) beforeSolution = editor.text();
  editor.setText(std::string(solutionSource(e)));
}

Status saveFile(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) return Status::error(trf("Could not write %s.", path.c_str()));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::error(trf("Could not write %s: %s.", path.c_str(), ec.message().c_str()));
  return {};
}

void sameLineIfButtonFits(const char* nextLabel) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float next = ImGui::CalcTextSize(nextLabel).x + 2 * st.FramePadding.x + st.ItemSpacing.x;
  const float used = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetScrollX();
  if (used + next <= ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

}  // namespace cudalab::pg
