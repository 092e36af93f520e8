// Starting again after a sticky CUDA error; see restart.hpp.
#include "commands/restart.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/device_fault.hpp"
#include "common/translatable.hpp"
#include "platform/drawing_path.hpp"
#include "platform/heartbeat.hpp"
#include "playground/worker.hpp"
#include "ui/renderer.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

// Set by the supervisor for the app it runs: this process is supervised, and writes its state to
// this file when it must start again.
constexpr const char* kSupervisedVariable = "CUDALAB_RESTORE_FILE";
// Set by a user (a debugger session, for example) who wants one process and no supervisor.
constexpr const char* kNoSupervisorVariable = "CUDALAB_NO_SUPERVISOR";
// The exit code of an app that asks its supervisor to start it again (EX_TEMPFAIL).
constexpr int kStartAgainCode = 75;
// Set by the supervisor for an app started again: the pipe on which it says its first picture
// was drawn (one byte).
constexpr const char* kFirstPictureFdVariable = "CUDALAB_FIRST_PICTURE_FD";
// Why an app draws in software, or goes on without the GPU, when the GPU does not draw beside
// CUDA (restart.hpp). Marked for the catalogue: the restarted app shows them translated.
constexpr const char* kStoppedDrawing = N_(
    "because the GPU did not draw its first picture (a GPU error, here or in another program, can "
    "leave it so until the GPU is reset)");
constexpr const char* kStoppedDrawingLater =
    N_("because the GPU stopped drawing after its first picture (a GPU error, here or in another "
       "program, can leave it so until the GPU is reset)");
constexpr const char* kDoesNotDraw =
    N_("because the GPU's OpenGL draws nothing beside CUDA (a GPU error, here or in another "
       "program, leaves it so until the GPU is reset)");
constexpr const char* kNoSoftwareRenderer =
    N_("because the GPU's OpenGL stopped drawing beside CUDA and no software renderer (Mesa) is "
       "installed to draw instead");
constexpr const char* kSoftwareStoppedDrawing =
    N_("because even the software renderer did not draw");
// For tests, in an app started again with the GPU: "hang" never draws the first picture, "blank"
// draws it blank, "blank-later" draws the first and finds the later ones blank, "hang-later"
// draws the first and then stops (as if blocked in the graphics driver); "hang-after-first" does
// that in a first start too (a headless run), and "blank-after-first" finds a later picture of a
// first start blank. Dropped when the supervisor starts the app without
// the GPU.
constexpr const char* kTestFirstPictureVariable = "CUDALAB_TEST_FIRST_PICTURE";

pid_t gChild = -1;

// Writes the first picture's byte on the supervisor's pipe and forgets the variable; returns the
// pipe (-1: not watched), which the caller closes or keeps beating on.
int sayFirstPictureDrawn() {
  const char* v = std::getenv(kFirstPictureFdVariable);
  if (!v) return -1;
  const int fd = std::atoi(v);
  unsetenv(kFirstPictureFdVariable);
  if (fd <= 2) return -1;
  const char drawn = 'd';
  (void)!write(fd, &drawn, 1);
  return fd;
}

void forwardToChild(int sig) {
  if (gChild > 0) kill(gChild, sig);
}

// The command line this process was started with.
std::vector<std::string>& startArgs() {
  static std::vector<std::string> args;
  return args;
}

// The command line for a start again: the original one without an older --restore, then
// --restore FILE; without the fault injected for tests once it has struck (`faulted`), and with it
// while it has not (a start again to draw in software, before the first GPU job).
std::vector<std::string> argsToStartAgain(const std::string& file, bool faulted) {
  std::vector<std::string> args;
  const std::vector<std::string>& old = startArgs();
  for (size_t i = 0; i < old.size(); ++i) {
    const bool drop = old[i] == "--restore" || (faulted && old[i] == "--inject-fault");
    if (drop && i + 1 < old.size()) {
      ++i;
      continue;
    }
    if ((faulted && old[i].rfind("--inject-fault=", 0) == 0) || old[i].rfind("--restore=", 0) == 0)
      continue;
    args.push_back(old[i]);
  }
  args.push_back("--restore");
  args.push_back(file);
  return args;
}

