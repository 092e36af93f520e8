// cudalab's plots: drawing a record through ImDrawList, and the interaction (hover read-out,
// cross-hair, the context menu that saves a plot as SVG or PNG).
#include <imgui_internal.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>
#include <utility>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "ui/plot/plot_internal.hpp"
#include "ui/theme.hpp"

namespace cudalab::plot {

//-------------------------------------------------------------------------------------------------
// [SECTION] Drawing: the record through ImDrawList
//-------------------------------------------------------------------------------------------------

ImVec2 add(ImVec2 a, ImVec2 b) {
  return ImVec2(a.x + b.x, a.y + b.y);
}

// Dashes along a polyline: strokes of `dash` pixels, gaps of 0.6 of that.
static void drawDashed(ImDrawList* dl, const ImVec2* pts, int n, ImU32 col, float w, float dash) {
  const float gapLen = 0.6f * dash;
  bool on = true;
  float left = dash;  // of the current stroke or gap
  for (int i = 0; i + 1 < n; ++i) {
    ImVec2 a = pts[i];
    const ImVec2 b = pts[i + 1];
    float len = std::sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y));
    while (len > 0) {
      const float step = std::min(left, len);
      const float u = step / len;
      const ImVec2 c(a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u);
      if (on) dl->AddLine(a, c, col, w);
      a = c;
      len -= step;
      left -= step;
      if (left <= 0) {
        on = !on;
        left = on ? dash : gapLen;
      }
    }
  }
}

// Text turned to read upwards: the glyphs' quads rotated about `at` (ImDrawList has no rotation,
// and AddText would cull glyphs by their unrotated position).
static void drawVerticalText(ImDrawList* dl, ImFont* font, float size, ImVec2 topLeft, ImU32 col,
                             const std::string& s) {
  const float scale = size / font->FontSize;
  float pen = 0;
  const char* p = s.c_str();
  const char* end = p + s.size();
  while (p < end) {
    unsigned int c = 0;
    p += ImTextCharFromUtf8(&c, p, end);
    if (c == 0) break;
    const ImFontGlyph* g = font->FindGlyph(static_cast<ImWchar>(c));
    if (!g) continue;
    if (g->Visible) {
      // Unrotated (u right, v down) -> screen (topLeft.x + v, topLeft.y - u).
      const float u0 = pen + g->X0 * scale, u1 = pen + g->X1 * scale;
      const float v0 = g->Y0 * scale, v1 = g->Y1 * scale;
      dl->PrimReserve(6, 4);
      dl->PrimQuadUV(ImVec2(topLeft.x + v0, topLeft.y - u0), ImVec2(topLeft.x + v0, topLeft.y - u1),
                     ImVec2(topLeft.x + v1, topLeft.y - u1), ImVec2(topLeft.x + v1, topLeft.y - u0),
                     ImVec2(g->U0, g->V0), ImVec2(g->U1, g->V0), ImVec2(g->U1, g->V1),
                     ImVec2(g->U0, g->V1), col);
    }
    pen += g->AdvanceX * scale;
  }
}

