// The playground's exercise table: every starting kernel and every solution compiles with NVRTC
// (no GPU needed), the table's launches and references hold, and bad runs are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "playground/compile.hpp"
#include "playground/playground.hpp"
#include "playground/source_check.hpp"

using namespace cudalab;
using namespace cudalab::playground;

TEST(PlaygroundExercises, TableIsComplete) {
  std::set<std::string> ids;
  ASSERT_GE(exercises().size(), 8u);
  for (const Exercise& e : exercises()) {
    SCOPED_TRACE(e.id);
    EXPECT_TRUE(ids.insert(e.id).second) << "duplicate id";
    EXPECT_EQ(findExercise(e.id), &e);
    EXPECT_FALSE(starterSource(e).empty());
    EXPECT_FALSE(solutionSource(e).empty());
    EXPECT_NE(starterSource(e), solutionSource(e));
    EXPECT_FALSE(e.hints.empty());
    EXPECT_GT(std::string(e.task).size(), 20u);
    EXPECT_GT(std::string(e.course).size(), 20u);
    EXPECT_LE(e.minN, e.defaultN);
    EXPECT_LE(e.defaultN, e.maxN);
    // The default run and the bug's run are valid launches on the model of an H100.
    EXPECT_TRUE(validate(e, defaultRunParams(e), GpuLimits{}))
        << validate(e, defaultRunParams(e), GpuLimits{}).sentence();
    RunParams bug = defaultRunParams(e);
    bug.n = e.bugN;
    bug.launch = e.bugLaunch;
    bug.autoGrid = false;
    EXPECT_TRUE(validate(e, bug, GpuLimits{})) << validate(e, bug, GpuLimits{}).sentence();
  }
  EXPECT_EQ(findExercise("nope"), nullptr);
}

// Every starting kernel and every solution compiles for sm_90 here, without a GPU, and has the
// entry points the worker launches.
TEST(PlaygroundExercises, EveryKernelCompilesWithNvrtc) {
  for (const Exercise& e : exercises()) {
    for (std::string_view text : {starterSource(e), solutionSource(e)}) {
      SCOPED_TRACE(std::string(e.id) + (text == starterSource(e) ? " starter" : " solution"));
      Result<CompileResult> r = compileKernel(programSource(e, text), entryPoints(e), {});
      ASSERT_TRUE(r) << r.status().sentence();
      EXPECT_TRUE(r->ok) << r->log;
      EXPECT_EQ(r->arch, kDefaultArch);
      EXPECT_FALSE(r->cubin.empty());
      EXPECT_NE(r->ptx.find(".entry"), std::string::npos);
      for (const std::string& entry : entryPoints(e)) {
        bool found = false;
        for (const PtxasInfo& p : r->resources)
          if (p.function == entry) {
            found = true;
            EXPECT_GT(p.registers, 0);
          }
        EXPECT_TRUE(found) << entry;
      }
      for (const Diagnostic& d : r->diagnostics)
        EXPECT_NE(d.severity, Severity::Error) << d.message;
      // The signature is the one the app passes.
      for (const std::string& entry : entryPoints(e)) {
        const std::optional<std::vector<int>> sizes = ptxParamSizes(r->ptx, entry);
        ASSERT_TRUE(sizes) << entry;
        EXPECT_EQ(*sizes, expectedParamSizes(e)) << entry;
      }
    }
  }
}

// The solutions have none of the mistakes lint() looks for; each starter with a missing index or
// guard is flagged.
TEST(PlaygroundExercises, SolutionsLintClean) {
  for (const Exercise& e : exercises()) {
    SCOPED_TRACE(e.id);
    for (const Diagnostic& d : lint(solutionSource(e)))
      ADD_FAILURE() << d.line << ": " << d.message;
  }
  EXPECT_FALSE(lint(starterSource(*findExercise("double"))).empty());
  EXPECT_FALSE(lint(starterSource(*findExercise("matmul"))).empty());
}

