// Lesson "transfers": when the GPU pays off, and where the time goes.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: kernel, N, calls, streams, chain; the four measurements
//   main view: modes (stacked bars and table), timeline, size sweep, chain, link bandwidth
//   work on the worker thread: link, modes, sweep, chain (GPU, or CPU plus model without one)
//   export
#include "ui/i18n.hpp"
#include "lessons/transfers_lesson.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "device/device_bandwidth.hpp"
#include "transfers/transfers.hpp"
#include "ui/data_table.hpp"
#include "ui/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] lesson text, jobs and their results

const LessonInfo kTransfersLessonInfo{
    "transfers", N_("Transfers: when the GPU pays off"),
    N_("course files 000 and 003: copies to and from the GPU, explicit device arrays, chained "
       "kernels"),
    N_("The same element-wise kernel with its data copied in and out around every call, kept on "
       "the device, from pinned memory, or in chunks over several streams so copies overlap "
       "kernels; the CPU doing the same work; where the GPU starts to pay off.")};

namespace {

const char* kActionModes = "modes";
const char* kActionSweep = "sweep";
const char* kActionChain = "chain";
const char* kActionLink = "link";

// The kernel as the panel chooses it (transferOps(), in its order), for presets and plans.
constexpr ParamSpec kOpChoice{"kernel",
                              "Kernel",
                              0,
                              3,
                              0,
                              "",
                              "Which element-wise kernel runs: doubling (the course's foo), "
                              "a*x + y, hypot(x, y), or one whose work per element you choose."};

constexpr int kModeCount = 5;
// Line colours of the modes in the sweep, apart from the CPU's grey and yellow.
constexpr int kModeColour[kModeCount] = {0, 4, 2, 3, 1};

std::string cpuAllLabel(int threads) {
  return "CPU, all cores (" + std::to_string(threads) + ")";
}

// The copy ceilings: measured on this GPU, or the reference machine's without one.
struct LinkReport {
  bool measured = false;
  LinkModel model;               // bandwidths for the ceilings and the model's predictions
  std::optional<PcieLink> pcie;  // the link's theoretical rate, when sysfs says
  std::string device;            // what measured it
};

struct ModeResult {
  Timeline timeline;   // measured (median run) or modelled
  Timeline predicted;  // the model's timeline for the same plan
  std::array<double, 3> phases{};
  double wallMs = 0;
  double ceilingMs = 0;  // the least time the copy and device bandwidths allow (see ceiling())
  Correctness check;
  int h2dCopies = 0, d2hCopies = 0;
};

struct ModesReport {
  TransferParams p;
  bool modelled = false;
  std::array<ModeResult, kModeCount> modes;
  CpuTiming cpu;
  LinkModel link;
};

struct ChainReport {
  TransferParams p;
  bool modelled = false;
  ModeResult trips, resident;
};

struct SweepSummary {
  int points = 0;
};

double toD(long long v) {
  return static_cast<double>(v);
}

// Milliseconds as the charts' read-outs write seconds ("67.21 ms", "356 µs").
std::string ms(double v) {
  return plot::formatValue(v * 1e-3, "s");
}

// "2.3x faster", "no faster", "1.7x slower": a ratio of times said the way a learner reads it.
std::string faster(double slowMs, double fastMs) {
  const double r = slowMs / std::max(fastMs, 1e-12);
  if (r >= 1.05) return trimmedFixed(r, 1) + "x faster";
  if (r > 1 / 1.05) return "no faster";
  return trimmedFixed(1 / r, 1) + "x slower";
}

// A share in percent, with a decimal below 1% (and above 99%) so a small share does not read as
// nothing.
std::string percent(double part, double whole) {
  const double p = 100 * part / std::max(whole, 1e-12);
  return trimmedFixed(p, p < 1 || p > 99 ? 1 : 0) + "%";  // never "100%" for 99.7%
}

// N as a learner reads it: "16,777,216 (2^24)" or "30,000,000".
std::string describeN(long long n) {
  std::string s = thousands(n);
  if (n > 0 && (n & (n - 1)) == 0)
    s += " (2^" + std::to_string(static_cast<int>(std::log2(toD(n)))) + ")";
  return s;
}

// The least time a plan could take: its copies at the pinned ceiling, its kernels at the device
// copy's bandwidth, one after another (or, in streams mode, all at once: one copy engine each way
// and the GPU, so the longest of the three bounds it).
double ceiling(const Plan& plan, const TransferParams& p, const LinkModel& link) {
  double kernelBytes = 0;
  for (const PlanStep& s : plan.steps)
    if (s.kind == SpanKind::Kernel)
      kernelBytes += double(transferOp(p.op).inputs + 1) * 4.0 * double(s.count);
  const double in = plan.bytes(SpanKind::HostToDevice) / (link.h2dPinnedGBps * 1e6);
  const double out = plan.bytes(SpanKind::DeviceToHost) / (link.d2hPinnedGBps * 1e6);
  const double kernel = kernelBytes / (link.deviceGBps * 1e6);
  if (plan.streams > 1) return std::max({in, kernel, out});
  return in + kernel + out;
}

ModeResult fromRun(const PlanRun& r, const Plan& plan, const TransferParams& p,
                   const LinkModel& link) {
  ModeResult m;
  m.timeline = r.timeline;
  m.predicted = simulate(plan, p, link);
  m.phases = {r.phases[0].medianMs, r.phases[1].medianMs, r.phases[2].medianMs};
  m.wallMs = r.wall.medianMs;
  m.ceilingMs = ceiling(plan, p, link);
  m.check = r.check;
  m.h2dCopies = plan.copies(SpanKind::HostToDevice);
  m.d2hCopies = plan.copies(SpanKind::DeviceToHost);
  return m;
}

ModeResult fromModel(const Plan& plan, const TransferParams& p, const LinkModel& link) {
  ModeResult m;
  m.timeline = m.predicted = simulate(plan, p, link);
  m.phases = m.timeline.phaseMs();
  m.wallMs = m.timeline.wallMs;
  m.ceilingMs = ceiling(plan, p, link);
  m.h2dCopies = plan.copies(SpanKind::HostToDevice);
  m.d2hCopies = plan.copies(SpanKind::DeviceToHost);
  return m;
}

class TransfersLesson final : public Lesson {
 public:
  const LessonInfo& info() const override { return kTransfersLessonInfo; }
  std::span<const ParamSpec> parameters() const override { return kTransferParams; }
  std::vector<VariantRow> variants() const override {
    std::vector<VariantRow> rows;
    for (const TransferModeInfo& m : transferModes())
      rows.push_back({m.id, m.label, m.help});
    return rows;
  }
  bool busy() const override {
    return linkJob_.pending() || modesJob_.pending() || sweepJob_.pending() ||
           chainJob_.pending() || !queue_.empty();
  }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::pair<std::string, TransferOp>> ops;
    for (const TransferOpInfo& o : transferOps())
      ops.emplace_back(o.id, o.op);
    return {bindChoice(kOpChoice, p_.op, std::move(ops)),
            bindParam(kTransferN, p_.n),
            bindParam(kTransferCalls, p_.calls),
            bindParam(kTransferStreams, p_.streams),
            bindParam(kTransferChunks, p_.chunksPerStream),
            bindParam(kTransferWork, p_.work),
            bindParam(kTransferChain, p_.chain)};
  }
  void cancelAll() override {
    modesJob_.cancel();
    sweepJob_.cancel();
    chainJob_.cancel();
    linkJob_.cancel();
    queue_.clear();  // or the next queued measurement would start
  }

