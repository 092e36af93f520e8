// [SECTION] index
//   pinning and names
//   the plots: overlays around the lesson's drawing
//   the panel: the table of one measure, now against each pinned run
//   export
#include "ui/pins.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "common/measurement_export.hpp"
#include "ui/data_table.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] pinning and names

std::vector<PinnedRunData>* PinBoard::find(const std::string& lesson) {
  for (auto& [id, runs] : byLesson_)
    if (id == lesson) return &runs;
  return nullptr;
}

const std::vector<PinnedRunData>& PinBoard::runs(const std::string& lesson) const {
  static const std::vector<PinnedRunData> kNone;
  for (const auto& [id, runs] : byLesson_)
    if (id == lesson) return runs;
  return kNone;
}

int PinBoard::count(const std::string& lesson) const {
  return static_cast<int>(runs(lesson).size());
}

Status PinBoard::pin(Lesson& lesson) {
  const std::string id = lesson.info().id;
  std::vector<ComparedRow> rows = lesson.comparable();
  if (rows.empty())
    return Status::error(
        tr("Nothing is measured yet in this lesson: run it first, then pin the "
           "results to compare them with the next run."));
  std::vector<PinnedRunData>* list = find(id);
  if (!list) list = &byLesson_.emplace_back(id, std::vector<PinnedRunData>{}).second;
  if (static_cast<int>(list->size()) >= kMaxPins)
    return Status::error(
        tr("Four runs are pinned already: unpin one (its x in the \"Runs side by "
           "side\" panel) to pin another."));
  PinnedRunData run;
  run.values = currentValues(lesson);
  run.parameters = captureParameters(lesson);
  run.rows = std::move(rows);
  run.plots = plot::SnapshotRecentPlots();
  run.results = lesson.results();
  list->push_back(std::move(run));
  return {};
}

void PinBoard::unpin(const std::string& lesson, int index) {
  if (std::vector<PinnedRunData>* list = find(lesson))
    if (index >= 0 && index < static_cast<int>(list->size())) list->erase(list->begin() + index);
}

void PinBoard::clear(const std::string& lesson) {
  if (std::vector<PinnedRunData>* list = find(lesson)) list->clear();
}

namespace {

// A parameter's value as people read it: a choice's name, a number in its own format.
std::string valueText(const ParamBinding& b, double v) {
  if (!b.choices.empty()) {
    const size_t i =
        static_cast<size_t>(std::clamp<long>(std::lround(v), 0, long(b.choices.size()) - 1));
    return b.choices[i];
  }
  return formatParamValue(*b.spec, v);
}

double valueOf(const std::vector<ParamValue>& values, const std::string& id, double fallback) {
  for (const ParamValue& p : values)
    if (p.id == id) return p.value;
  return fallback;
}

}  // namespace

std::vector<std::string> PinBoard::names(Lesson& lesson) const {
  const std::vector<PinnedRunData>& list = runs(lesson.info().id);
  std::vector<std::string> out;
  const std::vector<ParamBinding> bindings = lesson.bindings();
  for (size_t i = 0; i < list.size(); ++i) {
    std::string name(1, static_cast<char>('A' + i));
    std::string what;
    int shownParams = 0;
    for (const ParamBinding& b : bindings) {
      const double now = b.get();
      bool differs = false;
      for (const PinnedRunData& r : list)
        differs |= valueOf(r.values, b.spec->id, now) != now;
      if (!differs) continue;
      if (++shownParams > 3) {
        what += ", ...";
        break;
      }
      what += (what.empty() ? "" : ", ") + std::string(b.spec->label) + " " +
              valueText(b, valueOf(list[i].values, b.spec->id, now));
    }
    out.push_back(what.empty() ? name : name + ": " + what);
  }
  return out;
}

// [SECTION] the plots: overlays around the lesson's drawing

void PinBoard::beginLesson(Lesson& lesson) {
  const std::vector<PinnedRunData>& list = runs(lesson.info().id);
  if (list.empty()) return plot::SetPinnedRuns({});
  const std::vector<std::string> tags = names(lesson);
  std::vector<plot::PinnedRun> overlay;
  for (size_t i = 0; i < list.size(); ++i)
    overlay.push_back({tags[i], list[i].plots});
  plot::SetPinnedRuns(std::move(overlay));
}

void PinBoard::endLesson() {
  plot::SetPinnedRuns({});
}

// [SECTION] the panel: the table of one measure, now against each pinned run

