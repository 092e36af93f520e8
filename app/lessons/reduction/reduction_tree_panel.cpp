#include "lessons/reduction/reduction_tree_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "models/memory_access.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace reduction;

namespace {

constexpr int kPictureBlocks[] = {64, 128, 256};

// A warp's colour in the tree pictures: seven distinct colours, never the grey that marks slots
// still holding part of the sum.
ImU32 warpColour(int warp, float alpha = 1.0f) {
  static constexpr int kOrder[] = {0, 1, 2, 5, 3, 6, 4};
  return paletteColour(kOrder[warp % 7], alpha);
}

// The steps the tree picture can draw (all but CUB), built once.
const std::vector<const StepInfo*>& pictureSteps() {
  static const std::vector<const StepInfo*> v = [] {
    std::vector<const StepInfo*> out;
    for (const StepInfo& s : steps())
      if (s.shape != Shape::Library) out.push_back(&s);
    return out;
  }();
  return v;
}

// What a level does, in the UI's language. The model's own `what` (English, built in the kernels'
// library, which knows nothing of translations) says the same; this rebuilds it from the step and
// the level's stride as one translatable sentence per kind of level.
std::string levelText(const TreeModel& m, const TreeLevel& l) {
  const int s = l.stride;
  switch (m.step) {
    case StepId::Interleaved:
      return trf("s = %d: threads with tid %% %d == 0 add slot tid + %d", s, 2 * s, s);
    case StepId::Strided:
      return trf("s = %d: threads tid < %d add slot %d tid + %d to slot %d tid", s,
                 m.block / (2 * s), 2 * s, s, 2 * s);
    case StepId::UnrollLast:
    case StepId::Unrolled:
    case StepId::Multiple:
      if (s <= 32)
        return trf(
            "s = %d: warp 0 alone, all 32 lanes add slot tid + %d (lanes %d and up add numbers "
            "nobody uses); __syncwarp, no barrier",
            s, s, s);
      [[fallthrough]];
    case StepId::Sequential:
    case StepId::FirstAdd:
    case StepId::Course:
      return trf("s = %d: threads tid < %d add slot tid + %d", s, s, s);
    case StepId::Shuffle:
    case StepId::Atomic:
      if (s < 32)
        return trf(
            "offset %d: every lane adds the register of lane + %d of its warp (__shfl_down_sync)",
            s, s);
      return trf("warp 0, offset %d: lane l adds warp l + %d's sum (read from shared memory once)",
                 s / 32, s / 32);
    case StepId::Cub:
      break;
  }
  return l.what;
}

}  // namespace

