// The transfers lesson's "where the time goes" panels: a stacked bar per transfer mode and for
// the CPU, with each mode's wall time and ceiling, a table and what to conclude; then one mode's
// timeline (a row per stream, a span per copy and kernel), measured with CUDA events or replayed
// on the model. Also what the lesson's jobs hand these panels, and the texts the lesson's panels
// share (transfers_sweep_panel.cpp uses them too).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/lesson.hpp"
#include "transfers/transfers.hpp"

namespace cudalab {

// transferModes()' count: the modes are measured and drawn in its order.
constexpr int kTransferModeCount = 5;

// One transfer mode (or one way of running the chain), measured or modelled.
struct TransfersModeResult {
  transfers::Timeline timeline;   // measured (median run) or modelled
  transfers::Timeline predicted;  // the model's timeline for the same plan
  std::array<double, 3> phases{};
  double wallMs = 0;
  double ceilingMs = 0;  // the least time the copy and device bandwidths allow (see ceiling())
  Correctness check;
  int h2dCopies = 0, d2hCopies = 0;
};

// Every mode and the CPU at one size: what "Measure all modes" returns.
struct TransfersModesReport {
  transfers::TransferParams p;
  bool modelled = false;
  std::array<TransfersModeResult, kTransferModeCount> modes;
  transfers::CpuTiming cpu;
  transfers::LinkModel link;
};

// [SECTION] texts the panels share

// Translated here (a category or series label with a number is in no catalogue as it is).
std::string transfersCpuAllLabel(int threads);

// Milliseconds as the charts' read-outs write seconds ("67.21 ms", "356 µs").
std::string transfersMs(double v);

// A ratio of times said the way a learner reads it: "2.3x faster", "no faster", "1.7x slower".
// Each sentence that says it comes in three whole versions (a translator cannot reorder a
// sentence built around a phrase): `kind` picks one, `times` is the factor ("2.3").
struct TransfersSpeedup {
  int kind = 0;  // 1: faster, 0: no faster, -1: slower
  std::string times;
};
TransfersSpeedup transfersFaster(double slowMs, double fastMs);

// Sentences joined into one paragraph.
std::string transfersJoined(const std::vector<std::string>& sentences);

// N as a learner reads it: "16,777,216 (2^24)" or "30,000,000".
std::string transfersDescribeN(long long n);

// Whether the output of N elements matched the float64 reference, in green or red (nothing when
// `modelled`: nothing was checked).
void transfersCheckText(LessonContext& ctx, const Correctness& c, long long n, bool modelled);

// [SECTION] the panels

// "Where the time goes": `report` is the last "Measure all modes" (none yet: a question to
// predict for `now`'s numbers; measured with other parameters than `now`: said so, with the
// button that measures again); `source` says what the measured numbers come from (the GPU's name,
// or the model).
void drawTransfersModes(LessonContext& ctx, const std::optional<TransfersModesReport>& report,
                        const transfers::TransferParams& now, const char* source);

// The timeline of `report`'s mode number `mode` (the learner may pick another, and switch
// `showModel` to the model's prediction for a measured report).
void drawTransfersTimeline(LessonContext& ctx, const TransfersModesReport& report, int& mode,
                           bool& showModel);

}  // namespace cudalab
