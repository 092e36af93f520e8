// Lesson "transfers": when the GPU pays off, and where the time goes.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: kernel, N, calls, streams, chain; the four measurements
//   main view: modes (stacked bars and table), timeline, size sweep, chain, link bandwidth
//   (the modes and the timeline: transfers_modes_panel.cpp; the size sweep, the chain and the
//   link: transfers_sweep_panel.cpp)
//   work on the worker thread: link, modes, sweep, chain (GPU, or CPU plus model without one)
//   export
#include "core/i18n.hpp"
#include "lessons/transfers/transfers_lesson.hpp"
#include "lessons/transfers/transfers_modes_panel.hpp"
#include "lessons/transfers/transfers_sweep_panel.hpp"

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
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace device;
using namespace transfers;

// [SECTION] lesson text, jobs and their results

const LessonInfo kTransfersLessonInfo{
    "transfers", N_("Transfers: when the GPU pays off"),
    N_("course files 000 and 003: copies to and from the GPU, explicit device arrays, chained "
       "kernels"),
    N_("The same element-wise kernel with its data copied in and out around every call, kept on "
       "the device, from pinned memory, or in chunks over several streams so copies overlap "
       "kernels; the CPU doing the same work; where the GPU starts to pay off.")};

namespace {

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionModes = "modes", *kActionSweep = "sweep", *kActionChain = "chain",
                     *kActionLink = "link";

struct SweepSummary {
  int points = 0;
};

double toD(long long v) {
  return static_cast<double>(v);
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

TransfersModeResult fromRun(const PlanRun& r, const Plan& plan, const TransferParams& p,
                            const LinkModel& link) {
  TransfersModeResult m;
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

TransfersModeResult fromModel(const Plan& plan, const TransferParams& p, const LinkModel& link) {
  TransfersModeResult m;
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
  TransfersLesson()
      : Lesson(kTransfersLessonInfo, kTransferParams,
               variantRows(transferModes(), &TransferModeInfo::id)) {
    declareActions({
        jobAction(
            kActionModes, N_("Measure all modes"),
            N_("Runs the kernel `calls` times in every transfer mode, 5 times after a warm-up, "
               "with a CUDA event around every copy and kernel; poisons the output first and "
               "checks every element against a float64 CPU reference. Then the CPU does the same "
               "work."),
            modesJob_, [this] { return !working() && startModes(); }, {},
            [this] {
              return gpu_ ? action(kActionModes).help
                          : N_("Without a GPU: every transfer mode from the model of the copy "
                               "engines, and the CPU doing the same work, measured and checked "
                               "against a float64 reference.");
            }),
        jobAction(kActionSweep, N_("Sweep sizes up to N"),
                  N_("Every mode and the CPU at N = 2^10, 2^12, ... up to the chosen N: where does "
                     "the GPU start to pay off?"),
                  sweepJob_, [this] { return !working() && startSweep(); }),
        jobAction(kActionChain, N_("Chain of k kernels"),
                  N_("The course's foo (x * 2), bar (x + 1) and baz (x * x), k of them in a row, "
                     "with a round trip through the host around each, and without."),
                  chainJob_, [this] { return !working() && startChain(); }),
        jobAction(
            kActionLink, N_("Measure link bandwidth"),
            N_("Pageable and pinned copies both ways, and a device-to-device copy: the ceilings "
               "drawn on the charts."),
            linkJob_, [this] { return !working() && startLink(); }, {},
            [this] {
              return gpu_ ? action(kActionLink).help
                          : N_("Needs a GPU: without one the charts use an H200's measured "
                               "bandwidths.");
            }),
    });
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

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    device_ = gpu_ ? ctx.runtime.firstDeviceName : std::string();
    // The ceilings first (a second on a GPU, at once without one), then the modes at the
    // default size, so the lesson opens with something measured.
    // Then the size sweep and the chain, so the lesson opens with every chart drawn.
    startLink();
    queueActions({kActionModes, kActionSweep, kActionChain});
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    ImGui::TextUnformatted(tr("Kernel"));
    for (const TransferOpInfo& o : transferOps()) {
      if (radioButton(o.label, p_.op == o.op)) p_.op = o.op;
      helpTooltip((std::string(tr(o.formula)) + "\n\n" + tr(o.help)).c_str());
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
    mutedText(ctx.theme, trf("Needs %s on the device, twice that on the host.",
                             plot::formatValue(toD(static_cast<long long>(bytes)) / 2, "B").c_str())
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
    actionButton(action(kActionModes));
    actionButton(action(kActionSweep));
    actionButton(action(kActionChain));
    ImGui::EndDisabled();
    runButtons(ctx, *this, {{kActionLink, true}});
    exportButtons(ctx, *this, {.enabled = modes_ || !sweep_.empty()});
    helpTooltip("Saves the modes' phases and the size sweep.");
  }

  // [SECTION] main view

  void drawMain(LessonContext& ctx) override {
    drawTransfersModes(ctx, modes_, p_, source());
    if (modes_) drawTransfersTimeline(ctx, *modes_, timelineMode_, showModel_);
    drawTransfersSweep(
        ctx,
        {sweep_, sweepParams_,
         sweepJob_.running() ? std::optional(sweepJob_.progress()) : std::nullopt, sweepError_},
        timelineMode_, source());
    if (chain_) drawTransfersChain(ctx, *chain_, source());
    if (link_) drawTransfersLink(ctx, *link_);
  }

 private:
  // What the numbers come from, for the panels' titles: the GPU's name, or the model.
  const char* source() const { return gpu_ ? device_.c_str() : tr("model, no GPU"); }

  // [SECTION] work on the worker thread

  bool startLink() {
    const bool gpu = gpu_;
    return linkJob_.start(
        [gpu](AsyncJob<TransfersLinkReport>::Control& c) -> Result<TransfersLinkReport> {
          TransfersLinkReport r;
          r.model = referenceLink();
          if (!gpu) return r;
          c.progress(0.1f, N_("measuring copy bandwidth"));
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
          r.model.source = N_("model: copy bandwidths measured on this GPU just now");
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
        [p, gpu, link](AsyncJob<TransfersModesReport>::Control& c) -> Result<TransfersModesReport> {
          TransfersModesReport r;
          r.p = p;
          r.link = link;
          r.modelled = !gpu;
          const auto modes = transferModes();
          std::unique_ptr<TransferSession> session;
          if (gpu) {
            // Without the number: the progress bar translates a fixed phrase (N is on the panel).
            c.progress(0.02f, N_("allocating and filling the arrays"));
            auto s = TransferSession::create(p, 20261121u);
            if (!s) return s.status();
            session = std::move(*s);
          }
          for (int m = 0; m < kTransferModeCount; ++m) {
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
          c.progress(0.8f, N_("the CPU doing the same work"));
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
        [p, gpu, link](AsyncJob<TransfersChainReport>::Control& c) -> Result<TransfersChainReport> {
          TransfersChainReport r;
          r.p = p;
          r.modelled = !gpu;
          const Plan trips = planChain(p, true), resident = planChain(p, false);
          if (!gpu) {
            r.trips = fromModel(trips, p, link);
            r.resident = fromModel(resident, p, link);
            return r;
          }
          c.progress(0.1f, N_("allocating"));
          TransferParams one = p;
          one.op = TransferOp::Double;  // the chain reads x only
          auto s = TransferSession::create(one, 7u);
          if (!s) return s.status();
          const bool large = p.n > (1LL << 24);
          const RunOptions opt{1, large ? 3 : 5, !large};
          c.progress(0.3f, N_("round trips"));
          Result<PlanRun> a = (*s)->run(trips, opt, c.cancelFlag());
          if (!a) return a.status();
          c.progress(0.7f, N_("on the device"));
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
      const TransfersModesReport& r = *modes_;
      j["modes"]["params"] = params(r.p);
      for (int m = 0; m < kTransferModeCount; ++m) {
        const TransfersModeResult& x = r.modes[static_cast<size_t>(m)];
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
      for (int m = 0; m < kTransferModeCount; ++m) {
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
      const TransfersChainReport& c = *chain_;
      j["chain"]["params"] = params(c.p);
      for (const auto& [id, x] :
           {std::pair<const char*, const TransfersModeResult*>{"round_trips", &c.trips},
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
    return {.json = std::move(j), .csv = std::move(csv)};
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (!modes_) return rows;
    for (int m = 0; m < kTransferModeCount; ++m) {
      const TransfersModeResult& x = modes_->modes[static_cast<size_t>(m)];
      const TransferModeInfo& info = transferModes()[static_cast<size_t>(m)];
      rows.push_back({info.id,
                      info.label,
                      {{"wall ms", x.wallMs, "ms", false},
                       {"host to device ms", x.phases[0], "ms", false},
                       {"kernel ms", x.phases[1], "ms", false},
                       {"device to host ms", x.phases[2], "ms", false}}});
    }
    rows.push_back({"cpu_1_thread",
                    N_("CPU, one thread"),
                    {{"wall ms", modes_->cpu.oneThreadMs, "ms", false}}});
    rows.push_back({"cpu_all_cores",
                    N_("CPU, all cores"),
                    {{"wall ms", modes_->cpu.allCoresMs, "ms", false}}});
    return rows;
  }

  bool gpu_ = false;
  std::string device_;
  TransferParams p_;
  int timelineMode_ = static_cast<int>(TransferMode::Streams);
  bool showModel_ = false;
  Status sweepError_;

  AsyncJob<TransfersLinkReport> linkJob_;
  AsyncJob<TransfersModesReport> modesJob_;
  AsyncJob<SweepSummary, SizePoint> sweepJob_;
  AsyncJob<TransfersChainReport> chainJob_;
  std::optional<TransfersLinkReport> link_;
  std::optional<TransfersModesReport> modes_;
  std::optional<TransfersChainReport> chain_;
  std::vector<SizePoint> sweep_;
  TransferParams sweepParams_;
};

}  // namespace

const LessonEntry kTransfersLesson{&kTransfersLessonInfo, &makeLesson<TransfersLesson>,
                                   kTransfersBenches};

}  // namespace cudalab
