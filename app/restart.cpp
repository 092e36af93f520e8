// Starting again after a sticky CUDA error; see restart.hpp.
#include "restart.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/device_fault.hpp"
#include "playground/worker.hpp"
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

pid_t gChild = -1;

void forwardToChild(int sig) {
  if (gChild > 0) kill(gChild, sig);
}

// The command line this process was started with.
std::vector<std::string>& startArgs() {
  static std::vector<std::string> args;
  return args;
}

// The command line for a start again: the original one without the fault injected for tests and
// without an older --restore, then --restore FILE.
std::vector<std::string> argsToStartAgain(const std::string& file) {
  std::vector<std::string> args;
  const std::vector<std::string>& old = startArgs();
  for (size_t i = 0; i < old.size(); ++i) {
    if ((old[i] == "--inject-fault" || old[i] == "--restore") && i + 1 < old.size()) {
      ++i;
      continue;
    }
    if (old[i].rfind("--inject-fault=", 0) == 0 || old[i].rfind("--restore=", 0) == 0) continue;
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

// Whether the state file asks for the next start without the GPU (after three restarts).
bool stateSaysWithoutGpu(const std::string& file) {
  std::ifstream in(file);
  try {
    return nlohmann::json::parse(in).value("without_gpu", false);
  } catch (const std::exception&) {
    return false;
  }
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
  for (;;) {
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
      execSelf(args);
    }
    sigprocmask(SIG_SETMASK, &old, nullptr);
    int status = 0;
    for (;;) {
      // Every child is reaped (a faulted app's playground workers come back to us too).
      const pid_t done = waitpid(-1, &status, 0);
      if (done == gChild) break;
      if (done < 0 && errno != EINTR) return 1;
    }
    sigprocmask(SIG_BLOCK, &forwarded, nullptr);
    gChild = -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == kStartAgainCode &&
        std::filesystem::exists(file)) {
      // The app stopped after a sticky GPU error and left its state: a fresh process, opening
      // the GPU and the display afresh, goes on with the same lesson and parameters.
      if (stateSaysWithoutGpu(file)) setenv("CUDA_VISIBLE_DEVICES", "", 1);
      unsetenv("CUDALAB_INJECT_FAULT");
      args = argsToStartAgain(file);
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
  const bool withoutGpu = shell.relaunches() >= 3;
  state["without_gpu"] = withoutGpu;
  const std::string why = lastStickyError().sentence();
  const char* supervised = std::getenv(kSupervisedVariable);
  const std::string file = supervised ? std::string(supervised) : restoreFileFor(getpid());
  {
    std::ofstream out(file);
    out << state.dump(2);
    if (!out) {
      std::fprintf(stderr,
                   "cudalab: the GPU stopped: %s; could not save the state to start again (%s).\n",
                   why.c_str(), file.c_str());
      return 1;
    }
  }
  std::fprintf(stderr,
               "cudalab: the GPU stopped: %s. Starting again with the same lesson and "
               "parameters.\n",
               why.c_str());
  std::fflush(nullptr);
  if (supervised) _exit(kStartAgainCode);
  // No supervisor: the new image must not keep anything of this one open.
  if (withoutGpu) setenv("CUDA_VISIBLE_DEVICES", "", 1);
  unsetenv("CUDALAB_INJECT_FAULT");
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const int n = std::atoi(fd.path().filename().c_str());
    if (n > 2) fcntl(n, F_SETFD, fcntl(n, F_GETFD) | FD_CLOEXEC);
  }
  execSelf(argsToStartAgain(file));
}

}  // namespace cudalab
