// Measuring a kernel honestly: the runner and what it returns.
//
// A lesson describes its work as a Workload (allocate and fill inputs, poison outputs, copy in,
// launch, copy out, verify against the CPU reference). measure() runs it `warmup` times untimed,
// then `runs` times with CUDA events around each phase, poisoning the outputs before every run and
// verifying after every run, and returns the median, min and max of each phase, the bytes and
// flops (so GB/s and GFLOP/s follow) and the correctness check.
//
//   MyWorkload w(params);
//   Result<Measurement> m = measure(w, MeasureOptions{}, cancelFlag, stream);
//   if (m) show(m->kernel.medianMs, m->kernelGBps(), m->check.wrong);
//
// measure() runs on the caller's thread; lessons call it from an AsyncJob worker with a stream of
// its own (StreamGuard in cuda_raii.hpp), so the UI thread never waits on the GPU.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "common/status.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace cudalab {

enum class Phase { HostToDevice = 0, Kernel = 1, DeviceToHost = 2 };
inline constexpr const char* kPhaseNames[] = {"host to device", "kernel", "device to host"};

struct PhaseStats {
  double medianMs = 0, minMs = 0, maxMs = 0;
  std::vector<double> samplesMs;  // one per timed run, in run order
};

// Element-by-element comparison with the CPU reference.
struct Correctness {
  bool ran = false;
  size_t checked = 0;  // elements compared
  size_t wrong = 0;    // elements outside the tolerance
  double maxAbsError = 0;
  double maxRelError = 0;
  size_t firstWrong = 0;  // index of the first wrong element (when wrong > 0)
  bool ok() const { return ran && wrong == 0; }
};

struct Measurement {
  PhaseStats phases[3];    // indexed by Phase
  double kernelBytes = 0;  // bytes the kernel reads plus writes
  double kernelFlops = 0;
  double h2dBytes = 0, d2hBytes = 0;
  int warmup = 0, runs = 0;
  Correctness check;  // the worst run's check

  const PhaseStats& phase(Phase p) const { return phases[static_cast<int>(p)]; }
  const PhaseStats& kernel() const { return phase(Phase::Kernel); }
  double totalMedianMs() const;  // sum of the phases' medians
  double kernelGBps() const;     // kernelBytes / kernel median, 10^9 bytes per second
  double kernelGFlops() const;
};

// What a lesson implements to be measured. Every function returns a Status; each must enqueue its
// GPU work on `stream` (the runner records events around copyIn, launch and copyOut).
class Workload {
 public:
  virtual ~Workload() = default;
  virtual Status prepare(cudaStream_t stream) = 0;  // allocate; fresh random inputs
  virtual Status poison(cudaStream_t stream) = 0;   // fill outputs with a value no run produces
  virtual Status copyIn(cudaStream_t stream) = 0;
  virtual Status launch(cudaStream_t stream) = 0;
  virtual Status copyOut(cudaStream_t stream) = 0;
  // Called after the stream has finished a run: compare the host copy of the outputs with the
  // CPU reference.
  virtual Result<Correctness> verify() = 0;
  // Elements the lesson leaves wrong on purpose and says so (the launch lesson's grid too small
  // for its array, without a stride loop: the elements no thread reaches keep their poison). The
  // process's check tally (check_tally.hpp) counts a run as right when exactly this many elements
  // are wrong, so a soak tells a lesson showing its lesson from a kernel giving a wrong number.
  virtual size_t wrongByDesign() const { return 0; }
  virtual double kernelBytes() const = 0;
  virtual double kernelFlops() const { return 0; }
  virtual double h2dBytes() const = 0;
  virtual double d2hBytes() const = 0;
};

struct MeasureOptions {
  int warmup = 2;
  int runs = 10;
  bool verifyEveryRun = true;  // false: verify only the last run (for very large inputs)
};

// One launch of `w` timed alone (events around launch()), to fit the runs to a time budget: when
// warm-up and runs would take longer than `budgetMs`, the trial counts as the warm-up and the runs
// are as many as fit (at least 1), so a slow step at a large size costs seconds, not minutes.
Result<MeasureOptions> fitRuns(Workload& w, MeasureOptions opt, double budgetMs,
                               cudaStream_t stream);

Result<Measurement> measure(Workload& w, const MeasureOptions& opt, const std::atomic<bool>* cancel,
                            cudaStream_t stream);

// Median, min and max of a list of times (the median of an even count is the mean of the middle
// two).
void summarize(PhaseStats& s);

}  // namespace cudalab
