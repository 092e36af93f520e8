// The app's side of the worker: start it, send a run, wait with a deadline, stop it when it hangs.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/device_fault.hpp"
#include "common/format.hpp"
#include "common/translatable.hpp"
#include "playground/worker.hpp"

extern char** environ;

namespace cudalab::playground {

namespace {

constexpr std::size_t kMaxOutput = 16 * 1024;

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string selfExecutable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("cudalab") : p.string();
}

std::string findComputeSanitizer() {
  std::error_code ec;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (size_t b = 0, e; b <= p.size(); b = e + 1) {
      e = p.find(':', b);
      if (e == std::string::npos) e = p.size();
      const std::filesystem::path candidate =
          std::filesystem::path(p.substr(b, e - b)) / "compute-sanitizer";
      if (!p.substr(b, e - b).empty() && std::filesystem::exists(candidate, ec))
        return candidate.string();
    }
  }
  for (const char* c : {"/usr/local/cuda/bin/compute-sanitizer",
                        "/usr/local/cuda/compute-sanitizer/compute-sanitizer"})
    if (std::filesystem::exists(c, ec)) return c;
  return "";
}

std::vector<std::string> workerCommand(bool sanitize, std::string executable) {
  if (!sanitize) return {executable, "worker"};
  return {findComputeSanitizer(), "--tool", "memcheck", "--print-limit", "8",
          "--show-backtrace",     "no",     executable, "worker"};
}

std::optional<SanitizerFinding> firstSanitizerFinding(const std::string& output) {
  // ========= Invalid __global__ write of size 4 bytes
  // =========     at double_it+0x90 in kernel.cu:2
  // =========     by thread (0,0,0) in block (0,0,0)
  const size_t at = output.find("========= Invalid ");
  size_t start = at;
  if (at == std::string::npos) {
    start = output.find("========= Barrier error");
    if (start == std::string::npos) start = output.find("========= Uninitialized");
    if (start == std::string::npos) return std::nullopt;
  }
  SanitizerFinding f;
  auto lineAt = [&](size_t b) {
    const size_t e = output.find('\n', b);
    return output.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  f.what = lineAt(start + 10);
  size_t pos = output.find('\n', start);
  for (int i = 0; i < 4 && pos != std::string::npos; ++i) {
    const std::string l = lineAt(pos + 1);
    if (const size_t k = l.find("kernel.cu:"); k != std::string::npos)
      f.line = std::atoi(l.c_str() + k + 10);
    if (const size_t k = l.find("by thread"); k != std::string::npos) f.where = l.substr(k + 3);
    pos = output.find('\n', pos + 1);
  }
  while (!f.what.empty() && (f.what.back() == ' ' || f.what.back() == '\r'))
    f.what.pop_back();
  return f;
}

WorkerClient::WorkerClient(std::vector<std::string> command) : command_(std::move(command)) {}

WorkerClient::~WorkerClient() {
  stop();
}

Status WorkerClient::start() {
  if (pid_ > 0) return {};
  if (command_.empty()) return Status::error(N_("No worker command was given."));
  int toChild[2], fromChild[2], out[2];
  if (::pipe2(toChild, O_CLOEXEC) != 0)
    return Status::error(N_("Could not make a pipe for the worker."));
  if (::pipe2(fromChild, O_CLOEXEC) != 0) {
    ::close(toChild[0]), ::close(toChild[1]);
    return Status::error(N_("Could not make a pipe for the worker."));
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(toChild[0]), ::close(toChild[1]), ::close(fromChild[0]), ::close(fromChild[1]);
    return Status::error(N_("Could not make a pipe for the worker."));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  // Requests on 3, replies on 4, printf output on 1 and 2 (dup2 clears close-on-exec).
  posix_spawn_file_actions_adddup2(&fa, toChild[0], 3);
  posix_spawn_file_actions_adddup2(&fa, fromChild[1], 4);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, out[1], 2);
  std::vector<char*> argv;
  for (std::string& a : command_)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  // Its own process group, so that stopping it also stops what it started (compute-sanitizer
  // runs the worker as its child).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(toChild[0]);
  ::close(fromChild[1]);
  ::close(out[1]);
  if (rc != 0) {
    ::close(toChild[1]), ::close(fromChild[0]), ::close(out[0]);
    return Status::errorf(N_("Could not start the worker process %s (%s)."),
                          {command_[0], std::strerror(rc)});
  }
  pid_ = pid;
  toWorker_ = toChild[1];
  fromWorker_ = fromChild[0];
  outputFd_ = out[0];
  ::fcntl(outputFd_, F_SETFL, ::fcntl(outputFd_, F_GETFL) | O_NONBLOCK);
  // A worker that dies must not kill the app with SIGPIPE when the app writes to it.
  ::signal(SIGPIPE, SIG_IGN);
  ++starts_;
  hello_.reset();
  return {};
}

void WorkerClient::drainOutput() {
  if (outputFd_ < 0) return;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(outputFd_, buf, sizeof buf);
    if (n <= 0) break;
    if (output_.size() < kMaxOutput)
      output_.append(buf, static_cast<std::size_t>(std::min<ssize_t>(
                              n, static_cast<ssize_t>(kMaxOutput - output_.size()))));
  }
}

