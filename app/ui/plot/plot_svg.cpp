// cudalab's plots: export. A plot's last record as SVG (text, paths and cells, the same
// primitives it was drawn with), files, the rectangles of plots on screen, and the snapshot of the
// plots' series that a pinned run keeps.
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
// [SECTION] Export: SVG, files, rectangles
//-------------------------------------------------------------------------------------------------

// ImGui sizes a font by its line height (ascent - descent); SVG's font-size is the em. For the
// SVG's font, DejaVu Sans (the app's; 2048 units per em, ascent 1901, descent 483):
constexpr float kSvgEm = 2048.0f / 2384.0f;
constexpr float kSvgAscent = 1901.0f / 2384.0f;

static std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
  std::string s = trimmedFixed(std::strtod(buf, nullptr), 2);
  return s;
}

static std::string escapeXml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
    }
  }
  return out;
}

// ` fill="#rrggbb" fill-opacity="0.5"` (`what` = "fill" or "stroke"); "none" when transparent.
static std::string paint(const char* what, ImU32 c) {
  const unsigned a = (c >> IM_COL32_A_SHIFT) & 0xFF;
  if (a == 0) return std::string(" ") + what + "=\"none\"";
  char buf[80];
  std::snprintf(buf, sizeof buf, " %s=\"#%02x%02x%02x\"", what, (c >> IM_COL32_R_SHIFT) & 0xFF,
                (c >> IM_COL32_G_SHIFT) & 0xFF, (c >> IM_COL32_B_SHIFT) & 0xFF);
  std::string s = buf;
  if (a < 255) s += std::string(" ") + what + "-opacity=\"" + trimmedFixed(a / 255.0, 3) + "\"";
  return s;
}

