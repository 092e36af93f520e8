// One byte a second at most on the supervisor's pipe; see heartbeat.hpp.
#include "platform/heartbeat.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <chrono>

namespace cudalab {
namespace {

std::atomic<int> gFd{-1};
std::atomic<long long> gLastBeatMs{0};

long long nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void startHeartbeat(int fd) {
  if (fd < 0) return;
  // Never blocks the drawing thread: a full pipe (a supervisor that stopped reading) drops beats.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  // A supervisor gone (killed outright) must not take the app with SIGPIPE: the write just fails.
  std::signal(SIGPIPE, SIG_IGN);
  stopHeartbeat();
  gLastBeatMs = nowMs();
  gFd = fd;
}

void heartbeat() {
  const int fd = gFd.load();
  if (fd < 0) return;
  const long long now = nowMs();
  if (now - gLastBeatMs.load() < 1000) return;
  gLastBeatMs = now;
  const char beat = 'h';
  (void)!write(fd, &beat, 1);
}

void stopHeartbeat() {
  const int fd = gFd.exchange(-1);
  if (fd >= 0) close(fd);
}

bool heartbeatOn() {
  return gFd.load() >= 0;
}

}  // namespace cudalab