TEST(PlaygroundExercises, ElementwiseWrappersAreAppendedNotPrepended) {
  const Exercise& e = *findExercise("elementwise");
  const std::string text = std::string(starterSource(e));
  const std::string program = programSource(e, text);
  EXPECT_EQ(program.rfind(text, 0), 0u);
  EXPECT_NE(program.find("cudalab_apply_double"), std::string::npos);
  EXPECT_EQ(programSource(*findExercise("double"), "x"), "x");
  EXPECT_EQ(signatureText(*findExercise("double")),
            "double_it(const float* in, float* out, int n)");
  EXPECT_EQ(signatureText(*findExercise("multiply")),
            "multiply_them(float* dest, const float* a, const float* b, int n)");
}

TEST(PlaygroundRun, AutoGridCoversN) {
  const Exercise& d = *findExercise("double");
  RunParams p = defaultRunParams(d);
  p.n = 1000;
  p.launch.block = {256, 1, 1};
  EXPECT_EQ(launchFor(d, p).grid, (Dim3{4, 1, 1}));
  p.autoGrid = false;
  p.launch.grid = {3, 1, 1};
  EXPECT_EQ(launchFor(d, p).grid, (Dim3{3, 1, 1}));
  const Exercise& m = *findExercise("matmul");
  RunParams q = defaultRunParams(m);
  q.n = 1000;
  EXPECT_EQ(launchFor(m, q).grid, (Dim3{63, 63, 1}));
  // n x n matrices: the transpose covers the matrix in 32 x 32 blocks, the softmax one block a row.
  const Exercise& t = *findExercise("transpose");
  RunParams tp = defaultRunParams(t);
  tp.n = 1000;
  EXPECT_EQ(launchFor(t, tp).grid, (Dim3{32, 32, 1}));
  const Exercise& sm = *findExercise("softmax");
  RunParams sp = defaultRunParams(sm);
  sp.n = 777;
  EXPECT_EQ(launchFor(sm, sp).grid, (Dim3{777, 1, 1}));
  EXPECT_EQ(launchFor(sm, sp).block, (Dim3{256, 1, 1}));
  // WMMA: one warp per 16 x 16 tile of C padded to a multiple of 16 (1,000 -> 1,008: 63 tiles).
  const Exercise& w = *findExercise("wmma");
  RunParams wp = defaultRunParams(w);
  wp.n = 1000;
  EXPECT_EQ(paddedSide(w.kind, wp.n), 1008);
  EXPECT_EQ(launchFor(w, wp).grid, (Dim3{63, 63, 1}));
  // Blocks of four warps take four neighbouring tiles of a row: 63 tiles need 16 blocks.
  wp.launch.block = {128, 1, 1};
  EXPECT_EQ(launchFor(w, wp).grid, (Dim3{16, 63, 1}));
  wp.launch.block = {32, 1, 1};
  wp.n = 1;
  EXPECT_EQ(launchFor(w, wp).grid, (Dim3{1, 1, 1}));
}

TEST(PlaygroundRun, RefusesWithSentences) {
  const Exercise& d = *findExercise("double");
  RunParams p = defaultRunParams(d);
  GpuLimits lim;
  p.launch.block = {2048, 1, 1};
  Status s = validate(d, p, lim);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("at most 1,024 threads"), std::string::npos) << s.message();
  p.launch.block = {32, 32, 2};
  s = validate(d, p, lim);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("32 x 32 x 2"), std::string::npos) << s.message();
  p.launch.block = {1, 1, 128};
  s = validate(d, p, lim);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("in z"), std::string::npos) << s.message();
  p = defaultRunParams(d);
  p.autoGrid = false;
  p.launch.grid = {1, 70000, 1};
  s = validate(d, p, lim);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("65,535 blocks in y"), std::string::npos) << s.message();
  p.launch.grid = {0, 1, 1};
  EXPECT_FALSE(validate(d, p, lim));
  p = defaultRunParams(d);
  p.n = 0;
  EXPECT_FALSE(validate(d, p, lim));
  p = defaultRunParams(d);
  lim.freeBytes = 100u << 20;
  s = validate(d, p, lim);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("MiB"), std::string::npos);
  p = defaultRunParams(*findExercise("histogram"));
  p.bins = 0;
  EXPECT_FALSE(validate(*findExercise("histogram"), p, GpuLimits{}));
  p = defaultRunParams(d);
  p.timeoutSeconds = 0;
  EXPECT_FALSE(validate(d, p, GpuLimits{}));
}

