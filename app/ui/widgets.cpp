#include "ui/widgets.hpp"

#include <cmath>

#include "ui/theme.hpp"

namespace cudalab {

void PanelRegistry::beginFrame() {
  rects_.clear();
  open.clear();
  openStart.clear();
}

void PanelRegistry::record(const std::string& id, ImVec2 min, ImVec2 max) {
  rects_[id] = PixelRect{static_cast<int>(std::floor(min.x)), static_cast<int>(std::floor(min.y)),
                         static_cast<int>(std::ceil(max.x - min.x)),
                         static_cast<int>(std::ceil(max.y - min.y))};
}

std::optional<PixelRect> PanelRegistry::rect(const std::string& id) const {
  auto it = rects_.find(id);
  if (it == rects_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> PanelRegistry::takeRequest() {
  auto r = request_;
  request_.reset();
  return r;
}

std::vector<std::string> PanelRegistry::ids() const {
  std::vector<std::string> out;
  for (const auto& [id, r] : rects_)
    out.push_back(id);
  return out;
}

bool beginPanel(LessonContext& ctx, const char* id, const char* title, int flags) {
  const float pad = 8.0f * ctx.scale;
  ImGui::PushID(id);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  ctx.panels.open.emplace_back(id);
  ctx.panels.openStart.push_back(start);
  const float width = ImGui::GetContentRegionAvail().x;
  ImGui::SetCursorScreenPos(ImVec2(start.x + pad, start.y + pad));
  ImGui::BeginGroup();
  // PushTextWrapPos takes window-local coordinates.
  ImGui::PushTextWrapPos(start.x - ImGui::GetWindowPos().x + ImGui::GetScrollX() + width - pad);
  ImGui::PushFont(ctx.theme.fonts().bold);
  bool open = true;
  if (flags & kPanelCollapsible) {
    ImGui::PushStyleColor(ImGuiCol_HeaderHovered, ImVec4(0, 0, 0, 0));
    ImGui::PushStyleColor(ImGuiCol_HeaderActive, ImVec4(0, 0, 0, 0));
    const ImGuiTreeNodeFlags tf = ImGuiTreeNodeFlags_NoTreePushOnOpen |
                                  ((flags & kPanelClosed) ? 0 : ImGuiTreeNodeFlags_DefaultOpen);
    open = ImGui::TreeNodeEx(title, tf);
    ImGui::PopStyleColor(2);
  } else {
    ImGui::TextUnformatted(title);
  }
  ImGui::PopFont();
  if (!ctx.exporting) {
    const char* label = "Save PNG";
    const float bw = ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SameLine(0, 0);
    ImGui::SetCursorScreenPos(ImVec2(start.x + width - pad - bw, ImGui::GetCursorScreenPos().y));
    if (ImGui::SmallButton(label)) ctx.panels.requestExport(id);
    helpTooltip("Save just this panel as a PNG, at the export scale chosen in the File menu.");
  }
  // Reserve the full width so the frame spans the view.
  ImGui::Dummy(ImVec2(width - 2 * pad, 0.0f));
  return open;
}

void endPanel(LessonContext& ctx) {
  const float pad = 8.0f * ctx.scale;
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  const ImVec2 start = ctx.panels.openStart.back();
  const std::string id = ctx.panels.open.back();
  ctx.panels.open.pop_back();
  ctx.panels.openStart.pop_back();
  const ImVec2 groupMax = ImGui::GetItemRectMax();
  const ImVec2 max(std::max(groupMax.x + pad, start.x + 2 * pad), groupMax.y + pad);
  ImGui::GetWindowDrawList()->AddRect(start, max, ImGui::GetColorU32(ImGuiCol_Border),
                                      4.0f * ctx.scale, 0, std::max(1.0f, ctx.scale));
  ctx.panels.record(id, start, ImVec2(max.x + 1, max.y + 1));
  ImGui::SetCursorScreenPos(ImVec2(start.x, max.y));
  ImGui::Dummy(ImVec2(0, ImGui::GetStyle().ItemSpacing.y));
  ImGui::PopID();
}

void helpTooltip(const char* text) {
  if (text && *text && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void helpMarker(const char* text) {
  ImGui::TextDisabled("(?)");
  helpTooltip(text);
}

void mutedText(const Theme& theme, const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, theme.mutedColour());
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

}  // namespace cudalab
