#include "lessons/tensor_cores/tensor_cores_pictures.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "tensor_cores/tensor_cores.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace tensor_cores;

namespace {

// A lane's colour: its group of four (lane / 4, the row it starts on) picks the hue, its place in
// the group (lane % 4, the pair of columns) the shade.
ImU32 laneColour(int lane) {
  return paletteColour(lane / 4, 0.30f + 0.14f * float(lane % 4));
}

// One operand's grid at `o`, cells of `cell` pixels: every element in its holder's colour, the
// chosen lane's elements in the text colour with their value's index (a0..a7, b0..b3, c0..c3).
void drawOperand(Operand op, const char* name, int lane, ImVec2 o, float cell, float s) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float line = ImGui::GetTextLineHeight();
  dl->AddText(o, text, name);
  const ImVec2 p(o.x, o.y + line + 2 * s);
  const int rows = operandRows(op), cols = operandCols(op);
  // Lane by lane, each lane's elements (every element has exactly one lane).
  for (int l = 0; l < 32; ++l)
    for (const Element& e : laneElements(op, l)) {
      const ImVec2 a(p.x + float(e.col) * cell, p.y + float(e.row) * cell);
      dl->AddRectFilled(a, ImVec2(a.x + cell - 1, a.y + cell - 1),
                        l == lane ? text : laneColour(l));
    }
  const char prefix = op == Operand::A ? 'a' : op == Operand::B ? 'b' : 'c';
  const std::vector<Element> mine = laneElements(op, lane);
  if (cell > ImGui::CalcTextSize("a0").x + 2 * s)
    for (size_t i = 0; i < mine.size(); ++i) {
      std::string label(1, prefix);  // appended: GCC 12 warns falsely (-Wrestrict) on a + b
      label += std::to_string(i);
      const ImVec2 a(p.x + float(mine[i].col) * cell + s, p.y + float(mine[i].row) * cell);
      dl->AddText(a, ImGui::GetColorU32(ImGuiCol_WindowBg), label.c_str());
    }
  dl->AddRect(p, ImVec2(p.x + cell * float(cols), p.y + cell * float(rows)), text, 0, 0, s);
}

// "(1, 2) (1, 3)": a lane's elements of one operand, as (row, column) pairs.
std::string elementList(Operand op, int lane) {
  std::string out;
  for (const Element& e : laneElements(op, lane)) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    out += out.empty() ? "(" : " (";
    out += std::to_string(e.row);
    out += ", ";
    out += std::to_string(e.col);
    out += ")";
  }
  return out;
}

// One ldmatrix read: rows row0 .. row0 + 7 of a tile at one chunk, each a bar of 16 bytes (4
// banks) at the banks it starts on; rows that land on the same banks stack and are served one
// pass after another.
void drawRead(Tile t, bool swizzled, int chunk, const char* title, ImVec2 o, float w, float s) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float line = ImGui::GetTextLineHeight();
  const float bank = w / 32.0f, rowH = line * 0.9f;
  const int ways = ldmatrixWays(t, 0, chunk, swizzled);
  const std::string head = std::string(tr(title)) + ": " +
                           (ways == 1 ? std::string(tr("1 pass")) : trf("%d passes", ways));
  dl->AddText(o, text, head.c_str());
  const ImVec2 p(o.x, o.y + line + 3 * s);
  // Bank numbers every 4 banks, under the bars.
  std::vector<int> depth(32, 0);
  for (int r = 0; r < 8; ++r) {
    const int b = firstBank(t, r, chunk, swizzled);
    const int d = depth[size_t(b)]++;
    const ImVec2 a(p.x + float(b) * bank, p.y + float(d) * rowH);
    dl->AddRectFilled(a, ImVec2(a.x + 4 * bank - 1, a.y + rowH - 1), paletteColour(r, 0.8f));
    const std::string label = std::to_string(r);
    // The row's number in black or white, whichever stands out on its colour.
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(paletteColour(r));
    const bool light = 0.299f * c.x + 0.587f * c.y + 0.114f * c.z > 0.5f;
    dl->AddText(ImVec2(a.x + s * 2, a.y), light ? IM_COL32(20, 20, 20, 255) : IM_COL32_WHITE,
                label.c_str());
  }
  const float h = 8 * rowH;
  for (int b = 0; b <= 32; b += 4) {
    dl->AddLine(ImVec2(p.x + float(b) * bank, p.y), ImVec2(p.x + float(b) * bank, p.y + h),
                ImGui::GetColorU32(ImGuiCol_Border), s);
    if (b < 32)
      dl->AddText(ImVec2(p.x + float(b) * bank + s, p.y + h + s),
                  ImGui::GetColorU32(ImGuiCol_TextDisabled), std::to_string(b).c_str());
  }
}

}  // namespace

