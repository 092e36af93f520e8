// Lesson "stencil": a stream of camera frames (a synthetic road scene made by a kernel, or a
// picture from a file) blurred, edge-detected and thresholded on the GPU, shown through
// CUDA-OpenGL interop, with a budget meter against the course's 33 ms; the blur's ladder
// (naive, tiled, separable) measured against a device copy; one block's tile and halo drawn.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: frame, input, pipeline, display path, measurements
//   the frame and the budget meter
//   each stage's time and bandwidth
//   (time against radius, one block's tile and halo: lessons/stencil_panels.hpp)
//   frames on the UI thread; work on the worker thread
#include "core/i18n.hpp"
#include "core/kept_job.hpp"
#include "lessons/stencil/stencil_lesson.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/async_job.hpp"
#include "common/cuda_raii.hpp"
#include "common/format.hpp"
#include "common/host_parallel.hpp"
#include "platform/image.hpp"
#include "platform/interop.hpp"
#include "lessons/stencil/stencil_panels.hpp"
#include "stencil/stencil.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] lesson text, jobs and their results

const LessonInfo kStencilLessonInfo{
    "stencil", N_("Stencil: a full-HD frame in 33 ms"),
    N_("course file 000: a self-driving car must process a 1920 x 1080 camera frame within 33 ms "
       "at 30 frames per second; neighbour-dependent work such as a convolution needs its own "
       "kernel, not @vectorize"),
    N_("A stream of camera frames blurred, edge-detected and thresholded on the GPU and shown "
       "through CUDA-OpenGL interop, every stage timed against the 33 ms budget beside the CPU "
       "doing the same work; the blur as a ladder of kernels (every tap from global memory, a "
       "shared-memory tile with a halo, two separable passes, both passes in shared memory) "
       "against a device copy of the frame; one block's tile and halo drawn.")};

