#include "platform/stall_watch.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>

namespace cudalab {
namespace {

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void writeAll(const char* s) {
  for (size_t n = std::strlen(s); n > 0;) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// Runs on the UI thread, interrupted wherever it waits: only async-signal-safe calls (backtrace
// was called once before, so it does not load libgcc here).
void printStack(int) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  writeAll("stall: the UI thread is here (innermost first):\n");
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  writeAll("stall: end of stack\n");
}

}  // namespace

void printStackOnSigusr2() {
  void* warm[2];
  (void)backtrace(warm, 2);
  struct sigaction sa {};
  sa.sa_handler = printStack;
  sa.sa_flags = SA_RESTART;  // the interrupted wait carries on
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR2, &sa, nullptr);
}

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
