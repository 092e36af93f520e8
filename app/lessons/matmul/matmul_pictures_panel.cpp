#include "lessons/matmul/matmul_pictures_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "matmul/matmul_config.hpp"
#include "memory/access_patterns.hpp"
#include "models/memory_access.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/warp_picture.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace memory;

using namespace matmul;

std::string matmulPercent(double f) {
  const double p = 100 * f;
  return trimmedFixed(p, std::fabs(p - std::round(p)) > 0.05 || p < 1 ? 1 : 0) + "%";
}

std::string matmulKib(int bytes) {
  if (bytes == 0) return "-";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return trimmedFixed(bytes / 1024.0, 1) + " KiB";
}

namespace {

// The steps the tiling picture offers (built once: the picture asks every frame).
const std::vector<const StepInfo*>& handWrittenSteps() {
  static const std::vector<const StepInfo*> v = [] {
    std::vector<const StepInfo*> out;
    for (const StepInfo& s : steps())
      if (handWritten(s)) out.push_back(&s);
    return out;
  }();
  return v;
}

// A control's translated label with an id that stays English: "bloc x###blockx".
std::string idLabel(const char* english, const char* id) {
  return std::string(tr(english)) + "###" + id;
}

}  // namespace

struct MatmulPicturesPanel::Impl {
  // [SECTION] how tiling works: the block's tiles at step m, each thread's elements

  // The step the picture shows: a ladder step, or the tiled kernel with a tile of the learner's
  // choosing (which may be refused).
  StepInfo pictureStep() const {
    const std::vector<const StepInfo*>& hw = handWrittenSteps();
    StepInfo s = *hw[static_cast<size_t>(std::clamp(pictureIndex_, 0, int(hw.size()) - 1))];
    if (s.family == Family::Tiled && s.precision == Precision::Float32) {
      s.blockX = s.blockY = s.tileM = s.tileN = s.tileK = tile_;
      s.sharedBytes = TileChoice{tile_, Precision::Float32}.sharedBytes();
    }
    return s;
  }

