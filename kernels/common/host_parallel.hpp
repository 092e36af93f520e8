// Work split over the host's cores, and the host clock, for the CPU references and timings.
//
//   parallelFor(rows, 0, [&](int begin, int end) { for (int y = begin; y < end; ++y) ... });
//   const auto t0 = std::chrono::steady_clock::now(); ...; double ms = msSince(t0);
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace cudalab {

// Threads to use for `work` items: `threads` (0: every core), never more than the items.
inline int threadCount(int threads, long long work) {
  const int n =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<long long>(1, std::min<long long>(n, work)));
}

// Runs body(begin, end) over [0, count) split into `threads` contiguous parts (0: every core).
template <class F>
void parallelFor(int count, int threads, F body) {
  const int n = threadCount(threads, count);
  if (n == 1) return body(0, count);
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) {
    const int begin = static_cast<int>(1LL * count * t / n);
    const int end = static_cast<int>(1LL * count * (t + 1) / n);
    pool.emplace_back([=] { body(begin, end); });
  }
  for (std::thread& th : pool)
    th.join();
}

inline double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cudalab
