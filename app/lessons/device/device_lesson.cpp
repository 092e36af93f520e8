// Lesson "device": the GPU as the CUDA runtime describes it.
//
// [SECTION] index
//   lesson text and the lesson object
//   parameters panel: device, copy sizes, measure / cancel
//   main view: summary, derived peaks, measured bandwidth, property groups, architecture table
#include "core/i18n.hpp"
#include "lessons/device/device_lesson.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/async_job.hpp"
#include "device/device_bandwidth.hpp"
#include "device/device_query.hpp"
#include "models/arch.hpp"
#include "ui/data_table.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace device;

// [SECTION] lesson text and the lesson object

const LessonInfo kDeviceLessonInfo{
    "device", N_("Your GPU"), N_("course file 002: querying the device through PyCUDA"),
    N_("What the CUDA runtime reports about each GPU, the peak speeds that follow from it, and how "
       "fast copies really are, measured now. Hover over any name to see what it means.")};

namespace {

const char* kWhyMeasure =
    N_("The peaks are what the hardware could do at best. The measurement copies real buffers and "
       "times them with CUDA events: device memory is usually 20-100 times faster than the link "
       "to the host, which is why data should stay on the GPU between kernels.");

class DeviceLesson final : public Lesson {
 public:
  DeviceLesson()
      : Lesson(kDeviceLessonInfo, kDeviceParams, variantRows(copyVariants(), &CopyVariant::id)) {
    declareActions({jobAction("measure", N_("Measure"), kWhyMeasure, measure_,
                              [this] { return startMeasure(); })});
  }
  std::vector<ParamBinding> bindings() override {
    return {bindParam(kDeviceCopyMiB, params_.deviceCopyMiB),
            bindParam(kHostCopyMiB, params_.hostCopyMiB),
            bindParam(kBandwidthRepetitions, params_.repetitions)};
  }
  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (report_)
      for (const CopyResult& c : report_->results) {
        const CopyVariant& v = copyVariant(c.kind);
        rows.push_back({v.id,
                        v.label,
                        {{"GB/s", c.gbpsMedian, "GB/s", true}, {"ms", c.msMedian, "ms", false}}});
      }
    return rows;
  }

  bool otherWorkPending() const override { return query_.pending() || autoMeasure_; }

  void onShow(LessonContext& ctx) override {
    if (!ctx.runtime.hasDevice()) return;
    // The first CUDA call creates a context, which can take a noticeable fraction of a second:
    // that happens on the worker, never on the UI thread.
    query_.start([](AsyncJob<std::vector<DeviceInfo>>::Control& c) {
      c.progress(0.0f, N_("querying devices"));
      return queryDevices();
    });
    autoMeasure_ = true;
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    if (!ctx.runtime.hasDevice()) {
      mutedText(ctx.theme, "Nothing to measure without a GPU.");
      return;
    }
    if (devices_.size() > 1) {
      std::vector<std::string> names;
      for (const DeviceInfo& d : devices_)
        names.push_back(std::to_string(d.index) + ": " + d.name);
      if (beginCombo(tr("Device"), names[static_cast<size_t>(selected_)].c_str())) {
        for (size_t i = 0; i < names.size(); ++i)
          if (ImGui::Selectable(names[i].c_str(), static_cast<int>(i) == selected_)) {
            selected_ = static_cast<int>(i);
            report_.reset();
          }
        ImGui::EndCombo();
      }
    }
    ImGui::TextUnformatted(tr("Copy bandwidth measurement"));
    paramSlider(kDeviceCopyMiB, params_.deviceCopyMiB);
    paramSlider(kHostCopyMiB, params_.hostCopyMiB);
    paramSlider(kBandwidthRepetitions, params_.repetitions);

    const Status valid = validate(params_, currentFreeBytes());
    if (!valid) {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
      textWrapped("%s", trStatus(valid).c_str());
      ImGui::PopStyleColor();
    }
    if (working()) {
      workProgress(*this);
    } else {
      ImGui::BeginDisabled(!valid || devices_.empty());
      actionButton(action("measure"));
      ImGui::EndDisabled();
    }
    ImGui::Spacing();
    mutedText(ctx.theme,
              "The copies run on a worker thread with their own CUDA stream; the window keeps "
              "drawing while they run.");
  }

  // [SECTION] main view

