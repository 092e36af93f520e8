// Owners for CUDA resources, freed on every path (early returns included), for host code that
// allocates and launches. Each create/allocate returns a Status.
// Destructors release and ignore errors: they cannot report them, and a failed release (a context
// already broken by a sticky error) leaves nothing more to free.
//
//   StreamGuard stream;          CUDALAB_TRY(stream.create());       // non-blocking stream
//   DeviceArray<float> d;        CUDALAB_TRY(d.allocate(n));
//   PinnedArray<float> h;        CUDALAB_TRY(h.allocate(n));
//   StreamDrain drain(stream.get());   // declared after the buffers: on any return it waits for
//                                      // the stream before the buffers are freed under it
//   CurrentDevice dev;           CUDALAB_TRY(dev.set(1));             // restored on scope exit
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>

#include "common/cuda_check.hpp"

namespace cudalab {

// Page-locked host bytes that PinnedArray holds now, in the whole process. Pinned memory is
// resident and outside malloc: the soak reports it beside the resident size.
inline std::atomic<long long>& pinnedHostBytes() {
  static std::atomic<long long> bytes{0};
  return bytes;
}

// Device memory that the app's own owners hold now, in the whole process: every DeviceArray, and
// an InteropImage's staging buffer (and its pixel buffer and texture when they live on the CUDA
// device). The soak subtracts it from the device's memory in use: what a lesson holds for the
// sizes it was last given (a 3840 x 2160 frame's buffers are over 500 MiB) is then not taken for
// growth, and what is left (the context, libraries' workspaces, anything freed by no owner) is.
inline std::atomic<long long>& heldDeviceBytes() {
  static std::atomic<long long> bytes{0};
  return bytes;
}
// How many such owners hold device memory now (an InteropImage's buffer and texture count as one):
// a lesson that kept adding buffers would raise it, whatever their sizes.
inline std::atomic<long long>& heldDeviceBuffers() {
  static std::atomic<long long> count{0};
  return count;
}

// Device memory for `count` elements of T.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() { reset(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), count_(o.count_) {
    o.p_ = nullptr;
    o.count_ = 0;
  }

  Status allocate(size_t count) {
    reset();
    CUDALAB_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&p_), count * sizeof(T)));
    count_ = count;
    heldDeviceBytes() += static_cast<long long>(bytes());
    ++heldDeviceBuffers();
    return {};
  }
  T* get() const { return p_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  // cudaFree waits for work still using the buffer.
  void reset() {
    if (p_) {
      (void)cudaFree(p_);
      heldDeviceBytes() -= static_cast<long long>(bytes());
      --heldDeviceBuffers();
    }
    p_ = nullptr;
    count_ = 0;
  }

 private:
  T* p_ = nullptr;
  size_t count_ = 0;
};

// Page-locked host memory: copies run at the link's full speed and can be asynchronous.
template <class T>
class PinnedArray {
 public:
  PinnedArray() = default;
  ~PinnedArray() { reset(); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;

  Status allocate(size_t count) {
    reset();
    CUDALAB_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&p_), count * sizeof(T)));
    count_ = count;
    pinnedHostBytes() += static_cast<long long>(bytes());
    return {};
  }
  T* get() const { return p_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  void reset() {
    if (p_) {
      (void)cudaFreeHost(p_);
      pinnedHostBytes() -= static_cast<long long>(bytes());
    }
    p_ = nullptr;
    count_ = 0;
  }

 private:
  T* p_ = nullptr;
  size_t count_ = 0;
};

// A timing event (default flags).
class Event {
 public:
  Event() = default;
  ~Event() {
    if (e_) (void)cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Status create() {
    CUDALAB_CUDA_TRY(cudaEventCreate(&e_));
    return {};
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// A non-blocking stream: it does not serialize with the legacy default stream that other code in
// the process (the UI's interop, another lesson) may use.
class StreamGuard {
 public:
  StreamGuard() = default;
  ~StreamGuard() {
    if (s_) (void)cudaStreamDestroy(s_);
  }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  Status create() {
    CUDALAB_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    return {};
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Waits for a stream when the scope ends. Declare it after the buffers the stream uses.
class StreamDrain {
 public:
  explicit StreamDrain(cudaStream_t s) : s_(s) {}
  ~StreamDrain() { (void)cudaStreamSynchronize(s_); }
  StreamDrain(const StreamDrain&) = delete;
  StreamDrain& operator=(const StreamDrain&) = delete;

 private:
  cudaStream_t s_;
};

// Makes a device current and restores the previous one at scope exit, so a worker thread's later
// CUDA calls go where they went before.
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

}  // namespace cudalab
