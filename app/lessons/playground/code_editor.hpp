// A small code editor for the playground: monospace text with line numbers, CUDA colours, marks on
// the lines the compiler (or the app) has something to say about, and "go to line".
//
//   CodeEditor editor;
//   editor.setText(source);
//   editor.setMarks({{12, MarkKind::Error, "identifier \"x\" is undefined"}});
//   if (editor.draw("##code", size, theme)) recompileLater();   // true when the text changed
//   editor.gotoLine(12);                                         // e.g. when an error is clicked
//
// Editing itself (typing, selection, clipboard, undo with Ctrl+Z and redo with Ctrl+Y) is ImGui's
// multi-line text field, made as tall and wide as the text so that this widget owns the
// scrolling; the colours, line numbers, marks and cursor are drawn over it from the tokens of
// playground/source_check.hpp, so the editor colours exactly what the app's checks read.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "playground/source_check.hpp"

namespace cudalab {

class Theme;

enum class MarkKind { Error, Warning };

struct EditorMark {
  int line = 0;  // 1-based
  MarkKind kind = MarkKind::Error;
  std::string message;
};

class CodeEditor {
 public:
  void setText(std::string text);
  const std::string& text() const { return text_; }
  void setMarks(std::vector<EditorMark> marks) { marks_ = std::move(marks); }
  // A colour bar in the margin of each line (index line - 1; 0: none): the machine-code panel's
  // colour for the instructions compiled from the line.
  void setLineBands(const std::vector<ImU32>& bands) { bands_ = bands; }  // reuses its storage
  // Moves the cursor to the start of `line` and scrolls it into view (next frame).
  void gotoLine(int line);
  int cursorLine() const { return cursorLine_; }
  // Draws the editor filling `size` (pixels; 0 = the space available). Returns true when the text
  // changed this frame.
  bool draw(const char* id, ImVec2 size, const Theme& theme);

 private:
  std::string text_;
  std::vector<EditorMark> marks_;
  std::vector<ImU32> bands_;
  int pendingLine_ = 0;
  bool focusNext_ = false;
  int cursor_ = 0;  // byte offset of the cursor while the field is active
  int cursorLine_ = 1;
  bool active_ = false;
  float lastCursorY_ = -1;
  // Derived from the text, computed again only when it (or the font size) changes, not every frame.
  void refreshLayout();
  bool layoutDirty_ = true;
  float layoutFontSize_ = 0;
  int layoutGlyphs_ = 0;   // the atlas it was laid out with (its glyph count)
  float longestLine_ = 0;  // pixels
  std::vector<playground::Token> tokens_;
  friend int editorCallback(struct ImGuiInputTextCallbackData* data);
};

}  // namespace cudalab