void drawRecord(const Record& r, ImDrawList* dl) {
  const ImVec2 o = r.origin;
  ImFont* font = ImGui::GetFont();
  bool clipped = false;
  std::vector<ImVec2> pts;
  for (const Prim& p : r.prims) {
    if (!p.screen) continue;
    if (p.clip != clipped) {
      if (p.clip)
        dl->PushClipRect(add(o, r.area.Min), add(o, r.area.Max), true);
      else
        dl->PopClipRect();
      clipped = p.clip;
    }
    switch (p.kind) {
      case PrimKind::Polyline:
        pts.clear();
        for (int i = 0; i < p.count; ++i)
          pts.push_back(add(o, r.points[p.first + i]));
        if (p.dash > 0)
          drawDashed(dl, pts.data(), p.count, p.stroke, p.thickness, p.dash);
        else
          dl->AddPolyline(pts.data(), p.count, p.stroke, p.closed ? ImDrawFlags_Closed : 0,
                          p.thickness);
        break;
      case PrimKind::Rect:
        if (p.fill) dl->AddRectFilled(add(o, p.a), add(o, p.b), p.fill);
        if (p.stroke && p.thickness > 0)
          dl->AddRect(add(o, p.a), add(o, p.b), p.stroke, 0, 0, p.thickness);
        break;
      case PrimKind::Circle:
        if (p.fill) dl->AddCircleFilled(add(o, p.a), p.size, p.fill);
        if (p.stroke && p.thickness > 0)
          dl->AddCircle(add(o, p.a), p.size, p.stroke, 0, p.thickness);
        break;
      case PrimKind::Text: {
        const ImVec2 ts = font->CalcTextSizeA(p.size, FLT_MAX, 0, p.text.c_str());
        if (p.vertical) {
          const ImVec2 topLeft(o.x + p.a.x - p.anchor.y * ts.y, o.y + p.a.y + p.anchor.x * ts.x);
          drawVerticalText(dl, font, p.size, topLeft, p.fill, p.text);
        } else {
          dl->AddText(font, p.size,
                      add(o, ImVec2(p.a.x - p.anchor.x * ts.x, p.a.y - p.anchor.y * ts.y)), p.fill,
                      p.text.c_str());
        }
        break;
      }
      case PrimKind::Cells: {
        const float cw = (p.b.x - p.a.x) / fl(p.cols), ch = (p.b.y - p.a.y) / fl(p.rows);
        for (int row = 0; row < p.rows; ++row) {
          for (int c = 0; c < p.cols; ++c) {
            const ImU32 col = r.cells[p.first + row * p.cols + c];
            if (!(col & IM_COL32_A_MASK)) continue;
            const ImVec2 a(o.x + p.a.x + cw * fl(c), o.y + p.b.y - ch * fl(row + 1));
            dl->AddRectFilled(a, ImVec2(a.x + cw, a.y + ch), col);
          }
        }
        break;
      }
    }
  }
  if (clipped) dl->PopClipRect();
}

//-------------------------------------------------------------------------------------------------
// [SECTION] Interaction: hover read-out, cross-hair, context menu
//-------------------------------------------------------------------------------------------------

struct Readout {
  ImU32 colour = 0;
  std::string name;
  std::vector<std::string> lines;
  bool marker = false;
  ImVec2 at;  // plot-local, with marker
};

static std::string axisName(const AxisState& ax, const char* fallback) {
  const std::string s = shown(ax.label);
  return s.empty() ? fallback : s;
}

// "Transfer size: 4 MB", or the category's name when the axis has them.
// A value on an axis as the read-out says it: "axis: value", or a category's own name (a bar's
// "Implicit copies" says itself). `named`: the axis's name before a category too, where
// categories are numbers (a heat map's rows "0", "1", ... said bare meant nothing).
static std::string axisValue(const AxisState& ax, const char* fallback, double v,
                             bool named = false) {
  if (!ax.categories.empty()) {
    const double i = std::round(v);
    if (std::fabs(v - i) < 1e-9 && i >= 0 && i < static_cast<double>(ax.categories.size())) {
      const std::string& c = ax.categories[static_cast<size_t>(i)];
      return named ? axisName(ax, fallback) + ": " + c : c;
    }
  }
  return axisName(ax, fallback) + ": " + formatValue(v, ax.fmt(), 0);
}

static std::string seriesName(const std::string& label) {
  const std::string s = shown(label);
  return s.empty() ? "(unnamed)" : s;
}

