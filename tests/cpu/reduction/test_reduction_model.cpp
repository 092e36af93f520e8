// The reduction lesson's pure C++ side, checked without a GPU: the step table (ladder order, keys
// that round-trip, Harris's numbers), the element types, validation and the memory check with
// the numbers in their sentences, each step's launch plan against grids worked out by hand, and
// the tree model of one block: active threads, divergent warps and shared-memory bank conflicts
// level by level for the ladder's steps (worked out by hand from the kernels' index arithmetic
// and memory_access.hpp's bank rules), refusals, and invariants over every step and block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "reduction/reduction.hpp"

namespace cudalab::reduction {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct WantPass {
  long long n, grid;
  int block;
};

void expectPlan(const std::vector<Pass>& plan, const std::vector<WantPass>& want) {
  ASSERT_EQ(plan.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("pass " + std::to_string(i));
    EXPECT_EQ(plan[i].n, want[i].n);
    EXPECT_EQ(plan[i].grid, want[i].grid);
    EXPECT_EQ(plan[i].block, want[i].block);
  }
}

TreeModel model(StepId step, int block, DataType type = DataType::Float32) {
  Result<TreeModel> m = treeModel(step, block, type);
  EXPECT_TRUE(m.ok()) << stepInfo(step).key << " block " << block << ": " << m.status().message();
  if (m.ok()) return *m;
  TreeModel empty{};
  empty.step = step;
  return empty;
}

const WarpAtLevel* findWarp(const TreeLevel& level, int warp) {
  for (const WarpAtLevel& w : level.warps)
    if (w.warp == warp) return &w;
  return nullptr;
}

int log2Of(int v) {
  int l = 0;
  while (v > 1) {
    v /= 2;
    ++l;
  }
  return l;
}

constexpr int kValidBlocks[] = {32, 64, 128, 256, 512, 1024};

// ---------------------------------------------------------------------------------------------
// The step table
// ---------------------------------------------------------------------------------------------

TEST(ReductionSteps, ElevenInLadderOrder) {
  const StepId want[] = {StepId::Interleaved, StepId::Strided,    StepId::Sequential,
                         StepId::FirstAdd,    StepId::UnrollLast, StepId::Unrolled,
                         StepId::Multiple,    StepId::Shuffle,    StepId::Atomic,
                         StepId::Course,      StepId::Cub};
  ASSERT_EQ(steps().size(), 11u);
  for (std::size_t i = 0; i < steps().size(); ++i)
    EXPECT_EQ(steps()[i].id, want[i]) << "position " << i;
  // allStepIds() is the same ladder.
  ASSERT_EQ(allStepIds().size(), 11u);
  for (std::size_t i = 0; i < allStepIds().size(); ++i)
    EXPECT_EQ(allStepIds()[i], want[i]) << "position " << i;
}

TEST(ReductionSteps, KeysAreUniqueAndRoundTrip) {
  std::set<std::string> keys, labels;
  std::set<int> ids;
  for (const StepInfo& s : steps()) {
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_TRUE(labels.insert(s.label).second) << s.key;
    EXPECT_TRUE(ids.insert(static_cast<int>(s.id)).second) << s.key;
    const std::optional<StepId> back = stepByKey(s.key);
    ASSERT_TRUE(back.has_value()) << s.key;
    EXPECT_EQ(*back, s.id) << s.key;
    EXPECT_EQ(&stepInfo(s.id), &s) << s.key;
    EXPECT_FALSE(std::string(s.label).empty()) << s.key;
    EXPECT_GT(std::string(s.help).size(), 40u) << s.key;
  }
  EXPECT_EQ(stepByKey("interleaved"), StepId::Interleaved);
  EXPECT_EQ(stepByKey("first_add"), StepId::FirstAdd);
  EXPECT_EQ(stepByKey("unroll_last"), StepId::UnrollLast);
  EXPECT_EQ(stepByKey("cub"), StepId::Cub);
  EXPECT_FALSE(stepByKey("").has_value());
  EXPECT_FALSE(stepByKey("CUB").has_value());
  EXPECT_FALSE(stepByKey("reduce").has_value());
}

TEST(ReductionSteps, HarrisNumbersAndShapes) {
  for (std::size_t i = 0; i < steps().size(); ++i) {
    const StepInfo& s = steps()[i];
    SCOPED_TRACE(s.key);
    if (i < 7) {
      EXPECT_EQ(s.harris, static_cast<int>(i) + 1);
      EXPECT_TRUE(s.sharedTree);
      // Steps 1-3 load one number per thread, steps 4-7 two.
      EXPECT_EQ(s.loadsPerThread, i < 3 ? 1 : 2);
    } else {
      EXPECT_EQ(s.harris, 0);
      EXPECT_FALSE(s.sharedTree);
    }
    EXPECT_EQ(handWritten(s), s.id != StepId::Cub);
  }
  EXPECT_EQ(stepInfo(StepId::Cub).shape, Shape::Library);
  EXPECT_EQ(stepInfo(StepId::Course).shape, Shape::Course);
  EXPECT_EQ(stepInfo(StepId::Atomic).shape, Shape::Atomic);
  EXPECT_EQ(stepInfo(StepId::Multiple).shape, Shape::GridStride);
  EXPECT_EQ(stepInfo(StepId::Shuffle).shape, Shape::GridStride);
  EXPECT_EQ(stepInfo(StepId::Sequential).shape, Shape::Tree);
}

TEST(ReductionSteps, SweepSteps) {
  // The sweep leaves out the course's kernel (limited by its copy to the host). The table also
  // leaves out steps 2 (strided) and 5 (unroll_last); this pins the list as it stands.
  const StepId want[] = {StepId::Interleaved, StepId::Sequential, StepId::FirstAdd,
                         StepId::Unrolled,    StepId::Multiple,   StepId::Shuffle,
                         StepId::Atomic,      StepId::Cub};
  const std::span<const StepId> sweep = sweepStepIds();
  ASSERT_EQ(sweep.size(), std::size(want));
  for (std::size_t i = 0; i < sweep.size(); ++i)
    EXPECT_EQ(sweep[i], want[i]) << "position " << i;
  // In ladder order, each a step of the ladder, never the course's.
  int last = -1;
  for (StepId id : sweep) {
    EXPECT_NE(id, StepId::Course);
    int pos = -1;
    for (std::size_t i = 0; i < allStepIds().size(); ++i)
      if (allStepIds()[i] == id) pos = static_cast<int>(i);
    EXPECT_GT(pos, last) << stepInfo(id).key;
    last = pos;
  }
}

TEST(ReductionSteps, Types) {
  EXPECT_STREQ(typeLabel(DataType::Int32), "int32");
  EXPECT_STREQ(typeLabel(DataType::Float32), "float32");
  EXPECT_STREQ(typeLabel(DataType::Float64), "float64");
  EXPECT_EQ(typeBytes(DataType::Int32), 4);
  EXPECT_EQ(typeBytes(DataType::Float32), 4);
  EXPECT_EQ(typeBytes(DataType::Float64), 8);
  for (DataType t : kTypes)
    EXPECT_EQ(typeByLabel(typeLabel(t)), t);
  EXPECT_FALSE(typeByLabel("").has_value());
  EXPECT_FALSE(typeByLabel("float16").has_value());
  EXPECT_FALSE(typeByLabel("Float32").has_value());
  EXPECT_FALSE(typeByLabel("int").has_value());
  EXPECT_EQ(vectorWidth(DataType::Int32), 4);
  EXPECT_EQ(vectorWidth(DataType::Float32), 4);
  EXPECT_EQ(vectorWidth(DataType::Float64), 2);
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

TEST(ReductionValidate, RefusesNOutOfRange) {
  ReduceParams p;
  p.n = 0;
  Status s = validate(p);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "536,870,912")) << s.message();
  p.n = static_cast<long long>(kCount.max) + 1;
  s = validate(p);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "536,870,913")) << s.message();
  p.n = -5;
  EXPECT_FALSE(validate(p).ok());
  p.n = static_cast<long long>(kCount.max);
  EXPECT_TRUE(validate(p).ok()) << validate(p).message();
}

