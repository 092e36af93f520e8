// Lesson "memory": coalescing, the transpose and shared-memory bank conflicts.
//
// [SECTION] index
//   lesson text, jobs and their results
//   parameters panel: the global pattern, the shared pattern, the measurements, export
//   (one warp and global memory, one warp and shared memory, every warp's heat map:
//   memory_pictures_panel.cpp)
//   strided copy: measured bandwidth against the model
//   transpose ladder
//   work on the worker thread; export
#include "core/i18n.hpp"
#include "core/kept_job.hpp"
#include "lessons/memory/memory_lesson.hpp"
#include "lessons/memory/memory_counters_panel.hpp"
#include "lessons/memory/memory_pictures_panel.hpp"
#include "lessons/memory/transpose_counters_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/async_job.hpp"
#include "common/format.hpp"
#include "common/measurement_export.hpp"
#include "memory/access_patterns.hpp"
#include "memory/memory.hpp"
#include "ui/data_table.hpp"
#include "ui/plot/plot.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

using namespace memory;

// [SECTION] lesson text, jobs and their results

const LessonInfo kMemoryLessonInfo{
    "memory", N_("Memory: coalescing, transpose, bank conflicts"),
    N_("course files 000 and 001: coalescing, the transpose B[x, y] = A[y, x], the naive matmul's "
       "reads"),
    N_("One warp's 32 addresses and the 32-byte sectors that serve them; shared-memory banks and "
       "conflicts; every warp of a kernel; strided copies and the transpose ladder measured "
       "against "
       "a plain copy.")};

