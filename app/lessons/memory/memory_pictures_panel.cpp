#include "lessons/memory/memory_pictures_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/warp_picture.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace memory;

using namespace mem;

namespace {

// "1 sector", "5 sectors", translated whole: `one` is the English for 1 ("1 sector"), `many` a
// format with %s for the number ("%s sectors"); both marked N_() where they are written.
std::string count(long long n, const char* one, const char* many) {
  return n == 1 ? std::string(tr(one)) : trf(many, thousands(n).c_str());
}
std::string lanes(long long n) {
  return count(n, N_("1 lane"), N_("%s lanes"));
}
std::string sectors(long long n) {
  return count(n, N_("1 sector"), N_("%s sectors"));
}
std::string lines(long long n) {
  return count(n, N_("1 line"), N_("%s lines"));
}
std::string warps(long long n) {
  return count(n, N_("1 warp"), N_("%s warps"));
}
std::string requests(long long n) {
  return count(n, N_("1 request"), N_("%s requests"));
}

}  // namespace

// "100%", "12.5%", "0.8%": a decimal only where the value has one.
std::string memoryPercent(double f) {
  const double p = 100 * f;
  return trimmedFixed(p, std::fabs(p - std::round(p)) > 0.05 || p < 1 ? 1 : 0) + "%";
}

std::string memoryBytes(long long n) {
  return count(n, N_("1 byte"), N_("%s bytes"));
}

bool isTilePattern(PatternId id) {
  return id == PatternId::TileRows || id == PatternId::TileColumns;
}

// [SECTION] one warp and global memory: lanes, lines and sectors

void drawMemoryWarpPanel(LessonContext& ctx, PatternId pattern, const PatternParams& p, int warp,
                         int trip) {
  if (!beginPanel(ctx, "warp", "One warp's request to global memory")) return endPanel(ctx);
  const PatternInfo& info = patternInfo(pattern);
  const KernelInfo& k = kernelInfo(info.kernel);
  const Status valid = validate(p);
  if (!valid) {
    wrappedText(tr(valid.sentence()).c_str());  // a fixed sentence is translated
    return endPanel(ctx);
  }
  const WarpRequest r = warpRequest(pattern, p, warp, trip);
  const GlobalAccess g = analyzeGlobal(r);
  ImGui::PushFont(ctx.theme.fonts().mono);
  ImGui::TextUnformatted(k.code);
  ImGui::PopFont();
  ImGui::SameLine();
  mutedText(ctx.theme,
            trf("(%s, warp %d)", tr(k.instructions[size_t(info.instruction)].name), warp).c_str());
  if (r.activeMask == 0) {
    textWrapped("Warp %d has no lane inside the array at this step: it makes no request.", warp);
    return endPanel(ctx);
  }
  const int ideal = static_cast<int>(
      std::ceil(double(g.bytesRequested) / kSectorBytes - 1e-9));  // if perfectly packed
  const bool store = k.instructions[size_t(info.instruction)].op == Op::Store;
  // Two whole sentences (a store and a load read differently in every language), then whether
  // fewer sectors could have done.
  const std::string moved =
      store ? trf("%s write %s. Memory moves %s of 32 bytes (%lld bytes) into %s of 128 bytes: %s "
                  "of what moves is used.",
                  lanes(r.activeLanes()).c_str(), memoryBytes(g.bytesRequested).c_str(),
                  sectors(g.sectorCount()).c_str(), static_cast<long long>(g.bytesMoved()),
                  lines(g.lineCount()).c_str(), memoryPercent(g.efficiency()).c_str())
            : trf("%s ask for %s. Memory moves %s of 32 bytes (%lld bytes) from %s of 128 bytes: "
                  "%s of what moves is used.",
                  lanes(r.activeLanes()).c_str(), memoryBytes(g.bytesRequested).c_str(),
                  sectors(g.sectorCount()).c_str(), static_cast<long long>(g.bytesMoved()),
                  lines(g.lineCount()).c_str(), memoryPercent(g.efficiency()).c_str());
  const std::string fewer = g.sectorCount() > ideal
                                ? trf("Packed together, %s would do.", sectors(ideal).c_str())
                                : std::string(tr("No request could do with fewer."));
  wrappedText((moved + " " + fewer).c_str());
  mutedText(ctx.theme, info.help);  // translated by mutedText (marked N_() in the table)
  drawWarpPicture(ctx.theme, ctx.scale, r, g);
  endPanel(ctx);
}

// [SECTION] one warp and shared memory: lanes by banks

