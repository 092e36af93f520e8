// A lesson's job together with the last result it delivered: a panel shows the latest measurement
// while the next one runs, and a failed run leaves the last good result on screen.
//
//   KeptJob<LadderReport> ladder_;
//   ladder_.start([p](auto& c) -> Result<LadderReport> { ... });  // AsyncJob's start, running, ...
//   ctx.errors(error_, {ladder_.collect()});   // each frame: a finished result replaces the kept
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
