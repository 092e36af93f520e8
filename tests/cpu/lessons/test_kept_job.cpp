// KeptJob: a finished job's result replaces the kept one, a failure leaves it; a sweep that stops
// early keeps the points it measured, and one that measured none leaves the last sweep on screen.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "core/kept_job.hpp"

namespace cudalab {
namespace {

template <class Job>
void waitUntilDone(Job& job) {
  while (job.running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

struct Sweep {
  std::vector<int> points;
  Status stopped;
};

int freshValue() {
  static std::mt19937 rng(std::random_device{}());
  return std::uniform_int_distribution<int>(1, 1 << 20)(rng);
}

TEST(KeptJob, AResultReplacesTheKeptOneAndAFailureLeavesIt) {
  KeptJob<int> job;
  EXPECT_FALSE(job) << "nothing delivered yet";
  EXPECT_EQ(job.get(), nullptr);
  const int first = freshValue();
  ASSERT_TRUE(job.start([first](auto&) -> Result<int> { return first; }));
  waitUntilDone(job);
  EXPECT_TRUE(job.collect().ok());
  ASSERT_TRUE(job);
  EXPECT_EQ(*job, first);
  ASSERT_TRUE(job.start([](auto&) -> Result<int> { return Status::error("It failed."); }));
  waitUntilDone(job);
  const Status s = job.collect();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "It failed.");
  ASSERT_NE(job.get(), nullptr);
  EXPECT_EQ(*job.get(), first) << "a failure leaves the last good result";
  EXPECT_TRUE(job.collect().ok()) << "taken once";
  job.kept().reset();
  EXPECT_FALSE(job);
}

TEST(KeptJob, ASweepThatStopsEarlyKeepsItsPoints) {
  KeptJob<Sweep> sweep;
  const std::vector<int> all = {freshValue(), freshValue(), freshValue()};
  ASSERT_TRUE(sweep.start([all](auto&) -> Result<Sweep> { return Sweep{all, {}}; }));
  waitUntilDone(sweep);
  EXPECT_TRUE(sweep.collectSweep().ok());
  ASSERT_TRUE(sweep);
  EXPECT_EQ(sweep->points, all);

  // Stopped after two points: they replace the kept sweep, and why it stopped comes back.
  const std::vector<int> two = {freshValue(), freshValue()};
  ASSERT_TRUE(sweep.start([two](auto&) -> Result<Sweep> {
    return Sweep{two, Status::error("Out of memory at 8192.")};
  }));
  waitUntilDone(sweep);
  const Status stopped = sweep.collectSweep();
  EXPECT_EQ(stopped.message(), "Out of memory at 8192.");
  ASSERT_TRUE(sweep);
  EXPECT_EQ(sweep->points, two);

  // Stopped before its first point: the last sweep stays.
  ASSERT_TRUE(sweep.start([](auto&) -> Result<Sweep> {
    return Sweep{{}, Status::error("Measurement cancelled.")};
  }));
  waitUntilDone(sweep);
  EXPECT_EQ(sweep.collectSweep().message(), "Measurement cancelled.");
  EXPECT_EQ(sweep->points, two);

  // The job itself failing: its failure, and the kept sweep untouched.
  ASSERT_TRUE(sweep.start([](auto&) -> Result<Sweep> { return Status::error("No device."); }));
  waitUntilDone(sweep);
  EXPECT_EQ(sweep.collectSweep().message(), "No device.");
  EXPECT_EQ(sweep->points, two);
}

}  // namespace
}  // namespace cudalab