namespace {

using namespace mem;

// The action table's ids (the table is in the lesson's constructor).
constexpr const char *kActionTranspose = "transpose", *kActionStrided = "strided",
                     *kActionCounters = "counters",
                     *kActionTransposeCounters = "transpose-counters";

constexpr int kElementSizes[] = {1, 2, 4, 8, 16};

constexpr ParamSpec renamed(const ParamSpec& p, const char* id) {
  ParamSpec r = p;
  r.id = id;
  return r;
}
constexpr ParamSpec kGlobalStride = renamed(kStride, "global_stride");
constexpr ParamSpec kGlobalOffset = renamed(kOffset, "global_offset");
constexpr ParamSpec kGlobalRows = renamed(kRows, "global_rows");
constexpr ParamSpec kGlobalCols = renamed(kCols, "global_cols");
constexpr ParamSpec kSharedStride = renamed(kStride, "shared_stride");

// The patterns of one space, in the table's order: a pattern choice's options.
std::vector<std::pair<std::string, PatternId>> patternOptions(Space space) {
  std::vector<std::pair<std::string, PatternId>> out;
  for (const PatternInfo& p : patterns())
    if (patternSpace(p.id) == space) out.emplace_back(p.key, p.id);
  return out;
}

// The transpose table: the model's view of each step, and the measurement when there is one.
struct TransposeView {
  int rows = 0, cols = 0;        // the size asked for
  std::vector<StepModel> model;  // in ladder order
  std::optional<TransposeReport> measured;
};

// Which parameters a kernel's pattern uses.
struct Uses {
  bool stride = false, offset = false, element = false, rows = false, cols = false, inner = false,
       count = false, structs = false;
};

Uses usesOf(KernelId k) {
  Uses u;
  switch (k) {
    case KernelId::StridedCopy:
      u.stride = u.offset = u.element = u.count = true;
      break;
    case KernelId::ReadAoS:
      u.structs = u.count = true;
      break;
    case KernelId::ReadSoA:
      u.count = true;
      break;
    case KernelId::MatmulCourse:
    case KernelId::MatmulSwapped:
      u.rows = u.cols = u.inner = true;
      break;
    case KernelId::SharedStrided:
      u.stride = u.offset = u.element = true;
      break;
    default:
      u.rows = u.cols = true;
      break;
  }
  return u;
}

TransposeView transposeModel(int rows, int cols) {
  TransposeView v;
  v.rows = rows;
  v.cols = cols;
  for (const TransposeStepInfo& s : transposeSteps())
    v.model.push_back(stepModel(s, rows, cols));
  return v;
}

class MemoryLesson final : public Lesson {
 public:
  MemoryLesson()
      : Lesson(kMemoryLessonInfo, kMemoryParams,
               joinRows(variantRows(transposeSteps(), &TransposeStepInfo::id),
                        variantRows(patterns(), &PatternInfo::key))) {
    declareActions({
        // Without a GPU the ladder is modelled, not measured.
        jobAction(
            kActionTranspose, N_("Measure the transpose ladder"),
            N_("Every step on a fresh random rows x columns matrix, checked against the CPU's "
               "transpose, then timed."),
            transpose_, [this] { return !working() && startTranspose(); },
            [this] {
              return gpu_ ? action(kActionTranspose).label : N_("Model the transpose ladder");
            },
            [this] {
              return gpu_ ? action(kActionTranspose).help
                          : N_("The model's sectors and wavefronts for each step at this size.");
            }),
        jobAction(
            kActionStrided, N_("Measure the strided copy"),
            N_("Strides 1 to 32, each copy checked and timed."), strided_,
            [this] { return !working() && startStrided(); }, {},
            [this] { return gpu_ ? action(kActionStrided).help : N_("Needs a GPU."); }),
        jobAction(
            kActionCounters, N_("Read the counters"),
            N_("Runs the two patterns' kernels once more under the profiler (CUPTI, the library "
               "Nsight Compute uses) and reads what the hardware counted. Profiling replays each "
               "kernel and is slow: these runs are separate from the timed ones."),
            counters_,
            [this] { return gpu_ && counters_.start(global_, globalP_, shared_, sharedP_); }),
        jobAction(kActionTransposeCounters, N_("Read the ladder's counters"),
                  N_("Runs every step's kernel once more under the profiler (CUPTI, the library "
                     "Nsight Compute uses) at the size the model counts, and puts what the "
                     "hardware counted beside the model's numbers (in brackets). Profiling replays "
                     "kernels: these runs are separate from the timed ones."),
                  transposeCounters_,
                  [this] { return gpu_ && transposeCounters_.start(transposeParams()); }),
    });
  }
  bool otherWorkPending() const override { return map_.pending() || (started_ && mapStale()); }
  std::vector<ParamBinding> bindings() override {
    std::vector<std::pair<std::string, int>> sizes;
    for (int e : kElementSizes)
      sizes.emplace_back(std::to_string(e), e);
    return {bindChoice(kGlobalPatternChoice, global_, patternOptions(Space::Global)),
            bindParam(kGlobalStride, globalP_.stride),
            bindParam(kGlobalOffset, globalP_.offset),
            bindChoice(kElementChoice, globalP_.elementBytes, std::move(sizes)),
            bindParam(kGlobalRows, globalP_.rows),
            bindParam(kGlobalCols, globalP_.cols),
            bindChoice(kSharedPatternChoice, shared_, patternOptions(Space::Shared)),
            bindParam(kSharedStride, sharedP_.stride),
            bindToggle(kPaddedChoice, sharedP_.padded),
            bindParam(kMatrixRows, rows_),
            bindParam(kMatrixCols, cols_),
            bindParam(kCopyCount, stridedParams_.count),
            bindParam(kOffset, stridedParams_.offset, [this] {
              stridedModel_ = modelEfficiencies(kMaxStride.max, stridedParams_.offset);
            })};
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    device_ = gpu_ ? ctx.runtime.firstDeviceName : std::string();
    started_ = true;
    // Without a GPU the ladder's table still shows what the model expects of each step.
    startTranspose();
    if (gpu_) queueActions({kActionStrided});
    stridedModel_ = modelEfficiencies(kMaxStride.max, stridedParams_.offset);
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    ImGui::TextUnformatted(tr("Global memory: the pattern"));
    patternCombo("##global", global_, Space::Global);
    drawPatternParams(globalP_, global_, "g");
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("Shared memory: the pattern"));
    patternCombo("##shared", shared_, Space::Shared);
    if (isTilePattern(shared_)) checkbox("Pad the tile (33 columns)", &sharedP_.padded);
    helpTooltip(
        "One unused float at the end of every row of the 32x32 tile, so row r starts r banks "
        "further on.");
    drawPatternParams(sharedP_, shared_, "s");
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Measured on the GPU"));
    paramSlider(kMatrixRows, rows_);
    paramSlider(kMatrixCols, cols_);
    if (smallButton("8192 x 8192")) rows_ = cols_ = 8192;
    ImGui::SameLine();
    if (smallButton("1000 x 17")) rows_ = 1000, cols_ = 17;
    paramSlider(kCopyCount, stridedParams_.count);
    if (paramSlider(kOffset, stridedParams_.offset))
      stridedModel_ = modelEfficiencies(kMaxStride.max, stridedParams_.offset);
    runButtons(ctx, *this, {{kActionTranspose}, {kActionStrided, true}},
               N_("No GPU: the pictures, the heat map and the model's columns are computed on the "
                  "CPU; bandwidths need a GPU."));
    exportButtons(ctx, *this, {.spaced = true});
  }

