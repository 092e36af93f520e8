#include "lessons/playground/playground_compiler_panel.hpp"

#include <imgui.h>

#include <algorithm>

#include "common/format.hpp"
#include "lessons/playground/playground_panels.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab::pg {

using namespace playground;

namespace {

// A diagnostic's message as shown, on its line under the editor and as the line's mark.
std::string diagnosticText(const Diagnostic& d) {
  return d.format ? fillFormat(tr(d.format), d.values) : d.message;
}

}  // namespace

void drawMessages(LessonContext& ctx, const CompileResult* compiled, bool stale,
                  const std::vector<Diagnostic>& lint, CodeEditor& editor) {
  std::vector<const Diagnostic*> all;
  if (compiled)
    for (const Diagnostic& d : compiled->diagnostics)
      all.push_back(&d);
  for (const Diagnostic& d : lint)
    all.push_back(&d);
  if (compiled) {
    const CompileResult& c = *compiled;
    const int errors = static_cast<int>(
        std::count_if(c.diagnostics.begin(), c.diagnostics.end(),
                      [](const Diagnostic& d) { return d.severity == Severity::Error; }));
    std::string line =
        c.ok          ? trf("Compiled for sm_%d in %s ms", c.arch, trimmedFixed(c.ms, 0).c_str())
        : errors == 1 ? std::string(tr("Did not compile: 1 error"))
                      : trf("Did not compile: %d errors", errors);
    if (stale) line = trf("%s (you have edited it since)", line.c_str());
    ImGui::TextColored(c.ok ? ctx.theme.goodColour() : ctx.theme.errorColour(), "%s", line.c_str());
  }
  for (size_t i = 0; i < all.size(); ++i) {
    const Diagnostic& d = *all[i];
    const ImVec4 colour =
        d.severity == Severity::Error ? ctx.theme.errorColour() : ctx.theme.warningColour();
    // The compiler's message is its own English; cudalab's checker's is translated.
    const bool error = d.severity == Severity::Error;
    const std::string message = diagnosticText(d);
    std::string text = d.line > 0 ? (error ? trf("line %d: error: %s", d.line, message.c_str())
                                           : trf("line %d: warning: %s", d.line, message.c_str()))
                                  : (error ? trf("error: %s", message.c_str())
                                           : trf("warning: %s", message.c_str()));
    if (d.fromWhom == "cudalab") text += "  (cudalab)";
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    textWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
    if (d.line > 0) {
      if (ImGui::IsItemHovered()) ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
      if (ImGui::IsItemClicked()) editor.gotoLine(d.line);
      helpTooltip("Click to go to this line.");
    }
  }
  if (compiled && !compiled->ok && compiled->diagnostics.empty())
    textWrapped("%s", compiled->log.c_str());
}

std::vector<EditorMark> editorMarks(const std::vector<Diagnostic>* compiled,
                                    const std::vector<Diagnostic>& lint,
                                    const SanitizerFinding* finding) {
  std::vector<EditorMark> marks;
  auto add = [&](const Diagnostic& d) {
    if (d.line > 0)
      marks.push_back({d.line, d.severity == Severity::Error ? MarkKind::Error : MarkKind::Warning,
                       diagnosticText(d)});
  };
  if (compiled)
    for (const Diagnostic& d : *compiled)
      add(d);
  for (const Diagnostic& d : lint)
    add(d);
  if (finding && finding->line > 0)
    marks.push_back({finding->line, MarkKind::Error, finding->what});
  return marks;
}

void drawCompilerPanel(LessonContext& ctx, const CompileResult& c) {
  if (beginPanel(ctx, "compiler", "Compiler output", kPanelCollapsible)) {
    textWrapped(c.cached
                    ? tr("Compiled in %s ms for sm_%d with NVRTC %s (unchanged text: the earlier "
                         "result).")
                    : tr("Compiled in %s ms for sm_%d with NVRTC %s."),
                trimmedFixed(c.ms, 1).c_str(), c.arch, c.nvrtcVersion.c_str());
    // The options, so the same compilation can be repeated with nvcc; the include folders are
    // the toolkit's own and would only make the line long.
    std::string options;
    for (const std::string& o : c.options)
      if (o.rfind("-I", 0) != 0) options += " " + o;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    textWrapped("Options:%s", options.c_str());
    ImGui::PopStyleColor();
    drawResources(ctx, c);
  }
  endPanel(ctx);
}

}  // namespace cudalab::pg
