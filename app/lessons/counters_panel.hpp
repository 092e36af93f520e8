// "Measured by the GPU's counters": the panel every ladder shares. A lesson says which counters
// to show as columns and how to measure (its kernels/<lesson> measureCounters function); the panel
// runs the profiling on a worker thread, apart from the timed runs, and draws one row per step
// with the model's prediction beside the counters where the lesson has one, a disagreement
// flagged, or the one sentence saying why counters cannot be read here.
//
//   static constexpr CounterColumn kColumns[] = {
//       {"global_load_sectors_per_request", "sectors / load", CounterFormat::Ratio}, ...};
//   const CountersPanelSpec spec{"counters", "Measured by the GPU's counters", kColumns, ...};
//   panel_.draw(ctx, gpu, spec, [&] { start(); });
//   panel_.start([p](auto& c) { return measureCounters(p, ..., c.cancelFlag(), ...); }, "at ...");
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "counters/counters.hpp"
#include "common/translatable.hpp"
#include "lessons/lesson.hpp"
#include "ui/data_table.hpp"

namespace cudalab {

enum class CounterFormat { Ratio, Count, Percent, Bytes, Threads };

struct CounterColumn {
  const char* key;     // a metric or ratio of counters::metrics() / ratios()
  const char* header;  // short, for a projector: "sectors / load" (marked N_)
  CounterFormat format;
  // Optional: the tooltip (the metric table's meaning when null).
  const char* help = nullptr;
  // A second key added to the cell (bank conflicts of loads and of stores shown as one number).
  const char* plus = nullptr;
};

struct CountersPanelSpec {
  // The texts are English, marked N_() where the spec is written, and translated where shown.
  const char* id;      // the panel's id (export, --panel)
  const char* title;   // "Measured by the GPU's counters"
  const char* button;  // "Read the counters"
  const char* buttonHelp;
  const char* noGpu;  // what to say without a GPU (what models the same thing)
  std::span<const CounterColumn> columns;
  const char* note;        // below the table: how to read it
  bool agreement = false;  // a last column: the model's totals agree with the counters
  const char* modelLabel = N_("model");  // what the model's value in a cell is called
};

class CountersPanel {
 public:
  using Readings = std::vector<counters::StepReading>;
  using Job = AsyncJob<Readings>;
  // Starts measuring (false when a measurement is already running). `context` says what was
  // measured ("1,023 x 1,017 floats, the size the model counts") under the table.
  bool start(std::function<Result<Readings>(Job::Control&)> measure, std::string context);
  // Draws the panel; `onButton` starts the lesson's measurement when the button is pressed.
  void draw(LessonContext& ctx, bool gpu, const CountersPanelSpec& spec,
            const std::function<void()>& onButton);
  bool pending() const { return job_.pending(); }
  // Stops a reading: its helper process is ended at once (lessons call it from cancelAll()).
  void cancel() { job_.cancel(); }
  // Takes a finished reading (draw() does it first); for a frame where the panel is not drawn, so
  // that a reading never stays pending.
  void poll(LessonContext& ctx);
  const std::optional<Readings>& last() const { return last_; }

 private:
  Job job_;
  std::optional<Readings> last_;
  std::string context_, lastContext_;
  Status error_;
  // The table's columns, made from the spec at the first draw (helps_ owns their tooltips).
  std::vector<std::string> helps_;
  std::vector<TableColumn> columns_;
  std::string columnsLanguage_;  // the language the tooltips were made in
};

// A counter's value as the panel prints it ("32.9 M", "4.00", "63%", "12 MiB", "31.8").
std::string formatCounter(double v, CounterFormat f);

// For `cudalab bench counters-LESSON`: the panel's table as Markdown (the model's value in
// brackets, the agreement column when the spec has one) with the raw counters in the JSON,
// written as bench-ID.md and .json. Returns the exit code: 1 when the measurement failed or a
// step's model disagrees with the counters.
int writeCountersBench(const std::string& outDir, const std::string& id, const std::string& title,
                       const Result<std::vector<counters::StepReading>>& readings,
                       const CountersPanelSpec& spec);

}  // namespace cudalab
