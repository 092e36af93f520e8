// The tensor-cores lesson on a real GPU: every step, in BF16 and in FP16, against the float64
// reference for sizes no tile divides (1x1x1, 17x8x33, 257x129x511, a random one) and a large odd
// one (4097 x 4095 x 4093, sampled rows), fresh random inputs and C poisoned with NaN before every
// run; nothing written past the padded C; a step the GPU or the build cannot run skipped with its
// reason; bad sizes and a library step refused before any launch.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_raii.hpp"
#include "tensor_cores/tensor_cores.hpp"
#include "tensor_cores/tensor_cores_hopper.hpp"
#include "tests/gpu/sanitizing.hpp"

namespace cudalab::tensor_cores {
namespace {

using testing_support::sanitizerSized;

int computeCapability() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor;
}

// Checks every step's result; with `print`, also prints each step's TFLOP/s and share of cuBLAS
// (what was measured, for the log; no timing is asserted).
void checkLadder(int M, int N, int K, InputFormat f, bool print = false) {
  SCOPED_TRACE(std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K) + " " +
               formatLabel(f));
  TensorParams p{.M = M, .N = N, .K = K, .format = f, .warmup = 0, .runs = 2};
  Result<LadderReport> r = measureLadder(p, allStepIds());
  ASSERT_TRUE(r.ok()) << r.status().sentence();
  EXPECT_EQ(r->steps.size() + r->skipped.size(), allStepIds().size());
  for (const Skipped& s : r->skipped) {
    // Only what this GPU or this build lacks: never a step whose needs are met.
    const Status why = available(s.step, f);
    EXPECT_FALSE(why.ok()) << stepInfo(s.step).key;
    EXPECT_FALSE(s.why.empty());
    std::printf("skipped %s: %s\n", stepInfo(s.step).key, phraseEnglish(s.why).c_str());
  }
  for (const StepResult& s : r->steps) {
    EXPECT_TRUE(s.error.ok()) << stepInfo(s.step).key << ": " << s.error.wrong << " of "
                              << s.error.checked << " wrong, max |error| " << s.error.maxAbsError;
    EXPECT_GT(s.error.checked, 0u) << stepInfo(s.step).key;
    EXPECT_GT(s.tflops, 0) << stepInfo(s.step).key;
    if (print)
      std::printf("%-14s %8.1f TFLOP/s %6.1f%% of cuBLAS %s  max |error| %.2e\n",
                  stepInfo(s.step).key, s.tflops, 100 * s.ofLibrary, formatLabel(f),
                  s.error.maxAbsError);
  }
  if (computeCapability() >= 80) {
    EXPECT_TRUE(r->find(libraryFor(f)) != nullptr);
  }
}

TEST(TensorCoresGpu, EveryStepMatchesTheReferenceAtOddSizes) {
  std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int> size(1, sanitizerSized(700, 150));
  const int rm = size(rng), rn = size(rng), rk = size(rng);
  for (InputFormat f : {InputFormat::BFloat16, InputFormat::Half}) {
    checkLadder(1, 1, 1, f);
    checkLadder(17, 8, 33, f);
    checkLadder(rm, rn, rk, f);
    if (!testing_support::underSanitizer()) checkLadder(257, 129, 511, f);
  }
}

TEST(TensorCoresGpu, ALargeOddProductIsRightOnSampledRows) {
  if (testing_support::underSanitizer()) GTEST_SKIP() << "the small sizes cover these paths";
  checkLadder(4097, 4095, 4093, InputFormat::BFloat16, true);
  checkLadder(4096, 4096, 4096, InputFormat::BFloat16, true);
  checkLadder(4096, 4096, 4096, InputFormat::Half, true);
}

