#include "common/run_tool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/translatable.hpp"

extern char** environ;

namespace cudalab {

namespace {

constexpr std::size_t kMaxOutput = 64u << 20;

}  // namespace

bool isExecutable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0 && !std::filesystem::is_directory(path);
}

Result<ToolRun> runTool(const std::string& program, const std::vector<std::string>& args,
                        double limitSeconds) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    return Status::errorf(N_("Could not make a pipe to run %s."), {program});
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, out[1], 2);
  std::vector<std::string> words{program};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    return Status::errorf(N_("Could not start %s (%s)."), {program, std::strerror(rc)});
  }
  ToolRun run;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(limitSeconds * 1000));
  bool late = false;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      late = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, int(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;  // the pipe cannot be watched: read no more, wait for the tool below
    if (ready == 0) continue;
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the tool closed its output: it has ended, or is ending
    if (run.output.size() < kMaxOutput) run.output.append(buf, std::size_t(n));
  }
  ::close(out[0]);
  // The tool closed its output; it may still be running: wait for it within the same limit.
  int status = 0;
  bool ended = false;
  while (!late && !ended) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      ended = true;
    } else if (std::chrono::steady_clock::now() >= deadline) {
      late = true;
    } else {
      ::usleep(2000);
    }
  }
  if (late) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (late)
    return Status::errorf(N_("%s did not finish within %s seconds and was stopped."),
                          {program, std::to_string(int(limitSeconds))});
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

Result<TempFile> TempFile::write(std::string_view bytes, const std::string& suffix) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  std::string path = (ec ? std::filesystem::path("/tmp") : dir) / ("cudalab-XXXXXX" + suffix);
  const int fd = ::mkstemps(path.data(), int(suffix.size()));
  if (fd < 0)
    return Status::errorf(N_("Could not make a temporary file (%s)."), {std::strerror(errno)});
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(path.c_str());
      return Status::errorf(N_("Could not write a temporary file (%s)."), {why});
    }
    done += std::size_t(n);
  }
  ::close(fd);
  return TempFile(std::move(path));
}

TempFile::~TempFile() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

}  // namespace cudalab
