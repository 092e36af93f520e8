// Inside the worker process only: one run of the learner's compiled kernel (worker_run.cu).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "playground/playground.hpp"

namespace cudalab::playground {

struct RunOutcome {
  RunReport report;
  std::string error;    // non-empty: the run failed, with a sentence for the learner
  bool sticky = false;  // the CUDA context is unusable: the worker must exit after replying
};

struct WorkerRunner {
  // Loads `image` (a cubin; kept loaded while the same image comes again), runs exercise `e` with
  // `p`, checks and compares. `phase("checking")` is called when the learner's launches are over.
  static RunOutcome run(const Exercise& e, const RunParams& p,
                        const std::vector<std::string>& entries, const std::string& image,
                        const std::function<void(const char*)>& phase);
};

}  // namespace cudalab::playground
