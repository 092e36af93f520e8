// Lesson "launch-config": which thread writes which element, and what the launch costs.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: variant switches, sizes, colouring, display path, run and sweeps
//   main view: picture (through CUDA-OpenGL interop, or the CPU model)
//   (the launch in numbers: launch_config_numbers_panel.cpp; timing and sweeps:
//   launch_config_timing_panel.cpp)
//   work on the worker thread: picture, measurement, sweeps
#include "core/i18n.hpp"
#include "lessons/launch_config/launch_config_lesson.hpp"
#include "lessons/launch_config/launch_config_counters_panel.hpp"
#include "lessons/launch_config/launch_config_numbers_panel.hpp"
#include "lessons/launch_config/launch_config_timing_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "common/async_job.hpp"
#include "common/cuda_raii.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "launch_config/launch_config.hpp"
#include "launch_config/launch_picture.hpp"
#include "platform/interop.hpp"
#include "platform/shader_pass.hpp"
#include "platform/gl.hpp"
#include "shaders.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace launch_config;

// [SECTION] lesson text, jobs and their results

const LessonInfo kLaunchConfigLessonInfo{
    "launch-config", N_("Launch configuration"),
    N_("course files 003 and 004: kernels, grids and blocks, grid-stride loops"),
    N_("A kernel doubles N numbers. Choose how many threads per block and how many blocks, 1D or "
       "2D, "
       "with or without the bounds guard and the grid-stride loop, then see which thread wrote "
       "each "
       "element, which were never written, and how long it took.")};

