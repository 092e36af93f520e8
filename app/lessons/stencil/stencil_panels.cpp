// The stencil lesson's two lower panels: the blur's ladder against the radius, and one block's
// tile with its halo (see stencil_panels.hpp).
#include "lessons/stencil/stencil_panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace stencil;

std::string stencilMsText(double ms) {
  return trimmedFixed(ms, ms < 0.1 ? 4 : ms < 10 ? 3 : 1) + " ms";
}

// [SECTION] time against radius

void drawStencilSweepPanel(LessonContext& ctx, const std::optional<KernelReport>& report,
                           bool measuring, bool gpu, bool stale) {
  if (!beginPanel(ctx, "sweep", "The blur's ladder: time against radius")) return endPanel(ctx);
  if (waitingForMeasurement(bool(report), measuring, gpu, N_("Press \"Measure the kernels\".")))
    return endPanel(ctx);
  const KernelReport& r = *report;
  staleNote(ctx.theme, stale, "Measure the kernels");
  if (plot::BeginPlot("stencil_radius", "##radius", ImVec2(-1, 0))) {
    plot::SetupAxes({N_("radius"), plot::Scale::Linear, 0, 16},
                    {N_("time"), plot::Scale::Log10, NAN, NAN, "s"});
    plot::SetupLegend(plot::Legend::Outside);
    for (const BlurInfo& b : blurs()) {
      std::vector<double> xs, ys;
      for (const KernelPoint& p : r.points)
        if (p.id == b.id) xs.push_back(p.radius), ys.push_back(p.ms * 1e-3);
      plot::SetNextColour(b.colour);
      plot::PlotLine(b.key, xs.data(), ys.data(), int(xs.size()));
    }
    plot::SetNextColour(7);
    plot::PlotHLine("device copy of the frame", r.copyMs * 1e-3);
    plot::EndPlot();
  }
  bool allOk = true;
  for (const KernelPoint& p : r.points)
    allOk = allOk && p.ok;
  auto at = [&](BlurId id, int radius) -> const KernelPoint* {
    for (const KernelPoint& p : r.points)
      if (p.id == id && p.radius == radius) return &p;
    return nullptr;
  };
  // Whole sentences, each translated with its numbers; the kernels' keys are names.
  std::string text =
      (allOk ? trf("%d x %d on %s. Every point checked against the CPU bit for bit: all equal.",
                   r.width, r.height, r.device.c_str())
             : trf("%d x %d on %s. Every point checked against the CPU bit for bit: SOME DIFFER.",
                   r.width, r.height, r.device.c_str())) +
      " ";
  for (int radius : {1, 7}) {
    const KernelPoint* best = nullptr;
    std::string each;
    for (const BlurInfo& b : blurs())
      if (const KernelPoint* p = at(b.id, radius)) {
        each += (each.empty() ? "" : ", ") + std::string(b.key) + " " + stencilMsText(p->ms);
        if (!best || p->ms < best->ms) best = p;
      }
    const KernelPoint *n = at(BlurId::Naive, radius), *s = at(BlurId::Separable, radius);
    if (!best) continue;
    const std::string ratio = trimmedFixed(best->ms / r.copyMs, 1);
    if (n && s && s->ms > n->ms)
      text +=
          trf("Radius %d: %s; the best, %s, takes %sx a copy of the frame (the two separable "
              "passes lose to the naive kernel here: each reads and writes the whole frame, "
              "which costs more than %d cached taps).",
              radius, each.c_str(), blurInfo(best->id).key, ratio.c_str(),
              (2 * radius + 1) * (2 * radius + 1));
    else
      text += trf("Radius %d: %s; the best, %s, takes %sx a copy of the frame.", radius,
                  each.c_str(), blurInfo(best->id).key, ratio.c_str());
    text += " ";
  }
  if (r.points.size() < defaultRadii().size() * blurs().size())
    text += std::string(tr("Radii whose tile and halo do not fit in a block's shared memory are "
                           "not measured for the tiled kernels (their lines stop there).")) +
            " ";
  text +=
      trf("A copy of the frame: %s. The 2D kernels do (2r + 1)^2 multiply-adds per pixel and "
          "grow with the square of the radius; the separable passes do 2 (2r + 1) and grow "
          "linearly, so separable wins more the larger the radius; in shared memory it also "
          "reads and writes the frame only once.",
          stencilMsText(r.copyMs).c_str());
  mutedText(ctx.theme, text.c_str());
  endPanel(ctx);
}

// [SECTION] one block's tile and halo