  void drawMain(LessonContext& ctx) override {
    if (mapStale() && !map_.running()) startMap();
    drawMemoryWarpPanel(ctx, global_, globalP_, globalWarp_, globalTrip_);
    drawMemoryBanksPanel(ctx, shared_, sharedP_, sharedWarp_, sharedTrip_);
    drawMemoryMapPanel(ctx, mapOfShared_, map_.kept(), mapError_, map_.running());
    counters_.draw(ctx, gpu_, action(kActionCounters));
    drawStrided(ctx);
    drawTranspose(ctx);
    transposeCounters_.draw(ctx, gpu_, action(kActionTransposeCounters));
  }

 private:
  memory::TransposeParams transposeParams() const {
    memory::TransposeParams p;
    p.rows = rows_;
    p.cols = cols_;
    return p;
  }

  PatternId mapPattern() const { return mapOfShared_ ? shared_ : global_; }
  const PatternParams& mapParams() const { return mapOfShared_ ? sharedP_ : globalP_; }
  bool mapStale() const {
    return !mapFor_ || mapFor_->first != mapPattern() || mapFor_->second != mapParams();
  }

  void patternCombo(const char* id, PatternId& current, Space space) {
    ImGui::SetNextItemWidth(-1);
    if (beginCombo(id, tr(patternInfo(current).label))) {
      for (const PatternInfo& p : patterns()) {
        if (patternSpace(p.id) != space) continue;
        if (ImGui::Selectable(tr(p.label), p.id == current)) current = p.id;
        helpTooltip(p.help);
      }
      ImGui::EndCombo();
    }
    helpTooltip(patternInfo(current).help);
  }