namespace {

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionRun = "run", *kSweepThreads = "sweep-threads",
                     *kSweepBlocks = "sweep-blocks", *kActionCounters = "counters";

constexpr const char* kColourByIds[] = {"block", "warp", "thread", "writes"};

// The lesson starts small, like the course's first add_kernel (4096 elements), so single blocks
// and warps are visible in the picture (in 2D a 64 x 64 picture); the 30 million doubling is one
// click away. Its N and width are the kernels' specs with these defaults.
constexpr ParamSpec withDefault(const ParamSpec& p, double v) {
  ParamSpec d = p;
  d.defaultValue = v;
  return d;
}
constexpr ParamSpec kStartN = withDefault(kLaunchN, 4096);
constexpr ParamSpec kStartWidth = withDefault(kLaunchWidth, 64);

// What the worker hands back for the picture: device arrays (GPU) or keys (CPU model).
struct PictureResult {
  LaunchConfig config;
  LaunchShape shape;
  PictureLayout layout;
  std::unique_ptr<DeviceOwnership> device;  // GPU: owner and write counts stay on the device
  std::optional<OwnershipMap> model;        // no GPU: the CPU model...
  std::vector<std::uint32_t> modelKeys[4];  // ...and its picture for each ColourBy, made on the
                                            // worker so changing the colouring never stalls a frame
  int blocksPerSM = 0;
  bool blocksPerSMFromGpu = false;
};

struct SweepSummary {
  int points = 0;
};

double toD(long long v) {
  return static_cast<double>(v);
}

class LaunchConfigLesson final : public Lesson {
 public:
  LaunchConfigLesson()
      : Lesson(kLaunchConfigLessonInfo, kLaunchParams,
               variantRows(launchVariants(), &LaunchVariant::id)) {
    cfg_.n = static_cast<long long>(kStartN.defaultValue);
    cfg_.width = static_cast<long long>(kStartWidth.defaultValue);
    declareActions({
        jobAction(kActionRun, N_("Run and time"),
                  N_("Copies the input to the GPU, runs the kernel and copies the result back, 10 "
                     "times after 2 warm-ups, each phase timed with CUDA events; every run's "
                     "output is poisoned first and checked element by element against the CPU."),
                  measureJob_, [this] { return ready() && startMeasure(); }),
        jobAction(kSweepThreads, N_("Sweep threads per block"),
                  N_("Kernel time for 32, 64, ... 1024 threads per block, blocks automatic."),
                  sweepJob_, [this] { return ready() && launchSweep(kSweepThreads); }),
        jobAction(kSweepBlocks, N_("Sweep blocks (grid-stride)"),
                  N_("Kernel time for 1, 2, 4, ... blocks with a grid-stride loop; the course's "
                     "2-4 blocks per SM are marked."),
                  sweepJob_, [this] { return ready() && launchSweep(kSweepBlocks); }),
        jobAction(kActionCounters, N_("Read the counters"),
                  N_("Runs your launch, and the same work at 32 to 1024 threads per block, once "
                     "more under the profiler (CUPTI, the library Nsight Compute uses) and reads "
                     "what the hardware counted. Profiling replays kernels: these runs are "
                     "separate from the timed ones."),
                  counters_, [this] { return ready() && counters_.start(cfg_); }),
    });
  }
  bool animating() const override { return animate_; }
  bool otherWorkPending() const override {
    return limitsJob_.pending() || pictureJob_.pending() || pictureDirty_;
  }
  void cancelOtherWork() override { pictureJob_.cancel(); }
  std::vector<ParamBinding> bindings() override {
    auto changed = [this] { onConfigChanged(); };
    std::vector<std::string> variants;
    for (const LaunchVariant& lv : launchVariants())
      variants.push_back(lv.id);
    std::vector<std::pair<std::string, ColourBy>> colours;
    for (int i = 0; i < 4; ++i)
      colours.emplace_back(kColourByIds[i], static_cast<ColourBy>(i));
    return {
        bindChoiceBy(
            kVariantChoice, std::move(variants),
            [this] {
              const auto all = launchVariants();
              return static_cast<int>(&variantOf(cfg_) - all.data());
            },
            [this](int i) { cfg_ = withVariant(cfg_, launchVariants()[size_t(i)]); }, changed),
        bindParam(kStartN, cfg_.n, changed),
        bindParam(kLaunchThreadsPerBlock, cfg_.threadsPerBlock, changed),
        bindParam(kLaunchBlocks, cfg_.blocks, changed),
        bindParam(kLaunchBlocksY, cfg_.blocksY, changed),
        bindParam(kStartWidth, cfg_.width, changed),
        bindToggle(kAutoBlocksChoice, cfg_.autoBlocks, changed),
        bindChoice(kColourByChoice, colourBy_, std::move(colours), [this] { keysDirty_ = true; })};
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    if (gpu_) {
      limitsJob_.start([](AsyncJob<DeviceLimits>::Control&) { return queryLimits(0); });
    } else {
      pictureDirty_ = true;  // the CPU model can draw at once
    }
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    bool changed = false;
    const LaunchVariant& v = variantOf(cfg_);
    ImGui::TextUnformatted(tr("Kernel variant"));
    for (const LaunchVariant& lv : launchVariants()) {
      if (radioButton(lv.label, &v == &lv)) {
        cfg_ = withVariant(cfg_, lv);
        changed = true;
      }
      helpTooltip(lv.help);
    }
    ImGui::Spacing();
    changed |= paramSlider(kLaunchN, cfg_.n);
    // The course's own sizes: add_kernel's 4096 elements, the grid-stride example's 100,000 and
    // the 30 million numbers doubled on the GPU.
    for (long long preset : {4096LL, 100000LL, 30000000LL}) {
      if (preset != 4096) ImGui::SameLine();
      const std::string label = preset == 30000000 ? "30M" : thousands(preset);
      if (smallButton(label.c_str())) {
        cfg_.n = preset;
        changed = true;
      }
    }
    long long tpb = cfg_.threadsPerBlock;
    if (paramSlider(kLaunchThreadsPerBlock, tpb)) {
      cfg_.threadsPerBlock = static_cast<int>(tpb);
      changed = true;
    }
    changed |= checkbox("Blocks: automatic", &cfg_.autoBlocks);
    helpTooltip(
        "Automatic: just enough blocks to give every element a thread, ceil(N / threads per "
        "block) (with a grid-stride loop: a few blocks per SM). Off: choose the grid yourself.");
    if (!cfg_.autoBlocks) {
      changed |= paramSlider(kLaunchBlocks, cfg_.blocks);
      if (cfg_.grid2d) changed |= paramSlider(kLaunchBlocksY, cfg_.blocksY);
    }
    if (cfg_.grid2d) changed |= paramSlider(kLaunchWidth, cfg_.width);

    ImGui::Spacing();
    const int by = static_cast<int>(colourBy_);
    if (beginCombo(halfWidthLabel("Colour by"), tr(kColourByNames[by]))) {
      for (int i = 0; i < 4; ++i) {
        if (ImGui::Selectable(tr(kColourByNames[i]), i == by) && i != by) {
          colourBy_ = static_cast<ColourBy>(i);
          keysDirty_ = true;
        }
      }
      ImGui::EndCombo();
    }
    helpTooltip(
        "What each element's colour says: the block, warp or thread that wrote it, or how "
        "many times it was written.");
    if (gpu_) {
      ImGui::TextUnformatted(tr("Picture reaches the screen by"));
      const InteropPath was = path_;
      if (radioButton("CUDA-OpenGL interop", path_ == InteropPath::Interop))
        path_ = InteropPath::Interop;
      helpTooltip(
          "The kernel writes the picture into an OpenGL pixel buffer mapped into CUDA: it "
          "never leaves the GPU.");
      if (radioButton("copy through host memory", path_ == InteropPath::HostCopy))
        path_ = InteropPath::HostCopy;
      helpTooltip(
          "The kernel writes device memory, which is copied to the host and uploaded to "
          "the texture again: what a program without interop does every frame.");
      if (was != path_) keysDirty_ = true;
      checkbox("Redraw every frame", &animate_);
      helpTooltip(
          "Runs the picture kernel and its upload every frame, so the per-frame cost of "
          "each path can be compared live.");
    }
    if (changed) onConfigChanged();

    ImGui::Spacing();
    for (const Phrase& w : warnings_) {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.warningColour());
      textWrapped("%s", trPhrase(w).c_str());
      ImGui::PopStyleColor();
    }
    if (!valid_) {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
      textWrapped("%s", validity().c_str());
      ImGui::PopStyleColor();
    }
    drawRunButtons(ctx);
  }

