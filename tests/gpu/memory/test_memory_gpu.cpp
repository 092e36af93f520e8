// The memory lesson's kernels on a real GPU: every transpose step (and both copies) gives exactly
// the CPU's transpose for sizes that are no multiple of 32 (1x1, 31x33, 1000x17 and random ones),
// outputs poisoned first and fresh random inputs every run; the strided copy writes exactly its
// elements and nothing between them; the measured ladder and sweep report correct results; every
// model-check kernel runs; a bad size is refused before any launch.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_raii.hpp"
#include "memory/memory.hpp"

namespace cudalab::mem {

using namespace memory;
namespace {

std::uint32_t seed() {
  return std::random_device{}();
}

// Runs one step on rows x cols random floats; returns the number of elements that differ from
// the CPU's answer (the transpose, or A itself for the copies).
std::size_t wrongElements(TransposeStep step, int rows, int cols, std::mt19937& rng) {
  const std::size_t n = std::size_t(rows) * std::size_t(cols);
  std::vector<float> a(n), want(n), got(n);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  for (float& v : a)
    v = u(rng);
  if (transposeStep(step).ceiling)
    want = a;
  else
    transposeCpu(a.data(), want.data(), rows, cols);
  DeviceArray<float> dA, dB;
  EXPECT_TRUE(dA.allocate(n).ok());
  EXPECT_TRUE(dB.allocate(n).ok());
  EXPECT_EQ(cudaMemcpy(dA.get(), a.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(dB.get(), 0xff, n * 4), cudaSuccess);  // poison: a NaN nobody writes
  const Status s = launchTranspose(step, dA.get(), dB.get(), rows, cols, nullptr);
  EXPECT_TRUE(s.ok()) << s.sentence();
  EXPECT_EQ(cudaMemcpy(got.data(), dB.get(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i]);
  return wrong;
}

TEST(MemoryGpu, EveryTransposeStepIsExactForAwkwardSizes) {
  const std::uint32_t sd = seed();
  SCOPED_TRACE("seed " + std::to_string(sd));
  std::mt19937 rng(sd);
  std::vector<std::pair<int, int>> sizes = {{1, 1},   {31, 33}, {1000, 17}, {17, 1000}, {32, 32},
                                            {33, 31}, {64, 96}, {1, 1000},  {1000, 1},  {257, 513}};
  std::uniform_int_distribution<int> d(1, 700);
  for (int i = 0; i < 6; ++i)
    sizes.emplace_back(d(rng), d(rng));
  for (const TransposeStepInfo& step : transposeSteps())
    for (auto [rows, cols] : sizes)
      EXPECT_EQ(wrongElements(step.step, rows, cols, rng), 0u)
          << step.id << " " << rows << "x" << cols;
}

TEST(MemoryGpu, MeasuredLadderIsCorrectAndComplete) {
  TransposeParams p;
  p.rows = 1000;
  p.cols = 777;
  p.warmup = 1;
  p.runs = 2;
  const Result<TransposeReport> r = measureTranspose(p);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  ASSERT_EQ(r->steps.size(), transposeSteps().size());
  for (const TransposeResult& t : r->steps) {
    EXPECT_TRUE(t.m.check.ok()) << transposeStep(t.step).id << ": " << t.m.check.wrong;
    EXPECT_EQ(t.m.check.checked, std::size_t(1000) * 777);
    EXPECT_GT(t.gbps, 0);
  }
  EXPECT_GT(r->ceilingGBps, 0);
}

TEST(MemoryGpu, StridedCopyWritesItsElementsAndNothingElse) {
  StridedParams p;
  p.count = (1 << 16) + 3;
  p.maxStride = 9;
  p.offset = 5;
  p.warmup = 0;
  p.runs = 1;
  const Result<StridedReport> r = measureStridedCopy(p);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  ASSERT_EQ(r->points.size(), 9u);
  for (const StridedPoint& pt : r->points) {
    EXPECT_TRUE(pt.m.check.ok()) << "stride " << pt.stride << ": " << pt.m.check.wrong;
    EXPECT_EQ(pt.m.check.checked, std::size_t(p.count));
    EXPECT_GT(pt.modelEfficiency, 0);
  }
}

TEST(MemoryGpu, StridedCopyStopsAtItsLastElement) {
  // Stride 1 over 2 * count elements: every one copied, the element past the end still poisoned.
  const long long count = 4096;
  DeviceArray<float> in, out;
  ASSERT_TRUE(in.allocate(2 * count + 1).ok());
  ASSERT_TRUE(out.allocate(2 * count + 1).ok());
  ASSERT_EQ(cudaMemset(in.get(), 0, (2 * count + 1) * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(out.get(), 0xff, (2 * count + 1) * 4), cudaSuccess);
  ASSERT_TRUE(launchStridedCopy(in.get(), out.get(), 2 * count, 1, 0, nullptr).ok());
  std::vector<float> host(2 * count + 1);
  ASSERT_EQ(cudaMemcpy(host.data(), out.get(), host.size() * 4, cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (long long i = 0; i < 2 * count; ++i)
    ASSERT_EQ(host[size_t(i)], 0.0f) << i;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(host.back()), 0xffffffffu);
}

TEST(MemoryGpu, EveryModelCheckKernelRuns) {
  for (const ModelCheckCase& c : modelCheckCases()) {
    const Status s = runModelKernel(c);
    EXPECT_TRUE(s.ok()) << c.label << ": " << s.sentence();
  }
}

TEST(MemoryGpu, BadSizesAreRefusedBeforeLaunch) {
  const Status bad = launchTranspose(TransposeStep::Naive, nullptr, nullptr, 0, 5, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.sentence().find("Rows"), std::string::npos) << bad.sentence();
}

}  // namespace
}  // namespace cudalab::mem
