// Measured copy bandwidth: device-to-device, and host<->device from pinned and pageable memory.
//
// [SECTION] Variants and parameters   (pure: copyVariants, validate, timeStats)
// [SECTION] RAII wrappers             device memory, pinned and pageable host memory, events,
//                                     stream, current device: freed on every path, errors included
// [SECTION] Measurement               measureBandwidth
//
// No kernel is needed: cudaMemcpyAsync is what applications use to move data, and for a
// device-to-device copy the driver already runs a copy kernel tuned for the GPU.
#include "device/device_bandwidth.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"

namespace cudalab {

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants and parameters
// ---------------------------------------------------------------------------------------------

namespace {

constexpr CopyVariant kCopyVariants[] = {
    {CopyKind::DeviceToDevice, "d2d", "Device to device",
     "cudaMemcpy between two buffers in GPU memory. Each byte is read from and written to DRAM, "
     "so the bandwidth counts it twice. This is the practical ceiling for memory-bound kernels, "
     "usually 80-95% of the theoretical peak.",
     2},
    {CopyKind::HostToDevicePinned, "h2d_pinned", "Host to device (pinned)",
     "Copy from page-locked host memory (cudaMallocHost) to the GPU. The copy engine reads host "
     "memory directly over PCIe or NVLink, so this shows the link's real speed.",
     1},
    {CopyKind::DeviceToHostPinned, "d2h_pinned", "Device to host (pinned)",
     "Copy from the GPU to page-locked host memory. Usually close to the host-to-device rate; a "
     "large difference points at the link or the host's memory.",
     1},
    {CopyKind::HostToDevicePageable, "h2d_pageable", "Host to device (pageable)",
     "Copy from ordinary malloc'd memory. The driver first copies it into its own pinned staging "
     "buffer with the CPU, then to the GPU, which is why it is slower than pinned. Copies from "
     "pageable memory also cannot overlap with kernels.",
     1},
    {CopyKind::DeviceToHostPageable, "d2h_pageable", "Device to host (pageable)",
     "Copy from the GPU into ordinary malloc'd memory, through the driver's staging buffer. The "
     "call returns only when the data has arrived, so the CPU waits for all of it.",
     1},
};

constexpr double kMiB = 1024.0 * 1024.0;

std::string mib(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f MiB", v);
  return buf;
}

}  // namespace

std::span<const CopyVariant> copyVariants() {
  return kCopyVariants;
}

const CopyVariant& copyVariant(CopyKind kind) {
  for (const CopyVariant& v : kCopyVariants) {
    if (v.kind == kind) return v;
  }
  return kCopyVariants[0];  // unreachable: every CopyKind has an entry (the tests check it)
}

Status validate(const BandwidthParams& p, size_t freeDeviceBytes) {
  CUDALAB_TRY(checkRange(kDeviceCopyMiB, p.deviceCopyMiB));
  CUDALAB_TRY(checkRange(kHostCopyMiB, p.hostCopyMiB));
  CUDALAB_TRY(checkRange(kBandwidthRepetitions, p.repetitions));

  // The phases run one after the other, so the device needs room for the larger of them:
  // two buffers for the device copy, one for the host copies.
  const double freeMiB = std::floor(static_cast<double>(freeDeviceBytes) / kMiB);
  if (2.0 * p.deviceCopyMiB * kMiB > static_cast<double>(freeDeviceBytes)) {
    return Status::error("A " + mib(p.deviceCopyMiB) + " device copy needs two " +
                         mib(p.deviceCopyMiB) + " buffers (" + mib(2.0 * p.deviceCopyMiB) +
                         " in all), but only " + mib(freeMiB) +
                         " of device memory is free. Choose a smaller device copy size.");
  }
  if (p.hostCopyMiB * kMiB > static_cast<double>(freeDeviceBytes)) {
    return Status::error("A " + mib(p.hostCopyMiB) + " host copy needs a " + mib(p.hostCopyMiB) +
                         " device buffer, but only " + mib(freeMiB) +
                         " of device memory is free. Choose a smaller host copy size.");
  }
  return {};
}

TimeStats timeStats(std::vector<double> ms) {
  if (ms.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2.0;
  return {median, ms.front(), ms.back()};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] RAII wrappers
// ---------------------------------------------------------------------------------------------
// Each wrapper starts empty and is filled by a Status-returning create/allocate, so failures are
// values. Destructors release and ignore errors: they cannot report them, and a failed release
// (a context already broken by a sticky error) leaves nothing more to free.

namespace {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  ~DeviceMemory() { reset(); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  Status allocate(size_t bytes) {
    reset();
    CUDALAB_CUDA_TRY(cudaMalloc(&p_, bytes));
    return {};
  }
  // cudaFree waits for work still using the buffer, so this is safe after an error too.
  void reset() {
    if (p_) (void)cudaFree(p_);
    p_ = nullptr;
  }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Page-locked host memory: the copy engine can read and write it directly.
class PinnedMemory {
 public:
  PinnedMemory() = default;
  ~PinnedMemory() {
    if (p_) (void)cudaFreeHost(p_);
  }
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;

  Status allocate(size_t bytes) {
    CUDALAB_CUDA_TRY(cudaMallocHost(&p_, bytes));
    return {};
  }
  unsigned char* get() const { return static_cast<unsigned char*>(p_); }

 private:
  void* p_ = nullptr;
};

// Ordinary (pageable) host memory, as malloc or std::vector would give. Allocated without
// throwing so that a failure becomes a Status like every other.
class PageableMemory {
 public:
  Status allocate(size_t bytes) {
    p_.reset(new (std::nothrow) unsigned char[bytes]);
    if (!p_) {
      return Status::error("Could not allocate " + mib(static_cast<double>(bytes) / kMiB) +
                           " of ordinary host memory for the pageable copies. Choose a smaller "
                           "host copy size.");
    }
    return {};
  }
  unsigned char* get() const { return p_.get(); }

 private:
  std::unique_ptr<unsigned char[]> p_;
};

class Event {
 public:
  Event() = default;
  ~Event() {
    if (e_) (void)cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  Status create() {
    CUDALAB_CUDA_TRY(cudaEventCreate(&e_));  // default flags: timing enabled
    return {};
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// The measurement's own stream. Non-blocking, so it does not serialize with the legacy default
// stream that other code in the process (the UI's interop, another lesson) might be using.
class Stream {
 public:
  Stream() = default;
  ~Stream() {
    if (s_) (void)cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  Status create() {
    CUDALAB_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    return {};
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Declared after the buffers a stream's copies use, so that on any early return it is destroyed
// first and waits for those copies before the buffers are freed under them.
class StreamDrain {
 public:
  explicit StreamDrain(cudaStream_t s) : s_(s) {}
  ~StreamDrain() { (void)cudaStreamSynchronize(s_); }
  StreamDrain(const StreamDrain&) = delete;
  StreamDrain& operator=(const StreamDrain&) = delete;

 private:
  cudaStream_t s_;
};

// Makes a device current and restores the previous one when the measurement ends, so the
// worker thread's later CUDA calls go where they went before.
class CurrentDevice {
 public:
  CurrentDevice() = default;
  ~CurrentDevice() {
    if (saved_) (void)cudaSetDevice(previous_);
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

  Status set(int device) {
    CUDALAB_CUDA_TRY(cudaGetDevice(&previous_));
    saved_ = true;
    CUDALAB_CUDA_TRY(cudaSetDevice(device));
    return {};
  }

 private:
  int previous_ = 0;
  bool saved_ = false;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Measurement
// ---------------------------------------------------------------------------------------------

Status cancelled() {
  return Status::error("Measurement cancelled.");
}

bool isCancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

// Fills a host buffer with a non-zero pattern (and so also touches every page before timing,
// so the first timed copy does not pay for page faults).
void fillHost(unsigned char* p, size_t bytes) {
  // One 64 KiB block computed, then replicated with memcpy: filling 2 GiB byte by byte would
  // take seconds in a debug build.
  const size_t block = std::min<size_t>(bytes, 64 * 1024);
  for (size_t i = 0; i < block; ++i)
    p[i] = static_cast<unsigned char>(i % 251u + 1u);
  for (size_t off = block; off < bytes; off += block)
    std::memcpy(p + off, p, std::min(block, bytes - off));
}

// Counts finished copies for the progress callback.
struct Progress {
  const BandwidthProgress& callback;
  int total;
  int done = 0;
  void step(const char* what) {
    ++done;
    if (callback) callback(static_cast<float>(done) / static_cast<float>(total), what);
  }
};

// One variant: a warm-up copy (first-touch costs, clocks ramping up), then `reps` copies, each
// between two events on the stream. For pageable memory the driver stages the data through its
// own pinned buffer with the CPU; the stop event can only complete after the last staged piece
// has landed, so the interval includes that staging, which is the point of the comparison.
Result<CopyResult> timeCopies(const CopyVariant& v, void* dst, const void* src, size_t bytes,
                              cudaMemcpyKind dir, cudaStream_t stream, const Event& start,
                              const Event& stop, int reps, const std::atomic<bool>* cancel,
                              Progress& progress) {
  if (isCancelled(cancel)) return cancelled();
  CUDALAB_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, dir, stream));
  CUDALAB_CUDA_TRY(cudaStreamSynchronize(stream));
  progress.step(v.label);

  std::vector<double> times;
  times.reserve(size_t(reps));
  for (int r = 0; r < reps; ++r) {
    if (isCancelled(cancel)) return cancelled();
    CUDALAB_CUDA_TRY(cudaEventRecord(start.get(), stream));
    CUDALAB_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, dir, stream));
    CUDALAB_CUDA_TRY(cudaEventRecord(stop.get(), stream));
    CUDALAB_CUDA_TRY(cudaEventSynchronize(stop.get()));
    float ms = 0;
    CUDALAB_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    times.push_back(ms);
    progress.step(v.label);
  }

  TimeStats t = timeStats(times);
  if (!(t.median > 0)) {
    return Status::error(std::string(v.label) +
                         ": the copy finished faster than CUDA events can time (about half a "
                         "microsecond). Choose a larger copy size.");
  }
  const double counted = static_cast<double>(bytes) * v.bytesCountedPerByte;
  return CopyResult{v.kind, bytes, t.median, t.min, t.max, counted / (t.median * 1e-3) / 1e9};
}

}  // namespace

Result<BandwidthReport> measureBandwidth(int device, const BandwidthParams& params,
                                         const std::atomic<bool>* cancel,
                                         const BandwidthProgress& progress) {
  if (isCancelled(cancel)) return cancelled();

  CurrentDevice current;
  CUDALAB_TRY(current.set(device));
  size_t freeBytes = 0, totalBytes = 0;
  CUDALAB_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
  CUDALAB_TRY(validate(params, freeBytes));

  // Whole MiB after validation, so the conversions below are exact.
  const size_t deviceBytes = static_cast<size_t>(params.deviceCopyMiB) * size_t(1024 * 1024);
  const size_t hostBytes = static_cast<size_t>(params.hostCopyMiB) * size_t(1024 * 1024);

  Stream stream;
  CUDALAB_TRY(stream.create());
  Event start, stop;
  CUDALAB_TRY(start.create());
  CUDALAB_TRY(stop.create());

  BandwidthReport report;
  report.device = device;
  const int variantCount = static_cast<int>(copyVariants().size());
  Progress prog{progress, variantCount * (params.repetitions + 1)};

  // Phase 1: device to device, two buffers larger than L2. Freed before phase 2 so the peak
  // device memory is the larger phase, not the sum (validate() assumes this).
  {
    DeviceMemory src, dst;
    StreamDrain drain(stream.get());
    CUDALAB_TRY(src.allocate(deviceBytes));
    CUDALAB_TRY(dst.allocate(deviceBytes));
    // Non-zero input; the destination differs so a copy that did nothing would be visible.
    CUDALAB_CUDA_TRY(cudaMemsetAsync(src.get(), 0x5A, deviceBytes, stream.get()));
    CUDALAB_CUDA_TRY(cudaMemsetAsync(dst.get(), 0xA5, deviceBytes, stream.get()));
    Result<CopyResult> r = timeCopies(copyVariant(CopyKind::DeviceToDevice), dst.get(), src.get(),
                                      deviceBytes, cudaMemcpyDeviceToDevice, stream.get(), start,
                                      stop, params.repetitions, cancel, prog);
    if (!r) return r.status();
    report.results.push_back(*r);
  }

  // Phase 2: host copies, one device buffer shared by the four directions.
  {
    DeviceMemory dev;
    PinnedMemory pinned;
    PageableMemory pageable;
    StreamDrain drain(stream.get());
    CUDALAB_TRY(dev.allocate(hostBytes));
    CUDALAB_TRY(pinned.allocate(hostBytes));
    CUDALAB_TRY(pageable.allocate(hostBytes));
    fillHost(pinned.get(), hostBytes);
    fillHost(pageable.get(), hostBytes);
    CUDALAB_CUDA_TRY(cudaMemsetAsync(dev.get(), 0x5A, hostBytes, stream.get()));

    // Where each host variant copies from and to.
    struct Endpoints {
      void* dst;
      const void* src;
      cudaMemcpyKind dir;
    };
    auto endpoints = [&](CopyKind kind) -> Endpoints {
      switch (kind) {
        case CopyKind::HostToDevicePinned:
          return {dev.get(), pinned.get(), cudaMemcpyHostToDevice};
        case CopyKind::DeviceToHostPinned:
          return {pinned.get(), dev.get(), cudaMemcpyDeviceToHost};
        case CopyKind::HostToDevicePageable:
          return {dev.get(), pageable.get(), cudaMemcpyHostToDevice};
        case CopyKind::DeviceToHostPageable:
          return {pageable.get(), dev.get(), cudaMemcpyDeviceToHost};
        case CopyKind::DeviceToDevice:
          break;
      }
      return {nullptr, nullptr, cudaMemcpyDefault};
    };

    for (const CopyVariant& v : copyVariants()) {
      if (v.kind == CopyKind::DeviceToDevice) continue;  // phase 1
      auto [dst, src, dir] = endpoints(v.kind);
      Result<CopyResult> r = timeCopies(v, dst, src, hostBytes, dir, stream.get(), start, stop,
                                        params.repetitions, cancel, prog);
      if (!r) return r.status();
      report.results.push_back(*r);
    }
  }
  return report;
}

}  // namespace cudalab
