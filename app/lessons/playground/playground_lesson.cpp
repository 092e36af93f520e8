// Lesson "playground": the learner's own kernel. The exercise table (kernels/playground) gives
// the course text, the starting kernel, the inputs, the check and the hints; this file is the
// editor, the launch controls, the compile-and-run job and the pictures of what came back.
//
// [SECTION] index
//   lesson text, state
//   parameters panel: exercise, N, launch, runs, compile and run (files, hints and the
//   solution: playground_files_panel.cpp)
//   main view: editor, result and picture, times, launch (the messages under the editor and the
//   compiler output: playground_compiler_panel.cpp; the result's pieces: playground_panels.cpp)
//   the editor's text replaced, its marks
//   jobs: hello (the worker's GPU), compile and run; the output picture's texture
//   the learner's code on disk
#include "core/i18n.hpp"
#include "lessons/playground/playground_lesson.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <functional>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "common/async_job.hpp"
#include "common/format.hpp"
#include "shaders.hpp"
#include "lessons/playground/playground_compiler_panel.hpp"
#include "lessons/playground/playground_grading_panel.hpp"
#include "lessons/playground/playground_machine_code_panel.hpp"
#include "lessons/playground/playground_files_panel.hpp"
#include "lessons/playground/playground_panels.hpp"
#include "platform/gl.hpp"
#include "platform/interop.hpp"
#include "platform/shader_pass.hpp"
#include "playground/compile.hpp"
#include "playground/grading.hpp"
#include "playground/playground.hpp"
#include "playground/source_check.hpp"
#include "playground/worker.hpp"
#include "lessons/playground/code_editor.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab {

// [SECTION] lesson text, state

const LessonInfo kPlaygroundLessonInfo{
    "playground", N_("Playground: write your own kernel"),
    N_("course files 000-004: Numba's @cuda.jit and @vectorize, PyCUDA's SourceModule, "
       "cuda-python, and file 004's exercises (the counter race, the histogram)"),
    N_("Type a CUDA kernel, compile it in the app with NVRTC, run it with the grid and block you "
       "choose in a separate worker process, and see every element checked against a CPU "
       "reference: right, wrong, never written or written past the end. Then time it beside the "
       "built-in lessons' kernels and the library.")};

namespace {

using namespace playground;
using namespace pg;

// The action table's ids (the table is in the lesson's constructor); run-solution-lines is the
// solution with the counters per line on, for figures of the per-line table.
constexpr const char *kActionCompile = "compile", *kActionRun = "run",
                     *kActionCheckSizes = "check-sizes", *kActionRunSolution = "run-solution",
                     *kActionRunSolutionLines = "run-solution-lines";

// What one press of Compile or Run produced.
struct Outcome {
  CompileResult compiled;
  std::string text;  // the source as compiled
  bool ranRequested = false;
  std::optional<RunReport> report;
  Status runError;
  RunParams params;
  std::string output;  // the kernel's printf (and compute-sanitizer's report)
  bool sanitized = false;
  std::optional<SanitizerFinding> finding;
  std::string exercise;              // the exercise it was for
  std::optional<WorkerHello> hello;  // when the job had to ask the worker itself
};

// Picture keys for shaders/cells.frag: the Cell values, then an intact guard zone and padding.
constexpr std::uint32_t kGuardIntactKey = 5u;
constexpr std::uint32_t kPaddingKey = 6u;

class PlaygroundLesson final : public Lesson {
 public:
  PlaygroundLesson()
      : Lesson(kPlaygroundLessonInfo, kPlaygroundParams,
               variantRows(exercises(), &Exercise::id, "", &Exercise::title, &Exercise::task)) {
    selectExercise(exercises().front());
    // The two buttons, and for --action and plans two that have no button of their own ("Show
    // the solution", then "Compile and run"); then each again on a chosen exercise
    // ("run:vector-add"), which selects it first.
    std::vector<LessonAction> table;
    auto add = [&](const std::string& id, const char* label, const char* help,
                   std::function<bool()> start) {
      table.push_back({.id = id,
                       .label = label,
                       .help = help,
                       .start = std::move(start),
                       .pending = [this] { return job_.pending(); },
                       .cancel = [this] { job_.cancel(); }});
    };
    auto addAll = [&](const Exercise* e) {
      const std::string on = e ? std::string(":") + e->id : std::string();
      add(kActionRun + on, N_("Compile and run"), nullptr,
          [this, e] { return startOn(e, [this] { return gpu_ && startJob(true); }); });
      add(kActionRunSolution + on, N_("Run the solution"), nullptr,
          [this, e] { return startOn(e, [this] { return startSolution(false); }); });
      add(kActionRunSolutionLines + on, N_("Run the solution with counters per line"), nullptr,
          [this, e] { return startOn(e, [this] { return startSolution(true); }); });
    };
    add(kActionCompile, N_("Compile"),
        N_("NVRTC compiles the text for this GPU (or for sm_90 without one): errors and warnings "
           "appear on their lines, with the registers and shared memory used."),
        [this] { return startOn(nullptr, [this] { return startJob(false); }); });
    addAll(nullptr);
    for (const Exercise& e : exercises())
      addAll(&e);
    for (LessonAction& a : machine_.compareActions())  // compare:fast-math, compare:restrict...
      table.push_back(std::move(a));
    table.push_back(
        {.id = kActionCheckSizes,
         .label = N_("Check at every size"),
         .help = N_("Compiles the text and runs it at each size the table lists (one run each, "
                    "fresh random inputs, outputs poisoned, guard zones around them); each "
                    "size's verdict appears beside it."),
         .start = [this] { return startGrading(); },
         .pending = [this] { return grading_.pending(); },
         .cancel = [this] { grading_.cancel(); }});
    declareActions(std::move(table));
  }
  ~PlaygroundLesson() override { saveText(); }

