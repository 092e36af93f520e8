// Inside the worker's run (worker_run.cu, worker_checks.cu): the state one run of the learner's
// kernel shares between its phases, and the helpers that poison, time and check its buffers.
// Only the worker's run includes this header.
//
// [SECTION] index
//   Helpers   the poison, a buffer with guard zones, cells of the picture, timed runs
//   Run       one run, phase by phase:
//               load             the image (kept loaded while it comes again), its kernels, their
//                                resources (worker_run.cu)
//               check            the kernel's parameters against the ones the app passes
//               launch           the learner's launch, a failure as a sentence for the learner,
//                                counters per line on the first launch
//               verify, compare  one function per kind of exercise (worker_checks.cu): inputs,
//                                timed launches, every element against the CPU reference, then
//                                the built-in lessons' kernel and the library on the same problem
//               verdict          the counters per line and the summary sentence (worker_run.cu)
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "counters/source_lines.hpp"
#include "playground/playground.hpp"
#include "playground/worker_run.hpp"

namespace cudalab::playground::detail {

// ---------------------------------------------------------------------------------------------
// [SECTION] Helpers
// ---------------------------------------------------------------------------------------------

// The poison: a quiet NaN with a payload no arithmetic produces (the GPU's own NaN is
// 0x7FFFFFFF), so "never written" and "computed NaN" are told apart.
inline constexpr std::uint32_t kPoison32 = 0x7FC0DEADu;
inline constexpr std::uint64_t kPoison64 = 0x7FF8DEAD7FC0DEADull;

// Fills `words` 4-byte words (8-byte with `wide`) at `p` with the poison, on stream `s`.
Status poison(void* p, long long words, bool wide, cudaStream_t s, std::uint32_t v32 = kPoison32);
bool isPoison(float v);
bool isPoison(int v);
bool isPoison(double v);

// A CUDA error from the learner's launch, as a sentence for the learner. Sticky errors leave the
// context unusable: the worker reports them and exits.
struct LaunchError {
  std::string sentence;
  bool sticky = false;
};
LaunchError explain(cudaError_t e, const Launch& l, const KernelResources& k, bool atLaunch);

// One buffer of the run: `count` elements with a guard zone before them (kFront elements) and
// after them (`guard`), all poisoned, on the device; ptr() is element 0. A kernel that writes
// before its array (a negative index) or past its end writes into memory the app watches.
inline constexpr long long kFront = 4096;

template <class T>
struct Buffer {
  DeviceArray<T> dev;
  std::vector<T> host;   // after download(): the elements, then the guard zone after them
  std::vector<T> front;  // after download(): the guard zone before them
  long long count = 0, guard = 0;
  Status allocate(long long n, long long g, cudaStream_t s) {
    count = n;
    guard = g;
    CUDALAB_TRY(dev.allocate(static_cast<size_t>(kFront + n + g)));
    return poison(dev.get(), kFront + n + g, sizeof(T) == 8, s);
  }
  T* ptr() const { return dev.get() + kFront; }
  long long total() const { return count + guard; }  // from ptr(): what a run may poison
  Status upload(const std::vector<T>& v, cudaStream_t s) {
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(ptr(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    return {};
  }
  Status download(cudaStream_t s) {
    host.resize(static_cast<size_t>(total()));
    front.resize(static_cast<size_t>(kFront));
    CUDALAB_CUDA_TRY(
        cudaMemcpyAsync(host.data(), ptr(), host.size() * sizeof(T), cudaMemcpyDeviceToHost, s));
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(front.data(), dev.get(), front.size() * sizeof(T),
                                     cudaMemcpyDeviceToHost, s));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
    return {};
  }
};

// Cells of a 1D output: `count` elements in at most kMaxCells cells, each the worst of its
// elements (Unwritten over Wrong over Correct).
struct Cells {
  std::vector<Cell> cells;
  long long span = 1;
  void init(long long count) {
    span = std::max<long long>(1, (count + kMaxCells - 1) / kMaxCells);
    cells.assign(static_cast<size_t>((count + span - 1) / span), Cell::Correct);
  }
  // Hands the cells to the report, laid out as a square.
  void moveInto(RunReport& r) {
    r.cells = std::move(cells);
    r.cellSpan = span;
    r.cellsWide = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(r.cells.size()))));
  }
  void mark(long long i, Cell c) {
    Cell& cell = cells[static_cast<size_t>(i / span)];
    auto rank = [](Cell x) {
      return x == Cell::Unwritten   ? 3
             : x == Cell::Wrong     ? 2
             : x == Cell::PastEnd   ? 4
             : x == Cell::Unchecked ? 1
                                    : 0;
    };
    if (rank(c) > rank(cell)) cell = c;
  }
};

