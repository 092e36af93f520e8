// The transfers lesson's pure part: tables, validation and the memory sentence, plans (copies
// saved by a chain, what each mode enqueues), timelines, the model, the references, the CPU
// timing's output, the crossover and the PCIe link's arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "transfers/transfers.hpp"

namespace cudalab {

using namespace transfers;
namespace {

TEST(TransfersTables, EveryOpAndModeHasDistinctIdsAndText) {
  std::set<std::string> ids;
  for (const TransferOpInfo& o : transferOps()) {
    EXPECT_TRUE(ids.insert(o.id).second) << o.id;
    EXPECT_GT(std::string(o.help).size(), 20u);
    EXPECT_TRUE(o.inputs == 1 || o.inputs == 2);
    EXPECT_EQ(&transferOp(o.op), &o);
  }
  ids.clear();
  for (const TransferModeInfo& m : transferModes()) {
    EXPECT_TRUE(ids.insert(m.id).second) << m.id;
    EXPECT_EQ(&transferMode(m.mode), &m);
    if (m.streams) {
      EXPECT_TRUE(m.pinned) << "overlap needs page-locked host memory";
    }
  }
  EXPECT_EQ(transferModes().size(), 5u);
  EXPECT_EQ(chainKernels().size(), 3u);
  EXPECT_EQ(flopsPerElement(TransferOp::Iterate, 100), 200);
}

TEST(TransfersParams, DefaultsAreValidAndEveryFieldIsChecked) {
  TransferParams p;
  EXPECT_TRUE(validate(p).ok());
  auto bad = [](auto edit) {
    TransferParams q;
    edit(q);
    return validate(q);
  };
  EXPECT_FALSE(bad([](TransferParams& q) { q.n = 512; }).ok());
  EXPECT_FALSE(bad([](TransferParams& q) { q.n = (1LL << 28) + 1; }).ok());
  EXPECT_FALSE(bad([](TransferParams& q) { q.calls = 0; }).ok());
  EXPECT_FALSE(bad([](TransferParams& q) { q.streams = 1; }).ok());
  EXPECT_FALSE(bad([](TransferParams& q) { q.streams = 9; }).ok());
  EXPECT_FALSE(bad([](TransferParams& q) { q.chunksPerStream = 0; }).ok());
  EXPECT_FALSE(bad([](TransferParams& q) { q.work = 0; }).ok());
  EXPECT_FALSE(bad([](TransferParams& q) { q.chain = 9; }).ok());
  Status s = bad([](TransferParams& q) { q.n = 100; });
  EXPECT_NE(s.sentence().find("Elements N"), std::string::npos) << s.sentence();
}

TEST(TransfersParams, MemoryCheckNamesArraysSizesAndTheLargestNThatFits) {
  TransferParams p;
  p.op = TransferOp::Axpy;
  p.n = 1LL << 28;  // 3 arrays of 1 GiB
  EXPECT_EQ(deviceBytesNeeded(p), 3ull << 30);
  EXPECT_EQ(hostBytesNeeded(p, true), 6ull << 30);
  EXPECT_TRUE(checkMemory(p, 80ull << 30, 100ull << 30, true).ok());

  Status dev = checkMemory(p, 2ull << 30, 100ull << 30, false);
  ASSERT_FALSE(dev.ok());
  const std::string d = dev.sentence();
  EXPECT_NE(d.find("268,435,456"), std::string::npos) << d;
  EXPECT_NE(d.find("3.00 GiB on the device"), std::string::npos) << d;
  EXPECT_NE(d.find("x, y and the output"), std::string::npos) << d;
  // 0.9 * 2 GiB / 12 bytes = 161,061,273 elements; the power of two below is 2^27.
  EXPECT_NE(d.find("161,061,273"), std::string::npos) << d;
  EXPECT_NE(d.find("2^27"), std::string::npos) << d;

  Status host = checkMemory(p, 80ull << 30, 4ull << 30, true);
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.sentence().find("host memory"), std::string::npos) << host.sentence();
  EXPECT_NE(host.sentence().find("pinned"), std::string::npos) << host.sentence();
  // Without pinned arrays the same host has room.
  EXPECT_TRUE(checkMemory(p, 80ull << 30, 4ull << 30, false).ok());
}

TransferParams small(TransferOp op, int calls) {
  TransferParams p;
  p.op = op;
  p.n = 1000;
  p.calls = calls;
  return p;
}

TEST(TransfersPlans, ImplicitCopiesEveryCallExplicitOnce) {
  TransferParams p = small(TransferOp::Axpy, 10);
  Plan imp = planMode(p, TransferMode::Implicit);
  EXPECT_EQ(imp.copies(SpanKind::HostToDevice), 20);  // x and y, ten times
  EXPECT_EQ(imp.copies(SpanKind::Kernel), 10);
  EXPECT_EQ(imp.copies(SpanKind::DeviceToHost), 10);
  EXPECT_FALSE(imp.pinned);
  EXPECT_DOUBLE_EQ(imp.bytes(SpanKind::HostToDevice), 20 * 4000.0);

  Plan exp = planMode(p, TransferMode::ExplicitPinned);
  EXPECT_EQ(exp.copies(SpanKind::HostToDevice), 2);
  EXPECT_EQ(exp.copies(SpanKind::Kernel), 10);
  EXPECT_EQ(exp.copies(SpanKind::DeviceToHost), 1);
  EXPECT_TRUE(exp.pinned);
  EXPECT_EQ(exp.steps.back().kind, SpanKind::DeviceToHost);
}

TEST(TransfersPlans, StreamsCoverEveryElementOnceWithChunksRoundRobin) {
  for (long long n : {1000LL, 1024LL, 3LL, 1LL}) {
    TransferParams p = small(TransferOp::Double, 2);
    p.n = n;
    p.streams = 3;
    p.chunksPerStream = 2;
    Plan plan = planMode(p, TransferMode::Streams);
    EXPECT_EQ(plan.streams, 3);
    EXPECT_TRUE(plan.pinned);
    for (int call = 0; call < 2; ++call) {
      std::vector<int> covered(static_cast<size_t>(n), 0);
      for (const PlanStep& s : plan.steps) {
        if (s.call != call || s.kind != SpanKind::Kernel) continue;
        EXPECT_EQ(s.stream, s.chunk % 3);
        for (size_t i = s.offset; i < s.offset + s.count; ++i)
          covered[i]++;
      }
      for (long long i = 0; i < n; ++i)
        ASSERT_EQ(covered[static_cast<size_t>(i)], 1) << n << " " << i;
    }
    // Each chunk goes in, through the kernel and out on one stream, in that order.
    for (size_t i = 0; i + 2 < plan.steps.size(); i += 3) {
      EXPECT_EQ(plan.steps[i].kind, SpanKind::HostToDevice);
      EXPECT_EQ(plan.steps[i + 1].kind, SpanKind::Kernel);
      EXPECT_EQ(plan.steps[i + 2].kind, SpanKind::DeviceToHost);
      EXPECT_EQ(plan.steps[i].stream, plan.steps[i + 2].stream);
    }
  }
}

TEST(TransfersPlans, ChainWithoutRoundTripsSavesTwoKMinusOneCopies) {
  for (int k = 1; k <= 8; ++k) {
    TransferParams p = small(TransferOp::Double, 1);
    p.chain = k;
    Plan trips = planChain(p, true), resident = planChain(p, false);
    const int tripCopies =
        trips.copies(SpanKind::HostToDevice) + trips.copies(SpanKind::DeviceToHost);
    const int residentCopies =
        resident.copies(SpanKind::HostToDevice) + resident.copies(SpanKind::DeviceToHost);
    EXPECT_EQ(tripCopies, 2 * k);
    EXPECT_EQ(residentCopies, 2);
    EXPECT_EQ(tripCopies - residentCopies, 2 * (k - 1));
    EXPECT_EQ(trips.copies(SpanKind::Kernel), k);
    EXPECT_EQ(resident.copies(SpanKind::Kernel), k);
    // After the first kernel, a round trip copies the host's output back in.
    for (const PlanStep& s : trips.steps)
      if (s.kind == SpanKind::HostToDevice) {
        EXPECT_EQ(s.fromHostOut, s.call > 0);
      }
  }
}

TEST(TransfersTimeline, PhaseTotalsOverlapAndPerStreamOrder) {
  Timeline t;
  t.streams = 2;
  t.spans = {{0, SpanKind::HostToDevice, 0, 2},
             {0, SpanKind::Kernel, 2, 5},
             {1, SpanKind::HostToDevice, 2, 4},
             {1, SpanKind::Kernel, 5, 6},
             {0, SpanKind::DeviceToHost, 5, 7}};
  const auto ph = t.phaseMs();
  EXPECT_DOUBLE_EQ(ph[0], 4);
  EXPECT_DOUBLE_EQ(ph[1], 4);
  EXPECT_DOUBLE_EQ(ph[2], 2);
  // Copies [0,4] and [5,7]; kernels [2,6]: overlap [2,4] and [5,6] = 3.
  EXPECT_DOUBLE_EQ(t.overlapMs(), 3);
  EXPECT_FALSE(overlapsWithinStream(t));
  t.spans.push_back({1, SpanKind::DeviceToHost, 5.5, 8});
  EXPECT_TRUE(overlapsWithinStream(t));
}

TEST(TransfersTimeline, AStreamWaitingForTheCopyEngineIsNotCountedTwice) {
  // Two streams reach their copies at 0; the engine serves stream 0 until 2, then stream 1 until
  // 4, but stream 1's events say 0..4. The host-to-device phase was busy for 4 ms, not 6.
  Timeline t;
  t.streams = 2;
  t.spans = {{0, SpanKind::HostToDevice, 0, 2}, {1, SpanKind::HostToDevice, 0, 4}};
  EXPECT_DOUBLE_EQ(t.phaseMs()[0], 4);
}

TEST(TransfersModel, CopiesAndKernelsFollowTheFormulas) {
  LinkModel m = referenceLink();
  EXPECT_GT(std::string(m.source).size(), 10u);
  // 55.5 GB/s: 555 MB take 10 ms, plus 10 us of latency.
  EXPECT_NEAR(modelCopyMs(m, 555e6, true, true), 10.01, 1e-9);
  EXPECT_NEAR(modelCopyMs(m, 100e6, true, false), 10.01, 1e-9);  // pageable 10 GB/s
  // Memory-bound: 4247 MB at 4247 GB/s = 1 ms; compute-bound: 66.9 GFLOP at 66.9 TFLOP/s = 1 ms.
  EXPECT_NEAR(modelKernelMs(m, 4247e6, 1), 1.004, 1e-9);
  EXPECT_NEAR(modelKernelMs(m, 1, 66.9e9), 1.004, 1e-9);
}

TEST(TransfersModel, StreamsOverlapAndSequentialModesDoNot) {
  LinkModel m = referenceLink();
  TransferParams p;
  p.op = TransferOp::Iterate;
  p.n = 1 << 24;
  p.calls = 1;
  p.streams = 4;
  // Choose the work so the kernel takes about as long as the copy in.
  const double n = static_cast<double>(p.n);
  const double copyMs = modelCopyMs(m, 4.0 * n, true, true);
  p.work = static_cast<int>(copyMs * m.fp32Gflops * 1e6 / (2.0 * n));
  Timeline seq = simulate(planMode(p, TransferMode::ExplicitPinned), p, m);
  Timeline str = simulate(planMode(p, TransferMode::Streams), p, m);
  EXPECT_FALSE(overlapsWithinStream(seq));
  EXPECT_FALSE(overlapsWithinStream(str));
  EXPECT_DOUBLE_EQ(seq.overlapMs(), 0);
  EXPECT_GT(str.overlapMs(), 0);
  // Three equal phases over 4 chunks: about (1 + 2/4) / 3 of the sequential time.
  EXPECT_GT(seq.wallMs / str.wallMs, 1.8);
  EXPECT_LT(seq.wallMs / str.wallMs, 2.1);
  // Pageable copies never overlap anything.
  Timeline pageable = simulate(planMode(p, TransferMode::Implicit), p, m);
  EXPECT_DOUBLE_EQ(pageable.overlapMs(), 0);
  // Implicit pays the copies every call, explicit once.
  p.calls = 10;
  p.op = TransferOp::Double;
  const double imp = simulate(planMode(p, TransferMode::Implicit), p, m).wallMs;
  const double exp = simulate(planMode(p, TransferMode::Explicit), p, m).wallMs;
  EXPECT_GT(imp, 5 * exp);
}

TEST(TransfersReference, KnownValues) {
  EXPECT_EQ(referenceOp(TransferOp::Double, 1.5f, 0, 0), 3.0);
  EXPECT_EQ(referenceOp(TransferOp::Axpy, 2.0f, 1.0f, 0), 6.0);
  EXPECT_EQ(referenceOp(TransferOp::Hypot, 3.0f, 4.0f, 0), 5.0);
  // v = 0.5: 0.5*0.5+0.5 = 0.75, 0.75*0.5+0.5 = 0.875.
  EXPECT_EQ(referenceOp(TransferOp::Iterate, 0.5f, 0, 2), 0.875);
  EXPECT_EQ(referenceOp(TransferOp::Iterate, 0.25f, 0, 0), 0.25);
  // foo, bar, baz: (3 * 2 + 1)^2 = 49.
  double v = 3;
  for (int j = 0; j < 3; ++j)
    v = referenceChain(j, v);
  EXPECT_EQ(v, 49.0);
}

TEST(TransfersReference, HostFloat32AgreesWithinToleranceAndPoisonFails) {
  std::vector<float> x(5000), y(5000), out(5000);
  fillRandom(x.data(), x.size(), 7);
  fillRandom(y.data(), y.size(), 8);
  for (float v : x)
    ASSERT_TRUE(v >= 0.0f && v < 1.0f);
  EXPECT_NE(x[0], y[0]);
  for (const TransferOpInfo& o : transferOps()) {
    const int work = 300;
    for (size_t i = 0; i < x.size(); ++i)
      out[i] = hostOp(o.op, x[i], y[i], work);
    Correctness c = checkOp(o.op, work, x.data(), y.data(), out.data(), x.size());
    EXPECT_TRUE(c.ok()) << o.id << " wrong " << c.wrong << " max rel " << c.maxRelError;
    out[1234] = std::nanf("");
    c = checkOp(o.op, work, x.data(), y.data(), out.data(), x.size());
    EXPECT_EQ(c.wrong, 1u) << o.id;
    EXPECT_EQ(c.firstWrong, 1234u);
    out[1234] = hostOp(o.op, x[1234], y[1234], work) * 1.001f;  // 0.1%: far outside
    EXPECT_EQ(checkOp(o.op, work, x.data(), y.data(), out.data(), x.size()).wrong, 1u) << o.id;
  }
  // The chain in float32 against its float64 reference.
  for (size_t i = 0; i < x.size(); ++i) {
    float v = x[i];
    for (int j = 0; j < 8; ++j)
      v = j % 3 == 0 ? v * 2 : j % 3 == 1 ? v + 1 : v * v;
    out[i] = v;
  }
  EXPECT_TRUE(checkChain(8, x.data(), out.data(), x.size()).ok());
  EXPECT_FALSE(checkChain(7, x.data(), out.data(), x.size()).ok());
}

TEST(TransfersCpu, TimesBothWaysAndProducesTheReference) {
  TransferParams p;
  p.op = TransferOp::Hypot;
  p.n = 100003;
  p.calls = 4;
  std::vector<float> x(p.n), y(p.n), out(p.n, std::nanf(""));
  fillRandom(x.data(), x.size(), 1);
  fillRandom(y.data(), y.size(), 2);
  Result<CpuTiming> t = timeCpu(p, x.data(), y.data(), out.data(), 3, nullptr);
  ASSERT_TRUE(t.ok()) << t.status().sentence();
  EXPECT_GT(t->oneThreadMs, 0);
  EXPECT_GT(t->allCoresMs, 0);
  EXPECT_GE(t->threads, 1);
  EXPECT_TRUE(t->check.ok());
  EXPECT_EQ(t->check.checked, static_cast<size_t>(p.n));
  // A missing y for a two-input op is refused, not read.
  EXPECT_FALSE(timeCpu(p, x.data(), nullptr, out.data(), 1, nullptr).ok());
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(timeCpu(p, x.data(), y.data(), out.data(), 2, &cancel).ok());
}

TEST(TransfersReference, ExpensiveReferencesAreSampledButEdgesAlwaysChecked) {
  EXPECT_EQ(checkStride(TransferOp::Double, 0, 1u << 28), 1u);
  EXPECT_EQ(checkStride(TransferOp::Iterate, 16, 1u << 24), 1u);  // 2^28: still every element
  EXPECT_EQ(checkStride(TransferOp::Iterate, 2048, 1u << 26), 512u);
  const size_t n = 1 << 20;
  const int work = 1024;  // 2^30 reference operations: stride 4
  ASSERT_EQ(checkStride(TransferOp::Iterate, work, n), 4u);
  // Only the sampled elements are computed; the others keep the poison, which the check skips.
  std::vector<float> x(n), out(n, std::nanf(""));
  fillRandom(x.data(), n, 3);
  for (size_t i = 0; i < n; ++i)
    if (i < kCheckEdge || i + kCheckEdge >= n || i % 4 == 0)
      out[i] = hostOp(TransferOp::Iterate, x[i], 0, work);
  Correctness c = checkOp(TransferOp::Iterate, work, x.data(), nullptr, out.data(), n);
  EXPECT_TRUE(c.ok()) << c.wrong;
  EXPECT_EQ(c.checked, 2 * kCheckEdge + (n - 2 * kCheckEdge) / 4);
  // Poison at the start, at the end and on a sampled index is found.
  for (size_t bad : {size_t(0), n - 1, size_t(100000)}) {
    const float keep = out[bad];
    out[bad] = std::nanf("");
    c = checkOp(TransferOp::Iterate, work, x.data(), nullptr, out.data(), n);
    EXPECT_EQ(c.wrong, 1u) << bad;
    EXPECT_EQ(c.firstWrong, bad);
    out[bad] = keep;
  }
}

TEST(TransfersCpu, VeryLongCpuRunsAreTimedOnAPrefixAndScaled) {
  TransferParams p;
  p.op = TransferOp::Iterate;
  p.n = 1 << 20;
  p.work = 16384;  // 2^34 operations on one thread would take many seconds
  p.calls = 1;
  std::vector<float> x(p.n), out(p.n, std::nanf(""));
  fillRandom(x.data(), x.size(), 4);
  Result<CpuTiming> t = timeCpu(p, x.data(), nullptr, out.data(), 1, nullptr);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->timedElements, (1u << 26) / 16384u);
  EXPECT_TRUE(t->check.ok());
  EXPECT_EQ(t->check.checked, t->timedElements);
  EXPECT_GT(t->oneThreadMs, 0);
}

