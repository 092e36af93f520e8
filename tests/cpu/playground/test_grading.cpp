// "Check at every size": the sizes chosen for each exercise, the verdict's sentence, and a grading
// whose runs are faked (the GPU test runs real kernels): a kernel right only for powers of two
// fails, and the sizes that caught it are named.
#include <gtest/gtest.h>

#include <set>

#include "playground/grading.hpp"
#include "playground/playground.hpp"

using namespace cudalab;
using namespace cudalab::playground;

TEST(Grading, EveryExerciseGetsItsEdgeSizes) {
  for (const Exercise& e : exercises()) {
    SCOPED_TRACE(e.id);
    const RunParams p = defaultRunParams(e);
    const std::vector<GradeCase> cases = gradingCases(e, p);
    ASSERT_GE(cases.size(), e.kind == Kind::Counter ? 4u : 6u);
    std::set<long long> ns;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const GradeCase& c = cases[i];
      EXPECT_GE(c.n, e.minN);
      EXPECT_LE(c.n, e.maxN);
      EXPECT_FALSE(c.why.empty());
      if (e.kind != Kind::Counter) {
        EXPECT_EQ(c.launch.block, p.launch.block) << "the learner's block";
      }
      if (e.kind != Kind::Counter) {
        EXPECT_TRUE(ns.insert(c.n).second) << "each size once: " << c.n;
        if (i) {
          EXPECT_GT(c.n, cases[i - 1].n) << "ascending";
        }
      }
      // Every size is a valid launch on an H100's limits.
      RunParams q = p;
      q.n = c.n;
      q.launch = c.launch;
      q.autoGrid = c.autoGrid;
      EXPECT_TRUE(validate(e, q, GpuLimits{}))
          << c.n << ": " << validate(e, q, GpuLimits{}).sentence();
    }
    if (e.kind == Kind::Counter) continue;
    EXPECT_TRUE(ns.count(e.minN)) << "the smallest N";
    EXPECT_TRUE(ns.count(p.n)) << "the exercise's own size";
    const bool matrix = squareMatrix(e.kind);
    for (long long n : {31LL, 32LL, 33LL, 1009LL})
      if (n <= e.maxN) {
        EXPECT_TRUE(ns.count(n)) << n;
      }
    const long long b = gridOverMatrix(e.kind) ? p.launch.block.x : p.launch.block.count();
    EXPECT_TRUE(ns.count(b + 1)) << "one more than the block";
    // The largest: odd, capped (2^28 elements; n x n matrices at 8,192, a product at 1,536).
    EXPECT_EQ(*ns.rbegin() % 2, 1);
    EXPECT_LE(*ns.rbegin(), matrixProduct(e.kind) ? 1536 : matrix ? 8192 : 1LL << 28);
  }
  // A fixed grid adds sizes around its threads.
  const Exercise& hypot = *findExercise("hypot");
  RunParams fixed = defaultRunParams(hypot);
  fixed.autoGrid = false;
  fixed.launch = {{128, 1, 1}, {64, 1, 1}};
  std::set<long long> ns;
  for (const GradeCase& c : gradingCases(hypot, fixed))
    ns.insert(c.n);
  EXPECT_TRUE(ns.count(128 * 64 / 2 + 1));
  EXPECT_TRUE(ns.count(128 * 64 + 1));
}

TEST(Grading, AKernelRightOnlyForPowersOfTwoFailsAndTheSizesAreNamed) {
  const Exercise& e = *findExercise("double");
  const RunParams p = defaultRunParams(e);
  std::vector<long long> ran;
  const Grade g = gradeAtEverySize(e, p, [&](const RunParams& q) -> Result<RunReport> {
    ran.push_back(q.n);
    EXPECT_EQ(q.runs, 1);
    EXPECT_FALSE(q.compare);
    RunReport r;
    r.checked = q.n;
    const bool powerOfTwo = (q.n & (q.n - 1)) == 0;
    r.ok = powerOfTwo;
    r.wrong = r.unwritten = powerOfTwo ? 0 : 1 + q.n % 32;
    r.medianMs = 0.01;
    return r;
  });
  EXPECT_EQ(ran.size(), gradingCases(e, p).size());
  EXPECT_FALSE(g.passed());
  std::set<long long> failed;
  for (const SizeVerdict& v : g.sizes) {
    EXPECT_TRUE(v.ran);
    if (!v.ok) {
      failed.insert(v.c.n);
      EXPECT_FALSE(v.why.empty());
      EXPECT_NE(englishOf(v.why).find("never written"), std::string::npos) << englishOf(v.why);
    } else {
      EXPECT_TRUE(v.why.empty());
    }
  }
  EXPECT_TRUE(failed.count(33));
  EXPECT_TRUE(failed.count(1009));
  EXPECT_FALSE(failed.count(32));
  EXPECT_EQ(g.failed(), static_cast<int>(failed.size()));
}

TEST(Grading, ARunThatCannotRunIsItsSizesVerdictAndTheRestGoOn) {
  const Exercise& e = *findExercise("reduce");
  const RunParams p = defaultRunParams(e);
  int calls = 0;
  const Grade g = gradeAtEverySize(e, p, [&](const RunParams& q) -> Result<RunReport> {
    ++calls;
    if (q.n == 33) return Status::error("The worker stopped: an illegal memory access.");
    RunReport r;
    r.checked = 1;
    r.ok = q.n != 1009;
    r.sum = 5;
    r.exactSum = r.ok ? 5 : 7;
    return r;
  });
  EXPECT_EQ(calls, static_cast<int>(gradingCases(e, p).size()));
  EXPECT_FALSE(g.passed());
  for (const SizeVerdict& v : g.sizes) {
    if (v.c.n == 33) {
      EXPECT_FALSE(v.ran);
      EXPECT_NE(englishOf(v.why).find("illegal memory access"), std::string::npos);
    }
    if (v.c.n == 1009) {
      EXPECT_EQ(englishOf(v.why), "the total is 5, the exact sum 7");
    }
  }
  // Cancelled before the first size: nothing ran, and it did not pass.
  std::atomic<bool> stop{true};
  const Grade none = gradeAtEverySize(
      e, p, [](const RunParams&) -> Result<RunReport> { return RunReport{}; }, &stop);
  EXPECT_TRUE(none.cancelled);
  EXPECT_TRUE(none.sizes.empty());
  EXPECT_FALSE(none.passed());
}

TEST(Grading, TheVerdictNamesOnlyTheMistakesMade) {
  RunReport r;
  r.checked = 775;
  r.wrong = 519;
  r.unwritten = 519;
  EXPECT_EQ(englishOf(verdictOf(r)), "519 of 775 never written");
  r.wrong = 520;
  r.pastEnd = 3;
  EXPECT_EQ(englishOf(verdictOf(r)),
            "519 of 775 never written; 1 of 775 wrong; 3 writes past the end");
  RunReport counter;
  counter.checked = 1;
  counter.wrong = 1;
  counter.counts = {4096, 17};
  EXPECT_EQ(englishOf(verdictOf(counter)), "the counter ended at 17");
  RunReport right;
  right.ok = true;
  EXPECT_TRUE(verdictOf(right).empty());
}
