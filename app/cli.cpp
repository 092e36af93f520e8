#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <regex>

#include "bench.hpp"
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

}  // namespace

CliParse parseCommandLine(int argc, const char* const* argv) {
  CliParse r;
  CliOptions& o = r.options;
  CLI::App app{"cudalab: learn CUDA by running real kernels and seeing what they do.", "cudalab"};
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
  std::string size;
  bool headless = false;
  app.add_option("--lesson", o.lesson, "Open on this lesson (see `cudalab list`)");
  app.add_flag("--headless", headless, "Render without a window (EGL), for servers and CI");
  app.add_option("--screenshot", o.screenshot, "Write the UI to this PNG file, then exit");
  app.add_option("--panel", o.panel, "With --screenshot: save only this panel of the lesson");
  app.add_flag("--as-seen", o.asSeen,
               "With --panel: keep the panel's buttons (Cancel, Save PNG), as the learner sees it; "
               "a figure for slides leaves them out");
  app.add_option("--action", o.action,
                 "Press this lesson button once the lesson has settled (with --headless: and "
                 "wait for its results) "
                 "(launch-config: run, sweep-threads, sweep-blocks)");
  app.add_option("--size", size, "Canvas size WIDTHxHEIGHT in logical pixels (default 1600x900)");
  app.add_option("--scale", o.scale, "Pixel scale of the screenshot: 2 gives twice the pixels")
      ->check(CLI::Range(1, 4));
  app.add_option("--frames", o.frames, "Frames to render before the screenshot (default 3)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--wait", o.waitSeconds,
                 "Seconds a screenshot waits for a lesson's measurement (default 60); with "
                 "--action, for the action's work (a short wait pictures it under way)")
      ->check(CLI::Range(0.0, 3600.0));
  std::string theme;
  app.add_option("--theme", theme, "dark or light (default: your saved setting)")
      ->check(CLI::IsMember({"dark", "light"}));
  app.add_flag("--presentation", o.presentation,
               "Start in presentation mode (F5): the lesson alone, at the presentation scale "
               "(with --ui-scale: that one)");
  std::string language;
  app.add_option("--language", language,
                 "en, ko, zh_CN or fr (default: your saved choice, else the system's; English "
                 "for --headless)")
      ->check(CLI::IsMember({"en", "ko", "zh_CN", "fr"}));
  float uiScale = 0;
  app.add_option("--ui-scale", uiScale, "Size of text and widgets, 0.75 to 3 (2 = projector)")
      ->check(CLI::Range(0.75, 3.0));
  app.add_flag("--transparent", o.transparent, "Screenshot with a transparent background");
  app.add_option("--plan", o.plan,
                 "Open a lesson plan: one of the course's (course-000 to course-004) or a plan "
                 "file. With --headless and --out DIR: every step's figures and data into DIR");
  app.add_option("--out", o.planOut, "With --headless --plan: the folder for the steps' files");
  app.add_option("--preset", o.preset,
                 "Start the lesson with this preset: its name (see the sidebar) or a preset file");

  CLI::App* list = app.add_subcommand("list", "Print the lessons (id and title)");
  list->add_flag("--ids", o.idsOnly, "Print only the ids, one per line");
  CLI::App* device = app.add_subcommand("device", "Print what the Device lesson shows");
  device->add_flag("--json", o.json, "As JSON");
  device->add_flag("--measure", o.measure, "Also measure copy bandwidths (takes a few seconds)");
  CLI::App* bench = app.add_subcommand("bench", "Run a benchmark on the GPU and print its tables");
  std::string benchIds;
  for (const BenchEntry& b : benchRegistry())
    benchIds += std::string(benchIds.empty() ? "" : ", ") + b.id;
  bench->add_option("id", o.bench, "Which: " + benchIds)->required();
  bench->add_option("--out", o.outDir, "Folder for the .md and .json results (default .)");
  bench->add_flag("--quick", o.quick,
                  "The same kernels at small sizes and few runs (for compute-sanitizer); not "
                  "performance figures");
  CLI::App* soak = app.add_subcommand(
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
  CLI::App* worker = app.add_subcommand("worker", "");
  worker->group("");
  // Started by the app to read the GPU's counters (lessons/counters_helper.hpp): not in the help.
  CLI::App* countersHelper = app.add_subcommand("counters-helper", "");
  countersHelper->group("");
  app.require_subcommand(0, 1);

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
  auto fail = [&](const std::string& sentence) {
    r.exitCode = 2;
    r.error = "cudalab: " + sentence;
    return r;
  };
  if (!theme.empty()) o.theme = theme;
  if (!language.empty()) o.language = language;
  if (uiScale > 0) o.uiScale = uiScale;
  if (*list) o.command = Command::List;
  if (*device) o.command = Command::Device;
  if (*worker) o.command = Command::Worker;
  if (*countersHelper) o.command = Command::CountersHelper;
  if (*soak) o.command = Command::Soak;
  if (*bench) {
    o.command = Command::Bench;
    bool known = false;
    for (const BenchEntry& b : benchRegistry())
      known |= o.bench == b.id;
    if (!known)
      return fail("there is no benchmark \"" + o.bench + "\"; the benchmarks are: " + benchIds +
                  ".");
  }
  if (o.command == Command::Window && headless) o.command = Command::Headless;

  if (!o.lesson.empty() && !findLesson(o.lesson))
    return fail("there is no lesson \"" + o.lesson + "\"; the lessons are: " + lessonIds() + ".");
  if (!size.empty()) {
    std::smatch m;
    if (!std::regex_match(size, m, std::regex(R"((\d{1,6})x(\d{1,6}))")))
      return fail("--size must look like 1600x900 (width x height in pixels), not \"" + size +
                  "\".");
    o.width = std::stoi(m[1]);
    o.height = std::stoi(m[2]);
    if (o.width < 320 || o.height < 240 || o.width > 8192 || o.height > 8192)
      return fail("--size must be between 320x240 and 8192x8192; " + size + " is not.");
  }
  const bool ui = o.command == Command::Window || o.command == Command::Headless;
  if (!o.plan.empty() && !ui)
    return fail("--plan opens a lesson plan in the window or --headless.");
  if (!o.preset.empty() && !ui) return fail("--preset works with the window or --headless.");
  if (!o.planOut.empty() && (o.plan.empty() || o.command != Command::Headless))
    return fail("--out goes with --headless --plan PLAN: where the steps' files are written.");
  if (!o.plan.empty() && (!o.preset.empty() || !o.action.empty()))
    return fail(
        "a lesson plan chooses each step's lesson, preset and action: leave out --preset and "
        "--action with --plan.");
  if (!o.planOut.empty() && !o.screenshot.empty())
    return fail("--out writes every step of the plan; --screenshot only its first: choose one.");
  if (o.command == Command::Headless && !o.plan.empty() && o.planOut.empty() &&
      o.screenshot.empty())
    return fail("--headless --plan needs --out DIR: every step's figures and data go there.");
  if (o.command == Command::Headless && o.screenshot.empty() && o.plan.empty())
    return fail("--headless needs --screenshot FILE.png: without a window, the PNG is the output.");
  if (!o.screenshot.empty()) {
    const auto& s = o.screenshot;
    if (s.size() < 5 || s.substr(s.size() - 4) != ".png")
      return fail("the screenshot file must end in .png; \"" + s + "\" does not.");
  }
  if (!o.action.empty() && o.command != Command::Headless && o.command != Command::Window)
    return fail("--action works with the window or with --headless --screenshot FILE.png.");
  if (!o.panel.empty() && o.screenshot.empty())
    return fail("--panel only makes sense with --screenshot FILE.png.");
  if (o.asSeen && o.panel.empty())
    return fail("--as-seen describes a --panel picture: add --panel ID.");
  if (o.screenshot.empty() && o.planOut.empty() && (o.scale != 1 || o.transparent || !size.empty()))
    return fail(
        "--scale, --size and --transparent describe the screenshot; add --screenshot "
        "FILE.png (the window's own size is set by dragging it).");
  // Fonts are rasterised at 16 px x UI scale x pixel scale; past about 96 px the glyph atlas
  // outgrows what graphics drivers accept.
  if (static_cast<float>(o.scale) * o.uiScale.value_or(1.0f) > 6.0f + 1e-4f)
    return fail(
        "--scale times --ui-scale must be at most 6 (fonts that large do not fit a "
        "texture); use --scale 2 with --ui-scale up to 3.");
  if ((o.command == Command::List || o.command == Command::Device || o.command == Command::Bench ||
       o.command == Command::Worker || o.command == Command::CountersHelper) &&
      (headless || !o.screenshot.empty()))
    return fail(
        "`list`, `device` and `bench` print text; --headless and --screenshot are for the UI.");
  return r;
}

}  // namespace cudalab