  // Also for a few frames after a result arrives: its tables need two frames to size their
  // columns, and a screenshot should not catch the first.
  bool otherWorkPending() const override {
    return helloJob_.pending() || machine_.pending() || settleFrames_ > 0;
  }
  std::vector<ParamBinding> bindings() override {
    // The exercise first: choosing one brings its own run parameters, which the others then set.
    std::vector<std::string> ids;
    for (const Exercise& e : exercises())
      ids.push_back(e.id);
    return {bindChoiceBy(
                kExerciseChoice, std::move(ids),
                [this] { return static_cast<int>(ex_ - exercises().data()); },
                [this](int i) {
                  saveText();
                  selectExercise(exercises()[size_t(i)]);
                },
                [this] {
                  if (!job_.running()) startJob(false);
                }),
            bindParam(kRunsSpec, params_.runs), bindParam(kTimeoutSpec, params_.timeoutSeconds),
            bindParam(kBinsSpec, params_.bins)};
  }
  std::vector<ComparedRow> comparable() const override {
    std::vector<ComparedRow> rows;
    if (!last_ || !last_->report) return rows;
    const RunReport& r = *last_->report;
    rows.push_back({"yours",
                    "your kernel (" + last_->exercise + ")",
                    {{"ms", r.medianMs, "ms", false},
                     {"wrong elements", double(r.wrong + r.unwritten + r.pastEnd), "", false}}});
    for (const Comparison& c : r.comparisons)
      rows.push_back({c.label, c.label, {{"ms", c.ms, "ms", false}}});
    return rows;
  }

  // Starts `start` on exercise `e` (selected first; nullptr: the one shown), unless a job runs.
  bool startOn(const Exercise* e, const std::function<bool()>& start) {
    if (job_.running()) return false;
    if (e) selectExercise(*e);
    return start();
  }
  // The exercise's solution, compiled and run (with the counters per line or without).
  bool startSolution(bool lineCounters) {
    if (!gpu_) return false;
    showSolution();
    params_.lineCounters = lineCounters;
    return startJob(true);
  }

  void onShow(LessonContext& ctx) override {
    gpu_ = ctx.runtime.hasDevice();
    dataDir_ = ctx.userDataDir;
    sanitizerPath_ = findComputeSanitizer();
    loadSavedText();
    startJob(false);  // the starter's compiler output and resources at once (no worker needed)
    if (gpu_) startHello();
  }

  // [SECTION] parameters panel