[[noreturn]] void execSelf(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string self = playground::selfExecutable();
  execv(self.c_str(), argv.data());
  std::fprintf(stderr, "cudalab: could not start %s: %s.\n", self.c_str(), std::strerror(errno));
  _exit(127);
}

// The file a faulted app leaves its state in, named by the supervisor's process id (or the app's
// own, without a supervisor).
std::string restoreFileFor(pid_t pid) {
  return (std::filesystem::temp_directory_path() /
          ("cudalab-restore-" + std::to_string(pid) + ".json"))
      .string();
}

// The state a faulted app left (an empty object when it cannot be read).
nlohmann::json readState(const std::string& file) {
  std::ifstream in(file);
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    if (j.is_object()) return j;
  } catch (const std::exception&) {
  }
  return nlohmann::json::object();
}

bool gpuHidden() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v && !*v;
}

// How the next app starts when this one cannot go on as it is: drawing in software beside CUDA on
// the GPU (platform/drawing_path.hpp), or without the GPU (CUDA hidden, the CPU references).
enum class Next { SoftwareDrawing, WithoutGpu };

// Where an app goes when its drawing failed: first to software drawing, then without the GPU.
Next afterBrokenDrawing(bool softwareNow) {
  return softwareNow ? Next::WithoutGpu : Next::SoftwareDrawing;
}

// Where the GPU's drawing (not the software renderer's) failed beside CUDA: later processes on
// this machine draw in software from their start (platform/drawing_path.hpp).
void rememberIfGpuDrawing(const std::string& why) {
  if (drawingPath() == DrawingPath::Gpu && !gpuHidden()) rememberBrokenDrawing(why);
}

// Marks the state for `next`; `why` (marked N_()) says why, for the next app's status bar.
void markState(nlohmann::json& state, Next next, const char* why) {
  state["software_drawing"] = next == Next::SoftwareDrawing;
  state["without_gpu"] = next == Next::WithoutGpu;
  if (next == Next::SoftwareDrawing) state["software_drawing_why"] = why;
  if (next == Next::WithoutGpu) state["without_gpu_why"] = why;
}

// The state for a start again that is not a GPU fault's (the drawing failed): the count of
// faults in a row stays as it is.
nlohmann::json drawingRestartState(const Shell& shell) {
  nlohmann::json state = shell.relaunchState();
  state["relaunches"] = shell.relaunches();
  return state;
}

// Whether the state follows a GPU fault (its sentence), rather than only a drawing that failed.
bool faultStruck(const nlohmann::json& state) {
  return !state.value("fault", std::string()).empty();
}

// Sets this process's environment for an app that starts as `state` says.
void environmentFor(const nlohmann::json& state) {
  if (state.value("without_gpu", false)) {
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    // A new process that uses OpenGL without CUDA still draws on the GPU (docs/RELIABILITY.md).
    unsetenv(kDrawingVariable);
    unsetenv(kTestFirstPictureVariable);
  } else if (state.value("software_drawing", false)) {
    setenv(kDrawingVariable, "software", 1);
    unsetenv(kTestFirstPictureVariable);  // it stands for the GPU's drawing failing
  }
  if (faultStruck(state)) unsetenv("CUDALAB_INJECT_FAULT");
}