// The guard zone: every element that no longer holds the poison was written past the end.
template <class T>
void checkGuard(const Buffer<T>& b, RunReport& r) {
  Cells g;
  g.init(b.guard);
  for (long long i = 0; i < b.guard; ++i) {
    if (!isPoison(b.host[static_cast<size_t>(b.count + i)])) {
      ++r.pastEnd;
      g.mark(i, Cell::PastEnd);
    }
  }
  r.guardCells = std::move(g.cells);
  r.guardSpan = g.span;
  for (const T v : b.front)
    if (!isPoison(v)) ++r.beforeStart;
}

// The first mismatches, for the learner (at most kMaxMismatches).
void note(RunReport& r, long long index, double expected, double got, bool unwritten);

// Times a launch function: 2 warm-ups, then `runs` timed launches, each preceded by `reset`
// (poison or zero the output, outside the timed region). Stops at the first failure.
template <class Reset, class Go>
Status timeRuns(int runs, cudaStream_t s, Reset reset, Go go, std::vector<double>& ms,
                const std::function<void(int)>& afterRun = {}) {
  Event a, b;
  CUDALAB_TRY(a.create());
  CUDALAB_TRY(b.create());
  for (int i = -2; i < runs; ++i) {
    CUDALAB_TRY(reset());
    CUDALAB_CUDA_TRY(cudaEventRecord(a.get(), s));
    CUDALAB_TRY(go());
    CUDALAB_CUDA_TRY(cudaEventRecord(b.get(), s));
    CUDALAB_CUDA_TRY(cudaEventSynchronize(b.get()));
    if (i >= 0) {
      float t = 0;
      CUDALAB_CUDA_TRY(cudaEventElapsedTime(&t, a.get(), b.get()));
      ms.push_back(t);
      if (afterRun) afterRun(i);
    }
  }
  return {};
}

double medianOf(std::vector<double> v);

// ---------------------------------------------------------------------------------------------
// [SECTION] Run
// ---------------------------------------------------------------------------------------------

class Run {
 public:
  Run(const Exercise& e, const RunParams& p, const std::function<void(const char*)>& phase)
      : e_(e), p_(p), phase_(phase) {}
  RunOutcome go(const std::vector<std::string>& entries, const std::string& image);

 private:
  // load and check (false: out_.error says why)
  bool load(const std::vector<std::string>& entries, const std::string& image);
  void readResources();
  bool checkParameters(const std::vector<std::string>& entries);

  // launch
  Status plainLaunch(cudaKernel_t k, void** args);
  Status launch(cudaKernel_t k, void** args);
  // The learner's timed runs (p_.runs of kernels_[0] with `args`), `out` poisoned before each,
  // then "checking" and `out` downloaded; false (runFailed) when a launch or the copy fails.
  bool timeInto(Buffer<float>& out, void** args);
  // A launch under PC sampling (RunParams::stalls), the chosen kernel's first.
  Status sampledLaunch(cudaKernel_t k, void** args);
  // A failure before the learner's launches (false, out_.error set).
  bool fail(const Status& s);
  // A failure of the learner's launches or of reading their output: the launch's sentence.
  bool runFailed(const Status& s);
  // A comparison that cannot run (memory, a library error) is reported in its row; the
  // learner's verdict stands.
  void failedComparison(const char* label, const Status& why);

  // verify and compare, one per kind (worker_checks.cu); false when the run failed
  bool runMap();
  bool compareMap(float* pa, float* pb, const Buffer<float>& c);
  bool runCounter();
  bool runHistogram();
  bool compareHistogram(const float* px, float xmin, float xmax, int bins);
  bool runElementwise();
  bool runReduce();
  // worker_checks_matrices.cu: n x n outputs
  bool runMatmul();
  // The transpose's and the softmax's shared part: in_.in0 uploaded into `in`, the learner's
  // timed runs writing `out` (n x n, poisoned before each run), `out` downloaded.
  bool runMatrixMap(Buffer<float>& in, Buffer<float>& out);
  bool runTranspose();
  bool runSoftmax();
  bool runWmma();

  // verdict
  void readLineCounters();
  void verdict();

  const Exercise& e_;
  const RunParams& p_;
  const std::function<void(const char*)>& phase_;
  RunOutcome out_;
  RunReport& r_ = out_.report;
  const std::string* image_ = nullptr;  // the loaded cubin, for the counters per line
  std::vector<cudaKernel_t> kernels_;
  Launch l_;
  StreamGuard stream_;
  cudaStream_t st_ = nullptr;
  long long threads_ = 0;
  dim3 grid_, block_;
  Inputs in_;
  int n_ = 0;
  LaunchError launchError_;
  bool launched_ = false;
  // Counters per line: the first (untimed, warm-up) launch of each of the learner's kernels runs
  // under CUPTI's SASS metrics.
  std::vector<counters::SassRecord> sassRecords_;
  std::vector<cudaKernel_t> probed_;
  bool sampled_ = false;  // the chosen kernel was launched once under PC sampling
};

}  // namespace cudalab::playground::detail