// The fixed descriptions are marked: they go into learner-facing sentences as values, which the
// app translates when a catalogue has them (the ones with a number stay in English).
std::string WorkerClient::exitDescription() {
  if (pid_ <= 0) return N_("it had already stopped");
  int status = 0;
  pid_t r = -1;
  // The process closed its pipe; give it a moment to finish exiting.
  for (int i = 0; i < 50; ++i) {
    r = ::waitpid(pid_, &status, WNOHANG);
    if (r != 0) break;
    ::usleep(10000);
  }
  if (r == 0) return N_("it stopped answering");
  pid_ = -1;  // reaped
  if (WIFSIGNALED(status))
    return "it was ended by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "it exited with code " + std::to_string(WEXITSTATUS(status));
  return N_("it stopped");
}

void WorkerClient::waitForExit(double seconds) {
  const double end = steadySeconds() + seconds;
  while (pid_ > 0 && steadySeconds() < end) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || r < 0) {
      pid_ = -1;
      break;
    }
    drainOutput();
    ::usleep(5000);
  }
}

void WorkerClient::stop() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // the whole group
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  closeFd(toWorker_);
  closeFd(fromWorker_);
  drainOutput();
  closeFd(outputFd_);
  hello_.reset();
}

Result<Message> WorkerClient::call(const Message& request, double setupSeconds,
                                   double kernelSeconds, const std::atomic<bool>* cancel) {
  CUDALAB_TRY(start());
  output_.clear();
  if (Status s = writeMessage(toWorker_, request); !s) {
    const std::string why = exitDescription();
    stop();
    return Status::errorf(N_("The worker process could not take the request: %s."), {why});
  }
  // Three limits, one after the other: getting the run ready (loading the kernel, making the
  // inputs), the learner's launches (the time limit the learner chose), and the check with the
  // comparisons. The worker says when each phase starts.
  enum class Phase { Setup, Kernel, Checking } phase = Phase::Setup;
  double limit = setupSeconds;
  double deadline = steadySeconds() + limit;
  for (;;) {
    // Short slices: cancelling is seen at once, and the kernel's printf output is read as it
    // comes, so a kernel that prints a lot never blocks on a full pipe.
    pollfd fds[2] = {{fromWorker_, POLLIN, 0}, {outputFd_, POLLIN, 0}};
    const int ready = ::poll(fds, 2, 50);
    if (fds[1].revents & POLLIN) drainOutput();
    if (cancel && cancel->load()) {
      stop();
      return Status::error(N_("Cancelled: the worker process was stopped."));
    }
    if (ready > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      // A message has begun: read all of it (a message is never cut by a slice).
      Result<Message> m = readMessage(fromWorker_, std::max(deadline, steadySeconds() + 10.0));
      drainOutput();
      if (m) {
        const std::string type = m->head.value("type", "");
        if (type == "progress") {
          if (onProgress_) onProgress_(m->head);
          deadline = steadySeconds() + limit;
          continue;
        }
        if (type == "phase") {
          const std::string what = m->head.value("phase", "");
          if (what == "launching") {
            phase = Phase::Kernel;
            limit = kernelSeconds;
          } else if (what == "checking") {
            phase = Phase::Checking;
            limit = kCheckSeconds;
          }
          deadline = steadySeconds() + limit;
          continue;
        }
        return m;
      }
      const std::string& why = m.status().message();
      if (why == "eof") {
        const std::string how = exitDescription();
        stop();
        return Status::errorf(
            N_("The worker process ended before it answered: %s. The next run starts a fresh "
               "worker."),
            {how});
      }
      stop();
      return Status::errorf(N_("The worker process sent something the app cannot read (%s), so "
                               "it was stopped. The next run starts a fresh worker."),
                            {why});
    }
    if (steadySeconds() < deadline) continue;
    stop();
    const std::string secs = trimmedFixed(limit, 1);
    switch (phase) {
      case Phase::Kernel:
        return Status::errorf(
            N_("Your kernel ran past the time limit of %s s, so the app stopped the worker "
               "process. A kernel that never finishes (a loop whose condition never turns false, a "
               "barrier some threads never reach) looks like this; a slow one needs a longer "
               "limit. The next run starts a fresh worker."),
            {secs});
      case Phase::Checking:
        return Status::errorf(N_("Checking the result and timing the comparisons took longer than "
                                 "%s s, so the app stopped the worker process."),
                              {secs});
      case Phase::Setup:
        break;
    }
    return Status::errorf(N_("The worker process did not get ready within %s s (starting, loading "
                             "the kernel, making the inputs), so the app stopped it. The next run "
                             "starts a fresh worker."),
                          {secs});
  }
}

