// Runs one piece of work on a worker thread so the UI thread never waits on the GPU.
//
//   AsyncJob<Report> job;
//   job.start([params](AsyncJob<Report>::Control& c) -> Result<Report> {
//     c.progress(0.5f, "copying");            // shown by the UI while it runs
//     if (c.cancelled()) return Status::error("Measurement cancelled.");
//     return measure(params);
//   });
//   ... each frame:
//   if (job.running()) drawProgress(job.progress());
//   if (auto r = job.take()) show(*r);          // once, when it has finished
//   if (Status s = job.takeInto(report); !s) showError(s);   // the same, kept in an optional
//
// A sweep publishes points as they are measured, so they appear on the plot as they arrive:
//
//   AsyncJob<Summary, Point> sweep;
//   ... in the job: c.publish(point);
//   ... each frame:  for (Point& p : sweep.takePublished()) points.push_back(p);
//
// The destructor cancels and joins, so a lesson can be destroyed while its job runs. A fault armed
// with armFault() (tests, the soak) makes the next job's first GPU step fail with it.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/device_fault.hpp"
#include "common/status.hpp"

namespace cudalab {

struct JobProgress {
  float fraction = 0;
  std::string what;
};

struct NoPartial {};

template <class T, class Partial = NoPartial>
class AsyncJob {
 public:
  class Control {
   public:
    explicit Control(AsyncJob& job) : job_(job) {}
    bool cancelled() const { return job_.cancel_.load(); }
    const std::atomic<bool>* cancelFlag() const { return &job_.cancel_; }
    void progress(float fraction, std::string what) {
      std::lock_guard<std::mutex> lock(job_.mutex_);
      job_.progress_ = {fraction, std::move(what)};
    }
    // progress() as a callback, for the measurements that report through one.
    std::function<void(float, const std::string&)> progressFn() {
      return [this](float fraction, const std::string& what) { progress(fraction, what); };
    }
    void publish(Partial p) {
      std::lock_guard<std::mutex> lock(job_.mutex_);
      job_.published_.push_back(std::move(p));
    }

   private:
    AsyncJob& job_;
  };

  AsyncJob() = default;
  ~AsyncJob() {
    cancel();
    join();
  }
  AsyncJob(const AsyncJob&) = delete;
  AsyncJob& operator=(const AsyncJob&) = delete;

  // Starts `work` unless a job is already running (then returns false).
  bool start(std::function<Result<T>(Control&)> work) {
    if (running()) return false;
    join();
    cancel_ = false;
    running_ = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      result_.reset();
      progress_ = {};
      published_.clear();
    }
    thread_ = std::thread([this, work = std::move(work)] {
      Control control(*this);
      // An exception must not escape the thread (std::terminate would abort the app): it becomes
      // the job's Status like any other error.
      Result<T> r = Status::error("The job did not run.");
      try {
        // A fault armed for tests (common/device_fault.hpp) strikes here, as the job's first GPU
        // step; without one this does nothing.
        if (Status f = injectArmedFault(); !f)
          r = f;
        else
          r = work(control);
      } catch (const std::exception& e) {
        r = Status::error(std::string("Unexpected error: ") + e.what() + ".");
      } catch (...) {
        r = Status::error("Unexpected error in a worker thread.");
      }
      std::lock_guard<std::mutex> lock(mutex_);
      result_.emplace(std::move(r));
      running_ = false;
    });
    return true;
  }

  bool running() const { return running_.load(); }
  // Running, or finished with a result nobody has taken yet: what a lesson's busy() should use,
  // so a screenshot does not stop between the end of a job and the frame that shows its result.
  bool pending() const {
    if (running_.load()) return true;
    std::lock_guard<std::mutex> lock(mutex_);
    return result_.has_value();
  }
  void cancel() { cancel_ = true; }
  JobProgress progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_;
  }
  // What the job published since the last call, in order.
  std::vector<Partial> takePublished() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Partial> out;
    out.swap(published_);
    return out;
  }
  // The result, once, after the job has finished.
  std::optional<Result<T>> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<Result<T>> r = std::move(result_);
    result_.reset();
    return r;
  }

  // Moves a finished, successful result into `into`; returns the failure of a finished job that
  // failed, and ok when it succeeded or has not finished.
  Status takeInto(std::optional<T>& into) {
    std::optional<Result<T>> r = take();
    if (!r) return {};
    if (!r->ok()) return r->status();
    into = std::move(r->value());
    return {};
  }

 private:
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  std::thread thread_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> running_{false};
  mutable std::mutex mutex_;
  JobProgress progress_;
  std::optional<Result<T>> result_;
  std::vector<Partial> published_;
};

}  // namespace cudalab