  // [SECTION] main view

  void drawMain(LessonContext& ctx) override {
    if (pictureDirty_ && !pictureJob_.running() && !limitsJob_.running()) startPicture();
    drawPicture(ctx);
    drawLaunchNumbersPanel(ctx, cfg_, shape_, limits_,
                           picture_ ? std::optional<int>(picture_->blocksPerSM) : std::nullopt,
                           picture_ && picture_->blocksPerSMFromGpu);
    drawLaunchTimingPanel(ctx, gpu_, measureError_, history_, cfg_.n);
    const JobProgress sweepProgress = sweepJob_.running() ? sweepJob_.progress() : JobProgress{};
    drawLaunchSweepPanel(ctx, sweep_, sweepId_ == kSweepBlocks, limits_.smCount,
                         sweepJob_.running() ? &sweepProgress : nullptr, sweepError_);
    if (valid_)
      counters_.draw(ctx, gpu_, action(kActionCounters));
    else
      counters_.poll(ctx);  // a reading started before the launch became invalid still ends
  }

 private:
  void onConfigChanged() {
    valid_ = validate(cfg_, limits_);
    warnings_ = warnings(cfg_);
    shape_ = valid_ ? shapeFor(cfg_, limits_) : Result<LaunchShape>(valid_);
    pictureDirty_ = true;
  }

  // Whether the actions can start: a GPU, its limits known, a launch it accepts.
  bool ready() const { return gpu_ && !limitsJob_.pending() && valid_; }

  // Why the configuration is refused, in the UI's language.
  std::string validity() const { return trStatus(valid_); }

  void drawRunButtons(LessonContext& ctx) {
    ImGui::Spacing();
    ImGui::Separator();
    if (!gpu_) {
      mutedText(ctx.theme,
                "No GPU: the picture comes from a CPU model of the same index "
                "arithmetic; timing and sweeps need a GPU.");
      return;
    }
    ImGui::BeginDisabled(working() || !valid_ || limitsJob_.running());
    actionButton(action(kActionRun));
    actionButton(action(kSweepThreads));
    actionButton(action(kSweepBlocks));
    ImGui::EndDisabled();
    workProgress(*this);
    exportButtons(ctx, *this, {.enabled = !history_.empty() || !sweep_.empty()});
    helpTooltip(
        "Saves the sweep (or, without one, the measurements so far) with every phase's "
        "median, min and max, bytes, GB/s and the correctness check.");
  }

