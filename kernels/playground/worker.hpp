// The worker process: where the learner's kernel runs, so that an illegal address, a trap or a
// kernel that never ends takes down only the worker, never the app.
//
// [SECTION] Messages   framing on a pipe: a JSON head and binary attachments, read with a
//                      deadline; a bad message is an error, never a crash
// [SECTION] Client     the app's side: starts `cudalab worker`, sends a run, waits with the time
//                      limit, stops the process when it passes it, and says what happened
// [SECTION] Server     the worker's side: `cudalab worker` answers hello and run requests
//
//   WorkerClient worker({selfExecutable(), "worker"});
//   Result<WorkerHello> h = worker.hello();             // starts the process; device and limits
//   Result<RunReport> r = worker.run(compiled, params, &cancel);
//   if (!r) show(r.status().sentence());  // "The kernel ran past the 5 s limit: ..."
//
// The worker reads requests on file descriptor 3 and writes replies on 4; its standard output
// and error (the kernel's printf) come back to the app as text beside the report.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "playground/compile.hpp"
#include "playground/playground.hpp"

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] Messages
// ---------------------------------------------------------------------------------------------

struct Message {
  nlohmann::json head;
  std::vector<std::string> blobs;  // binary attachments (the compiled kernel, the picture)
};

inline constexpr std::size_t kMaxHeadBytes = 64u << 20;
inline constexpr std::size_t kMaxBlobBytes = 256u << 20;
inline constexpr std::uint32_t kMaxBlobs = 16;

Status writeMessage(int fd, const Message& m);
// Waits until `deadline` (steady clock, seconds since its epoch; < 0: forever) for a whole
// message. Fails with a sentence on a timeout, end of file, or bytes that are not a message.
Result<Message> readMessage(int fd, double deadline);

double steadySeconds();

// RunParams, RunReport and the worker's hello as JSON (the protocol's heads).
nlohmann::json toJson(const RunParams& p);
Result<RunParams> runParamsFromJson(const nlohmann::json& j);
nlohmann::json toJson(const RunReport& r);
Result<RunReport> runReportFromJson(const nlohmann::json& j);

struct WorkerHello {
  bool hasDevice = false;
  std::string device;   // "NVIDIA H100 80GB HBM3"
  int arch = 0;         // compute capability x 10
  std::string problem;  // why there is no device
  GpuLimits limits;
  int smCount = 0, maxThreadsPerSM = 0, regsPerSM = 0;
  long long sharedPerSM = 0, sharedPerBlock = 0;
  int maxBlocksPerSM = 0;
  long long sharedPerBlockOptin = 0, sharedReservedPerBlock = 0;
  // The model of this GPU's SM for the occupancy arithmetic (an H100's without a device).
  SmModel smModel() const;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Client
// ---------------------------------------------------------------------------------------------

// How long the worker may take to start and say hello, to get a run ready (load the kernel, make
// the inputs), and to check and compare once the learner's launches are over. The learner's time
// limit (RunParams::timeoutSeconds) covers the launches alone.
inline constexpr double kStartSeconds = 30;
inline constexpr double kSetupSeconds = 120;
inline constexpr double kCheckSeconds = 120;

class WorkerClient {
 public:
  // The command that starts a worker: the app passes {its own executable, "worker"}; tests pass
  // fakes that misbehave.
  explicit WorkerClient(std::vector<std::string> command);
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Starts the process if none is running and returns its hello.
  Result<WorkerHello> hello(const std::atomic<bool>* cancel = nullptr);
  // Runs the compiled kernel: kSetupSeconds to get ready, p.timeoutSeconds for the learner's
  // launches, then kCheckSeconds for the check and comparisons. A worker that passes a limit,
  // dies, or answers nonsense is stopped, and the Status says which; the next call starts a
  // fresh one.
  // With p.lineCounters it may run several times, each in a fresh worker (CUPTI's SASS metrics
  // give records once per process, and no PC sample after them): the line counters of the first
  // kernel with the timed runs, an untimed run for each other kernel of the exercise (the
  // element-wise exercise's double one), and with p.stalls an untimed run under PC sampling; their
  // counts and samples join the first report.
  Result<RunReport> run(const CompileResult& compiled, const Exercise& e, const RunParams& p,
                        const std::atomic<bool>* cancel = nullptr);
  // One request and its final reply: `setupSeconds` until the worker says "launching", then
  // `kernelSeconds` until it says "checking", then kCheckSeconds.
  Result<Message> call(const Message& request, double setupSeconds, double kernelSeconds,
                       const std::atomic<bool>* cancel);

  // Called with each {"type": "progress"} message a worker sends during call(); each also
  // restarts the current phase's time limit (a long job that reports progress is not stuck).
  void onProgress(std::function<void(const nlohmann::json&)> f) { onProgress_ = std::move(f); }

  void stop();  // ends the process (SIGKILL) and waits for it
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& output() const { return output_; }  // the last call's printf output
  int restarts() const { return starts_ > 0 ? starts_ - 1 : 0; }

 private:
  Result<RunReport> runOnce(const CompileResult& compiled, const Exercise& e, const RunParams& p,
                            const std::atomic<bool>* cancel);
  Status start();
  void drainOutput();
  void waitForExit(double seconds);  // reaps a worker that is exiting by itself
  std::string exitDescription();     // after the process ended: "it was killed by signal 11 ..."

  std::vector<std::string> command_;
  pid_t pid_ = -1;
  int toWorker_ = -1, fromWorker_ = -1, outputFd_ = -1;
  std::string output_;
  std::optional<WorkerHello> hello_;
  std::function<void(const nlohmann::json&)> onProgress_;
  int starts_ = 0;
};

// The path of the running executable (/proc/self/exe), for starting workers.
std::string selfExecutable();

// compute-sanitizer from the CUDA toolkit (PATH, then /usr/local/cuda/bin), or "" when absent.
std::string findComputeSanitizer();
// The command that starts a worker: `cudalab worker`, or with `sanitize` the same under
// compute-sanitizer's memcheck, which checks every memory access of every kernel and names the
// source line of a bad one (tens of times slower). Its report comes back as the worker's output.
// `executable` is the cudalab binary (the running one by default; tests pass it).
std::vector<std::string> workerCommand(bool sanitize, std::string executable = selfExecutable());

// The first error compute-sanitizer reported in `output`: its first line ("Invalid __global__
// write of size 4 bytes") and the learner's source line it names (0 when none).
struct SanitizerFinding {
  std::string what;
  std::string where;  // "thread (5,0,0) in block (0,0,0)"
  int line = 0;
};
std::optional<SanitizerFinding> firstSanitizerFinding(const std::string& output);

// ---------------------------------------------------------------------------------------------
// [SECTION] Server
// ---------------------------------------------------------------------------------------------

// `cudalab worker`: answers requests on inFd until it closes. Returns the process's exit code:
// 0 at end of input, 3 after an error that leaves the CUDA context unusable (the app starts a
// fresh worker).
int runWorker(int inFd, int outFd);

}  // namespace cudalab::playground
