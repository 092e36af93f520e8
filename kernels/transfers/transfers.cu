// The transfers lesson on the GPU: the element-wise kernels, the session that owns the buffers and
// runs plans with an event around every copy and kernel, and the PCIe link from sysfs.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "common/check_tally.hpp"
#include "common/cuda_raii.hpp"
#include "transfers/transfers.hpp"

namespace cudalab::transfers {

namespace {

// ---- Kernels ----------------------------------------------------------------------------------
// One thread per element and a bounds guard: the lesson is about the copies around the kernels,
// so the kernels are the plainest correct ones (the launch-config lesson covers the rest).

__global__ void doubleKernel(const float* x, float* out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * x[i];
}

__global__ void axpyKernel(const float* x, const float* y, float* out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(kAxpyA, x[i], y[i]);
}

__global__ void hypotKernel(const float* x, const float* y, float* out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hypotf(x[i], y[i]);
}

__global__ void iterateKernel(const float* x, float* out, size_t n, int work) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  float v = xi;
  for (int k = 0; k < work; ++k)
    v = fmaf(v, xi, kIterateC);
  out[i] = v;
}

// The course's foo, bar and baz, in place after the first.
__global__ void chainKernel(int step, const float* in, float* out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = in[i];
  switch (step % 3) {
    case 0:
      out[i] = v * 2.0f;
      break;
    case 1:
      out[i] = v + 1.0f;
      break;
    default:
      out[i] = v * v;
      break;
  }
}

constexpr int kBlock = 256;

Status launchOp(const TransferParams& p, const float* x, const float* y, float* out, size_t n,
                cudaStream_t s) {
  if (n == 0) return {};
  const unsigned grid = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  switch (p.op) {
    case TransferOp::Double:
      doubleKernel<<<grid, kBlock, 0, s>>>(x, out, n);
      break;
    case TransferOp::Axpy:
      axpyKernel<<<grid, kBlock, 0, s>>>(x, y, out, n);
      break;
    case TransferOp::Hypot:
      hypotKernel<<<grid, kBlock, 0, s>>>(x, y, out, n);
      break;
    case TransferOp::Iterate:
      iterateKernel<<<grid, kBlock, 0, s>>>(x, out, n, p.work);
      break;
  }
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

Status launchChain(int step, const float* in, float* out, size_t n, cudaStream_t s) {
  if (n == 0) return {};
  const unsigned grid = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  chainKernel<<<grid, kBlock, 0, s>>>(step, in, out, n);
  CUDALAB_CUDA_TRY_LAUNCH();
  return {};
}

// ---- The session ------------------------------------------------------------------------------

class Session final : public TransferSession {
 public:
  explicit Session(const TransferParams& p) : p_(p) {}

  Status init(unsigned seed) {
    CUDALAB_TRY(validate(p_));
    CUDALAB_CUDA_TRY(cudaSetDevice(0));
    n_ = static_cast<size_t>(p_.n);
    two_ = transferOp(p_.op).inputs > 1;
    // The chain reads only x and writes the output, whatever the op, so y may be left out.
    for (int b = 0; b < 3; ++b) {
      if (b == 1 && !two_) continue;
      CUDALAB_TRY(dev_[b].allocate(n_));
      host_[b].reset(new (std::nothrow) float[n_]);
      if (!host_[b])
        return Status::errorf(N_("Could not allocate %s MiB of host memory."),
                              {std::to_string(n_ * sizeof(float) >> 20)});
    }
    fillRandom(host_[0].get(), n_, seed);
    if (two_) fillRandom(host_[1].get(), n_, seed + 1);
    CUDALAB_TRY(ensureStreams(1));
    return {};
  }

  const TransferParams& params() const override { return p_; }
  const float* hostX() const override { return host_[0].get(); }
  const float* hostY() const override { return two_ ? host_[1].get() : nullptr; }
  float* hostOut() override { return host_[2].get(); }

  Result<PlanRun> run(const Plan& plan, const RunOptions& opt,
                      const std::atomic<bool>* cancel) override {
    if (opt.runs < 1 || opt.warmup < 0) return Status::error("run: runs must be at least 1.");
    for (const PlanStep& s : plan.steps) {
      if (s.offset + s.count > n_) return Status::error("run: a plan step is outside the arrays.");
      if (s.buffer == Buffer::Y && !two_) return Status::error("run: this op has no y input.");
    }
    CUDALAB_CUDA_TRY(cudaSetDevice(0));
    CUDALAB_TRY(ensureStreams(plan.streams));
    if (plan.pinned) CUDALAB_TRY(ensurePinned());
    CUDALAB_TRY(ensureEvents(2 * plan.steps.size() + 2 + streams_.size()));
    StreamDrain drain(streams_[0]->get());

    float* hostBuf[3];
    for (int b = 0; b < 3; ++b)
      hostBuf[b] = plan.pinned ? pinned_[b].get() : host_[b].get();
    const bool chain =
        std::any_of(plan.steps.begin(), plan.steps.end(), [](auto& s) { return s.chainStep >= 0; });
    int chainLength = 0;
    for (const PlanStep& s : plan.steps)
      chainLength = std::max(chainLength, s.chainStep + 1);

    PlanRun out;
    std::vector<Timeline> timelines;
    const int total = opt.warmup + opt.runs;
    for (int r = 0; r < total; ++r) {
      if (cancel && cancel->load()) return Status::error(N_("Measurement cancelled."));
      const bool timed = r >= opt.warmup;
      const bool verify = timed && (opt.verifyEveryRun || r == total - 1);
      // Poison: a value no kernel produces (NaN) in the host output and the device output, so a
      // copy or kernel that silently did nothing cannot pass the check.
      if (verify) std::fill(hostBuf[2], hostBuf[2] + n_, std::numeric_limits<float>::quiet_NaN());
      cudaStream_t s0 = streams_[0]->get();
      CUDALAB_CUDA_TRY(cudaMemsetAsync(dev_[2].get(), 0xFF, n_ * sizeof(float), s0));
      CUDALAB_CUDA_TRY(cudaStreamSynchronize(s0));

      Result<Timeline> t = runOnce(plan, hostBuf);
      if (!t) return t.status();
      if (!timed) continue;
      if (verify) {
        Correctness c = chain ? checkChain(chainLength, host_[0].get(), hostBuf[2], n_)
                              : checkOp(p_.op, p_.work, host_[0].get(),
                                        two_ ? host_[1].get() : nullptr, hostBuf[2], n_);
        noteCheck(c.ok(), "a transfer plan");
        if (!out.check.ran || c.wrong > out.check.wrong) out.check = c;
      }
      out.wall.samplesMs.push_back(t->wallMs);
      const std::array<double, 3> ph = t->phaseMs();
      for (int k = 0; k < 3; ++k)
        out.phases[k].samplesMs.push_back(ph[k]);
      timelines.push_back(std::move(*t));
    }
    summarize(out.wall);
    for (PhaseStats& s : out.phases)
      summarize(s);
    out.runs = opt.runs;
    // The timeline shown is the run whose wall time is closest to the median.
    size_t best = 0;
    for (size_t i = 1; i < timelines.size(); ++i)
      if (std::fabs(timelines[i].wallMs - out.wall.medianMs) <
          std::fabs(timelines[best].wallMs - out.wall.medianMs))
        best = i;
    out.timeline = std::move(timelines[best]);
    return out;
  }

 private:
  Result<Timeline> runOnce(const Plan& plan, float* const hostBuf[3]) {
    const size_t steps = plan.steps.size();
    cudaEvent_t origin = events_[2 * steps]->get();
    cudaEvent_t end = events_[2 * steps + 1]->get();
    cudaStream_t s0 = streams_[0]->get();
    CUDALAB_CUDA_TRY(cudaEventRecord(origin, s0));
    for (int s = 1; s < plan.streams; ++s)
      CUDALAB_CUDA_TRY(cudaStreamWaitEvent(streams_[s]->get(), origin, 0));

    for (size_t i = 0; i < steps; ++i) {
      const PlanStep& st = plan.steps[i];
      cudaStream_t s = streams_[st.stream]->get();
      const int b = static_cast<int>(st.buffer);
      CUDALAB_CUDA_TRY(cudaEventRecord(events_[2 * i]->get(), s));
      const size_t bytes = st.count * sizeof(float);
      switch (st.kind) {
        case SpanKind::HostToDevice: {
          const float* src = (st.fromHostOut ? hostBuf[2] : hostBuf[b]) + st.offset;
          CUDALAB_CUDA_TRY(
              cudaMemcpyAsync(dev_[b].get() + st.offset, src, bytes, cudaMemcpyHostToDevice, s));
          break;
        }
        case SpanKind::DeviceToHost:
          CUDALAB_CUDA_TRY(cudaMemcpyAsync(hostBuf[b] + st.offset, dev_[b].get() + st.offset, bytes,
                                           cudaMemcpyDeviceToHost, s));
          break;
        case SpanKind::Kernel:
          if (st.chainStep >= 0) {
            const float* in = st.chainStep == 0 ? dev_[0].get() : dev_[2].get();
            CUDALAB_TRY(
                launchChain(st.chainStep, in + st.offset, dev_[2].get() + st.offset, st.count, s));
          } else {
            const float* y = two_ ? dev_[1].get() + st.offset : nullptr;
            CUDALAB_TRY(
                launchOp(p_, dev_[0].get() + st.offset, y, dev_[2].get() + st.offset, st.count, s));
          }
          break;
      }
      CUDALAB_CUDA_TRY(cudaEventRecord(events_[2 * i + 1]->get(), s));
    }
    // Join every stream back into the first, then wait for all of it.
    for (int s = 1; s < plan.streams; ++s) {
      cudaEvent_t joined = events_[2 * steps + 2 + s]->get();
      CUDALAB_CUDA_TRY(cudaEventRecord(joined, streams_[s]->get()));
      CUDALAB_CUDA_TRY(cudaStreamWaitEvent(s0, joined, 0));
    }
    CUDALAB_CUDA_TRY(cudaEventRecord(end, s0));
    CUDALAB_CUDA_TRY(cudaEventSynchronize(end));

    Timeline t;
    t.streams = plan.streams;
    t.spans.reserve(steps);
    float ms = 0;
    for (size_t i = 0; i < steps; ++i) {
      const PlanStep& st = plan.steps[i];
      Span sp;
      sp.stream = st.stream;
      sp.kind = st.kind;
      sp.call = st.call;
      sp.chunk = st.chunk;
      CUDALAB_CUDA_TRY(cudaEventElapsedTime(&ms, origin, events_[2 * i]->get()));
      sp.startMs = ms;
      CUDALAB_CUDA_TRY(cudaEventElapsedTime(&ms, origin, events_[2 * i + 1]->get()));
      sp.endMs = ms;
      const int arrays = st.kind != SpanKind::Kernel ? 1 : st.chainStep >= 0 ? 2 : (two_ ? 3 : 2);
      sp.bytes = double(arrays) * double(st.count) * sizeof(float);
      t.spans.push_back(sp);
    }
    CUDALAB_CUDA_TRY(cudaEventElapsedTime(&ms, origin, end));
    t.wallMs = ms;
    return t;
  }

  Status ensureStreams(int count) {
    while (static_cast<int>(streams_.size()) < count) {
      streams_.emplace_back(std::make_unique<StreamGuard>());
      CUDALAB_TRY(streams_.back()->create());
    }
    return {};
  }
  Status ensurePinned() {
    for (int b = 0; b < 3; ++b) {
      if (b == 1 && !two_) continue;
      if (pinned_[b].get()) continue;
      CUDALAB_TRY(pinned_[b].allocate(n_));
      if (b < 2) std::copy(host_[b].get(), host_[b].get() + n_, pinned_[b].get());
    }
    return {};
  }
  Status ensureEvents(size_t count) {
    while (events_.size() < count) {
      events_.emplace_back(std::make_unique<Event>());
      CUDALAB_TRY(events_.back()->create());
    }
    return {};
  }

  // Behind pointers: the owners are neither copyable nor movable.
  TransferParams p_;
  size_t n_ = 0;
  bool two_ = false;
  DeviceArray<float> dev_[3];
  std::unique_ptr<float[]> host_[3];
  PinnedArray<float> pinned_[3];
  std::vector<std::unique_ptr<StreamGuard>> streams_;
  std::vector<std::unique_ptr<Event>> events_;
};

std::string readLine(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

}  // namespace

Result<std::unique_ptr<TransferSession>> TransferSession::create(const TransferParams& p,
                                                                 unsigned seed) {
  auto s = std::make_unique<Session>(p);
  CUDALAB_TRY(s->init(seed));
  return std::unique_ptr<TransferSession>(std::move(s));
}

Result<MemoryAvailable> memoryAvailable(bool gpu) {
  MemoryAvailable m;
  if (gpu) {
    size_t total = 0;
    CUDALAB_CUDA_TRY(cudaMemGetInfo(&m.freeDevice, &total));
  }
  std::ifstream f("/proc/meminfo");
  std::string key, unit;
  size_t kb = 0;
  while (f >> key >> kb) {
    std::getline(f, unit);
    if (key == "MemAvailable:") {
      m.availableHost = kb * 1024;
      break;
    }
  }
  if (m.availableHost == 0) m.availableHost = size_t(1) << 40;  // not Linux: do not refuse
  return m;
}

std::optional<PcieLink> queryPcieLink(int device) {
  char bus[64] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  std::string id = bus;
  for (char& c : id)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string dir = "/sys/bus/pci/devices/" + id + "/";
  return parsePcieLink(readLine(dir + "current_link_speed"), readLine(dir + "current_link_width"));
}

}  // namespace cudalab::transfers