  void drawPicture(LessonContext& ctx) {
    const char* title = gpu_ ? N_("Who wrote each element (measured on the GPU)")
                             : N_("Who wrote each element (CPU model of the index arithmetic)");
    if (beginPanel(ctx, "picture", title)) {
      if (!valid_) {
        textWrapped("Nothing to draw: %s", validity().c_str());
      } else if (!pictureError_.ok()) {
        textWrapped("%s", pictureProblem().c_str());
      } else if (picture_) {
        refreshTexture(ctx);
        if (image_.width() > 0 && ids_.ready()) {
          const PictureLayout& L = picture_->layout;
          const float availW = ImGui::GetContentRegionAvail().x;
          const float maxH = 360.0f * ctx.scale;
          float w = availW, h = availW * static_cast<float>(L.height) / static_cast<float>(L.width);
          if (h > maxH) {
            h = maxH;
            w = h * static_cast<float>(L.width) / static_cast<float>(L.height);
          }
          // A few rows would be a hairline: stretch them to a visible strip.
          h = std::max(
              h, std::min(64.0f * ctx.scale, 16.0f * ctx.scale * static_cast<float>(L.height)));
          ImGui::Image(ids_.textureId(), ImVec2(w, h));
          markCanary(ctx, picture_->shape, L, ImGui::GetItemRectMin(), ImVec2(w, h));
          if (ImGui::IsItemHovered()) {
            const ImVec2 mp = ImGui::GetIO().MousePos, p0 = ImGui::GetItemRectMin();
            const long long px =
                static_cast<long long>((mp.x - p0.x) / w * static_cast<float>(L.width));
            const long long py =
                static_cast<long long>((mp.y - p0.y) / h * static_cast<float>(L.height));
            const long long first = py * L.fy * L.rowElements + px * L.fx;
            ImGui::SetTooltip(L.fx * L.fy > 1 ? tr("element %lld and its neighbours (row %lld, "
                                                   "column %lld)")
                                              : tr("element %lld (row %lld, column %lld)"),
                              first, py * L.fy, px * L.fx);
          }
          drawLegend(ctx, L);
        }
      } else {
        ImGui::TextUnformatted(tr("Working out which thread writes which element..."));
      }
    }
    endPanel(ctx);
  }

  // The writes past the end are a few elements after the array's last: on a picture of a large
  // array they are a pixel or less wide. A ring in the canary's colour, at least a few pixels
  // across, says where they are.
  static void markCanary(LessonContext& ctx, const LaunchShape& s, const PictureLayout& L,
                         ImVec2 p0, ImVec2 size) {
    if (s.canaryWrites <= 0 || L.rowElements <= 0 || L.width <= 0 || L.height <= 0) return;
    // From the array's end to the last index any thread computes (the allocation's last): in 2D
    // the writes past the end need not be one run, so the ring spans the rows they may touch.
    const long long a = s.n, b = s.allocationElements - 1;
    if (b < a) return;
    const long long rowA = a / L.rowElements,
                    rowB = std::min(b / L.rowElements, std::max(0LL, L.rows - 1));
    if (rowB < rowA) return;
    const long long colA = rowA == rowB ? a % L.rowElements : 0;
    const long long colB = rowA == rowB ? b % L.rowElements : L.rowElements - 1;
    const float sx = size.x / static_cast<float>(L.width),
                sy = size.y / static_cast<float>(L.height);
    ImVec2 lo(p0.x + static_cast<float>(colA / L.fx) * sx,
              p0.y + static_cast<float>(rowA / L.fy) * sy);
    ImVec2 hi(p0.x + static_cast<float>(colB / L.fx + 1) * sx,
              p0.y + static_cast<float>(rowB / L.fy + 1) * sy);
    const float least = 8.0f * ctx.scale;
    auto widen = [least](float& from, float& to) {
      if (to - from >= least) return;
      const float mid = 0.5f * (from + to);
      from = mid - 0.5f * least;
      to = mid + 0.5f * least;
    };
    widen(lo.x, hi.x);
    widen(lo.y, hi.y);
    const float t = 2.0f * ctx.scale;
    ImGui::GetWindowDrawList()->AddRect(ImVec2(lo.x - t, lo.y - t), ImVec2(hi.x + t, hi.y + t),
                                        IM_COL32(217, 13, 26, 255), 0.0f, 0, t);
  }

