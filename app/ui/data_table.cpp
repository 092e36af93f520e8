// See data_table.hpp.
#include "ui/data_table.hpp"
#include "core/i18n.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace cudalab {
namespace {

enum Choice : signed char { kAuto = -1, kHidden = 0, kShown = 1 };

struct TableState {
  std::vector<signed char> choice;  // the learner's, from the column menu
  std::vector<float> need;          // each column's widest cell or header, last measured
  std::vector<bool> shown;          // this frame
  std::vector<int> order;           // the columns in the order they give way (kept: no allocation)
  float contentHeight = 0;          // the header and rows as drawn last frame (0: not yet drawn)
  bool scrolled = false;            // wider than its space last frame
  int cutFrames = 0;                // frames in a row a shown column was narrower than its cells
  bool openMenu = false;
};

struct Current {
  ImGuiID key = 0;
  std::string id;
  const TableColumn* columns = nullptr;
  int count = 0;
  int hiddenToFit = 0, hiddenByUser = 0;
  float avail = 0;
};

std::unordered_map<ImGuiID, TableState>& states() {
  static std::unordered_map<ImGuiID, TableState> s;
  return s;
}
std::vector<DataTableReport>& reports() {
  static std::vector<DataTableReport> r;
  return r;
}
Current& current() {
  static Current c;
  return c;
}

// Which columns to show in `avail` pixels: the learner's choices first, then every automatic
// column, hiding empty columns (nothing measured yet, whatever their priority) and then the
// highest priority numbers (later columns first among equals) until the rest fit. Columns never
// measured count as narrow: they are shown once and measured. Returns the width of the columns
// shown.
float chooseColumns(TableState& st, const TableColumn* cols, int n, bool measuredYet, float avail,
                    int& hiddenToFit, int& hiddenByUser) {
  // A column that waits for a measurement while there is none.
  auto empty = [&](int i) { return cols[i].measured && !measuredYet; };
  const ImGuiStyle& style = ImGui::GetStyle();
  const float pad = 2 * style.CellPadding.x + 1;
  float total = 0;
  for (int i = 0; i < n; ++i) {
    st.shown[i] = st.choice[i] != kHidden;
    if (st.shown[i]) total += st.need[i] + pad;
  }
  hiddenByUser = static_cast<int>(std::count(st.choice.begin(), st.choice.end(), kHidden));
  hiddenToFit = 0;
  std::vector<int>& order = st.order;
  order.resize(n);
  std::iota(order.begin(), order.end(), 0);
  // A total order (ties broken by position), so std::sort: stable_sort would allocate each frame.
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (empty(a) != empty(b)) return empty(a);
    if (cols[a].priority != cols[b].priority) return cols[a].priority > cols[b].priority;
    return a > b;
  });
  for (int i : order) {
    if (total <= avail) break;
    if ((cols[i].priority <= 0 && !empty(i)) || st.choice[i] != kAuto || !st.shown[i]) continue;
    st.shown[i] = false;
    total -= st.need[i] + pad;
    ++hiddenToFit;
  }
  return total;
}

}  // namespace

void beginDataTableFrame() {
  reports().clear();
}

const std::vector<DataTableReport>& dataTableReports() {
  return reports();
}