// Waits for the app `child` to end. While `watch` is open: the app has kFirstPictureSeconds to say
// on it that its first picture was drawn (a byte), and an app that keeps the pipe open after that
// (one started again with the GPU, see heartbeat.hpp) kStillDrawingSeconds between any two
// further bytes; one that misses either is killed. End of file (the app closed the pipe, or
// ended) stops the watch. Returns the child's wait status; `hung` says whether it was killed for
// that, `drew` whether its first picture had come.
int waitForApp(pid_t child, int watch, bool& hung, bool& drew) {
  hung = false;
  drew = false;
  using Clock = std::chrono::steady_clock;
  auto after = [](double seconds) {
    return Clock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  };
  auto deadline = after(kFirstPictureSeconds);
  int status = 0;
  for (;;) {
    // Every child is reaped (a faulted app's playground workers come back to us too).
    const pid_t done = waitpid(-1, &status, watch >= 0 ? WNOHANG : 0);
    if (done == child) break;
    if (done < 0 && errno != EINTR) return status;
    if (watch < 0 || done > 0) continue;
    pollfd p{watch, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char c[64];
      const ssize_t n = read(watch, c, sizeof c);
      if (n > 0) {
        // The first picture, or a later sign that the app still draws.
        drew = true;
        deadline = after(kStillDrawingSeconds);
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(watch);
        watch = -1;
      }
    } else if (Clock::now() > deadline) {
      kill(child, SIGKILL);
      hung = true;
      close(watch);
      watch = -1;
    }
  }
  if (watch >= 0) close(watch);
  return status;
}

}  // namespace

std::optional<int> superviseApp() {
  if (std::getenv(kSupervisedVariable) || std::getenv(kNoSupervisorVariable)) return std::nullopt;
  const std::string file = restoreFileFor(getpid());
  std::fflush(nullptr);
  constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2};
  // Blocked across each fork, so none arrives before the handlers are in place; the child
  // unblocks them after setting its own.
  sigset_t forwarded, old;
  sigemptyset(&forwarded);
  for (int sig : kForwarded)
    sigaddset(&forwarded, sig);
  sigprocmask(SIG_BLOCK, &forwarded, &old);
  struct sigaction sa {};
  sa.sa_handler = forwardToChild;
  sigemptyset(&sa.sa_mask);
  struct sigaction before[std::size(kForwarded)];
  for (size_t i = 0; i < std::size(kForwarded); ++i)
    sigaction(kForwarded[i], &sa, &before[i]);
  const pid_t supervisor = getpid();
  std::vector<std::string> args = startArgs();
  std::error_code ec;
  std::filesystem::remove(file, ec);  // an old one (a reused process id) is not this run's state
  bool startedAgain = false;
  nlohmann::json state;  // what an app started again restores (its file is gone once read)
  for (;;) {
    // The app must show it can draw (see restart.hpp).
    int firstPicture[2] = {-1, -1};
    if (pipe2(firstPicture, O_CLOEXEC) != 0) firstPicture[0] = -1;
    gChild = fork();
    if (gChild < 0) {
      // No second process: this one runs the app itself, and a fault ends it with a sentence.
      std::fprintf(stderr,
                   "cudalab: could not start the app's process (%s); going on in this one.\n",
                   std::strerror(errno));
      for (size_t i = 0; i < std::size(kForwarded); ++i)
        sigaction(kForwarded[i], &before[i], nullptr);
      sigprocmask(SIG_SETMASK, &old, nullptr);
      setenv(kNoSupervisorVariable, "1", 1);
      return std::nullopt;
    }
    if (gChild == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);  // a supervisor killed outright takes the app with it
      if (getppid() != supervisor) _exit(1);
      for (int sig : kForwarded)
        signal(sig, SIG_DFL);
      sigprocmask(SIG_SETMASK, &old, nullptr);
      setenv(kSupervisedVariable, file.c_str(), 1);
      if (firstPicture[0] >= 0) {
        // dup() drops O_CLOEXEC: this end goes on into the new image.
        setenv(kFirstPictureFdVariable, std::to_string(dup(firstPicture[1])).c_str(), 1);
      } else {
        unsetenv(kFirstPictureFdVariable);
      }
      execSelf(args);
    }
    if (firstPicture[0] >= 0) close(firstPicture[1]);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    bool hung = false, drew = false;
    const int status = waitForApp(gChild, firstPicture[0], hung, drew);
    sigprocmask(SIG_BLOCK, &forwarded, nullptr);
    gChild = -1;
    if (hung && !gpuHidden()) {
      // The GPU did not draw the first picture, or stopped drawing after it (after a fault here,
      // or one in another program before this start): once more, drawing in software, or after
      // that without the GPU.
      const bool software = drawingPath() == DrawingPath::Software;
      const Next next = afterBrokenDrawing(software);
      const char* how = next == Next::WithoutGpu ? "without the GPU" : "drawing in software";
      if (drew)
        std::fprintf(stderr,
                     "cudalab: the app%s drew its first picture, then nothing for %.0f s; "
                     "starting again %s.\n",
                     startedAgain ? " started again" : "", kStillDrawingSeconds, how);
      else
        std::fprintf(stderr,
                     "cudalab: the app%s did not draw its first picture within %.0f s; starting "
                     "again %s.\n",
                     startedAgain ? " started again" : "", kFirstPictureSeconds, how);
      if (!state.is_object()) state = nlohmann::json{{"relaunches", 0}, {"fault", ""}};
      rememberIfGpuDrawing(drew ? "an app drew its first picture, then nothing more"
                                : "an app did not draw its first picture");
      markState(state, next,
                software ? kSoftwareStoppedDrawing
                : drew   ? kStoppedDrawingLater
                         : kStoppedDrawing);
      std::ofstream(file) << state.dump(2);
    } else if (hung) {
      std::fprintf(stderr,
                   "cudalab: the app without the GPU did not draw its first picture within %.0f s "
                   "either; giving up.\n",
                   kFirstPictureSeconds);
      std::filesystem::remove(file, ec);
      return 1;
    }
    if ((hung || (WIFEXITED(status) && WEXITSTATUS(status) == kStartAgainCode)) &&
        std::filesystem::exists(file)) {
      // The app stopped after a sticky GPU error and left its state: a fresh process, opening
      // the GPU and the display afresh, goes on with the same lesson and parameters.
      state = readState(file);
      environmentFor(state);
      args = argsToStartAgain(file, faultStruck(state));
      startedAgain = true;
      continue;
    }
    std::filesystem::remove(file, ec);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
      signal(WTERMSIG(status), SIG_DFL);
      sigprocmask(SIG_SETMASK, &old, nullptr);
      raise(WTERMSIG(status));
    }
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }
}