  void drawMain(LessonContext& ctx) override {
    if (!ctx.runtime.hasDevice()) {
      if (beginPanel(ctx, "no_device", "Without a GPU")) {
        textWrapped(
            "Without a GPU this lesson cannot list device properties or measure copies. What still "
            "works: the architecture table below, and in the other lessons the CPU references and "
            "the analytic models, each labelled as such.");
      }
      endPanel(ctx);
      drawArchTable(ctx, 0, 0, true);
      return;
    }
    if (devices_.empty()) {
      if (query_.running())
        ImGui::TextUnformatted(tr("Asking the CUDA runtime about the devices..."));
      if (!queryError_.ok()) drawError(ctx, queryError_);
      return;
    }
    const DeviceInfo& d = devices_[static_cast<size_t>(selected_)];
    drawSummary(ctx, d);
    drawPeaks(ctx, d);
    drawBandwidth(ctx, d);
    for (size_t g = 0; g < d.groups.size(); ++g)
      drawGroup(ctx, d.groups[g], g < 3);
    drawArchTable(ctx, d.major, d.minor, false);
  }

 private:
  size_t currentFreeBytes() const {
    if (devices_.empty()) return 0;
    return devices_[static_cast<size_t>(selected_)].freeGlobalMem;
  }

  bool startMeasure() {
    if (devices_.empty() || measure_.running()) return false;
    report_.reset();
    measureError_ = Status{};
    const int dev = devices_[static_cast<size_t>(selected_)].index;
    const BandwidthParams p = params_;
    measure_.start([dev, p](AsyncJob<BandwidthReport>::Control& c) {
      return measureBandwidth(dev, p, c.cancelFlag(),
                              [&c](float f, const char* what) { c.progress(f, what); });
    });
    return true;
  }

  // Collects finished work; runs on the UI thread, never blocks.
  void poll(LessonContext& ctx) {
    if (auto r = query_.take()) {
      if (r->ok()) {
        devices_ = std::move(r->value());
        if (devices_.empty()) queryError_ = Status::error(N_("The CUDA runtime lists no device."));
      } else {
        queryError_ = r->status();
        ctx.error(queryError_);
      }
      if (autoMeasure_ && !devices_.empty()) {
        // Shrink the default copies to fit a small GPU, so the first look always has numbers.
        const double freeMiB = static_cast<double>(currentFreeBytes()) / (1 << 20);
        params_.deviceCopyMiB = std::min(params_.deviceCopyMiB, std::floor(freeMiB / 4));
        params_.hostCopyMiB = std::min(params_.hostCopyMiB, std::floor(freeMiB / 4));
        if (validate(params_, currentFreeBytes())) startMeasure();
      }
      autoMeasure_ = false;
    }
    if (auto r = measure_.take()) {
      if (r->ok()) {
        report_ = std::move(r->value());
        ctx.info(trf("Measured copy bandwidths on device %d.", report_->device));
      } else {
        measureError_ = r->status();
        ctx.error(measureError_);
      }
    }
  }

  static void drawError(LessonContext& ctx, const Status& s) { errorText(ctx.theme, s); }

  void drawSummary(LessonContext& ctx, const DeviceInfo& d) {
    ImGui::PushFont(ctx.theme.fonts().heading);
    ImGui::Text("%s", d.name.c_str());
    ImGui::PopFont();
    const std::string cc = computeCapabilityString(d.major, d.minor);
    const std::string cores =
        d.arch ? trf("%d SMs x %d FP32 cores = %d CUDA cores", d.sms, d.arch->fp32CoresPerSM,
                     d.sms * d.arch->fp32CoresPerSM)
               : trf("%d SMs (cores per SM unknown for this compute capability)", d.sms);
    textWrapped("Compute capability %s (%s)  |  %s  |  %.1f GiB", cc.c_str(),
                d.arch ? d.arch->family : tr("unknown architecture"), cores.c_str(),
                static_cast<double>(d.totalGlobalMem) / (1ull << 30));
  }