bool beginDataTable(const char* id, const TableColumn* cols, int n, int rows, bool measuredYet) {
  Current& cur = current();
  cur = Current{};
  cur.key = ImGui::GetID(id);
  cur.id = id;
  cur.columns = cols;
  cur.count = n;
  TableState& st = states()[cur.key];
  if (static_cast<int>(st.choice.size()) != n) {
    st.choice.assign(n, kAuto);
    st.need.assign(n, 0.0f);
    st.shown.assign(n, true);
  }
  cur.avail = ImGui::GetContentRegionAvail().x;
  const float width =
      chooseColumns(st, cols, n, measuredYet, cur.avail, cur.hiddenToFit, cur.hiddenByUser);

  // Every row shown (a table that scrolls sideways needs a height): the header, the rows and, when
  // the columns are wider than the panel, room for the horizontal scroll bar.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float rowH = ImGui::GetTextLineHeight() + 2 * style.CellPadding.y;
  // Room for the scroll bar when the columns measured (or last frame's table) were too wide: a
  // cell drawn by hand may be wider than its column's last measure.
  const float scrollBar = width > cur.avail || st.scrolled ? style.ScrollbarSize : 0.0f;
  // The rows' height as drawn last frame (rows of two lines, rows left out); until then, one line
  // a row.
  const float content = st.contentHeight > 0 ? st.contentHeight : rowH * float(rows + 1);
  const float height = content + scrollBar + 2 * style.CellPadding.y;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_NoSavedSettings;
  if (!ImGui::BeginTable(id, n, flags, ImVec2(0, height))) return false;
  for (int i = 0; i < n; ++i)
    ImGui::TableSetupColumn(
        tr(cols[i].header),
        ImGuiTableColumnFlags_WidthFixed | (st.shown[i] ? 0 : ImGuiTableColumnFlags_Disabled));
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int i = 0; i < n; ++i) {
    if (!ImGui::TableSetColumnIndex(i)) continue;
    ImGui::PushID(i);
    ImGui::TableHeader(tr(cols[i].shortHeader ? cols[i].shortHeader : cols[i].header));
    ImGui::PopID();
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
      // The whole name where the header shows a short one (the header itself is not repeated).
      if (cols[i].shortHeader) ImGui::TextUnformatted(tr(cols[i].header));
      if (cols[i].help) ImGui::TextUnformatted(tr(cols[i].help));
      ImGui::TextDisabled(tr("Right-click: show or hide columns."));
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
      if (ImGui::IsMouseReleased(ImGuiMouseButton_Right)) st.openMenu = true;
    }
  }
  return true;
}

void endDataTable() {
  Current& cur = current();
  TableState& st = states()[cur.key];
  DataTableReport report;
  report.id = cur.id;
  report.hiddenToFit = cur.hiddenToFit;
  report.hiddenByUser = cur.hiddenByUser;
  if (ImGuiTable* t = ImGui::GetCurrentTable()) {
    float total = 0;
    bool cut = false;
    for (int i = 0; i < cur.count && i < t->ColumnsCount; ++i) {
      const ImGuiTableColumn& c = t->Columns[i];
      if (!c.IsEnabled) continue;
      // What this frame's cells and header asked for, against what the column was given.
      const float need = std::max(c.ContentMaxXUnfrozen, c.ContentMaxXHeadersIdeal) - c.WorkMinX;
      if (need > 0) st.need[i] = need;
      if (need > c.WidthGiven + 1) cut = true;
      total += c.WidthGiven + 2 * ImGui::GetStyle().CellPadding.x + 1;
      ++report.shown;
      if (i < 64) report.shownColumns |= 1ull << i;
    }
    // Automatic widths follow the cells a frame late: a cell that just grew (a result arriving) is
    // cut for that one frame. A cut that lasts is a real one.
    st.cutFrames = cut ? st.cutFrames + 1 : 0;
    report.clipped = st.cutFrames > 1;
    report.scrolls = total > cur.avail + 1;
    st.contentHeight = t->RowPosY2 - t->OuterRect.Min.y;
    st.scrolled = report.scrolls;
  }
  ImGui::EndTable();
  reports().push_back(report);

  // The column menu (its id under the table's), and a line saying what is hidden.
  ImGui::PushID(static_cast<int>(cur.key));
  if (st.openMenu) {
    ImGui::OpenPopup("##columns");
    st.openMenu = false;
  }
  if (ImGui::BeginPopup("##columns")) {
    ImGui::TextDisabled(tr("Columns"));
    for (int i = 0; i < cur.count; ++i) {
      bool on = st.shown[i];
      ImGui::PushID(i);
      if (ImGui::Checkbox(tr(cur.columns[i].header), &on)) st.choice[i] = on ? kShown : kHidden;
      ImGui::PopID();
    }
    ImGui::Separator();
    if (ImGui::MenuItem(tr("Fit to the width")))
      std::fill(st.choice.begin(), st.choice.end(), static_cast<signed char>(kAuto));
    ImGui::EndPopup();
  }
  ImGui::PopID();
  const int hidden = cur.hiddenToFit + cur.hiddenByUser;
  if (hidden > 0) {
    if (hidden == 1)
      ImGui::TextDisabled("%s", tr("1 column hidden; right-click the header row to show it."));
    else
      ImGui::TextDisabled(tr("%d columns hidden; right-click the header row to show them."),
                          hidden);
  }
}

}  // namespace cudalab
