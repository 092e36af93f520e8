// Measurements and sweeps as CSV and JSON, for the app's "Export" buttons and the bench command.
//
//   std::vector<MeasuredRow> rows = {{"tpb=256", {{"threads_per_block", 256}}, m}};
//   std::string csv = toCsv(rows);        // one line per row, phases' median/min/max in ms
//   nlohmann::json j = toJson(rows);      // the same, with every timed sample
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "common/measurement.hpp"

namespace cudalab {

struct MeasuredRow {
  std::string label;                                   // e.g. the variant's id
  std::vector<std::pair<std::string, double>> params;  // the swept or chosen parameters
  Measurement m;
};

std::string toCsv(const std::vector<MeasuredRow>& rows);
nlohmann::json toJson(const std::vector<MeasuredRow>& rows);
Status writeText(const std::string& path, const std::string& text);

}  // namespace cudalab