  void drawParameters(LessonContext& ctx) override {
    poll(ctx);
    dataDir_ = ctx.userDataDir;
    ImGui::SetNextItemWidth(-1);
    // Not while a job runs: its result belongs to the exercise it started with.
    ImGui::BeginDisabled(job_.running());
    const bool comboOpen = beginCombo("##exercise", tr(ex_->title));
    ImGui::EndDisabled();
    if (comboOpen) {
      for (const Exercise& e : exercises())
        if (ImGui::Selectable(tr(e.title), &e == ex_) && &e != ex_) {
          saveText();
          selectExercise(e);
          startJob(false);
        }
      ImGui::EndCombo();
    }
    textWrapped("%s", tr(ex_->task));
    mutedText(ctx.theme, ex_->course);  // translated by mutedText (marked in the table)
    ImGui::Separator();

    if (ex_->kind != Kind::Counter) {
      ParamSpec n{
          .id = "n",
          .label = squareMatrix(ex_->kind) ? N_("n (rows = columns)") : "N",
          .min = double(ex_->minN),
          .max = double(ex_->maxN),
          .defaultValue = double(ex_->defaultN),
          .help = N_("How many elements the app makes (fresh random numbers each run) and checks."),
          .logScale = true};
      paramSlider(n, params_.n);
    }
    if (ex_->kind == Kind::Histogram) paramSlider(kBinsSpec, params_.bins);
    ImGui::TextUnformatted(tr("Block (threads)"));
    helpTooltip(kBlockDimSpec.help);
    dimInputs("##block", params_.launch.block, 2048);
    if (ex_->kind != Kind::Counter) {  // the counter has no N to cover
      checkbox("Grid from N", &params_.autoGrid);
      helpTooltip(
          "On: as many blocks as N needs at this block size (rounded up). Off: the grid "
          "below, as you set it.");
    }
    const Launch l = launchFor(*ex_, params_);
    ImGui::TextUnformatted(tr("Grid (blocks)"));
    helpTooltip(kGridDimSpec.help);
    if (params_.autoGrid) {
      ImGui::Text("%s x %s x %s", thousands(l.grid.x).c_str(), thousands(l.grid.y).c_str(),
                  thousands(l.grid.z).c_str());
    } else {
      dimInputs("##grid", params_.launch.grid, 1LL << 32);
    }
    paramSlider(kRunsSpec, params_.runs);
    paramSlider(kTimeoutSpec, params_.timeoutSeconds);
    ImGui::BeginDisabled(sanitizerPath_.empty() || job_.running() || helloJob_.running() ||
                         grading_.running());
    if (checkbox("Check accesses", &sanitize_)) {
      worker_.reset();  // the next run starts a worker with the other command
    }
    ImGui::EndDisabled();
    helpTooltip(sanitizerPath_.empty()
                    ? N_("Needs compute-sanitizer from the CUDA toolkit, which was not found.")
                    : N_("Runs the worker under compute-sanitizer's memcheck: every memory access "
                         "of your kernel is checked, and a bad one is reported with its source "
                         "line and thread instead of faulting on the GPU. Tens of times slower, so "
                         "the times are not meaningful then."));
    checkbox("Compare", &params_.compare);
    helpTooltip(
        "Also time the built-in lesson's kernel and the library (CUB, cuBLAS) on the same "
        "problem, for the Time panel.");
    ImGui::BeginDisabled(sanitize_);
    checkbox("Counters per line", &params_.lineCounters);
    ImGui::EndDisabled();
    helpTooltip(
        "Also read the GPU's counters for every line of your kernel (CUPTI's SASS metrics, what "
        "Nsight Compute's source view shows): how often each line ran, with how many threads, "
        "and the sectors and shared-memory passes its loads and stores needed; then, in a second "
        "run, where its warps waited and why (PC sampling). Measured on untimed launches; the "
        "timed runs are not affected. Not with Check accesses.");
    valid_ = validate(*ex_, params_, limits());
    errorText(ctx.theme, valid_);
    ImGui::Separator();

    const bool working = job_.running();
    if (working) {
      // The job's steps are marked N_() where startJob reports them.
      ImGui::TextUnformatted(job_.progress().what.empty() ? tr("Working...")
                                                          : tr(job_.progress().what.c_str()));
      if (button("Cancel")) cancelAll();
    } else {
      actionButton(action(kActionCompile));
      sameLineIfButtonFits(tr(action(kActionRun).label));
      ImGui::BeginDisabled(!gpu_ || !valid_.ok());
      actionButton(action(kActionRun));
      ImGui::EndDisabled();
      if (!gpu_)
        mutedText(ctx.theme,
                  "Running needs an NVIDIA GPU; compiling, the warnings, the PTX and "
                  "the launch numbers work without one.");
    }
    ImGui::Separator();
    if (drawFiles(ctx, *ex_, editor_, filePath_, fileStatus_, beforeSolution_, !dataDir_.empty()))
      textReplaced();
    ImGui::Separator();
    if (drawHints(ctx, *ex_, editor_, hintsShown_, beforeSolution_)) textReplaced();
  }