void TensorCoresPictures::drawFragments(LessonContext& ctx) {
  if (!beginPanel(ctx, "fragments", "Who holds what: the fragments of mma.sync m16n8k16"))
    return endPanel(ctx);
  const float s = ctx.scale;
  textWrapped(
      "One mma.sync multiplies a 16 x 16 piece of A by a 16 x 8 piece of B into 16 x 8 of C, and "
      "each of the warp's 32 lanes holds a fixed share in its registers: 8 values of A, 4 of B, 4 "
      "of C. The colours are the lanes (a group of four lanes shares a colour); the lane chosen "
      "below stands out in the text's colour, with the names of its values. WMMA (steps 1 and 2) "
      "keeps this "
      "layout hidden and may change it between GPUs; mma.sync and ldmatrix (steps 3 to 5) rely "
      "on it.");
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 260 * s));
  ImGui::SliderInt(halfWidthLabel("Lane"), &lane_, 0, 31);
  lane_ = std::clamp(lane_, 0, 31);
  textWrapped("Lane %d: group %d (rows %d and %d), place %d in its group (columns %d and %d).",
              lane_, lane_ / 4, lane_ / 4, lane_ / 4 + 8, lane_ % 4, 2 * (lane_ % 4),
              2 * (lane_ % 4) + 1);
  const float avail = ImGui::GetContentRegionAvail().x;
  const float gap = 3 * ImGui::GetTextLineHeight();
  // 16 + 8 + 8 columns side by side, at most 22 pixels (x scale) a cell.
  const float cell = std::clamp((avail - 2 * gap) / 32.0f, 6 * s, 22 * s);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  drawOperand(Operand::A, "A (16 x 16)", lane_, o, cell, s);
  drawOperand(Operand::B, "B (16 x 8)", lane_, ImVec2(o.x + 16 * cell + gap, o.y), cell, s);
  drawOperand(Operand::C, "C (16 x 8)", lane_, ImVec2(o.x + 24 * cell + 2 * gap, o.y), cell, s);
  ImGui::Dummy(ImVec2(32 * cell + 2 * gap, 16 * cell + ImGui::GetTextLineHeight() + 4 * s));
  mutedText(ctx.theme,
            trf("Lane %d holds A %s; B %s; C %s.", lane_, elementList(Operand::A, lane_).c_str(),
                elementList(Operand::B, lane_).c_str(), elementList(Operand::C, lane_).c_str())
                .c_str());
  endPanel(ctx);
}

void TensorCoresPictures::drawBanks(LessonContext& ctx) {
  if (!beginPanel(ctx, "banks", "Banks: what the swizzle changes for ldmatrix"))
    return endPanel(ctx);
  const float s = ctx.scale;
  textWrapped(
      "Shared memory serves 32 banks of 4 bytes at once. ldmatrix reads eight rows of 16 bytes "
      "(4 banks each) for every 8 x 8 matrix. A row of A's tile is 64 bytes and of B's 256, so "
      "in step 3 the eight rows start on the same few banks and queue: 4 passes for A, 8 for B. "
      "Step 4 stores each 16-byte chunk at its place XOR a few bits of the row (A: (row / 2) mod "
      "4, B: row mod 8): the rows land on different banks and one pass serves all eight.");
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 260 * s));
  ImGui::SliderInt(halfWidthLabel("Chunk read"), &chunk_, 0, 3);
  helpTooltip(
      "Which 16-byte chunk of the rows the read takes (A's rows have 4, B's 16; the picture "
      "offers the first 4 of both).");
  chunk_ = std::clamp(chunk_, 0, 3);
  const float avail = ImGui::GetContentRegionAvail().x;
  const float gap = 2 * ImGui::GetTextLineHeight();
  const float w = std::max(120 * s, (avail - gap) / 2 - 4 * s);
  const float h = 11 * ImGui::GetTextLineHeight();
  ImVec2 o = ImGui::GetCursorScreenPos();
  drawRead(Tile::A, false, chunk_, N_("A, step 3"), o, w, s);
  drawRead(Tile::A, true, chunk_, N_("A, step 4 (swizzled)"), ImVec2(o.x + w + gap, o.y), w, s);
  drawRead(Tile::B, false, chunk_, N_("B, step 3"), ImVec2(o.x, o.y + h), w, s);
  drawRead(Tile::B, true, chunk_, N_("B, step 4 (swizzled)"), ImVec2(o.x + w + gap, o.y + h), w, s);
  ImGui::Dummy(ImVec2(2 * w + gap, 2 * h));
  mutedText(ctx.theme, tr("Each bar is one row of the read, numbered 0 to 7, placed on the four "
                          "banks its 16 bytes fill; bars stacked on the same banks wait for each "
                          "other. The numbers under the bars are bank numbers."));
  endPanel(ctx);
}