  // Why there is no picture, in the UI's language.
  std::string pictureProblem() const { return trStatus(pictureError_); }

  void drawLegend(LessonContext& ctx, const PictureLayout& L) {
    bool first = true;
    auto swatch = [&](ImU32 c, const char* text) {
      legendItem(c, tr(text), first);
      first = false;
    };
    if (colourBy_ == ColourBy::Writes) {
      swatch(paletteColour(2), N_("written once"));
      swatch(paletteColour(1), N_("written twice or more"));
    } else {
      swatch(paletteColour(0), kColourByNames[static_cast<int>(colourBy_)]);
      swatch(paletteColour(1), N_("the next one"));
    }
    swatch(IM_COL32(200, 200, 200, 255), N_("never written"));
    swatch(IM_COL32(217, 13, 26, 255), N_("written past the end (canary)"));
    std::string layout =
        L.fx * L.fy > 1
            ? trf("Rows of %s elements; each pixel shows %lld elements and the most alarming of "
                  "them.",
                  thousands(L.rowElements).c_str(), static_cast<long long>(L.fx * L.fy))
            : trf("Rows of %s elements; one pixel per element.", thousands(L.rowElements).c_str());
    if (gpu_)
      layout += std::string(" ") + trf("Display: %s.", image_.path() == InteropPath::Interop
                                                           ? tr("CUDA-OpenGL interop")
                                                           : tr("copy through host memory"));
    mutedText(ctx.theme, layout.c_str());
    if (gpu_) {
      mutedText(ctx.theme, trf("Last frame cost: interop %s, copy through host %s (picture "
                               "kernel, copy and texture upload).",
                               costText(costMs_[0]).c_str(), costText(costMs_[1]).c_str())
                               .c_str());
      if (!image_.interopAvailable() && !image_.interopProblem().empty())
        mutedText(ctx.theme, image_.interopProblem().c_str());
    }
  }

  static std::string costText(double ms) {
    if (ms <= 0) return tr("not measured yet");
    char b[32];
    std::snprintf(b, sizeof b, "%.3f ms", ms);
    return b;
  }

  // [SECTION] work on the worker thread: picture, measurement, sweeps

  void startPicture() {
    pictureDirty_ = false;
    if (!valid_) return;
    const LaunchConfig c = cfg_;
    const DeviceLimits lim = limits_;
    const bool gpu = gpu_;
    pictureJob_.start([c, lim,
                       gpu](AsyncJob<PictureResult>::Control& ctl) -> Result<PictureResult> {
      ctl.progress(0, N_("which thread writes which element"));
      PictureResult r;
      r.config = c;
      Result<LaunchShape> s = shapeFor(c, lim);
      if (!s) return s.status();
      r.shape = *s;
      r.layout = pictureLayout(*s);
      if (gpu) {
        StreamGuard stream;
        CUDALAB_TRY(stream.create());
        Result<std::unique_ptr<DeviceOwnership>> d = runOwnershipOnDevice(c, lim, stream.get());
        if (!d) return d.status();
        r.device = std::move(*d);
        Result<int> perSM = occupancyBlocksPerSM(c);
        if (!perSM) return perSM.status();
        r.blocksPerSM = *perSM;
        r.blocksPerSMFromGpu = true;
      } else {
        Result<OwnershipMap> m = modelOwnership(c, lim);
        if (!m) return m.status();
        r.model = std::move(*m);
        for (int by = 0; by < 4; ++by)
          r.modelKeys[by] = pictureKeysCpu(*r.model, r.shape, r.layout, static_cast<ColourBy>(by));
        r.blocksPerSM = modelBlocksPerSM(c.threadsPerBlock, lim);
      }
      return r;
    });
  }

  bool startMeasure() {
    if (!shape_) return false;
    measureError_ = Status{};
    const LaunchConfig c = cfg_;
    const LaunchShape s = *shape_;
    // The result carries the configuration it measured: the learner may change the controls
    // while it runs.
    return measureJob_.start(
        [c, s](AsyncJob<MeasuredLaunch>::Control& ctl) -> Result<MeasuredLaunch> {
          ctl.progress(0.1f, N_("copying, doubling, copying back"));
          StreamGuard stream;
          CUDALAB_TRY(stream.create());
          std::unique_ptr<Workload> w = makeDoublingWorkload(c, s);
          Result<Measurement> m = measure(*w, MeasureOptions{}, ctl.cancelFlag(), stream.get());
          if (!m) return m.status();
          return MeasuredLaunch{0, c, *m};
        });
  }

