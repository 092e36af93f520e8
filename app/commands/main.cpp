// cudalab's entry point: parse the command line, then run one of
//   the window (GLFW), a headless screenshot (EGL), `list`, or `device`.
// Errors are printed as one sentence; nothing here aborts on a CUDA error or a missing display.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include <imgui.h>

#include "commands/bench.hpp"
#include "commands/cli.hpp"
#include "commands/check_command.hpp"
#include "commands/compile_command.hpp"
#include "common/device_fault.hpp"
#include "commands/soak.hpp"
#include "common/runtime_info.hpp"
#include "core/i18n.hpp"
#include "device/device_bandwidth.hpp"
#include "device/device_query.hpp"
#include "commands/counters_helper.hpp"
#include "lessons/registry.hpp"
#include "commands/plan_export.hpp"
#include "playground/worker.hpp"
#include "platform/allocator.hpp"
#include "platform/crash_report.hpp"
#include "platform/drawing_path.hpp"
#include "platform/framebuffer.hpp"
#include "platform/glfw_window.hpp"
#include "platform/headless_egl.hpp"
#include "platform/heartbeat.hpp"
#include "commands/restart.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"

using namespace cudalab;
using namespace cudalab::device;

namespace {

void applyOverrides(const CliOptions& o, Settings& s) {
  if (!o.lesson.empty()) s.lesson = o.lesson;
  if (o.theme) s.theme = *o.theme;
  if (o.language) s.language = *o.language;
  if (o.uiScale) s.uiScale = *o.uiScale;
  if (o.uiScale && o.presentation) s.presentationScale = *o.uiScale;
  sanitize(s);
}

int runList(const CliOptions& o) {
  for (const LessonEntry& e : lessonRegistry()) {
    if (o.idsOnly)
      std::printf("%s\n", e.info->id);
    else
      std::printf("%-14s %s\n", e.info->id, e.info->title);
  }
  return 0;
}

int runDevice(const CliOptions& o) {
  RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) {
    if (o.json) {
      nlohmann::json j = {{"devices", nlohmann::json::array()},
                          {"runtime_version", cudaVersionString(rt.runtimeVersion)},
                          {"error", rt.status.sentence()}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s\n", rt.summary().c_str());
    }
    return 1;
  }
  Result<std::vector<DeviceInfo>> devs = queryDevices();
  if (!devs) {
    std::fprintf(stderr, "cudalab: %s\n", devs.status().sentence().c_str());
    return 1;
  }
  nlohmann::json all = nlohmann::json::array();
  int rc = 0;
  for (const DeviceInfo& d : *devs) {
    nlohmann::json j = deviceJson(d);
    std::string measured;
    if (o.measure) {
      Result<BandwidthReport> rep = measureBandwidth(d.index, BandwidthParams{}, nullptr, nullptr);
      if (!rep) {
        std::fprintf(stderr, "cudalab: %s\n", rep.status().sentence().c_str());
        rc = 1;
      } else {
        for (const CopyResult& r : rep->results) {
          const CopyVariant& v = copyVariant(r.kind);
          j["measured"][v.id] = {{"gbps_median", r.gbpsMedian},
                                 {"ms_median", r.msMedian},
                                 {"ms_min", r.msMin},
                                 {"ms_max", r.msMax},
                                 {"bytes", r.bytes}};
          char line[200];
          std::snprintf(line, sizeof line, "  %-34s %9.1f GB/s  (median of %d, %.3f ms)\n", v.label,
                        r.gbpsMedian, BandwidthParams{}.repetitions, r.msMedian);
          measured += line;
        }
      }
    }
    if (o.json) {
      all.push_back(j);
    } else {
      std::printf("%s", deviceText(d).c_str());
      if (!measured.empty()) std::printf("\nMeasured copy bandwidth\n%s", measured.c_str());
      std::printf("\n");
    }
  }
  if (o.json) {
    nlohmann::json out = {{"runtime_version", cudaVersionString(rt.runtimeVersion)},
                          {"driver_version", cudaVersionString(rt.driverVersion)},
                          {"devices", all}};
    std::printf("%s\n", out.dump(2).c_str());
  }
  return rc;
}

// Writes the capture (or says why not). An unknown --panel is a bad argument: exit code 2.
// `how`: which OpenGL drew it; `onGpu`: whether that OpenGL is the GPU's (for --results).
int finishScreenshot(const CliOptions& o, Shell& shell, const Result<Image>& img,
                     const std::string& how, bool onGpu = true) {
  if (!img) {
    std::fprintf(stderr, "cudalab: %s\n", img.status().sentence().c_str());
    return !o.panel.empty() && !shell.panels().rect(o.panel) ? 2 : 1;
  }
  if (Status s = writePng(*img, o.screenshot); !s) {
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    return 1;
  }
  if (shell.busy())
    std::fprintf(stderr,
                 "cudalab: the lesson was still working after %.0f s; the picture shows it "
                 "unfinished.\n",
                 o.waitSeconds);
  std::printf("wrote %s (%dx%d, lesson %s, %s)\n", o.screenshot.c_str(), img->width, img->height,
              shell.current().info().id, how.c_str());
  if (!o.results.empty()) {
    // What the picture shows, for scripts and tests that cannot read a PNG: the lesson's results
    // (its JSON export), the GPU the kernels ran on, the OpenGL that drew it, the status bar.
    const RuntimeInfo& rt = shell.runtime();
    const bool gpu = rt.hasDevice();
    nlohmann::json j = {{"lesson", shell.current().info().id},
                        {"gpu", gpu ? nlohmann::json(rt.firstDeviceName) : nlohmann::json(nullptr)},
                        {"drawing", !gpu    ? "without a GPU"
                                    : onGpu ? "gpu"
                                            : "software"},
                        {"drawn_with", how},
                        {"status", shell.statusText()},
                        {"results", shell.current().results().json}};
    std::ofstream out(o.results);
    out << j.dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "cudalab: could not write %s.\n", o.results.c_str());
      return 1;
    }
  }
  return 0;
}