void ReductionTreePanel::draw(LessonContext& ctx) {
  if (!beginPanel(ctx, "tree", "One block's tree, level by level")) return endPanel(ctx);
  const float s = ctx.scale;
  const std::vector<const StepInfo*>& list = pictureSteps();
  pictureStep_ = std::clamp(pictureStep_, 0, int(list.size()) - 1);
  const StepInfo& st = *list[size_t(pictureStep_)];
  ImGui::SetNextItemWidth(260 * s);
  if (beginCombo("step##tree", tr(st.label))) {
    for (int i = 0; i < int(list.size()); ++i)
      if (ImGui::Selectable(tr(list[size_t(i)]->label), i == pictureStep_)) {
        pictureStep_ = i;
        level_ = 0;
      }
    ImGui::EndCombo();
  }
  const bool course = st.id == StepId::Course;
  if (course) pictureBlock_ = kCourseBlock;
  sameLineIfFits(90 * s, "threads");
  ImGui::SetNextItemWidth(90 * s);
  ImGui::BeginDisabled(course);
  if (beginCombo("threads##tree", std::to_string(pictureBlock_).c_str())) {
    for (int b : kPictureBlocks)
      if (ImGui::Selectable(std::to_string(b).c_str(), b == pictureBlock_)) {
        pictureBlock_ = b;
        level_ = 0;
      }
    ImGui::EndCombo();
  }
  ImGui::EndDisabled();
  // Built when the step or block changes, not every frame.
  const std::pair<StepId, int> key{st.id, pictureBlock_};
  if (!tree_ || treeFor_ != key) {
    tree_ = treeModel(st.id, pictureBlock_, DataType::Float32);
    treeFor_ = key;
  }
  if (!*tree_) {
    errorText(ctx.theme, tree_->status());
    return endPanel(ctx);
  }
  const TreeModel& m = **tree_;
  const int levels = int(m.levels.size());
  level_ = std::clamp(level_, 0, levels);
  sameLineIfFits(200 * s, tr("level"));
  ImGui::SetNextItemWidth(200 * s);
  // The id stays "level" in every language.
  ImGui::SliderInt((std::string(tr("level")) + "###leveltree").c_str(), &level_, 0, levels, "%d",
                   ImGuiSliderFlags_AlwaysClamp);
  level_ = std::clamp(level_, 0, levels);  // a typed value may lie outside
  if (!ctx.exporting) {
    sameLineIfFits(std::max(ImGui::CalcTextSize(tr("Pause")).x, ImGui::CalcTextSize(tr("Play")).x) +
                   2 * ImGui::GetStyle().FramePadding.x);
    if (button(playing_ ? N_("Pause##tree") : N_("Play##tree"))) {
      playing_ = !playing_;
      if (playing_ && level_ == levels) level_ = 0;
      lastTick_ = ImGui::GetTime();
    }
    if (playing_ && ImGui::GetTime() - lastTick_ > 0.8) {
      lastTick_ = ImGui::GetTime();
      if (++level_ > levels) {
        level_ = levels;
        playing_ = false;
      }
    }
  }
  textWrapped("Level 0 loads: %s.", tr(m.load).c_str());
  if (!m.note.empty()) mutedText(ctx.theme, m.note.c_str());
  if (level_ > 0) {
    const TreeLevel& l = m.levels[size_t(level_ - 1)];
    textWrapped("Level %d, %s.", level_, levelText(m, l).c_str());
  }
  drawTreePicture(ctx, m);
  drawLevelTable(ctx, m);
  drawBanks(ctx, m);
  const bool shuffle = m.step == StepId::Shuffle || m.step == StepId::Atomic;
  // Counts after a colon: no plural to agree with them.
  if (shuffle)
    mutedText(ctx.theme,
              trf("Over the whole tree: divergent warp-levels: %d; __syncthreads barriers: %d. No "
                  "shared-memory tree: registers pass through shuffles, and shared memory holds "
                  "one sum per warp.",
                  m.totalDivergent(), m.barriers())
                  .c_str());
  else if (m.step == StepId::Course)
    mutedText(ctx.theme,
              trf("Over the whole tree: divergent warp-levels: %d; __syncthreads barriers: %d. "
                  "Every addition reads and writes global memory.",
                  m.totalDivergent(), m.barriers())
                  .c_str());
  else
    mutedText(ctx.theme,
              trf("Over the whole tree: divergent warp-levels: %d; __syncthreads barriers: %d; "
                  "shared-memory wavefronts: %d (a conflict-free warp request takes one per 128 "
                  "bytes). Drawn for float32 (4-byte slots).",
                  m.totalDivergent(), m.barriers(), m.totalWavefronts())
                  .c_str());
  endPanel(ctx);
}

// Rows of slots, one per level: a slot written at a level is drawn in the colour of the warp
// whose thread wrote it, with a line from the slot it added; slots no longer needed fade.
void ReductionTreePanel::drawTreePicture(LessonContext& ctx, const TreeModel& m) {
  const float s = ctx.scale;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float label = ImGui::CalcTextSize(trf("level %d", 10).c_str()).x + 6 * s;
  const float width = std::max(200 * s, ImGui::GetContentRegionAvail().x - label);
  const float cell = width / float(m.slots);
  const float rowH = 14 * s, gap = 10 * s;
  const int rows = int(m.levels.size()) + 1;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_Text, 0.12f);
  std::vector<bool> live(size_t(m.slots), true);  // slots still holding part of the sum
  for (int r = 0; r < rows; ++r) {
    const float y = o.y + float(r) * (rowH + gap);
    const bool shown = r <= level_;
    const bool current = r == level_;
    dl->AddText(ImVec2(o.x, y), current ? text : ImGui::GetColorU32(ImGuiCol_TextDisabled),
                trf("level %d", r).c_str());
    std::vector<int> writer(size_t(m.slots), -1);
    if (r > 0)
      for (const TreeOp& op : m.levels[size_t(r - 1)].ops) {
        writer[size_t(op.dst)] = op.thread;
        live[size_t(op.src)] = false;
      }
    for (int c = 0; c < m.slots; ++c) {
      const ImVec2 a(o.x + label + float(c) * cell, y);
      const ImVec2 b(a.x + std::max(cell - 1, 1.0f), y + rowH);
      if (!shown) {
        dl->AddRectFilled(a, b, faint);
        continue;
      }
      const int w = writer[size_t(c)];
      if (r == 0)
        dl->AddRectFilled(a, b, paletteColour(7, 0.55f));
      else if (w >= 0)
        dl->AddRectFilled(a, b, warpColour(w / 32, current ? 1.0f : 0.7f));
      else if (live[size_t(c)])
        dl->AddRectFilled(a, b, paletteColour(7, 0.3f));
      else
        dl->AddRect(a, b, faint);
    }
    if (r > 0 && shown) {
      const float yTop = y - gap, yBottom = y;
      for (const TreeOp& op : m.levels[size_t(r - 1)].ops) {
        const float xs = o.x + label + (float(op.src) + 0.5f) * cell;
        const float xd = o.x + label + (float(op.dst) + 0.5f) * cell;
        dl->AddLine(ImVec2(xs, yTop), ImVec2(xd, yBottom),
                    warpColour(op.thread / 32, current ? 0.9f : 0.35f), s);
      }
    }
  }
  ImGui::Dummy(ImVec2(label + width, float(rows) * (rowH + gap)));
  // Two whole sentences, each translated on its own.
  mutedText(ctx.theme,
            ((m.step == StepId::Shuffle || m.step == StepId::Atomic
                  ? trf("Each row is the block's %d threads' registers (warp sums pass through "
                        "shared memory once).",
                        m.slots)
              : m.step == StepId::Course
                  ? trf("Each row is the block's %d numbers in global memory.", m.slots)
                  : trf("Each row is the block's %d shared-memory slots.", m.slots)) +
             " " +
             tr("A coloured slot was written at that level, in its thread's warp colour (warp 0 "
                "blue, 1 orange, 2 green, 3 vermillion, 4 purple, 5 yellow, 6 sky blue, then "
                "again); grey slots still hold a part of the sum; outlined ones are used up."))
                .c_str());
}

