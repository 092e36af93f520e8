// Says where the UI thread is when one frame takes too long.
//
//   StallWatch watch(2.0);          // from the UI thread, which it watches
//   ... each frame:
//   watch.frameStarted();  draw();  watch.frameEnded();
//
// A frame still running after `seconds` gets the UI thread's call stack printed to stderr, once
// per frame, as `binary(+offset)` lines: `addr2line -Cfe build/cudalab OFFSET` names each of the
// app's own frames. The soak uses it, so a stall found on the GPU machine comes back with its
// place in the code rather than only a frame time.
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace cudalab {

class StallWatch {
 public:
  explicit StallWatch(double seconds);
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  void frameStarted();
  void frameEnded();
  // Frames whose stack was printed so far.
  int stalls() const { return stalls_.load(); }

 private:
  void watch();
  const std::int64_t limitNs_;
  pthread_t ui_;
  std::atomic<std::int64_t> frameStartNs_{0};  // 0 between frames
  std::atomic<bool> reported_{false};
  std::atomic<int> stalls_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cudalab
