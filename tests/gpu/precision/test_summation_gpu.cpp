// Summation error on a real GPU: the tree reduction gives the CPU emulation's sum bit for bit for
// many shapes and sizes (N below blocks*threads, N = 1 and 0, sizes that are no multiple of
// anything, 2^24 + 3), on fresh random inputs; sumAll with the GPU reports where the tree ran
// and matches the CPU run; sumGrowth's prefixes summed on the device equal the CPU emulation;
// refused shapes and prefixes come back as errors.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "precision/summation.hpp"
#include "tests/gpu/sanitizing.hpp"

namespace cudalab::precision {
namespace {

uint32_t bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

std::string describe(size_t n, TreeShape t) {
  return "n=" + std::to_string(n) + " blocks=" + std::to_string(t.blocks) +
         " threads=" + std::to_string(t.threads);
}

TEST(SummationGpu, TreeEqualsTheCpuEmulationBitForBit) {
  std::mt19937_64 rng(20261207u);
  // Under a sanitizer (racecheck takes minutes per 2^24 numbers) the largest grid and size are
  // left out: the smaller ones take the same paths, a grid of one block to thousands.
  const bool small = testing_support::underSanitizer();
  const TreeShape shapes[] = {defaultTreeShape(), {1, 32},    {1, 1024},    {7, 64},
                              {300, 128},         {2048, 32}, {65535, 1024}};
  for (const TreeShape& t : shapes) {
    if (small && t.blocks == 65535) continue;
    const size_t grid = static_cast<size_t>(t.blocks) * static_cast<size_t>(t.threads);
    for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{1000}, grid - 1, grid + 1,
                     size_t{1000003}, (size_t{1} << 24) + 3}) {
      if (small && n > size_t{1000003}) continue;
      const std::vector<float> x = normalFloats(n, rng());
      const Result<float> g = sumTreeGpu(x, t);
      ASSERT_TRUE(g.ok()) << describe(n, t) << ": " << g.status().sentence();
      const float c = sumTreeOrderCpu(x, t);
      EXPECT_EQ(bits(*g), bits(c)) << describe(n, t) << ": GPU " << *g << ", CPU " << c;
    }
  }
}

TEST(SummationGpu, RandomShapesAndSizes) {
  std::mt19937_64 rng(99u);
  for (int trial = 0; trial < 24; ++trial) {
    TreeShape t;
    t.blocks = 1 + static_cast<int>(rng() % 4096);
    t.threads = 32 << (rng() % 6);
    const size_t n = 1 + static_cast<size_t>(rng() % (size_t{1} << 22));
    // Not only normal numbers: a wide range of magnitudes makes every rounding matter.
    std::vector<float> x = normalFloats(n, rng());
    for (size_t i = 0; i < n; i += 1 + static_cast<size_t>(rng() % 97))
      x[i] = std::ldexp(x[i], static_cast<int>(rng() % 41) - 20);
    const Result<float> g = sumTreeGpu(x, t);
    ASSERT_TRUE(g.ok()) << describe(n, t) << ": " << g.status().sentence();
    EXPECT_EQ(bits(*g), bits(sumTreeOrderCpu(x, t))) << describe(n, t);
  }
}

TEST(SummationGpu, SumAllOnTheGpuMatchesTheCpuRun) {
  for (size_t n : {size_t{5000}, (size_t{1} << 22) + 7}) {
    const std::vector<float> x = normalFloats(n, 1234 + n);
    const Result<SumResults> gpu = sumAll(x, true);
    ASSERT_TRUE(gpu.ok()) << gpu.status().sentence();
    const Result<SumResults> cpu = sumAll(x, false);
    ASSERT_TRUE(cpu.ok()) << cpu.status().sentence();
    EXPECT_TRUE(gpu->treeOnGpu);
    EXPECT_FALSE(cpu->treeOnGpu);
    EXPECT_EQ(gpu->n, n);
    EXPECT_EQ(gpu->exact, cpu->exact);
    EXPECT_EQ(gpu->absSum, cpu->absSum);
    for (int m = 0; m < kSumMethodCount; ++m) {
      EXPECT_EQ(gpu->value[m], cpu->value[m]) << sumMethods()[static_cast<size_t>(m)].id;
      EXPECT_EQ(gpu->error[m], cpu->error[m]) << sumMethods()[static_cast<size_t>(m)].id;
    }
    const float tree = sumTreeOrderCpu(x, defaultTreeShape());
    EXPECT_EQ(gpu->value[static_cast<int>(SumMethod::GpuTree)], static_cast<double>(tree));
  }
}

TEST(SummationGpu, GrowthOnTheGpuEqualsTheCpu) {
  const std::vector<float> x = normalFloats((size_t{1} << 21) + 3, 8);
  const std::vector<size_t> sizes = growthSizes(x.size());
  double last = -1;
  const Result<std::vector<SumResults>> gpu =
      sumGrowth(x, sizes, true, [&](double f) { last = f; });
  ASSERT_TRUE(gpu.ok()) << gpu.status().sentence();
  const Result<std::vector<SumResults>> cpu = sumGrowth(x, sizes, false);
  ASSERT_TRUE(cpu.ok()) << cpu.status().sentence();
  ASSERT_EQ(gpu->size(), sizes.size());
  ASSERT_EQ(cpu->size(), sizes.size());
  EXPECT_DOUBLE_EQ(last, 1.0);
  const int tree = static_cast<int>(SumMethod::GpuTree);
  for (size_t k = 0; k < sizes.size(); ++k) {
    EXPECT_TRUE((*gpu)[k].treeOnGpu);
    EXPECT_EQ((*gpu)[k].n, sizes[k]);
    EXPECT_EQ((*gpu)[k].value[tree], (*cpu)[k].value[tree]) << "size " << sizes[k];
    EXPECT_EQ((*gpu)[k].error[tree], (*cpu)[k].error[tree]) << "size " << sizes[k];
    EXPECT_EQ((*gpu)[k].value[static_cast<int>(SumMethod::Kahan)],
              (*cpu)[k].value[static_cast<int>(SumMethod::Kahan)]);
  }

  std::atomic<bool> cancel{true};
  const Result<std::vector<SumResults>> c = sumGrowth(x, sizes, true, {}, &cancel);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "Cancelled.");
}

TEST(SummationGpu, RefusedShapesAndSizesAreErrors) {
  const std::vector<float> x = normalFloats(1000, 1);
  for (TreeShape t :
       {TreeShape{0, 256}, TreeShape{70000, 256}, TreeShape{16, 48}, TreeShape{16, 2048}}) {
    const Result<float> g = sumTreeGpu(x, t);
    ASSERT_FALSE(g.ok()) << describe(x.size(), t);
    EXPECT_EQ(g.status().cudaCode(), 0);  // refused before any CUDA call
    EXPECT_FALSE(g.status().message().empty());
  }
  const size_t tooMany[] = {1024, 2000};
  const Result<std::vector<SumResults>> r = sumGrowth(x, tooMany, true);
  EXPECT_FALSE(r.ok());
  // The device is still usable afterwards.
  const Result<float> ok = sumTreeGpu(x, defaultTreeShape());
  ASSERT_TRUE(ok.ok()) << ok.status().sentence();
  EXPECT_EQ(bits(*ok), bits(sumTreeOrderCpu(x, defaultTreeShape())));
}

}  // namespace
}  // namespace cudalab::precision