void ReductionTreePanel::drawLevelTable(LessonContext& ctx, const TreeModel& m) {
  // On a projector the level, its divergence and its bank conflicts carry the lesson; the
  // counts of threads, warps and passes give way first.
  static const TableColumn kColumns[] = {
      {"level"},
      {"stride", nullptr, 2, "How far apart the two slots each adding thread reads are."},
      {"adding threads", "adding", 1, "Threads of the block that add at this level."},
      {"warps issued", "warps", 2, "Warps that run this level's instructions."},
      {"divergent warps", "divergent", 0,
       "Warps whose threads take different branches: the warp runs both paths."},
      {"worst bank conflict", "conflicts", 0,
       "The most lanes of one warp that ask one shared-memory bank for different words."},
      {"shared-memory wavefronts", "wavefronts", 3,
       "Passes shared memory needs for the level's reads."},
  };
  if (!beginDataTable("##levels", kColumns, static_cast<int>(m.levels.size()))) return;
  for (int i = 0; i < int(m.levels.size()); ++i) {
    const TreeLevel& l = m.levels[size_t(i)];
    ImGui::TableNextRow();
    if (i + 1 == level_)
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_Header, 0.8f));
    ImGui::TableNextColumn();
    if (l.barrier)
      ImGui::TextUnformatted(trf("%d  (then __syncthreads)", i + 1).c_str());
    else
      ImGui::Text("%d", i + 1);
    ImGui::TableNextColumn();
    if (l.shuffle)
      ImGui::Text(tr("offset %d"), l.stride >= 32 ? l.stride / 32 : l.stride);
    else
      ImGui::Text("%d", l.stride);
    ImGui::TableNextColumn();
    ImGui::Text(tr("%d of %d"), l.activeThreads, m.block);
    ImGui::TableNextColumn();
    ImGui::Text("%d", int(l.warps.size()));
    ImGui::TableNextColumn();
    if (l.divergentWarps > 0) {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.warningColour());
      ImGui::Text("%d", l.divergentWarps);
      ImGui::PopStyleColor();
    } else {
      ImGui::TextUnformatted("0");
    }
    ImGui::TableNextColumn();
    if (l.shuffle)
      ImGui::TextUnformatted(tr("registers"));
    else if (l.globalMemory)
      ImGui::TextUnformatted(tr("global memory"));
    else if (l.worstConflict > 1) {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.warningColour());
      ImGui::Text(tr("%d-way"), l.worstConflict);
      ImGui::PopStyleColor();
    } else {
      ImGui::TextUnformatted(tr("none"));
    }
    ImGui::TableNextColumn();
    if (!l.shuffle && !l.globalMemory) ImGui::Text("%d", l.wavefronts);
  }
  endDataTable();
}