  // The sliders of the parameters the pattern's kernel uses, then which warp and loop trip the
  // pictures show.
  void drawPatternParams(PatternParams& p, PatternId id, const char* idSuffix) {
    ImGui::PushID(idSuffix);
    const KernelId k = patternInfo(id).kernel;
    const Uses u = usesOf(k);
    if (u.stride) paramSlider(kStride, p.stride);
    if (u.offset) paramSlider(kOffset, p.offset);
    if (u.element) {
      if (beginCombo(halfWidthLabel("Element size"), memoryBytes(p.elementBytes).c_str())) {
        for (int e : kElementSizes)
          if (ImGui::Selectable(memoryBytes(e).c_str(), p.elementBytes == e)) p.elementBytes = e;
        ImGui::EndCombo();
      }
      helpTooltip(kElementBytes.help);
    }
    if (u.rows) paramSlider(kRows, p.rows);
    if (u.cols) paramSlider(kCols, p.cols);
    if (u.inner) paramSlider(kInner, p.inner);
    if (u.count) paramSlider(kCount, p.count);
    if (u.structs) paramSlider(kStructFloats, p.structFloats);
    const LaunchShape s = launchShape(k, p);
    int& warp = id == global_ ? globalWarp_ : sharedWarp_;
    int& trip = id == global_ ? globalTrip_ : sharedTrip_;
    const int warps = static_cast<int>(std::min<long long>(s.warps(), 1 << 20));
    warp = std::clamp(warp, 0, warps - 1);
    trip = std::clamp(trip, 0, s.iterations - 1);
    if (warps > 1) {
      ImGui::SliderInt(halfWidthLabel("Warp"), &warp, 0, warps - 1);
      helpTooltip("Which of the kernel's warps the picture shows, counted block by block.");
    }
    if (s.iterations > 1) {
      // "k" is the matrix product's own loop variable: the same in every language.
      ImGui::SliderInt(halfWidthLabel(k == KernelId::MatmulCourse || k == KernelId::MatmulSwapped
                                          ? "k"
                                          : N_("Loop trip")),
                       &trip, 0, s.iterations - 1);
      helpTooltip("The loop iteration: the matrix product's k, or which rows of the tile.");
    }
    ImGui::PopID();
  }

  // [SECTION] strided copy: measured bandwidth against the model

  void drawStrided(LessonContext& ctx) {
    if (!beginPanel(ctx, "strided", "Strided copy: bandwidth against stride")) return endPanel(ctx);
    // The count the results were measured for (the slider's until there are results).
    textWrapped(
        "out[i * s + o] = in[i * s + o] for %s floats: the same useful bytes at every stride, "
        "spread over more sectors.",
        thousands(strided_ ? strided_->p.count : stridedParams_.count).c_str());
    if (strided_) {
      const StridedReport& r = *strided_;
      staleNote(ctx.theme, r.p.count != stridedParams_.count || r.p.offset != stridedParams_.offset,
                actionLabel(kActionStrided));
      std::vector<double> xs, meas, pred;
      for (const StridedPoint& p : r.points) {
        xs.push_back(p.stride);
        meas.push_back(p.gbps);
        pred.push_back(p.predictedGBps);
      }
      bool allOk = true;
      for (const StridedPoint& p : r.points)
        allOk = allOk && p.m.check.ok();
      if (allOk)
        textWrapped(
            "Measured on %s, offset %d: stride 1: %.0f GB/s, stride 2: %.0f GB/s, stride %d: %.0f "
            "GB/s. Outputs correct.",
            r.device.c_str(), r.p.offset, meas.front(), meas.size() > 1 ? meas[1] : 0.0,
            r.points.back().stride, meas.back());
      else
        textWrapped(
            "Measured on %s, offset %d: stride 1: %.0f GB/s, stride 2: %.0f GB/s, stride %d: %.0f "
            "GB/s. Outputs WRONG.",
            r.device.c_str(), r.p.offset, meas.front(), meas.size() > 1 ? meas[1] : 0.0,
            r.points.back().stride, meas.back());
      if (plot::BeginPlot("memory_strided", "##strided", ImVec2(-1, 0))) {
        plot::SetupAxes(
            {N_("stride (elements)"), plot::Scale::Linear, 0.5, xs.back() + 0.5, "%.0f"},
            {N_("useful GB/s"), plot::Scale::Log10});
        plot::SetupLegend(plot::Legend::TopRight);
        plot::SetNextColour(0);
        plot::PlotLine("measured", xs.data(), meas.data(), int(xs.size()));
        plot::SetNextColour(1);
        plot::PlotLine("model: stride 1 x efficiency", xs.data(), pred.data(), int(xs.size()));
        plot::EndPlot();
      }
      mutedText(ctx.theme,
                "The model counts sectors only. Up to stride 8 the measured curve follows it "
                "(each doubling halves the useful bandwidth). Beyond 8 every lane already has a "
                "sector of its own, so the model stays flat, but the measured bandwidth keeps "
                "falling: a warp's 32 sectors now lie in more DRAM pages and need more address "
                "translations, costs the sector count does not see.");
    } else {
      const char* status = strided_.running() ? tr("Measuring...")
                           : gpu_
                               ? tr("Not measured yet.")
                               : tr("No GPU: nothing is measured. The model's efficiency at each "
                                    "stride:");
      wrappedText(status);
      if (!gpu_ && plot::BeginPlot("memory_strided_model", "##stridedmodel", ImVec2(-1, 0))) {
        std::vector<double> xs;
        for (size_t i = 0; i < stridedModel_.size(); ++i)
          xs.push_back(double(i + 1));
        std::vector<double> pc;
        for (double e : stridedModel_)
          pc.push_back(100 * e);
        plot::SetupAxes(
            {N_("stride (elements)"), plot::Scale::Linear, 0.5, double(xs.size()) + 0.5, "%.0f"},
            {N_("model efficiency (%)"), plot::Scale::Linear, 0, 105});
        plot::SetNextColour(1);
        plot::PlotLine("model (not measured)", xs.data(), pc.data(), int(xs.size()));
        plot::EndPlot();
      }
    }
    endPanel(ctx);
  }