static std::string svgId(const std::string& id) {
  std::string out = "plot-";
  for (const char c : id)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

static void svgPrim(std::string& out, const Record& r, const Prim& p) {
  switch (p.kind) {
    case PrimKind::Polyline: {
      out += p.closed ? "<polygon points=\"" : "<polyline points=\"";
      for (int i = 0; i < p.count; ++i) {
        const ImVec2 q = r.points[p.first + i];
        if (i) out += ' ';
        out += num(q.x) + "," + num(q.y);
      }
      out += "\" fill=\"none\"" + paint("stroke", p.stroke) + " stroke-width=\"" +
             num(p.thickness) + "\" stroke-linejoin=\"round\"";
      if (p.dash > 0) out += " stroke-dasharray=\"" + num(p.dash) + " " + num(0.6f * p.dash) + "\"";
      out += "/>\n";
      break;
    }
    case PrimKind::Rect:
      out += "<rect x=\"" + num(p.a.x) + "\" y=\"" + num(p.a.y) + "\" width=\"" +
             num(p.b.x - p.a.x) + "\" height=\"" + num(p.b.y - p.a.y) + "\"" +
             paint("fill", p.fill);
      if (p.stroke && p.thickness > 0)
        out += paint("stroke", p.stroke) + " stroke-width=\"" + num(p.thickness) + "\"";
      out += "/>\n";
      break;
    case PrimKind::Circle:
      out += "<circle cx=\"" + num(p.a.x) + "\" cy=\"" + num(p.a.y) + "\" r=\"" + num(p.size) +
             "\"" + paint("fill", p.fill);
      if (p.stroke && p.thickness > 0)
        out += paint("stroke", p.stroke) + " stroke-width=\"" + num(p.thickness) + "\"";
      out += "/>\n";
      break;
    case PrimKind::Text: {
      const char* anchor = p.anchor.x >= 0.75f ? "end" : p.anchor.x >= 0.25f ? "middle" : "start";
      const float baseline = p.a.y - p.anchor.y * p.size + kSvgAscent * p.size;
      out += "<text x=\"" + num(p.a.x) + "\" y=\"" + num(baseline) + "\" font-size=\"" +
             num(kSvgEm * p.size) + "\"" + paint("fill", p.fill);
      if (std::strcmp(anchor, "start") != 0) out += std::string(" text-anchor=\"") + anchor + "\"";
      if (p.vertical) out += " transform=\"rotate(-90 " + num(p.a.x) + " " + num(p.a.y) + ")\"";
      out += '>';  // piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&
      out += escapeXml(p.text);
      out += "</text>\n";
      break;
    }
    case PrimKind::Cells: {
      // One <rect> per run of equal colours along a row.
      out += "<g shape-rendering=\"crispEdges\">\n";
      const float cw = (p.b.x - p.a.x) / fl(p.cols), ch = (p.b.y - p.a.y) / fl(p.rows);
      for (int row = 0; row < p.rows; ++row) {
        const ImU32* line = &r.cells[p.first + row * p.cols];
        for (int c = 0; c < p.cols;) {
          int e = c + 1;
          while (e < p.cols && line[e] == line[c])
            ++e;
          if (line[c] & IM_COL32_A_MASK) {
            out += "<rect x=\"" + num(p.a.x + cw * fl(c)) + "\" y=\"" +
                   num(p.b.y - ch * fl(row + 1)) + "\" width=\"" + num(cw * fl(e - c)) +
                   "\" height=\"" + num(ch) + "\"" + paint("fill", line[c]) + "/>\n";
          }
          c = e;
        }
      }
      out += "</g>\n";
      break;
    }
  }
}

std::string LastPlotSvg(const char* id) {
  const Context& g = context();
  const auto it = g.records.find(std::string_view(id ? id : ""));
  if (it == g.records.end() || it->second.prims.empty()) return "";  // never drawn: data only
  const Record& r = it->second;
  const std::string clip = svgId(r.id) + "-area";
  std::string out;
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(r.size.x) +
         "\" height=\"" + num(r.size.y) + "\" viewBox=\"0 0 " + num(r.size.x) + " " +
         num(r.size.y) + "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n";
  out += "<title>" + escapeXml(r.title.empty() ? r.id : r.title) + "</title>\n";
  out += "<defs><clipPath id=\"" + clip + "\"><rect x=\"" + num(r.area.Min.x) + "\" y=\"" +
         num(r.area.Min.y) + "\" width=\"" + num(r.area.GetWidth()) + "\" height=\"" +
         num(r.area.GetHeight()) + "\"/></clipPath></defs>\n";
  bool clipped = false;
  for (const Prim& p : r.prims) {
    if (p.clip != clipped) {
      out += p.clip ? "<g clip-path=\"url(#" + clip + ")\">\n" : "</g>\n";
      clipped = p.clip;
    }
    svgPrim(out, r, p);
  }
  if (clipped) out += "</g>\n";
  out += "</svg>\n";
  return out;
}

Status SaveSvg(const char* id, const std::string& path) {
  const std::string svg = LastPlotSvg(id);
  const std::string name = id ? id : "";
  if (svg.empty())
    return Status::error("The plot \"" + name +
                         "\" has not been drawn yet, so there is nothing to save.");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return Status::error(
        trf("Could not open %s for writing: %s.", path.c_str(), std::strerror(errno)));
  out << svg;
  out.close();
  if (!out)
    return Status::error(trf("Could not write the plot to %s (is the disk full?).", path.c_str()));
  return {};
}

std::optional<PixelRect> LastPlotRect(const char* id) {
  const Context& g = context();
  const auto it = g.records.find(std::string_view(id ? id : ""));
  if (it == g.records.end() || it->second.prims.empty()) return std::nullopt;
  const Record& r = it->second;
  if (ImGui::GetCurrentContext() && r.frame < ImGui::GetFrameCount() - 1) return std::nullopt;
  const int x0 = static_cast<int>(std::floor(r.origin.x));
  const int y0 = static_cast<int>(std::floor(r.origin.y));
  const int x1 = static_cast<int>(std::ceil(r.origin.x + r.size.x));
  const int y1 = static_cast<int>(std::ceil(r.origin.y + r.size.y));
  return PixelRect{x0, y0, x1 - x0, y1 - y0};
}

std::shared_ptr<const PlotSnapshot> SnapshotRecentPlots() {
  auto snap = std::make_shared<PlotSnapshot>();
  const int now = ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0;
  for (const auto& [id, r] : context().records)
    if (r.dataFrame >= now - 1 && !r.data.empty()) snap->plots[id] = r.data;
  return snap;
}

void SetPinnedRuns(std::vector<PinnedRun> runs) {
  if (runs.size() > 4) runs.resize(4);
  context().pinned = std::move(runs);
}

std::vector<std::string> RecentPlotIds() {
  std::vector<std::string> out;
  const int now = ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0;
  for (const auto& [id, r] : context().records)
    if (r.frame >= now - 1 && !r.prims.empty()) out.push_back(id);
  return out;
}

void SetExportHandler(std::function<void(const char* plotId, bool svg)> handler) {
  context().exportHandler = std::move(handler);
}

}  // namespace cudalab::plot