  bool launchSweep(const std::string& id) {
    const std::vector<LaunchConfig> configs =
        id == kSweepBlocks ? blocksSweep(cfg_, limits_) : threadsPerBlockSweep(cfg_);
    if (configs.empty()) return false;
    sweep_.clear();
    sweepError_ = Status{};
    sweepId_ = id;
    const DeviceLimits lim = limits_;
    const bool blocks = id == kSweepBlocks;
    return sweepJob_.start(
        [configs, lim,
         blocks](AsyncJob<SweepSummary, LaunchSweepPoint>::Control& ctl) -> Result<SweepSummary> {
          StreamGuard stream;
          CUDALAB_TRY(stream.create());
          SweepSummary sum;
          for (size_t i = 0; i < configs.size(); ++i) {
            if (ctl.cancelled()) return Status::error(N_("Sweep cancelled."));
            const LaunchConfig& c = configs[i];
            ctl.progress(static_cast<float>(i) / static_cast<float>(configs.size()), describe(c));
            LaunchSweepPoint p;
            p.config = c;
            p.x = blocks ? toD(c.blocks) : c.threadsPerBlock;
            Result<LaunchShape> s = shapeFor(c, lim);
            if (!s) {
              p.m = s.status();
            } else {
              std::unique_ptr<Workload> w = makeDoublingWorkload(c, *s);
              MeasureOptions opt;
              opt.runs = 5;
              opt.verifyEveryRun = false;
              p.m = measure(*w, opt, ctl.cancelFlag(), stream.get());
            }
            ctl.publish(std::move(p));
            ++sum.points;
          }
          return sum;
        });
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (history_.empty()) return rows;
    const MeasuredLaunch& h = history_.back();  // the latest run
    rows.push_back(
        {"kernel",
         "the kernel, " + describe(h.config),
         {{"ms", h.m.kernel().medianMs, "ms", false}, {"GB/s", h.m.kernelGBps(), "GB/s", true}}});
    return rows;
  }

  LessonResults results() const override {
    std::vector<MeasuredRow> rows;
    if (!sweep_.empty()) {
      for (const LaunchSweepPoint& p : sweep_)
        if (p.m)
          rows.push_back({describe(p.config),
                          {{"n", toD(p.config.n)},
                           {"threads_per_block", p.config.threadsPerBlock},
                           {"blocks", toD(p.config.blocks)}},
                          *p.m});
    } else {
      for (const MeasuredLaunch& h : history_)
        rows.push_back({describe(h.config),
                        {{"n", toD(h.config.n)},
                         {"threads_per_block", h.config.threadsPerBlock},
                         {"blocks", toD(h.config.blocks)}},
                        h.m});
    }
    LessonResults out;
    if (rows.empty()) return out;
    out.json = toJson(rows);
    out.csv = toCsv(rows);
    out.csvName = sweep_.empty() ? "measurements" : "sweep-" + sweepId_;
    return out;
  }

  // Collects finished work; runs on the UI thread and never blocks.
  void poll(LessonContext& ctx) {
    if (!shapeInit_) {
      shapeInit_ = true;
      onConfigChanged();
    }
    if (auto r = limitsJob_.take()) {
      if (r->ok()) {
        limits_ = **r;
        onConfigChanged();
      } else {
        ctx.error(r->status());
      }
    }
    if (auto r = pictureJob_.take()) {
      if (r->ok()) {
        picture_ = std::make_unique<PictureResult>(std::move(r->value()));
        pictureError_ = Status{};
        keysDirty_ = true;
      } else {
        picture_.reset();
        pictureError_ = r->status();
      }
    }
    if (auto r = measureJob_.take()) {
      if (r->ok()) {
        MeasuredLaunch& done = **r;
        done.run = ++runCount_;
        history_.push_back(std::move(done));
        if (history_.size() > 6) history_.erase(history_.begin());
      } else {
        measureError_ = r->status();
        ctx.error(measureError_);
      }
    }
    for (LaunchSweepPoint& p : sweepJob_.takePublished())
      sweep_.push_back(std::move(p));
    if (auto r = sweepJob_.take()) {
      if (!r->ok()) sweepError_ = r->status();
    }
  }