void rememberStartArgs(int argc, char** argv) {
  startArgs().assign(argv, argv + argc);
  // The first picture's pipe is the app's alone: not its playground workers'.
  if (const char* fd = std::getenv(kFirstPictureFdVariable)) {
    const int n = std::atoi(fd);
    if (n > 2) fcntl(n, F_SETFD, fcntl(n, F_GETFD) | FD_CLOEXEC);
  }
}

bool restartNeeded(const Shell& shell) {
  return deviceFaulted() || shell.relaunchRequested();
}

void restoreFrom(const std::string& file, Shell& shell) {
  if (file.empty()) return;
  std::ifstream in(file);
  try {
    shell.restore(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    const Status s = Status::error("cudalab started again after a GPU error, but " + file +
                                   " could not be read (" + e.what() + ").");
    std::fprintf(stderr, "cudalab: %s\n", s.sentence().c_str());
    shell.report(s, "");
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
}

namespace {

// Writes the state for the next process and ends this one (see restartAfterFault); `why` is
// printed for whoever reads the terminal. Returns only if the state could not be saved.
int startAgain(const nlohmann::json& state, const std::string& why) {
  const bool withoutGpu = state.value("without_gpu", false);
  const bool software = state.value("software_drawing", false);
  const char* supervised = std::getenv(kSupervisedVariable);
  const std::string file = supervised ? std::string(supervised) : restoreFileFor(getpid());
  {
    std::ofstream out(file);
    out << state.dump(2);
    if (!out) {
      std::fprintf(stderr, "cudalab: %s; could not save the state to start again (%s).\n",
                   why.c_str(), file.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "cudalab: %s. Starting again with the same lesson and parameters%s.\n",
               why.c_str(),
               withoutGpu ? ", without the GPU"
               : software ? ", drawing in software (the kernels still on the GPU)"
                          : "");
  std::fflush(nullptr);
  if (supervised) _exit(kStartAgainCode);
  // No supervisor: the new image must not keep anything of this one open, nor the settings that
  // pointed this one at Mesa when it is to draw on the GPU again.
  if (drawingPath() == DrawingPath::Software && !software) {
    unsetenv("__GLX_VENDOR_LIBRARY_NAME");
    unsetenv("LIBGL_ALWAYS_SOFTWARE");
  }
  environmentFor(state);
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const int n = std::atoi(fd.path().filename().c_str());
    if (n > 2) fcntl(n, F_SETFD, fcntl(n, F_GETFD) | FD_CLOEXEC);
  }
  execSelf(argsToStartAgain(file, faultStruck(state)));
}

}  // namespace

// After a sticky CUDA error the process cannot use CUDA again (common/device_fault.hpp): write
// the lesson and parameters to the file the supervisor named, and end this process at once (no
// destructors: they would call CUDA and GL, which may block after the fault). The supervisor
// starts a fresh cudalab with --restore FILE. After three restarts the state asks for the fourth
// without the GPU (CUDA_VISIBLE_DEVICES empty): the app then goes on with its CPU references.
//
// Why a supervisor from the start rather than exec'ing the faulted process: the faulted process
// must be gone before the new one opens the GPU, and a supervisor that never touched CUDA or GL
// carries nothing of it. Without a supervisor (CUDALAB_NO_SUPERVISOR, or a fork that failed) this
// process replaces itself by a fresh image with the same pid, which also runs without one.
int restartAfterFault(Shell& shell) {
  shell.noticeDeviceFault();
  nlohmann::json state = shell.relaunchState();
  // The next app draws as this one did (it checks its drawing first: checkDrawingBesideCuda).
  if (drawingPath() == DrawingPath::Software) markState(state, Next::SoftwareDrawing, kDoesNotDraw);
  if (shell.relaunches() >= 3)
    markState(state, Next::WithoutGpu, N_("after three GPU errors in a row"));
  return startAgain(state, "the GPU stopped: " + lastStickyError().sentence());
}

bool pictureIsBlank(const Image& picture) {
  if (picture.empty() || picture.rgba.size() < 4) return true;
  const std::uint8_t* p = picture.rgba.data();
  for (size_t i = 4; i + 3 < picture.rgba.size(); i += 4)
    if (std::memcmp(p, p + i, 4) != 0) return false;
  return true;
}

bool firstPictureWatched() {
  return std::getenv(kFirstPictureFdVariable) != nullptr;
}

std::optional<int> checkFirstPicture(Shell& shell, const std::string& restoreFile,
                                     const Result<Image>& picture, bool headless) {
  if (!firstPictureWatched()) return std::nullopt;
  const char* anyStart = std::getenv(kTestFirstPictureVariable);
  const char* test = restoreFile.empty() ? nullptr : anyStart;
  if (test && std::strcmp(test, "hang") == 0) {
    std::fprintf(stderr, "cudalab: %s=hang: not drawing the first picture.\n",
                 kTestFirstPictureVariable);
    for (;;)
      pause();
  }
  const bool blank =
      !picture || pictureIsBlank(picture.value()) || (test && std::strcmp(test, "blank") == 0);
  if (blank && !gpuHidden()) {
    nlohmann::json state = drawingRestartState(shell);
    const bool software = drawingPath() == DrawingPath::Software;
    rememberIfGpuDrawing("an app's first picture came out blank");
    markState(state, afterBrokenDrawing(software),
              software ? kSoftwareStoppedDrawing : kStoppedDrawing);
    return startAgain(state, picture ? "the first picture came out blank"
                                     : "the first picture could not be read (" +
                                           picture.status().sentence() + ")");
  }
  if (blank)
    std::fprintf(stderr, "cudalab: the first picture came out blank%s.\n",
                 picture ? "" : (" (" + picture.status().sentence() + ")").c_str());
  if ((headless || !restoreFile.empty()) && !gpuHidden()) {
    // Started again with the GPU after a fault, or a headless run (on a GPU server, where a fault
    // in any process, a learner's kernel in the playground's worker among them, can stop the
    // drawing of every process that uses CUDA and draws): the drawing can hang after the first
    // picture (heartbeat.hpp), so the pipe stays open and every frame says the app still draws.
    // A window is watched only after a restart: it can stop drawing for good reasons (stopped
    // from its terminal, a swap waiting on a hidden window).
    const int fd = sayFirstPictureDrawn();
    if ((test && std::strcmp(test, "hang-later") == 0) ||
        (anyStart && std::strcmp(anyStart, "hang-after-first") == 0)) {
      std::fprintf(stderr, "cudalab: %s=hang-later: drawing nothing more.\n",
                   kTestFirstPictureVariable);
      for (;;)
        pause();
    }
    startHeartbeat(fd);
    return std::nullopt;
  }
  stopFirstPictureWatch();
  return std::nullopt;
}

std::optional<int> checkLaterPicture(Shell& shell, const std::string& restoreFile,
                                     const Result<Image>& picture, bool gpu) {
  // Every headless run, started again after a fault or not (on an H200, a screenshot started
  // after the GPU tests' deliberate faults in other processes drew its lesson, then the picture
  // after the action blank).
  if (gpuHidden()) return std::nullopt;
  const char* test = std::getenv(kTestFirstPictureVariable);
  const bool testBlank = test && ((!restoreFile.empty() && std::strcmp(test, "blank-later") == 0) ||
                                  std::strcmp(test, "blank-after-first") == 0);
  // Without a GPU there is nothing to go on without: a blank picture is the drawing's own error
  // (the test hooks stand in for a GPU that stopped drawing, on machines without one).
  const bool blank =
      gpu && !picture && picture.status().message().rfind(kBlankPictureSentence, 0) == 0;
  if (!blank && !testBlank) return std::nullopt;
  nlohmann::json state = drawingRestartState(shell);
  const bool software = drawingPath() == DrawingPath::Software;
  rememberIfGpuDrawing("an app's picture after its first came out blank");
  markState(state, afterBrokenDrawing(software),
            software ? kSoftwareStoppedDrawing : kStoppedDrawingLater);
  return startAgain(state, "a picture after the first came out blank");
}

std::optional<int> checkDrawingBesideCuda(Shell& shell, bool gpu) {
  if (drawingPath() == DrawingPath::Software || gpuHidden()) return std::nullopt;
  if (!gpu && !drawingBreakSimulated()) return std::nullopt;
  nlohmann::json state = drawingRestartState(shell);
  markState(state, Next::SoftwareDrawing, kDoesNotDraw);
  // The check waits at most 4 s for the GPU, but a broken driver can also block the calls
  // around that wait: past kCheckSeconds a watchdog starts again from its own thread (the state
  // is made before, while the UI thread is free).
  static constexpr double kCheckSeconds = 10;
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread([done, state] {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(kCheckSeconds);
    while (!*done && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!*done) {
      const char* why = "the GPU's OpenGL did not answer a small drawing within 10 s";
      rememberBrokenDrawing(why);
      startAgain(state, why);
    }
  }).detach();
  const Status drew = checkDrawing();
  *done = true;
  if (drew) return std::nullopt;
  std::string why = "the GPU's OpenGL does not draw beside CUDA: " + drew.sentence();
  if (why.back() == '.') why.pop_back();  // startAgain ends the sentence
  rememberBrokenDrawing(why);
  return startAgain(state, why);
}

std::optional<int> softwareDrawingUnavailable(const std::string& restoreFile, const Status& why) {
  if (drawingPath() != DrawingPath::Software || gpuHidden()) return std::nullopt;
  nlohmann::json state = restoreFile.empty() ? nlohmann::json{{"relaunches", 1}, {"fault", ""}}
                                             : readState(restoreFile);
  markState(state, Next::WithoutGpu, kNoSoftwareRenderer);
  std::string said = why.sentence();
  if (!said.empty() && said.back() == '.') said.pop_back();  // startAgain ends the sentence
  return startAgain(state, said);
}

void stopFirstPictureWatch() {
  const int fd = sayFirstPictureDrawn();
  if (fd >= 0) close(fd);
}

}  // namespace cudalab