namespace {

std::string shownValue(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "-";
  return plot::formatValue(v) +
         (unit.empty() || unit == "GFLOP/s" || unit == "GB/s" ? "" : " " + unit);
}

// Now against a pinned value: a percentage, or a factor when they are far apart.
std::string change(double now, double then) {
  if (!std::isfinite(now) || !std::isfinite(then) || then == 0) return "";
  const double ratio = now / then;
  char b[48];
  if (ratio >= 2 || (ratio > 0 && ratio <= 0.5))
    std::snprintf(b, sizeof b, ratio >= 10 ? "x%.0f" : "x%.2g", ratio);
  else
    std::snprintf(b, sizeof b, "%+.0f%%", 100 * (ratio - 1));
  return b;
}

const ComparedValue* valueIn(const std::vector<ComparedRow>& rows, const std::string& key,
                             const std::string& metric) {
  for (const ComparedRow& r : rows)
    if (r.key == key)
      for (const ComparedValue& v : r.values)
        if (v.name == metric) return &v;
  return nullptr;
}

}  // namespace

void PinBoard::drawPanel(LessonContext& ctx, Lesson& lesson) {
  const std::string id = lesson.info().id;
  std::vector<PinnedRunData>* list = find(id);
  if (!list || list->empty()) return;
  if (!beginPanel(ctx, "pins", "Runs side by side", kPanelCollapsible)) return endPanel(ctx);
  const std::vector<std::string> tags = names(lesson);
  const std::vector<ComparedRow> now = lesson.comparable();
  // The runs: each with its way out.
  int remove = -1;
  for (size_t i = 0; i < list->size(); ++i) {
    ImGui::PushID(int(i));
    if (i)
      sameLineIfFits(ImGui::CalcTextSize(tags[i].c_str()).x + smallButtonWidth("x") +
                     20 * ctx.scale);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(tags[i].c_str());
    ImGui::SameLine();
    if (!ctx.exporting && smallButton("x")) remove = int(i);
    if (!ctx.exporting) helpTooltip("Unpin this run");
    ImGui::PopID();
  }
  if (remove >= 0) unpin(id, remove);
  if (!ctx.exporting) {
    if (smallButton(tr("Unpin all"))) clear(id);
    sameLineIfFits(smallButtonWidth("Export CSV"));
    if (smallButton(tr("Export CSV"))) {
      const std::string path = ctx.exportPath("side-by-side", "csv");
      const Status s = writeText(path, comparisonCsv(lesson));
      s ? ctx.info(trf("Saved %s", path.c_str())) : ctx.error(s);
    }
    sameLineIfFits(smallButtonWidth("Export JSON"));
    if (smallButton(tr("Export JSON"))) {
      const std::string path = ctx.exportPath("side-by-side", "json");
      const Status s = writeText(path, comparisonJson(lesson).dump(2) + "\n");
      s ? ctx.info(trf("Saved %s", path.c_str())) : ctx.error(s);
    }
  }
  if (list->empty()) return endPanel(ctx);
  // The measure compared: one at a time keeps the table readable on a projector.
  std::vector<std::string> metrics;
  auto addMetrics = [&](const std::vector<ComparedRow>& rows) {
    for (const ComparedRow& r : rows)
      for (const ComparedValue& v : r.values)
        if (std::find(metrics.begin(), metrics.end(), v.name) == metrics.end())
          metrics.push_back(v.name);
  };
  addMetrics(now);
  for (const PinnedRunData& r : *list)
    addMetrics(r.rows);
  if (std::find(metrics.begin(), metrics.end(), metric_) == metrics.end())
    metric_ = metrics.empty() ? "" : metrics.front();
  if (metrics.size() > 1 && !ctx.exporting) {
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 16 * ImGui::GetFontSize()));
    // The measures' names are keys of the saved runs too: shown translated, kept in English.
    if (beginCombo("Compare", tr(metric_.c_str()))) {
      for (const std::string& m : metrics)
        if (ImGui::Selectable((std::string(tr(m.c_str())) + "##" + m).c_str(), m == metric_))
          metric_ = m;
      ImGui::EndCombo();
    }
  } else {
    ImGui::Text(tr("Compared: %s"), tr(metric_.c_str()));
  }
  if (now.empty())
    mutedText(ctx.theme,
              "Run the lesson again with other parameters to compare: the table "
              "shows the pinned runs until then.");
  // The rows: now's first, then those only a pinned run has.
  std::vector<const ComparedRow*> rows;
  std::set<std::string> seen;
  for (const ComparedRow& r : now)
    if (seen.insert(r.key).second) rows.push_back(&r);
  for (const PinnedRunData& p : *list)
    for (const ComparedRow& r : p.rows)
      if (seen.insert(r.key).second) rows.push_back(&r);
  // Columns: the row, now, then each pinned run and its change (changes give way first).
  std::vector<std::string> headers = {"", "now"};
  for (size_t i = 0; i < list->size(); ++i) {
    headers.push_back(tags[i]);
    headers.push_back(trf("%c to now", char('A' + i)));
  }
  std::vector<std::string> letters;
  for (size_t i = 0; i < list->size(); ++i)
    letters.push_back(std::string(1, char('A' + i)));
  std::vector<TableColumn> cols;
  cols.push_back({"", nullptr, 0});
  cols.push_back({N_("now"), nullptr, 0, N_("This lesson's results as they are now.")});
  for (size_t i = 0; i < list->size(); ++i) {
    cols.push_back({headers[2 + 2 * i].c_str(), letters[i].c_str(), 1,
                    N_("A pinned run: its parameters where they differ from the others'.")});
    cols.push_back({headers[3 + 2 * i].c_str(), nullptr, 2,
                    N_("How now compares with the pinned run: a percentage, or a factor (x3.2) "
                       "when they are far apart; green where now is better.")});
  }
  const std::string tableId = "##pins" + std::to_string(list->size());
  if (beginDataTable(tableId.c_str(), cols.data(), int(cols.size()), int(rows.size()))) {
    for (const ComparedRow* r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(tr(r->label.c_str()));  // a step's or a row's name from the lesson
      const ComparedValue* n = valueIn(now, r->key, metric_);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(n ? shownValue(n->value, n->unit).c_str() : "-");
      for (const PinnedRunData& p : *list) {
        const ComparedValue* v = valueIn(p.rows, r->key, metric_);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(v ? shownValue(v->value, v->unit).c_str() : "-");
        ImGui::TableNextColumn();
        if (n && v) {
          const std::string c = change(n->value, v->value);
          const double rel = v->value != 0 ? n->value / v->value - 1 : 0;
          const bool better = n->higherIsBetter ? rel > 0.01 : rel < -0.01;
          const bool worse = n->higherIsBetter ? rel < -0.01 : rel > 0.01;
          if (better || worse)
            ImGui::PushStyleColor(ImGuiCol_Text,
                                  better ? ctx.theme.goodColour() : ctx.theme.errorColour());
          ImGui::TextUnformatted(c.c_str());
          if (better || worse) ImGui::PopStyleColor();
        }
      }
    }
    endDataTable();
  }
  endPanel(ctx);
}

