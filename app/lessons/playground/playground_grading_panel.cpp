#include "lessons/playground/playground_grading_panel.hpp"

#include <imgui.h>

#include <algorithm>

#include "common/format.hpp"
#include "core/i18n.hpp"
#include "playground/compile.hpp"
#include "ui/data_table.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace cudalab::pg {

using namespace playground;

bool GradingPanel::start(const Exercise& e, std::string text, RunParams p, int arch,
                         WorkerClient& worker) {
  if (job_.running()) return false;
  running_ = e.id;
  runningText_ = text;
  error_ = {};
  return job_.start(
      [&e, text = std::move(text), p, arch, &worker](Job::Control& c) -> Result<Grade> {
        CompileOptions o;
        o.arch = arch;
        o.learnerLines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
        if (o.arch == 0) {
          c.progress(0.01f, N_("Starting the worker process..."));
          Result<WorkerHello> h = worker.hello(c.cancelFlag());
          if (!h) return h.status();
          if (h->hasDevice) o.arch = h->arch;
        }
        c.progress(0.02f, N_("Compiling with NVRTC..."));
        Result<CompileResult> r = compileKernel(programSource(e, text), entryPoints(e), o);
        if (!r) return r.status();
        if (!r->ok)
          return Status::error(N_("Your kernel does not compile: press Compile to see why."));
        return gradeAtEverySize(
            e, p, [&](const RunParams& q) { return worker.run(*r, e, q, c.cancelFlag()); },
            c.cancelFlag(),
            [&](float f, const std::string& what) { c.progress(0.05f + 0.95f * f, what); });
      });
}

void GradingPanel::draw(LessonContext& ctx, const Exercise& e, const RunParams& p,
                        const LessonAction& action, bool gpu, bool sanitizing,
                        const std::string& text) {
  if (auto r = job_.take()) {
    if (*r) {
      last_ = std::move(**r);
      lastExercise_ = running_;
      gradedText_ = runningText_;
    } else {
      error_ = r->status();
    }
  }
  if (!beginPanel(ctx, "grading", "Check at every size", kPanelCollapsible)) return endPanel(ctx);
  mutedText(ctx.theme,
            tr("A kernel right at the exercise's size can still be wrong at another: for one "
               "element, around a warp, around the block, for a prime, for the largest N. This "
               "runs yours at each of the sizes below, with fresh random inputs, poisoned outputs "
               "and guard zones: the exercise is passed only when every one is right."));
  if (job_.running()) {
    ImGui::TextUnformatted(job_.progress().what.empty() ? tr("Working...")
                                                        : tr(job_.progress().what).c_str());
    if (button("Cancel")) job_.cancel();
  } else {
    ImGui::BeginDisabled(!gpu || sanitizing);
    actionButton(action);
    ImGui::EndDisabled();
    if (!gpu)
      mutedText(ctx.theme, tr("Running needs an NVIDIA GPU: here, the sizes it would run."));
    else if (sanitizing)
      mutedText(ctx.theme, tr("Turn Check accesses off to grade: under compute-sanitizer the "
                              "largest sizes would take minutes each."));
  }
  errorText(ctx.theme, error_);
  const Grade* g = last_ && lastExercise_ == e.id ? &*last_ : nullptr;
  if (g && !g->sizes.empty()) {
    const int failed = g->failed();
    if (g->passed()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.goodColour());
      ImGui::TextUnformatted(
          trf("Passed: right at every one of %d sizes.", static_cast<int>(g->sizes.size()))
              .c_str());
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text, ctx.theme.errorColour());
      ImGui::TextUnformatted(g->cancelled ? tr("Stopped before every size ran: not passed.")
                                          : trf("Not passed: wrong at %d of %d sizes.", failed,
                                                static_cast<int>(g->sizes.size()))
                                                .c_str());
    }
    ImGui::PopStyleColor();
    staleNote(ctx.theme, gradedText_ != text, action.label);
  }
  // The sizes: the last grade's, or those a grading would run now.
  if (casesExercise_ != &e || casesFor_.n != p.n || !(casesFor_.launch == p.launch) ||
      casesFor_.autoGrid != p.autoGrid) {
    cases_ = gradingCases(e, p);
    casesExercise_ = &e;
    casesFor_ = p;
  }
  const std::vector<GradeCase>& cases = cases_;
  static const TableColumn kColumns[] = {
      {"N"},
      {"why this size", nullptr, 2},
      {"verdict", nullptr, 0, nullptr, true},
      {"kernel time (ms)", "ms", 1, nullptr, true},
  };
  const int rows = static_cast<int>(g ? g->sizes.size() : cases.size());
  if (beginDataTable("##grading", kColumns, rows, g != nullptr)) {
    for (int i = 0; i < rows; ++i) {
      const GradeCase& c =
          g ? g->sizes[static_cast<std::size_t>(i)].c : cases[static_cast<std::size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.kind == Kind::Counter
                                 ? trf("%s x %s", thousands(c.launch.grid.count()).c_str(),
                                       thousands(c.launch.block.count()).c_str())
                                       .c_str()
                                 : thousands(c.n).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(trPhrase(c.why).c_str());
      ImGui::TableNextColumn();
      if (g) {
        const SizeVerdict& v = g->sizes[static_cast<std::size_t>(i)];
        ImGui::PushStyleColor(ImGuiCol_Text,
                              v.ran && v.ok ? ctx.theme.goodColour() : ctx.theme.errorColour());
        std::string verdict;
        for (const Phrase& clause : v.why)
          verdict += (verdict.empty() ? "" : "; ") + trPhrase(clause);
        ImGui::TextUnformatted(v.ran && v.ok ? tr("right") : verdict.c_str());
        ImGui::PopStyleColor();
        ImGui::TableNextColumn();
        if (v.ran) ImGui::TextUnformatted(trimmedFixed(v.ms, 3).c_str());
      } else {
        ImGui::TableNextColumn();
      }
    }
    endDataTable();
  }
  endPanel(ctx);
}

}  // namespace cudalab::pg
