#include "ui/counters_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "core/bench.hpp"
#include "common/format.hpp"
#include "common/table.hpp"
#include "core/i18n.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

namespace {

// Every column a panel can show: one header and format per counter, the same in every lesson.
constexpr CounterColumn kColumns[] = {
    {"global_load_sectors_per_request", N_("sectors / load"), CounterFormat::Ratio},
    {"global_store_sectors_per_request", N_("sectors / store"), CounterFormat::Ratio},
    {"shared_load_wavefronts_per_request", N_("passes / shared load"), CounterFormat::Ratio},
    {"shared_load_bank_conflicts", N_("bank conflicts"), CounterFormat::Count,
     N_("Extra passes shared memory needed because lanes hit different words of one bank: loads "
        "and stores together."),
     "shared_store_bank_conflicts"},
    {"shared_bank_conflicts", N_("all bank conflicts"), CounterFormat::Count},
    {"tensor_pipe_active", N_("tensor cores busy"), CounterFormat::Percent},
    {"tensor_instructions", N_("tensor instructions"), CounterFormat::Count},
    {"achieved_occupancy", N_("occupancy reached"), CounterFormat::Percent},
    {"sm_busy", N_("SMs busy"), CounterFormat::Percent},
    {"warp_efficiency", N_("threads / instruction"), CounterFormat::Threads},
    {"divergent_branches", N_("divergent branches"), CounterFormat::Count},
    {"instructions", N_("warp instructions"), CounterFormat::Count},
    {"l1_hit_rate", N_("L1 hits"), CounterFormat::Percent},
    {"dram_bytes_read", N_("read from DRAM"), CounterFormat::Bytes},
};

// The spec's columns, from the catalogue (an unknown key, which the tests rule out, is left out).
std::vector<const CounterColumn*> columnsOf(const CountersPanelSpec& spec) {
  std::vector<const CounterColumn*> out;
  for (const PanelColumn& column : spec.columns)
    if (const CounterColumn* c = findCounterColumn(column.key)) out.push_back(c);
  return out;
}

}  // namespace

std::span<const CounterColumn> counterColumns() {
  return kColumns;
}

const CounterColumn* findCounterColumn(std::string_view key) {
  return findRow(kColumns, &CounterColumn::key, key);
}

std::string formatCounter(double v, CounterFormat f) {
  if (std::isnan(v)) return "-";
  switch (f) {
    case CounterFormat::Ratio:
      return trimmedFixed(v, 2);
    case CounterFormat::Threads:
      return trimmedFixed(v, 1);
    case CounterFormat::Percent:
      // "Of peak sustained" counters can pass 100 by a hair (101% SMs busy): never more than all.
      return trimmedFixed(std::min(v, 100.0), 0) + "%";
    case CounterFormat::Bytes:
      return v >= 1024.0 * 1024.0 ? mib(v) : thousands(std::llround(v)) + " B";
    case CounterFormat::Count:
      if (v >= 1e6) return trimmedFixed(v / 1e6, 1) + " M";
      if (v >= 1e4) return trimmedFixed(v / 1e3, 1) + " k";
      return thousands(std::llround(v));
  }
  return "-";
}

bool CountersPanel::start(std::function<Result<Readings>(Job::Control&)> measure,
                          std::string context) {
  if (job_.running()) return false;
  error_ = {};
  context_ = std::move(context);
  return job_.start(std::move(measure));
}

namespace {

std::optional<double> cellValue(const counters::StepReading& r, const CounterColumn& c,
                                bool model) {
  auto get = [&](const char* key) { return model ? r.modelValue(key) : r.measured.value(key); };
  std::optional<double> v = get(c.key);
  if (v && c.plus) {
    const std::optional<double> w = get(c.plus);
    if (!w) return model ? std::nullopt : v;
    *v += *w;
  }
  return v;
}

// In the UI's language: the panel's and the catalogue's help and the metric tables' meanings are
// marked N_().
std::string columnHelp(const CountersPanelSpec& spec, const CounterColumn& c) {
  const PanelColumn* own = findRow(spec.columns, &PanelColumn::key, c.key);
  if (own && own->help) return tr(own->help);
  if (c.help) return tr(c.help);
  if (const counters::RatioInfo* r = counters::findRatio(c.key)) return tr(r->meaning);
  // The metric's meaning, then CUPTI's name of it in brackets.
  if (const counters::MetricInfo* m = counters::findMetric(c.key))
    return trf("%s (%s)", tr(m->meaning), m->cupti);
  return c.key;
}

}  // namespace

