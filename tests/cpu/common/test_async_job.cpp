// AsyncJob: results come back once, published points in order, exceptions become a Status, and
// pending() covers the moment between the end of the job and the taking of its result.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "common/async_job.hpp"

namespace cudalab {
namespace {

template <class Job>
void waitUntilDone(Job& job) {
  while (job.running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(AsyncJob, ResultOncePublishedInOrderAndPendingUntilTaken) {
  AsyncJob<int, int> job;
  ASSERT_TRUE(job.start([](AsyncJob<int, int>::Control& c) -> Result<int> {
    for (int i = 0; i < 5; ++i)
      c.publish(i);
    c.progress(1.0f, "done");
    return 42;
  }));
  waitUntilDone(job);
  EXPECT_TRUE(job.pending()) << "finished but not taken yet";
  std::vector<int> got = job.takePublished();
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4}));
  auto r = job.take();
  ASSERT_TRUE(r.has_value());
  ASSERT_TRUE(r->ok());
  EXPECT_EQ(**r, 42);
  EXPECT_FALSE(job.pending());
  EXPECT_FALSE(job.take().has_value()) << "only once";
}

TEST(AsyncJob, ExceptionBecomesAStatus) {
  AsyncJob<int> job;
  job.start([](AsyncJob<int>::Control&) -> Result<int> { throw std::runtime_error("boom"); });
  waitUntilDone(job);
  auto r = job.take();
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->ok());
  EXPECT_NE(r->status().message().find("boom"), std::string::npos);
}

TEST(AsyncJob, CancelIsSeenByTheJobAndDestructionJoins) {
  auto job = std::make_unique<AsyncJob<int>>();
  job->start([](AsyncJob<int>::Control& c) -> Result<int> {
    while (!c.cancelled())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Status::error("Cancelled.");
  });
  EXPECT_FALSE(job->start([](AsyncJob<int>::Control&) -> Result<int> { return 1; }))
      << "one job at a time";
  job.reset();  // cancels and joins; must not hang or crash
  SUCCEED();
}

}  // namespace
}  // namespace cudalab
