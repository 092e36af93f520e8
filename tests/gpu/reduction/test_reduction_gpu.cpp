// The reduction lesson's kernels on a real GPU: every step (Harris's seven, shuffle, atomic, the
// course's kernel, CUB) on every type (int32, float32, float64) against the exact sum for N = 1,
// 2, 33, 1,000, 1,000,003 and the course's 2^27 - 157, on fresh random numbers (int32 equal to the
// exact sum wrapped to 32 bits, floats within the step's error bound); every step with every
// block size from 64 to 1024; awkward N around the grid-stride kernels' vector width, grid and
// scalar tail; an int32 sum that overflows (the GPU wraps, the course's CPU finish adds its
// wrapped per-block sums in int64); the measured ladder (float32 and the course's int32 size)
// and the bandwidth sweep all verified; the occupancy limit of each step; bad block sizes, N = 0
// and too little memory refused before any launch.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "reduction/reduction.hpp"
#include "tests/gpu/sanitizing.hpp"

namespace cudalab::reduction {
namespace {

std::uint32_t seed() {
  return std::random_device{}();
}

constexpr int kBlocks[] = {64, 128, 256, 512, 1024};

// The course's N, or under a sanitizer (where racecheck takes minutes per 2^27 elements) 2^22 -
// 157: still many blocks, several grid-stride passes and the same odd tail.
long long largeN() {
  return testing_support::sanitizerSized(kCourseN, (1LL << 22) - 157);
}

std::string where(StepId step, DataType type, long long n, int block) {
  return std::string(stepInfo(step).key) + " " + typeLabel(type) + " N = " + std::to_string(n) +
         " block " + std::to_string(block);
}

// One reduction of `d` with `step`, checked against its CPU sums: int32 equal to the exact sum
// wrapped to 32 bits, floats finite and within the step's error bound.
void checkStep(StepId step, const HostData& d, const CpuSums& cpu, int block) {
  const long long n = d.size();
  const std::string at = where(step, d.type, n, block);
  const Result<double> r = reduceOnce(step, d, block);
  ASSERT_TRUE(r.ok()) << at << ": " << r.status().sentence();
  const double value = *r;
  if (d.type == DataType::Int32) {
    EXPECT_EQ(std::floor(value), value) << at;
    EXPECT_EQ(static_cast<std::int32_t>(static_cast<long long>(value)), wrapInt32(cpu.exact))
        << at << ": got " << value << ", exact " << static_cast<double>(cpu.exact);
    return;
  }
  const Result<long long> resident = residentBlocks(step, d.type, block);
  ASSERT_TRUE(resident.ok()) << at << ": " << resident.status().sentence();
  const double bound = errorBound(step, d.type, n, block, *resident, cpu.absSum);
  ASSERT_TRUE(std::isfinite(bound)) << at;
  EXPECT_TRUE(std::isfinite(value)) << at << ": got " << value;
  const double error = std::fabs(static_cast<double>(static_cast<long double>(value) - cpu.exact));
  EXPECT_LE(error, bound) << at << ": got " << value << ", exact " << static_cast<double>(cpu.exact)
                          << ", sum |x| " << cpu.absSum;
}

// Fresh random numbers of one type and size, every step in `which` on them.
void checkSteps(DataType type, long long n, std::uint32_t sd, int block,
                std::span<const StepId> which) {
  const HostData d = makeData(type, n, sd);
  ASSERT_EQ(d.size(), n);
  const CpuSums cpu = cpuSums(d);
  for (StepId step : which)
    checkStep(step, d, cpu, block);
}

// The main sweep for one type: the data is made once per N and every step runs on it, so the
// course's 2^27 - 157 (1 GiB for float64) is drawn and summed on the CPU only once.
void checkEverySize(DataType type) {
  const std::uint32_t sd = seed();
  SCOPED_TRACE("seed " + std::to_string(sd));
  for (long long n : {1LL, 2LL, 33LL, 1000LL, 1000003LL, largeN()})
    checkSteps(type, n, sd, 256, allStepIds());
}

TEST(ReductionGpu, EveryStepMatchesTheReferenceInt32) {
  checkEverySize(DataType::Int32);
}

TEST(ReductionGpu, EveryStepMatchesTheReferenceFloat32) {
  checkEverySize(DataType::Float32);
}

TEST(ReductionGpu, EveryStepMatchesTheReferenceFloat64) {
  checkEverySize(DataType::Float64);
}

TEST(ReductionGpu, EveryStepWithEveryBlockSize) {
  const std::uint32_t sd = seed();
  SCOPED_TRACE("seed " + std::to_string(sd));
  const HostData f = makeData(DataType::Float32, 1000003, sd);
  const HostData i = makeData(DataType::Int32, 4097, sd);
  const CpuSums fc = cpuSums(f), ic = cpuSums(i);
  for (int block : kBlocks)
    for (StepId step : allStepIds()) {
      checkStep(step, f, fc, block);
      checkStep(step, i, ic, block);
    }
}

// N around the grid-stride kernels' shapes: the 16-byte loads leave a scalar tail when N is not a
// multiple of the vector width (4 numbers, 2 for float64); a grid of 1, 2, just under, at and just
// over the resident limit; 4 R + 3 blocks' worth, so threads run the four-loads-in-flight loop,
// then the one-load loop, then the tail.
TEST(ReductionGpu, AwkwardSizesForTheGridStrideSteps) {
  const std::uint32_t sd = seed();
  SCOPED_TRACE("seed " + std::to_string(sd));
  constexpr int kBlock = 256;
  for (DataType type : kTypes) {
    const Result<long long> resident = residentBlocks(StepId::Shuffle, type, kBlock);
    ASSERT_TRUE(resident.ok()) << resident.status().sentence();
    const long long R = *resident, w = vectorWidth(type);
    std::vector<long long> sizes = {3, 5, 7, (1LL << 20) + 3};
    for (long long k : {1LL, 2LL, R - 1, R, R + 1, 4 * R + 3}) {
      if (k < 1) continue;
      sizes.push_back(w * kBlock * k - 1);
      sizes.push_back(w * kBlock * k + 1);
    }
    for (long long n : sizes) {
      if (n < 1) continue;
      checkSteps(type, n, sd, kBlock, allStepIds());
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// 1,000 x 2,000,000,000 = 2 x 10^12 does not fit in 32 bits.
TEST(ReductionGpu, Int32OverflowWrapsOnTheGpu) {
  HostData d;
  d.type = DataType::Int32;
  d.i32.assign(1000, 2000000000);
  const CpuSums cpu = cpuSums(d);
  ASSERT_EQ(cpu.exact, 2000000000000.0L);
  const std::int32_t wrapped = wrapInt32(cpu.exact);
  EXPECT_EQ(wrapped, -1454759936);  // 2 x 10^12 - 466 x 2^32
  for (StepId step : allStepIds()) {
    const std::string at = stepInfo(step).key;
    const Result<double> r = reduceOnce(step, d, 256);
    ASSERT_TRUE(r.ok()) << at << ": " << r.status().sentence();
    const double value = *r;
    if (step != StepId::Course) {
      // Every addition is an int32 addition on the GPU: the sum wraps, as a 32-bit value.
      EXPECT_EQ(value, static_cast<double>(wrapped)) << at;
      EXPECT_EQ(static_cast<std::int32_t>(value), wrapped) << at;
      continue;
    }
    // The course's kernel sums each block of 128 numbers in place in the int32 array, so each
    // block's partial sum wraps to 32 bits on its own (128 x 2e9 becomes -1,698,037,760; the last
    // block's 104 x 2e9 becomes 1,841,569,792). The CPU then adds the 8 partial sums in int64, as
    // NumPy's sum of an int32 array does, without wrapping again: 7 x -1,698,037,760 +
    // 1,841,569,792 = -10,044,694,528. That is neither the exact sum (2 x 10^12, NumPy's answer
    // on the CPU) nor the 32-bit wrap of the other steps, but it is congruent to both modulo
    // 2^32, so its low 32 bits are the wrapped sum (which is what the ladder's check compares).
    long long partials = 0;
    for (std::size_t b = 0; b < d.i32.size(); b += kCourseBlock) {
      long long block = 0;
      for (std::size_t i = b; i < b + kCourseBlock && i < d.i32.size(); ++i)
        block += d.i32[i];
      partials += wrapInt32(static_cast<long double>(block));
    }
    EXPECT_EQ(partials, -10044694528LL);
    EXPECT_EQ(value, static_cast<double>(partials)) << at;
    EXPECT_NE(static_cast<long double>(value), cpu.exact) << at;
    EXPECT_EQ(static_cast<std::int32_t>(static_cast<long long>(value)), wrapped) << at;
  }
}

TEST(ReductionGpu, MeasuredLadderFloat32) {
  const std::span<const StepId> which = allStepIds();
  const Result<LadderReport> r =
      measureLadder(ReduceParams{DataType::Float32, 1000003, 256, 1, 3}, which);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  EXPECT_EQ(r->p.n, 1000003);
  EXPECT_FALSE(r->device.empty());
  EXPECT_GT(r->sms, 0);
  ASSERT_EQ(r->steps.size(), which.size());
  for (std::size_t i = 0; i < which.size(); ++i) {
    const StepResult& s = r->steps[i];
    const char* key = stepInfo(s.step).key;
    EXPECT_EQ(s.step, which[i]);
    EXPECT_EQ(r->find(s.step), &s);
    EXPECT_TRUE(s.ok) << key << ": value " << s.value << ", error " << s.error << ", bound "
                      << s.bound;
    EXPECT_TRUE(std::isfinite(s.value)) << key;
    EXPECT_TRUE(std::isfinite(s.bound)) << key;
    EXPECT_LE(std::fabs(s.error), s.bound) << key;
    EXPECT_GT(s.gbps, 0) << key;
    EXPECT_FALSE(s.plan.empty()) << key;
    EXPECT_GT(s.residentBlocks, 0) << key;
    EXPECT_GT(s.totalSpeedup, 0) << key;
    EXPECT_GT(s.ofLibrary, 0) << key;
    EXPECT_TRUE(s.m.check.ok()) << key;
  }
  const StepResult* first = r->find(StepId::Interleaved);
  ASSERT_NE(first, nullptr);
  EXPECT_NEAR(first->totalSpeedup, 1.0, 1e-9);
  EXPECT_EQ(first->stepSpeedup, 0.0);  // the first rung has nothing before it
  const StepResult* cub = r->find(StepId::Cub);
  ASSERT_NE(cub, nullptr);
  EXPECT_NEAR(cub->ofLibrary, 1.0, 1e-9);
  const StepResult* course = r->find(StepId::Course);
  ASSERT_NE(course, nullptr);
  EXPECT_GT(course->cpuFinishMs, 0);
  EXPECT_GE(course->ms, course->cpuFinishMs);
}

TEST(ReductionGpu, MeasuredLadderInt32AtTheCourseSize) {
  const std::span<const StepId> which = allStepIds();
  const Result<LadderReport> r =
      measureLadder(ReduceParams{DataType::Int32, largeN(), 256, 1, 2}, which);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  ASSERT_EQ(r->steps.size(), which.size());
  for (const StepResult& s : r->steps) {
    const char* key = stepInfo(s.step).key;
    EXPECT_TRUE(s.ok) << key << ": value " << s.value << ", error " << s.error;
    EXPECT_EQ(s.error, 0.0) << key;
    EXPECT_EQ(s.bound, 0.0) << key;
    EXPECT_GT(s.gbps, 0) << key;
  }
}

TEST(ReductionGpu, SweepReturnsVerifiedPoints) {
  const std::vector<long long> sizes = {1024, 65536};
  const std::span<const StepId> which = sweepStepIds();
  const SweepRun<SweepPoint> run = measureSweep(DataType::Float32, 256, sizes, which);
  ASSERT_TRUE(run.stopped.ok()) << run.stopped.sentence();
  const std::vector<SweepPoint>* r = &run.points;
  ASSERT_EQ(r->size(), sizes.size() * which.size());
  for (std::size_t i = 0; i < r->size(); ++i) {
    const SweepPoint& p = (*r)[i];
    EXPECT_EQ(p.n, sizes[i / which.size()]);
    EXPECT_EQ(p.step, which[i % which.size()]);
    EXPECT_TRUE(p.ok) << p.n << " " << stepInfo(p.step).key;
    EXPECT_GT(p.gbps, 0) << p.n << " " << stepInfo(p.step).key;
  }
}

// The grid-stride kernels' grid is SMs x blocks per SM; the other steps' grids do not depend on
// the device.
TEST(ReductionGpu, ResidentBlocks) {
  int dev = 0, sms = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), cudaSuccess);
  ASSERT_GT(sms, 0);
  for (DataType type : kTypes)
    for (int block : kBlocks)
      for (StepId step : allStepIds()) {
        const std::string at = where(step, type, 0, block);
        const Result<long long> r = residentBlocks(step, type, block);
        ASSERT_TRUE(r.ok()) << at << ": " << r.status().sentence();
        const Shape shape = stepInfo(step).shape;
        if (shape == Shape::GridStride || shape == Shape::Atomic) {
          EXPECT_GT(*r, 0) << at;
          // At least one block per SM: a kernel that fit nowhere would show as 1.
          EXPECT_GE(*r, sms) << at;
          EXPECT_EQ(*r % sms, 0) << at;
          EXPECT_LE(*r * block, 1LL * sms * 2048) << at;
        } else {
          EXPECT_EQ(*r, 1) << at;
        }
      }
}

TEST(ReductionGpu, RefusalsBeforeAnyLaunch) {
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const HostData d = makeData(DataType::Float32, 1000, seed());
  for (int block : {96, 2048, 32}) {
    const Result<double> r = reduceOnce(StepId::Shuffle, d, block);
    ASSERT_FALSE(r.ok()) << block;
    const std::string sentence = r.status().sentence();
    EXPECT_NE(sentence.find("per block"), std::string::npos) << sentence;
    EXPECT_NE(sentence.find(std::to_string(block)), std::string::npos) << sentence;
    EXPECT_EQ(r.status().cudaCode(), 0) << sentence;
  }
  // N = 0, through the ladder and through reduceOnce with empty data.
  const Result<LadderReport> ladder =
      measureLadder(ReduceParams{DataType::Float32, 0, 256, 1, 3}, allStepIds());
  ASSERT_FALSE(ladder.ok());
  EXPECT_NE(ladder.status().sentence().find("N must"), std::string::npos)
      << ladder.status().sentence();
  HostData empty;
  empty.type = DataType::Int32;
  EXPECT_FALSE(reduceOnce(StepId::Cub, empty, 256).ok());
  const SweepRun<SweepPoint> badBlock =
      measureSweep(DataType::Float32, 96, std::vector<long long>{1024}, sweepStepIds());
  EXPECT_FALSE(badBlock.stopped.ok());
  EXPECT_TRUE(badBlock.points.empty());
  // The largest N with 1 MiB free: refused with a sentence that says what to do.
  const ReduceParams big{DataType::Float64, static_cast<long long>(kCount.max), 256};
  const Status mem = checkMemory(big, std::size_t{1} << 20);
  ASSERT_FALSE(mem.ok());
  EXPECT_NE(mem.sentence().find("smaller N"), std::string::npos) << mem.sentence();
  EXPECT_TRUE(checkMemory(big, std::size_t{64} << 30).ok());
  // Nothing was launched: no error waits on the device.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace cudalab::reduction