static std::optional<Readout> findReadout(const Building& b, const std::vector<Hit>& hits,
                                          const Mapping& xm, const Mapping& ym, ImVec2 mouse,
                                          const Style& st) {
  // The nearest point of the line and scatter series.
  int bestSeries = -1;
  size_t bestIndex = 0;
  float bestD2 = FLT_MAX;
  for (int si = 0; si < static_cast<int>(b.series.size()); ++si) {
    const Series& s = b.series[si];
    if (s.kind != Kind::Line && s.kind != Kind::Scatter) continue;
    for (size_t i = 0; i < s.xs.size(); ++i) {
      if (!xm.ok(s.xs[i]) || !ym.ok(s.ys[i])) continue;
      const float dx = xm.px(s.xs[i]) - mouse.x, dy = ym.px(s.ys[i]) - mouse.y;
      if (dx * dx + dy * dy < bestD2) {
        bestD2 = dx * dx + dy * dy;
        bestSeries = si;
        bestIndex = i;
      }
    }
  }
  auto pointReadout = [&]() {
    const Series& s = b.series[bestSeries];
    Readout r;
    r.colour = paletteColour(s.colour);
    r.name = seriesName(s.label);
    r.lines = {axisValue(b.x, "x", s.xs[bestIndex]), axisValue(b.y, "y", s.ys[bestIndex])};
    r.marker = true;
    r.at = ImVec2(xm.px(s.xs[bestIndex]), ym.px(s.ys[bestIndex]));
    return r;
  };
  if (bestSeries >= 0 && bestD2 <= st.f * st.f) return pointReadout();

  // Bars, stacked segments, spans and reference marks under the mouse (the last drawn wins), else
  // the nearest bar segment within two lines (the mouse just above a short bar; not spans, which
  // lie side by side and are found when under the mouse only).
  auto isBar = [&](const Hit& h) {
    const Kind k = b.series[h.series].kind;
    return k == Kind::Bars || k == Kind::StackedBars;
  };
  const Hit* hit = nullptr;
  for (auto it = hits.rbegin(); it != hits.rend() && !hit; ++it)
    if (b.series[it->series].kind != Kind::VSpan && it->box.Contains(mouse)) hit = &*it;
  float nearest = 2 * st.f;
  for (auto it = hits.rbegin(); it != hits.rend() && !hit; ++it) {
    if (!isBar(*it)) continue;
    const ImVec2 q = ImClamp(mouse, it->box.Min, it->box.Max);
    const float d = std::sqrt(ImLengthSqr(ImVec2(q.x - mouse.x, q.y - mouse.y)));
    if (d < nearest) {
      nearest = d;
      hit = &*it;
    }
  }
  if (hit) {
    const Series& s = b.series[hit->series];
    Readout r;
    r.colour = paletteColour(s.colour);
    r.name = seriesName(s.label);
    if (s.kind == Kind::Bars) {
      r.lines = {axisValue(b.x, "x", hit->cat), axisValue(b.y, "y", s.ys[hit->cat])};
    } else if (s.kind == Kind::StackedBars) {
      const AxisState& cat = s.horizontal ? b.y : b.x;
      const AxisState& val = s.horizontal ? b.x : b.y;
      const double v = s.ys[static_cast<size_t>(hit->part) * s.cols + hit->cat];
      double total = 0;
      for (int p = 0; p < s.rows; ++p) {
        const double w = s.ys[static_cast<size_t>(p) * s.cols + hit->cat];
        if (std::isfinite(w)) total += w;
      }
      r.colour = paletteColour(s.colour + hit->part);
      r.name = seriesName(s.parts[hit->part]);
      if (s.pin >= 0) r.name += s.label;  // " (A)": which pinned run the segment is of
      r.lines = {axisValue(cat, s.horizontal ? "y" : "x", hit->cat), axisValue(val, "value", v)};
      if (total != 0) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * v / total);
        r.lines.push_back(std::string(pct) + " of " + formatValue(total, val.fmt(), 0));
      }
    } else if (s.kind == Kind::Spans) {
      const double x0 = s.xs[hit->part], x1 = s.ys[hit->part];
      const char* fmt = b.x.fmt();
      r.lines = {axisValue(b.y, "row", hit->cat), "start: " + formatValue(x0, fmt, 0),
                 "end: " + formatValue(x1, fmt, 0), "duration: " + formatValue(x1 - x0, fmt, 0)};
    } else if (s.kind == Kind::HLine) {
      r.lines = {axisValue(b.y, "y", s.a)};
    } else {
      r.lines = {axisValue(b.x, "x", s.a)};
    }
    return r;
  }

  // A heat map cell.
  const double mx = xm.value(mouse.x), my = ym.value(mouse.y);
  for (auto it = b.series.rbegin(); it != b.series.rend(); ++it) {
    const Series& s = *it;
    if (s.kind != Kind::Heatmap || s.rows <= 0) continue;
    const double c = std::round(mx), rr = std::round(my);
    if (c < 0 || c >= s.srcCols || rr < 0 || rr >= s.srcRows) continue;
    const int kc = static_cast<int>(c) / s.blockC, kr = static_cast<int>(rr) / s.blockR;
    const double v = s.ys[static_cast<size_t>(kr) * s.cols + kc];
    Readout r;
    r.colour = std::isfinite(v) ? colormapColour(s.cmap, (v - s.a) / (s.b - s.a)) : 0;
    r.name = seriesName(s.label);
    r.lines = {axisValue(b.x, "x", c, true), axisValue(b.y, "y", rr, true),
               "value: " + (std::isfinite(v) ? formatValue(v, nullptr, 0) : std::string("none"))};
    if (s.blockR * s.blockC > 1)
      r.lines.push_back("(mean of " + std::to_string(s.blockR) + " x " + std::to_string(s.blockC) +
                        " cells)");
    return r;
  }

  for (auto it = hits.rbegin(); it != hits.rend(); ++it) {
    const Series& s = b.series[it->series];
    if (s.kind != Kind::VSpan || !it->box.Contains(mouse)) continue;
    Readout r;
    r.colour = paletteColour(s.colour);
    r.name = seriesName(s.label);
    r.lines = {axisValue(b.x, "from x", s.a), axisValue(b.x, "to x", s.b)};
    return r;
  }
  if (bestSeries >= 0) return pointReadout();
  return std::nullopt;
}