// The chosen level's first warp: which lanes add, and which bank each lane's second read
// (slot src) falls in. Lanes in one bank asking for different slots wait for each other.
void ReductionTreePanel::drawBanks(LessonContext& ctx, const TreeModel& m) {
  if (level_ == 0) return;
  const TreeLevel& l = m.levels[size_t(level_ - 1)];
  if (l.warps.empty()) return;
  const WarpAtLevel& w = l.warps.front();
  const float s = ctx.scale;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  // The row labels' column fits the longest label in the UI's language.
  const char* laneLabel = tr("lane");
  const char* readLabel = l.shuffle || l.globalMemory ? tr("reads lane") : tr("bank read");
  const float labelW = std::max(
      90 * s, std::max(ImGui::CalcTextSize(laneLabel).x, ImGui::CalcTextSize(readLabel).x) + 6 * s);
  const float lane = std::min(26 * s, (ImGui::GetContentRegionAvail().x - labelW) / 32);
  const float h = 18 * s;
  // Whole sentences, each translated on its own; the count after "of 32" needs no plural.
  std::string line = trf("Warp %d at level %d: %d of 32 lanes add.", w.warp, level_, w.useful);
  if (w.executing > w.useful)
    line += std::string(" ") + trf("%d more run for nothing.", w.executing - w.useful);
  if (w.divergent) line.append(" ").append(tr("Divergent: the others wait."));
  textWrapped("%s", line.c_str());
  std::vector<int> srcOf(32, -1);
  std::vector<bool> useful(32, false);
  for (const TreeOp& op : l.ops)
    if (op.thread / 32 == w.warp) {
      srcOf[size_t(op.thread % 32)] = op.src;
      useful[size_t(op.thread % 32)] = true;
    }
  // Lanes that execute without a useful op (the unrolled warp) read slot tid + stride. A shuffle
  // level's lane reads lane + offset of its own warp; past lane 31 __shfl_down_sync returns the
  // lane's own value (it does not wrap).
  const bool allRun = w.executing == 32;
  const int offset = l.shuffle && l.stride >= 32 ? l.stride / 32 : l.stride;
  for (int ln = 0; ln < 32; ++ln) {
    if (l.shuffle)
      srcOf[size_t(ln)] = ln + offset < 32 ? ln + offset : ln;
    else if (srcOf[size_t(ln)] < 0 && allRun)
      srcOf[size_t(ln)] = w.warp * 32 + ln + l.stride;
  }
  const ImVec2 o = ImGui::GetCursorScreenPos();
  // The numbers in the boxes: in a smaller size when two digits do not fit a box (a projector's
  // scale in a narrow panel), left out only when they would be too small to read.
  const float digits = ImGui::CalcTextSize("00").x;
  const float numberSize =
      ImGui::GetFontSize() * std::min(1.0f, (lane - 3 * s) / std::max(digits, 1.0f));
  const bool numbers = numberSize >= 0.6f * ImGui::GetFontSize();
  auto number = [&](ImVec2 at, int v) {
    dl->AddText(ImGui::GetFont(), numberSize, at, text, std::to_string(v).c_str());
  };
  dl->AddText(ImVec2(o.x, o.y + 2 * s), text, laneLabel);
  dl->AddText(ImVec2(o.x, o.y + h + 6 * s), text, readLabel);
  for (int ln = 0; ln < 32; ++ln) {
    const ImVec2 a(o.x + labelW + float(ln) * lane, o.y);
    const ImVec2 b(a.x + lane - 2 * s, a.y + h);
    const ImU32 fill = useful[size_t(ln)]       ? warpColour(w.warp)
                       : srcOf[size_t(ln)] >= 0 ? paletteColour(7, 0.6f)
                                                : ImGui::GetColorU32(ImGuiCol_FrameBg);
    dl->AddRectFilled(a, b, fill);
    if (numbers) number(ImVec2(a.x + s, a.y + 2 * s), ln);
    if (srcOf[size_t(ln)] < 0) continue;
    const int src = srcOf[size_t(ln)];
    const int shown = l.shuffle        ? src
                      : l.globalMemory ? src
                                       : (src * m.elementBytes / mem::kBankBytes) % mem::kBanks;
    const ImVec2 c(a.x, a.y + h + 4 * s);
    dl->AddRect(c, ImVec2(c.x + lane - 2 * s, c.y + h), text);
    if (numbers) number(ImVec2(c.x + s, c.y + 2 * s), shown % 100);
  }
  ImGui::Dummy(ImVec2(labelW + 32 * lane, 2 * h + 8 * s));
  if (l.shuffle)
    mutedText(ctx.theme,
              "Each lane reads the register of lane + offset through __shfl_down_sync: no "
              "shared memory, no bank, no barrier. Lanes past 31 - offset get their own value "
              "back, and their sums are never used.");
  else if (!l.globalMemory)
    mutedText(ctx.theme,
              (std::string(tr("Coloured lanes add; grey lanes run the addition for nothing; "
                              "empty lanes wait.")) +
               " " +
               (w.conflictDegree > 1
                    ? trf("%d-way bank conflict: as many lanes ask one bank for different slots, "
                          "and the bank serves them one after another.",
                          w.conflictDegree)
                    : std::string(tr("Every bank is asked for at most one slot: no conflict."))))
                  .c_str());
}

}  // namespace cudalab