TEST(ReductionValidate, RefusesBlocks) {
  ReduceParams p;
  p.block = 96;  // in range, not a power of two
  Status s = validate(p);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "power of two")) << s.message();
  EXPECT_TRUE(contains(s.message(), "96")) << s.message();
  p.block = 32;  // a power of two, below the range
  s = validate(p);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "32")) << s.message();
  p.block = 2048;  // above it
  s = validate(p);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "2048")) << s.message();
  p.block = 0;
  EXPECT_FALSE(validate(p).ok());
  for (int b : {64, 128, 256, 512, 1024}) {
    p.block = b;
    EXPECT_TRUE(validate(p).ok()) << b;
  }
}

TEST(ReductionValidate, AcceptsTheSmallestAndTheCourse) {
  ReduceParams p;
  p.n = 1;
  p.block = 64;
  EXPECT_TRUE(validate(p).ok()) << validate(p).message();
  p.n = kCourseN;
  p.block = 256;
  EXPECT_TRUE(validate(p).ok()) << validate(p).message();
  // The defaults are the course's N.
  EXPECT_TRUE(validate(ReduceParams{}).ok());
  EXPECT_EQ(ReduceParams{}.n, 134217571LL);
}

TEST(ReductionValidate, RefusesNoRuns) {
  ReduceParams p;
  p.runs = 0;
  EXPECT_FALSE(validate(p).ok());
  p.runs = 1;
  p.warmup = -1;
  EXPECT_FALSE(validate(p).ok());
  p.warmup = 0;
  EXPECT_TRUE(validate(p).ok());
}

TEST(ReductionValidate, CheckMemory) {
  ReduceParams p;  // the course's N, float32: about 1 GiB needed
  Status s = checkMemory(p, std::size_t{1} << 20);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "MiB")) << s.message();
  EXPECT_TRUE(contains(s.message(), "134,217,571")) << s.message();
  EXPECT_TRUE(checkMemory(p, std::size_t{80} << 30).ok());
  // Need: 2 N b + 2 ceil(N / 64) b + 64 MiB. For N = 2^20 float64: 16 MiB + 256 KiB + 64 MiB.
  p.n = 1 << 20;
  p.type = DataType::Float64;
  const std::size_t need = (std::size_t{16} << 20) + (std::size_t{256} << 10) + (64u << 20);
  EXPECT_TRUE(checkMemory(p, need).ok());
  EXPECT_FALSE(checkMemory(p, need - 1).ok());
  // float32 needs half the data bytes.
  p.type = DataType::Float32;
  EXPECT_TRUE(checkMemory(p, need - (std::size_t{8} << 20)).ok());
}

// ---------------------------------------------------------------------------------------------
// Launch plans
// ---------------------------------------------------------------------------------------------