  void drawPeaks(LessonContext& ctx, const DeviceInfo& d) {
    if (beginPanel(ctx, "peaks", "Theoretical peaks (derived from the numbers below)")) {
      // The formula (the longest cell) gives way first on a projector.
      static const TableColumn kColumns[] = {{"What"}, {"Peak"}, {"Formula", nullptr, 1}};
      if (beginDataTable("peaks", kColumns, 3)) {
        struct Row {
          const char* what;
          const Peak& peak;
          const char* help;
        };
        const Row rows[] = {
            {N_("Memory bandwidth"), d.bandwidth,
             N_("Bytes per second device memory can deliver: two transfers per clock (double data "
                "rate) on a bus this many bits wide. Memory-bound kernels are judged against it.")},
            {N_("FP32 throughput"), d.fp32,
             N_("Single-precision operations per second if every FP32 core did one fused "
                "multiply-add (2 operations) every clock. Compute-bound kernels are judged against "
                "it.")},
            {N_("FP64 throughput"), d.fp64,
             N_("The same for double precision. Data-centre GPUs have half the FP32 rate; gaming "
                "GPUs often 1/32 or 1/64, which is why GPU code prefers float32.")},
        };
        for (const Row& r : rows) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(tr(r.what));
          helpTooltip(r.help);
          ImGui::TableNextColumn();
          ImGui::PushFont(ctx.theme.fonts().mono);
          if (r.peak.known)
            ImGui::Text("%10.1f %s", r.peak.value, r.peak.unit);
          else
            ImGui::TextUnformatted(tr("unknown"));
          ImGui::PopFont();
          ImGui::TableNextColumn();
          // One line: the table sizes the column to it (and hides or scrolls it when too wide).
          ImGui::TextUnformatted(r.peak.formula.c_str());
        }
        endDataTable();
      }
    }
    endPanel(ctx);
  }

  void drawBandwidth(LessonContext& ctx, const DeviceInfo& d) {
    if (beginPanel(ctx, "bandwidth", "Measured copy bandwidth (CUDA events, median)")) {
      if (measure_.running()) {
        const JobProgress p = measure_.progress();
        ImGui::ProgressBar(p.fraction, ImVec2(-1, 0), tr(p.what).c_str());
      } else if (!measureError_.ok()) {
        drawError(ctx, measureError_);
      } else if (!report_ || report_->device != d.index) {
        textWrapped(tr("Press Measure in the parameters to time the copies."));
      } else {
        const BandwidthParams& m = report_->params;
        staleNote(ctx.theme,
                  m.deviceCopyMiB != params_.deviceCopyMiB ||
                      m.hostCopyMiB != params_.hostCopyMiB || m.repetitions != params_.repetitions,
                  actionLabel("measure"));
        drawBars(ctx, d, *report_);
      }
      mutedText(ctx.theme, kWhyMeasure);
    }
    endPanel(ctx);
  }

  static void drawBars(LessonContext& ctx, const DeviceInfo& d, const BandwidthReport& rep) {
    double top = d.bandwidth.known ? d.bandwidth.value : 0.0;
    for (const CopyResult& r : rep.results)
      top = std::max(top, r.gbpsMedian);
    if (!(top > 0)) top = 1;
    const float s = ctx.scale;
    const float labelW = 230 * s, valueW = 330 * s;
    const float barW = std::max(60 * s, ImGui::GetContentRegionAvail().x - labelW - valueW);
    const float barH = ImGui::GetTextLineHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    int colour = 0;
    float barsX0 = -1, barsY0 = 0, barsY1 = 0;
    for (const CopyResult& r : rep.results) {
      const CopyVariant& v = copyVariant(r.kind);
      ImGui::TextUnformatted(tr(v.label));
      helpTooltip(v.help);
      ImGui::SameLine(labelW);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      if (barsX0 < 0) {
        barsX0 = p.x;
        barsY0 = p.y;
      }
      barsY1 = p.y + barH;
      dl->AddRectFilled(p, ImVec2(p.x + barW, p.y + barH), ImGui::GetColorU32(ImGuiCol_FrameBg));
      const float w = static_cast<float>(r.gbpsMedian / top) * barW;
      dl->AddRectFilled(p, ImVec2(p.x + w, p.y + barH), paletteColour(colour++));
      ImGui::Dummy(ImVec2(barW, barH));
      ImGui::SameLine();
      ImGui::PushFont(ctx.theme.fonts().mono);
      const double pct = d.bandwidth.known ? 100.0 * r.gbpsMedian / d.bandwidth.value : NAN;
      if (r.kind == CopyKind::DeviceToDevice && d.bandwidth.known)
        ImGui::Text(tr("%8.1f GB/s  (%.0f%% of peak)"), r.gbpsMedian, pct);
      else
        ImGui::Text(tr("%8.1f GB/s  (%.3f ms)"), r.gbpsMedian, r.msMedian);
      ImGui::PopFont();
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(tr("%zu MiB per copy; median %.3f ms, min %.3f ms, max %.3f ms"),
                          r.bytes >> 20, r.msMedian, r.msMin, r.msMax);
      }
    }
    if (d.bandwidth.known && barsX0 >= 0) {
      // The theoretical device-memory peak on the same scale, as a dashed reference line.
      const float x = barsX0 + static_cast<float>(d.bandwidth.value / top) * barW;
      const ImU32 c = ImGui::GetColorU32(ImGuiCol_Text);
      for (float y = barsY0; y < barsY1; y += 6 * s)
        dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 3 * s, barsY1)), c, std::max(1.0f, s));
      ImGui::SetCursorScreenPos(ImVec2(barsX0, ImGui::GetCursorScreenPos().y));
      ImGui::TextDisabled(tr("dashed line: theoretical device memory peak, %.0f GB/s"),
                          d.bandwidth.value);
    }
    const CopyResult* d2d = nullptr;
    const CopyResult* h2d = nullptr;
    for (const CopyResult& r : rep.results) {
      if (r.kind == CopyKind::DeviceToDevice) d2d = &r;
      if (r.kind == CopyKind::HostToDevicePinned) h2d = &r;
    }
    if (d2d && h2d && h2d->gbpsMedian > 0) {
      textWrapped(
          "Conclusion: on this machine device memory moves data %.0f times faster than the best "
          "host-to-device copy. A kernel that reads its input once cannot make up for copying it "
          "there first; keep data on the device across kernels.",
          d2d->gbpsMedian / h2d->gbpsMedian);
    }
  }

  static void drawGroup(LessonContext& ctx, const PropertyGroup& g, bool open) {
    const std::string id = "group_" + groupKey(g.title);
    if (beginPanel(ctx, id.c_str(), g.title.c_str(),
                   kPanelCollapsible | (open ? kPanelNone : kPanelClosed))) {
      static const TableColumn kColumns[] = {{"Property"}, {"Value"}};
      if (beginDataTable(id.c_str(), kColumns, static_cast<int>(g.properties.size()))) {
        for (const DeviceProperty& p : g.properties) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(tr(p.label).c_str());
          helpTooltip(p.help.c_str());
          ImGui::TableNextColumn();
          // Words among the values ("yes", "not reported") are marked in the kernels' table;
          // numbers and names have no entry and stay as they are.
          const std::string value = tr(p.value);
          ImGui::PushFont(value == p.value ? ctx.theme.fonts().mono : ImGui::GetFont());
          ImGui::TextUnformatted(value.c_str());
          ImGui::PopFont();
          helpTooltip(p.help.c_str());
        }
        endDataTable();
      }
    }
    endPanel(ctx);
  }

  static void drawArchTable(LessonContext& ctx, int major, int minor, bool open) {
    if (beginPanel(ctx, "architectures", "CUDA cores per SM, by compute capability",
                   kPanelCollapsible | (open ? kPanelNone : kPanelClosed))) {
      mutedText(ctx.theme,
                "The runtime reports the number of SMs but not how many cores each has: that "
                "depends on the architecture, so tools keep a table like this one.");
      static const TableColumn kColumns[] = {
          {"compute capability", "CC"},
          {"Architecture"},
          {"FP32 cores per SM", "FP32 cores/SM"},
          {"FP64 : FP32", nullptr, 1, "float64 throughput against float32's."},
          {"Examples", nullptr, 2},
      };
      if (beginDataTable("arch", kColumns, static_cast<int>(archTable().size()))) {
        for (const ArchInfo& a : archTable()) {
          ImGui::TableNextRow();
          if (a.major == major && a.minor == minor)
            ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, paletteColour(4, 0.35f));
          ImGui::TableNextColumn();
          ImGui::Text("%d.%d", a.major, a.minor);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(a.family);
          ImGui::TableNextColumn();
          ImGui::Text("%d", a.fp32CoresPerSM);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(fp64RatioText(a).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(tr(a.examples));  // product names, or a marked sentence
        }
        endDataTable();
      }
    }
    endPanel(ctx);
  }

  AsyncJob<std::vector<DeviceInfo>> query_;
  AsyncJob<BandwidthReport> measure_;
  std::vector<DeviceInfo> devices_;
  int selected_ = 0;
  bool autoMeasure_ = false;
  BandwidthParams params_;
  std::optional<BandwidthReport> report_;
  Status queryError_, measureError_;
};

}  // namespace

const LessonEntry kDeviceLesson{&kDeviceLessonInfo, &makeLesson<DeviceLesson>, kDeviceBenches};

}  // namespace cudalab