// Makes CUDA's context (on the GPU's drawing path with a GPU), then checks that OpenGL draws
// beside it: after a fault on some servers it does not (platform/drawing_path.hpp), and the app
// starts again drawing in software. Returns the exit code when it starts again.
std::optional<int> checkDrawingWithCuda(Shell& shell, const RuntimeInfo& rt) {
  if (rt.hasDevice() && drawingPath() == DrawingPath::Gpu)
    if (Status s = makeDeviceContext(0); !s)
      std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
  return checkDrawingBesideCuda(shell, rt.hasDevice());
}

// An app drawing in software from its start because this machine's record says NVIDIA's OpenGL
// stopped drawing beside CUDA (platform/drawing_path.hpp): said in the status bar and on stderr,
// with the way back. An app started again after a fault says its own reason instead.
void sayRecordedDrawing(Shell& shell, const std::string& restoreFile) {
  const std::optional<DrawingRecord> r = drawingFromRecord();
  if (!r || !restoreFile.empty()) return;
  char when[32] = "";
  if (std::tm t{}; localtime_r(&r->when, &t))
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", &t);
  const std::string msg =
      trf("cudalab draws in software (Mesa): NVIDIA's OpenGL stopped drawing beside CUDA on this "
          "machine at %s (%s), and it stays so until the GPU is reset. The kernels still run and "
          "are measured on the GPU. After a reset, start cudalab with CUDALAB_DRAWING=gpu to draw "
          "with the GPU again.",
          when, r->why.c_str());
  std::fprintf(stderr, "%s\n", msg.c_str());  // it starts with "cudalab"
  shell.report(Status{}, msg);
}