  // Wide views put the code on the left (three fifths) and what came back on the right; views
  // where that column would cut an 80-character line (a 1440-pixel window, a projector's UI
  // scale) stack them, the code at the full width.
  void drawMain(LessonContext& ctx) override {
    poll(ctx);
    refreshPicture(ctx);
    if (settleFrames_ > 0) --settleFrames_;
    ImFont* mono = ctx.theme.fonts().mono ? ctx.theme.fonts().mono : ImGui::GetFont();
    const float lineW =
        mono->CalcTextSizeA(ImGui::GetFontSize(), FLT_MAX, 0.0f, std::string(80 + 6, 'm').c_str())
            .x;  // 80 characters and the line numbers' gutter
    const bool twoColumns =
        ImGui::GetContentRegionAvail().x * 0.6f > lineW + 4 * ImGui::GetFontSize();
    if (twoColumns && ImGui::BeginTable("##columns", 2, ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("code", ImGuiTableColumnFlags_WidthStretch, 3.0f);
      ImGui::TableSetupColumn("result", ImGuiTableColumnFlags_WidthStretch, 2.0f);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      drawCodePanel(ctx);
      drawCompilerPanel(ctx);
      ImGui::TableNextColumn();
      drawResultPanels(ctx);
      drawLaunchPanel(ctx);
      ImGui::EndTable();
    } else {
      drawCodePanel(ctx);
      drawResultPanels(ctx);
      drawLaunchPanel(ctx);
      drawCompilerPanel(ctx);
    }
  }

 private:
  // The SM of the GPU the worker reported, or of an H100 without one.
  SmModel smModel() const { return hello_ ? hello_->smModel() : SmModel{}; }

  GpuLimits limits() const { return hello_ && hello_->hasDevice ? hello_->limits : GpuLimits{}; }

  void selectExercise(const Exercise& e) {
    if (ex_ == &e) return;
    ex_ = &e;
    if (auto it = paramsById_.find(e.id); it != paramsById_.end())
      params_ = it->second;
    else
      params_ = defaultRunParams(e);
    auto t = texts_.find(e.id);
    editor_.setText(t != texts_.end() ? t->second : std::string(starterSource(e)));
    lint_ = lint(editor_.text());
    last_.reset();
    compiledRegs_ = 0;
    compiledShared_ = 0;
    attempts_.clear();
    hintsShown_ = 0;
    beforeSolution_.reset();
    pictureW_ = 0;
    filePath_ = defaultFilePath();
    fileStatus_ = {};
    updateMarks();
  }

  void rememberExercise() {
    texts_[ex_->id] = editor_.text();
    paramsById_[ex_->id] = params_;
  }

  void showSolution() {
    pg::showSolution(*ex_, editor_, beforeSolution_);
    textReplaced();
  }

  // [SECTION] main view

  void drawCodePanel(LessonContext& ctx) {
    const float lineH = ImGui::GetTextLineHeightWithSpacing();
    if (beginPanel(ctx, "code", "Your kernel")) {
      textWrapped("The app calls  %s", signatureText(*ex_).c_str());
      if (ex_->kind != Kind::Elementwise) {
        const Launch l = launchFor(*ex_, params_);
        mutedText(ctx.theme, trf("with <<<(%s), (%s)>>>. Ctrl+Z undoes, Ctrl+Y redoes.",
                                 dimText(l.grid).c_str(), dimText(l.block).c_str())
                                 .c_str());
      }
      const int lines =
          static_cast<int>(std::count(editor_.text().begin(), editor_.text().end(), '\n')) + 1;
      const float editorH = std::clamp(static_cast<float>(lines + 3) * ImGui::GetTextLineHeight(),
                                       14.0f * lineH, 32.0f * lineH);
      // The machine code's colours in the margin while the text is the one compiled.
      static const std::vector<ImU32> kNone;
      editor_.setLineBands(last_ && last_->text == editor_.text() ? machine_.lineBands() : kNone);
      if (editor_.draw("##editor", ImVec2(-1, editorH), ctx.theme)) {
        textDirty_ = true;
        lint_ = lint(editor_.text());
        updateMarks();
      }
      drawMessages(ctx, last_ ? &last_->compiled : nullptr, last_ && last_->text != editor_.text(),
                   lint_, editor_);
    }
    endPanel(ctx);
  }

  void drawKernelOutput(LessonContext& ctx) {
    if (last_->finding) {
      const SanitizerFinding& f = *last_->finding;
      // The finding itself is compute-sanitizer's own English, as printed.
      std::string t = f.line > 0 ? trf("compute-sanitizer: %s, line %d", f.what.c_str(), f.line)
                                 : "compute-sanitizer: " + f.what;
      if (!f.where.empty()) t += ", " + f.where;
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
      textWrapped("%s", t.c_str());
      ImGui::PopStyleColor();
      if (f.line > 0 && ImGui::IsItemClicked()) editor_.gotoLine(f.line);
      if (f.line > 0) helpTooltip("Click to go to this line.");
    }
    if (last_->output.empty()) return;
    ImGui::TextUnformatted(last_->sanitized ? tr("What the kernel and compute-sanitizer printed:")
                                            : tr("What the kernel printed:"));
    ImGui::PushFont(ctx.theme.fonts().mono);
    ImGui::TextUnformatted(last_->output.c_str());
    ImGui::PopFont();
  }

  void drawResultPanels(LessonContext& ctx) {
    const float lineH = ImGui::GetTextLineHeightWithSpacing();
    if (!last_ || (!last_->report && last_->runError.ok())) {
      if (beginPanel(ctx, "result", "Result")) {
        mutedText(ctx.theme, gpu_ ? tr("Press \"Compile and run\": the result of every element, "
                                       "the time and the comparisons appear here.")
                                  : tr("Running needs an NVIDIA GPU. Compiling, the warnings, the "
                                       "PTX, the registers and the launch numbers work here."));
      }
      endPanel(ctx);
      return;
    }
    if (!last_->report) {
      if (beginPanel(ctx, "result", "Result")) {
        errorText(ctx.theme, last_->runError);
        drawKernelOutput(ctx);
        drawAttempts(ctx, attempts_);
      }
      endPanel(ctx);
      return;
    }
    const RunReport& r = *last_->report;
    if (beginPanel(ctx, "result", "Result")) {
      drawVerdict(ctx, *ex_, last_->params, r);
      // One counter or a few bins are clearer in their own plot than as a picture.
      const bool picture = ex_->kind != Kind::Counter && ex_->kind != Kind::Histogram;
      if (picture && picture_.ready() && pictureW_ > 0) {
        const float aspect = static_cast<float>(pictureW_) / static_cast<float>(pictureH_);
        float h = 12.0f * lineH;
        float w = h * aspect;
        const float avail = ImGui::GetContentRegionAvail().x;
        if (w > avail) {
          w = avail;
          h = w / aspect;
        }
        ImGui::Image(picture_.textureId(), ImVec2(w, h));
        helpTooltip(
            "Every output element, coloured by what the check found (for a matrix, C "
            "itself; rows from the top). Below a gap: the guard zone the app keeps past "
            "the end of the output.");
        drawPictureLegend(ctx, r);
      }
      drawExercisePlot(ctx, *ex_, last_->params, r);
      drawKernelOutput(ctx);
    }
    endPanel(ctx);
    if (beginPanel(ctx, "times", "Time")) {
      drawTimes(ctx, *ex_, r, last_->sanitized);
      drawAttempts(ctx, attempts_);
    }
    endPanel(ctx);
    if (last_->params.lineCounters) drawLineCounters(ctx, lineRows_, r);
  }

  void drawLaunchPanel(LessonContext& ctx) {
    if (beginPanel(ctx, "launch", "The launch in numbers")) {
      // After a failed compile the numbers are the last compiled kernel's, and say so (they
      // changed silently, from 16 registers to the model's default).
      const int regs = compiledRegs_;
      const long long shared = compiledShared_;
      if (last_ && !last_->compiled.ok && regs > 0)
        mutedText(ctx.theme, trf("Your last change did not compile: these numbers are for the "
                                 "last kernel that did (%d registers per thread).",
                                 regs)
                                 .c_str());
      const SmModel sm = smModel();
      int sms = 132;
      std::string smName = tr("a model of an H100");
      if (hello_ && hello_->hasDevice) {
        sms = hello_->smCount;
        smName = hello_->device;
      }
      const LaunchNumbers n = launchNumbers(*ex_, params_, regs, shared, sm, sms);
      const bool ran = last_ && last_->report;
      drawLaunchNumbers(ctx, n, hello_ && hello_->hasDevice,
                        ran ? last_->report->resources.blocksPerSM : 0,
                        ran ? last_->report->resources.maxThreadsPerBlock : 0, smName);
    }
    endPanel(ctx);
  }

  void drawCompilerPanel(LessonContext& ctx) {
    if (last_ && last_->compiled.ok) pg::drawCompilerPanel(ctx, last_->compiled);
    machine_.draw(ctx, editor_);
    grading_.draw(ctx, *ex_, params_, action(kActionCheckSizes), gpu_ && valid_.ok(), sanitize_,
                  editor_.text());
  }

  // [SECTION] the editor's text replaced, its marks

  // After the text was replaced (loaded, the starting kernel, the solution or back): check it
  // again, mark it and save it at the next chance.
  void textReplaced() {
    lint_ = lint(editor_.text());
    textDirty_ = true;
    updateMarks();
  }

  // The last compile's messages and the sanitizer's finding mark lines only while the text is
  // still the one they were made from.
  void updateMarks() {
    const bool current = last_ && last_->text == editor_.text();
    editor_.setMarks(editorMarks(current ? &last_->compiled.diagnostics : nullptr, lint_,
                                 current && last_->finding ? &*last_->finding : nullptr));
  }

  // [SECTION] jobs

  void startHello() {
    helloJob_.start([this](AsyncJob<WorkerHello>::Control& c) -> Result<WorkerHello> {
      return worker().hello(c.cancelFlag());
    });
  }

  // The most registers any of the exercise's kernels uses (the double one of the element-wise
  // pair needs more), by name: a learner's helper kernels do not count.
  static int kernelRegisters(const CompileResult& c, const Exercise& e, long long* shared) {
    int regs = 0;
    for (const std::string& name : entryPoints(e))
      for (const PtxasInfo& info : c.resources)
        if (info.function == name) {
          regs = std::max(regs, info.registers);
          if (shared) *shared = std::max(*shared, info.sharedBytes);
        }
    return regs;
  }

  WorkerClient& worker() {
    if (!worker_) worker_ = std::make_unique<WorkerClient>(workerCommand(sanitize_));
    return *worker_;
  }

  // Compile, and with `run` run too. A run needs the worker, which the hello job may be using.
  bool startJob(bool run) {
    if (job_.running() || grading_.running() || (run && helloJob_.running())) return false;
    rememberExercise();
    saveText();
    const Exercise* e = ex_;
    const std::string text = editor_.text();
    RunParams p = params_;
    p.seed = ++seed_ * 7919 + static_cast<std::uint64_t>(std::time(nullptr));
    // The counters per line come with the stall samples (a second run: WorkerClient::run).
    p.stalls = p.lineCounters;
    CompileOptions o;
    o.arch = hello_ && hello_->hasDevice ? hello_->arch : 0;
    const bool doRun = run && gpu_ && validate(*e, p, limits()).ok();
    const bool sanitized = sanitize_;
    if (sanitized) {
      // Every access is checked: one timed run, and a longer limit. The sanitizer and the
      // profiler cannot both attach to the worker.
      p.lineCounters = false;
      p.stalls = false;
      p.runs = 1;
      p.timeoutSeconds = std::min(kTimeoutSpec.max, std::max(30.0, p.timeoutSeconds * 20));
    }
    const SmModel sm = smModel();
    const int learnerLines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
    o.learnerLines = learnerLines;
    return job_.start([this, e, text, p, o, doRun, sanitized,
                       sm](AsyncJob<Outcome>::Control& c) mutable -> Result<Outcome> {
      Outcome out;
      out.text = text;
      out.params = p;
      out.sanitized = sanitized;
      out.exercise = e->id;
      if (doRun && o.arch == 0) {
        // No hello yet (it failed, or is still to come): ask now, to compile for this GPU.
        c.progress(0.05f, N_("Starting the worker process..."));
        Result<WorkerHello> h = worker().hello(c.cancelFlag());
        if (!h) return h.status();
        out.hello = *h;
        if (h->hasDevice) o.arch = h->arch;
      }
      c.progress(0.1f, N_("Compiling with NVRTC..."));
      Result<CompileResult> r = compileKernel(programSource(*e, text), entryPoints(*e), o);
      if (!r) return r.status();
      out.compiled = std::move(*r);
      out.ranRequested = doRun;
      if (!doRun || !out.compiled.ok) return out;
      if (Status s = checkRegisters(*e, p, kernelRegisters(out.compiled, *e, nullptr), sm); !s) {
        out.runError = s;
        return out;
      }
      c.progress(0.4f, N_("Running in the worker process..."));
      Result<RunReport> rep = worker().run(out.compiled, *e, p, c.cancelFlag());
      out.output = worker().output();
      if (rep) {
        out.report = std::move(*rep);
        out.output = out.report->output;
      } else {
        out.runError = rep.status();
      }
      out.finding = firstSanitizerFinding(out.output);
      return out;
    });
  }

  // Compiles the text and grades it at every size in the worker (GradingPanel::start).
  bool startGrading() {
    // Under compute-sanitizer the largest sizes would pass any time limit: the grading checks
    // what the kernel computes, and runs without it.
    if (!gpu_ || sanitize_ || job_.running() || grading_.running() || helloJob_.running())
      return false;
    rememberExercise();
    saveText();
    RunParams p = params_;
    p.seed = ++seed_ * 7919 + static_cast<std::uint64_t>(std::time(nullptr));
    return grading_.start(*ex_, editor_.text(), p, hello_ && hello_->hasDevice ? hello_->arch : 0,
                          worker());
  }

  void poll(LessonContext& ctx) {
    if (auto h = helloJob_.take()) {
      if (*h) {
        hello_ = **h;
        if (!hello_->hasDevice) gpu_ = false;
      } else {
        ctx.error(h->status());
      }
    }
    if (auto r = job_.take()) {
      if (!*r) {
        ctx.error(r->status());
        return;
      }
      if ((*r)->hello) hello_ = (*r)->hello;
      if ((*r)->exercise != ex_->id) return;  // for an exercise no longer shown
      last_ = std::move(**r);
      machine_.set(last_->compiled);
      machine_.setSource(*ex_, last_->text);
      machine_.setRun(last_->report ? &*last_->report : nullptr);
      lineRows_ = last_->report ? lineRows(last_->text, *last_->report) : std::vector<LineRow>{};
      // A failed compile has no registers: the launch numbers keep the last compiled kernel's.
      if (last_->compiled.ok) {
        compiledShared_ = 0;
        compiledRegs_ = kernelRegisters(last_->compiled, *ex_, &compiledShared_);
      }
      settleFrames_ = 3;
      Attempt a;
      a.number = static_cast<int>(attempts_.size()) + 1;
      a.compiled = last_->compiled.ok;
      if (last_->report) {
        a.ran = true;
        a.correct = last_->report->ok;
        a.ms = last_->report->medianMs;
        pictureDirty_ = true;
      }
      if (last_->ranRequested || !last_->compiled.ok) attempts_.push_back(a);
      if (!last_->runError.ok()) ctx.error(last_->runError);
      updateMarks();
    }
  }

  // The output picture: the report's cells (and, after a gap, the guard zone's) as keys, coloured
  // by shaders/cells.frag.
  void refreshPicture(LessonContext& ctx) {
    if (!pictureDirty_ || !last_ || !last_->report) return;
    pictureDirty_ = false;
    const RunReport& r = *last_->report;
    const int w = std::max(1, r.cellsWide);
    const int mainRows = static_cast<int>((r.cells.size() + w - 1) / w);
    // The guard zone, merged down to at most a quarter of the picture's height.
    const int maxGuardRows = std::max(1, mainRows / 4);
    const size_t guardCells = std::min(r.guardCells.size(), static_cast<size_t>(maxGuardRows) * w);
    const size_t merge = guardCells ? (r.guardCells.size() + guardCells - 1) / guardCells : 1;
    const int guardRows = static_cast<int>((guardCells + w - 1) / w);
    const int h = mainRows + (guardRows ? guardRows + 1 : 0);
    std::vector<std::uint32_t> keys(static_cast<size_t>(w) * h, kPaddingKey);
    for (size_t i = 0; i < r.cells.size(); ++i)
      keys[i] = static_cast<std::uint32_t>(r.cells[i]);
    for (size_t g = 0; g < guardCells; ++g) {
      Cell worst = Cell::Correct;
      for (size_t k = g * merge; k < std::min(r.guardCells.size(), (g + 1) * merge); ++k)
        if (r.guardCells[k] == Cell::PastEnd) worst = Cell::PastEnd;
      keys[static_cast<size_t>(mainRows + 1) * w + g] =
          worst == Cell::PastEnd ? static_cast<std::uint32_t>(Cell::PastEnd) : kGuardIntactKey;
    }
    // Texture row 0 is drawn at the top of the image: the data's first row.
    Status s;
    if (image_.width() != w || image_.height() != h) s = image_.create(w, h, PixelFormat::R32UI);
    if (s && !picture_.ready()) s = picture_.init(shaders::cells_frag);
    if (s) s = image_.uploadFromHost(keys.data());
    // Draw the picture at a resolution where each cell is at least a few pixels.
    const int scale = std::max(1, 512 / std::max(w, h));
    if (s)
      s = picture_.render(image_.texture(), w * scale, h * scale, [&](unsigned program) {
        glUniform1f(glGetUniformLocation(program, "checker"), std::max(2.0f, 2.0f * ctx.scale));
      });
    if (!s) {
      ctx.error(s);
      return;
    }
    pictureW_ = w;
    pictureH_ = h;
  }

  // [SECTION] the learner's code on disk

  std::string savedPath(const Exercise& e) const {
    return dataDir_.empty() ? "" : dataDir_ + "/playground/" + e.id + ".cu";
  }

  std::string defaultFilePath() const {
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : ".") + "/cudalab-kernels/" + ex_->id + ".cu";
  }