void StencilTilePanel::draw(LessonContext& ctx, const Pipeline& pipe, const Status& refusal) {
  if (!beginPanel(ctx, "tile", "One block's tile and halo")) return endPanel(ctx);
  const int t = pipe.tile, r = pipe.radius;
  const TileModel m = tileModel(t, r);
  textWrapped(
      "Tile %d x %d, radius %d: each block loads %s pixels (%d x %d) into shared memory for %s "
      "outputs, %s more than it writes; %s bytes of shared memory.",
      t, t, r, thousands(m.loadsPerBlock).c_str(), t + 2 * r, t + 2 * r,
      thousands(m.outputsPerBlock).c_str(), (trimmedFixed(100 * m.haloOverhead, 0) + "%").c_str(),
      thousands(m.sharedBytes).c_str());
  // A 3 x 3 neighbourhood of tiles, each input pixel coloured by how many blocks load it.
  const float s = ctx.scale;
  const int cells = 3 * t;
  const float cell = std::max(1.5f * s, std::min(6.0f * s, 260.0f * s / float(cells)));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Screen position of pixel column / row i of the picture.
  auto X = [&](int i) { return o.x + float(i) * cell; };
  auto Y = [&](int i) { return o.y + float(i) * cell; };
  // The counts, computed when the tile or radius changes, not every frame.
  if (for_ != std::pair{t, r}) {
    loads_.assign(size_t(cells) * size_t(cells), 0);
    for (int y = 0; y < cells; ++y)
      for (int x = 0; x < cells; ++x)  // away from the frame's edge
        loads_[size_t(y) * size_t(cells) + size_t(x)] = loadsOfPixel(x + 5 * t, y + 5 * t, t, r);
    for_ = {t, r};
  }
  for (int y = 0; y < cells; ++y)
    for (int x = 0; x < cells; ++x) {
      const int loads = loads_[size_t(y) * size_t(cells) + size_t(x)];
      // 1 inside a tile; 2 in an edge's halo; 3 or more in a corner's, or everywhere once the
      // halo is wider than half a tile (2r > tile).
      const ImU32 c = loads == 1   ? paletteColour(0, 0.35f)
                      : loads == 2 ? paletteColour(1, 0.75f)
                                   : paletteColour(5, 0.9f);
      dl->AddRectFilled(ImVec2(X(x), Y(y)), ImVec2(X(x + 1), Y(y + 1)), c);
    }
  const ImU32 line = ImGui::GetColorU32(ImGuiCol_Text);
  for (int k = 0; k <= 3; ++k) {
    dl->AddLine(ImVec2(X(k * t), Y(0)), ImVec2(X(k * t), Y(cells)), line, 1.0f * s);
    dl->AddLine(ImVec2(X(0), Y(k * t)), ImVec2(X(cells), Y(k * t)), line, 1.0f * s);
  }
  // The middle block's halo (clipped to the picture when it is wider than a tile).
  dl->PushClipRect(ImVec2(X(0), Y(0)), ImVec2(X(cells), Y(cells)), true);
  dl->AddRect(ImVec2(X(t - r), Y(t - r)), ImVec2(X(2 * t + r), Y(2 * t + r)), paletteColour(5),
              0.0f, 0, 2.5f * s);
  dl->PopClipRect();
  ImGui::Dummy(ImVec2(X(cells) - o.x, Y(cells) - o.y));
  ImGui::SameLine();
  ImGui::BeginGroup();
  colourSwatch(0);
  ImGui::TextUnformatted(tr("loaded by 1 block"));
  colourSwatch(1);
  ImGui::TextUnformatted(tr("by 2 (an edge's halo)"));
  colourSwatch(5);
  ImGui::TextUnformatted(2 * r > t ? tr("by 3 or more (corners; a halo wider than half a tile)")
                                   : tr("by 4 (a corner's)"));
  textWrapped("The frame outline: the middle block's tile plus halo.");
  ImGui::EndGroup();
  if (plot::BeginPlot("stencil_halo", "Loads per output pixel##halo", ImVec2(-1, 0))) {
    plot::SetupAxes({N_("radius"), plot::Scale::Linear, 0, 16},
                    {N_("loads per output"), plot::Scale::Log10});
    plot::SetupLegend(plot::Legend::Outside);
    std::vector<double> xs;
    for (int k = 1; k <= kMaxRadius; ++k)
      xs.push_back(k);
    auto series = [&](const char* name, int colour, auto f) {
      std::vector<double> ys;
      for (int k = 1; k <= kMaxRadius; ++k)
        ys.push_back(f(tileModel(t, k)));
      plot::SetNextColour(colour);
      plot::PlotLine(name, xs.data(), ys.data(), int(xs.size()));
    };
    // PlotLine translates the names (marked here: they reach it through the lambda).
    series(N_("naive: (2r+1)^2 taps"), blurInfo(BlurId::Naive).colour,
           [](const TileModel& q) { return q.naiveReadsPerPixel; });
    series(N_("tiled: (T+2r)^2 / T^2 loads"), blurInfo(BlurId::Tiled).colour,
           [](const TileModel& q) { return q.tiledReadsPerPixel; });
    series(N_("separable: 2 (2r+1) taps"), blurInfo(BlurId::Separable).colour,
           [](const TileModel& q) { return q.separableReadsPerPixel; });
    plot::EndPlot();
  }
  if (!refusal) errorText(ctx.theme, refusal);
  mutedText(ctx.theme,
            "Across the frame every input pixel is read (2r + 1)^2 times by the naive kernel "
            "(through the caches), (T + 2r)^2 / T^2 times by the tiled one (its halo loads: the "
            "pixels near a tile's edge are loaded again by the neighbour), and 2 (2r + 1) "
            "times by the separable passes. A larger tile wastes less on halos but needs more "
            "shared memory: a 32 x 32 tile with radius 12 or more does not fit in 48 KiB and "
            "is refused (for the separable blur in shared memory, which also keeps the row "
            "pass's results, from radius 5).");
  endPanel(ctx);
}

}  // namespace cudalab