int writeCountersBench(const std::string& outDir, const std::string& id, const std::string& title,
                       const Result<std::vector<counters::StepReading>>& readings,
                       const CountersPanelSpec& spec) {
  if (!readings) return fail(readings.status());
  const RuntimeInfo rt = queryRuntime();
  std::string md = "### " + title + ", " + today() + ", " + rt.firstDeviceName + "\n\n| step |";
  std::string rule = "| --- |";
  const std::vector<const CounterColumn*> columns = columnsOf(spec);
  for (const CounterColumn* c : columns) {
    md += std::string(" ") + c->header + " |";
    rule += " ---: |";
  }
  if (spec.agreement) {
    md += " model agrees |";
    rule += " --- |";
  }
  md += "\n" + rule + "\n";
  nlohmann::json j = {{"date", today()}, {"device", rt.firstDeviceName}};
  int mismatches = 0;
  for (const counters::StepReading& r : *readings) {
    md += "| " + r.label + " |";
    nlohmann::json row = {{"step", r.key}, {"launches", r.launches}};
    for (const CounterColumn* col : columns) {
      const CounterColumn& c = *col;
      const std::optional<double> got = cellValue(r, c, false), model = cellValue(r, c, true);
      md += " ";
      md += formatCounter(got.value_or(NAN), c.format);
      if (model) md.append(" (").append(formatCounter(*model, c.format)).append(")");
      md += " |";
    }
    for (size_t i = 0; i < r.measured.keys.size(); ++i)
      row["counters"][r.measured.keys[i]] = r.measured.values[i];
    for (const auto& [key, v] : r.model)
      row["model"][key] = v;
    if (spec.agreement) {
      md += r.model.empty() ? " - |" : r.mismatches.empty() ? " yes |" : " **NO** |";
      row["mismatches"] = nlohmann::json::array();
      for (const Phrase& m : r.mismatches)
        row["mismatches"].push_back(m.english());
      mismatches += int(r.mismatches.size());
    }
    j["steps"].push_back(row);
    md += "\n";
  }
  md += std::string("\nIn brackets: ") + spec.modelLabel + ".";
  if (spec.agreement) md += " " + std::to_string(mismatches) + " mismatches.";
  md += "\n";
  j["mismatches"] = mismatches;
  return writeOutputs(outDir, id, md, j) ? (mismatches ? 1 : 0) : 1;
}

void CountersPanel::poll(LessonContext& ctx) {
  if (const Status s = job_.takeInto(last_); !s) {
    error_ = s;
    ctx.error(s);  // the status bar says it too ("Cancelled: the counters were not read.")
  }
  if (last_ && !job_.running()) lastContext_ = context_;
}