SmModel WorkerHello::smModel() const {
  SmModel sm;
  if (!hasDevice) return sm;
  if (maxThreadsPerSM > 0) sm.maxThreadsPerSM = maxThreadsPerSM;
  if (maxBlocksPerSM > 0) sm.maxBlocksPerSM = maxBlocksPerSM;
  if (regsPerSM > 0) sm.registersPerSM = regsPerSM;
  if (sharedPerSM > 0) sm.sharedPerSM = sharedPerSM;
  if (sharedPerBlockOptin > 0) sm.sharedPerBlockMax = sharedPerBlockOptin;
  if (sharedReservedPerBlock > 0) sm.sharedReservedPerBlock = sharedReservedPerBlock;
  return sm;
}

Result<WorkerHello> WorkerClient::hello(const std::atomic<bool>* cancel) {
  if (hello_ && pid_ > 0) return *hello_;
  Result<Message> m = call({{{"type", "hello"}}, {}}, kStartSeconds, kStartSeconds, cancel);
  if (!m) return m.status();
  const nlohmann::json& j = m->head;
  if (j.value("type", "") != "hello")
    return Status::error("The worker process answered hello with \"" + j.value("type", "?") +
                         "\".");
  WorkerHello h;
  h.hasDevice = j.value("has_device", false);
  h.device = j.value("device", "");
  h.arch = j.value("arch", 0);
  h.problem = j.value("problem", "");
  h.limits.maxThreadsPerBlock = j.value("max_threads_per_block", 1024);
  h.limits.maxBlock = j.value("max_block", h.limits.maxBlock);
  h.limits.maxGrid = j.value("max_grid", h.limits.maxGrid);
  h.limits.freeBytes = j.value("free_bytes", h.limits.freeBytes);
  h.limits.fromDevice = h.hasDevice;
  h.smCount = j.value("sm_count", 0);
  h.maxThreadsPerSM = j.value("max_threads_per_sm", 0);
  h.regsPerSM = j.value("regs_per_sm", 0);
  h.sharedPerSM = j.value("shared_per_sm", 0LL);
  h.sharedPerBlock = j.value("shared_per_block", 0LL);
  h.maxBlocksPerSM = j.value("max_blocks_per_sm", 0);
  h.sharedPerBlockOptin = j.value("shared_per_block_optin", 0LL);
  h.sharedReservedPerBlock = j.value("shared_reserved_per_block", 0LL);
  hello_ = h;
  return h;
}

namespace {

// Joins `more`'s PC samples to `r`'s, each record's reasons looked up by name (one GPU names them
// alike for every kernel, but nothing promises the order).
void joinStalls(RunReport& r, RunReport&& more) {
  for (counters::StallRecord& rec : more.stalls) {
    for (auto& [reason, n] : rec.samples) {
      const std::string& name = more.stallReasons[static_cast<std::size_t>(reason)];
      auto it = std::find(r.stallReasons.begin(), r.stallReasons.end(), name);
      if (it == r.stallReasons.end()) it = r.stallReasons.insert(r.stallReasons.end(), name);
      reason = static_cast<int>(it - r.stallReasons.begin());
    }
    r.stalls.push_back(std::move(rec));
  }
  r.stallSamples += more.stallSamples;
  r.stallSamplesDropped += more.stallSamplesDropped;
}

}  // namespace