namespace {

using namespace stencil;

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionMeasure = "measure", *kActionCpu = "cpu";

struct CpuView {
  int width = 0, height = 0;
  Pipeline p;
  double sceneAllMs = 0, sceneOneMs = 0;  // making the frame on all cores, on one
  CpuFrame one, all;                      // the pipeline on one core and on all
  std::vector<std::uint32_t> rgba;        // what the display shows without a GPU
  int seq = 0;                            // which start made it (StencilLesson::cpuSeq_)
};

class StencilLesson final : public Lesson {
 public:
  StencilLesson()
      : Lesson(kStencilLessonInfo, kStencilParams, variantRows(blurs(), &BlurInfo::key)) {
    declareActions({
        jobAction(kActionMeasure, N_("Measure the kernels"),
                  N_("Every blur variant at radius 1 to 15 on this frame size (each checked "
                     "against the CPU first), the other stages and a device copy of the frame."),
                  report_, [this] { return !working() && startMeasure(); }),
        jobAction(kActionCpu, N_("Time the CPU"),
                  N_("The same pipeline on the CPU, one core and all cores, on this frame."), cpu_,
                  [this] { return !working() && startCpu(); }),
    });
  }
  bool animating() const override { return gpu_ && playing_; }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::string> frames;
    for (const FrameSize& f : kFrameSizes)
      frames.push_back(std::to_string(f.width) + "x" + std::to_string(f.height));
    std::vector<std::pair<std::string, BlurId>> blurIds;
    for (const BlurInfo& b : blurs())
      blurIds.emplace_back(b.key, b.id);
    std::vector<std::pair<std::string, int>> tiles;
    for (int t : kTiles)
      tiles.emplace_back(std::to_string(t), t);
    return {bindChoiceBy(
                kFrameChoice, std::move(frames), [this] { return sizeIndex_; },
                [this](int i) { sizeIndex_ = i; },
                [this] {
                  still_.clear();
                  stillName_.clear();
                  ++stillVersion_;
                }),
            bindToggle(kBlurChoice, pipe_.blur),
            bindChoice(kBlurIdChoice, pipe_.blurId, std::move(blurIds)),
            bindParam(kRadius, pipe_.radius),
            bindChoice(kTileChoice, pipe_.tile, std::move(tiles)),
            bindToggle(kSobelChoice, pipe_.sobel),
            bindToggle(kThresholdChoice, pipe_.threshold),
            bindChoice<View>(kViewChoice, pipe_.view,
                             {{"input", View::Input},
                              {"blurred", View::Blurred},
                              {"edges", View::Edges},
                              {"mask", View::Mask}})};
  }
  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (!report_) return rows;
    // Each blur at the panel's radius, then the other stages.
    for (const KernelPoint& p : report_->points)
      if (p.radius == pipe_.radius)
        rows.push_back({std::string("blur ") + blurInfo(p.id).key,
                        std::string("blur: ") + blurInfo(p.id).label,
                        {{"ms", p.ms, "ms", false}, {"GB/s", p.gbps, "GB/s", true}}});
    rows.push_back({"sobel", "Sobel edges", {{"ms", report_->sobelMs, "ms", false}}});
    rows.push_back({"threshold", "threshold", {{"ms", report_->thresholdMs, "ms", false}}});
    rows.push_back(
        {"copy",
         "device copy of the frame",
         {{"ms", report_->copyMs, "ms", false}, {"GB/s", report_->copyGBps, "GB/s", true}}});
    return rows;
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    // The CPU's time for the same frame belongs on the budget meter, GPU or not.
    queueActions({kActionCpu});
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    const auto t0 = std::chrono::steady_clock::now();
    poll(ctx);
    // A frame that failed is not tried again every frame; touching a control tries again.
    if (ImGui::IsAnyItemActive()) frameError_ = false;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (beginCombo("Frame", tr(kFrameSizes[sizeIndex_].label))) {
      for (int i = 0; i < int(std::size(kFrameSizes)); ++i)
        if (ImGui::Selectable(tr(kFrameSizes[i].label), i == sizeIndex_)) {
          sizeIndex_ = i;
          still_.clear();
          stillName_.clear();
          ++stillVersion_;
        }
      ImGui::EndCombo();
    }
    checkbox("Play", &playing_);
    helpTooltip("A new frame of the moving scene every time the window draws.");
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    ImGui::InputTextWithHint("##image", tr("a PNG or JPEG file instead of the scene"), file_,
                             sizeof file_);
    askForGlyphs(file_);  // a folder named in Korean, say
    if (button("Open picture")) loadPicture();
    ImGui::SameLine();
    if (button("Scene")) {
      still_.clear();
      stillName_.clear();
      pictureError_ = {};
      ++stillVersion_;
    }
    // A picture that could not be opened is said here, under its field, with what the frame
    // still shows (the sentence at the top and in the status bar was far from the field).
    errorText(ctx.theme, pictureError_);
    if (!pictureError_.ok())
      mutedText(
          ctx.theme,
          stillName_.empty()
              ? tr("The frame is still the moving scene.")
              : trf("The frame is still the last picture opened, %s.", stillName_.c_str()).c_str());
    else if (!stillName_.empty())
      textWrapped("Input: %s (%d x %d, scaled to the frame)", stillName_.c_str(), stillW_, stillH_);

