// `cudalab worker`: the process in which learners' kernels run. It answers hello (the device and
// its limits) and run requests until its input closes, and exits after an error that spoils its
// CUDA context, so the app starts a fresh one.
#include <cuda_runtime_api.h>

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "common/runtime_info.hpp"
#include "playground/worker.hpp"
#include "playground/worker_run.hpp"

namespace cudalab::playground {

namespace {

nlohmann::json helloJson() {
  nlohmann::json j = {{"type", "hello"}};
  const RuntimeInfo rt = queryRuntime();
  if (!rt.hasDevice()) {
    j["has_device"] = false;
    j["problem"] = rt.summary();
    return j;
  }
  cudaDeviceProp p{};
  if (cudaError_t e = cudaGetDeviceProperties(&p, 0); e != cudaSuccess) {
    j["has_device"] = false;
    j["problem"] = std::string("cudaGetDeviceProperties failed: ") + cudaGetErrorString(e);
    return j;
  }
  size_t freeBytes = 0, totalBytes = 0;
  (void)cudaMemGetInfo(&freeBytes, &totalBytes);
  j["has_device"] = true;
  j["device"] = p.name;
  j["arch"] = p.major * 10 + p.minor;
  j["max_threads_per_block"] = p.maxThreadsPerBlock;
  j["max_block"] = {p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]};
  j["max_grid"] = {p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]};
  j["free_bytes"] = freeBytes;
  j["sm_count"] = p.multiProcessorCount;
  j["max_threads_per_sm"] = p.maxThreadsPerMultiProcessor;
  j["regs_per_sm"] = p.regsPerMultiprocessor;
  j["shared_per_sm"] = static_cast<long long>(p.sharedMemPerMultiprocessor);
  j["shared_per_block"] = static_cast<long long>(p.sharedMemPerBlock);
  j["max_blocks_per_sm"] = p.maxBlocksPerMultiProcessor;
  j["shared_per_block_optin"] = static_cast<long long>(p.sharedMemPerBlockOptin);
  j["shared_reserved_per_block"] = static_cast<long long>(p.reservedSharedMemPerBlock);
  return j;
}

Message errorMessage(const std::string& sentence, bool sticky) {
  return {{{"type", "error"}, {"message", sentence}, {"sticky", sticky}}, {}};
}

}  // namespace

int runWorker(int inFd, int outFd) {
  // Never outlive the app: when it dies (even by SIGKILL) the write end of the request pipe
  // closes, and a watchdog thread ends this worker, even one stuck in a hung kernel. (Not
  // PR_SET_PDEATHSIG: that fires when the app's thread that started the worker ends.)
  std::thread([inFd] {
    for (;;) {
      pollfd pfd{inFd, 0, 0};
      if (::poll(&pfd, 1, 500) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))) _exit(4);
    }
  }).detach();
  // A kernel's printf goes through a device buffer of this size to stdout; a small one keeps a
  // runaway printf from flooding the app (which shows the first 16 KiB anyway).
  (void)cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 256 << 10);
  (void)cudaGetLastError();
  for (;;) {
    Result<Message> req = readMessage(inFd, -1);
    if (!req) return req.status().message() == "eof" ? 0 : 2;
    const std::string type = req->head.value("type", "");
    if (type == "hello") {
      if (!writeMessage(outFd, {helloJson(), {}})) return 2;
      continue;
    }
    if (type != "run") {
      if (!writeMessage(outFd, errorMessage("unknown request \"" + type + "\"", false))) return 2;
      continue;
    }
    Result<RunParams> p = runParamsFromJson(req->head.value("params", nlohmann::json()));
    const Exercise* e = p ? findExercise(p->exercise) : nullptr;
    std::vector<std::string> entries;
    if (req->head.contains("entries") && req->head["entries"].is_array())
      for (const auto& x : req->head["entries"])
        if (x.is_string()) entries.push_back(x.get<std::string>());
    Message reply;
    if (!p) {
      reply = errorMessage(p.status().message(), false);
    } else if (!e) {
      reply = errorMessage("there is no exercise \"" + p->exercise + "\"", false);
    } else if (req->blobs.empty() || entries.size() != entryPoints(*e).size()) {
      reply = errorMessage("the run request has no compiled kernel", false);
    } else if (Status s = validate(*e, *p, GpuLimits{}); !s) {
      reply = errorMessage(s.message(), false);
    } else {
      RunOutcome o = WorkerRunner::run(*e, *p, entries, req->blobs[0], [&](const char* phase) {
        (void)writeMessage(outFd, {{{"type", "phase"}, {"phase", phase}}, {}});
      });
      std::fflush(stdout);  // the kernel's printf output, before the reply
      if (!o.error.empty()) {
        reply = errorMessage(o.error, o.sticky);
        if (!writeMessage(outFd, reply)) return 2;
        if (o.sticky) {
          // Tear the faulted context down ourselves, in order, before exiting: the app waits for
          // this exit rather than killing a process in the middle of the driver's clean-up.
          (void)cudaDeviceReset();
          return 3;
        }
        // A run that used CUPTI ends this worker even when it failed (below).
        if (p->lineCounters || p->stalls) return 0;
        continue;
      }
      reply.head = {{"type", "report"}, {"report", toJson(o.report)}};
      auto blob = [](const std::vector<Cell>& c) {
        return std::string(reinterpret_cast<const char*>(c.data()), c.size());
      };
      reply.blobs = {blob(o.report.cells), blob(o.report.guardCells)};
      // CUPTI's SASS metrics give records once per process (a second run here got none), and no
      // PC sample came back after them: after a run with either the worker ends, and the app
      // starts a fresh one.
      if (p->lineCounters || p->stalls) return writeMessage(outFd, reply) ? 0 : 2;
    }
    if (!writeMessage(outFd, reply)) return 2;
  }
}

}  // namespace cudalab::playground