namespace {

// The 32 lanes by the 32 banks, coloured by what each lane asks of its banks, with the legend.
void drawBankGrid(LessonContext& ctx, const WarpRequest& r, const SharedAccess& sh) {
  const float s = ctx.scale;
  const float width = ImGui::GetContentRegionAvail().x;
  const float fontH = ImGui::GetTextLineHeight();
  const float labelW = ImGui::CalcTextSize((trf("lane %d", 31) + " ").c_str()).x;
  // The grid fits the panel: 32 banks of at most 15 px (scaled), fewer pixels when the panel
  // is narrow (a projector's scale), never wider than the panel.
  const float cell = std::max(3.0f, std::min((width - labelW) / kBanks, 15.0f * s));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
  const ImU32 frame = ImGui::GetColorU32(ImGuiCol_FrameBg);
  const int size = std::clamp(r.elementBytes, 1, kMaxElementBytes);
  const float gridX = o.x + labelW;
  const float headY = o.y;
  // The caption wraps over the grid's width; the counts above the banks shrink to a bank's
  // width when two digits are wider.
  ImFont* font = ImGui::GetFont();
  const float fs = ImGui::GetFontSize();
  const char* caption = tr("banks 0-31; the number: distinct words asked of it in one phase");
  const float captionW = std::max(kBanks * cell, 8 * fs);
  const float captionH = font->CalcTextSizeA(fs, FLT_MAX, captionW, caption).y;
  dl->AddText(font, fs, ImVec2(gridX, headY), text, caption, nullptr, captionW);
  const float numberFs = std::min(fs, fs * cell / ImGui::CalcTextSize("32").x);
  const float gridY = headY + captionH + numberFs + 6 * s;
  for (int b = 0; b < kBanks; ++b) {
    int worst = 0;
    for (int ph = 0; ph < sh.phases; ++ph)
      worst = std::max(worst, sh.phaseBankWords[size_t(ph)][size_t(b)]);
    if (worst == 0) continue;
    const std::string n = std::to_string(worst);
    const float tw = font->CalcTextSizeA(numberFs, FLT_MAX, 0, n.c_str()).x;
    dl->AddText(font, numberFs,
                ImVec2(gridX + (float(b) + 0.5f) * cell - tw / 2, headY + captionH + 2 * s),
                worst > 1 ? paletteColour(5) : text, n.c_str());
  }
  for (int l = 0; l < kWarpSize; ++l) {
    const float y = gridY + float(l) * cell;
    if (l % 4 == 0 || cell >= fontH) {
      const std::string n = trf("lane %d", l);
      dl->AddText(ImVec2(o.x, y + (cell - fontH) / 2), text, n.c_str());
    }
    for (int b = 0; b < kBanks; ++b)
      dl->AddRectFilled(ImVec2(gridX + float(b) * cell + 1, y + 1),
                        ImVec2(gridX + float(b + 1) * cell - 1, y + cell - 1), frame);
    if (!r.active(l)) continue;
    for (std::uint64_t w = r.address[size_t(l)] / kBankBytes;
         w <= (r.address[size_t(l)] + std::uint64_t(size) - 1) / kBankBytes; ++w) {
      const int b = int(w % kBanks);
      const int distinct = sh.phaseBankWords[size_t(sh.lanePhase[size_t(l)])][size_t(b)];
      const ImU32 c = distinct > 1               ? paletteColour(5)
                      : sh.laneShares[size_t(l)] ? paletteColour(4)
                                                 : paletteColour(2);
      dl->AddRectFilled(ImVec2(gridX + float(b) * cell + 1, y + 1),
                        ImVec2(gridX + float(b + 1) * cell - 1, y + cell - 1), c);
    }
  }
  dl->AddRect(ImVec2(gridX, gridY), ImVec2(gridX + kBanks * cell, gridY + kWarpSize * cell),
              border);
  ImGui::Dummy(ImVec2(width, gridY + kWarpSize * cell + 4 * s - o.y));
  // The legend, in the same colours.
  const struct {
    int colour;
    const char* text;
  } legend[] = {{2, N_("one word from its bank")},
                {4, N_("a word other lanes read too (broadcast)")},
                {5, N_("a bank asked for several words: conflict")}};
  for (const auto& e : legend)
    legendItem(paletteColour(e.colour), tr(e.text), &e == &legend[0]);
}

}  // namespace

