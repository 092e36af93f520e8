// The atomics lesson on the GPU: the race lab's repeated runs, the contention sweeps, and the
// histogram ladder measured with the runner (outputs poisoned before every run, every run's
// histogram compared with the CPU's bin by bin).
//
// [SECTION] Race lab
// [SECTION] Histogram launches   a step's kernel with its grid and shared memory, CUB
// [SECTION] Ladder and sweep
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cub/device/device_histogram.cuh>
#include <random>
#include <type_traits>

#include "atomics/atomics.hpp"
#include "atomics/atomics_kernels.cuh"
#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/format.hpp"
#include "common/measurement.hpp"
#include "common/runtime_info.hpp"
#include "common/time_median.hpp"

namespace cudalab::atomics {

namespace {

Status cancelled() {
  return Status::error(N_("Measurement cancelled."));
}

bool isCancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load();
}

// The median of a list of times, by the runner's statistics.
double median(std::vector<double> v) {
  PhaseStats st;
  st.samplesMs = std::move(v);
  summarize(st);
  return st.medianMs;
}

Status launchCounter(CounterId id, long long blocks, int threads, unsigned* counter,
                     cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>(blocks)), block(static_cast<unsigned>(threads));
  switch (id) {
    case CounterId::Plain:
      kernels::counterPlain<<<grid, block, 0, s>>>(counter);
      break;
    case CounterId::Global:
      kernels::counterGlobal<<<grid, block, 0, s>>>(counter);
      break;
    case CounterId::Shared:
      kernels::counterShared<<<grid, block, 0, s>>>(counter);
      break;
    case CounterId::Warp:
      kernels::counterWarp<<<grid, block, 0, s>>>(counter);
      break;
  }
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

// One checked run: the counter from 0, the launch, the count back in `host` (poisoned first with
// a count no run can give).
Result<unsigned> countFromZero(CounterId id, long long blocks, int threads, unsigned* counter,
                               unsigned* host, cudaStream_t s) {
  *host = 0xFFFFFFFFu;
  CUDALAB_CUDA_TRY(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
  CUDALAB_TRY(launchCounter(id, blocks, threads, counter, s));
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(host, counter, sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
  return *host;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Race lab
// ---------------------------------------------------------------------------------------------

Result<RaceReport> runRace(const RaceParams& p, const std::atomic<bool>* cancel,
                           const Progress& progress) {
  CUDALAB_TRY(validate(p));
  RaceReport report;
  report.p = p;
  report.device = currentDeviceName();
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<unsigned> counter;
  PinnedArray<unsigned> host;
  StreamDrain drain(stream.get());
  CUDALAB_TRY(counter.allocate(1));
  CUDALAB_TRY(host.allocate(1));
  const cudaStream_t s = stream.get();
  const int variants = int(counters().size());
  for (int v = 0; v < variants; ++v) {
    const CounterInfo& info = counters()[size_t(v)];
    RaceVariant rv;
    rv.id = info.id;
    for (int r = 0; r < p.repeats; ++r) {
      if (isCancelled(cancel)) return cancelled();
      if (progress && r % 50 == 0)
        progress((float(v) + float(r) / float(p.repeats)) / float(variants),
                 Phrase{N_("%s: run %s"), {info.key, std::to_string(r + 1)}}.packed());
      Result<unsigned> c =
          countFromZero(info.id, p.blocks, p.threads, counter.get(), host.get(), s);
      if (!c) return c.status();
      rv.counts.push_back(*c);
    }
    Result<double> ms = timeMedian(s, 2, std::min(p.repeats, 20), [&]() -> Status {
      return launchCounter(info.id, p.blocks, p.threads, counter.get(), s);
    });
    if (!ms) return ms.status();
    rv.medianMs = *ms;
    report.variants.push_back(std::move(rv));
  }
  if (progress) progress(1, N_("done"));
  return report;
}

Result<std::vector<ContentionPoint>> measureThreadSweep(const std::vector<long long>& threads,
                                                        const std::atomic<bool>* cancel,
                                                        const Progress& progress) {
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<unsigned> counter;
  PinnedArray<unsigned> host;
  StreamDrain drain(stream.get());
  CUDALAB_TRY(counter.allocate(1));
  CUDALAB_TRY(host.allocate(1));
  const cudaStream_t s = stream.get();
  // The timed runs add on from whatever the counter holds: it starts from 0, never from
  // uninitialised memory.
  CUDALAB_CUDA_TRY(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned), s));
  std::vector<ContentionPoint> out;
  constexpr int kBlock = 256;
  for (size_t i = 0; i < threads.size(); ++i) {
    const long long t = threads[i];
    if (t < kBlock || t % kBlock != 0)
      return Status::errorf(N_("The thread sweep takes whole blocks of 256 threads; %s is not."),
                            {thousands(t)});
    const long long blocks = t / kBlock;
    for (const CounterInfo& c : counters()) {
      if (isCancelled(cancel)) return cancelled();
      if (progress)
        progress(float(i) / float(threads.size()),
                 Phrase{N_("%s threads, %s"), {thousands(t), c.key}}.packed());
      ContentionPoint pt{c.id, t, 1};
      Result<double> ms = timeMedian(s, 2, 5, [&]() -> Status {
        return launchCounter(c.id, blocks, kBlock, counter.get(), s);
      });
      if (!ms) return ms.status();
      pt.ms = *ms;
      // One more run from 0, checked.
      Result<unsigned> count = countFromZero(c.id, blocks, kBlock, counter.get(), host.get(), s);
      if (!count) return count.status();
      pt.ok = *count == static_cast<unsigned>(t);
      out.push_back(pt);
    }
  }
  if (progress) progress(1, N_("done"));
  return out;
}

Result<std::vector<ContentionPoint>> measureAddressSweep(long long threads,
                                                         const std::vector<long long>& addresses,
                                                         const std::atomic<bool>* cancel,
                                                         const Progress& progress) {
  if (threads < 1 || threads > (1LL << 26))
    return Status::error(N_("The address sweep runs 1 to 2^26 threads."));
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  DeviceArray<unsigned> counters;
  PinnedArray<unsigned> host;
  StreamDrain drain(stream.get());
  CUDALAB_TRY(counters.allocate(size_t(threads)));
  CUDALAB_TRY(host.allocate(size_t(threads)));
  const cudaStream_t s = stream.get();
  CUDALAB_CUDA_TRY(cudaMemsetAsync(counters.get(), 0, size_t(threads) * sizeof(unsigned), s));
  constexpr int kBlock = 256;
  const unsigned grid = unsigned((threads + kBlock - 1) / kBlock);
  std::vector<ContentionPoint> out;
  for (size_t i = 0; i < addresses.size(); ++i) {
    const long long a = addresses[i];
    if (a < 1 || a > threads || threads % a != 0)
      return Status::errorf(
          N_("The counters must divide the threads evenly: %s threads over %s counters do not."),
          {thousands(threads), thousands(a)});
    if (isCancelled(cancel)) return cancelled();
    if (progress)
      progress(float(i) / float(addresses.size()),
               Phrase{N_("%s counters"), {thousands(a)}}.packed());
    const long long group = threads / a;
    ContentionPoint pt{CounterId::Global, threads, a};
    auto launch = [&]() -> Status {
      kernels::counterSpread<<<grid, kBlock, 0, s>>>(counters.get(), threads, group);
      CUDALAB_CUDA_TRY_LAUNCH();
      return {};
    };
    Result<double> ms = timeMedian(s, 2, 5, launch);
    if (!ms) return ms.status();
    pt.ms = *ms;
    std::fill(host.get(), host.get() + a, 0xFFFFFFFFu);
    CUDALAB_CUDA_TRY(cudaMemsetAsync(counters.get(), 0, size_t(a) * sizeof(unsigned), s));
    CUDALAB_TRY(launch());
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(host.get(), counters.get(), size_t(a) * sizeof(unsigned),
                                     cudaMemcpyDeviceToHost, s));
    CUDALAB_CUDA_TRY(cudaStreamSynchronize(s));
    pt.ok = std::all_of(host.get(), host.get() + a,
                        [&](unsigned c) { return c == static_cast<unsigned>(group); });
    out.push_back(pt);
  }
  if (progress) progress(1, N_("done"));
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Histogram launches
// ---------------------------------------------------------------------------------------------

namespace {

// What the launches of one input need from the device.
struct DeviceLimits {
  int sms = 0;
  long long sharedOptin = 0;  // the most dynamic shared memory a block may ask for
};

Result<DeviceLimits> deviceLimits() {
  DeviceLimits d;
  int dev = 0, v = 0;
  CUDALAB_CUDA_TRY(cudaGetDevice(&dev));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
  CUDALAB_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  d.sharedOptin = v;
  return d;
}

// One GPU step on one input on the device: its grid, its shared memory, and its launch.
class HistLauncher {
 public:
  HistLauncher(HistStepId step, const HistParams& p, const void* in, unsigned* hist,
               const DeviceLimits& d)
      : step_(step), p_(p), in_(in), hist_(hist), d_(d), rule_(binRule(p)) {}

  // Grid and shared memory from the occupancy the kernel reaches, and CUB's scratch space.
  Status prepare(cudaStream_t s) {
    copies_ = step_ == HistStepId::Shared  ? 1
              : step_ == HistStepId::Lanes ? laneColumns(p_.bins, d_.sharedOptin)
                                           : subHistograms(p_.bins, p_.block, d_.sharedOptin);
    shared_ = (step_ == HistStepId::Global || step_ == HistStepId::Cub)
                  ? 0
                  : std::size_t(copies_) * std::size_t(p_.bins) * sizeof(unsigned);
    if (p_.source == Source::Normal) return prepareFor<float>(s);
    return prepareFor<std::uint8_t>(s);
  }

  Status launch(cudaStream_t s) {
    if (p_.source == Source::Normal) return launchFor<float>(s);
    return launchFor<std::uint8_t>(s);
  }

  long long blocks() const { return blocks_; }
  int copies() const {
    return step_ == HistStepId::Global || step_ == HistStepId::Cub ? 0 : copies_;
  }

 private:
  template <class T>
  const void* kernel() const {
    switch (step_) {
      case HistStepId::Global:
        return reinterpret_cast<const void*>(&kernels::histGlobal<T>);
      case HistStepId::Shared:
        return reinterpret_cast<const void*>(&kernels::histShared<T>);
      case HistStepId::Warps:
        return reinterpret_cast<const void*>(&kernels::histWarps<T>);
      case HistStepId::Vector:
        return reinterpret_cast<const void*>(&kernels::histVector<T, kernels::Count::PerWarp>);
      case HistStepId::Aggregated:
        return reinterpret_cast<const void*>(&kernels::histVector<T, kernels::Count::Aggregated>);
      case HistStepId::Lanes:
        if (copies_ == 32)
          return reinterpret_cast<const void*>(&kernels::histVector<T, kernels::Count::Lanes, 32>);
        return reinterpret_cast<const void*>(&kernels::histVector<T, kernels::Count::Lanes, 0>);
      default:
        return nullptr;
    }
  }

  template <class T>
  Status prepareFor(cudaStream_t s) {
    if (step_ == HistStepId::Cub) {
      CUDALAB_TRY(cubCall<T>(nullptr, s));
      return temp_.allocate(std::max<std::size_t>(tempBytes_, 1));
    }
    if (step_ == HistStepId::Global) {
      blocks_ = (p_.n + p_.block - 1) / p_.block;
      return {};
    }
    const void* k = kernel<T>();
    if (shared_ > 48 * 1024)
      CUDALAB_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_)));
    int perSm = 0;
    CUDALAB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, k, p_.block, shared_));
    if (perSm < 1)
      return Status::errorf(
          N_("%s cannot run: a block of %s threads with %s of shared memory "
             "does not fit on an SM."),
          {histStepInfo(step_).label, std::to_string(p_.block), mib(double(shared_))});
    // A grid that fills the GPU once; fewer blocks when there are fewer values than threads.
    const long long perThread =
        step_ == HistStepId::Vector || step_ == HistStepId::Aggregated || step_ == HistStepId::Lanes
            ? 16 / sizeof(T)
            : 1;
    const long long needed = (p_.n / perThread + p_.block - 1) / p_.block;
    blocks_ = std::max(1LL, std::min<long long>(static_cast<long long>(perSm) * d_.sms, needed));
    return {};
  }

  template <class T>
  Status cubCall(void* temp, cudaStream_t s) {
    const T* x = static_cast<const T*>(in_);
    const int n = static_cast<int>(p_.n);
    if constexpr (std::is_same_v<T, float>) {
      CUDALAB_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp, tempBytes_, x, hist_, p_.bins + 1,
                                                           p_.xmin, p_.xmax, n, s));
    } else {
      CUDALAB_CUDA_TRY(cub::DeviceHistogram::HistogramEven(temp, tempBytes_, x, hist_, p_.bins + 1,
                                                           0, 256, n, s));
    }
    return {};
  }

  template <class T>
  Status launchFor(cudaStream_t s) {
    if (step_ == HistStepId::Cub) return cubCall<T>(temp_.get(), s);  // CUB zeroes the bins
    CUDALAB_CUDA_TRY(cudaMemsetAsync(hist_, 0, std::size_t(p_.bins) * sizeof(unsigned), s));
    const T* x = static_cast<const T*>(in_);
    const dim3 grid(static_cast<unsigned>(blocks_)), block(static_cast<unsigned>(p_.block));
    switch (step_) {
      case HistStepId::Global:
        kernels::histGlobal<T><<<grid, block, 0, s>>>(x, p_.n, rule_, hist_);
        break;
      case HistStepId::Shared:
        kernels::histShared<T><<<grid, block, shared_, s>>>(x, p_.n, rule_, hist_);
        break;
      case HistStepId::Warps:
        kernels::histWarps<T><<<grid, block, shared_, s>>>(x, p_.n, rule_, copies_, hist_);
        break;
      case HistStepId::Vector:
        kernels::histVector<T, kernels::Count::PerWarp>
            <<<grid, block, shared_, s>>>(x, p_.n, rule_, copies_, hist_);
        break;
      case HistStepId::Aggregated:
        kernels::histVector<T, kernels::Count::Aggregated>
            <<<grid, block, shared_, s>>>(x, p_.n, rule_, copies_, hist_);
        break;
      case HistStepId::Lanes:
        if (copies_ == 32)
          kernels::histVector<T, kernels::Count::Lanes, 32>
              <<<grid, block, shared_, s>>>(x, p_.n, rule_, copies_, hist_);
        else
          kernels::histVector<T, kernels::Count::Lanes, 0>
              <<<grid, block, shared_, s>>>(x, p_.n, rule_, copies_, hist_);
        break;
      default:
        return Status::error(N_("Not a GPU step."));
    }
    CUDALAB_CUDA_TRY_LAUNCH();
    return {};
  }

  HistStepId step_;
  HistParams p_;
  const void* in_;
  unsigned* hist_;
  DeviceLimits d_;
  BinRule rule_;
  int copies_ = 1;
  std::size_t shared_ = 0;
  long long blocks_ = 0;
  std::size_t tempBytes_ = 0;
  DeviceArray<unsigned char> temp_;
};

