// What the compiler and cudalab's checker said about the learner's kernel, drawn from the data
// they are given: the messages under the editor (whether the last compile worked, then every
// error and warning, a click going to its line), the same messages as the editor's marks, and the
// compiler output panel (NVRTC's time and options, the kernels' registers and memory, the PTX).
// The lesson owns the editor, the compile results and the jobs (playground_lesson.cpp): it draws
// the messages inside its code panel, sets the marks whenever the text or a result changes, and
// draws the compiler panel from drawMain.
#pragma once

#include <string>
#include <vector>

#include "core/lesson.hpp"
#include "playground/compile.hpp"
#include "playground/worker.hpp"
#include "lessons/playground/code_editor.hpp"

namespace cudalab::pg {

// `compiled`: the last compile (nullptr: none yet); `stale`: the editor's text has changed since;
// `lint`: the checker's findings on the text as it is now.
void drawMessages(LessonContext& ctx, const playground::CompileResult* compiled, bool stale,
                  const std::vector<playground::Diagnostic>& lint, CodeEditor& editor);
// The marks on the editor's lines: the last compile's diagnostics and the sanitizer's finding
// (nullptr when the text has changed since they were made), and the checker's.
std::vector<EditorMark> editorMarks(const std::vector<playground::Diagnostic>* compiled,
                                    const std::vector<playground::Diagnostic>& lint,
                                    const playground::SanitizerFinding* finding);
// NVRTC's time and options and the kernels' registers and memory (the PTX and SASS have a panel of
// their own: playground_machine_code_panel.hpp).
void drawCompilerPanel(LessonContext& ctx, const playground::CompileResult& c);

}  // namespace cudalab::pg