TEST(ReductionPlan, TreeStepsHandWorked) {
  // Interleaved: 256 numbers per block. 1000 -> ceil(1000 / 256) = 4 sums -> 1.
  expectPlan(passPlan(StepId::Interleaved, DataType::Float32, 1000, 256, 1056),
             {{1000, 4, 256}, {4, 1, 256}});
  // FirstAdd: 512 numbers per block. 1000 -> 2 -> 1.
  expectPlan(passPlan(StepId::FirstAdd, DataType::Float32, 1000, 256, 1056),
             {{1000, 2, 256}, {2, 1, 256}});
  // Exactly one block's worth: one pass.
  expectPlan(passPlan(StepId::Sequential, DataType::Float32, 256, 256, 1), {{256, 1, 256}});
  expectPlan(passPlan(StepId::Unrolled, DataType::Float32, 512, 256, 1), {{512, 1, 256}});
  // 257 needs two blocks of 256, then a pass for the two sums.
  expectPlan(passPlan(StepId::Strided, DataType::Float32, 257, 256, 1),
             {{257, 2, 256}, {2, 1, 256}});
}

TEST(ReductionPlan, OneNumberIsOnePass) {
  for (const StepInfo& s : steps()) {
    if (s.shape != Shape::Tree) continue;
    SCOPED_TRACE(s.key);
    for (int block : {64, 256, 1024})
      expectPlan(passPlan(s.id, DataType::Float32, 1, block, 1056), {{1, 1, block}});
  }
}

TEST(ReductionPlan, InterleavedCourseN) {
  // 2^27 - 157 = 134,217,571. 524,287 x 256 = 134,217,472 < N, so pass 1 has 524,288 blocks;
  // then 524,288 / 256 = 2,048; 2,048 / 256 = 8; 8 -> 1.
  const std::vector<Pass> plan =
      passPlan(StepId::Interleaved, DataType::Float32, kCourseN, 256, 1056);
  expectPlan(plan, {{kCourseN, 524288, 256}, {524288, 2048, 256}, {2048, 8, 256}, {8, 1, 256}});
  // Each pass's n is the previous pass's grid.
  for (std::size_t i = 1; i < plan.size(); ++i)
    EXPECT_EQ(plan[i].n, plan[i - 1].grid);
  EXPECT_EQ(describePlan(plan),
            "524,288 \xe2\x86\x92 2,048 \xe2\x86\x92 8 \xe2\x86\x92 1 blocks of 256");
  // FirstAdd halves the first grid: 262,144 -> 512 -> 1.
  expectPlan(passPlan(StepId::FirstAdd, DataType::Float32, kCourseN, 256, 1056),
             {{kCourseN, 262144, 256}, {262144, 512, 256}, {512, 1, 256}});
}

TEST(ReductionPlan, MultipleFillsTheGpuOnce) {
  // 2^28 / (2 x 256) = 524,288 blocks wanted, 1,056 resident: 1,056, then one block of 256.
  expectPlan(passPlan(StepId::Multiple, DataType::Float32, 1LL << 28, 256, 1056),
             {{1LL << 28, 1056, 256}, {1056, 1, 256}});
  // 100 numbers need one block: no second pass.
  expectPlan(passPlan(StepId::Multiple, DataType::Float32, 100, 256, 1056), {{100, 1, 256}});
  // 1,000 numbers: ceil(1000 / 512) = 2 blocks, then the second pass.
  expectPlan(passPlan(StepId::Multiple, DataType::Float32, 1000, 256, 1056),
             {{1000, 2, 256}, {2, 1, 256}});
  // residentBlocks below 1 counts as 1.
  expectPlan(passPlan(StepId::Multiple, DataType::Float32, 1000, 256, 0), {{1000, 1, 256}});
}

TEST(ReductionPlan, ShuffleUsesSixteenByteLoads) {
  // float32: 4 per load. ceil(1000 / (4 x 256)) = 1, min(1, 10) = 1: a single pass.
  expectPlan(passPlan(StepId::Shuffle, DataType::Float32, 1000, 256, 10), {{1000, 1, 256}});
  // float64: 2 per load. ceil(1000 / 512) = 2 blocks, then one.
  expectPlan(passPlan(StepId::Shuffle, DataType::Float64, 1000, 256, 10),
             {{1000, 2, 256}, {2, 1, 256}});
  // ceil(10000 / 512) = 20 > 10 resident: 10.
  expectPlan(passPlan(StepId::Shuffle, DataType::Float64, 10000, 256, 10),
             {{10000, 10, 256}, {10, 1, 256}});
  // int32 is 4 per load too: ceil(10000 / 1024) = 10.
  expectPlan(passPlan(StepId::Shuffle, DataType::Int32, 10000, 256, 1056),
             {{10000, 10, 256}, {10, 1, 256}});
}

TEST(ReductionPlan, AtomicIsOneLaunch) {
  expectPlan(passPlan(StepId::Atomic, DataType::Float32, 1LL << 28, 256, 1056),
             {{1LL << 28, 1056, 256}});
  expectPlan(passPlan(StepId::Atomic, DataType::Float32, 1000, 256, 1056), {{1000, 1, 256}});
  expectPlan(passPlan(StepId::Atomic, DataType::Float64, 10000, 128, 1056), {{10000, 40, 128}});
  for (long long n : {1LL, 7LL, 1LL << 20, kCourseN})
    EXPECT_EQ(passPlan(StepId::Atomic, DataType::Float32, n, 512, 300).size(), 1u) << n;
}