  std::vector<std::string> actionIds() const override {
    return {kActionModes, kActionSweep, kActionChain, kActionLink};
  }
  bool startAction(const std::string& id) override {
    if (working()) return false;
    if (id == kActionModes) return startModes();
    if (id == kActionSweep) return startSweep();
    if (id == kActionChain) return startChain();
    if (id == kActionLink) return startLink();
    return false;
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    device_ = gpu_ ? ctx.runtime.firstDeviceName : std::string();
    // The ceilings first (a second on a GPU, at once without one), then the modes at the
    // default size, so the lesson opens with something measured.
    // Then the size sweep and the chain, so the lesson opens with every chart drawn.
    startLink();
    queue_ = {kActionModes, kActionSweep, kActionChain};
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    ImGui::TextUnformatted(tr("Kernel"));
    for (const TransferOpInfo& o : transferOps()) {
      if (ImGui::RadioButton(o.label, p_.op == o.op)) p_.op = o.op;
      helpTooltip((std::string(o.formula) + "\n\n" + o.help).c_str());
    }
    ImGui::Spacing();
    paramSlider(kTransferN, p_.n);
    // The course's sizes: a small array, a million, the 30 million numbers doubled in file 003,
    // and the benchmark's 2^26.
    const long long presets[] = {1LL << 10, 1LL << 20, 30000000LL, 1LL << 26};
    const char* names[] = {"2^10", "2^20", "30M", "2^26"};
    for (int i = 0; i < 4; ++i) {
      if (i) sameLineIfFits(smallButtonWidth(names[i]));
      if (smallButton(names[i])) p_.n = presets[i];
    }
    paramSlider(kTransferCalls, p_.calls);
    paramSlider(kTransferStreams, p_.streams);
    paramSlider(kTransferChunks, p_.chunksPerStream);
    if (p_.op == TransferOp::Iterate) paramSlider(kTransferWork, p_.work);
    paramSlider(kTransferChain, p_.chain);

    const Status valid = validate(p_);
    errorText(ctx.theme, valid);
    const size_t bytes = hostBytesNeeded(p_, true);
    mutedText(ctx.theme,
              ("Needs " + plot::formatValue(toD(static_cast<long long>(bytes)) / 2, "B") +
               " on the device, twice that on the host.")
                  .c_str());
    helpTooltip(
        "The inputs and the output on the device; on the host each once in ordinary and "
        "once in pinned memory.");

    ImGui::Spacing();
    ImGui::Separator();
    if (!gpu_)
      mutedText(ctx.theme,
                "No GPU: the CPU's times are measured; the GPU's come from a model of the copy "
                "engines with an H200's measured bandwidths, labelled as such.");
    ImGui::BeginDisabled(working() || !valid);
    if (button(tr("Measure all modes"))) startModes();
    helpTooltip(
        gpu_ ? "Runs the kernel `calls` times in every transfer mode, 5 times after a warm-up, "
               "with a CUDA event around every copy and kernel; poisons the output first and "
               "checks every element against a float64 CPU reference. Then the CPU does the "
               "same work."
             : "Without a GPU: every transfer mode from the model of the copy engines, and the "
               "CPU doing the same work, measured and checked against a float64 reference.");
    if (button(tr("Sweep sizes up to N"))) startSweep();
    helpTooltip(
        "Every mode and the CPU at N = 2^10, 2^12, ... up to the chosen N: where does the GPU "
        "start to pay off?");
    if (button(tr("Chain of k kernels"))) startChain();
    helpTooltip(
        "The course's foo (x * 2), bar (x + 1) and baz (x * x), k of them in a row, with a round "
        "trip through the host around each, and without.");
    ImGui::EndDisabled();
    ImGui::BeginDisabled(working() || !gpu_);
    if (button(tr("Measure link bandwidth"))) startLink();
    ImGui::EndDisabled();
    helpTooltip(gpu_ ? "Pageable and pinned copies both ways, and a device-to-device copy: the "
                       "ceilings drawn on the charts."
                     : "Needs a GPU: without one the charts use an H200's measured bandwidths.");
    if (working()) {
      JobProgress pr = sweepJob_.running()   ? sweepJob_.progress()
                       : modesJob_.running() ? modesJob_.progress()
                       : chainJob_.running() ? chainJob_.progress()
                                             : linkJob_.progress();
      ImGui::ProgressBar(pr.fraction, ImVec2(-1, 0), pr.what.c_str());
      if (button(tr("Cancel"))) {
        cancelAll();
      }
    }
    ImGui::BeginDisabled(!modes_ && sweep_.empty());
    if (button(tr("Export CSV"))) exportLessonResults(ctx, results(), false);
    ImGui::SameLine();
    if (button(tr("Export JSON"))) exportLessonResults(ctx, results(), true);
    ImGui::EndDisabled();
    helpTooltip("Saves the modes' phases and the size sweep.");
  }

  // [SECTION] main view

  void drawMain(LessonContext& ctx) override {
    startNextQueued(*this, queue_, working());
    errorText(ctx.theme, error_);
    drawModes(ctx);
    drawTimeline(ctx);
    drawSweep(ctx);
    drawChain(ctx);
    drawLink(ctx);
  }

 private:
  bool working() const {
    return linkJob_.running() || modesJob_.running() || sweepJob_.running() || chainJob_.running();
  }