  // Brings the picture's keys into the texture (UI thread: it owns the GL context), then colours
  // them through shaders/ids.frag.
  void refreshTexture(LessonContext& ctx) {
    if (!picture_) return;
    const PictureLayout& L = picture_->layout;
    if (!keysDirty_ && !animate_) return;
    keysDirty_ = false;
    if (image_.width() != L.width || image_.height() != L.height) {
      if (Status s = image_.create(L.width, L.height, PixelFormat::R32UI); !s) {
        pictureError_ = s;
        return;
      }
    }
    if (!ids_.ready()) {
      if (Status s = ids_.init(shaders::ids_frag); !s) {
        pictureError_ = s;
        ctx.error(s);
        return;
      }
    }
    Status s;
    if (picture_->device) {
      if (!uiStream_.get()) s = uiStream_.create();
      image_.setPath(path_);
      // One frame: map the buffer, run the picture kernel into it, unmap (MapGuard), upload.
      auto gpuFrame = [&]() -> Status {
        {
          auto m = image_.map(uiStream_.get());
          if (!m) return m.status();
          CUDALAB_TRY(pictureKeysGpu(picture_->device->owner.get(), picture_->device->writes.get(),
                                     picture_->shape, L, colourBy_, m->as<std::uint32_t>(),
                                     uiStream_.get()));
        }
        return image_.upload(uiStream_.get());
      };
      double& cost = costMs_[image_.path() == InteropPath::Interop ? 0 : 1];
      // The first frame on a path pays for setting it up (first map, driver allocations); draw it
      // twice then, so the cost shown is what every later frame pays.
      const bool first = cost == 0;
      if (s) s = gpuFrame();
      if (s && first) s = gpuFrame();
      if (s) cost = image_.frameCostMs();
    } else if (picture_->model) {
      const std::vector<std::uint32_t>& keys = picture_->modelKeys[static_cast<int>(colourBy_)];
      s = keys.size() == static_cast<size_t>(L.width) * static_cast<size_t>(L.height)
              ? image_.uploadFromHost(keys.data())
              : Status::error(N_("The model's picture is missing for this colouring."));
    }
    if (s) {
      const float checker = std::max(2.0f, 4.0f * ctx.scale);
      s = ids_.render(image_.texture(), L.width, L.height, [&](unsigned program) {
        glUniform1i(glGetUniformLocation(program, "mode"), colourBy_ == ColourBy::Writes ? 1 : 0);
        glUniform1f(glGetUniformLocation(program, "checker"), checker);
      });
    }
    if (!s) {
      pictureError_ = s;
      ctx.error(s);
    }
  }

  bool gpu_ = false;
  bool shapeInit_ = false;
  LaunchConfig cfg_;
  DeviceLimits limits_;
  HelperCountersPanel<LaunchConfig> counters_ = makeLaunchCountersPanel();
  Status valid_;
  std::vector<Phrase> warnings_;
  Result<LaunchShape> shape_ = Status::error("not computed");

  AsyncJob<DeviceLimits> limitsJob_;
  AsyncJob<PictureResult> pictureJob_;
  AsyncJob<MeasuredLaunch> measureJob_;
  AsyncJob<SweepSummary, LaunchSweepPoint> sweepJob_;

  bool pictureDirty_ = false, keysDirty_ = false, animate_ = false;
  std::unique_ptr<PictureResult> picture_;
  Status pictureError_, measureError_, sweepError_;
  ColourBy colourBy_ = ColourBy::Block;
  InteropPath path_ = InteropPath::Interop;
  double costMs_[2] = {0, 0};
  InteropImage image_;
  ShaderPass ids_;
  StreamGuard uiStream_;

  std::vector<MeasuredLaunch> history_;
  int runCount_ = 0;
  std::vector<LaunchSweepPoint> sweep_;
  std::string sweepId_;
};

}  // namespace

const LessonEntry kLaunchConfigLesson{&kLaunchConfigLessonInfo, &makeLesson<LaunchConfigLesson>,
                                      kLaunchConfigBenches};

}  // namespace cudalab