TEST(ReductionPlan, CourseIsOnePassOf128) {
  // ceil(134,217,571 / 128) = 1,048,575 (1,048,574 x 128 = 134,217,472 < N).
  for (int block : {64, 256, 1024}) {
    expectPlan(passPlan(StepId::Course, DataType::Float32, kCourseN, block, 1056),
               {{kCourseN, 1048575, 128}});
    expectPlan(passPlan(StepId::Course, DataType::Float32, 129, block, 1056), {{129, 2, 128}});
    expectPlan(passPlan(StepId::Course, DataType::Float32, 1, block, 1056), {{1, 1, 128}});
  }
}

TEST(ReductionPlan, CubHasNoPlan) {
  EXPECT_TRUE(passPlan(StepId::Cub, DataType::Float32, 1LL << 28, 256, 1056).empty());
  // Nothing to plan for no numbers either.
  EXPECT_TRUE(passPlan(StepId::Interleaved, DataType::Float32, 0, 256, 1056).empty());
}

TEST(ReductionPlan, PerThread) {
  EXPECT_EQ((Pass{1000, 4, 256}.perThread()), 1);
  // 2^28 / (1,056 x 256) = 992.97...: 993.
  EXPECT_EQ((Pass{1LL << 28, 1056, 256}.perThread()), 993);
  EXPECT_EQ((Pass{1056, 1, 256}.perThread()), 5);
  EXPECT_EQ((Pass{512, 1, 256}.perThread()), 2);
  EXPECT_EQ((Pass{513, 1, 256}.perThread()), 3);
  EXPECT_EQ(Pass{}.perThread(), 0);
}

// describePlan: the grids, one per launch, arrow-separated, then the block size.
TEST(ReductionPlan, Describe) {
  EXPECT_TRUE(contains(describePlan({}), "library"));
  const std::vector<Pass> one = passPlan(StepId::Atomic, DataType::Float32, 1LL << 28, 256, 1056);
  EXPECT_EQ(describePlan(one), "1,056 blocks of 256");
  const std::vector<Pass> single = passPlan(StepId::Multiple, DataType::Float32, 100, 128, 1056);
  EXPECT_EQ(describePlan(single), "1 block of 128");
  const std::vector<Pass> two = passPlan(StepId::Multiple, DataType::Float32, 1LL << 28, 256, 1056);
  EXPECT_EQ(describePlan(two), "1,056 \xe2\x86\x92 1 blocks of 256");
  // One arrow per launch after the first.
  for (const StepInfo& s : steps()) {
    const std::vector<Pass> plan = passPlan(s.id, DataType::Float32, kCourseN, 256, 1056);
    const std::string text = describePlan(plan);
    std::size_t arrows = 0;
    for (std::size_t at = text.find("\xe2\x86\x92"); at != std::string::npos;
         at = text.find("\xe2\x86\x92", at + 1))
      ++arrows;
    EXPECT_EQ(arrows, plan.empty() ? 0 : plan.size() - 1) << s.key << ": " << text;
  }
}

// ---------------------------------------------------------------------------------------------
// The tree model: hand-worked levels
// ---------------------------------------------------------------------------------------------

// Interleaved, 64 threads: s = 1, 2, ..., 32, thread t works when t % 2s == 0, so 64 / 2s work:
// 32, 16, 8, 4, 2, 1. Both warps hold working lanes until s = 16 (threads 0 and 32); at s = 32
// only thread 0 works, so warp 1 executes nothing and is not listed. Every listed warp has idle
// lanes: divergent (2 + 2 + 2 + 2 + 2 + 1 = 11 warp-levels). Lane l of warp w reads slot
// 32 w + l (dst, bank l) and slot 32 w + l + s (src, bank (l + s) mod 32): distinct lanes give
// distinct banks in both requests, so the degree is 1 at every level (s = 1: banks 0, 2, ..., 30
// and 1, 3, ..., 31; s = 2: banks 0, 4, ..., 28 and 2, 6, ..., 30; and so on).
TEST(ReductionTree, InterleavedBlock64) {
  const TreeModel m = model(StepId::Interleaved, 64);
  EXPECT_EQ(m.slots, 64);
  EXPECT_EQ(m.elementBytes, 4);
  ASSERT_EQ(m.levels.size(), 6u);
  const int strides[] = {1, 2, 4, 8, 16, 32};
  const int active[] = {32, 16, 8, 4, 2, 1};
  for (std::size_t i = 0; i < 6; ++i) {
    const TreeLevel& l = m.levels[i];
    SCOPED_TRACE("s = " + std::to_string(strides[i]));
    EXPECT_EQ(l.stride, strides[i]);
    EXPECT_EQ(l.activeThreads, active[i]);
    EXPECT_EQ(l.worstConflict, 1);
    EXPECT_TRUE(l.barrier);
    EXPECT_FALSE(l.shuffle);
    EXPECT_FALSE(l.globalMemory);
    for (const TreeOp& op : l.ops) {
      EXPECT_EQ(op.thread % (2 * strides[i]), 0);
      EXPECT_EQ(op.dst, op.thread);
      EXPECT_EQ(op.src, op.thread + strides[i]);
    }
  }
  // s = 1: 16 of 32 lanes in each warp.
  ASSERT_EQ(m.levels[0].warps.size(), 2u);
  for (const WarpAtLevel& w : m.levels[0].warps) {
    EXPECT_EQ(w.executing, 16);
    EXPECT_EQ(w.useful, 16);
    EXPECT_TRUE(w.divergent);
    EXPECT_EQ(w.conflictDegree, 1);
  }
  EXPECT_EQ(m.levels[0].divergentWarps, 2);
  // s = 16: threads 0 and 32, one per warp.
  ASSERT_EQ(m.levels[4].warps.size(), 2u);
  EXPECT_EQ(m.levels[4].warps[1].executing, 1);
  // s = 32: thread 0 alone.
  ASSERT_EQ(m.levels[5].warps.size(), 1u);
  EXPECT_EQ(m.levels[5].warps[0].warp, 0);
  EXPECT_EQ(m.levels[5].warps[0].executing, 1);
  EXPECT_TRUE(m.levels[5].warps[0].divergent);
  EXPECT_EQ(m.levels[5].divergentWarps, 1);
  EXPECT_EQ(m.totalDivergent(), 11);
  EXPECT_EQ(m.barriers(), 7);  // one after the load, one per level
}

