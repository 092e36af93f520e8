#include "lessons/playground/code_editor.hpp"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "playground/source_check.hpp"
#include "ui/theme.hpp"

namespace cudalab {

namespace {

// Token colours, chosen to read on both themes (the light theme darkens them).
ImU32 tokenColour(playground::TokenKind k, bool light) {
  using playground::TokenKind;
  auto c = [&](int r, int g, int b) {
    if (light) return IM_COL32(r * 6 / 10, g * 6 / 10, b * 6 / 10, 255);
    return IM_COL32(r, g, b, 255);
  };
  switch (k) {
    case TokenKind::Comment:
      return light ? IM_COL32(100, 110, 100, 255) : IM_COL32(130, 150, 130, 255);
    case TokenKind::String:
      return c(230, 160, 80);
    case TokenKind::Preprocessor:
      return c(200, 120, 220);
    case TokenKind::Number:
      return c(120, 200, 240);
    case TokenKind::Keyword:
      return c(90, 160, 255);
    case TokenKind::Qualifier:
      return c(255, 120, 120);
    case TokenKind::Builtin:
      return c(90, 220, 160);
    default:
      return ImGui::GetColorU32(ImGuiCol_Text);
  }
}

int lineCount(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n')) + 1;
}

int lineOf(const std::string& s, int offset) {
  offset = std::clamp(offset, 0, static_cast<int>(s.size()));
  return static_cast<int>(std::count(s.begin(), s.begin() + offset, '\n')) + 1;
}

int offsetOfLine(const std::string& s, int line) {
  int l = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (l >= line) return static_cast<int>(i);
    if (s[i] == '\n') ++l;
  }
  return static_cast<int>(s.size());
}

}  // namespace

int editorCallback(ImGuiInputTextCallbackData* data) {
  auto* self = static_cast<CodeEditor*>(data->UserData);
  if (data->EventFlag == ImGuiInputTextFlags_CallbackEdit) {
    // A tab becomes four spaces, so columns are the same everywhere the text is drawn.
    for (int i = 0; i < data->BufTextLen; ++i) {
      if (data->Buf[i] != '\t') continue;
      data->DeleteChars(i, 1);
      data->InsertChars(i, "    ");
    }
    return 0;
  }
  if (data->EventFlag == ImGuiInputTextFlags_CallbackAlways) {
    if (self->pendingLine_ > 0) {
      const std::string_view text(data->Buf, static_cast<size_t>(data->BufTextLen));
      int l = 1, pos = 0;
      while (pos < data->BufTextLen && l < self->pendingLine_)
        if (text[static_cast<size_t>(pos++)] == '\n') ++l;
      data->CursorPos = data->SelectionStart = data->SelectionEnd = pos;
      self->pendingLine_ = 0;
    }
    self->cursor_ = data->CursorPos;
  }
  return 0;
}

void CodeEditor::refreshLayout() {
  // Laid out again when the text, the size or the atlas changed (the letters asked for below
  // arrive with a rebuilt atlas, wider than the '?' they replace).
  const int glyphs = ImGui::GetFont()->Glyphs.Size;
  if (!layoutDirty_ && layoutFontSize_ == ImGui::GetFontSize() && layoutGlyphs_ == glyphs) return;
  layoutDirty_ = false;
  layoutFontSize_ = ImGui::GetFontSize();
  layoutGlyphs_ = glyphs;
  askForGlyphs(text_);  // Korean or Chinese in a comment or a string
  tokens_ = playground::tokenize(text_);
  longestLine_ = 0;
  for (size_t b = 0, e; b <= text_.size(); b = e + 1) {
    e = text_.find('\n', b);
    if (e == std::string::npos) e = text_.size();
    longestLine_ =
        std::max(longestLine_, ImGui::CalcTextSize(text_.data() + b, text_.data() + e).x);
  }
}

void CodeEditor::setText(std::string text) {
  layoutDirty_ = true;
  text_ = std::move(text);
  for (size_t i = 0; (i = text_.find('\t', i)) != std::string::npos;)
    text_.replace(i, 1, "    ");
  marks_.clear();
}

void CodeEditor::gotoLine(int line) {
  pendingLine_ = std::max(1, line);
  focusNext_ = true;
}