// A step as the runner measures it: the output poisoned, the step's launch (zeroing included),
// the histogram copied back and compared with the CPU's bin by bin.
class HistWorkload final : public Workload {
 public:
  HistWorkload(HistLauncher& l, const HistParams& p, const std::vector<std::uint32_t>& reference,
               unsigned* hist, std::uint32_t* host)
      : l_(l), p_(p), ref_(reference), hist_(hist), host_(host) {}
  Status prepare(cudaStream_t s) override { return l_.prepare(s); }
  Status poison(cudaStream_t s) override {
    std::fill(host_, host_ + p_.bins, 0xFFFFFFFFu);
    CUDALAB_CUDA_TRY(cudaMemsetAsync(hist_, 0xFF, std::size_t(p_.bins) * sizeof(unsigned), s));
    return {};
  }
  Status copyIn(cudaStream_t) override { return {}; }
  Status launch(cudaStream_t s) override { return l_.launch(s); }
  Status copyOut(cudaStream_t s) override {
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(host_, hist_, std::size_t(p_.bins) * sizeof(unsigned),
                                     cudaMemcpyDeviceToHost, s));
    return {};
  }
  Result<Correctness> verify() override {
    last_.assign(host_, host_ + p_.bins);
    check_ = compareHistograms(ref_, last_);
    Correctness c;
    c.ran = true;
    c.checked = std::size_t(p_.bins);
    c.wrong = std::size_t(check_.wrongBins);
    c.firstWrong = check_.firstWrong < 0 ? 0 : std::size_t(check_.firstWrong);
    return c;
  }
  double kernelBytes() const override { return double(p_.n) * sourceInfo(p_.source).elementBytes; }
  double h2dBytes() const override { return 0; }
  double d2hBytes() const override { return double(p_.bins) * 4; }

  HistCheck check_;
  std::vector<std::uint32_t> last_;

 private:
  HistLauncher& l_;
  HistParams p_;
  const std::vector<std::uint32_t>& ref_;
  unsigned* hist_;
  std::uint32_t* host_;
};