void CountersPanel::draw(LessonContext& ctx, bool gpu, const CountersPanelSpec& spec,
                         const LessonAction& read) {
  poll(ctx);
  if (!beginPanel(ctx, spec.id, spec.title, kPanelCollapsible)) return endPanel(ctx);
  ImGui::BeginDisabled(!gpu || job_.running());
  if (!ctx.exporting) actionButton(read);
  ImGui::EndDisabled();
  if (!gpu) {
    mutedText(ctx.theme, spec.noGpu);
    return endPanel(ctx);
  }
  if (job_.running()) {
    // What is being profiled: a step's name (translated when the catalogue has it) or a launch.
    const JobProgress p = job_.progress();
    ImGui::ProgressBar(p.fraction, ImVec2(-1, 0), trf("profiling %s", tr(p.what).c_str()).c_str());
    // A reading at a large size replays slow kernels for many seconds.
    if (!ctx.exporting && button("Cancel")) cancel();
  }
  if (!error_.ok()) {
    // Counters that cannot be read (permission, no CUPTI, an unsupported GPU): one sentence.
    errorText(ctx.theme, error_);
    return endPanel(ctx);
  }
  if (!last_) return endPanel(ctx);
  // The step and whether the model agreed always show; the counters give way from the right
  // when the width is short (ui/data_table.hpp), each with its meaning in the header's tooltip.
  // A panel always draws the same spec: its columns are made once, and again when the language
  // changes (the tooltips are translated here; the data table translates headers itself).
  if (columnsLanguage_ != currentLanguage()) {
    columns_.clear();
    helps_.clear();
    columnsLanguage_ = currentLanguage();
  }
  if (columns_.empty()) {
    shown_ = columnsOf(spec);
    helps_.reserve(shown_.size());
    columns_.push_back({N_("step")});
    for (size_t i = 0; i < shown_.size(); ++i) {
      helps_.push_back(columnHelp(spec, *shown_[i]));
      columns_.push_back(
          {shown_[i]->header, nullptr, 1 + static_cast<int>(i), helps_.back().c_str()});
    }
    if (spec.agreement)
      columns_.push_back({N_("agree"), nullptr, 0,
                          N_("Whether the model's totals (sectors, wavefronts) equal what the GPU "
                             "counted.")});
  }
  if (beginDataTable(spec.id, columns_.data(), static_cast<int>(columns_.size()),
                     static_cast<int>(last_->size()))) {
    for (const counters::StepReading& r : *last_) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      colourSwatch(r.colour);
      ImGui::TextUnformatted(r.labelPhrase.empty() ? tr(r.label.c_str())
                                                   : trPhrase(r.labelPhrase).c_str());
      if (r.launches > 1)
        helpTooltip(
            trf("The first of the step's %d kernel launches is shown.", r.launches).c_str());
      for (const CounterColumn* col : shown_) {
        const CounterColumn& c = *col;
        ImGui::TableNextColumn();
        const std::optional<double> got = cellValue(r, c, false);
        ImGui::TextUnformatted(formatCounter(got.value_or(NAN), c.format).c_str());
        if (const std::optional<double> model = cellValue(r, c, true)) {
          ImGui::SameLine();
          std::string bracket = "(";
          bracket.append(formatCounter(*model, c.format)).append(")");
          // Never wrapped: a number cut in two is unreadable on a projector.
          ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.mutedColour());
          ImGui::TextUnformatted(bracket.c_str());
          ImGui::PopStyleColor();
          // "Counted by the GPU: 63%; the calculator: 100%."
          helpTooltip(trf("Counted by the GPU: %s; %s: %s.",
                          formatCounter(got.value_or(NAN), c.format).c_str(), tr(spec.modelLabel),
                          formatCounter(*model, c.format).c_str())
                          .c_str());
        }
      }
      if (spec.agreement) {
        ImGui::TableNextColumn();
        const bool ok = r.mismatches.empty();
        ImGui::PushStyleColor(ImGuiCol_Text, ok ? ctx.theme.goodColour() : ctx.theme.errorColour());
        ImGui::TextUnformatted(r.model.empty() ? "-" : ok ? tr("yes") : tr("NO"));
        ImGui::PopStyleColor();
        if (!ok) {
          std::string why;
          // Each mismatch is a sentence of the lesson's kernels, a format marked there.
          for (const Phrase& m : r.mismatches)
            why += trPhrase(m) + ".\n";
          helpTooltip(why.c_str());
        }
      }
    }
    endDataTable();
  }
  if (!lastContext_.empty()) mutedText(ctx.theme, lastContext_.c_str());
  mutedText(ctx.theme, spec.note);
  endPanel(ctx);
}

}  // namespace cudalab