TEST(TransfersCrossover, InterpolatesInLogLogAndIgnoresNoise) {
  const std::vector<double> ns = {1e3, 1e4, 1e5, 1e6};
  // GPU / CPU = 10, 1, 0.1, 0.01 -> equal exactly at 1e4? gpu < cpu is strict, so the crossover
  // lies between 1e4 (ratio 1, not faster) and 1e5: log ratio 0 at 1e4 itself.
  EXPECT_NEAR(*findCrossover(ns, {10, 1, 0.1, 0.01}, {1, 1, 1, 1}), 1e4, 1e-6);
  // Ratio 4 at 1e4 and 0.25 at 1e5: equal halfway in log, at 10^4.5.
  EXPECT_NEAR(*findCrossover(ns, {40, 4, 0.25, 0.1}, {1, 1, 1, 1}), std::pow(10, 4.5), 1e-3);
  // Faster everywhere: the first size.
  EXPECT_EQ(*findCrossover(ns, {0.1, 0.1, 0.1, 0.1}, {1, 1, 1, 1}), 1e3);
  // Never faster, or not faster at the largest size: none.
  EXPECT_FALSE(findCrossover(ns, {2, 2, 2, 2}, {1, 1, 1, 1}).has_value());
  EXPECT_FALSE(findCrossover(ns, {2, 0.5, 0.5, 2}, {1, 1, 1, 1}).has_value());
  // Faster at a small size by noise, then slower, then faster for good: the last crossing counts.
  EXPECT_NEAR(*findCrossover(ns, {0.5, 4, 0.25, 0.1}, {1, 1, 1, 1}), std::pow(10, 4.5), 1e-3);
  EXPECT_FALSE(findCrossover({}, {}, {}).has_value());
}

