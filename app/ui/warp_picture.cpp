#include "ui/warp_picture.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

ImU32 lineColour(int i, float alpha) {
  return paletteColour(i % 7, alpha);
}

void drawWarpPicture(const Theme& theme, float scale, const mem::WarpRequest& r,
                     const mem::GlobalAccess& g) {
  using namespace mem;
  const float s = scale;
  const float width = ImGui::GetContentRegionAvail().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 frame = ImGui::GetColorU32(ImGuiCol_FrameBg);
  const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
  const float fontH = ImGui::GetTextLineHeight();

  // Lanes: 32 boxes across the width.
  const float laneW = std::min(width / kWarpSize, 34.0f * s);
  const float lanesX = o.x + (width - laneW * kWarpSize) / 2;
  const float laneH = fontH + 6 * s;
  const float laneY = o.y + fontH + 4 * s;
  dl->AddText(ImVec2(lanesX, o.y), text, tr("lanes of the warp"));
  // Every lane's number, in a smaller type where two digits are wider than a box (a projector's
  // scale), and never wider than its box: it would read as the neighbour's.
  const float fit = std::min(1.0f, (laneW - 4) / ImGui::CalcTextSize("31").x);
  const float numberSize = ImGui::GetFontSize() * fit;
  for (int l = 0; l < kWarpSize; ++l) {
    const ImVec2 a(lanesX + float(l) * laneW + 1, laneY),
        b(lanesX + float(l + 1) * laneW - 1, laneY + laneH);
    const bool on = r.active(l);
    dl->AddRectFilled(a, b, on ? lineColour(g.laneLine[size_t(l)], 0.35f) : frame);
    dl->AddRect(a, b, border);
    if (fit >= 0.55f) {
      const std::string n = std::to_string(l);
      const float tw = ImGui::CalcTextSize(n.c_str()).x * fit;
      dl->AddText(ImGui::GetFont(), numberSize,
                  ImVec2((a.x + b.x - tw) / 2, a.y + 3 * s + (fontH - numberSize) / 2),
                  on ? text : border, n.c_str());
    }
  }

  // Memory: the touched lines, neighbours side by side, a gap where lines are skipped.
  const int n = g.lineCount();
  int gaps = 0;
  for (int i = 1; i < n; ++i)
    gaps += g.lines[size_t(i)] != g.lines[size_t(i - 1)] + 1;
  // Never wider than the panel: at a projector's scale sixteen lines share its width, each at
  // least a few pixels.
  const float gapW = std::min(16 * s, width / 40);
  const float lineW =
      std::clamp((width - float(gaps) * gapW) / float(std::max(n, 1)), 4.0f, 220.0f * s);
  const float total = float(n) * lineW + float(gaps) * gapW;
  float x = o.x + std::max(0.0f, (width - total) / 2);
  const float memY = laneY + laneH + 70 * s;
  const float memH = 30 * s;
  std::vector<float> lineX(static_cast<size_t>(n), 0.0f);
  // The array the request reads: addresses are shown from its start.
  const std::uint64_t base =
      r.address[size_t(std::countr_zero(r.activeMask))] & ~((std::uint64_t{1} << 39) - 1);
  for (int i = 0; i < n; ++i) {
    if (i > 0 && g.lines[size_t(i)] != g.lines[size_t(i - 1)] + 1) {
      dl->AddText(ImVec2(x + gapW / 2 - ImGui::CalcTextSize("..").x / 2, memY + memH / 3), border,
                  "..");
      x += gapW;
    }
    lineX[size_t(i)] = x;
    for (int sec = 0; sec < kSectorsPerLine; ++sec) {
      const std::uint64_t number = g.lines[size_t(i)] * kSectorsPerLine + std::uint64_t(sec);
      const bool moved = std::binary_search(g.sectors.begin(), g.sectors.end(), number);
      const ImVec2 a(x + float(sec) * lineW / 4, memY),
          b(x + float(sec + 1) * lineW / 4, memY + memH);
      if (moved) dl->AddRectFilled(a, b, lineColour(i, 0.85f));
      dl->AddRect(a, b, border);
    }
    dl->AddRect(ImVec2(x, memY), ImVec2(x + lineW, memY + memH), text, 0, 0, 1.5f * s);
    // The line's first byte, from the array's start, when there is room to write it.
    std::string at = thousands(static_cast<long long>(g.lines[size_t(i)] * kLineBytes - base));
    at.insert(at.begin(), '+');
    const float tw = ImGui::CalcTextSize(at.c_str()).x;
    const bool room = tw < lineW - 2 * s || (n <= 8) || i == 0 || i == n - 1;
    // The last line's label ends at the line's right edge (the picture's), not past the panel.
    const float lx = i == n - 1 && i > 0 ? std::min(x, x + lineW - tw) : x;
    if (room && (tw < lineW * 1.8f || i == 0 || i == n - 1))
      dl->AddText(ImVec2(lx, memY + memH + 3 * s), text, at.c_str());
    x += lineW;
  }
  // Arrows: lane to the first byte of its element, coloured by the line that serves it.
  for (int l = 0; l < kWarpSize; ++l) {
    if (!r.active(l)) continue;
    const int li = g.laneLine[size_t(l)];
    const float within = float(r.address[size_t(l)] % kLineBytes) / kLineBytes;
    const float ex = lineX[size_t(li)] + within * lineW;
    const float ew = std::max(2.0f * s, lineW * float(r.elementBytes) / kLineBytes);
    const ImVec2 from(lanesX + (float(l) + 0.5f) * laneW, laneY + laneH);
    const ImVec2 to(ex + ew / 2, memY - 1);
    dl->AddLine(from, to, lineColour(li), 1.5f * s);
    dl->AddTriangleFilled(ImVec2(to.x - 4 * s, to.y - 7 * s), ImVec2(to.x + 4 * s, to.y - 7 * s),
                          to, lineColour(li));
    dl->AddRectFilled(ImVec2(ex, memY + memH - 6 * s), ImVec2(ex + ew, memY + memH - 1), text);
  }
  ImGui::Dummy(ImVec2(width, memY + memH + fontH + 6 * s - o.y));
  mutedText(theme,
            "Each colour is one 128-byte line; its four boxes are 32-byte sectors, filled when "
            "they move and empty when the line's other data stays behind. The small marks along "
            "the bottom: the bytes each lane asked for. \"..\" skips lines nobody touched.");
}

}  // namespace cudalab