// The CPU steps, timed on the wall clock (median of up to 3 runs).
Result<HistStepResult> cpuStep(HistStepId id, const HistInput& in, const HistParams& p,
                               const std::vector<std::uint32_t>& reference,
                               const std::atomic<bool>* cancel) {
  HistStepResult r;
  r.step = id;
  const int runs = p.n > (1LL << 26) ? 1 : 3;
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    if (isCancelled(cancel)) return cancelled();
    const auto t0 = std::chrono::steady_clock::now();
    r.histogram = cpuHistogram(in, binRule(p), id == HistStepId::CpuOne ? 1 : 0);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  r.ms = median(ms);
  r.gbps = r.ms > 0 ? double(in.bytes()) / (r.ms * 1e6) : 0;
  r.check = compareHistograms(reference, r.histogram);
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Ladder and sweep
// ---------------------------------------------------------------------------------------------

namespace {

// The GPU part of a ladder on an input already made: upload, copy ceiling, each step measured.
Status measureGpuSteps(const HistParams& p, const HistInput& in, std::span<const HistStepId> which,
                       HistReport& report, bool ceiling, const std::atomic<bool>* cancel,
                       const Progress& progress) {
  Result<DeviceLimits> d = deviceLimits();
  if (!d) return d.status();
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  const cudaStream_t s = stream.get();
  DeviceArray<unsigned char> dIn, dCopy;
  DeviceArray<unsigned> dHist;
  PinnedArray<std::uint32_t> host;
  StreamDrain drain(s);  // after the buffers: the stream finishes before they go
  CUDALAB_TRY(dIn.allocate(std::size_t(std::max(1LL, in.bytes()))));
  CUDALAB_TRY(dHist.allocate(std::size_t(p.bins)));
  CUDALAB_TRY(host.allocate(std::size_t(p.bins)));
  CUDALAB_CUDA_TRY(
      cudaMemcpyAsync(dIn.get(), in.data(), std::size_t(in.bytes()), cudaMemcpyHostToDevice, s));
  if (ceiling) {
    // The copy ceiling: the same bytes copied device to device, read and written counted.
    CUDALAB_TRY(dCopy.allocate(std::size_t(std::max(1LL, in.bytes()))));
    Result<double> ms = timeMedian(s, 2, 10, [&]() -> Status {
      CUDALAB_CUDA_TRY(cudaMemcpyAsync(dCopy.get(), dIn.get(), std::size_t(in.bytes()),
                                       cudaMemcpyDeviceToDevice, s));
      return {};
    });
    if (!ms) return ms.status();
    report.copyGBps = *ms > 0 ? 2.0 * double(in.bytes()) / (*ms * 1e6) : 0;
    dCopy.reset();
  }
  for (size_t i = 0; i < which.size(); ++i) {
    if (!histStepInfo(which[i]).gpu) continue;
    if (isCancelled(cancel)) return cancelled();
    if (progress) progress(float(i) / float(which.size()), histStepInfo(which[i]).label);
    HistLauncher launcher(which[i], p, dIn.get(), dHist.get(), *d);
    StreamDrain stepDrain(s);  // after the launcher: CUB's scratch outlives the stream's work
    HistWorkload w(launcher, p, report.reference, dHist.get(), host.get());
    Result<Measurement> m = measure(w, MeasureOptions{p.warmup, p.runs, true}, cancel, s);
    if (!m) return m.status();
    HistStepResult r;
    r.step = which[i];
    r.ms = m->kernel().medianMs;
    r.gbps = m->kernelGBps();
    r.blocks = launcher.blocks();
    r.subHistograms = launcher.copies();
    r.check = w.check_;
    // The worst run decides: a run that was wrong anywhere leaves the step wrong.
    if (m->check.wrong > 0 && r.check.ok()) r.check.wrongBins = (long long)m->check.wrong;
    r.histogram = std::move(w.last_);
    r.atomics = atomicsPerElement(which[i], p.n, p.bins, r.blocks, report.distinctPerWarp);
    report.steps.push_back(std::move(r));
  }
  return {};
}

void fillRatios(HistReport& r) {
  const HistStepResult* cub = r.find(HistStepId::Cub);
  for (HistStepResult& s : r.steps) {
    s.ofCopy = r.copyGBps > 0 ? s.gbps / r.copyGBps : 0;
    s.ofCub = cub && s.ms > 0 ? cub->ms / s.ms : 0;
  }
}

Status checkFree(const HistParams& p) {
  std::size_t free = 0;
  CUDALAB_TRY(freeDeviceBytes(free));
  return validate(p, static_cast<long long>(free));
}

std::uint64_t seedOf(const HistParams& p) {
  return p.seed ? p.seed : std::uint64_t(std::random_device{}()) << 32 | std::random_device{}();
}

}  // namespace

Result<HistReport> measureHistLadder(const HistParams& p, std::span<const HistStepId> which,
                                     const std::atomic<bool>* cancel, const Progress& progress) {
  CUDALAB_TRY(validate(p));
  CUDALAB_TRY(checkFree(p));
  HistReport report;
  report.p = p;
  report.device = currentDeviceName();
  if (progress) progress(0, N_("fresh random values"));
  const HistInput in = makeInput(p, seedOf(p));
  if (progress) progress(0.05f, N_("the CPU's histogram"));
  report.reference = cpuHistogram(in, binRule(p), 0);
  long long counted = 0;
  for (std::uint32_t c : report.reference)
    counted += c;
  report.dropped = p.n - counted;
  report.distinctPerWarp = distinctPerWarp(in, binRule(p));
  if (isCancelled(cancel)) return cancelled();
  for (HistStepId id : which)
    if (!histStepInfo(id).gpu) {
      if (progress) progress(0.1f, histStepInfo(id).label);
      Result<HistStepResult> r = cpuStep(id, in, p, report.reference, cancel);
      if (!r) return r.status();
      report.steps.push_back(std::move(*r));
    }
  Progress inner;
  if (progress) inner = [&](float f, const std::string& w) { progress(0.3f + 0.7f * f, w); };
  CUDALAB_TRY(measureGpuSteps(p, in, which, report, true, cancel, inner));
  fillRatios(report);
  if (progress) progress(1, N_("done"));
  return report;
}

Result<HistReport> measureHistCpu(const HistParams& p, const std::atomic<bool>* cancel,
                                  const Progress& progress) {
  CUDALAB_TRY(validate(p));
  HistReport report;
  report.p = p;
  if (progress) progress(0, N_("fresh random values"));
  const HistInput in = makeInput(p, seedOf(p));
  report.reference = cpuHistogram(in, binRule(p), 0);
  long long counted = 0;
  for (std::uint32_t c : report.reference)
    counted += c;
  report.dropped = p.n - counted;
  report.distinctPerWarp = distinctPerWarp(in, binRule(p));
  for (HistStepId id : {HistStepId::CpuOne, HistStepId::CpuAll}) {
    if (progress) progress(id == HistStepId::CpuOne ? 0.3f : 0.7f, histStepInfo(id).label);
    Result<HistStepResult> r = cpuStep(id, in, p, report.reference, cancel);
    if (!r) return r.status();
    r->atomics = atomicsPerElement(id, p.n, p.bins, 0);
    report.steps.push_back(std::move(*r));
  }
  if (progress) progress(1, N_("done"));
  return report;
}

Result<std::vector<SkewPoint>> measureSkewSweep(const HistParams& base,
                                                const std::vector<double>& skews,
                                                std::span<const HistStepId> which,
                                                const std::atomic<bool>* cancel,
                                                const Progress& progress) {
  HistParams p = base;
  p.source = Source::Uniform;
  p.runs = 5;
  p.warmup = 1;
  CUDALAB_TRY(validate(p));
  CUDALAB_TRY(checkFree(p));
  std::vector<SkewPoint> out;
  for (size_t i = 0; i < skews.size(); ++i) {
    p.skew = skews[i];
    CUDALAB_TRY(validate(p));
    if (isCancelled(cancel)) return cancelled();
    const float lo = float(i) / float(skews.size()), span = 1.0f / float(skews.size());
    if (progress) progress(lo, Phrase{N_("skew %s: values"), {trimmedFixed(p.skew, 2)}}.packed());
    const HistInput in = makeInput(p, seedOf(base) + i);
    HistReport r;
    r.p = p;
    r.reference = cpuHistogram(in, binRule(p), 0);
    r.distinctPerWarp = distinctPerWarp(in, binRule(p));
    Progress inner;
    if (progress)
      inner = [&](float f, const std::string& w) {
        progress(lo + f * span, Phrase{N_("skew %s: %s"), {trimmedFixed(p.skew, 2), w}}.packed());
      };
    CUDALAB_TRY(measureGpuSteps(p, in, which, r, false, cancel, inner));
    for (const HistStepResult& s : r.steps)
      out.push_back({s.step, p.skew, s.ms, s.gbps, s.check.ok()});
  }
  if (progress) progress(1, N_("done"));
  return out;
}

}  // namespace cudalab::atomics