// [SECTION] export

nlohmann::json PinBoard::comparisonJson(Lesson& lesson) const {
  const std::vector<PinnedRunData>& list = runs(lesson.info().id);
  const std::vector<std::string> tags = names(lesson);
  auto rowsJson = [](const std::vector<ComparedRow>& rows) {
    nlohmann::json out = nlohmann::json::array();
    for (const ComparedRow& r : rows) {
      nlohmann::json values = nlohmann::json::object();
      for (const ComparedValue& v : r.values)
        values[v.name] = std::isfinite(v.value) ? nlohmann::json(v.value) : nlohmann::json();
      out.push_back({{"key", r.key}, {"label", r.label}, {"values", values}});
    }
    return out;
  };
  nlohmann::json j = {{"lesson", lesson.info().id}, {"runs", nlohmann::json::array()}};
  for (size_t i = 0; i < list.size(); ++i)
    j["runs"].push_back({{"name", tags[i]},
                         {"parameters", list[i].parameters},
                         {"rows", rowsJson(list[i].rows)},
                         {"results", list[i].results.json}});
  j["runs"].push_back({{"name", "now"},
                       {"parameters", captureParameters(lesson)},
                       {"rows", rowsJson(lesson.comparable())},
                       {"results", lesson.results().json}});
  return j;
}

std::string PinBoard::comparisonCsv(Lesson& lesson) const {
  const std::vector<PinnedRunData>& list = runs(lesson.info().id);
  const std::vector<std::string> tags = names(lesson);
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s)
      q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string csv = "run,parameters,key,row,measure,value,unit\n";
  auto add = [&](const std::string& run, const nlohmann::json& params,
                 const std::vector<ComparedRow>& rows) {
    for (const ComparedRow& r : rows)
      for (const ComparedValue& v : r.values) {
        char num[40];
        std::snprintf(num, sizeof num, "%.9g", v.value);
        csv += quoted(run) + "," + quoted(params.dump()) + "," + quoted(r.key) + "," +
               quoted(r.label) + "," + quoted(v.name) + "," + (std::isfinite(v.value) ? num : "") +
               "," + quoted(v.unit) + "\n";
      }
  };
  for (size_t i = 0; i < list.size(); ++i)
    add(tags[i], list[i].parameters, list[i].rows);
  add("now", captureParameters(lesson), lesson.comparable());
  return csv;
}

}  // namespace cudalab
