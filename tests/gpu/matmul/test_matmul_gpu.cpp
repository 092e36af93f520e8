// The matmul lesson's kernels on a real GPU: every hand-written step (float32 steps on float
// buffers, float64 steps on double buffers) against the float64 CPU reference for sizes that are
// no multiple of any tile (1x1x1, 17x33x9, 257x129x511, a random one) and a large square one,
// outputs poisoned with NaN and fresh random inputs for every shape, nothing written past C; the
// measured ladder with cuBLAS at two sizes, the size sweep and the course's comparison all
// verified; a library step, a precision mismatch and a bad size refused before any launch.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_raii.hpp"
#include "matmul/matmul.hpp"
#include "tests/gpu/sanitizing.hpp"

namespace cudalab::matmul {
namespace {

std::uint32_t seed() {
  return std::random_device{}();
}

template <class T>
std::vector<T> randomMatrix(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<T> u(T(-1), T(1));
  std::vector<T> v(n);
  for (T& x : v)
    x = u(rng);
  return v;
}

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

// Elements past the end of C, poisoned with C and checked untouched after each launch.
constexpr std::size_t kGuard = 1024;

// A and B of one shape on the device and their reference; runs steps of one precision on them.
template <class T>
class Problem {
 public:
  Problem(int M, int N, int K, std::mt19937& rng)
      : M_{M}, N_{N}, K_{K} {  // braces: N_( is the catalogue's mark
    const std::vector<T> a = randomMatrix<T>(count(M, K), rng);
    const std::vector<T> b = randomMatrix<T>(count(K, N), rng);
    ref_ = referenceProduct(a.data(), b.data(), M, N, K, checkedRows(M, N));
    EXPECT_TRUE(dA_.allocate(a.size()).ok());
    EXPECT_TRUE(dB_.allocate(b.size()).ok());
    EXPECT_TRUE(dC_.allocate(count(M, N) + kGuard).ok());
    EXPECT_EQ(cudaMemcpy(dA_.get(), a.data(), dA_.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(dB_.get(), b.data(), dB_.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  }

  // Launches `step` on a poisoned C; returns the comparison, and counts guard elements written.
  Correctness run(StepId step, std::size_t& guardWritten) {
    EXPECT_EQ(cudaMemset(dC_.get(), 0xff, dC_.bytes()), cudaSuccess);  // NaN nobody writes
    const Status s = launchStep(step, dA_.get(), dB_.get(), dC_.get(), M_, N_, K_, nullptr);
    EXPECT_TRUE(s.ok()) << s.sentence();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<T> c(dC_.size());
    EXPECT_EQ(cudaMemcpy(c.data(), dC_.get(), dC_.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    guardWritten = 0;
    for (std::size_t i = count(M_, N_); i < c.size(); ++i) {
      std::array<unsigned char, sizeof(T)> bytes =
          std::bit_cast<std::array<unsigned char, sizeof(T)>>(c[i]);
      for (unsigned char byte : bytes)
        if (byte != 0xff) {
          ++guardWritten;
          break;
        }
    }
    return compare(c.data(), ref_, stepInfo(step).precision, K_);
  }

  std::size_t rowsChecked() const { return ref_.rows.size(); }

 private:
  int M_, N_, K_;
  Reference ref_;
  DeviceArray<T> dA_, dB_, dC_;
};

std::vector<StepId> handWrittenSteps(Precision p) {
  std::vector<StepId> out;
  for (const StepInfo& s : steps())
    if (handWritten(s) && s.precision == p) out.push_back(s.id);
  return out;
}

template <class T>
void checkSteps(Precision p, int M, int N, int K, std::mt19937& rng) {
  const std::string shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  Problem<T> problem(M, N, K, rng);
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_EQ(problem.rowsChecked(), checkedRows(M, N).size());
  for (StepId step : handWrittenSteps(p)) {
    std::size_t guard = 0;
    const Correctness c = problem.run(step, guard);
    const char* key = stepInfo(step).key;
    EXPECT_TRUE(c.ran) << key << " " << shape;
    EXPECT_EQ(c.wrong, 0u) << key << " " << shape << ": first wrong at " << c.firstWrong
                           << ", max error " << c.maxAbsError;
    EXPECT_EQ(c.checked, problem.rowsChecked() * static_cast<std::size_t>(N))
        << key << " " << shape;
    EXPECT_EQ(guard, 0u) << key << " " << shape << " wrote past the end of C";
  }
}

std::vector<std::array<int, 3>> shapes(std::mt19937& rng) {
  std::uniform_int_distribution<int> d(1, 300);
  // Awkward sizes first; 130 x 260 x 36 takes the float4 paths (N and K multiples of 4) with
  // partial tiles at both edges; 1024^3 is all rows checked, every tile full (under a sanitizer,
  // where racecheck takes minutes per 1024^3 kernel, 256^3: every tile of every step full too).
  const int full = testing_support::sanitizerSized(1024, 256);
  return {{1, 1, 1},      {17, 33, 9},       {257, 129, 511}, {d(rng), d(rng), d(rng)},
          {130, 260, 36}, {full, full, full}};
}

TEST(MatmulGpu, EveryFloat32StepMatchesTheReference) {
  const std::uint32_t sd = seed();
  SCOPED_TRACE("seed " + std::to_string(sd));
  std::mt19937 rng(sd);
  for (auto [M, N, K] : shapes(rng))
    checkSteps<float>(Precision::Float32, M, N, K, rng);
}

TEST(MatmulGpu, EveryFloat64StepMatchesTheReference) {
  const std::uint32_t sd = seed();
  SCOPED_TRACE("seed " + std::to_string(sd));
  std::mt19937 rng(sd);
  for (auto [M, N, K] : shapes(rng))
    checkSteps<double>(Precision::Float64, M, N, K, rng);
}

void checkLadder(int M, int N, int K) {
  SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
  const std::span<const StepId> which = allStepIds();
  const Result<LadderReport> r = measureLadder(MatmulParams{M, N, K, 0, 1}, which);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  EXPECT_EQ(r->p.M, M);
  EXPECT_FALSE(r->device.empty());
  ASSERT_EQ(r->steps.size(), which.size());
  const std::size_t checked = checkedRows(M, N).size() * static_cast<std::size_t>(N);
  for (std::size_t i = 0; i < which.size(); ++i) {
    const StepResult& s = r->steps[i];
    const StepInfo& info = stepInfo(s.step);
    EXPECT_EQ(s.step, which[i]);
    EXPECT_EQ(r->find(s.step), &s);
    EXPECT_TRUE(s.error.ok()) << info.key << ": " << s.error.wrong << " wrong, max error "
                              << s.error.maxAbsError;
    EXPECT_EQ(s.error.checked, checked) << info.key;
    EXPECT_GT(s.gflops, 0) << info.key;
    EXPECT_LT(s.error.maxRelError, 1e-2) << info.key;
    if (handWritten(info)) {
      EXPECT_GT(s.ofLibrary, 0) << info.key;
    }
  }
  const StepResult* cublas = r->find(StepId::Cublas);
  ASSERT_NE(cublas, nullptr);
  EXPECT_DOUBLE_EQ(cublas->ofLibrary, 1.0);
  // float64 is checked against a far tighter bound: its error is far below float32's.
  const StepResult* dgemm = r->find(StepId::Cublas64);
  ASSERT_NE(dgemm, nullptr);
  EXPECT_LT(dgemm->error.maxAbsError, cublas->error.maxAbsError);
}

TEST(MatmulGpu, MeasuredLadderIsCorrectAtAwkwardSize) {
  checkLadder(257, 129, 511);
}

// Under a sanitizer 256^3: the same full tiles, without minutes of racecheck per repeat.
TEST(MatmulGpu, MeasuredLadderIsCorrectAtASquareSize) {
  const int n = testing_support::sanitizerSized(1024, 256);
  checkLadder(n, n, n);
}

TEST(MatmulGpu, SweepReturnsVerifiedPoints) {
  const std::vector<int> sizes = {64, 130};
  const std::vector<StepId> which = {StepId::Tiled16, StepId::Cublas};
  const SweepRun<SweepPoint> run = measureSweep(sizes, which);
  ASSERT_TRUE(run.stopped.ok()) << run.stopped.sentence();
  const std::vector<SweepPoint>* r = &run.points;
  ASSERT_EQ(r->size(), 4u);
  for (std::size_t i = 0; i < r->size(); ++i) {
    const SweepPoint& p = (*r)[i];
    EXPECT_EQ(p.n, sizes[i / 2]);
    EXPECT_EQ(p.step, which[i % 2]);
    EXPECT_TRUE(p.ok) << p.n << " " << stepInfo(p.step).key;
    EXPECT_GT(p.gflops, 0);
  }
}

TEST(MatmulGpu, CourseComparisonRunsEveryRow) {
  const Result<CourseReport> r = measureCourse(64, true);
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  EXPECT_EQ(r->n, 64);
  EXPECT_GE(r->cpuThreads, 1);
  ASSERT_EQ(r->rows.size(), 5u);
  int gpuRows = 0;
  for (const CourseRow& row : r->rows) {
    EXPECT_TRUE(row.ran) << row.what << ": " << row.note;
    EXPECT_TRUE(row.note.empty()) << row.what << ": " << row.note;
    EXPECT_GT(row.ms, 0) << row.what;
    EXPECT_GT(row.gflops, 0) << row.what;
    // 64 products of numbers in [-1, 1]: float32 sums stray by about 1e-6.
    EXPECT_LT(row.maxAbsVsRef, 1e-4) << row.what;
    EXPECT_LT(row.maxAbsVsCpu, 1e-4) << row.what;
    gpuRows += row.gpu ? 1 : 0;
  }
  EXPECT_EQ(gpuRows, 3);
}

TEST(MatmulGpu, DeviceLimitsAllowEveryStep) {
  // Every GPU since Volta: 1,024 threads and 48 KiB of static shared memory per block.
  const BlockLimits l = deviceBlockLimits();
  EXPECT_EQ(l.maxThreadsPerBlock, 1024);
  EXPECT_EQ(l.sharedPerBlock, 48 * 1024);
  for (const StepInfo& s : steps())
    EXPECT_TRUE(validateLaunch(s, l).ok()) << s.key;
  EXPECT_FALSE(validateTile(TileChoice{64, Precision::Float32}, l).ok());
  EXPECT_TRUE(validateTile(TileChoice{32, Precision::Float64}, l).ok());
}

TEST(MatmulGpu, RefusalsBeforeAnyLaunch) {
  DeviceArray<float> f;
  DeviceArray<double> d;
  ASSERT_TRUE(f.allocate(16).ok());
  ASSERT_TRUE(d.allocate(16).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (StepId lib : {StepId::Cublas, StepId::CublasTf32}) {
    const Status s = launchStep(lib, f.get(), f.get(), f.get(), 4, 4, 1, nullptr);
    EXPECT_FALSE(s.ok()) << stepInfo(lib).key;
    EXPECT_NE(s.sentence().find("cuBLAS"), std::string::npos) << s.sentence();
  }
  EXPECT_FALSE(launchStep(StepId::Cublas64, d.get(), d.get(), d.get(), 4, 4, 1, nullptr).ok());
  // float buffers for a float64 step, and double buffers for a float32 one.
  const Status f64 = launchStep(StepId::Naive64, f.get(), f.get(), f.get(), 4, 4, 1, nullptr);
  ASSERT_FALSE(f64.ok());
  EXPECT_NE(f64.sentence().find("float64"), std::string::npos) << f64.sentence();
  EXPECT_FALSE(launchStep(StepId::Tiled64, f.get(), f.get(), f.get(), 4, 4, 1, nullptr).ok());
  EXPECT_FALSE(launchStep(StepId::Naive, d.get(), d.get(), d.get(), 4, 4, 1, nullptr).ok());
  EXPECT_FALSE(launchStep(StepId::Warp, d.get(), d.get(), d.get(), 4, 4, 1, nullptr).ok());
  // Bad sizes: refused with the size's name, before the null pointers could be touched.
  const float* in32 = nullptr;
  float* out32 = nullptr;
  const double* in64 = nullptr;
  double* out64 = nullptr;
  const Status m0 = launchStep(StepId::Naive, in32, in32, out32, 0, 4, 4, nullptr);
  ASSERT_FALSE(m0.ok());
  EXPECT_NE(m0.sentence().find("M must"), std::string::npos) << m0.sentence();
  EXPECT_FALSE(launchStep(StepId::Warp, in32, in32, out32, 4, 0, 4, nullptr).ok());
  EXPECT_FALSE(launchStep(StepId::Tiled16, in32, in32, out32, 4, 4, 16385, nullptr).ok());
  EXPECT_FALSE(launchStep(StepId::Tiled64, in64, in64, out64, 4, 4, 0, nullptr).ok());
  // Nothing was launched: no error waits on the device.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // A refused ladder: the same sizes through measureLadder.
  const std::vector<StepId> which = {StepId::Naive};
  EXPECT_FALSE(measureLadder(MatmulParams{0, 4, 4, 0, 1}, which).ok());
}

}  // namespace
}  // namespace cudalab::matmul