  const char* source() const { return gpu_ ? device_.c_str() : "model, no GPU"; }

  void checkText(LessonContext& ctx, const Correctness& c, long long n, bool modelled) {
    if (modelled) return;
    ImGui::PushStyleColor(ImGuiCol_Text, c.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
    if (c.ok())
      textWrapped("Output checked: %s of %s elements equal the float64 reference in every run.",
                  thousands(static_cast<long long>(c.checked)).c_str(), thousands(n).c_str());
    else
      textWrapped(tr("%s of %s elements wrong (first at %zu)."),
                  thousands(static_cast<long long>(c.wrong)).c_str(),
                  thousands(static_cast<long long>(c.checked)).c_str(), c.firstWrong);
    ImGui::PopStyleColor();
  }

  // -- Modes: a stacked bar per mode and the CPU, the ceilings, a table, what to conclude --------

  void drawModes(LessonContext& ctx) {
    std::string title = "Where the time goes";
    if (modes_)
      title += ": " + std::string(transferOp(modes_->p.op).label) +
               ", N = " + describeN(modes_->p.n) + ", " + std::to_string(modes_->p.calls) +
               " call" + (modes_->p.calls > 1 ? "s" : "") + " (" +
               (modes_->modelled ? "GPU modelled, CPU measured" : source()) + ")";
    if (!beginPanel(ctx, "transfers_modes", title.c_str())) {
      endPanel(ctx);
      return;
    }
    if (!modes_) {
      textWrapped(
          "Predict first: for %s numbers, will copying them to the GPU and back take longer "
          "than the kernel? Longer than the CPU doing the work itself?",
          thousands(p_.n).c_str());
      endPanel(ctx);
      return;
    }
    const ModesReport& r = *modes_;
    const auto modes = transferModes();
    // When the CPU takes far longer than every GPU mode (the iterate kernel), its bars would
    // flatten the GPU's to nothing: leave them to the table and the text.
    double slowestGpu = 0;
    for (const ModeResult& x : r.modes)
      slowestGpu = std::max(slowestGpu, x.wallMs);
    const bool cpuRows = r.cpu.bestMs() < 20 * slowestGpu;
    const int rows = kModeCount + (cpuRows ? 2 : 0);
    std::vector<std::string> labelStore;
    for (const TransferModeInfo& m : modes)
      labelStore.push_back(m.label);
    if (cpuRows) {
      labelStore.push_back("CPU, 1 thread");
      labelStore.push_back(cpuAllLabel(r.cpu.threads));
    }
    // Category 0 is drawn at the bottom: list them backwards so the first mode is on top.
    std::vector<const char*> cats;
    for (auto it = labelStore.rbegin(); it != labelStore.rend(); ++it)
      cats.push_back(it->c_str());
    auto row = [rows](int i) { return rows - 1 - i; };
    // Phases in seconds (the plot's unit): [series * rows + row].
    const char* series[] = {"Host to device", "Kernel", "Device to host", "CPU"};
    std::vector<double> v(4 * rows, 0.0);
    std::vector<double> wallX, wallY, ceilX, ceilY;
    for (int m = 0; m < kModeCount; ++m) {
      for (int k = 0; k < 3; ++k)
        v[k * rows + row(m)] = r.modes[m].phases[k] * 1e-3;
      wallX.push_back(r.modes[m].wallMs * 1e-3);
      wallY.push_back(row(m));
      ceilX.push_back(r.modes[m].ceilingMs * 1e-3);
      ceilY.push_back(row(m));
    }
    if (cpuRows) {
      v[3 * rows + row(kModeCount)] = r.cpu.oneThreadMs * 1e-3;
      v[3 * rows + row(kModeCount + 1)] = r.cpu.allCoresMs * 1e-3;
    }
    const float h = ImGui::GetTextLineHeight() * (6.0f + 2.0f * static_cast<float>(rows));
    if (plot::BeginPlot("transfers_modes", nullptr, ImVec2(-1, h))) {
      plot::SetupCategories(cats.data(), rows, plot::AxisId::Y);
      plot::SetupLegend(plot::Legend::Outside);
      plot::SetupAxes({"time", plot::Scale::Linear, 0, NAN, "s"}, {nullptr});
      plot::PlotStackedBars(series, cpuRows ? 4 : 3, v.data(), rows, true);
      plot::SetNextColour(7);
      plot::PlotScatter("wall time", wallX.data(), wallY.data(), kModeCount);
      plot::SetNextColour(5);
      plot::PlotScatter("ceiling", ceilX.data(), ceilY.data(), kModeCount);
      plot::EndPlot();
    }
    if (!cpuRows)
      mutedText(ctx.theme, ("The CPU (" + ms(r.cpu.bestMs()) + ", " +
                            trimmedFixed(r.cpu.bestMs() / slowestGpu, 0) +
                            "x the slowest GPU mode) is left out of the chart: see the table.")
                               .c_str());
    drawModesTable(ctx, r);
    mutedText(ctx.theme, conclusion(r).c_str());
    if (r.modelled) mutedText(ctx.theme, r.link.source);
    endPanel(ctx);
  }

  void drawModesTable(LessonContext& ctx, const ModesReport& r) {
    // On a projector the mode, its wall time and whether its output is right matter most; the
    // phases, then the copy counts, give way first.
    static const TableColumn kColumns[] = {
        {"mode"},
        {"copy in (ms)", "in", 2, "Host to device, median."},
        {"kernel (ms)", "kernel", 2, "The kernel alone, median."},
        {"copy out (ms)", "out", 2, "Device to host, median."},
        {"wall time (ms)", "wall", 0, "From the first copy's start to the last copy's end."},
        {"copies in / out", "copies", 3, "How many copies each way this mode makes."},
        {"the model's wall time (ms)", "model", 1,
         "What the transfer model predicts from the link's measured bandwidth."},
        {"output checked", "output", 0, "Compared element by element with the CPU's result."},
    };
    if (!beginDataTable("modes_table", kColumns, kModeCount + 2)) return;
    for (int m = 0; m < kModeCount; ++m) {
      const ModeResult& x = r.modes[m];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(transferModes()[static_cast<size_t>(m)].label);
      helpTooltip(transferModes()[static_cast<size_t>(m)].help);
      for (int k = 0; k < 3; ++k) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(ms(x.phases[k]).c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(ms(x.wallMs).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d / %d", x.h2dCopies, x.d2hCopies);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(ms(x.predicted.wallMs).c_str());
      ImGui::TableNextColumn();
      if (r.modelled) {
        ImGui::TextUnformatted(tr("model"));
      } else {
        ImGui::PushStyleColor(ImGuiCol_Text,
                              x.check.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
        ImGui::TextUnformatted(x.check.ok() ? "correct" : "WRONG");
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip(tr("%s of %s elements checked, max relative error %.2g"),
                            thousands(static_cast<long long>(x.check.checked)).c_str(),
                            thousands(r.p.n).c_str(), x.check.maxRelError);
      }
    }
    auto cpuRow = [&](const std::string& label, double t) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(label.c_str());
      for (int k = 0; k < 3; ++k) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(k == 1 ? ms(t).c_str() : "");
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(ms(t).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(tr("none"));
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text,
                            r.cpu.check.ok() ? ctx.theme.goodColour() : ctx.theme.errorColour());
      ImGui::TextUnformatted(r.cpu.check.ok() ? "correct" : "WRONG");
      ImGui::PopStyleColor();
    };
    cpuRow("CPU, 1 thread", r.cpu.oneThreadMs);
    cpuRow(cpuAllLabel(r.cpu.threads), r.cpu.allCoresMs);
    endDataTable();
    if (!r.modelled) {
      bool ok = true;
      for (const ModeResult& x : r.modes)
        ok = ok && x.check.ok();
      if (ok)
        checkText(ctx, r.modes[0].check, r.p.n, false);
      else
        errorText(ctx.theme,
                  Status::error("Some outputs differ from the reference: see the last column."));
    }
    if (r.cpu.timedElements < static_cast<size_t>(r.p.n))
      mutedText(ctx.theme, ("The CPU was timed on the first " +
                            thousands(static_cast<long long>(r.cpu.timedElements)) +
                            " elements and scaled to N: its time grows in proportion to N.")
                               .c_str());
  }

  static std::string conclusion(const ModesReport& r) {
    const ModeResult& imp = r.modes[0];
    const ModeResult& exp = r.modes[1];
    const ModeResult& impPinned = r.modes[2];
    const ModeResult& streams = r.modes[4];
    const ModeResult& best = *std::min_element(
        r.modes.begin(), r.modes.end(),
        [](const ModeResult& a, const ModeResult& b) { return a.wallMs < b.wallMs; });
    const size_t bestIndex = static_cast<size_t>(&best - r.modes.data());
    const double cpu = r.cpu.bestMs();
    // Shares of the phases' sum: the wall time's median can be a little shorter than the sum of
    // the phases' medians.
    const double total = imp.phases[0] + imp.phases[1] + imp.phases[2];
    std::string s = "Copies take " + percent(imp.phases[0] + imp.phases[2], total) +
                    " of the implicit mode's time, the kernel " + percent(imp.phases[1], total) +
                    ". ";
    if (r.p.calls > 1)
      s += "Keeping the data on the device (explicit) makes " + std::to_string(r.p.calls) +
           " calls " + faster(imp.wallMs, exp.wallMs) + " than copying around each one. ";
    else
      s += "With one call, implicit and explicit copy the same: raise the kernel calls to see "
           "what keeping the data on the device saves. ";
    s += "From pinned memory the same copies are " + faster(imp.wallMs, impPinned.wallMs) +
         "; split over streams so they overlap, " + faster(impPinned.wallMs, streams.wallMs) +
         " again. ";
    s +=
        "The fastest mode, " + std::string(transferModes()[bestIndex].label) + ", takes " +
        ms(best.wallMs) + "; the CPU's best takes " + ms(cpu) + ", so at this size the " +
        (best.wallMs < cpu ? "GPU" : "CPU") + " wins by " +
        trimmedFixed(best.wallMs < cpu ? cpu / best.wallMs : best.wallMs / std::max(cpu, 1e-9), 1) +
        "x. The wall-time dots include overlap; the ceiling dots are the least time the measured "
        "copy and device bandwidths allow.";
    return s;
  }

  // -- Timeline: one row per stream, a span per copy and kernel --------------------------------

  void drawTimeline(LessonContext& ctx) {
    if (!modes_) return;
    const ModesReport& r = *modes_;
    const ModeResult& m = r.modes[static_cast<size_t>(timelineMode_)];
    const Timeline& t = showModel_ ? m.predicted : m.timeline;
    std::string title = std::string("Timeline: ") +
                        transferModes()[static_cast<size_t>(timelineMode_)].label +
                        (r.modelled || showModel_ ? " (model)" : " (CUDA events)");
    if (!beginPanel(ctx, "transfers_timeline", title.c_str())) {
      endPanel(ctx);
      return;
    }
    if (!ctx.exporting) {
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
      std::vector<const char*> names;
      for (const TransferModeInfo& x : transferModes())
        names.push_back(x.label);
      ImGui::Combo("mode##timeline", &timelineMode_, names.data(), kModeCount);
      if (!r.modelled) {
        ImGui::SameLine();
        checkbox(tr("show the model's prediction"), &showModel_);
        helpTooltip(
            "The same plan replayed on the model: one copy engine each way, one kernel at a "
            "time, pageable copies holding the host. Where the measurement differs, the model "
            "is missing something.");
      }
    }
    std::vector<std::string> rowNames;
    for (int s = 0; s < t.streams; ++s)  // row 0 is drawn at the bottom: stream 1 on top
      rowNames.push_back("stream " + std::to_string(t.streams - s));
    std::vector<const char*> rows;
    for (const std::string& s : rowNames)
      rows.push_back(s.c_str());
    const float h = ImGui::GetTextLineHeight() * (6.0f + 1.6f * static_cast<float>(t.streams));
    if (plot::BeginPlot("transfers_timeline", nullptr, ImVec2(-1, h))) {
      plot::SetupCategories(rows.data(), t.streams, plot::AxisId::Y);
      plot::SetupLegend(plot::Legend::Outside);
      plot::SetupAxes({"time since the first copy", plot::Scale::Linear, 0, NAN, "s"}, {nullptr});
      for (int k = 0; k < 3; ++k) {
        std::vector<int> rs;
        std::vector<double> x0, x1;
        for (const Span& s : t.spans) {
          if (static_cast<int>(s.kind) != k) continue;
          rs.push_back(t.streams - 1 - s.stream);  // stream 1 on top
          x0.push_back(s.startMs * 1e-3);
          x1.push_back(s.endMs * 1e-3);
        }
        plot::SetNextColour(k);
        plot::PlotSpans(kSpanKindNames[k], rs.data(), x0.data(), x1.data(),
                        static_cast<int>(rs.size()));
      }
      plot::EndPlot();
    }
    const auto ph = t.phaseMs();
    const double overlap = t.overlapMs();
    const std::string overlapText =
        overlap < 1e-3 ? std::string("Nothing overlapped.")
                       : "Copies and kernels ran at the same time for " + ms(overlap) + ".";
    textWrapped(
        "Copies in %s, kernels %s, copies out %s: %s one after another; the wall clock says %s. "
        "%s",
        ms(ph[0]).c_str(), ms(ph[1]).c_str(), ms(ph[2]).c_str(), ms(ph[0] + ph[1] + ph[2]).c_str(),
        ms(t.wallMs).c_str(), overlapText.c_str());
    if (transferModes()[static_cast<size_t>(timelineMode_)].streams && !showModel_ && !r.modelled)
      mutedText(ctx.theme,
                "A span starts when its stream reaches it, so a copy waiting behind another "
                "stream's copy for the copy engine (one each way) looks longer than it is; the "
                "phase times above count the time covered, not the sum.");
    else if (!transferModes()[static_cast<size_t>(timelineMode_)].pinned)
      mutedText(ctx.theme,
                "Pageable copies go through a pinned staging buffer that the CPU fills, and hold "
                "the host until they finish: nothing can overlap them.");
    endPanel(ctx);
  }

  // -- Size sweep: log-log, crossover ---------------------------------------------------------

  void drawSweep(LessonContext& ctx) {
    if (sweep_.empty() && !sweepJob_.running()) return;
    const bool modelled = !sweep_.empty() && sweep_.front().modelled;
    std::string title = std::string("When does the GPU pay off? ") +
                        transferOp(sweepParams_.op).label + ", " +
                        std::to_string(sweepParams_.calls) + " calls (" +
                        (modelled ? "GPU modelled, CPU measured" : source()) + ")";
    if (!beginPanel(ctx, "transfers_sweep", title.c_str())) {
      endPanel(ctx);
      return;
    }
    std::vector<double> ns, cpu1, cpuAll, cpuBest;
    std::vector<std::vector<double>> modeS(kModeCount), modeMs(kModeCount);
    for (const SizePoint& p : sweep_) {
      ns.push_back(toD(p.n));
      cpu1.push_back(p.cpu.oneThreadMs * 1e-3);
      cpuAll.push_back(p.cpu.allCoresMs * 1e-3);
      cpuBest.push_back(p.cpu.bestMs());
      for (int m = 0; m < kModeCount; ++m) {
        modeS[m].push_back(p.modeMs[m] * 1e-3);
        modeMs[m].push_back(p.modeMs[m]);
      }
    }
    const int n = static_cast<int>(ns.size());
    std::optional<double> cross;
    if (n > 0) cross = findCrossover(ns, modeMs[static_cast<size_t>(timelineMode_)], cpuBest);
    if (plot::BeginPlot("transfers_sweep", nullptr, ImVec2(-1, 0))) {
      plot::SetupAxes({"elements N", plot::Scale::Log10},
                      {"total time", plot::Scale::Log10, NAN, NAN, "s"});
      plot::SetupLegend(plot::Legend::Outside);
      for (int m = 0; m < kModeCount; ++m) {
        plot::SetNextColour(kModeColour[m]);
        plot::PlotLine(transferModes()[static_cast<size_t>(m)].label, ns.data(), modeS[m].data(),
                       n);
      }
      plot::SetNextColour(7);
      plot::PlotLine("CPU, 1 thread", ns.data(), cpu1.data(), n);
      plot::SetNextColour(6);
      plot::PlotLine(cpuAllLabel(sweep_.empty() ? 0 : sweep_.front().cpu.threads).c_str(),
                     ns.data(), cpuAll.data(), n);
      if (cross)
        plot::PlotVLine(
            ("pays off: " + std::string(transferModes()[static_cast<size_t>(timelineMode_)].label))
                .c_str(),
            *cross);
      plot::EndPlot();
    }
    if (sweepJob_.running()) {
      const JobProgress pr = sweepJob_.progress();
      ImGui::ProgressBar(pr.fraction, ImVec2(-1, 0), pr.what.c_str());
    }
    errorText(ctx.theme, sweepError_);
    if (n > 0) {
      std::string s =
          "From which N each mode beats the CPU's best (one thread or all cores) for "
          "good: ";
      for (int m = 0; m < kModeCount; ++m) {
        std::optional<double> c = findCrossover(ns, modeMs[m], cpuBest);
        s += std::string(m ? "; " : "") + transferModes()[static_cast<size_t>(m)].label + ": " +
             (!c                 ? std::string("never up to this N")
              : *c <= ns.front() ? "already at " + thousands(std::llround(ns.front()))
                                 : "about " + thousands(std::llround(*c)));
      }
      textWrapped("%s.", s.c_str());
      mutedText(ctx.theme,
                "Small arrays: every copy and launch costs microseconds whatever its size, while "
                "one CPU thread finishes a few thousand numbers in less. Large arrays: the time "
                "follows bandwidth: PCIe (tens of GB/s) for copies against the CPU's own memory "
                "bandwidth. With copies on every call a kernel this light wins only by a little, "
                "if at all: PCIe is slower than the CPU's own memory. It wins clearly when the "
                "data stays on the device or the kernel does more work per byte (try Iterate). "
                "The mode shown in the timeline is marked.");
    }
    endPanel(ctx);
  }

  // -- Chain: foo, bar, baz with and without round trips -------------------------------------

  void drawChain(LessonContext& ctx) {
    if (!chain_) return;
    const ChainReport& c = *chain_;
    const int k = c.p.chain;
    std::string title = "Chained kernels: k = " + std::to_string(k) + ", N = " + describeN(c.p.n) +
                        " (" + (c.modelled ? "model, no GPU" : source()) + ")";
    if (!beginPanel(ctx, "transfers_chain", title.c_str())) {
      endPanel(ctx);
      return;
    }
    const char* cats[] = {"round trips", "on the device"};
    const char* series[] = {"Host to device", "Kernel", "Device to host"};
    double v[6];
    for (int s = 0; s < 3; ++s) {
      v[s * 2 + 0] = c.trips.phases[s] * 1e-3;
      v[s * 2 + 1] = c.resident.phases[s] * 1e-3;
    }
    if (plot::BeginPlot("transfers_chain", nullptr, ImVec2(-1, ImGui::GetTextLineHeight() * 10))) {
      plot::SetupCategories(cats, 2, plot::AxisId::Y);
      plot::SetupLegend(plot::Legend::Outside);
      plot::SetupAxes({"time", plot::Scale::Linear, 0, NAN, "s"}, {nullptr});
      plot::PlotStackedBars(series, 3, v, 2, true);
      plot::EndPlot();
    }
    std::string names;
    for (int j = 0; j < k; ++j)
      names += std::string(j ? ", " : "") + chainKernels()[static_cast<size_t>(j % 3)].name + " (" +
               chainKernels()[static_cast<size_t>(j % 3)].formula + ")";
    const int tripCopies = c.trips.h2dCopies + c.trips.d2hCopies;
    const int residentCopies = c.resident.h2dCopies + c.resident.d2hCopies;
    textWrapped(
        "%s: with a round trip through the host around each kernel, %d copies (%s); with the "
        "data left on the device, %d copies (%s). 2(k-1) = %d copies saved: %s.",
        names.c_str(), tripCopies, ms(c.trips.wallMs).c_str(), residentCopies,
        ms(c.resident.wallMs).c_str(), tripCopies - residentCopies,
        faster(c.trips.wallMs, c.resident.wallMs).c_str());
    if (!c.modelled) {
      Correctness worst =
          c.trips.check.wrong >= c.resident.check.wrong ? c.trips.check : c.resident.check;
      checkText(ctx, worst, c.p.n, false);
    }
    endPanel(ctx);
  }

  // -- Link: pageable against pinned, against the link's ceiling ------------------------------

  void drawLink(LessonContext& ctx) {
    if (!link_) return;
    const LinkReport& l = *link_;
    std::string title = std::string("Pageable against pinned copies (") +
                        (l.measured ? l.device : std::string("reference H200, no GPU here")) + ")";
    if (!beginPanel(ctx, "transfers_link", title.c_str())) {
      endPanel(ctx);
      return;
    }
    const char* cats[] = {"host to device", "device to host"};
    const double pageable[] = {l.model.h2dPageableGBps * 1e9, l.model.d2hPageableGBps * 1e9};
    const double pinned[] = {l.model.h2dPinnedGBps * 1e9, l.model.d2hPinnedGBps * 1e9};
    if (plot::BeginPlot("transfers_link", nullptr, ImVec2(-1, ImGui::GetTextLineHeight() * 14))) {
      plot::SetupCategories(cats, 2);
      plot::SetupLegend(plot::Legend::Outside);
      plot::SetupAxes({nullptr}, {"bandwidth", plot::Scale::Linear, 0, NAN, "B/s"});
      plot::SetNextColour(4);
      plot::PlotBars("pageable (ordinary) memory", pageable, 2);
      plot::SetNextColour(0);
      plot::PlotBars("pinned (page-locked) memory", pinned, 2);
      if (l.pcie) plot::PlotHLine(l.pcie->describe().c_str(), l.pcie->gbpsPerDirection() * 1e9);
      plot::EndPlot();
    }
    std::string s = "Pinned copies reach " + trimmedFixed(l.model.h2dPinnedGBps, 1) +
                    " GB/s in and " + trimmedFixed(l.model.d2hPinnedGBps, 1) +
                    " GB/s out; pageable ones " + trimmedFixed(l.model.h2dPageableGBps, 1) +
                    " and " + trimmedFixed(l.model.d2hPageableGBps, 1) +
                    " GB/s, because the CPU first copies them into a pinned staging buffer. ";
    if (l.pcie)
      s += "The link (" + l.pcie->describe() + ") allows at most " +
           trimmedFixed(l.pcie->gbpsPerDirection(), 1) + " GB/s: pinned copies reach " +
           trimmedFixed(100 * l.model.h2dPinnedGBps / l.pcie->gbpsPerDirection(), 0) +
           "% of it (packet headers take the rest). ";
    else if (l.measured)
      s += "The link's rate is not readable from this system's sysfs. ";
    s += "Inside the GPU a device-to-device copy moves " + trimmedFixed(l.model.deviceGBps, 0) +
         " GB/s: the ceiling for the kernels.";
    textWrapped("%s", s.c_str());
    if (!l.measured) mutedText(ctx.theme, l.model.source);
    endPanel(ctx);
  }

  // [SECTION] work on the worker thread

  bool startLink() {
    const bool gpu = gpu_;
    return linkJob_.start([gpu](AsyncJob<LinkReport>::Control& c) -> Result<LinkReport> {
      LinkReport r;
      r.model = referenceLink();
      if (!gpu) return r;
      c.progress(0.1f, "measuring copy bandwidth");
      // Smaller than the device lesson's sizes: enough to reach the link's rate in a second.
      BandwidthParams bp;
      bp.deviceCopyMiB = 512;
      bp.hostCopyMiB = 128;
      bp.repetitions = 5;
      Result<BandwidthReport> bw = measureBandwidth(0, bp, c.cancelFlag(), nullptr);
      if (!bw) return bw.status();
      for (const CopyResult& x : bw->results) {
        switch (x.kind) {
          case CopyKind::DeviceToDevice:
            r.model.deviceGBps = x.gbpsMedian;
            break;
          case CopyKind::HostToDevicePinned:
            r.model.h2dPinnedGBps = x.gbpsMedian;
            break;
          case CopyKind::DeviceToHostPinned:
            r.model.d2hPinnedGBps = x.gbpsMedian;
            break;
          case CopyKind::HostToDevicePageable:
            r.model.h2dPageableGBps = x.gbpsMedian;
            break;
          case CopyKind::DeviceToHostPageable:
            r.model.d2hPageableGBps = x.gbpsMedian;
            break;
        }
      }
      r.model.source = "model: copy bandwidths measured on this GPU just now";
      r.measured = true;
      r.pcie = queryPcieLink(0);  // right after the copies: an idle link may have slowed down
      return r;
    });
  }

  LinkModel currentLink() const { return link_ ? link_->model : referenceLink(); }

  // Whether a job may start with `p`: valid, and its arrays fit into free device and available
  // host memory (otherwise the sentence why is shown above the charts).
  bool admit(const TransferParams& p) {
    error_ = validate(p);
    if (!error_) return false;
    Result<MemoryAvailable> mem = memoryAvailable(gpu_);
    if (!mem)
      error_ = mem.status();
    else if (!gpu_)
      error_ = checkMemory(p, size_t(1) << 50, mem->availableHost, false);
    else
      error_ = checkMemory(p, mem->freeDevice, mem->availableHost, true);
    return error_.ok();
  }

  bool startModes() {
    const TransferParams p = p_;
    if (!admit(p)) return false;
    const bool gpu = gpu_;
    const LinkModel link = currentLink();
    return modesJob_.start(
        [p, gpu, link](AsyncJob<ModesReport>::Control& c) -> Result<ModesReport> {
          ModesReport r;
          r.p = p;
          r.link = link;
          r.modelled = !gpu;
          const auto modes = transferModes();
          std::unique_ptr<TransferSession> session;
          if (gpu) {
            c.progress(0.02f, "allocating and filling " + thousands(p.n) + " numbers");
            auto s = TransferSession::create(p, 20261121u);
            if (!s) return s.status();
            session = std::move(*s);
          }
          for (int m = 0; m < kModeCount; ++m) {
            const Plan plan = planMode(p, modes[static_cast<size_t>(m)].mode);
            if (!gpu) {
              r.modes[static_cast<size_t>(m)] = fromModel(plan, p, link);
              continue;
            }
            c.progress(0.05f + 0.15f * static_cast<float>(m), modes[static_cast<size_t>(m)].label);
            const bool large = p.n > (1LL << 24);
            Result<PlanRun> run =
                session->run(plan, RunOptions{1, large ? 3 : 5, !large}, c.cancelFlag());
            if (!run) return run.status();
            r.modes[static_cast<size_t>(m)] = fromRun(*run, plan, p, link);
          }
          c.progress(0.8f, "the CPU doing the same work");
          Result<CpuTiming> cpu =
              timeCpuOn(p, session.get(), 1u, p.n > (1LL << 24) ? 3 : 5, c.cancelFlag());
          if (!cpu) return cpu.status();
          r.cpu = *cpu;
          return r;
        });
  }

  bool startSweep() {
    const TransferParams p = p_;
    if (!admit(p)) return false;
    sweep_.clear();
    sweepError_ = Status{};
    sweepParams_ = p;
    const bool gpu = gpu_;
    const LinkModel link = currentLink();
    return sweepJob_.start(
        [p, gpu, link](AsyncJob<SweepSummary, SizePoint>::Control& c) -> Result<SweepSummary> {
          const std::vector<long long> ns = sweepSizes(p.n);
          SweepSummary s;
          for (size_t i = 0; i < ns.size(); ++i) {
            c.progress(static_cast<float>(i) / static_cast<float>(ns.size()),
                       "N = " + thousands(ns[i]));
            Result<SizePoint> pt = measureSize(p, ns[i], gpu, link, c.cancelFlag());
            if (!pt) return pt.status();
            c.publish(*pt);
            ++s.points;
          }
          return s;
        });
  }

  bool startChain() {
    const TransferParams p = p_;
    if (!admit(p)) return false;
    const bool gpu = gpu_;
    const LinkModel link = currentLink();
    return chainJob_.start(
        [p, gpu, link](AsyncJob<ChainReport>::Control& c) -> Result<ChainReport> {
          ChainReport r;
          r.p = p;
          r.modelled = !gpu;
          const Plan trips = planChain(p, true), resident = planChain(p, false);
          if (!gpu) {
            r.trips = fromModel(trips, p, link);
            r.resident = fromModel(resident, p, link);
            return r;
          }
          c.progress(0.1f, "allocating");
          TransferParams one = p;
          one.op = TransferOp::Double;  // the chain reads x only
          auto s = TransferSession::create(one, 7u);
          if (!s) return s.status();
          const bool large = p.n > (1LL << 24);
          const RunOptions opt{1, large ? 3 : 5, !large};
          c.progress(0.3f, "round trips");
          Result<PlanRun> a = (*s)->run(trips, opt, c.cancelFlag());
          if (!a) return a.status();
          c.progress(0.7f, "on the device");
          Result<PlanRun> b = (*s)->run(resident, opt, c.cancelFlag());
          if (!b) return b.status();
          r.trips = fromRun(*a, trips, one, link);
          r.resident = fromRun(*b, resident, one, link);
          return r;
        });
  }

  void poll(LessonContext& ctx) {
    if (auto r = linkJob_.take()) {
      if (r->ok()) {
        link_ = std::move(r->value());
        link_->device = device_;
      } else {
        error_ = r->status();
        ctx.error(error_);
      }
    }
    if (auto r = modesJob_.take()) {
      if (r->ok()) {
        modes_ = std::move(r->value());
      } else {
        error_ = r->status();
        ctx.error(error_);
      }
    }
    for (SizePoint& p : sweepJob_.takePublished())
      sweep_.push_back(std::move(p));
    if (auto r = sweepJob_.take())
      if (!r->ok()) sweepError_ = r->status();
    if (auto r = chainJob_.take()) {
      if (r->ok()) {
        chain_ = std::move(r->value());
      } else {
        error_ = r->status();
        ctx.error(error_);
      }
    }
  }

  // [SECTION] export

  // One row per measured thing: which section, the kernel and parameters it ran with, its phases
  // (empty where a section has none), the wall time, and the check ("" when modelled: nothing
  // was checked).
  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (!modes_) return rows;
    for (int m = 0; m < kModeCount; ++m) {
      const ModeResult& x = modes_->modes[static_cast<size_t>(m)];
      const TransferModeInfo& info = transferModes()[static_cast<size_t>(m)];
      rows.push_back({info.id,
                      info.label,
                      {{"wall ms", x.wallMs, "ms", false},
                       {"host to device ms", x.phases[0], "ms", false},
                       {"kernel ms", x.phases[1], "ms", false},
                       {"device to host ms", x.phases[2], "ms", false}}});
    }
    rows.push_back(
        {"cpu_1_thread", "CPU, one thread", {{"wall ms", modes_->cpu.oneThreadMs, "ms", false}}});
    rows.push_back(
        {"cpu_all_cores", "CPU, all cores", {{"wall ms", modes_->cpu.allCoresMs, "ms", false}}});
    return rows;
  }

  LessonResults results() const override {
    nlohmann::json j;
    std::string csv =
        "section,kernel,work,n,calls,streams,chunks_per_stream,chain,row,h2d_ms,kernel_ms,d2h_ms,"
        "wall_ms,source,correct\n";
    auto num = [](double v) {
      char b[32];
      std::snprintf(b, sizeof b, "%.6f", v);
      return std::string(b);
    };
    auto line = [&](const char* section, const TransferParams& p, const std::string& row,
                    const double* ph, double wall, const char* source, const std::string& ok) {
      csv += std::string(section) + "," + transferOp(p.op).id + "," + std::to_string(p.work) + "," +
             std::to_string(p.n) + "," + std::to_string(p.calls) + "," + std::to_string(p.streams) +
             "," + std::to_string(p.chunksPerStream) + "," + std::to_string(p.chain) + "," + row +
             "," + (ph ? num(ph[0]) : "") + "," + (ph ? num(ph[1]) : "") + "," +
             (ph ? num(ph[2]) : "") + "," + num(wall) + "," + source + "," + ok + "\n";
    };
    auto params = [](const TransferParams& p) {
      return nlohmann::json{{"kernel", transferOp(p.op).id},
                            {"work", p.work},
                            {"n", p.n},
                            {"calls", p.calls},
                            {"streams", p.streams},
                            {"chunks_per_stream", p.chunksPerStream},
                            {"chain", p.chain}};
    };
    auto okText = [](bool modelled, const Correctness& c) {
      return modelled ? std::string() : std::string(c.ok() ? "1" : "0");
    };
    const char* gpuSource = gpu_ ? "measured" : "model";
    if (modes_) {
      const ModesReport& r = *modes_;
      j["modes"]["params"] = params(r.p);
      for (int m = 0; m < kModeCount; ++m) {
        const ModeResult& x = r.modes[static_cast<size_t>(m)];
        const char* id = transferModes()[static_cast<size_t>(m)].id;
        line("modes", r.p, id, x.phases.data(), x.wallMs, r.modelled ? "model" : gpuSource,
             okText(r.modelled, x.check));
        j["modes"]["rows"][id] = {{"h2d_ms", x.phases[0]},
                                  {"kernel_ms", x.phases[1]},
                                  {"d2h_ms", x.phases[2]},
                                  {"wall_ms", x.wallMs},
                                  {"model_wall_ms", x.predicted.wallMs},
                                  {"source", r.modelled ? "model" : "measured"}};
        if (!r.modelled) j["modes"]["rows"][id]["correct"] = x.check.ok();
      }
      line("modes", r.p, "cpu_1_thread", nullptr, r.cpu.oneThreadMs, "measured",
           okText(false, r.cpu.check));
      line("modes", r.p, "cpu_all_cores", nullptr, r.cpu.allCoresMs, "measured",
           okText(false, r.cpu.check));
      j["modes"]["cpu"] = {{"one_thread_ms", r.cpu.oneThreadMs},
                           {"all_cores_ms", r.cpu.allCoresMs},
                           {"threads", r.cpu.threads},
                           {"timed_elements", r.cpu.timedElements},
                           {"correct", r.cpu.check.ok()}};
    }
    if (!sweep_.empty()) j["sweep"]["params"] = params(sweepParams_);
    for (const SizePoint& pt : sweep_) {
      TransferParams p = sweepParams_;
      p.n = pt.n;
      nlohmann::json row = {{"n", pt.n},
                            {"source", pt.modelled ? "model" : "measured"},
                            {"cpu_1_thread_ms", pt.cpu.oneThreadMs},
                            {"cpu_all_cores_ms", pt.cpu.allCoresMs}};
      for (int m = 0; m < kModeCount; ++m) {
        const char* id = transferModes()[static_cast<size_t>(m)].id;
        row[std::string(id) + "_ms"] = pt.modeMs[static_cast<size_t>(m)];
        line("sweep", p, id, nullptr, pt.modeMs[static_cast<size_t>(m)],
             pt.modelled ? "model" : "measured",
             pt.modelled ? "" : (pt.modeOk[static_cast<size_t>(m)] ? "1" : "0"));
      }
      line("sweep", p, "cpu_1_thread", nullptr, pt.cpu.oneThreadMs, "measured",
           okText(false, pt.cpu.check));
      line("sweep", p, "cpu_all_cores", nullptr, pt.cpu.allCoresMs, "measured",
           okText(false, pt.cpu.check));
      j["sweep"]["rows"].push_back(row);
    }
    if (chain_) {
      const ChainReport& c = *chain_;
      j["chain"]["params"] = params(c.p);
      for (const auto& [id, x] :
           {std::pair<const char*, const ModeResult*>{"round_trips", &c.trips},
            {"on_device", &c.resident}}) {
        line("chain", c.p, id, x->phases.data(), x->wallMs, c.modelled ? "model" : "measured",
             okText(c.modelled, x->check));
        j["chain"]["rows"][id] = {{"h2d_ms", x->phases[0]},
                                  {"kernel_ms", x->phases[1]},
                                  {"d2h_ms", x->phases[2]},
                                  {"wall_ms", x->wallMs},
                                  {"copies", x->h2dCopies + x->d2hCopies}};
      }
    }
    if (link_) {
      const LinkModel& m = link_->model;
      j["link"] = {{"source", link_->measured ? "measured" : m.source},
                   {"h2d_pinned_gbps", m.h2dPinnedGBps},
                   {"d2h_pinned_gbps", m.d2hPinnedGBps},
                   {"h2d_pageable_gbps", m.h2dPageableGBps},
                   {"d2h_pageable_gbps", m.d2hPageableGBps},
                   {"device_copy_gbps", m.deviceGBps}};
      if (link_->pcie) j["link"]["pcie"] = link_->pcie->describe();
    }
    if (!device_.empty()) j["device"] = device_;
    LessonResults out;
    out.json = std::move(j);
    out.csv = std::move(csv);
    return out;
  }

  bool gpu_ = false;
  std::string device_;
  TransferParams p_;
  std::vector<std::string> queue_;  // actions to start one after another (first show)
  int timelineMode_ = static_cast<int>(TransferMode::Streams);
  bool showModel_ = false;
  Status error_, sweepError_;

  AsyncJob<LinkReport> linkJob_;
  AsyncJob<ModesReport> modesJob_;
  AsyncJob<SweepSummary, SizePoint> sweepJob_;
  AsyncJob<ChainReport> chainJob_;
  std::optional<LinkReport> link_;
  std::optional<ModesReport> modes_;
  std::optional<ChainReport> chain_;
  std::vector<SizePoint> sweep_;
  TransferParams sweepParams_;
};

}  // namespace

std::unique_ptr<Lesson> makeTransfersLesson() {
  return std::make_unique<TransfersLesson>();
}

}  // namespace cudalab