// Strided, 256 threads: at stride s thread t works when 2 s t < 256, i.e. t < 128 / s, on slots
// 2 s t and 2 s t + s.
//   s = 1: 128 threads, warps 0-3 whole (not divergent), warps 4-7 idle. Lanes read words 2 l:
//          the even banks, two words each: 2-way.
//   s = 2: 64 threads, warps 0-1; words 4 l: 8 banks, 4 words each: 4-way.
//   s = 4: 32 threads, warp 0 whole; words 8 l: banks 0, 8, 16, 24, 8 words each: 8-way.
//   s = 8: 16 lanes of warp 0 (divergent); words 16 l, l < 16: banks 0 and 16, 8 words each:
//          8-way (not 16: only 16 lanes are left).
//   s = 16: 8 lanes; words 32 l: all bank 0, 8 words: 8-way.
//   s = 32, 64, 128: 4, 2, 1 lanes, all in bank 0: 4-, 2-way, none.
// Divergent warp-levels: warp 0 at s = 8 ... 128: 5.
TEST(ReductionTree, StridedBlock256) {
  const TreeModel m = model(StepId::Strided, 256);
  ASSERT_EQ(m.levels.size(), 8u);
  const int active[] = {128, 64, 32, 16, 8, 4, 2, 1};
  const int warps[] = {4, 2, 1, 1, 1, 1, 1, 1};
  const int degree[] = {2, 4, 8, 8, 8, 4, 2, 1};
  const int divergent[] = {0, 0, 0, 1, 1, 1, 1, 1};
  for (std::size_t i = 0; i < 8; ++i) {
    const TreeLevel& l = m.levels[i];
    const int s = 1 << i;
    SCOPED_TRACE("s = " + std::to_string(s));
    EXPECT_EQ(l.stride, s);
    EXPECT_EQ(l.activeThreads, active[i]);
    EXPECT_EQ(static_cast<int>(l.warps.size()), warps[i]);
    EXPECT_EQ(l.worstConflict, degree[i]);
    EXPECT_EQ(l.divergentWarps, divergent[i]);
    EXPECT_TRUE(l.barrier);
    for (const WarpAtLevel& w : l.warps) {
      EXPECT_EQ(w.conflictDegree, degree[i]) << "warp " << w.warp;
      EXPECT_EQ(w.useful, w.executing);
    }
    for (const TreeOp& op : l.ops) {
      EXPECT_EQ(op.dst, 2 * s * op.thread);
      EXPECT_EQ(op.src, 2 * s * op.thread + s);
    }
  }
  // s = 1: warps 0-3 whole, none of 4-7.
  for (int w = 0; w < 8; ++w) {
    const WarpAtLevel* wl = findWarp(m.levels[0], w);
    if (w < 4) {
      ASSERT_NE(wl, nullptr) << w;
      EXPECT_EQ(wl->executing, 32);
      EXPECT_FALSE(wl->divergent);
    } else {
      EXPECT_EQ(wl, nullptr) << w;
    }
  }
  // s = 16: warp 0 alone, 8 lanes.
  ASSERT_EQ(m.levels[4].warps.size(), 1u);
  EXPECT_EQ(m.levels[4].warps[0].executing, 8);
  EXPECT_TRUE(m.levels[4].warps[0].divergent);
  EXPECT_EQ(m.totalDivergent(), 5);
  // Wavefronts at s = 1: each of 4 warps reads src, reads dst and writes dst, 2 passes each.
  EXPECT_EQ(m.levels[0].wavefronts, 4 * 3 * 2);
}

// Sequential, 256 threads: s = 128 down to 1, thread t < s adds slot t + s to slot t. A warp
// reads 32 consecutive words (or fewer): one per bank, no conflict. Warps are whole while
// s >= 32 (4, 2, 1 warps); from s = 16 on warp 0 alone has idle lanes: 5 divergent warp-levels.
TEST(ReductionTree, SequentialBlock256) {
  const TreeModel m = model(StepId::Sequential, 256);
  ASSERT_EQ(m.levels.size(), 8u);
  int s = 128;
  for (const TreeLevel& l : m.levels) {
    SCOPED_TRACE("s = " + std::to_string(s));
    EXPECT_EQ(l.stride, s);
    EXPECT_EQ(l.activeThreads, s);
    EXPECT_EQ(l.worstConflict, 1);
    EXPECT_EQ(l.divergentWarps, s >= 32 ? 0 : 1);
    EXPECT_EQ(static_cast<int>(l.warps.size()), s >= 32 ? s / 32 : 1);
    EXPECT_TRUE(l.barrier);
    for (const TreeOp& op : l.ops) {
      EXPECT_EQ(op.dst, op.thread);
      EXPECT_EQ(op.src, op.thread + s);
    }
    s /= 2;
  }
  EXPECT_EQ(m.totalDivergent(), 5);
  EXPECT_EQ(m.barriers(), 9);  // one after the load, one per level
  // s = 128: 4 warps, 3 conflict-free requests each.
  EXPECT_EQ(m.levels[0].wavefronts, 12);
}

