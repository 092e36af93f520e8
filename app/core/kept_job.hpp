// A lesson's job together with the last result it delivered: a panel shows the latest measurement
// while the next one runs, and a failed run leaves the last good result on screen.
//
//   KeptJob<LadderReport> ladder_;
//   ladder_.start([p](auto& c) -> Result<LadderReport> { ... });  // AsyncJob's start, running, ...
//   ctx.errors(error_, {ladder_.collect()});   // each frame: a finished result replaces the kept
//                                              // (collectSweep(): a sweep's points stay too)
//   if (!ladder_) return;                      // nothing delivered yet
//   draw(ladder_->steps);                      // the kept result, as through an optional
//   ladder_.kept().reset();                    // forget it (new parameters)
#pragma once

#include <optional>

#include "common/async_job.hpp"

namespace cudalab {

template <class T, class Partial = NoPartial>
class KeptJob : public AsyncJob<T, Partial> {
 public:
  // Takes a finished job's result into the kept one; returns the failure of a finished job that
  // failed (the kept result stays), and ok when it succeeded or has not finished.
  Status collect() { return this->takeInto(kept_); }
  // The same for a sweep (a T with its `points` and why it `stopped` early, if it did): a run
  // that stopped early (cancelled, out of memory at a size) still replaces the kept one when it
  // measured a point. Returns why it stopped, or the job's failure.
  Status collectSweep() requires requires(T t) {
    t.points.empty();
    t.stopped;
  }
  {
    std::optional<T> run;
    const Status failed = this->takeInto(run);
    if (!run) return failed;
    Status stopped = run->stopped;
    if (!run->points.empty()) kept_ = std::move(run);
    return stopped;
  }

  // The kept result, as an optional (to assign or reset it).
  std::optional<T>& kept() { return kept_; }
  const std::optional<T>& kept() const { return kept_; }
  // The kept result or nullptr, for a panel that takes a pointer.
  const T* get() const { return kept_ ? &*kept_ : nullptr; }

  explicit operator bool() const { return kept_.has_value(); }
  T& operator*() { return *kept_; }
  const T& operator*() const { return *kept_; }
  T* operator->() { return &*kept_; }
  const T* operator->() const { return &*kept_; }

 private:
  std::optional<T> kept_;
};

}  // namespace cudalab