  // [SECTION] transpose ladder

  void drawTranspose(LessonContext& ctx) {
    if (!beginPanel(ctx, "transpose", "The transpose ladder")) return endPanel(ctx);
    if (!transpose_) {
      ImGui::TextUnformatted(transpose_.running() ? tr("Measuring...") : tr("Not measured yet."));
      return endPanel(ctx);
    }
    const TransposeView& v = *transpose_;
    const TransposeReport* m = v.measured ? &*v.measured : nullptr;
    if (m)
      textWrapped(
          "B = transpose of A, %d x %d floats, on %s: %d runs per step, median. "
          "Bandwidth counts each element read once and written once.",
          v.rows, v.cols, m->device.c_str(), m->p.runs);
    else
      textWrapped(
          "No GPU: the model's columns only, for a %d x %d matrix. Bandwidths "
          "need a GPU.",
          v.rows, v.cols);
    staleNote(ctx.theme, v.rows != rows_ || v.cols != cols_, actionLabel(kActionTranspose));
    // The numbers keep their width and give way by priority on a projector (the model's columns
    // first). Without a GPU the measured columns are empty and give way before all others; what
    // each step changes is in its name's tooltip.
    static const TableColumn kColumns[] = {
        {"step"},
        {"kernel time, median (ms)", "ms", 2, nullptr, true},
        {"GB/s", nullptr, 0, "Each element read once and written once, over the kernel time.",
         true},
        {"of the copy's bandwidth", "of copy", 1, "This step's GB/s over cudaMemcpy's.", true},
        {"load sectors per request", "load sectors", 3},
        {"store sectors per request", "store sectors", 3},
        {"shared-memory passes per tile read", "shared passes", 3},
        {"checked against the CPU", "correct", 0, nullptr, true},
    };
    const auto steps = transposeSteps();
    if (beginDataTable("transpose", kColumns, static_cast<int>(steps.size()), m != nullptr)) {
      for (size_t i = 0; i < steps.size(); ++i) {
        const TransposeStepInfo& s = steps[i];
        const StepModel& sm = v.model[i];
        const TransposeResult* t = m ? &m->steps[i] : nullptr;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(s.label));
        helpTooltip(s.help);
        ImGui::TableNextColumn();
        if (t) ImGui::Text("%.3f", t->m.kernel().medianMs);
        ImGui::TableNextColumn();
        if (t) ImGui::Text("%.0f", t->gbps);
        ImGui::TableNextColumn();
        if (t) ImGui::TextUnformatted(memoryPercent(t->ofCeiling).c_str());
        const bool driver = s.step == TransposeStep::Memcpy;
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(driver ? "-" : trimmedFixed(sm.loadSectors, 2).c_str());
        ImGui::TableNextColumn();
        if (!driver && sm.storeSectors > 8)
          ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
        ImGui::TextUnformatted(driver ? "-" : trimmedFixed(sm.storeSectors, 2).c_str());
        if (!driver && sm.storeSectors > 8) ImGui::PopStyleColor();
        ImGui::TableNextColumn();
        if (sm.sharedLoad > 1) ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
        ImGui::TextUnformatted(sm.sharedLoad < 0 ? "-" : trimmedFixed(sm.sharedLoad, 1).c_str());
        if (sm.sharedLoad > 1) ImGui::PopStyleColor();
        ImGui::TableNextColumn();
        if (t) {
          const Correctness& c = t->m.check;
          ImGui::TextUnformatted(
              c.ok() ? tr("yes")
                     : trf("NO: %s wrong", thousands(static_cast<long long>(c.wrong)).c_str())
                           .c_str());
        }
      }
      endDataTable();
    }
    if (!m) mutedText(ctx.theme, "Hover a step's name for what it changes.");
    const bool smaller = modelExtent(v.rows) < v.rows || modelExtent(v.cols) < v.cols;
    if (smaller)
      mutedText(ctx.theme,
                trf("Model columns, per warp request: global sectors of the load and the store, "
                    "shared-memory passes of the tile read, counted at %d x %d (the same size "
                    "modulo 32: the same alignment and edge tiles).",
                    modelExtent(v.rows), modelExtent(v.cols))
                    .c_str());
    else
      mutedText(ctx.theme,
                "Model columns, per warp request: global sectors of the load and the store, "
                "shared-memory passes of the tile read.");
    if (m && plot::BeginPlot("memory_transpose", "##transposebars", ImVec2(-1, 0))) {
      std::vector<const char*> names;
      std::vector<double> gbps;
      for (const TransposeResult& t : m->steps) {
        names.push_back(transposeStep(t.step).id);
        gbps.push_back(t.gbps);
      }
      plot::SetupCategories(names.data(), int(names.size()));
      plot::SetupAxes({N_("step")}, {"GB/s", plot::Scale::Linear, 0});
      plot::SetupLegend(plot::Legend::Hidden);
      plot::SetNextColour(0);
      plot::PlotBars("GB/s", gbps.data(), int(gbps.size()));
      plot::PlotHLine("copy ceiling", m->ceilingGBps);
      plot::EndPlot();
    }
    endPanel(ctx);
  }

  // [SECTION] work on the worker thread; export

  static std::vector<double> modelEfficiencies(double maxStride, int offset) {
    std::vector<double> e;
    for (int s = 1; s <= int(maxStride); ++s)
      e.push_back(stridedEfficiency(s, offset));
    return e;
  }

  void poll(LessonContext& ctx) {
    ctx.errors(error_, {transpose_.collect(), strided_.collect()});
    // A map refused for a bad parameter says so in its panel; it is not an error of the lesson.
    if (auto r = map_.take()) {
      mapError_ = r->ok() ? Status{} : r->status();
      if (r->ok()) map_.kept() = std::move(r->value());
    }
  }

  bool startTranspose() {
    if (!mayStart(!transpose_.running())) return false;
    const bool gpu = gpu_;
    TransposeParams p;
    p.rows = rows_;
    p.cols = cols_;
    return transpose_.start([p, gpu](AsyncJob<TransposeView>::Control& c) -> Result<TransposeView> {
      c.progress(0, N_("the model"));  // translated where the bar shows it
      TransposeView v = transposeModel(p.rows, p.cols);
      if (!gpu) return v;
      Result<TransposeReport> r = measureTranspose(p, c.cancelFlag(), c.progressFn());
      if (!r) return r.status();
      v.measured = std::move(*r);
      return v;
    });
  }

  bool startStrided() {
    if (!mayStart(gpu_ && !strided_.running())) return false;
    const StridedParams p = stridedParams_;
    return strided_.start([p](AsyncJob<StridedReport>::Control& c) -> Result<StridedReport> {
      return measureStridedCopy(p, c.cancelFlag(), c.progressFn());
    });
  }

  bool startMap() {
    const PatternId id = mapPattern();
    const PatternParams p = mapParams();
    mapFor_ = std::make_pair(id, p);
    return map_.start([id, p](AsyncJob<MemoryMapView>::Control& c) -> Result<MemoryMapView> {
      Result<KernelMap> m = kernelMap(id, p, c.cancelFlag());
      if (!m) return m.status();
      MemoryMapView v{id, p, std::move(*m), {}, {}, {}, {}};
      auto names = [](int n, std::vector<std::string>& s, std::vector<const char*>& ptrs) {
        if (n > 24) return;
        for (int i = 0; i < n; ++i)
          s.push_back(std::to_string(i));
        for (const std::string& x : s)
          ptrs.push_back(x.c_str());
      };
      names(v.map.cols, v.colNames, v.colPtrs);
      names(v.map.rows, v.rowNames, v.rowPtrs);
      return v;
    });
  }

  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (transpose_ && transpose_->measured) {
      const auto steps = transposeSteps();
      for (size_t i = 0; i < steps.size() && i < transpose_->measured->steps.size(); ++i) {
        const TransposeResult& t = transpose_->measured->steps[i];
        // The label is what the pinned runs' table shows: translated when the run is taken.
        rows.push_back(
            {std::string("transpose ") + steps[i].id,
             trf("transpose: %s", tr(steps[i].label)),
             {{"GB/s", t.gbps, "GB/s", true}, {"ms", t.m.kernel().medianMs, "ms", false}}});
      }
    }
    if (strided_)
      for (const StridedPoint& p : strided_->points)
        rows.push_back(
            {"stride " + std::to_string(p.stride),
             trf("strided copy, stride %d", p.stride),
             {{"GB/s", p.gbps, "GB/s", true}, {"ms", p.m.kernel().medianMs, "ms", false}}});
    return rows;
  }

  LessonResults results() const override {
    // One table: each row names its section and leaves the others' columns empty.
    nlohmann::json j;
    std::string csv =
        "section,name,stride,rows,cols,value,unit,of_ceiling,model_efficiency,model_load_sectors,"
        "model_store_sectors,model_shared_passes,correct,source\n";
    const std::string src = gpu_ ? device_ : "model (no GPU)";
    j["source"] = src;
    const WarpRequest r = warpRequest(global_, globalP_, globalWarp_, globalTrip_);
    const GlobalAccess g = analyzeGlobal(r);
    const PatternInfo& gi = patternInfo(global_);
    csv += fmtRow({"warp", gi.key, std::to_string(globalP_.stride), std::to_string(globalP_.rows),
                   std::to_string(globalP_.cols), std::to_string(g.sectorCount()), "sectors", "",
                   std::to_string(g.efficiency()), "", "", "", "", "model"});
    j["warp"] = {{"pattern", gi.key},           {"warp", globalWarp_},
                 {"trip", globalTrip_},         {"sectors", g.sectorCount()},
                 {"lines", g.lineCount()},      {"bytes_requested", g.bytesRequested},
                 {"efficiency", g.efficiency()}};
    const SharedAccess sh = analyzeShared(warpRequest(shared_, sharedP_, sharedWarp_, sharedTrip_));
    const PatternInfo& si = patternInfo(shared_);
    csv += fmtRow({"banks", si.key, std::to_string(sharedP_.stride), "", "",
                   std::to_string(sh.degree), "way", "", "", "", "", std::to_string(sh.wavefronts),
                   "", sharedP_.padded ? "model, padded" : "model"});
    j["banks"] = {{"pattern", si.key},
                  {"padded", sharedP_.padded},
                  {"degree", sh.degree},
                  {"wavefronts", sh.wavefronts},
                  {"broadcast", sh.broadcast}};
    if (strided_)
      for (const StridedPoint& p : strided_->points) {
        csv += fmtRow({"strided", "copy", std::to_string(p.stride), "", "", std::to_string(p.gbps),
                       "GB/s", "", std::to_string(p.modelEfficiency), "", "", "",
                       p.m.check.ok() ? "yes" : "no", strided_->device});
        j["strided"].push_back({{"stride", p.stride},
                                {"gbps", p.gbps},
                                {"predicted_gbps", p.predictedGBps},
                                {"model_efficiency", p.modelEfficiency},
                                {"correct", p.m.check.ok()}});
      }
    if (transpose_) {
      const TransposeView& v = *transpose_;
      const auto steps = transposeSteps();
      for (size_t i = 0; i < steps.size(); ++i) {
        const StepModel& sm = v.model[i];
        const TransposeResult* t = v.measured ? &v.measured->steps[i] : nullptr;
        csv += fmtRow({"transpose", steps[i].id, "", std::to_string(v.rows), std::to_string(v.cols),
                       t ? std::to_string(t->gbps) : "", t ? "GB/s" : "",
                       t ? std::to_string(t->ofCeiling) : "", "", std::to_string(sm.loadSectors),
                       std::to_string(sm.storeSectors),
                       sm.sharedLoad < 0 ? "" : std::to_string(sm.sharedLoad),
                       t ? (t->m.check.ok() ? "yes" : "no") : "",
                       v.measured ? v.measured->device : "model"});
        nlohmann::json row = {{"step", steps[i].id},
                              {"model_load_sectors", sm.loadSectors},
                              {"model_store_sectors", sm.storeSectors}};
        row["model_shared_passes"] =
            sm.sharedLoad < 0 ? nlohmann::json() : nlohmann::json(sm.sharedLoad);
        if (t) {
          row["gbps"] = t->gbps;
          row["median_ms"] = t->m.kernel().medianMs;
          row["of_ceiling"] = t->ofCeiling;
          row["correct"] = t->m.check.ok();
        }
        j["transpose"]["rows"] = v.rows;
        j["transpose"]["cols"] = v.cols;
        j["transpose"]["steps"].push_back(row);
      }
    }
    return {.json = std::move(j), .csv = std::move(csv)};
  }

  static std::string fmtRow(const std::vector<std::string>& cells) {
    std::string s;
    for (size_t i = 0; i < cells.size(); ++i) {
      std::string c = cells[i];
      if (c.find_first_of(",\"") != std::string::npos) {
        std::string q = "\"";
        for (char ch : c)
          q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        c = q + "\"";
      }
      s += (i ? "," : "") + c;
    }
    return s + "\n";
  }

  bool gpu_ = false;
  bool started_ = false;
  std::string device_;

  PatternId global_ = PatternId::Strided;
  PatternParams globalP_;
  int globalWarp_ = 0, globalTrip_ = 0;
  PatternId shared_ = PatternId::TileColumns;
  PatternParams sharedP_;
  int sharedWarp_ = 0, sharedTrip_ = 0;

  bool mapOfShared_ = false;
  std::optional<std::pair<PatternId, PatternParams>> mapFor_;
  KeptJob<MemoryMapView> map_;
  Status mapError_;

  int rows_ = 8192, cols_ = 8192;
  KeptJob<TransposeView> transpose_;

  StridedParams stridedParams_;
  std::vector<double> stridedModel_;
  MemoryCountersPanel counters_;
  HelperCountersPanel<TransposeParams> transposeCounters_ = makeTransposeCountersPanel();
  KeptJob<StridedReport> strided_;
};

}  // namespace

const LessonEntry kMemoryLesson{&kMemoryLessonInfo, &makeLesson<MemoryLesson>, kMemoryBenches};

}  // namespace cudalab