// FirstAdd's tree is Sequential's (only the load differs).
TEST(ReductionTree, FirstAddTreeIsSequentials) {
  const TreeModel a = model(StepId::Sequential, 512);
  const TreeModel b = model(StepId::FirstAdd, 512);
  ASSERT_EQ(a.levels.size(), b.levels.size());
  for (std::size_t i = 0; i < a.levels.size(); ++i) {
    EXPECT_EQ(a.levels[i].stride, b.levels[i].stride);
    EXPECT_EQ(a.levels[i].activeThreads, b.levels[i].activeThreads);
    EXPECT_EQ(a.levels[i].divergentWarps, b.levels[i].divergentWarps);
    EXPECT_EQ(a.levels[i].worstConflict, b.levels[i].worstConflict);
  }
  EXPECT_NE(a.load, b.load);
}

// Steps 5-7, 256 threads: the loop runs s = 128, 64 (s > 32) with barriers; then warp 0 alone
// runs s = 32 ... 1 with all 32 lanes executing (useful: t < s), no branch, so nothing diverges,
// and no barrier. Lanes read words t and t + s: consecutive, conflict-free.
TEST(ReductionTree, UnrolledWarpBlock256) {
  for (StepId step : {StepId::UnrollLast, StepId::Unrolled, StepId::Multiple}) {
    SCOPED_TRACE(stepInfo(step).key);
    const TreeModel m = model(step, 256);
    ASSERT_EQ(m.levels.size(), 8u);
    EXPECT_EQ(m.levels[0].stride, 128);
    EXPECT_EQ(m.levels[1].stride, 64);
    EXPECT_TRUE(m.levels[0].barrier);
    EXPECT_TRUE(m.levels[1].barrier);
    EXPECT_EQ(m.levels[0].activeThreads, 128);
    EXPECT_EQ(m.levels[1].activeThreads, 64);
    for (std::size_t i = 2; i < 8; ++i) {
      const TreeLevel& l = m.levels[i];
      const int s = 32 >> (i - 2);
      SCOPED_TRACE("s = " + std::to_string(s));
      EXPECT_EQ(l.stride, s);
      EXPECT_FALSE(l.barrier);
      EXPECT_FALSE(l.shuffle);
      EXPECT_EQ(l.activeThreads, s);
      ASSERT_EQ(l.warps.size(), 1u);
      EXPECT_EQ(l.warps[0].warp, 0);
      EXPECT_EQ(l.warps[0].executing, 32);
      EXPECT_EQ(l.warps[0].useful, s);
      EXPECT_FALSE(l.warps[0].divergent);
      EXPECT_EQ(l.worstConflict, 1);
      // s = 32 reads slot tid from shared memory; later levels keep it in a register.
      EXPECT_EQ(l.wavefronts, s == 32 ? 3 : 2);
    }
    EXPECT_EQ(m.totalDivergent(), 0);
    EXPECT_EQ(m.barriers(), 3);  // after the load, s = 128, s = 64
  }
}

// The unrolled warp with 64 threads: no loop level at all, just warp 0's six.
TEST(ReductionTree, UnrolledWarpBlock64) {
  const TreeModel m = model(StepId::UnrollLast, 64);
  ASSERT_EQ(m.levels.size(), 6u);
  EXPECT_EQ(m.levels[0].stride, 32);
  EXPECT_EQ(m.levels[0].activeThreads, 32);
  EXPECT_EQ(m.barriers(), 1);  // only the one after the load
  EXPECT_EQ(m.totalDivergent(), 0);
}

// Shuffle, 256 threads: offsets 16, 8, 4, 2, 1 in every one of the 8 warps, all 32 lanes
// executing, lane l useful when l < offset; registers, not shared memory (no conflict degree).
// The barrier comes after the last shuffle (the warps' sums meet in shared memory). Then warp 0
// shuffles log2(8) = 3 more times, offsets 4, 2, 1; warp w's sum is drawn in slot 32 w, so lane t
// adds slot 32 (t + offset) into slot 32 t: strides 128, 64, 32.
TEST(ReductionTree, ShuffleBlock256) {
  for (StepId step : {StepId::Shuffle, StepId::Atomic}) {
    SCOPED_TRACE(stepInfo(step).key);
    const TreeModel m = model(step, 256);
    ASSERT_EQ(m.levels.size(), 8u);
    for (std::size_t i = 0; i < 5; ++i) {
      const TreeLevel& l = m.levels[i];
      const int off = 16 >> i;
      SCOPED_TRACE("offset " + std::to_string(off));
      EXPECT_EQ(l.stride, off);
      EXPECT_TRUE(l.shuffle);
      EXPECT_EQ(l.worstConflict, 0);
      EXPECT_EQ(l.wavefronts, 0);
      EXPECT_EQ(l.activeThreads, 8 * off);
      EXPECT_EQ(l.barrier, off == 1);
      ASSERT_EQ(l.warps.size(), 8u);
      for (const WarpAtLevel& w : l.warps) {
        EXPECT_EQ(w.executing, 32);
        EXPECT_EQ(w.useful, off);
        EXPECT_FALSE(w.divergent);
        EXPECT_EQ(w.conflictDegree, 0);
      }
      for (const TreeOp& op : l.ops) {
        EXPECT_LT(op.thread % 32, off);
        EXPECT_EQ(op.src - op.dst, off);
      }
    }
    for (std::size_t i = 5; i < 8; ++i) {
      const TreeLevel& l = m.levels[i];
      const int off = 4 >> (i - 5);
      SCOPED_TRACE("warp 0, offset " + std::to_string(off));
      EXPECT_EQ(l.stride, 32 * off);
      EXPECT_TRUE(l.shuffle);
      EXPECT_FALSE(l.barrier);
      EXPECT_EQ(l.worstConflict, 0);
      EXPECT_EQ(l.activeThreads, off);
      ASSERT_EQ(l.warps.size(), 1u);
      EXPECT_EQ(l.warps[0].warp, 0);
      EXPECT_EQ(l.warps[0].executing, 32);
      EXPECT_EQ(l.warps[0].useful, off);
      EXPECT_FALSE(l.warps[0].divergent);
      for (const TreeOp& op : l.ops) {
        EXPECT_EQ(op.dst, 32 * op.thread);
        EXPECT_EQ(op.src, 32 * (op.thread + off));
      }
    }
    EXPECT_EQ(m.totalDivergent(), 0);
    EXPECT_EQ(m.totalWavefronts(), 0);
    EXPECT_EQ(m.barriers(), 1);
  }
}