    ImGui::Separator();
    checkbox("Blur", &pipe_.blur);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    if (beginCombo("##blur", tr(blurInfo(pipe_.blurId).label))) {
      for (const BlurInfo& b : blurs())
        if (ImGui::Selectable(tr(b.label), b.id == pipe_.blurId)) pipe_.blurId = b.id;
      ImGui::EndCombo();
    }
    helpTooltip(blurInfo(pipe_.blurId).help);
    paramSlider(kRadius, pipe_.radius);
    if (usesTile(pipe_.blurId)) {
      if (beginCombo(halfWidthLabel("Tile"),
                     (std::to_string(pipe_.tile) + " x " + std::to_string(pipe_.tile)).c_str())) {
        for (int t : kTiles)
          if (ImGui::Selectable((std::to_string(t) + " x " + std::to_string(t)).c_str(),
                                t == pipe_.tile))
            pipe_.tile = t;
        ImGui::EndCombo();
      }
    }
    checkbox("Sobel edges", &pipe_.sobel);
    checkbox("Threshold", &pipe_.threshold);
    if (pipe_.threshold) {
      ImGui::SliderFloat(halfWidthLabel("Edge level"), &pipe_.thresholdValue, 0.05f, 2.0f, "%.2f");
    }
    const char* views[] = {N_("input"), N_("blurred"), N_("edges"), N_("mask over the picture")};
    const int view = int(pipe_.view);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (beginCombo("Show", tr(views[view]))) {
      for (int i = 0; i < 4; ++i)
        if (ImGui::Selectable(tr(views[i]), i == view)) pipe_.view = View(i);
      ImGui::EndCombo();
    }
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    // The English label stays the id: a drag in progress survives a change of language.
    ImGui::SliderFloat((std::string(tr("Split")) + "###split").c_str(), &split_, 0.0f, 1.0f,
                       "%.2f");
    helpTooltip("Left of the split the input, right of it the chosen stage.");
    if (gpu_) {
      bool hostCopy = path_ == InteropPath::HostCopy;
      if (checkbox("Copy through host memory", &hostCopy))
        path_ = hostCopy ? InteropPath::HostCopy : InteropPath::Interop;
      helpTooltip(
          "Off: the kernel writes into OpenGL's pixel buffer directly (CUDA-OpenGL interop). "
          "On: the frame goes to host memory and back, as a program without interop must.");
    }
    ImGui::Separator();
    runButtons(ctx, *this, {{kActionMeasure, true}, {kActionCpu}});
    paramsMs_ = msSince(t0);
  }

  void drawMain(LessonContext& ctx) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (gpu_) {
      const auto f0 = std::chrono::steady_clock::now();
      gpuFrame(ctx);
      frameMs_ = msSince(f0);
    } else {
      refilterOnTheCpu();
    }
    errorText(ctx.theme, refusal_);
    drawFrame(ctx);
    drawStages(ctx);
    const std::optional<KernelReport>& kept = report_.kept();
    drawStencilSweepPanel(
        ctx, kept, report_.running(), gpu_,
        kept && (kept->width != width() || kept->height != height() || kept->tile != pipe_.tile));
    tile_.draw(ctx, pipe_, validate(pipe_, width(), height(), gpu_ ? sharedLimit_ : 48 * 1024));
    // The host's time for this lesson's widgets and pictures, the GPU frame's work excluded: the
    // UI's share of the budget (ImGui's own rendering comes after and is not counted).
    uiMs_ = paramsMs_ + msSince(t0) - frameMs_;
  }

 private:
  int width() const { return kFrameSizes[sizeIndex_].width; }
  int height() const { return kFrameSizes[sizeIndex_].height; }
  Pipeline pipeline() const {
    Pipeline p = pipe_;
    p.split = int(std::lround(split_ * float(width())));
    return p;
  }

  // [SECTION] the frame and the budget meter

  void drawFrame(LessonContext& ctx) {
    if (!beginPanel(ctx, "frame", "The frame and its budget")) return endPanel(ctx);
    if (image_.width() > 0 && (gpu_ || shownSeq_ > 0)) {
      const float aspect = float(width()) / float(height());
      float w = ImGui::GetContentRegionAvail().x;
      float h = w / aspect;
      const float maxH = 26.0f * ImGui::GetTextLineHeightWithSpacing();
      if (h > maxH) {
        h = maxH;
        w = h * aspect;
      }
      ImGui::Image(image_.textureId(), ImVec2(w, h));
    } else {
      textWrapped("%s",
                  cpu_.running() ? tr("The CPU is filtering the frame...") : tr("No frame yet."));
    }
    if (!gpu_ && shownSeq_ > 0)
      mutedText(ctx.theme,
                "No GPU: the CPU (all cores) filters the frame again after each change of the "
                "pipeline or the picture, as fast as it can; playing the scene needs a GPU.");
    drawBudget(ctx);
    endPanel(ctx);
  }

  void drawBudget(LessonContext& ctx) {
    // Translated where the plot draws them.
    const char* series[] = {N_("input"),           N_("blur"),           N_("Sobel"),
                            N_("threshold"),       N_("display pixels"), N_("to the screen"),
                            N_("UI (this lesson)")};
    std::vector<const char*> cats;
    std::vector<double> v;
    // values[series * nCat + cat]; categories: the GPU frame, then the CPU's rows.
    struct Row {
      const char* name;
      double s[7];
    };
    std::vector<Row> rows;
    if (gpu_) {
      const FrameTimes& t = runner_.lastTimes();
      // The GPU's bar is too thin to see beside the CPU's: its total goes in its name.
      gpuLabel_ = trf("GPU: %s", stencilMsText(t.gpuTotal() + displayMs_ + uiMs_).c_str());
      rows.push_back({gpuLabel_.c_str(),
                      {t.input, t.blur, t.sobel, t.threshold, t.compose, displayMs_, uiMs_}});
    }
    if (cpu_) {
      rows.push_back({N_("CPU, all cores"),
                      {cpu_->sceneAllMs, cpu_->all.blurMs, cpu_->all.sobelMs, cpu_->all.thresholdMs,
                       cpu_->all.composeMs, 0, 0}});
      rows.push_back({N_("CPU, one core"),
                      {cpu_->sceneOneMs, cpu_->one.blurMs, cpu_->one.sobelMs, cpu_->one.thresholdMs,
                       cpu_->one.composeMs, 0, 0}});
    }
    if (rows.empty()) return;
    for (const Row& r : rows)
      cats.push_back(r.name);
    const int n = int(rows.size());
    v.assign(size_t(7 * n), 0.0);
    for (int c = 0; c < n; ++c)
      for (int s = 0; s < 7; ++s)
        v[size_t(s * n + c)] = rows[size_t(c)].s[s] * 1e-3;
    // Tall enough for the legend beside it (seven parts).
    const float h = ImGui::GetTextLineHeight() * (9.0f + 2.0f * float(n));
    if (plot::BeginPlot("stencil_budget", "Time per frame against the budget##budget",
                        ImVec2(-1, h))) {
      plot::SetupCategories(cats.data(), n, plot::AxisId::Y);
      plot::SetupLegend(plot::Legend::Outside);
      plot::SetupAxes({N_("time per frame"), plot::Scale::Linear, 0, NAN, "s"}, {nullptr});
      plot::PlotStackedBars(series, 7, v.data(), n, true);
      plot::SetNextColour(5);
      plot::PlotVLine("33.3 ms: 30 fps", 1.0 / 30);
      // Beside the CPU's hundreds of milliseconds the two budget lines would touch: the 60 fps
      // one only on the GPU's own scale.
      if (!cpu_) {
        plot::SetNextColour(7);
        plot::PlotVLine("16.7 ms: 60 fps", 1.0 / 60);
      }
      plot::EndPlot();
    }
    // Whole sentences, each translated with its numbers.
    std::string text;
    if (gpu_) {
      const double total = runner_.lastTimes().gpuTotal() + displayMs_ + uiMs_;
      text =
          trf("The GPU's frame with this lesson's UI: %s (%sx inside the 33 ms budget), of which "
              "%s to bring it to the screen (%s).",
              stencilMsText(total).c_str(), trimmedFixed(33.333 / std::max(total, 1e-6), 0).c_str(),
              stencilMsText(displayMs_).c_str(),
              image_.path() == InteropPath::Interop ? tr("CUDA-OpenGL interop")
                                                    : tr("copied through host memory")) +
          " ";
      if (costMs_[0] > 0 && costMs_[1] > 0)
        text += trf("To the screen through interop %s, through host memory %s (%sx).",
                    stencilMsText(costMs_[0]).c_str(), stencilMsText(costMs_[1]).c_str(),
                    trimmedFixed(costMs_[1] / costMs_[0], 1).c_str()) +
                " ";
    }
    if (cpu_)
      text += trf("The CPU on the same %d x %d frame: %s on all cores, %s on one (filters as "
                  "chosen when it ran: radius %d, %s). This CPU code is the tests' bit-exact "
                  "reference, one pixel at a time without vector instructions; a tuned CPU filter "
                  "would be several times faster, and on one core still far from 33 ms at full HD.",
                  cpu_->width, cpu_->height,
                  stencilMsText(cpu_->all.totalMs() + cpu_->sceneAllMs).c_str(),
                  stencilMsText(cpu_->one.totalMs() + cpu_->sceneOneMs).c_str(), cpu_->p.radius,
                  tr(blurInfo(cpu_->p.blurId).label)) +
              " ";
    text += trf("The window redraws every %s (the display's rate, not the work's).",
                stencilMsText(double(ImGui::GetIO().DeltaTime) * 1000).c_str());
    mutedText(ctx.theme, text.c_str());
  }

  // [SECTION] each stage's time and bandwidth

  void drawStages(LessonContext& ctx) {
    if (!gpu_) return;
    if (!beginPanel(ctx, "stages", "Each stage of this frame")) return endPanel(ctx);
    const FrameTimes& t = runner_.lastTimes();
    const double px = double(width()) * height();
    const double copyGBps = report_ && report_->width == width() ? report_->copyGBps : 0;
    struct Stage {
      const char* name;
      double ms;
      double bytes;  // read once + written once
    };
    const Stage stages[] = {
        {N_("input (scene or picture)"), t.input, px * 16},
        {pipe_.blur ? blurInfo(pipe_.blurId).label : N_("blur (off)"), t.blur, px * 32},
        {N_("Sobel edges"), t.sobel, px * 20},
        {N_("threshold"), t.threshold, px * 8},
        {N_("display pixels"), t.compose, px * (16 + 16 + 4 + 4 + 4)},
        {N_("to the screen"), displayMs_, px * 4},
    };
    static const TableColumn kColumns[] = {
        {"stage"},
        {"time (ms)", "ms", 0},
        {"pixels per second", "pixels / s", 2},
        {"GB/s", nullptr, 1, "The bytes the stage reads and writes over its time."},
    };
    if (beginDataTable("##stages", kColumns, static_cast<int>(std::size(stages)))) {
      for (const Stage& s : stages) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(s.name));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(trimmedFixed(s.ms, 4).c_str());
        ImGui::TableNextColumn();
        if (s.ms > 0) ImGui::TextUnformatted((sciText(px / (s.ms * 1e-3))).c_str());
        ImGui::TableNextColumn();
        if (s.ms > 0) {
          const double g = s.bytes / (s.ms * 1e6);
          ImGui::TextUnformatted(
              (trimmedFixed(g, 0) +
               (copyGBps > 0 ? " (" + trimmedFixed(100 * g / copyGBps, 0) + "%)" : std::string()))
                  .c_str());
        }
      }
      endDataTable();
    }
    if (copyGBps > 0)
      mutedText(ctx.theme,
                trf("GB/s counts each stage's frames read once and written once (RGBA floats, 16 "
                    "bytes a pixel; edges and mask 4 bytes); the percentage is of a "
                    "device-to-device copy of the frame (%s GB/s). Times are one frame's, from "
                    "CUDA events around each stage.",
                    trimmedFixed(copyGBps, 0).c_str())
                    .c_str());
    else
      mutedText(ctx.theme,
                "GB/s counts each stage's frames read once and written once (RGBA floats, 16 "
                "bytes a pixel; edges and mask 4 bytes); the percentage is of a device-to-device "
                "copy of the frame, measured by \"Measure the kernels\". Times are one frame's, "
                "from CUDA events around each stage.");
    endPanel(ctx);
  }

  // [SECTION] frames on the UI thread; work on the worker thread

  // One frame: the pipeline into the display buffer (interop or host copy), on the UI thread's
  // stream; the stage times of the previous frame are read without waiting.
  void gpuFrame(LessonContext& ctx) {
    if (frameError_) return;  // said once; a parameter change clears it
    Status s;
    if (!stream_.get()) s = stream_.create();
    if (s && (runner_.width() != width() || runner_.height() != height())) {
      s = runner_.prepare(width(), height());
      stillLoaded_ = -1;
    }
    if (s && (image_.width() != width() || image_.height() != height()))
      s = image_.create(width(), height(), PixelFormat::RGBA8);
    if (s && stillLoaded_ != stillVersion_) {
      s = runner_.setStill(still_);
      stillLoaded_ = stillVersion_;
    }
    sharedLimit_ = runner_.sharedLimit();
    const Pipeline p = pipeline();
    // A refused pipeline (a tile and halo too large) keeps the last good frame on screen and
    // says why above it.
    refusal_ = validate(p, width(), height(), sharedLimit_);
    if (s && !refusal_) return;
    if (s) {
      image_.setPath(path_);
      {
        auto m = image_.map(stream_.get());
        if (!m)
          s = m.status();
        else
          s = runner_.run(p, frame_, m->as<std::uint32_t>(), stream_.get());
      }
      if (s) s = image_.upload(stream_.get());
      // The upload waited for the frame's kernels, so their times are ready (no stall); the
      // upload's cost counts them too, and only the rest is bringing the frame to the screen.
      if (s) s = runner_.waitTimes();
      if (s) {
        displayMs_ = std::max(0.0, image_.frameCostMs() - runner_.lastTimes().gpuTotal());
        costMs_[image_.path() == InteropPath::Interop ? 0 : 1] = displayMs_;
        if (playing_) ++frame_;
      }
    }
    if (!s) {
      frameError_ = true;
      error_ = s;
      ctx.error(s);
    }
  }

  void loadPicture() {
    Result<Image> img = readPng(file_);
    if (!img) {
      pictureError_ = img.status();
      return;
    }
    const HostFrame f = fromRgba8(reinterpret_cast<const std::uint32_t*>(img->rgba.data()),
                                  img->width, img->height, width(), height());
    still_.assign(f.px.size(), 0);
    for (size_t i = 0; i < f.px.size(); ++i)
      still_[i] = packRgba(f.px[i]);
    ++stillVersion_;
    stillName_ = file_;
    stillW_ = img->width;
    stillH_ = img->height;
    pictureError_ = {};
  }

  void poll(LessonContext& ctx) {
    ctx.errors(error_, {report_.collect(), cpu_.collect()});
    // Without a GPU the CPU's frame is what the display shows.
    if (!gpu_ && cpu_ && cpu_->seq != shownSeq_) {
      if (image_.width() != cpu_->width || image_.height() != cpu_->height)
        (void)image_.create(cpu_->width, cpu_->height, PixelFormat::RGBA8);
      if (image_.uploadFromHost(cpu_->rgba.data())) shownSeq_ = cpu_->seq;
    }
  }

  bool startMeasure() {
    if (!mayStart(gpu_ && !working())) return false;
    const int w = width(), h = height(), tile = pipe_.tile;
    return report_.start([w, h, tile](AsyncJob<KernelReport>::Control& c) -> Result<KernelReport> {
      return measureKernels(w, h, defaultRadii(), tile, c.cancelFlag(), c.progressFn());
    });
  }

  // Without a GPU the CPU's frame is the picture: filtered again once the pipeline, the picture or
  // the size changed since the last start (issue 39: the first frame stayed on screen whatever the
  // learner changed), when nothing else is running.
  void refilterOnTheCpu() {
    const bool same =
        cpuPipe_ == pipeline() && cpuStill_ == stillVersion_ && cpuSize_ == sizeIndex_;
    if (!same && !working()) (void)startCpu();
  }

  bool startCpu() {
    if (working()) return false;
    const int w = width(), h = height(), frame = frame_;
    const Pipeline p = pipeline();
    const std::vector<std::uint32_t> still = still_;
    const int seq = cpuSeq_ + 1;
    const bool started =
        cpu_.start([w, h, frame, p, still, seq](AsyncJob<CpuView>::Control& c) -> Result<CpuView> {
          CpuView v;
          v.seq = seq;
          v.width = w;
          v.height = h;
          v.p = p;
          c.progress(0.05f, N_("the frame"));
          // The input the GPU's first stage makes: the scene (timed on all cores and on one), or
          // the picture, already decoded.
          auto input = [&](int threads, double& ms) {
            const auto t0 = std::chrono::steady_clock::now();
            HostFrame f = still.empty() ? sceneFrame(w, h, frame, threads)
                                        : fromRgba8(still.data(), w, h, w, h);
            ms = msSince(t0);
            return f;
          };
          const HostFrame in = input(0, v.sceneAllMs);
          (void)input(1, v.sceneOneMs);
          c.progress(0.15f, N_("all cores"));
          v.all = cpuPipeline(in, p, 0, c.cancelFlag());
          if (c.cancelled()) return Status::error(N_("Cancelled."));
          c.progress(0.35f, N_("one core"));
          v.one = cpuPipeline(in, p, 1, c.cancelFlag());
          if (c.cancelled()) return Status::error(N_("Cancelled."));
          v.rgba = v.all.rgba;
          return v;
        });
    if (started) {
      cpuSeq_ = seq;
      cpuPipe_ = p;
      cpuStill_ = stillVersion_;
      cpuSize_ = sizeIndex_;
    }
    return started;
  }

  bool gpu_ = false;
  Status refusal_;
  int sizeIndex_ = 1;
  Pipeline pipe_;
  float split_ = 0.5f;
  bool playing_ = true;
  int frame_ = 0;
  char file_[512] = "";
  std::vector<std::uint32_t> still_;
  std::string stillName_;        // the picture's file
  Status pictureError_;          // why the last picture asked for could not be opened
  int stillW_ = 0, stillH_ = 0;  // its own size, before scaling to the frame
  int stillVersion_ = 0;         // counts the pictures opened (and the returns to the scene)
  int stillLoaded_ = -1;         // the version the runner holds
  InteropPath path_ = InteropPath::Interop;

  FrameRunner runner_;
  InteropImage image_;
  StreamGuard stream_;
  long long sharedLimit_ = 0;
  double displayMs_ = 0;
  double paramsMs_ = 0, frameMs_ = 0, uiMs_ = 0;  // host times of the last frame
  std::string gpuLabel_;
  StencilTilePanel tile_;
  double costMs_[2] = {0, 0};
  bool frameError_ = false;
  int cpuSeq_ = 0, shownSeq_ = 0;  // the CPU frames started, and the one on screen (0: none)
  // What the last CPU frame was started with (refilterOnTheCpu).
  std::optional<Pipeline> cpuPipe_;
  int cpuStill_ = -1, cpuSize_ = -1;

  KeptJob<KernelReport> report_;
  KeptJob<CpuView> cpu_;
};

}  // namespace

const LessonEntry kStencilLesson{&kStencilLessonInfo, &makeLesson<StencilLesson>, kStencilBenches};

}  // namespace cudalab