TEST(TransfersPcie, ParsesSysfsAndComputesTheCeiling) {
  auto g5 = parsePcieLink("32.0 GT/s PCIe", "16");
  ASSERT_TRUE(g5.has_value());
  EXPECT_EQ(g5->generation, 5);
  EXPECT_NEAR(g5->gbpsPerDirection(), 32.0 * 16 * 128 / 130 / 8, 1e-9);  // 63.0 GB/s
  EXPECT_EQ(g5->describe(), "PCIe 5.0 x16, 63.0 GB/s each way");
  auto g4 = parsePcieLink("16.0 GT/s PCIe", "8");
  ASSERT_TRUE(g4.has_value());
  EXPECT_NEAR(g4->gbpsPerDirection(), 15.75, 0.01);
  auto g1 = parsePcieLink("2.5 GT/s PCIe", "16");
  ASSERT_TRUE(g1.has_value());
  EXPECT_EQ(g1->generation, 1);
  EXPECT_NEAR(g1->gbpsPerDirection(), 4.0, 1e-9);  // 8b/10b
  EXPECT_FALSE(parsePcieLink("Unknown", "16").has_value());
  EXPECT_FALSE(parsePcieLink("32.0 GT/s PCIe", "0").has_value());
  EXPECT_FALSE(parsePcieLink("", "").has_value());
  EXPECT_FALSE(parsePcieLink("7.0 GT/s", "4").has_value());
}

}  // namespace
}  // namespace cudalab