int runHeadless(const CliOptions& o) {
  RuntimeInfo rt = queryRuntime();
  HeadlessContext gl;  // declared first: destroyed after everything that uses GL
  if (Status s = gl.create(rt.hasDevice() ? 0 : -1); !s) {
    if (auto code = softwareDrawingUnavailable(o.restore, s)) return *code;
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    return 1;
  }
  Settings settings;  // headless runs ignore saved settings, so figures are reproducible
  settings.lesson = lessonRegistry().front().info->id;
  settings.language = "en";  // not the machine's locale: --language chooses
  applyOverrides(o, settings);
  Shell shell(lessonRegistry(), settings, rt, gl.description(), /*headless=*/true);
  shell.setPresenting(o.presentation);
  // The user's presets are read (never written) so that --preset and a plan can name them.
  shell.plans().setUserDir(configDirFrom(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME")));
  UiRenderer renderer(shell, settings);
  if (Status s = renderer.init(nullptr); !s) {
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    return 1;
  }
  restoreFrom(o.restore, shell);
  sayRecordedDrawing(shell, o.restore);
  if (auto code = checkDrawingWithCuda(shell, rt)) return *code;
  // A plan's first step or a preset is set before the first frame: the lesson starts its first
  // work with those values (afterwards it would cancel that work and start nothing).
  if (!o.plan.empty() && !o.screenshot.empty()) {  // the plan's first step, as a picture
    std::vector<std::string> problems;
    const Status s = shell.plans().openPlan(o.plan, &problems);
    for (const std::string& p : problems)
      std::fprintf(stderr, "cudalab: %s\n", p.c_str());
    if (!s) {
      std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
      return 2;
    }
  }
  if (!o.preset.empty() && o.restore.empty())
    if (Status s = shell.plans().applyPreset(shell.current(), o.preset); !s) {
      std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
      return 2;
    }
  if (firstPictureWatched()) {
    // The GPU may have stopped drawing beside CUDA after a fault (restart.hpp): show it draws.
    Result<Image> first = renderer.capture(640, 400, 1, false, "", 3, 0);
    if (restartNeeded(shell)) return restartAfterFault(shell);
    if (auto code = checkFirstPicture(shell, o.restore, first, /*headless=*/true)) return *code;
  }
  if (!o.plan.empty() && o.screenshot.empty())
    return runPlanExport(
        shell, renderer,
        PlanExportOptions{
            o.plan, o.planOut, o.width, o.height, o.scale, o.waitSeconds,
            rt.hasDevice() ? rt.firstDeviceName : "without a GPU (" + rt.summary() + ")"});
  if (!o.action.empty()) {
    // Let the lesson settle (device limits, first picture), press its button, then capture below
    // once the work has finished. A busy lesson refuses its buttons, so the settling may take up
    // to the default minute even when --wait is shorter (it ends as soon as the lesson is idle):
    // `--wait 1` then pictures the action's work one second in (a counters reading with its
    // progress and Cancel button).
    Result<Image> settle = renderer.capture(o.width, o.height, 1, false, "", 3,
                                            std::max(o.waitSeconds, CliOptions{}.waitSeconds));
    // A fault also ends rendering on the GPU in this process: start again before judging the
    // picture.
    if (restartNeeded(shell)) return restartAfterFault(shell);
    if (auto code = checkLaterPicture(shell, o.restore, settle, rt.hasDevice())) return *code;
    if (takeOtherProcessFault())
      if (auto code = checkDrawingBesideCuda(shell, rt.hasDevice())) return *code;
    if (!settle) return finishScreenshot(o, shell, settle, gl.description(), gl.onNvidiaDevice());
    if (shell.current().startAction(o.action)) {
      // pressed; captured below once its work is done
    } else if (!rt.hasDevice() && shell.relaunches() > 0) {
      // Started again without the GPU after a fault, and the action needs the GPU: the picture
      // shows the lesson and the sentence saying why.
      std::fprintf(stderr, "cudalab: going on without the GPU; \"%s\" needs it.\n",
                   o.action.c_str());
    } else {
      std::string ids;
      for (const std::string& a : shell.current().actionIds())
        ids += (ids.empty() ? "" : ", ") + a;
      if (ids.empty()) ids = "none";
      std::fprintf(stderr,
                   "cudalab: the lesson %s cannot start \"%s\" here; its actions are: %s%s.\n",
                   shell.current().info().id, o.action.c_str(), ids.c_str(),
                   rt.hasDevice() ? "" : " (they need a GPU)");
      return 2;
    }
  }
  Result<Image> img = renderer.capture(o.width, o.height, o.scale, o.transparent, o.panel, o.frames,
                                       o.waitSeconds, o.asSeen);
  if (restartNeeded(shell)) return restartAfterFault(shell);
  if (auto code = checkLaterPicture(shell, o.restore, img, rt.hasDevice())) return *code;
  if (takeOtherProcessFault())
    if (auto code = checkDrawingBesideCuda(shell, rt.hasDevice())) return *code;
  return finishScreenshot(o, shell, img, gl.description(), gl.onNvidiaDevice());
}

int runWindow(const CliOptions& o) {
  const bool scripted = !o.screenshot.empty();  // a screenshot run neither reads nor saves settings
  Status settingsProblem;
  const bool firstRun = !scripted && !std::filesystem::exists(settingsPath());
  Settings settings = scripted ? Settings{} : loadSettings(settingsPath(), &settingsProblem);
  if (scripted) settings.language = "en";  // reproducible pictures: --language chooses
  const Settings saved = settings;
  applyOverrides(o, settings);
  if (scripted) {
    settings.window.width = o.width;
    settings.window.height = o.height;
  }
  RuntimeInfo rt = queryRuntime();
  if (drawingPath() == DrawingPath::Software) prepareSoftwareDrawing();
  GlfwWindow window;
  if (Status s = window.open(settings.window, "cudalab"); !s) {
    if (auto code = softwareDrawingUnavailable(o.restore, s)) return *code;
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    return 1;
  }
  // On a HiDPI screen start at its scale; after that the user's choice is remembered.
  if (firstRun && !o.uiScale) {
    settings.uiScale = std::clamp(window.contentScale(), 1.0f, Settings::kMaxScale);
  }
  Shell shell(lessonRegistry(), settings, rt, window.glDescription(), /*headless=*/false);
  shell.setPresenting(o.presentation);
  if (!settingsProblem) shell.report(settingsProblem, "");
  if (!scripted) {
    shell.setUserDataDir(configDirFrom(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME")));
  }
  UiRenderer renderer(shell, settings);
  if (Status s = renderer.init(window.handle()); !s) {
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    return 1;
  }
  restoreFrom(o.restore, shell);
  sayRecordedDrawing(shell, o.restore);
  if (firstRun && o.restore.empty() && o.plan.empty() && o.lesson.empty())
    shell.showGettingStarted();  // a first start with nothing asked for: the welcome
  if (!o.plan.empty() && o.restore.empty()) (void)shell.plans().openPlan(o.plan);
  if (!o.preset.empty() && o.restore.empty())
    if (Status s = shell.plans().applyPreset(shell.current(), o.preset); !s) shell.report(s, "");
  // Saved as they were at the last good frame if the display goes away (no X calls then).
  // What is saved: the settings without the options given once on the command line.
  auto toKeep = [&] {
    Settings keep = settings;
    if (o.theme && keep.theme == *o.theme) keep.theme = saved.theme;
    if (o.language && keep.language == *o.language) keep.language = saved.language;
    if (o.uiScale && keep.uiScale == *o.uiScale) keep.uiScale = saved.uiScale;
    if (o.uiScale && o.presentation && keep.presentationScale == *o.uiScale)
      keep.presentationScale = saved.presentationScale;
    return keep;
  };
  Settings written = saved;
  auto saveNow = [&] {
    if (scripted) return;
    written = toKeep();
    if (Status s = saveSettings(written, settingsPath()); !s)
      std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
  };
  GlfwWindow::onDisplayLost(saveNow);
  if (auto code = checkDrawingWithCuda(shell, rt)) {
    settings.window = window.geometry();
    saveNow();
    return *code;
  }
  int frame = 0;
  double waited = 0;
  bool actionStarted = o.action.empty();
  // Drawing only when something changes: an idle window that redraws without pause keeps a
  // laptop's cores busy and drains its battery. Every frame while the lesson works or animates
  // and while a scripted run goes on, and a few frames after any event or the end of the work
  // (ImGui settles hovering, popups and layout over frames, and the result must be drawn);
  // otherwise the loop sleeps until an event comes or kIdleWakeSeconds pass (a tooltip's delay,
  // the step animations, the editor's caret).
  using Clock = std::chrono::steady_clock;
  constexpr double kIdleWakeSeconds = 0.25;
  constexpr int kSettleFrames = 4;
  // Without vsync (Xvfb, some drivers) the swap does not wait: the display's rate as a cap.
  constexpr double kMinFrameSeconds = 1.0 / 60;
  int settle = kSettleFrames;
  bool wasActive = true;
  // A drawing check costs two reads of 64 pixels: every 20 s it is nothing.
  constexpr double kDrawingCheckSeconds = 20;
  auto lastDrawingCheck = Clock::now();
  auto lastSave = Clock::now();
  while (!window.shouldClose() && !shell.quitRequested()) {
    const auto frameStart = Clock::now();
    const bool active =
        scripted || !actionStarted || shell.wantsEveryFrame() || ImGui::IsAnyMouseDown();
    if (wasActive && !active) settle = kSettleFrames;
    wasActive = active;
    if (active || settle > 0) {
      window.poll();
      if (!active) --settle;
    } else {
      window.waitEvents(kIdleWakeSeconds);
      const double slept = std::chrono::duration<double>(Clock::now() - frameStart).count();
      if (slept < kIdleWakeSeconds * 0.9) settle = kSettleFrames;  // woken by an event
    }
    if (window.minimized()) {
      // Nothing to draw: wait for the window to come back (jobs go on on their threads).
      if (frame < 3) stopFirstPictureWatch();
      window.waitEvents(0.1);
      heartbeat();  // waiting, not hung
      continue;
    }
    shell.noteKeyPresses(window.takeKeyPresses());
    // After a learner's kernel faulted in the playground's worker, and every
    // kDrawingCheckSeconds besides (a fault in any other program can do the same): on some servers
    // that stops this process's OpenGL too (platform/drawing_path.hpp).
    const bool checkDue =
        Clock::now() - lastDrawingCheck > std::chrono::duration<double>(kDrawingCheckSeconds);
    if (takeOtherProcessFault() || checkDue) {
      lastDrawingCheck = Clock::now();
      if (auto code = checkDrawingBesideCuda(shell, rt.hasDevice())) {
        settings.window = window.geometry();
        saveNow();
        return *code;
      }
    }
    renderer.frame(0, 0, 1.0f, false, false, 0);
    if (++frame % 120 == 0) settings.window = window.geometry();
    // Saved as soon as they change, not only on the way out: a crash, a kill or a power cut then
    // keeps the theme, the scale and the lesson the learner chose. At most twice a second (a
    // slider dragged changes them every frame); checked every frame, since an idle window draws
    // only four frames a second (every 30 frames was 7.5 s late: issue 39's window test).
    if (!scripted && Clock::now() - lastSave > std::chrono::milliseconds(500) &&
        !(toKeep() == written)) {
      saveNow();
      lastSave = Clock::now();
    }
    if (restartNeeded(shell)) {
      settings.window = window.geometry();
      saveNow();
      // No swap: after a sticky CUDA error the driver can block on this process's GL work (as
      // reading pixels did on an H100); the new process says what happened.
      return restartAfterFault(shell);
    }
    if (frame == 3 && firstPictureWatched()) {
      // The GPU may have stopped drawing beside CUDA after a fault (restart.hpp): show it draws,
      // from the back buffer before its third swap.
      int fw = 0, fh = 0;
      window.framebufferSize(fw, fh);
      if (auto code = checkFirstPicture(shell, o.restore, readCurrentFramebuffer(fw, fh),
                                        /*headless=*/false)) {
        settings.window = window.geometry();
        saveNow();
        return *code;
      }
    }
    if (!actionStarted && frame >= 5 && !shell.busy()) {
      // --action in a window: pressed once the lesson has settled, as in a headless run.
      actionStarted = true;
      if (!shell.current().startAction(o.action))
        std::fprintf(stderr, "cudalab: the lesson %s cannot start \"%s\" here.\n",
                     shell.current().info().id, o.action.c_str());
    }
    if (scripted && frame >= o.frames) {
      waited += 1.0 / 60.0;
      if (!shell.busy() || waited > o.waitSeconds) {
        if (o.scale == 1 && !o.transparent && o.panel.empty()) {
          // What the window itself shows: its back buffer.
          int fw = 0, fh = 0;
          window.framebufferSize(fw, fh);
          return finishScreenshot(o, shell, readCurrentFramebuffer(fw, fh), window.glDescription());
        }
        int w = 0, h = 0;
        window.size(w, h);
        return finishScreenshot(
            o, shell,
            renderer.capture(w, h, o.scale, o.transparent, o.panel, 3, o.waitSeconds, o.asSeen),
            window.glDescription());
      }
    }
    if (auto job = shell.takeExportJob()) {
      int w = 0, h = 0;
      window.size(w, h);
      Result<Image> img =
          renderer.capture(w, h, job->pixelScale, job->transparent, job->panelId, 3, 5.0);
      shell.finishExport(img ? writePng(*img, job->path) : img.status(), job->path);
    }
    const auto swapStart = Clock::now();
    window.swap();
    const auto now = Clock::now();
    // A swap that waited is vsync pacing the loop (at whatever rate the display has); one that
    // returned at once leaves the cap to us.
    const double spent = std::chrono::duration<double>(now - frameStart).count();
    if (now - swapStart < std::chrono::milliseconds(1) && spent < kMinFrameSeconds)
      std::this_thread::sleep_for(std::chrono::duration<double>(kMinFrameSeconds - spent));
  }
  // Options given once on the command line are not made permanent (saveNow leaves them out).
  if (!scripted) settings.window = window.geometry();
  saveNow();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tuneAllocator();  // freed buffers go back to the system: a flat resident size over hours
  rememberStartArgs(argc, argv);
  installCrashReport();  // a crash says where; `kill -USR2 PID`: where a stuck process waits
  CliParse p = parseCommandLine(argc, argv);
  if (p.exitCode >= 0) {
    if (!p.output.empty()) std::cout << p.output;
    if (!p.error.empty()) std::cerr << p.error << "\n";
    return p.exitCode;
  }
  // Drawing in software from the start where NVIDIA's OpenGL is known not to draw beside CUDA on
  // this machine until the GPU is reset: set before the supervisor, which starts the app again
  // from there.
  if (p.options.command == Command::Window || p.options.command == Command::Headless ||
      p.options.command == Command::Soak)
    (void)adoptRecordedDrawing();
  if (p.options.command == Command::Window || p.options.command == Command::Headless) {
    // The app runs in a child of this process, which starts it again after a GPU fault.
    if (const std::optional<int> code = superviseApp()) return *code;
    // A fault on purpose, for the tests of the recovery from sticky CUDA errors (hidden option or
    // CUDALAB_INJECT_FAULT): the first GPU job of the window or the headless run faults.
    if (Status s = armFaultFromEnvironment(); !s)
      std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    if (!p.options.injectFault.empty())
      armFault(parseFaultKind(p.options.injectFault).value_or(FaultKind::None));
    // And a GPU that is nearly full (CUDALAB_LEAVE_FREE_MIB): the sweeps stop where it is.
    if (queryRuntime().hasDevice())
      if (Status s = holdMemoryFromEnvironment(); !s)
        std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
  }
  switch (p.options.command) {
    case Command::List:
      return runList(p.options);
    case Command::Device:
      return runDevice(p.options);
    case Command::Headless:
      return runHeadless(p.options);
    case Command::Window:
      return runWindow(p.options);
    case Command::Bench:
      return runBench(p.options.bench,
                      BenchOptions{p.options.outDir, p.options.quick, lessonRegistry()});
    case Command::Soak:
      return runSoak(SoakOptions{p.options.soakMinutes, p.options.soakSeed, p.options.outDir,
                                 p.options.lesson});
    case Command::Worker:
      return playground::runWorker(3, 4);
    case Command::CountersHelper:
      return runCountersHelper(3, 4);
    case Command::Check: {
      const CommandResult r = runCheckCommand(
          {p.options.checkPaths, p.options.exercise, p.options.allSizes, p.options.grid,
           p.options.block, p.options.json, "", p.options.lines, p.options.stalls});
      std::fputs(r.out.c_str(), stdout);
      std::fputs(r.err.c_str(), stderr);
      return r.exitCode;
    }
    case Command::Compile: {
      const CommandResult r =
          runCompileCommand({p.options.file, p.options.exercise, p.options.arch, p.options.ptx,
                             p.options.sass, p.options.json, p.options.compare});
      std::fputs(r.out.c_str(), stdout);
      std::fputs(r.err.c_str(), stderr);
      return r.exitCode;
    }
  }
  return 0;
}