// A hand-written step launched alone on exact tiles (N = 256 and K = 64, the Hopper steps'
// tiles): C's 256 x 256 elements written, the guard after them (poisoned like C) untouched.
TEST(TensorCoresGpu, NothingIsWrittenPastC) {
  constexpr int M = 256, N = 256, K = 64;
  constexpr std::size_t kGuard = 4096;
  DeviceArray<std::uint16_t> a, b;
  DeviceArray<float> c;
  ASSERT_TRUE(a.allocate(std::size_t(M) * K).ok());
  ASSERT_TRUE(b.allocate(std::size_t(K) * N).ok());
  ASSERT_TRUE(c.allocate(std::size_t(M) * N + kGuard).ok());
  // 1.0 in BF16 (0x3f80) and FP16 (0x3c00): every element of C is K.
  for (InputFormat f : {InputFormat::BFloat16, InputFormat::Half}) {
    const std::uint16_t one = f == InputFormat::Half ? 0x3c00 : 0x3f80;
    std::vector<std::uint16_t> ones(std::size_t(M) * K, one);
    ASSERT_EQ(cudaMemcpy(a.get(), ones.data(), a.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b.get(), ones.data(), b.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
    for (StepId s : allStepIds()) {
      if (!handWritten(stepInfo(s)) || !available(s, f).ok()) continue;
      SCOPED_TRACE(std::string(stepInfo(s).key) + " " + formatLabel(f));
      ASSERT_EQ(cudaMemset(c.get(), 0xff, c.bytes()), cudaSuccess);
      // B is all ones, so B transposed (the Hopper steps' operand) is the same buffer.
      const Status launched =
          stepInfo(s).family == Family::Wgmma
              ? launchHopperStep(s, f, a.get(), b.get(), c.get(), M, N, K, nullptr)
              : launchStep(s, f, a.get(), b.get(), c.get(), M, N, K, nullptr);
      ASSERT_TRUE(launched.ok()) << launched.sentence();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<float> out(c.size());
      ASSERT_EQ(cudaMemcpy(out.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
      std::size_t wrong = 0, touched = 0;
      for (std::size_t e = 0; e < std::size_t(M) * N; ++e)
        wrong += out[e] != float(K);
      for (std::size_t e = std::size_t(M) * N; e < out.size(); ++e)
        touched += std::bit_cast<std::uint32_t>(out[e]) != 0xffffffffu;
      EXPECT_EQ(wrong, 0u);
      EXPECT_EQ(touched, 0u);
    }
  }
}

TEST(TensorCoresGpu, BadShapesAndLibraryStepsAreRefusedBeforeAnyLaunch) {
  float* none = nullptr;
  Status s = launchStep(StepId::MmaPipelined, InputFormat::BFloat16, none, none, none, 100, 128, 32,
                        nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.sentence().find("multiples of 128"), std::string::npos) << s.sentence();
  s = launchStep(StepId::CublasBf16, InputFormat::BFloat16, none, none, none, 128, 128, 32,
                 nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // nothing was launched
}

// The ladder under the counters: every step that runs uses the tensor pipe, and step 4's swizzle
// removes most of the bank conflicts step 3's ldmatrix reads meet (counts, not times).
TEST(TensorCoresGpu, CountersSeeTheTensorPipeAndTheSwizzle) {
  if (testing_support::underSanitizer())
    GTEST_SKIP() << "the profiler and a sanitizer exclude each other";
  if (computeCapability() < 80) GTEST_SKIP() << "mma.sync needs sm_80";
  Result<std::vector<counters::StepReading>> r = measureCounters(
      TensorParams{.M = 1024, .N = 1024, .K = 1024}, allStepIds(), nullptr, nullptr);
  if (!r) GTEST_SKIP() << r.status().sentence();
  const counters::StepReading *plain = nullptr, *swizzled = nullptr;
  for (const counters::StepReading& s : *r) {
    SCOPED_TRACE(s.key);
    EXPECT_GT(s.measured.value("tensor_pipe_active").value_or(0), 0.0);
    EXPECT_GT(s.measured.value("tensor_instructions").value_or(0), 0.0);
    EXPECT_GT(s.modelValue("dram_bytes_read").value_or(0), 0.0);
    if (s.key == stepInfo(StepId::MmaLdmatrix).key) plain = &s;
    if (s.key == stepInfo(StepId::MmaSwizzled).key) swizzled = &s;
    std::printf(
        "%-14s tensor %5.1f%%  %10.0f tensor instr  %10.0f load conflicts  %10.0f all  "
        "%8.1f MiB DRAM\n",
        s.key.c_str(), s.measured.value("tensor_pipe_active").value_or(-1),
        s.measured.value("tensor_instructions").value_or(-1),
        s.measured.value("shared_load_bank_conflicts").value_or(-1),
        s.measured.value("shared_bank_conflicts").value_or(-1),
        s.measured.value("dram_bytes_read").value_or(-1) / 1048576.0);
  }
  ASSERT_TRUE(plain && swizzled);
  const double before = plain->measured.value("shared_load_bank_conflicts").value_or(0),
               after = swizzled->measured.value("shared_load_bank_conflicts").value_or(-1);
  EXPECT_GT(before, 4 * (after + 1)) << before << " against " << after;
}

}  // namespace
}  // namespace cudalab::tensor_cores