void drawMemoryBanksPanel(LessonContext& ctx, PatternId pattern, PatternParams& p, int warp,
                          int trip) {
  if (!beginPanel(ctx, "banks", "One warp's request to shared memory: 32 banks"))
    return endPanel(ctx);
  const PatternInfo& info = patternInfo(pattern);
  const KernelInfo& k = kernelInfo(info.kernel);
  if (isTilePattern(pattern)) {
    checkbox("Pad the tile to 33 columns", &p.padded);
    helpTooltip("Redraws at once: one unused float per row moves row r by r banks.");
  }
  ImGui::PushFont(ctx.theme.fonts().mono);
  ImGui::TextUnformatted(k.code);
  ImGui::PopFont();
  const Status valid = validate(p);
  if (!valid) {
    wrappedText(tr(valid.sentence()).c_str());
    return endPanel(ctx);
  }
  const WarpRequest r = warpRequest(pattern, p, warp, trip);
  if (r.activeMask == 0) {
    textWrapped("Warp %d makes no request at this step.", warp);
    return endPanel(ctx);
  }
  const SharedAccess sh = analyzeShared(r);
  // Whole sentences, each translated: the verdict, how wide elements split the warp into
  // phases, whether lanes share a word.
  std::string text =
      !sh.conflictFree()
          ? trf("%d-way bank conflict: one bank must give %d different words, one per pass, so "
                "the request takes %d passes instead of %d.",
                sh.degree, sh.degree, sh.wavefronts, sh.phases)
      : sh.wavefronts == 1
          ? std::string(tr("No conflict: every bank gives at most one word per phase, so the "
                           "request takes 1 pass."))
          : trf("No conflict: every bank gives at most one word per phase, so the request takes "
                "%d passes.",
                sh.wavefronts);
  if (sh.phases > 1)
    text.append(" ").append(trf("%d-byte elements: %d phases of %d lanes, 128 bytes each.",
                                r.elementBytes, sh.phases, kWarpSize / sh.phases));
  if (sh.conflictFree() && sh.broadcast)
    text += std::string(" ") + tr("Lanes that read the same word share it (broadcast).");
  wrappedText(text.c_str());
  mutedText(ctx.theme, info.help);
  drawBankGrid(ctx, r, sh);
  endPanel(ctx);
}

// [SECTION] every warp of the kernel: the heat map

void drawMemoryMapPanel(LessonContext& ctx, bool& ofShared, const std::optional<MemoryMapView>& map,
                        const Status& error, bool computing) {
  if (!beginPanel(ctx, "map", "Every warp of the kernel")) return endPanel(ctx);
  if (radioButton("the global-memory pattern", !ofShared)) ofShared = false;
  sameLineIfFits(ImGui::GetFrameHeight(), tr("the shared-memory pattern"));
  if (radioButton("the shared-memory pattern", ofShared)) ofShared = true;
  if (!error.ok()) wrappedText(tr(error.sentence()).c_str());
  if (!map) {
    ImGui::TextUnformatted(computing ? tr("Computing...") : tr("Not computed yet."));
    return endPanel(ctx);
  }
  const MemoryMapView& v = *map;
  const bool shared = patternSpace(v.pattern) == Space::Shared;
  const LaunchShape& sh = v.map.shape;
  // The plot translates its title and the heat map's label (both marked here).
  const char* unit = shared ? N_("wavefronts (passes)") : N_("sectors");
  const char* title = shared ? N_("wavefronts (passes) per request, one cell per warp")
                             : N_("sectors per request, one cell per warp");
  if (shared)
    textWrapped(
        "%s: %d x %d blocks of %d x %d threads, %s; %s. On average %.2f wavefronts (passes) per "
        "request.",
        tr(patternInfo(v.pattern).label), sh.gridX, sh.gridY, sh.blockX, sh.blockY,
        warps(sh.warps()).c_str(), requests(v.map.totals.requests).c_str(),
        v.map.totals.wavefrontsPerRequest());
  else
    textWrapped(
        "%s: %d x %d blocks of %d x %d threads, %s; %s. On average %.2f sectors per request, "
        "efficiency %s.",
        tr(patternInfo(v.pattern).label), sh.gridX, sh.gridY, sh.blockX, sh.blockY,
        warps(sh.warps()).c_str(), requests(v.map.totals.requests).c_str(),
        v.map.totals.sectorsPerRequest(), memoryPercent(v.map.totals.efficiency()).c_str());
  if (plot::BeginPlot("memory_map", title, ImVec2(-1, 0))) {
    const bool rowsOfWarps = sh.blockX == kWarpSize;
    plot::SetupAxes({rowsOfWarps ? N_("block x") : N_("warp (in rows of 32)"), plot::Scale::Linear,
                     -0.5, v.map.cols - 0.5, "%.0f"},
                    {rowsOfWarps ? N_("warp row, 0 at the bottom") : N_("row of 32 warps"),
                     plot::Scale::Linear, -0.5, v.map.rows - 0.5, "%.0f"});
    if (!v.colPtrs.empty()) plot::SetupCategories(v.colPtrs.data(), int(v.colPtrs.size()));
    if (!v.rowPtrs.empty())
      plot::SetupCategories(v.rowPtrs.data(), int(v.rowPtrs.size()), plot::AxisId::Y);
    plot::PlotHeatmap(unit, v.map.perWarp.data(), v.map.rows, v.map.cols, 1, 32);
    plot::EndPlot();
  }
  mutedText(ctx.theme,
            "Colour scale from 1 (dark) to 32 (yellow). Edges show warps with fewer lanes "
            "inside the array; in the transposes and matrix products every warp costs the "
            "same, in the strided copy it depends on the offset.");
  endPanel(ctx);
}

}  // namespace cudalab
