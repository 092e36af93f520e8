#include "commands/cli.hpp"

#include <CLI/CLI.hpp>

#include <regex>

#include "commands/bench.hpp"
#include "lessons/registry.hpp"

namespace cudalab {
namespace {

std::string lessonIds() {
  std::string ids;
  for (const LessonEntry& e : lessonRegistry())
    ids += (ids.empty() ? "" : ", ") + std::string(e.info->id);
  return ids;
}

std::string oneSentence(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s;
}

// What the options write besides CliOptions, and the subcommands, for the checks below.
struct RawOptions {
  std::string size, theme, language;
  float uiScale = 0;
  bool headless = false;
  CLI::App *list = nullptr, *device = nullptr, *bench = nullptr, *soak = nullptr, *worker = nullptr,
           *countersHelper = nullptr, *compile = nullptr, *check = nullptr;
  std::string sizes;
};

std::string benchIds() {
  std::string ids;
  for (const BenchEntry& b : benchRegistry(lessonRegistry()))
    ids += std::string(ids.empty() ? "" : ", ") + b.id;
  return ids;
}

// [SECTION] the options: every flag, option and subcommand, with its help
void defineOptions(CLI::App& app, CliOptions& o, RawOptions& raw) {
  app.footer(
      "Examples:\n"
      "  cudalab                                   open the window\n"
      "  cudalab --lesson device                   open on the Device lesson\n"
      "  cudalab --headless --lesson device --screenshot device.png --size 1600x900 --scale 2\n"
      "  cudalab list\n"
      "  cudalab device --json\n"
      "  cudalab --plan course-002                 open the course's plan for file 002\n"
      "  cudalab --headless --plan course-002 --out slides/\n"
      "  cudalab --lesson reduction --preset \"Course 002: 2^27 - 157 float32 numbers\"\n"
      "  cudalab bench launch-config --out results/\n"
      "  cudalab soak --minutes 30 --out results/\n"
      "Without an NVIDIA GPU the app still opens; lessons use CPU references and models.");
  app.add_option("--lesson", o.lesson, "Open on this lesson (see `cudalab list`)");
  app.add_flag("--headless", raw.headless, "Render without a window (EGL), for servers and CI");
  app.add_option("--screenshot", o.screenshot, "Write the UI to this PNG file, then exit");
  app.add_option("--panel", o.panel, "With --screenshot: save only this panel of the lesson");
  app.add_option("--results", o.results,
                 "With --headless --screenshot: also write what the picture shows as JSON (the "
                 "lesson's results, the GPU, which OpenGL drew it and the status bar's sentence)");
  app.add_flag("--as-seen", o.asSeen,
               "With --panel: keep the panel's buttons (Cancel, Save PNG), as the learner sees it; "
               "a figure for slides leaves them out");
  app.add_option("--action", o.action,
                 "Press this lesson button once the lesson has settled (with --headless: and "
                 "wait for its results) "
                 "(launch-config: run, sweep-threads, sweep-blocks)");
  app.add_option("--size", raw.size,
                 "Canvas size WIDTHxHEIGHT in logical pixels (default 1600x900)");
  app.add_option("--scale", o.scale, "Pixel scale of the screenshot: 2 gives twice the pixels")
      ->check(CLI::Range(1, 4));
  app.add_option("--frames", o.frames, "Frames to render before the screenshot (default 3)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--wait", o.waitSeconds,
                 "Seconds a screenshot waits for a lesson's measurement (default 60); with "
                 "--action, for the action's work (a short wait pictures it under way)")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--theme", raw.theme, "dark or light (default: your saved setting)")
      ->check(CLI::IsMember({"dark", "light"}));
  app.add_flag("--presentation", o.presentation,
               "Start in presentation mode (F5): the lesson alone, at the presentation scale "
               "(with --ui-scale: that one)");
  app.add_option("--language", raw.language,
                 "en, ko, zh_CN or fr (default: your saved choice, else the system's; English "
                 "for --headless)")
      ->check(CLI::IsMember({"en", "ko", "zh_CN", "fr"}));
  app.add_option("--ui-scale", raw.uiScale, "Size of text and widgets, 0.75 to 3 (2 = projector)")
      ->check(CLI::Range(0.75, 3.0));
  app.add_flag("--transparent", o.transparent, "Screenshot with a transparent background");
  app.add_option("--plan", o.plan,
                 "Open a lesson plan: one of the course's (course-000 to course-004) or a plan "
                 "file. With --headless and --out DIR: every step's figures and data into DIR");
  app.add_option("--out", o.planOut, "With --headless --plan: the folder for the steps' files");
  app.add_option("--preset", o.preset,
                 "Start the lesson with this preset: its name (see the sidebar) or a preset file");

  CLI::App* list = raw.list = app.add_subcommand("list", "Print the lessons (id and title)");
  list->add_flag("--ids", o.idsOnly, "Print only the ids, one per line");
  CLI::App* device = raw.device =
      app.add_subcommand("device", "Print what the Device lesson shows");
  device->add_flag("--json", o.json, "As JSON");
  device->add_flag("--measure", o.measure, "Also measure copy bandwidths (takes a few seconds)");
  CLI::App* bench = raw.bench =
      app.add_subcommand("bench", "Run a benchmark on the GPU and print its tables");
  bench->add_option("id", o.bench, "Which: " + benchIds())->required();
  bench->add_option("--out", o.outDir, "Folder for the .md and .json results (default .)");
  bench->add_flag("--quick", o.quick,
                  "The same kernels at small sizes and few runs (for compute-sanitizer); not "
                  "performance figures");
  CLI::App* compile = raw.compile = app.add_subcommand(
      "compile", "Compile a kernel as the playground does: messages, resources, PTX and SASS");
  compile->add_option("file", o.file, "The .cu file")->required();
  compile->add_option("--exercise", o.exercise,
                      "Compile it as this playground exercise's program (its entry points)");
  compile->add_option("--arch", o.arch, "The architecture, e.g. sm_90 (default: this GPU's)");
  compile->add_flag("--ptx", o.ptx, "Print the PTX, each instruction with its source line");
  compile->add_flag("--sass", o.sass, "Print the SASS (nvdisasm), each with its source line");
  compile->add_option("--compare", o.compare,
                      "Compile it again with one thing changed (fast-math, restrict, unroll, "
                      "double) and print the SASS of both, side by side");
  compile->add_flag("--json", o.json, "As JSON");
  CLI::App* check = raw.check = app.add_subcommand(
      "check", "Grade kernels on the GPU: compile, run, check against the CPU, a summary table");
  check->add_option("files", o.checkPaths, "The .cu files, or a folder of them")->required();
  check->add_option("--exercise", o.exercise, "The playground exercise they solve")->required();
  check->add_option("--sizes", raw.sizes, "all: at every size \"Check at every size\" runs")
      ->check(CLI::IsMember({"all", "one"}));
  check->add_option("--grid", o.grid, "The grid, X,Y,Z (default: the exercise's, from N)");
  check->add_option("--block", o.block, "The block, X,Y,Z (default: the exercise's)");
  check->add_flag("--json", o.json, "As JSON");
  check->add_flag("--lines", o.lines,
                  "With --json: the counters of each source line and machine instruction of the "
                  "run at the exercise's size (CUPTI, in the worker), as the editor's margin and "
                  "the SASS pane show them");
  check->add_flag("--stalls", o.stalls,
                  "With --json: where the kernel waits, CUPTI's PC sampling per instruction and "
                  "stall reason, at the exercise's size");
  CLI::App* soak = raw.soak = app.add_subcommand(
      "soak", "Use every lesson headless for M minutes and report memory, files and frame times");
  soak->add_option("--minutes", o.soakMinutes, "How long (default 10)")
      ->check(CLI::Range(0.05, 24 * 60.0));
  soak->add_option("--seed", o.soakSeed, "Seed of the random choices (default: from the clock)");
  soak->add_option("--out", o.outDir, "Folder for bench-soak.md and bench-soak.json (default .)");
  // For tests of the recovery from a sticky CUDA error: not for people, so not in the help.
  app.add_option("--inject-fault", o.injectFault, "")
      ->check(CLI::IsMember({"illegal-address", "trap", "simulated"}))
      ->group("");
  // Given by cudalab itself when it starts again after a GPU fault (main.cpp).
  app.add_option("--restore", o.restore, "")->group("");
  // Started by the app itself (playground lesson): not for people, so not in the help.
  raw.worker = app.add_subcommand("worker", "");
  raw.worker->group("");
  // Started by the app to read the GPU's counters (core/counters_helper.hpp): not in the help.
  raw.countersHelper = app.add_subcommand("counters-helper", "");
  raw.countersHelper->group("");
  app.require_subcommand(0, 1);
}

// [SECTION] the choices: the command, and the combinations that make no sense, each refused with
// one sentence (empty: none)
std::string checkOptions(CliOptions& o, const RawOptions& raw) {
  if (!raw.theme.empty()) o.theme = raw.theme;
  if (!raw.language.empty()) o.language = raw.language;
  if (raw.uiScale > 0) o.uiScale = raw.uiScale;
  if (*raw.list) o.command = Command::List;
  if (*raw.device) o.command = Command::Device;
  if (*raw.worker) o.command = Command::Worker;
  if (*raw.countersHelper) o.command = Command::CountersHelper;
  if (*raw.soak) o.command = Command::Soak;
  if (*raw.compile) o.command = Command::Compile;
  if (*raw.check) {
    o.command = Command::Check;
    o.allSizes = raw.sizes == "all";
  }
  if (*raw.bench) {
    o.command = Command::Bench;
    bool known = false;
    for (const BenchEntry& b : benchRegistry(lessonRegistry()))
      known |= o.bench == b.id;
    if (!known)
      return "there is no benchmark \"" + o.bench + "\"; the benchmarks are: " + benchIds() + ".";
  }
  if (o.command == Command::Window && raw.headless) o.command = Command::Headless;

  if (!o.lesson.empty() && !findLesson(o.lesson))
    return "there is no lesson \"" + o.lesson + "\"; the lessons are: " + lessonIds() + ".";
  if (!raw.size.empty()) {
    std::smatch m;
    if (!std::regex_match(raw.size, m, std::regex(R"((\d{1,6})x(\d{1,6}))")))
      return "--size must look like 1600x900 (width x height in pixels), not \"" + raw.size + "\".";
    o.width = std::stoi(m[1]);
    o.height = std::stoi(m[2]);
    if (o.width < 320 || o.height < 240 || o.width > 8192 || o.height > 8192)
      return "--size must be between 320x240 and 8192x8192; " + raw.size + " is not.";
  }
  const bool ui = o.command == Command::Window || o.command == Command::Headless;
  if (!o.plan.empty() && !ui) return "--plan opens a lesson plan in the window or --headless.";
  if (!o.preset.empty() && !ui) return "--preset works with the window or --headless.";
  if (!o.planOut.empty() && (o.plan.empty() || o.command != Command::Headless))
    return "--out goes with --headless --plan PLAN: where the steps' files are written.";
  if (!o.plan.empty() && (!o.preset.empty() || !o.action.empty()))
    return "a lesson plan chooses each step's lesson, preset and action: leave out --preset and "
           "--action with --plan.";
  if (!o.planOut.empty() && !o.screenshot.empty())
    return "--out writes every step of the plan; --screenshot only its first: choose one.";
  if (o.command == Command::Headless && !o.plan.empty() && o.planOut.empty() &&
      o.screenshot.empty())
    return "--headless --plan needs --out DIR: every step's figures and data go there.";
  if (o.command == Command::Headless && o.screenshot.empty() && o.plan.empty())
    return "--headless needs --screenshot FILE.png: without a window, the PNG is the output.";
  if (!o.screenshot.empty()) {
    const auto& s = o.screenshot;
    if (s.size() < 5 || s.substr(s.size() - 4) != ".png")
      return "the screenshot file must end in .png; \"" + s + "\" does not.";
  }
  if (!o.action.empty() && o.command != Command::Headless && o.command != Command::Window)
    return "--action works with the window or with --headless --screenshot FILE.png.";
  if (!o.panel.empty() && o.screenshot.empty())
    return "--panel only makes sense with --screenshot FILE.png.";
  if (!o.results.empty() && (o.command != Command::Headless || o.screenshot.empty()))
    return "--results goes with --headless --screenshot FILE.png: it says what the picture shows.";
  if (o.asSeen && o.panel.empty()) return "--as-seen describes a --panel picture: add --panel ID.";
  if (o.screenshot.empty() && o.planOut.empty() &&
      (o.scale != 1 || o.transparent || !raw.size.empty()))
    return "--scale, --size and --transparent describe the screenshot; add --screenshot "
           "FILE.png (the window's own size is set by dragging it).";
  // Fonts are rasterised at 16 px x UI scale x pixel scale; past about 96 px the glyph atlas
  // outgrows what graphics drivers accept.
  if (static_cast<float>(o.scale) * o.uiScale.value_or(1.0f) > 6.0f + 1e-4f)
    return "--scale times --ui-scale must be at most 6 (fonts that large do not fit a "
           "texture); use --scale 2 with --ui-scale up to 3.";
  if ((o.command == Command::List || o.command == Command::Device || o.command == Command::Bench ||
       o.command == Command::Worker || o.command == Command::CountersHelper ||
       o.command == Command::Compile || o.command == Command::Check) &&
      (raw.headless || !o.screenshot.empty()))
    return "`list`, `device`, `bench`, `compile` and `check` print text; --headless and "
           "--screenshot are for the UI.";
  return {};
}

}  // namespace

CliParse parseCommandLine(int argc, const char* const* argv) {
  CliParse r;
  CLI::App app{"cudalab: learn CUDA by running real kernels and seeing what they do.", "cudalab"};
  RawOptions raw;
  defineOptions(app, r.options, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    r.exitCode = 0;
    r.output = app.help();
    return r;
  } catch (const CLI::CallForAllHelp&) {
    r.exitCode = 0;
    r.output = app.help("", CLI::AppFormatMode::All);
    return r;
  } catch (const CLI::ParseError& e) {
    r.exitCode = 2;
    r.error = "cudalab: " + oneSentence(e.what()) + " (see cudalab --help).";
    return r;
  }
  if (const std::string why = checkOptions(r.options, raw); !why.empty()) {
    r.exitCode = 2;
    r.error = "cudalab: " + why;
  }
  return r;
}

}  // namespace cudalab