TEST(PlaygroundInputs, FreshAndReproducible) {
  const Exercise& h = *findExercise("hypot");
  RunParams p = defaultRunParams(h);
  p.n = 10000;
  const Inputs a = makeInputs(h, p);
  const Inputs b = makeInputs(h, p);
  EXPECT_EQ(a.in0, b.in0);
  p.seed = 2;
  EXPECT_NE(makeInputs(h, p).in0, a.in0);
  for (float v : a.in0) {
    EXPECT_NE(v, 0.0f);
    EXPECT_LE(std::fabs(v), 12.0f);
  }
  const Exercise& el = *findExercise("elementwise");
  RunParams q = defaultRunParams(el);
  q.n = 1000;
  const Inputs x = makeInputs(el, q);
  EXPECT_NEAR(x.in0.front(), 1e-8, 1e-14);
  EXPECT_NEAR(x.in0.back(), 1e4, 1e-2);
}

TEST(PlaygroundInputs, References) {
  EXPECT_EQ(mapReference(MapOp::Double, 1.5, 0), 3.0);
  EXPECT_EQ(mapReference(MapOp::Hypot, 3, 4), 5.0);
  EXPECT_EQ(mapTolerance(MapOp::Double, 3.0), 0.0);
  EXPECT_NEAR(mapTolerance(MapOp::Hypot, 5.0), 4 * std::ldexp(1.0, 2 - 23), 1e-15);
  // The exact f does not cancel: for tiny x it is x^2 / 2.
  EXPECT_NEAR(static_cast<double>(elementwiseExact(1e-8L)), 5e-17, 1e-30);
  EXPECT_NEAR(static_cast<double>(elementwiseExact(3.0L)), std::sqrt(10.0) - 1, 1e-15);
}

// The softmax exercise's reference and tolerance: a float32 softmax that subtracts the row's
// maximum (three passes, as the solution) is within the tolerance at every element of fresh random
// scores; the starter's, without the maximum, overflows; an off-by-one-column answer does not pass.
TEST(PlaygroundInputs, SoftmaxReferenceAdmitsAFloatSoftmaxOnly) {
  const Exercise& e = *findExercise("softmax");
  RunParams p = defaultRunParams(e);
  p.seed = std::random_device{}();
  for (long long n : {1LL, 33LL, 257LL, 1000LL}) {
    SCOPED_TRACE(n);
    p.n = n;
    const Inputs in = makeInputs(e, p);
    ASSERT_EQ(in.in0.size(), static_cast<size_t>(n * n));
    const std::vector<double> ref = softmaxReference(in.in0, static_cast<int>(n));
    long long overflowed = 0, shiftedWrong = 0;
    for (long long r = 0; r < n; ++r) {
      const float* x = in.in0.data() + r * n;
      float m = x[0];
      for (long long j = 0; j < n; ++j)
        m = std::max(m, x[j]);
      float s = 0, raw = 0;
      for (long long j = 0; j < n; ++j) {
        s += std::exp(x[j] - m);
        raw += std::exp(x[j]);
      }
      double rowSum = 0;
      for (long long j = 0; j < n; ++j) {
        const size_t k = static_cast<size_t>(r * n + j);
        rowSum += ref[k];
        const double tol = softmaxTolerance(double(m) - x[j], ref[k], static_cast<int>(n));
        const float good = std::exp(x[j] - m) / s;
        ASSERT_LE(std::fabs(good - ref[k]), tol) << r << ", " << j;
        const float naive = std::exp(x[j]) / raw;
        overflowed += !(std::fabs(naive - ref[k]) <= tol);
        // The neighbour's value (a kernel that mixed up its columns).
        const float other = std::exp(x[(j + 1) % n] - m) / s;
        shiftedWrong += n > 1 && !(std::fabs(other - ref[k]) <= tol);
      }
      EXPECT_NEAR(rowSum, 1.0, 1e-12);
    }
    // Scores reach 120: exp overflows float32 above 88.7, in almost every row.
    if (n >= 33) {
      EXPECT_GT(overflowed, n * n / 2);
    }
    // (Scores more than about 87 below their row's maximum come out below float32's smallest
    // normal number, where the tolerance is absolute: about a fifth of them.)
    if (n > 1) {
      EXPECT_GT(shiftedWrong, n * n / 2);
    }
  }
}

