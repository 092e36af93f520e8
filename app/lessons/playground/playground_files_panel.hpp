// The last two sections of the playground's parameters panel, drawn from the data they are given:
// the learner's file (a path, Save .cu, Load .cu, the starting kernel back) and the exercise's
// hints, one more per press, with the solution's button and the way back to the learner's code.
// They change the editor's text themselves and say so; the lesson (playground_lesson.cpp) calls
// both from drawParameters and then checks, marks and saves the new text.
#pragma once

#include <optional>
#include <string>

#include "common/status.hpp"
#include "core/lesson.hpp"
#include "playground/playground.hpp"
#include "lessons/playground/code_editor.hpp"

namespace cudalab::pg {

// `path` and `status`: the section's field and its last error. `beforeSolution`: the learner's
// text while the solution is shown (the starting kernel forgets it). `keptBetweenRuns`: the app
// keeps the code in its data folder. Returns true when the editor's text was replaced.
bool drawFiles(LessonContext& ctx, const playground::Exercise& e, CodeEditor& editor,
               std::string& path, Status& status, std::optional<std::string>& beforeSolution,
               bool keptBetweenRuns);
// `hintsShown` grows by one per press. Returns true when the editor's text was replaced (the
// solution shown, or the learner's code back).
bool drawHints(LessonContext& ctx, const playground::Exercise& e, CodeEditor& editor,
               int& hintsShown, std::optional<std::string>& beforeSolution);

// Puts the exercise's solution in the editor, keeping the learner's text in `beforeSolution`
// (unless the solution is already shown).
void showSolution(const playground::Exercise& e, CodeEditor& editor,
                  std::optional<std::string>& beforeSolution);
// Writes `text` to `path` through a temporary file, making the folders it needs.
Status saveFile(const std::string& path, const std::string& text);
// Keeps the next button on this line when it fits there (a projector's UI scale stacks them).
// `nextLabel`: the label as shown (translated).
void sameLineIfButtonFits(const char* nextLabel);

}  // namespace cudalab::pg
