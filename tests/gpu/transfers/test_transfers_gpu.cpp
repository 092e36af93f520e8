// The transfers lesson on a real GPU: every mode and kernel gives the float64 reference's output
// element by element (outputs poisoned before every run), chains with and without round trips
// too; timelines measured from events are consistent (no two spans of one stream overlap, every
// span inside the wall time); pinned copies are not slower than pageable ones.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "transfers/transfers.hpp"

namespace cudalab {

using namespace transfers;
namespace {

void expectConsistent(const Timeline& t, const Plan& plan, const std::string& what) {
  ASSERT_EQ(t.spans.size(), plan.steps.size()) << what;
  EXPECT_FALSE(overlapsWithinStream(t)) << what;
  for (const Span& s : t.spans) {
    EXPECT_GE(s.startMs, 0.0) << what;
    EXPECT_GE(s.endMs, s.startMs) << what;
    EXPECT_LE(s.endMs, t.wallMs + 1e-3) << what;
  }
}

TEST(TransfersGpu, EveryModeAndKernelMatchesTheReference) {
  std::minstd_rand rng(20261121u);
  for (long long n : {1LL, 1000LL, 100003LL, (1LL << 20) + 3}) {
    for (const TransferOpInfo& op : transferOps()) {
      TransferParams p;
      p.op = op.op;
      p.n = std::max(n, 1024LL);  // the lesson's smallest N...
      p.calls = 3;
      p.streams = 2 + static_cast<int>(rng() % 7);
      p.chunksPerStream = 1 + static_cast<int>(rng() % 3);
      p.work = 1 + static_cast<int>(rng() % 500);
      auto session = TransferSession::create(p, static_cast<unsigned>(rng()));
      ASSERT_TRUE(session.ok()) << session.status().sentence();
      for (const TransferModeInfo& m : transferModes()) {
        // ...but a plan may cover fewer elements than the arrays hold: that is how N = 1 runs.
        TransferParams planned = p;
        planned.n = n;
        Plan plan = planMode(planned, m.mode);
        Result<PlanRun> r = (*session)->run(plan, RunOptions{1, 2, true}, nullptr);
        const std::string what = std::string(op.id) + " " + m.id + " n=" + std::to_string(n);
        ASSERT_TRUE(r.ok()) << what << ": " << r.status().sentence();
        if (n >= 1024) {
          EXPECT_TRUE(r->check.ok())
              << what << ": " << r->check.wrong << " wrong, first at " << r->check.firstWrong;
          EXPECT_EQ(r->check.checked, static_cast<size_t>(p.n)) << what;
        } else {
          // Only the first n elements were computed; the rest keep the poison and must be
          // reported wrong.
          EXPECT_EQ(r->check.wrong, static_cast<size_t>(p.n - n)) << what;
          EXPECT_EQ(r->check.firstWrong, static_cast<size_t>(n)) << what;
        }
        EXPECT_EQ(r->runs, 2);
        expectConsistent(r->timeline, plan, what);
      }
    }
  }
}

TEST(TransfersGpu, ChainsWithAndWithoutRoundTripsMatchTheReference) {
  for (int k = 1; k <= 8; k += 3) {
    TransferParams p;
    p.n = 65537;
    p.chain = k;
    auto session = TransferSession::create(p, 99u + k);
    ASSERT_TRUE(session.ok()) << session.status().sentence();
    for (bool trips : {true, false}) {
      Plan plan = planChain(p, trips);
      Result<PlanRun> r = (*session)->run(plan, RunOptions{1, 3, true}, nullptr);
      ASSERT_TRUE(r.ok()) << r.status().sentence();
      EXPECT_TRUE(r->check.ok()) << "k=" << k << " trips=" << trips << ": " << r->check.wrong;
      expectConsistent(r->timeline, plan, "chain");
      EXPECT_EQ(static_cast<int>(r->timeline.spans.size()), trips ? 3 * k : k + 2);
    }
  }
}

TEST(TransfersGpu, StreamsTimelinesUseEveryStream) {
  TransferParams p;
  p.op = TransferOp::Iterate;
  p.n = 1 << 22;
  p.calls = 2;
  p.streams = 4;
  p.chunksPerStream = 2;
  p.work = 64;
  auto session = TransferSession::create(p, 5u);
  ASSERT_TRUE(session.ok()) << session.status().sentence();
  Plan plan = planMode(p, TransferMode::Streams);
  Result<PlanRun> r = (*session)->run(plan, RunOptions{1, 3, false}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  EXPECT_TRUE(r->check.ok());
  expectConsistent(r->timeline, plan, "streams");
  std::vector<int> used(4, 0);
  for (const Span& s : r->timeline.spans)
    used[static_cast<size_t>(s.stream)]++;
  for (int u : used)
    EXPECT_EQ(u, 2 * 2 * 3);  // 2 calls x 2 chunks x (in, kernel, out)
}

// Whether pinned copies are faster than pageable ones is the benchmark's to show (bench
// transfers: the phase table per mode), never a test's: under a sanitizer or on a busy machine any
// order can come out. Here both modes must only move the right numbers.
TEST(TransfersGpu, PinnedAndPageableCopiesGiveTheSameCorrectResult) {
  TransferParams p;
  p.n = (1 << 20) + 3;
  p.calls = 1;
  auto session = TransferSession::create(p, 3u);
  ASSERT_TRUE(session.ok()) << session.status().sentence();
  Result<PlanRun> pageable =
      (*session)->run(planMode(p, TransferMode::Explicit), RunOptions{1, 2, true}, nullptr);
  Result<PlanRun> pinned =
      (*session)->run(planMode(p, TransferMode::ExplicitPinned), RunOptions{1, 2, true}, nullptr);
  ASSERT_TRUE(pageable.ok() && pinned.ok());
  EXPECT_TRUE(pageable->check.ok()) << pageable->check.wrong << " wrong";
  EXPECT_TRUE(pinned->check.ok()) << pinned->check.wrong << " wrong";
  EXPECT_EQ(pinned->check.checked, pageable->check.checked);
}

TEST(TransfersGpu, BadPlansAndCancelAreRefused) {
  TransferParams p;
  p.n = 4096;
  auto session = TransferSession::create(p, 1u);
  ASSERT_TRUE(session.ok());
  Plan plan = planMode(p, TransferMode::Explicit);
  plan.steps[0].count = 8192;
  EXPECT_FALSE((*session)->run(plan, RunOptions{}, nullptr).ok());
  plan = planMode(p, TransferMode::Explicit);
  plan.steps[0].buffer = Buffer::Y;  // doubling has no y
  EXPECT_FALSE((*session)->run(plan, RunOptions{}, nullptr).ok());
  std::atomic<bool> cancel{true};
  Result<PlanRun> r = (*session)->run(planMode(p, TransferMode::Explicit), RunOptions{}, &cancel);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().sentence().find("cancelled"), std::string::npos);
  TransferParams bad = p;
  bad.n = 10;
  EXPECT_FALSE(TransferSession::create(bad, 1u).ok());
}

TEST(TransfersGpu, PcieLinkWhenSysfsSaysSo) {
  std::optional<PcieLink> link = queryPcieLink(0);
  if (!link) GTEST_SKIP() << "sysfs does not describe this GPU's PCIe link";
  EXPECT_GE(link->generation, 1);
  EXPECT_GT(link->gbpsPerDirection(), 0.1);
  std::printf("link: %s\n", link->describe().c_str());
}

}  // namespace
}  // namespace cudalab