// The course's kernel, 128 threads: sequential addressing in global memory, s = 64 ... 1.
TEST(ReductionTree, CourseBlock128) {
  const TreeModel m = model(StepId::Course, 128);
  ASSERT_EQ(m.levels.size(), 7u);
  for (const TreeLevel& l : m.levels) {
    EXPECT_TRUE(l.globalMemory);
    EXPECT_FALSE(l.shuffle);
    EXPECT_TRUE(l.barrier);
    EXPECT_EQ(l.worstConflict, 0);
    EXPECT_EQ(l.wavefronts, 0);
    EXPECT_EQ(l.activeThreads, l.stride);
  }
  EXPECT_EQ(m.levels.front().stride, 64);
  EXPECT_EQ(m.levels.back().stride, 1);
  EXPECT_EQ(m.totalDivergent(), 5);  // s = 16, 8, 4, 2, 1
}

// float64, Sequential, 256 threads: 8-byte words are served in two phases of 16 lanes. Within a
// phase, 16 consecutive doubles are 128 bytes: 32 consecutive words, one per bank: still
// conflict-free, but each request takes 2 wavefronts (s = 128: 4 warps x 3 requests x 2).
TEST(ReductionTree, Float64SequentialIsConflictFree) {
  const TreeModel m = model(StepId::Sequential, 256, DataType::Float64);
  EXPECT_EQ(m.elementBytes, 8);
  for (const TreeLevel& l : m.levels)
    EXPECT_EQ(l.worstConflict, 1) << "s = " << l.stride;
  EXPECT_EQ(m.levels[0].wavefronts, 4 * 3 * 2);
}

// float64, Strided, 256 threads. s = 1: lane l reads double 2 l, i.e. bytes 16 l, words 4 l and
// 4 l + 1. A phase has 16 lanes: lanes 0-7 use words 0, 1, 4, 5, ..., 28, 29, lanes 8-15 words
// 32, 33, ..., 60, 61: banks {0, 1, 4, 5, ..., 28, 29}, each asked for 2 distinct words: 2-way,
// the same degree as float32, in 2 phases, so 4 wavefronts per request (float32: 2).
// s = 8: 16 lanes, all in phase 0, read words 32 l and 32 l + 1: banks 0 and 1, 16 words each:
// 16-way (float32's 16 lanes spread over banks 0 and 16: 8-way).
TEST(ReductionTree, Float64StridedConflicts) {
  const TreeModel m = model(StepId::Strided, 256, DataType::Float64);
  ASSERT_EQ(m.levels.size(), 8u);
  EXPECT_EQ(m.levels[0].worstConflict, 2);
  EXPECT_EQ(m.levels[0].wavefronts, 4 * 3 * 4);
  // s = 2: words 8 l, 8 l + 1, 16 lanes: banks 0, 1, 8, 9, 16, 17, 24, 25, 4 words each.
  EXPECT_EQ(m.levels[1].worstConflict, 4);
  EXPECT_EQ(m.levels[3].worstConflict, 16);
  const TreeModel f = model(StepId::Strided, 256, DataType::Float32);
  EXPECT_EQ(f.levels[3].worstConflict, 8);
}

// ---------------------------------------------------------------------------------------------
// The tree model: refusals and invariants
// ---------------------------------------------------------------------------------------------

TEST(ReductionTree, Refusals) {
  Result<TreeModel> cub = treeModel(StepId::Cub, 256, DataType::Float32);
  ASSERT_FALSE(cub.ok());
  EXPECT_TRUE(contains(cub.status().message(), "library")) << cub.status().message();
  for (int block : {48, 2048, 0, 16, 1000}) {
    Result<TreeModel> r = treeModel(StepId::Sequential, block, DataType::Float32);
    ASSERT_FALSE(r.ok()) << block;
    EXPECT_TRUE(contains(r.status().message(), std::to_string(block))) << r.status().message();
  }
  // The unrolled warp and the shuffle kernels need two warps at least.
  for (StepId step :
       {StepId::UnrollLast, StepId::Unrolled, StepId::Multiple, StepId::Shuffle, StepId::Atomic}) {
    Result<TreeModel> r = treeModel(step, 32, DataType::Float32);
    EXPECT_FALSE(r.ok()) << stepInfo(step).key;
    EXPECT_TRUE(treeModel(step, 64, DataType::Float32).ok()) << stepInfo(step).key;
  }
  for (StepId step :
       {StepId::Interleaved, StepId::Strided, StepId::Sequential, StepId::FirstAdd, StepId::Course})
    EXPECT_TRUE(treeModel(step, 32, DataType::Float32).ok()) << stepInfo(step).key;
}

