// Tables of measurements that stay readable at every width and UI scale (a projector at UI scale
// 2, a laptop at 1280 x 720).
//
// A column is as wide as its widest cell or header: a number is never cut. When the columns do
// not fit the width, the ones of least priority are hidden first; what is still too wide scrolls
// sideways. Columns that wait for a measurement (`measured`) give way before all others while
// there is none yet, whatever their priority: without a GPU, or before the first run, the
// columns that already say something (the launch shape, the model) keep the room. A short header
// stands for a long one (the full name and its help are in the
// header's tooltip). A right-click on the header row opens the column menu, where the learner
// shows or hides any column; a line under the table says how many columns are hidden.
//
//   static const TableColumn kCols[] = {
//       {"step"},                                          // priority 0: always shown
//       {"GFLOP/s", nullptr, 0, "Floating-point operations per second."},
//       {"of FP32 peak", "of peak", 2, "The share of the GPU's float32 peak."},
//       {"relative error", "rel. err", 3},                // hidden first
//   };
//   if (beginDataTable("##ladder", kCols, rows)) {        // rows: for the height
//     for (...) { ImGui::TableNextRow(); ImGui::TableNextColumn(); ... }
//     endDataTable();                                     // only when begin returned true
//   }
//
// Cells are filled as in any ImGui table (TableNextRow, TableNextColumn); a hidden column's cells
// are skipped by ImGui. Everything here runs on the UI thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cudalab {

struct TableColumn {
  const char* header;                 // the full name (the column menu, the tooltip)
  const char* shortHeader = nullptr;  // shown in the header row instead, when set
  int priority = 0;                   // 0: always shown; the highest numbers are hidden first
  const char* help = nullptr;         // added to the header's tooltip
  bool measured = false;              // filled by a measurement: empty until there is one
};

// Begins the table with its header row. `rows`: the number of body rows, for the table's height
// (it scrolls sideways, so ImGui needs one). `measuredYet`: whether the `measured` columns have
// anything in them.
bool beginDataTable(const char* id, const TableColumn* columns, int count, int rows,
                    bool measuredYet = true);
template <size_t N>
bool beginDataTable(const char* id, const TableColumn (&columns)[N], int rows,
                    bool measuredYet = true) {
  return beginDataTable(id, columns, static_cast<int>(N), rows, measuredYet);
}
void endDataTable();

// What the tables drawn in the last frame did with their columns: the layout tests check that
// nothing is cut (a shown column narrower than its contents).
struct DataTableReport {
  std::string id;
  int shown = 0, hiddenToFit = 0, hiddenByUser = 0;
  unsigned long long shownColumns = 0;  // bit i: column i is shown (the first 64)
  bool clipped = false;                 // a shown column narrower than its widest cell (two frames)
  bool scrolls = false;                 // wider than the space it has
};
// Call once a frame before drawing (the renderer does); then read what this frame drew.
void beginDataTableFrame();
const std::vector<DataTableReport>& dataTableReports();

}  // namespace cudalab