// The course's cpu_histogram: hand-worked bins, values outside the range, and the truncation
// toward zero that puts numbers just below xmin into bin 0, as np.int32 did.
TEST(PlaygroundInputs, CourseHistogram) {
  const std::vector<float> x = {-3.9f, -0.1f, 0.0f, 0.79f, 0.81f, 3.99f, 4.0f, 5.0f, -4.5f, -4.1f};
  const std::vector<int> h = cpuHistogram(x, -4.0f, 4.0f, 10);
  // width 0.8: -3.9 -> 0; -0.1 -> 4; 0 -> 5; 0.79 -> 5; 0.81 -> 6; 3.99 -> 9; 4.0 -> 10 (out);
  // 5 -> out; -4.5 -> int(-0.625) = 0; -4.1 -> int(-0.125) = 0.
  EXPECT_EQ(h, (std::vector<int>{3, 0, 0, 0, 1, 2, 1, 0, 0, 1}));
  // 0.0 sits exactly on the edge between bins 4 and 5: slack for both.
  const std::vector<int> slack = histogramSlack(std::vector<float>{0.0f, 0.4f}, -4.0f, 4.0f, 10);
  EXPECT_EQ(slack[4], 1);
  EXPECT_EQ(slack[5], 1);
  EXPECT_EQ(slack[0], 0);
}

TEST(PlaygroundLaunch, NumbersFromRegistersAndShared) {
  const Exercise& d = *findExercise("double");
  RunParams p = defaultRunParams(d);
  p.n = 1000;
  p.launch.block = {100, 1, 1};
  const LaunchNumbers ln = launchNumbers(d, p, 16, 0, SmModel{}, 132);
  EXPECT_EQ(ln.blocks, 10);
  EXPECT_EQ(ln.threads, 1000);
  EXPECT_EQ(ln.idleThreads, 0);
  EXPECT_EQ(ln.warps, 40);
  EXPECT_EQ(ln.emptyLanes, 40 * 32 - 1000);
  EXPECT_EQ(ln.waves, 1);
  p.n = 1001;
  EXPECT_EQ(launchNumbers(d, p, 16, 0, SmModel{}, 132).idleThreads, 99);
}

TEST(PlaygroundLaunch, RegistersRefuseBlocksThatCannotFit) {
  const Exercise& d = *findExercise("double");
  RunParams p = defaultRunParams(d);
  p.launch.block = {1024, 1, 1};
  EXPECT_TRUE(checkRegisters(d, p, 64, SmModel{}));  // 64 x 1,024 = 65,536: just fits
  EXPECT_TRUE(checkRegisters(d, p, 0, SmModel{}));   // unknown: nothing refused
  const Status s = checkRegisters(d, p, 128, SmModel{});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("131,072 registers"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("at most 512 threads"), std::string::npos) << s.message();
  p.launch.block = {512, 1, 1};
  EXPECT_TRUE(checkRegisters(d, p, 128, SmModel{}));
}

TEST(PlaygroundExercises, ParameterSizesFromPtx) {
  Result<CompileResult> r = compileKernel(
      "struct P { double a, b; };\n"
      "extern \"C\" __global__ void k(float* o, long long n, int m, P p) { o[0] = n + m + p.a; }",
      {"k"}, {});
  ASSERT_TRUE(r && r->ok);
  const std::optional<std::vector<int>> sizes = ptxParamSizes(r->ptx, "k");
  ASSERT_TRUE(sizes);
  EXPECT_EQ(*sizes, (std::vector<int>{8, 8, 4, 16}));
  EXPECT_FALSE(ptxParamSizes(r->ptx, "nope"));
}