Result<RunReport> WorkerClient::run(const CompileResult& compiled, const Exercise& e,
                                    const RunParams& p, const std::atomic<bool>* cancel) {
  if (!p.lineCounters && !p.stalls) return runOnce(compiled, e, p, cancel);
  // The timed run reads the first kernel: its line counters, or without them its samples.
  RunParams first = p;
  first.lineKernel = 0;
  first.stalls = p.stalls && !p.lineCounters;
  Result<RunReport> r = runOnce(compiled, e, first, cancel);
  if (!r) return r;
  // Then every other reading, each in an untimed run of its own.
  auto untimed = [&](bool lines, std::size_t kernel) {
    RunParams q = p;
    q.lineCounters = lines;
    q.stalls = !lines;
    q.lineKernel = static_cast<int>(kernel);
    q.compare = false;
    q.runs = 1;
    return runOnce(compiled, e, q, cancel);
  };
  const std::size_t kernels = entryPoints(e).size();
  for (std::size_t k = 1; p.lineCounters && k < kernels && r->linesProblem.empty(); ++k) {
    Result<RunReport> m = untimed(true, k);
    if (cancel && cancel->load())
      return Status::error(N_("Cancelled: the worker process was stopped."));
    if (!m) {
      r->linesProblem = m.status().sentence();
    } else if (!m->linesProblem.empty()) {
      r->linesProblem = m->linesProblem;
    } else {
      r->instructions.insert(r->instructions.end(), m->instructions.begin(), m->instructions.end());
      r->lines = counters::joinLines(r->lines, m->lines);
    }
  }
  for (std::size_t k = p.lineCounters ? 0 : 1; p.stalls && k < kernels && r->stallsProblem.empty();
       ++k) {
    Result<RunReport> s = untimed(false, k);
    if (cancel && cancel->load())
      return Status::error(N_("Cancelled: the worker process was stopped."));
    if (!s)
      r->stallsProblem = s.status().sentence();
    else if (!s->stallsProblem.empty())
      r->stallsProblem = s->stallsProblem;
    else
      joinStalls(*r, std::move(*s));
  }
  return r;
}

Result<RunReport> WorkerClient::runOnce(const CompileResult& compiled, const Exercise& e,
                                        const RunParams& p, const std::atomic<bool>* cancel) {
  if (!compiled.ok) return Status::error(N_("Compile the kernel without errors first."));
  Result<WorkerHello> h = hello(cancel);
  if (!h) return h.status();
  if (!h->hasDevice) return Status::errorf(N_("The worker has no GPU to run on: %s"), {h->problem});
  if (h->arch != compiled.arch)
    return Status::errorf(N_("The kernel was compiled for sm_%s but the GPU is sm_%s: compile it "
                             "again."),
                          {std::to_string(compiled.arch), std::to_string(h->arch)});
  // The parameters the kernel declares must be the ones the app passes, in number and size.
  const std::vector<int> want = expectedParamSizes(e);
  for (const std::string& entry : entryPoints(e)) {
    const std::optional<std::vector<int>> got = ptxParamSizes(compiled.ptx, entry);
    if (got && *got != want)
      return Status::errorf(
          got->size() == 1
              ? N_("The kernel %s takes %s parameter (or ones of other sizes), but the app passes "
                   "the exercise's %s: %s. Keep the signature: the same number, order and types.")
              : N_("The kernel %s takes %s parameters (or ones of other sizes), but the app "
                   "passes the exercise's %s: %s. Keep the signature: the same number, order and "
                   "types."),
          {entry, std::to_string(got->size()), std::to_string(want.size()), signatureText(e)});
  }
  Message req;
  req.head = {{"type", "run"}, {"params", toJson(p)}, {"entries", entryPoints(e)}};
  req.blobs.push_back(compiled.cubin);
  Result<Message> m = call(req, kSetupSeconds, p.timeoutSeconds, cancel);
  if (!m) return m.status();
  const std::string type = m->head.value("type", "");
  if (type == "error") {
    const bool sticky = m->head.value("sticky", false);
    std::string s = m->head.value("message", "The worker failed.");
    if (sticky) {
      // The worker exits by itself after an error that spoils its CUDA context: let it finish
      // (the driver cleans up the faulted context as it exits), then reap it.
      waitForExit(10.0);
      stop();
      // On some servers such an error stops this process's OpenGL as well: the app checks.
      noteOtherProcessFault();
      // The worker's own message (CUDA's words) stays as it is; the app's sentence translates.
      return Status::errorf(N_("%s The worker process was restarted: the next run starts clean."),
                            {s});
    }
    // A run that used CUPTI ends its worker either way (worker_server.cpp): reap it.
    if (p.lineCounters || p.stalls) {
      waitForExit(10.0);
      stop();
    }
    return Status::error(s);
  }
  if (type != "report") return Status::error("The worker answered a run with \"" + type + "\".");
  Result<RunReport> r = runReportFromJson(m->head.value("report", nlohmann::json::object()));
  if (!r) return r.status();
  auto cells = [](const std::string& blob) {
    std::vector<Cell> c(blob.size());
    for (std::size_t i = 0; i < blob.size(); ++i)
      c[i] = static_cast<Cell>(std::min<unsigned char>(static_cast<unsigned char>(blob[i]), 4));
    return c;
  };
  if (m->blobs.size() >= 1) r->cells = cells(m->blobs[0]);
  if (m->blobs.size() >= 2) r->guardCells = cells(m->blobs[1]);
  r->output = output_;
  if (p.lineCounters || p.stalls) {
    // The worker ends after a run with counters per line or PC sampling (worker_server.cpp): reap
    // it; the next run starts a fresh one.
    waitForExit(10.0);
    stop();
  }
  return r;
}

}  // namespace cudalab::playground
