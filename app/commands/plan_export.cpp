// A lesson plan rendered headless; see plan_export.hpp.
#include "commands/plan_export.hpp"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/measurement_export.hpp"
#include "platform/image.hpp"
#include "commands/restart.hpp"
#include "ui/plot/plot.hpp"
#include "ui/renderer.hpp"
#include "ui/shell.hpp"

namespace cudalab {

namespace fs = std::filesystem;

namespace {

// What one step produced, for plan.md and plan.json.
struct StepOutcome {
  std::vector<std::string> files;  // names inside the folder
  std::vector<std::string> notes;  // what could not be done, and why
  bool failed = false;             // a picture or file that could not be written
};

std::string twoDigits(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "%02d", i);
  return b;
}

// Markdown text on one line (questions and notes are prose; a newline would break the list).
std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s;
}

bool intersects(const PixelRect& a, const PixelRect& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

}  // namespace

int runPlanExport(Shell& shell, UiRenderer& renderer, const PlanExportOptions& o) {
  std::vector<std::string> problems;
  if (Status s = shell.plans().openPlan(o.plan, &problems); !s) {
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    return 2;
  }
  for (const std::string& p : problems)
    std::fprintf(stderr, "cudalab: %s\n", p.c_str());
  const LessonPlan& plan = *shell.plans().plan();
  std::error_code ec;
  fs::create_directories(o.outDir, ec);
  if (ec || !fs::is_directory(o.outDir)) {
    std::fprintf(stderr, "cudalab: could not make the folder %s%s.\n", o.outDir.c_str(),
                 ec ? (": " + ec.message()).c_str() : "");
    return 1;
  }
  const fs::path dir(o.outDir);
  std::vector<StepOutcome> outcomes;
  bool anyFailed = false;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const LessonPlanStep& step = plan.steps[i];
    StepOutcome out;
    const std::string stem = twoDigits(int(i) + 1) + "-" + step.lesson;
    shell.plans().goToStep(int(i));
    // The lesson settles (its first measurement, its pictures), then the step's action runs and
    // is waited for, as a class would see it.
    (void)renderer.capture(o.width, o.height, 1, false, "", 3, o.waitSeconds);  // only to settle
    if (restartNeeded(shell)) return restartAfterFault(shell);
    if (!step.action.empty()) {
      if (!shell.plans().runStep())
        out.notes.push_back("The action \"" + step.action + "\" could not start here" +
                            (shell.current().info().id == step.lesson ? "" : " (no lesson)") +
                            ": it needs a GPU, or the lesson refused its parameters. The "
                            "pictures show the lesson without it.");
    }
    auto save = [&](const Result<Image>& img, const std::string& name) {
      if (!img) {
        out.notes.push_back(name + " was not written: " + img.status().sentence());
        out.failed = true;
        return;
      }
      if (Status s = writePng(*img, (dir / name).string()); !s) {
        out.notes.push_back(s.sentence());
        out.failed = true;
        return;
      }
      out.files.push_back(name);
    };
    save(renderer.capture(o.width, o.height, o.pixelScale, false, "", 3, o.waitSeconds),
         stem + ".png");
    if (restartNeeded(shell)) return restartAfterFault(shell);
    if (!step.panel.empty()) {
      Result<Image> panel =
          renderer.capture(o.width, o.height, o.pixelScale, false, step.panel, 3, o.waitSeconds);
      if (restartNeeded(shell)) return restartAfterFault(shell);
      if (panel) {
        save(panel, stem + "-" + step.panel + ".png");
        // The panel's plots, as drawn in that very capture.
        if (const auto rect = shell.panels().rect(step.panel))
          for (const std::string& id : plot::RecentPlotIds()) {
            const auto r = plot::LastPlotRect(id.c_str());
            if (!r || !intersects(*r, *rect)) continue;
            const std::string name = stem + "-" + id + ".svg";
            if (Status s = plot::SaveSvg(id.c_str(), (dir / name).string()); !s) {
              out.notes.push_back(s.sentence());
              out.failed = true;
            } else {
              out.files.push_back(name);
            }
          }
      } else {
        // A panel that is not on screen (it appears only after a measurement, or only with a
        // GPU) is not a failure of the run: the window's picture stands for it.
        out.notes.push_back("The panel \"" + step.panel +
                            "\" is not on screen here: " + panel.status().sentence());
      }
    }
    const LessonResults results = shell.current().results();
    if (!results.json.is_null() && !results.json.empty()) {
      const std::string name = stem + ".json";
      if (Status s = writeText((dir / name).string(), results.json.dump(2) + "\n"); s)
        out.files.push_back(name);
      else
        out.notes.push_back(s.sentence()), out.failed = true;
    }
    if (!results.csv.empty()) {
      const std::string name = stem + "-" + results.csvName + ".csv";
      if (Status s = writeText((dir / name).string(), results.csv); s)
        out.files.push_back(name);
      else
        out.notes.push_back(s.sentence()), out.failed = true;
    }
    std::printf("step %zu of %zu, %s: %zu file%s%s\n", i + 1, plan.steps.size(), step.title.c_str(),
                out.files.size(), out.files.size() == 1 ? "" : "s",
                out.notes.empty() ? "" : (" (" + out.notes.front() + ")").c_str());
    std::fflush(stdout);
    anyFailed |= out.failed;
    outcomes.push_back(std::move(out));
  }

  // The index: for the teacher (Markdown) and for scripts (JSON).
  std::string md = "# " + plan.title + "\n\n";
  if (!plan.description.empty()) md += plan.description + "\n\n";
  {
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
    md += "Rendered by `cudalab --headless --plan " + o.plan + "` on " + date + ", " +
          (o.machine.empty() ? std::string("this machine") : o.machine) + ".\n\n";
  }
  // What the plan's file lost when it was read: a slide deck must not be silently wrong.
  if (!problems.empty()) {
    md += "**The plan file had problems; these were left out:**\n\n";
    for (const std::string& p : problems)
      md += "- " + oneLine(p) + "\n";
    md += "\n";
  }
  nlohmann::ordered_json index;
  index["title"] = plan.title;
  index["course"] = plan.course;
  index["description"] = plan.description;
  index["plan"] = o.plan;
  index["problems"] = problems;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const LessonPlanStep& s = plan.steps[i];
    const StepOutcome& out = outcomes[i];
    md += "## " + std::to_string(i + 1) + ". " + s.title + "\n\n";
    md += "- Lesson: `" + s.lesson + "`" +
          (s.preset.empty() ? "" : ", preset \"" + s.preset + "\"") +
          (s.action.empty() ? "" : ", action `" + s.action + "`") + "\n";
    if (!s.question.empty()) md += "- Ask first: " + oneLine(s.question) + "\n";
    if (!s.note.empty()) md += "- Teacher's note: " + oneLine(s.note) + "\n";
    for (const std::string& n : out.notes)
      md += "- Not here: " + oneLine(n) + "\n";
    md += "\n";
    for (const std::string& f : out.files)
      md += f.size() > 4 && f.substr(f.size() - 4) == ".png" ? "![" + f + "](" + f + ")\n"
                                                             : "[" + f + "](" + f + ")\n";
    md += "\n";
    index["steps"].push_back({{"title", s.title},
                              {"lesson", s.lesson},
                              {"preset", s.preset},
                              {"action", s.action},
                              {"panel", s.panel},
                              {"question", s.question},
                              {"note", s.note},
                              {"files", out.files},
                              {"notes", out.notes}});
  }
  bool indexOk = writeText((dir / "plan.md").string(), md).ok();
  indexOk &= writeText((dir / "plan.json").string(), index.dump(2) + "\n").ok();
  if (!indexOk) std::fprintf(stderr, "cudalab: could not write plan.md or plan.json.\n");
  std::printf("wrote %zu steps of \"%s\" to %s (plan.md lists them)\n", plan.steps.size(),
              plan.title.c_str(), o.outDir.c_str());
  return anyFailed || !indexOk ? 1 : 0;
}

}  // namespace cudalab