void drawInteraction(const Building& b, const std::vector<Hit>& hits, const Mapping& xm,
                     const Mapping& ym, const ImRect& area, const Style& st) {
  const ImVec2 o = b.origin;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const ImVec2 local(mouse.x - o.x, mouse.y - o.y);
  if (!b.hovered || !area.Contains(local)) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(add(o, area.Min), add(o, area.Max), true);
  const ImU32 cross = ImGui::GetColorU32(ImGuiCol_Text, 0.25f);
  dl->AddLine(ImVec2(mouse.x, o.y + area.Min.y), ImVec2(mouse.x, o.y + area.Max.y), cross, st.lw);
  dl->AddLine(ImVec2(o.x + area.Min.x, mouse.y), ImVec2(o.x + area.Max.x, mouse.y), cross, st.lw);
  const std::optional<Readout> r = findReadout(b, hits, xm, ym, local, st);
  if (r && r->marker)
    dl->AddCircle(add(o, r->at), 0.45f * st.f, ImGui::GetColorU32(ImGuiCol_Text), 0, 1.5f * st.lw);
  dl->PopClipRect();
  if (!r) return;
  ImGui::BeginTooltip();
  if (r->colour) {
    ImGui::ColorButton("##colour", ImGui::ColorConvertU32ToFloat4(r->colour),
                       ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop,
                       ImVec2(0.8f * st.f, 0.8f * st.f));
    ImGui::SameLine();
  }
  ImGui::TextUnformatted(r->name.c_str());
  for (const std::string& line : r->lines)
    ImGui::TextUnformatted(line.c_str());
  ImGui::EndTooltip();
}

// This run's own line, scatter, bar and stacked-bar series (not the pinned runs' copies), kept so
// that the run can be pinned. Moved out: the plot is done with them.
std::vector<Series> ownSeries(std::vector<Series>& series) {
  std::vector<Series> out;
  for (Series& s : series)
    if (s.pin < 0 && (s.kind == Kind::Line || s.kind == Kind::Scatter || s.kind == Kind::Bars ||
                      s.kind == Kind::StackedBars))
      out.push_back(std::move(s));
  return out;
}

void contextMenu(const std::string& id) {
  if (!ImGui::BeginPopup("##plotmenu")) return;
  const auto handler = context().exportHandler;  // a copy: the handler may replace itself
  if (ImGui::MenuItem("Save as SVG", nullptr, false, static_cast<bool>(handler)))
    handler(id.c_str(), true);
  if (ImGui::MenuItem("Save as PNG", nullptr, false, static_cast<bool>(handler)))
    handler(id.c_str(), false);
  ImGui::EndPopup();
}

}  // namespace cudalab::plot