void TensorCoresPictures::drawPipeline(LessonContext& ctx) {
  if (!beginPanel(ctx, "pipeline", "The pipeline: loads and multiplies over time (a model)"))
    return endPanel(ctx);
  const float s = ctx.scale;
  textWrapped(
      "A model of one block, not a measurement: each tile must be loaded, then multiplied. With "
      "one stage (steps 2 to 4) the next load cannot start before the multiply that uses the "
      "buffer ends, and the tensor cores wait for every load. With more stages (step 5: 3, steps "
      "6 and 7: 4) the loads of the next tiles are in flight while the current one is "
      "multiplied. Choose how long a load takes against a multiply: on an H100 a tile's load "
      "from memory takes several times longer than its multiply.");
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 260 * s));
  ImGui::SliderInt(halfWidthLabel("Stages"), &stages_, 1, 4);
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 260 * s));
  ImGui::SliderFloat(halfWidthLabel("Load time (multiplies)"), &loadRatio_, 0.25f, 8.0f, "%.2f");
  stages_ = std::clamp(stages_, 1, 4);
  loadRatio_ = std::clamp(loadRatio_, 0.25f, 8.0f);
  constexpr int kTiles = 12;
  const PipelineRun one = pipelineModel(kTiles, 1, loadRatio_, 1.0);
  const PipelineRun run = pipelineModel(kTiles, stages_, loadRatio_, 1.0);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float line = ImGui::GetTextLineHeight();
  const float label =
      std::max(ImGui::CalcTextSize(tr("loads")).x, ImGui::CalcTextSize(tr("multiplies")).x) + line;
  const float w = std::max(100 * s, ImGui::GetContentRegionAvail().x - label - 4 * s);
  // One time scale for both pictures: the one-stage run is the longer.
  const double scale = w / std::max(one.total, 1e-9);
  const float rowH = 1.4f * line;
  ImVec2 o = ImGui::GetCursorScreenPos();
  for (const PipelineRun* r : {&one, &run}) {
    const int st = r == &one ? 1 : stages_;
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on std::string&& + "literal".
    std::string busy = trimmedFixed(100 * r->mmaBusy, 0);
    busy += "%";
    const std::string title =
        trf("%d stage(s): the tensor cores work %s of the time", st, busy.c_str());
    dl->AddText(o, text, title.c_str());
    const ImVec2 p(o.x, o.y + line + 2 * s);
    // Loads in flight together share the loads' row in lanes, one per stage, so each stays
    // visible; multiplies never overlap.
    const float laneH = st == 1 ? rowH : 0.8f * rowH, loadsH = laneH * float(st);
    dl->AddText(ImVec2(p.x, p.y + 0.5f * (loadsH - line)), text, tr("loads"));
    dl->AddText(ImVec2(p.x, p.y + loadsH + 0.2f * line), text, tr("multiplies"));
    for (const PipelineEvent& e : r->events) {
      const float x0 = p.x + label + float(e.start * scale),
                  x1 = p.x + label + float(e.end * scale);
      const float h = e.load ? laneH : rowH;
      const float y = e.load ? p.y + laneH * float(e.tile % st) : p.y + loadsH;
      dl->AddRectFilled(ImVec2(x0, y + 1), ImVec2(std::max(x0 + 1, x1 - 1), y + h - 1),
                        paletteColour(e.tile, e.load ? 0.45f : 0.9f));
      if (x1 - x0 > ImGui::CalcTextSize("00").x + 2 * s && h >= line)
        dl->AddText(ImVec2(x0 + 2 * s, y + 0.5f * (h - line)), text,
                    std::to_string(e.tile).c_str());
    }
    o.y = p.y + loadsH + rowH + line;
    if (stages_ == 1) break;  // the same run twice says nothing more
  }
  ImGui::Dummy(ImVec2(label + w, o.y - ImGui::GetCursorScreenPos().y));
  mutedText(
      ctx.theme,
      tr("Each bar is one tile, numbered; time runs to the right, on the same scale in both "
         "pictures. When a load takes less than (stages - 1) multiplies, the tensor cores never "
         "wait after the first tile; when it takes longer, more stages, larger tiles (more "
         "multiplying per byte loaded) or the L2 cache (shorter loads) are what help."));
  endPanel(ctx);
}

}  // namespace cudalab
