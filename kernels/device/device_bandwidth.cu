// Measured copy bandwidth: device-to-device, and host<->device from pinned and pageable memory.
//
// [SECTION] Variants and parameters   (pure: copyVariants, validate, timeStats)
// [SECTION] Pageable host memory      the one owner not in common/cuda_raii.hpp
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
#include "common/cuda_raii.hpp"
#include "common/translatable.hpp"

namespace cudalab::device {

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants and parameters
// ---------------------------------------------------------------------------------------------

namespace {

constexpr CopyVariant kCopyVariants[] = {
    {CopyKind::DeviceToDevice, "d2d", N_("Device to device"),
     // xgettext:no-c-format
     N_("cudaMemcpy between two buffers in GPU memory. Each byte is read from and written to DRAM, "
        "so the bandwidth counts it twice. This is the practical ceiling for memory-bound kernels, "
        "usually 80-95% of the theoretical peak."),
     2},
    {CopyKind::HostToDevicePinned, "h2d_pinned", N_("Host to device (pinned)"),
     N_("Copy from page-locked host memory (cudaMallocHost) to the GPU. The copy engine reads host "
        "memory directly over PCIe or NVLink, so this shows the link's real speed."),
     1},
    {CopyKind::DeviceToHostPinned, "d2h_pinned", N_("Device to host (pinned)"),
     N_("Copy from the GPU to page-locked host memory. Usually close to the host-to-device rate; a "
        "large difference points at the link or the host's memory."),
     1},
    {CopyKind::HostToDevicePageable, "h2d_pageable", N_("Host to device (pageable)"),
     N_("Copy from ordinary malloc'd memory. The driver first copies it into its own pinned "
        "staging "
        "buffer with the CPU, then to the GPU, which is why it is slower than pinned. Copies from "
        "pageable memory also cannot overlap with kernels."),
     1},
    {CopyKind::DeviceToHostPageable, "d2h_pageable", N_("Device to host (pageable)"),
     N_("Copy from the GPU into ordinary malloc'd memory, through the driver's staging buffer. The "
        "call returns only when the data has arrived, so the CPU waits for all of it."),
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
    return Status::errorf(
        N_("A %s device copy needs two %s buffers (%s in all), but only %s of "
           "device memory is free. Choose a smaller device copy size."),
        {mib(p.deviceCopyMiB), mib(p.deviceCopyMiB), mib(2.0 * p.deviceCopyMiB), mib(freeMiB)});
  }
  if (p.hostCopyMiB * kMiB > static_cast<double>(freeDeviceBytes)) {
    return Status::errorf(N_("A %s host copy needs a %s device buffer, but only %s of device "
                             "memory is free. Choose a smaller host copy size."),
                          {mib(p.hostCopyMiB), mib(p.hostCopyMiB), mib(freeMiB)});
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
// [SECTION] Pageable host memory
// ---------------------------------------------------------------------------------------------
// Device memory, pinned memory, events, the stream and the current device use the shared owners
// in common/cuda_raii.hpp.

namespace {

// Ordinary (pageable) host memory, as malloc or std::vector would give. Kept here rather than in
// cuda_raii.hpp: it is not a CUDA resource, and the point of the pageable variants is that it is
// *not* allocated by CUDA. Allocated without throwing so that a failure becomes a Status like
// every other, with a message that names the host copy size to change.
class PageableMemory {
 public:
  Status allocate(size_t bytes) {
    p_.reset(new (std::nothrow) unsigned char[bytes]);
    if (!p_) {
      return Status::errorf(N_("Could not allocate %s of ordinary host memory for the pageable "
                               "copies. Choose a smaller host copy size."),
                            {mib(static_cast<double>(bytes) / kMiB)});
    }
    return {};
  }
  unsigned char* get() const { return p_.get(); }

 private:
  std::unique_ptr<unsigned char[]> p_;
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
    // The variant's label is marked N_(), so the app shows it translated too.
    return Status::errorf(N_("%s: the copy finished faster than CUDA events can time (about half a "
                             "microsecond). Choose a larger copy size."),
                          {v.label});
  }
  const double counted = static_cast<double>(bytes) * v.bytesCountedPerByte;
  return CopyResult{v.kind, bytes, t.median, t.min, t.max, counted / (t.median * 1e-3) / 1e9};
}

}  // namespace

Result<BandwidthReport> measureBandwidth(int device, const BandwidthParams& params,
                                         const std::atomic<bool>* cancel,
                                         const BandwidthProgress& progress) {
  if (isCancelled(cancel)) return cancelled();

  // Restores the previous device when the measurement ends, so the worker thread's later CUDA
  // calls go where they went before.
  CurrentDevice current;
  CUDALAB_TRY(current.set(device));
  size_t freeBytes = 0, totalBytes = 0;
  CUDALAB_CUDA_TRY(cudaMemGetInfo(&freeBytes, &totalBytes));
  CUDALAB_TRY(validate(params, freeBytes));

  // Whole MiB after validation, so the conversions below are exact.
  const size_t deviceBytes = static_cast<size_t>(params.deviceCopyMiB) * size_t(1024 * 1024);
  const size_t hostBytes = static_cast<size_t>(params.hostCopyMiB) * size_t(1024 * 1024);

  // The measurement's own stream, non-blocking (see StreamGuard).
  StreamGuard stream;
  CUDALAB_TRY(stream.create());
  Event start, stop;
  CUDALAB_TRY(start.create());
  CUDALAB_TRY(stop.create());

  BandwidthReport report;
  report.device = device;
  report.params = params;
  const int variantCount = static_cast<int>(copyVariants().size());
  Progress prog{progress, variantCount * (params.repetitions + 1)};

  // Phase 1: device to device, two buffers larger than L2. Freed before phase 2 so the peak
  // device memory is the larger phase, not the sum (validate() assumes this).
  {
    DeviceArray<unsigned char> src, dst;
    // Declared after the buffers the stream's copies use, so that on any early return it is
    // destroyed first and waits for those copies before the buffers are freed under them.
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
    DeviceArray<unsigned char> dev;
    PinnedArray<unsigned char> pinned;
    PageableMemory pageable;
    StreamDrain drain(stream.get());  // after the buffers, as in phase 1
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

}  // namespace cudalab::device
