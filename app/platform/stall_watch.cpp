#include "platform/stall_watch.hpp"

#include <chrono>
#include <csignal>

#include "platform/crash_report.hpp"

namespace cudalab {
namespace {

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

StallWatch::StallWatch(double seconds)
    : limitNs_(static_cast<std::int64_t>(seconds * 1e9)), ui_(pthread_self()) {
  printStackOnSigusr2();
  thread_ = std::thread([this] { watch(); });
}

StallWatch::~StallWatch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void StallWatch::frameStarted() {
  reported_ = false;
  frameStartNs_ = nowNs();
}

void StallWatch::frameEnded() {
  frameStartNs_ = 0;
}

void StallWatch::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
    const std::int64_t start = frameStartNs_.load();
    if (start == 0 || reported_ || nowNs() - start < limitNs_) continue;
    reported_ = true;
    ++stalls_;
    pthread_kill(ui_, SIGUSR2);
  }
}

}  // namespace cudalab
