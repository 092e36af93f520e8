// "Measured by the GPU's counters": the panel every ladder shares. A lesson says which counters
// to show as columns and how to measure (its kernels/<lesson> measureCounters function); the panel
// runs the profiling on a worker thread, apart from the timed runs, and draws one row per step
// with the model's prediction beside the counters where the lesson has one, a disagreement
// flagged, or the one sentence saying why counters cannot be read here.
//
//   constexpr PanelColumn kColumns[] = {{"global_load_sectors_per_request"},
//                                       {"achieved_occupancy", N_("this panel's own tooltip")}};
//   constexpr CountersPanelSpec spec{.noGpu = N_("..."), .columns = kColumns, .note = N_("...")};
//   panel_.draw(ctx, gpu, spec, action("counters"));  // the lesson's action: its button
//   panel_.start([p](auto& c) { return measureCounters(p, ..., c.cancelFlag(), ...); }, "at ...");
//
// A ladder that measures in the counters' helper process (core/counters_helper.hpp) uses
// HelperCountersPanel<P> below: the lesson registers its measurement under a name, and the panel
// sends its parameters there.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/async_job.hpp"
#include "common/gemm_check.hpp"
#include "counters/counters.hpp"
#include "common/translatable.hpp"
#include "core/counters_helper.hpp"
#include "core/i18n.hpp"
#include "core/lesson.hpp"
#include "ui/data_table.hpp"

namespace cudalab {

enum class CounterFormat { Ratio, Count, Percent, Bytes, Threads };

// One column a ladder's panel can show: a metric or ratio of counters::metrics() / ratios(), its
// short header for a projector, its format, and the same in every panel (counterColumns()).
struct CounterColumn {
  const char* key;     // "global_load_sectors_per_request"
  const char* header;  // "sectors / load" (marked N_)
  CounterFormat format;
  // Optional: the tooltip (the metric table's meaning when null).
  const char* help = nullptr;
  // A second key added to the cell (bank conflicts of loads and of stores shown as one number).
  const char* plus = nullptr;
};
// The catalogue of columns; a key that is not in it is a programming error the CPU tests catch.
std::span<const CounterColumn> counterColumns();
const CounterColumn* findCounterColumn(std::string_view key);

// One column of a panel: a key of counterColumns(), and the panel's own tooltip for it where the
// catalogue's does not say it (marked N_).
struct PanelColumn {
  const char* key;
  const char* help = nullptr;
};

// What a ladder's panel shows. The panel's button is the lesson's action (core/action.hpp), which
// gives its label and tooltip.
struct CountersPanelSpec {
  // The texts are English, marked N_() where the spec is written, and translated where shown.
  const char* noGpu;                     // what to say without a GPU (what models the same thing)
  std::span<const PanelColumn> columns;  // in the table's order
  const char* note;                      // below the table: how to read it
  bool agreement = false;  // a last column: the model's totals agree with the counters
  const char* modelLabel = N_("model");  // what the model's value in a cell is called
  const char* id = "counters";           // the panel's id (export, --panel)
  const char* title = N_("Measured by the GPU's counters");
};

class CountersPanel {
 public:
  using Readings = std::vector<counters::StepReading>;
  using Job = AsyncJob<Readings>;
  // Starts measuring (false when a measurement is already running). `context` says what was
  // measured ("1,023 x 1,017 floats, the size the model counts") under the table.
  bool start(std::function<Result<Readings>(Job::Control&)> measure, std::string context);
  // Draws the panel; its button is the lesson's action `read`, which starts the measurement.
  void draw(LessonContext& ctx, bool gpu, const CountersPanelSpec& spec, const LessonAction& read);
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
  std::vector<const CounterColumn*> shown_;
  std::vector<std::string> helps_;
  std::vector<TableColumn> columns_;
  std::string columnsLanguage_;  // the language the tooltips were made in
};

// The note under a product's counters table: M, N and K as they were read, each at most `cap`
// (every kernel runs once per profiler pass, so the readings cap the sizes), and the inputs'
// `format` where the ladder has several.
template <class P>
std::string cappedSizesNote(const P& p, int cap, const char* format = nullptr) {
  const P c = cappedProduct(p, cap);
  const int M = c.M, N = c.N, K = c.K;
  if (format)
    return trf(
        "M x N x K = %d x %d x %d in %s (at most %d each: every kernel runs once per "
        "profiler pass).",
        M, N, K, format, cap);
  return trf(
      "M x N x K = %d x %d x %d (at most %d each: every kernel runs once per profiler pass).", M, N,
      K, cap);
}

// A ladder's counters panel whose measurement runs in the counters' helper process: the lesson
// registered it under `job` with parameters P (registerCountersJob<P>, core/counters_helper.hpp),
// and `context` says under the table what was measured ("1,023 x 1,017 floats, the size the
// model counts"), in the language of the moment it starts.
//
//   HelperCountersPanel<MatmulParams> counters_{"matmul", kSpec, [](const MatmulParams& p) {...}};
//   ... in the action table: .start = [this] { return counters_.start(params()); }
//   ... in drawMain:         counters_.draw(ctx, gpu_, action(kActionCounters));
template <class P>
class HelperCountersPanel {
 public:
  HelperCountersPanel(const char* job, const CountersPanelSpec& spec,
                      std::string (*context)(const P&))
      : job_(job), spec_(spec), context_(context) {}
  bool start(const P& p) {
    return panel_.start(
        [job = job_, p](CountersPanel::Job::Control& c) {
          return measureInHelper(job, p, c.cancelFlag(),
                                 [&c](float f, const std::string& what) { c.progress(f, what); });
        },
        context_(p));
  }
  void draw(LessonContext& ctx, bool gpu, const LessonAction& read) {
    panel_.draw(ctx, gpu, spec_, read);
  }
  bool pending() const { return panel_.pending(); }
  void cancel() { panel_.cancel(); }
  void poll(LessonContext& ctx) { panel_.poll(ctx); }
  const CountersPanelSpec& spec() const { return spec_; }

 private:
  const char* job_;
  const CountersPanelSpec& spec_;
  std::string (*context_)(const P&);
  CountersPanel panel_;
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