bool CodeEditor::draw(const char* id, ImVec2 size, const Theme& theme) {
  ImFont* mono = theme.fonts().mono ? theme.fonts().mono : ImGui::GetFont();
  const bool light = theme.light();
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  if (size.y <= 0) size.y = ImGui::GetContentRegionAvail().y;
  bool changed = false;
  ImGui::PushID(id);
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild("##scroll", size, true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(mono);
  const float lineH = ImGui::GetTextLineHeight();
  const float charW = ImGui::CalcTextSize("0").x;
  const int lines = lineCount(text_);
  const float gutterW = charW * 5.5f;
  refreshLayout();
  const float longest = std::max(charW, longestLine_);
  const ImVec2 framePad = ImGui::GetStyle().FramePadding;
  const ImVec2 fieldSize(
      std::max(ImGui::GetContentRegionAvail().x - gutterW, longest + 4 * charW + 2 * framePad.x),
      lineH * static_cast<float>(lines + 2) + 2 * framePad.y);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(origin.x + gutterW, origin.y));
  // The field draws no text of its own (transparent): the coloured copy below is what shows.
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(0, 0, 0, 0));
  ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));
  if (focusNext_) {
    ImGui::SetKeyboardFocusHere();
    focusNext_ = false;
  }
  changed = ImGui::InputTextMultiline(
      "##text", &text_, fieldSize,
      ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackAlways |
          ImGuiInputTextFlags_CallbackEdit | ImGuiInputTextFlags_NoHorizontalScroll,
      editorCallback, this);
  active_ = ImGui::IsItemActive();
  ImGui::PopStyleColor(2);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 textOrigin(origin.x + gutterW + framePad.x, origin.y + framePad.y);
  const float scrollY = ImGui::GetScrollY();
  const int firstVisible = std::max(1, static_cast<int>(scrollY / lineH));
  const int lastVisible = std::min(lines, firstVisible + static_cast<int>(size.y / lineH) + 2);
  // Marks: a tinted band across the line, and a bar in the gutter.
  for (const EditorMark& m : marks_) {
    if (m.line < 1 || m.line > lines) continue;
    const float y = textOrigin.y + lineH * static_cast<float>(m.line - 1);
    const ImVec4 c = m.kind == MarkKind::Error ? theme.errorColour() : theme.warningColour();
    dl->AddRectFilled(ImVec2(origin.x + gutterW, y),
                      ImVec2(origin.x + gutterW + fieldSize.x, y + lineH),
                      ImGui::GetColorU32(ImVec4(c.x, c.y, c.z, 0.18f)));
    dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + charW * 0.6f, y + lineH),
                      ImGui::GetColorU32(c));
  }
  // The machine code's colours, a bar between the numbers and the text.
  for (int l = firstVisible; l <= lastVisible && l <= static_cast<int>(bands_.size()); ++l) {
    if (!bands_[static_cast<std::size_t>(l - 1)]) continue;
    const float y = textOrigin.y + lineH * static_cast<float>(l - 1);
    dl->AddRectFilled(ImVec2(origin.x + gutterW - charW * 0.8f, y),
                      ImVec2(origin.x + gutterW - charW * 0.2f, y + lineH),
                      bands_[static_cast<std::size_t>(l - 1)]);
  }
  // Line numbers.
  const ImU32 muted = ImGui::GetColorU32(theme.mutedColour());
  for (int l = firstVisible; l <= lastVisible; ++l) {
    char num[16];
    std::snprintf(num, sizeof num, "%4d", l);
    dl->AddText(ImVec2(origin.x + charW * 0.3f, textOrigin.y + lineH * static_cast<float>(l - 1)),
                muted, num);
  }
  // The text, token by token, in colour (only the visible lines).
  if (changed) {
    layoutDirty_ = true;
    refreshLayout();
  }
  for (const playground::Token& t : tokens_) {
    if (t.kind == playground::TokenKind::Space) continue;
    const int endLine =
        t.line + static_cast<int>(std::count(text_.begin() + t.begin, text_.begin() + t.end, '\n'));
    if (endLine < firstVisible || t.line > lastVisible) continue;
    const ImU32 col = tokenColour(t.kind, light);
    // Column of the token's start.
    int lineStart = t.begin;
    while (lineStart > 0 && text_[static_cast<size_t>(lineStart - 1)] != '\n')
      --lineStart;
    // Measured, not counted in columns: the same glyph advances the text field uses.
    float x0 = ImGui::CalcTextSize(text_.data() + lineStart, text_.data() + t.begin).x;
    int line = t.line;
    int b = t.begin;
    while (b < t.end) {
      int e = b;
      while (e < t.end && text_[static_cast<size_t>(e)] != '\n')
        ++e;
      dl->AddText(ImVec2(textOrigin.x + x0, textOrigin.y + lineH * static_cast<float>(line - 1)),
                  col, text_.data() + b, text_.data() + e);
      b = e + 1;
      x0 = 0;
      ++line;
    }
  }
  // The cursor (the field's own is transparent with its text).
  if (active_) {
    cursor_ = std::clamp(cursor_, 0, static_cast<int>(text_.size()));
    cursorLine_ = lineOf(text_, cursor_);
    const int lineBegin = offsetOfLine(text_, cursorLine_);
    const float x =
        textOrigin.x + ImGui::CalcTextSize(text_.data() + lineBegin, text_.data() + cursor_).x;
    const float y = textOrigin.y + lineH * static_cast<float>(cursorLine_ - 1);
    const bool blinkOn = std::fmod(ImGui::GetTime(), 1.0) < 0.6;
    if (blinkOn)
      dl->AddLine(ImVec2(x, y), ImVec2(x, y + lineH), ImGui::GetColorU32(ImGuiCol_Text), 1.5f);
    // Keep the cursor in view when it moved (typing at the bottom, arrow keys).
    if (y != lastCursorY_) {
      const float top = ImGui::GetWindowPos().y, bottom = top + ImGui::GetWindowHeight();
      if (y < top + lineH) ImGui::SetScrollY(std::max(0.0f, scrollY - (top + lineH - y)));
      if (y + 2 * lineH > bottom) ImGui::SetScrollY(scrollY + (y + 2 * lineH - bottom));
      lastCursorY_ = y;
    }
  }
  if (pendingLine_ > 0 && !active_) {
    // Scroll the requested line into view now; the cursor moves when the field is active.
    const float y = lineH * static_cast<float>(pendingLine_ - 1);
    if (y < scrollY || y > scrollY + size.y - 3 * lineH)
      ImGui::SetScrollY(std::max(0.0f, y - size.y / 3));
  }
  ImGui::PopFont();
  ImGui::EndChild();
  ImGui::PopStyleColor();
  ImGui::PopID();
  return changed;
}

}  // namespace cudalab
