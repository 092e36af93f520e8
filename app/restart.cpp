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
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/device_fault.hpp"
#include "playground/worker.hpp"
#include "ui/shell.hpp"

namespace cudalab {
namespace {

// Set by restartAfterFault() for the image that replaces the faulted process: it becomes a
// supervisor.
constexpr const char* kSuperviseVariable = "CUDALAB_SUPERVISE_RESTART";
pid_t gChild = -1;

void forwardToChild(int sig) {
  if (gChild > 0) kill(gChild, sig);
}

// In the process that replaced a faulted cudalab (restartAfterFault() set kSuperviseVariable),
// before any CUDA or GL: run the same command line in a child, which gets a new process id and
// opens the GPU afresh, pass on the signals a user or a script sends to the id they know (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT, and SIGUSR2 for the stack), and end as the child ended: its exit code,
// or the same signal. The faulted process's own children (playground workers) are reaped too.
// Returns nothing in the child (and when supervision is not asked for), which goes on as a normal
// start.
}  // namespace

std::optional<int> superviseRestart() {
  const char* v = std::getenv(kSuperviseVariable);
  if (!v || std::string(v) != "1") return std::nullopt;
  unsetenv(kSuperviseVariable);
  std::fflush(nullptr);
  constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2};
  // Blocked across the fork, so none arrives before the handlers are in place.
  sigset_t forwarded, old;
  sigemptyset(&forwarded);
  for (int sig : kForwarded)
    sigaddset(&forwarded, sig);
  sigprocmask(SIG_BLOCK, &forwarded, &old);
  const pid_t parent = getpid();
  gChild = fork();
  if (gChild <= 0) {
    if (gChild < 0)
      std::fprintf(stderr, "cudalab: could not start a fresh process (%s); going on in this one.\n",
                   std::strerror(errno));
    else {
      prctl(PR_SET_PDEATHSIG, SIGTERM);  // a supervisor killed outright takes the app with it
      if (getppid() != parent) raise(SIGTERM);
    }
    sigprocmask(SIG_SETMASK, &old, nullptr);
    return std::nullopt;
  }
  struct sigaction sa {};
  sa.sa_handler = forwardToChild;
  sigemptyset(&sa.sa_mask);
  for (int sig : kForwarded)
    sigaction(sig, &sa, nullptr);
  sigprocmask(SIG_SETMASK, &old, nullptr);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(-1, &status, 0);
    if (done == gChild) break;
    if (done < 0 && errno != EINTR) return 1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

namespace {

// The command line this process was started with.
std::vector<std::string>& startArgs() {
  static std::vector<std::string> args;
  return args;
}

}  // namespace

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
    shell.report(Status::error("cudalab started again after a GPU error, but " + file +
                               " could not be read (" + e.what() + ")."),
                 "");
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
}

// After a sticky CUDA error the process cannot use CUDA again (common/device_fault.hpp): write
// the lesson and parameters to a file and replace this process by a fresh cudalab with the same
// command line (without the fault injected for tests) and --restore FILE. After three restarts
// the fourth starts with CUDA hidden (CUDA_VISIBLE_DEVICES empty): the app then goes on with its
// CPU references; this process cannot, since its GL may block after the fault. Returns only if the
// new process could not be started, with the exit code.
//
// The fresh cudalab runs in a child with a new process id, under the old id as its supervisor
// (superviseRestart below): on an H100 a process exec'd in place of the faulted one, same id,
// spun for ever in its first CUDA-GL interop call, while new processes used the GPU normally.
int restartAfterFault(Shell& shell) {
  shell.noticeDeviceFault();
  const std::string why = lastStickyError().sentence();
  const bool giveUp = shell.relaunches() >= 3;
  if (giveUp) setenv("CUDA_VISIBLE_DEVICES", "", 1);
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("cudalab-restore-" + std::to_string(getpid()) + ".json"))
                               .string();
  {
    std::ofstream out(file);
    nlohmann::json state = shell.relaunchState();
    state["without_gpu"] = giveUp;
    out << state.dump(2);
    if (!out) {
      std::fprintf(stderr, "cudalab: %s; could not save the state to start again (%s).\n",
                   why.c_str(), file.c_str());
      return 1;
    }
  }
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
  unsetenv("CUDALAB_INJECT_FAULT");
  setenv(kSuperviseVariable, "1", 1);
  std::fprintf(stderr,
               "cudalab: the GPU stopped: %s. Starting again with the same lesson and "
               "parameters.\n",
               why.c_str());
  std::fflush(nullptr);
  // The new process opens the GPU, the display and its files afresh: nothing of the faulted one
  // (driver handles a library opened without close-on-exec, the settings file) may live on in it.
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const int n = std::atoi(fd.path().filename().c_str());
    if (n > 2) fcntl(n, F_SETFD, fcntl(n, F_GETFD) | FD_CLOEXEC);
  }
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string self = playground::selfExecutable();
  execv(self.c_str(), argv.data());
  std::fprintf(stderr, "cudalab: could not start again (%s): %s. Start cudalab again by hand.\n",
               self.c_str(), std::strerror(errno));
  return 1;
}

}  // namespace cudalab