// Over every step, valid block and type: every op's slots exist, each level's counts agree with
// its ops and warps, the stride is src - dst, a thread does one op per level, and the levels
// number log2(block).
TEST(ReductionTree, InvariantsEverywhere) {
  for (const StepInfo& s : steps()) {
    if (!handWritten(s)) continue;
    for (int block : kValidBlocks) {
      for (DataType type : kTypes) {
        Result<TreeModel> r = treeModel(s.id, block, type);
        if (!r.ok()) {
          EXPECT_EQ(block, 32) << s.key;
          continue;
        }
        const TreeModel& m = *r;
        SCOPED_TRACE(std::string(s.key) + " block " + std::to_string(block) + " " +
                     typeLabel(type));
        EXPECT_EQ(m.step, s.id);
        EXPECT_EQ(m.block, block);
        EXPECT_EQ(m.slots, block);
        EXPECT_EQ(m.elementBytes, typeBytes(type));
        EXPECT_FALSE(m.load.empty());
        EXPECT_EQ(static_cast<int>(m.levels.size()), log2Of(block));
        int divergent = 0, wavefronts = 0;
        for (const TreeLevel& l : m.levels) {
          SCOPED_TRACE(l.what);
          EXPECT_FALSE(l.what.empty());
          EXPECT_EQ(l.activeThreads, static_cast<int>(l.ops.size()));
          EXPECT_GE(l.activeThreads, 1);
          std::set<int> threads;
          for (const TreeOp& op : l.ops) {
            EXPECT_GE(op.dst, 0);
            EXPECT_LT(op.dst, m.slots);
            EXPECT_GE(op.src, 0);
            EXPECT_LT(op.src, m.slots);
            EXPECT_EQ(op.src - op.dst, l.stride);
            EXPECT_GE(op.thread, 0);
            EXPECT_LT(op.thread, block);
            EXPECT_TRUE(threads.insert(op.thread).second) << op.thread;
          }
          int useful = 0, levelDivergent = 0, levelWavefronts = 0, worst = 0;
          int lastWarp = -1;
          for (const WarpAtLevel& w : l.warps) {
            EXPECT_GT(w.warp, lastWarp);
            lastWarp = w.warp;
            EXPECT_LT(w.warp, block / 32);
            EXPECT_GE(w.executing, 1);
            EXPECT_LE(w.executing, 32);
            EXPECT_LE(w.useful, w.executing);
            EXPECT_EQ(w.divergent, w.executing < 32);
            useful += w.useful;
            levelDivergent += w.divergent ? 1 : 0;
            levelWavefronts += w.wavefronts;
            worst = std::max(worst, w.conflictDegree);
            if (l.shuffle || l.globalMemory) {
              EXPECT_EQ(w.conflictDegree, 0);
            } else {
              EXPECT_GE(w.conflictDegree, 1);
              EXPECT_GE(w.wavefronts, 2);
            }
          }
          EXPECT_EQ(useful, l.activeThreads);
          EXPECT_EQ(levelDivergent, l.divergentWarps);
          EXPECT_EQ(levelWavefronts, l.wavefronts);
          EXPECT_EQ(worst, l.worstConflict);
          EXPECT_EQ(l.globalMemory, s.id == StepId::Course);
          divergent += l.divergentWarps;
          wavefronts += l.wavefronts;
        }
        EXPECT_EQ(divergent, m.totalDivergent());
        EXPECT_EQ(wavefronts, m.totalWavefronts());
        // The last level leaves the block's sum in slot 0.
        ASSERT_FALSE(m.levels.empty());
        ASSERT_EQ(m.levels.back().ops.size(), 1u);
        EXPECT_EQ(m.levels.back().ops[0].dst, 0);
      }
    }
  }
}

// Following the ops level by level, each slot's set of inputs (as a bit mask for 64 threads):
// an addition never adds an input twice (its two slots' sets are disjoint), no slot is written
// and read in one level, and slot 0 ends up holding every input. (The float check of the same
// order is in test_reduction_ref.cpp.)
TEST(ReductionTree, OpsSumEveryInputOnce) {
  for (const StepInfo& s : steps()) {
    if (!handWritten(s)) continue;
    SCOPED_TRACE(s.key);
    const TreeModel m = model(s.id, 64);
    std::vector<std::uint64_t> slot(64);
    for (std::size_t i = 0; i < 64; ++i)
      slot[i] = std::uint64_t{1} << i;
    for (const TreeLevel& l : m.levels) {
      SCOPED_TRACE(l.what);
      std::set<int> written, read;
      for (const TreeOp& op : l.ops) {
        EXPECT_TRUE(written.insert(op.dst).second);
        read.insert(op.src);
      }
      for (int d : written)
        EXPECT_EQ(read.count(d), 0u) << "slot " << d << " written and read";
      for (const TreeOp& op : l.ops) {
        const auto d = static_cast<std::size_t>(op.dst), r = static_cast<std::size_t>(op.src);
        EXPECT_EQ(slot[d] & slot[r], 0u) << "slot " << op.dst << " += slot " << op.src;
        slot[d] |= slot[r];
      }
    }
    EXPECT_EQ(slot[0], ~std::uint64_t{0});
  }
}

}  // namespace
}  // namespace cudalab::reduction