  void saveText() {
    if (!textDirty_ || dataDir_.empty() || !ex_) return;
    if (saveFile(savedPath(*ex_), editor_.text())) textDirty_ = false;
  }

  void loadSavedText() {
    if (dataDir_.empty()) return;
    for (const Exercise& e : exercises()) {
      std::ifstream in(savedPath(e));
      if (!in) continue;
      std::stringstream ss;
      ss << in.rdbuf();
      texts_[e.id] = ss.str();
    }
    if (auto t = texts_.find(ex_->id); t != texts_.end()) {
      editor_.setText(t->second);
      lint_ = lint(editor_.text());
      updateMarks();
    }
  }

  bool gpu_ = false;
  std::string dataDir_;
  const Exercise* ex_ = nullptr;
  RunParams params_;
  std::map<std::string, RunParams> paramsById_;
  std::map<std::string, std::string> texts_;
  CodeEditor editor_;
  bool textDirty_ = false;
  std::vector<Diagnostic> lint_;
  Status valid_;
  std::optional<std::string> beforeSolution_;
  int hintsShown_ = 0;
  std::string filePath_;
  Status fileStatus_;
  std::optional<WorkerHello> hello_;
  std::optional<Outcome> last_;
  // The registers per thread and static shared memory of the last kernel that compiled.
  int compiledRegs_ = 0;
  long long compiledShared_ = 0;
  std::vector<LineRow> lineRows_;  // the per-line table of last_'s report
  MachineCodePanel machine_;       // the PTX and SASS of the last kernel that compiled
  std::vector<pg::Attempt> attempts_;
  std::uint64_t seed_ = 0;
  bool pictureDirty_ = false;
  int settleFrames_ = 0;
  bool sanitize_ = false;
  std::string sanitizerPath_;
  int pictureW_ = 0, pictureH_ = 0;
  InteropImage image_;
  ShaderPass picture_;
  // The worker is used only by the jobs below, one at a time; declared first, it outlives them.
  std::unique_ptr<WorkerClient> worker_;
  AsyncJob<WorkerHello> helloJob_;
  AsyncJob<Outcome> job_;
  GradingPanel grading_;  // "Check at every size": its job uses the worker too
};

}  // namespace

const LessonEntry kPlaygroundLesson{&kPlaygroundLessonInfo, &makeLesson<PlaygroundLesson>,
                                    kPlaygroundBenches};

}  // namespace cudalab