  void drawTiling(LessonContext& ctx, bool gpu, int M, int N, int K, const BlockLimits& limits) {
    if (!beginPanel(ctx, "tiling", "How tiling works: one block, tile step by tile step"))
      return endPanel(ctx);
    const float s = ctx.scale;
    const std::vector<const StepInfo*>& hw = handWrittenSteps();
    ImGui::SetNextItemWidth(260 * s);
    const bool chooseTile = hw[size_t(pictureIndex_)]->id == StepId::Tiled16;
    if (beginCombo("Step##tiling", chooseTile ? tr("3. Shared tiles (choose the tile)")
                                              : tr(hw[size_t(pictureIndex_)]->label))) {
      for (int i = 0; i < int(hw.size()); ++i) {
        if (hw[size_t(i)]->id == StepId::Tiled8 || hw[size_t(i)]->id == StepId::Tiled32) continue;
        const bool tiled = hw[size_t(i)]->id == StepId::Tiled16;
        if (ImGui::Selectable(
                tiled ? tr("3. Shared tiles (choose the tile)") : tr(hw[size_t(i)]->label),
                i == pictureIndex_))
          pictureIndex_ = i, m_ = 0, thread_ = 0;
      }
      ImGui::EndCombo();
    }
    StepInfo st = pictureStep();
    if (st.family == Family::Tiled && st.precision == Precision::Float32) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(110 * s);
      if (beginCombo("Tile", (std::to_string(tile_) + " x " + std::to_string(tile_)).c_str())) {
        for (int t : kTileChoices)
          if (ImGui::Selectable((std::to_string(t) + " x " + std::to_string(t)).c_str(),
                                t == tile_))
            tile_ = t, m_ = 0, thread_ = 0;
        ImGui::EndCombo();
      }
      st = pictureStep();
      const Status ok = validateTile({tile_, Precision::Float32}, limits);
      if (!ok) {
        ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
        textWrapped("Refused: %s", trStatus(ok).c_str());
        ImGui::PopStyleColor();
        mutedText(ctx.theme,
                  gpu ? tr("Limits of this GPU.") : tr("Limits of every GPU since Volta."));
        return endPanel(ctx);
      }
    }
    const StepLaunch lc = stepLaunch(st, M, N, K);
    const int steps = tileSteps(st, K);
    bx_ = std::clamp(bx_, 0, lc.gridX - 1);
    by_ = std::clamp(by_, 0, lc.gridY - 1);
    const int threads = lc.threadsPerBlock();
    thread_ = std::clamp(thread_, 0, threads - 1);
    // Animation: one tile step every 0.7 s while playing.
    if (playing_ && !ctx.exporting) {
      const double now = ImGui::GetTime();
      if (now - lastStep_ > 0.7) m_ = (m_ + 1) % std::max(steps, 1), lastStep_ = now;
    }
    m_ = std::clamp(m_, 0, std::max(steps - 1, 0));
    // Translated labels keep their English ids ("###..."): the sliders keep their state.
    ImGui::SetNextItemWidth(120 * s);
    ImGui::SliderInt(idLabel(N_("block x"), "blockx").c_str(), &bx_, 0, lc.gridX - 1);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120 * s);
    ImGui::SliderInt(idLabel(N_("block y"), "blocky").c_str(), &by_, 0, lc.gridY - 1);
    ImGui::SetNextItemWidth(160 * s);
    int shown = m_ + (st.family == Family::Naive ? 0 : 1);  // k from 0; tile steps from 1
    const int first = st.family == Family::Naive ? 0 : 1;
    if (ImGui::SliderInt(st.family == Family::Naive ? "k###tilestep"
                                                    : idLabel(N_("tile step"), "tilestep").c_str(),
                         &shown, first, std::max(steps - 1, 0) + first))
      m_ = shown - first;
    ImGui::SameLine();
    if (!ctx.exporting) checkbox("Play", &playing_);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(140 * s);
    ImGui::SliderInt(idLabel(N_("thread"), "thread").c_str(), &thread_, 0, threads - 1);

    const Range rows = blockRows(st, M, N, bx_, by_), cols = blockCols(st, M, N, bx_, by_);
    const Range ks = stepK(st, K, m_);
    const std::vector<Cell> mine = ownedCells(st, thread_);
    // Whole sentences, each translated with its numbers.
    std::string text =
        st.id == StepId::Warp && (bx_ != cols.begin / st.tileN || by_ != rows.begin / st.tileM)
            ? trf("Block (%d, %d) of %s x %s computes C[%d:%d, %d:%d] (blocks walk C in groups "
                  "of 8 tile rows, so block (%d, %d) computes tile row %d, column %d).",
                  bx_, by_, thousands(lc.gridX).c_str(), thousands(lc.gridY).c_str(), rows.begin,
                  rows.end, cols.begin, cols.end, bx_, by_, rows.begin / st.tileM,
                  cols.begin / st.tileN)
            : trf("Block (%d, %d) of %s x %s computes C[%d:%d, %d:%d].", bx_, by_,
                  thousands(lc.gridX).c_str(), thousands(lc.gridY).c_str(), rows.begin, rows.end,
                  cols.begin, cols.end);
    text += " ";
    if (st.family == Family::Naive)
      text +=
          trf("No shared memory: at k = %d each thread reads A[i, k] and B[k, j] straight "
              "from global memory.",
              ks.begin);
    else
      text +=
          trf("At step %d of %d it loads A[%d:%d, %d:%d] and B[%d:%d, %d:%d] into shared "
              "memory (%s), then every thread multiplies from there.",
              m_ + 1, steps, rows.begin, rows.end, ks.begin, ks.end, ks.begin, ks.end, cols.begin,
              cols.end, matmulKib(st.sharedBytes).c_str());
    int inside = 0;
    for (const Cell& c : mine)
      inside += rows.begin + c.row < rows.end && cols.begin + c.col < cols.end;
    const int owned = static_cast<int>(mine.size());
    text += " ";
    if (owned == 1)
      text += inside == 1 ? trf("Thread %d owns 1 element of the tile.", thread_)
                          : trf("Thread %d owns 1 element of the tile, outside C (computed from "
                                "zeros and never stored).",
                                thread_);
    else
      text += inside == owned
                  ? trf("Thread %d owns %d elements of the tile, kept in registers until the "
                        "end.",
                        thread_, owned)
                  : trf("Thread %d owns %d elements of the tile, kept in registers until the "
                        "end; %d of them inside C (the rest are computed from zeros and never "
                        "stored).",
                        thread_, owned, inside);
    textWrapped("%s", text.c_str());

    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float height = 300 * s;
    const float gap = 14 * s;
    const float leftW = width * 0.55f;
    drawMatrices(ctx, st, M, N, K, rows, cols, ks, mine, ImVec2(o.x, o.y), leftW, height);
    drawOwnership(ctx, st, mine, ImVec2(o.x + leftW + gap, o.y), width - leftW - gap, height);
    ImGui::Dummy(ImVec2(width, height + ImGui::GetTextLineHeight() + 6 * s));
    mutedText(
        ctx.theme,
        "Left: A (left), B (top) and C, to scale (around the block when the matrices are large; "
        "the labels then give the rows and columns shown). Light: the block's bands of A and B and "
        "its tile of C; strong: what it loads at this step; in the text colour: the rows and "
        "columns the chosen thread uses. Right: the block's tile of C, one colour per warp "
        "(lighter and darker cells: neighbouring threads), the chosen thread's elements in "
        "the text colour.");
    endPanel(ctx);
  }

  // The part of one dimension the picture shows: all of it when short, otherwise six tiles (at
  // least 24 elements) around the block's band or the current tile step, aligned to tiles.
  struct Window {
    int begin = 0, end = 0, total = 0;
    int size() const { return std::max(end - begin, 1); }
    bool cut() const { return begin > 0 || end < total; }
  };
  static Window window(int n, int tile, Range focus) {
    tile = std::max(tile, 1);
    const int span = std::max(6 * tile, 24);
    if (n <= span) return {0, n, n};
    int b = std::clamp(focus.begin - 2 * tile, 0, n - span);
    b = (b / tile) * tile;
    return {b, std::min(n, b + span), n};
  }

  void drawMatrices(LessonContext& ctx, const StepInfo& st, int M, int N, int K, Range rows,
                    Range cols, Range ks, const std::vector<Cell>& mine, ImVec2 o, float w,
                    float h) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = ctx.scale;
    const float label = ImGui::GetTextLineHeight();
    const float gap = label + 6 * s;
    const Window wm = window(M, st.tileM, rows), wn = window(N, st.tileN, cols),
                 wk = window(K, st.tileK, ks);
    const double f = std::min((w - gap) / double(wk.size() + wn.size()),
                              (h - gap - label) / double(wk.size() + wm.size()));
    auto len = [&](int n) { return std::max(float(n * f), 3.0f * s); };
    const float wA = len(wk.size()), hA = len(wm.size()), wB = len(wn.size()), hB = len(wk.size());
    const ImVec2 a0(o.x, o.y + label + hB + gap), b0(o.x + wA + gap, o.y + label),
        c0(o.x + wA + gap, o.y + label + hB + gap);
    const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 frame = ImGui::GetColorU32(ImGuiCol_FrameBg);
    const ImU32 band = paletteColour(0, 0.45f), strong = paletteColour(1, 0.9f),
                cTile = paletteColour(2, 0.7f);
    struct View {
      ImVec2 p, sz;
      Window r, c;
    };
    const View A{a0, ImVec2(wA, hA), wm, wk}, B{b0, ImVec2(wB, hB), wk, wn},
        C{c0, ImVec2(wB, hA), wm, wn};
    // Fills elements [r0, r1) x [c0, c1) of a view, clipped to its window.
    auto fill = [&](const View& v, int r0, int r1, int c0_, int c1, ImU32 col) {
      auto x = [&](int c) {
        return v.p.x + v.sz.x * float(std::clamp(c - v.c.begin, 0, v.c.size())) / float(v.c.size());
      };
      auto y = [&](int r) {
        return v.p.y + v.sz.y * float(std::clamp(r - v.r.begin, 0, v.r.size())) / float(v.r.size());
      };
      if (x(c1) <= x(c0_) || y(r1) <= y(r0)) return;
      dl->AddRectFilled(ImVec2(x(c0_), y(r0)),
                        ImVec2(std::max(x(c1), x(c0_) + 1), std::max(y(r1), y(r0) + 1)), col);
    };
    for (const View* v : {&A, &B, &C})
      dl->AddRectFilled(v->p, ImVec2(v->p.x + v->sz.x, v->p.y + v->sz.y), frame);
    // Bands, the tile step, and C's tile.
    fill(A, rows.begin, rows.end, 0, K, band);
    fill(B, 0, K, cols.begin, cols.end, band);
    fill(A, rows.begin, rows.end, ks.begin, ks.end, strong);
    fill(B, ks.begin, ks.end, cols.begin, cols.end, strong);
    fill(C, rows.begin, rows.end, cols.begin, cols.end, cTile);
    // The chosen thread's rows of A and columns of B at this step, and its elements of C.
    for (const Cell& c : mine) {
      const int r = rows.begin + c.row, cc = cols.begin + c.col;
      if (r < rows.end) fill(A, r, r + 1, ks.begin, ks.end, text);
      if (cc < cols.end) fill(B, ks.begin, ks.end, cc, cc + 1, text);
      if (r < rows.end && cc < cols.end) fill(C, r, r + 1, cc, cc + 1, text);
    }
    // Tile boundaries where they are at least 5 pixels apart.
    auto grid = [&](const View& v, int stepR, int stepC) {
      if (stepR > 0 && v.sz.y * float(stepR) / float(v.r.size()) >= 5 * s)
        for (int r = (v.r.begin / stepR + 1) * stepR; r < v.r.end; r += stepR) {
          const float y = v.p.y + v.sz.y * float(r - v.r.begin) / float(v.r.size());
          dl->AddLine(ImVec2(v.p.x, y), ImVec2(v.p.x + v.sz.x, y), border);
        }
      if (stepC > 0 && v.sz.x * float(stepC) / float(v.c.size()) >= 5 * s)
        for (int c = (v.c.begin / stepC + 1) * stepC; c < v.c.end; c += stepC) {
          const float x = v.p.x + v.sz.x * float(c - v.c.begin) / float(v.c.size());
          dl->AddLine(ImVec2(x, v.p.y), ImVec2(x, v.p.y + v.sz.y), border);
        }
    };
    grid(A, st.tileM, st.tileK);
    grid(B, st.tileK, st.tileN);
    grid(C, st.tileM, st.tileN);
    auto name = [](const char* m, const View& v) {
      std::string t = m;
      if (v.r.cut() || v.c.cut())
        t.append("[")
            .append(std::to_string(v.r.begin))
            .append(":")
            .append(std::to_string(v.r.end))
            .append(", ")
            .append(std::to_string(v.c.begin))
            .append(":")
            .append(std::to_string(v.c.end))
            .append("]");
      return t;
    };
    // B's and C's names above them; A's below it, where C's cannot run into it.
    for (auto [m, v] : {std::pair{"A", &A}, std::pair{"B", &B}, std::pair{"C", &C}}) {
      dl->AddRect(v->p, ImVec2(v->p.x + v->sz.x, v->p.y + v->sz.y), text);
      const float y = v == &A ? v->p.y + v->sz.y + 2 * s : v->p.y - label - 2 * s;
      dl->AddText(ImVec2(v->p.x, y), text, name(m, *v).c_str());
    }
  }

  // Which thread owns each element of the block's tile (row-major tileM x tileN), computed when
  // the step or tile changes rather than every frame (the warp step's tile has 32,768 elements).
  const std::vector<int>& ownerMap(const StepInfo& st) {
    const std::pair<StepId, int> key{st.id, st.tileM};
    if (ownerFor_ != key) {
      ownerFor_ = key;
      owner_.assign(size_t(st.tileM) * size_t(st.tileN), -1);
      for (int t = 0; t < st.blockX * st.blockY; ++t)
        for (const Cell& c : ownedCells(st, t))
          if (c.row < st.tileM && c.col < st.tileN)
            owner_[size_t(c.row) * size_t(st.tileN) + size_t(c.col)] = t;
    }
    return owner_;
  }

  void drawOwnership(LessonContext& ctx, const StepInfo& st, const std::vector<Cell>& mine,
                     ImVec2 o, float w, float h) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = ctx.scale;
    const float label = ImGui::GetTextLineHeight();
    const int tm = st.tileM, tn = st.tileN;
    const float cell = std::min(w / float(tn), (h - label) / float(tm));
    const ImVec2 p(o.x, o.y + label);
    dl->AddText(o, ImGui::GetColorU32(ImGuiCol_Text),
                trf("the block's %d x %d tile of C", tm, tn).c_str());
    const std::vector<int>& owner = ownerMap(st);
    for (int r = 0; r < tm; ++r)
      for (int c = 0; c < tn; ++c) {
        const int t = owner[size_t(r) * size_t(tn) + size_t(c)];
        const int warp = t / 32;
        const float alpha = 0.3f + 0.3f * float(t % 2);  // neighbouring threads told apart
        const ImVec2 a(p.x + float(c) * cell, p.y + float(r) * cell);
        dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), paletteColour(warp % 8, alpha));
      }
    for (const Cell& c : mine) {
      const ImVec2 a(p.x + float(c.col) * cell, p.y + float(c.row) * cell);
      dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), ImGui::GetColorU32(ImGuiCol_Text));
    }
    dl->AddRect(p, ImVec2(p.x + cell * float(tn), p.y + cell * float(tm)),
                ImGui::GetColorU32(ImGuiCol_Text), 0, 0, 1.5f * s);
    // Thread numbers when the cells are large enough to hold them (one element per thread).
    if (st.threadM * st.threadN == 1 && cell > ImGui::CalcTextSize("000").x + 2 * s)
      for (int r = 0; r < tm; ++r)
        for (int c = 0; c < tn; ++c) {
          const std::string n = std::to_string(owner[size_t(r) * size_t(tn) + size_t(c)]);
          dl->AddText(ImVec2(p.x + float(c) * cell + 2 * s, p.y + float(r) * cell + 1),
                      ImGui::GetColorU32(ImGuiCol_Text), n.c_str());
        }
  }

  // [SECTION] the naive steps' reads: the memory lesson's sector view

  void drawSectors(LessonContext& ctx, int M, int N, int K) {
    if (!beginPanel(ctx, "sectors", "The naive steps' reads: one warp, one k"))
      return endPanel(ctx);
    const float s = ctx.scale;
    if (radioButton("1. the course's mapping (i on x)", sectorCourse_ == 1)) sectorCourse_ = 1;
    sameLineIfFits(ImGui::GetFrameHeight(), tr("2. swapped (j on x)"));
    if (radioButton("2. swapped (j on x)", sectorCourse_ == 0)) sectorCourse_ = 0;
    memory::PatternParams p;
    p.rows = M;
    p.cols = N;
    p.inner = K;
    p.matmulBlockX = kNaiveBlock;
    p.matmulBlockY = kNaiveBlock;
    const memory::PatternId a =
        sectorCourse_ ? memory::PatternId::MatmulA : memory::PatternId::MatmulSwappedA;
    const memory::PatternId b =
        sectorCourse_ ? memory::PatternId::MatmulB : memory::PatternId::MatmulSwappedB;
    const long long warps = memory::launchShape(memory::patternInfo(a).kernel, p).warps();
    int maxWarp = static_cast<int>(std::min<long long>(warps - 1, 1 << 30));
    warp_ = std::clamp(warp_, 0, maxWarp);
    k_ = std::clamp(k_, 0, K - 1);
    ImGui::SetNextItemWidth(160 * s);
    ImGui::SliderInt(idLabel("warp", "warpsectors").c_str(), &warp_, 0, maxWarp);
    sameLineIfFits(160 * s, "k");
    ImGui::SetNextItemWidth(160 * s);
    ImGui::SliderInt("k##sectors", &k_, 0, K - 1);
    for (auto [id, what] : {std::pair{a, "A[i, k]"}, std::pair{b, "B[k, j]"}}) {
      const mem::WarpRequest r = memory::warpRequest(id, p, warp_, k_);
      const mem::GlobalAccess g = mem::analyzeGlobal(r);
      if (r.activeMask == 0) {
        ImGui::Text(tr("Reading %s: this warp has no lane inside C."), what);
        continue;
      }
      const long long asked = static_cast<long long>(g.bytesRequested);
      const std::string used = matmulPercent(g.efficiency());
      textWrapped(  // wrapped: a translation may be longer than the panel
          "%s",
          (g.sectorCount() == 1
               ? trf("Reading %s: %d lanes, 1 sector of 32 bytes for %lld bytes asked for (%s "
                     "used).",
                     what, r.activeLanes(), asked, used.c_str())
               : trf("Reading %s: %d lanes, %d sectors of 32 bytes for %lld bytes asked for (%s "
                     "used).",
                     what, r.activeLanes(), g.sectorCount(), asked, used.c_str()))
              .c_str());
      drawWarpPicture(ctx.theme, s, r, g);
    }
    mutedText(ctx.theme,
              "The course's blockdim=(16, 16): a warp is two rows of 16 threads. With i on x its "
              "lanes read A down a column, 16 rows apart; with j on x they read B along a row. "
              "The memory lesson shows the same kernels with 32 x 8 blocks, where a warp is one "
              "row of 32.");
    endPanel(ctx);
  }

  // The tiling picture.
  int pictureIndex_ = 3;  // tiled 16
  int tile_ = 16;
  int bx_ = 1, by_ = 0, m_ = 1, thread_ = 17;
  bool playing_ = false;
  std::optional<std::pair<StepId, int>> ownerFor_;  // the step and tile owner_ was made for
  std::vector<int> owner_;
  double lastStep_ = 0;
  // The sector view.
  int sectorCourse_ = 1;
  int warp_ = 0, k_ = 0;
};

MatmulPicturesPanel::MatmulPicturesPanel() : impl_(std::make_unique<Impl>()) {}
MatmulPicturesPanel::~MatmulPicturesPanel() = default;

bool MatmulPicturesPanel::playing() const {
  return impl_->playing_;
}

void MatmulPicturesPanel::draw(LessonContext& ctx, bool gpu, int M, int N, int K,
                               const BlockLimits& limits) {
  impl_->drawTiling(ctx, gpu, M, N, K, limits);
  impl_->drawSectors(ctx, M, N, K);
}

}  // namespace cudalab
