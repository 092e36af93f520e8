// Status and Result: errors as values that keep the failing expression, file and line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"
#include "common/runtime_info.hpp"
#include "common/status.hpp"

namespace cudalab {
namespace {

constexpr int kFailingLine = __LINE__ + 2;
Status failingCudaCall() {
  CUDALAB_CUDA_TRY(cudaErrorInvalidValue);  // stands for any CUDA call that fails
  return {};
}
Status succeedingCudaCall() {
  CUDALAB_CUDA_TRY(cudaSuccess);
  return {};
}
Status chained(bool fail) {
  CUDALAB_TRY(fail ? Status::error("inner failed.") : Status{});
  return Status::error("reached the end.");
}
Result<int> half(int v) {
  if (v % 2) return Status::error(std::to_string(v) + " is odd.");
  return v / 2;
}

// errorf keeps the format (for a translation) and says the English sentence.
TEST(Status, ErrorfFillsItsValuesInOrderAndKeepsTheFormat) {
  const Status s =
      Status::errorf("%s must be between %s and %s; 100%% of %s", {"a", "1", "2", "x"});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "a must be between 1 and 2; 100% of x");
  EXPECT_EQ(s.sentence(), s.message());
  EXPECT_STREQ(s.format(), "%s must be between %s and %s; 100%% of %s");
  ASSERT_EQ(s.values().size(), 4u);
  // Missing values leave nothing; a context prefix is English, so the format goes.
  EXPECT_EQ(fillFormat("%s and %s", {"one"}), "one and ");
  const Status c = s.context("measuring");
  EXPECT_EQ(c.format(), nullptr);
  EXPECT_EQ(c.message(), "measuring: " + s.message());
}

// A Phrase carries errorf's format and values across a pipe; any other sentence goes whole, as
// the one value of "%s", so a fixed sentence still finds its translation.
TEST(Status, APhraseKeepsTheFormatOrTheWholeSentence) {
  const Phrase p = Phrase::of(Status::errorf("%s of %s%%", {"3", "4"}));
  EXPECT_EQ(p.format, "%s of %s%%");
  EXPECT_EQ(p.values, (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(p.english(), "3 of 4%");
  const Phrase fixed = Phrase::of(Status::error("No GPU: 100% idle."));
  EXPECT_EQ(fixed.format, "%s");
  EXPECT_EQ(fixed.english(), "No GPU: 100% idle.");
  const Phrase cuda = Phrase::of(failingCudaCall());
  EXPECT_EQ(cuda.english(), failingCudaCall().sentence());
  EXPECT_TRUE(Phrase{}.empty());
}

// A packed Phrase (a progress line with numbers) carries its format and values in one string and
// says its English; a plain string passes through, and a phrase inside a phrase goes in as English.
TEST(Status, PackedPhrasesKeepTheirFormatAndValues) {
  const std::string p = Phrase{"N = %s: %s", {"1024", "done"}}.packed();
  const std::optional<Phrase> back = Phrase::unpack(p);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, (Phrase{"N = %s: %s", {"1024", "done"}}));
  EXPECT_EQ(phraseEnglish(p), "N = 1024: done");
  EXPECT_FALSE(Phrase::unpack("N = 1024: done"));
  EXPECT_EQ(phraseEnglish("plain"), "plain");
  EXPECT_EQ(phraseEnglish(Phrase{"%s counters", {}}.packed()), " counters");
  EXPECT_EQ(phraseEnglish(Phrase{"%s^3: %s", {"512", p}}.packed()), "512^3: N = 1024: done");
  EXPECT_EQ(Phrase::unpack(Phrase{"empty %s", {""}}.packed())->values,
            (std::vector<std::string>{""}));
}

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s.sentence(), "ok");
}

TEST(Status, CudaTryKeepsExpressionFileLineAndCudaMessage) {
  const int line = kFailingLine;
  Status s = failingCudaCall();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.cudaCode(), static_cast<int>(cudaErrorInvalidValue));
  EXPECT_EQ(s.cudaName(), "cudaErrorInvalidValue");
  EXPECT_EQ(s.expression(), "cudaErrorInvalidValue");
  EXPECT_EQ(s.file(), "tests/cpu/common/test_status.cpp");
  EXPECT_EQ(s.line(), line);
  EXPECT_FALSE(s.sticky());
  const std::string text = s.sentence();
  EXPECT_NE(text.find("cudaErrorInvalidValue"), std::string::npos);
  EXPECT_NE(text.find("invalid argument"), std::string::npos);
  EXPECT_NE(text.find("tests/cpu/common/test_status.cpp:" + std::to_string(line)),
            std::string::npos);
  EXPECT_TRUE(succeedingCudaCall().ok());
}

TEST(Status, StickyErrorsSayCudaCannotGoOnInThisProcess) {
  Status s = cudaStatus(cudaErrorIllegalAddress, "kernel<<<1,1>>>()", __FILE__, __LINE__);
  EXPECT_TRUE(s.sticky());
  EXPECT_NE(s.sentence().find("cannot be used again in this process"), std::string::npos);
  EXPECT_FALSE(cudaStatus(cudaErrorMemoryAllocation, "cudaMalloc", __FILE__, 1).sticky());
}

TEST(Status, TryReturnsTheFirstFailure) {
  EXPECT_EQ(chained(true).message(), "inner failed.");
  EXPECT_EQ(chained(false).message(), "reached the end.");
}

TEST(Status, ContextPrefixesWhatWasBeingDone) {
  Status s = Status::error("disk full.").context("saving the figure");
  EXPECT_EQ(s.message(), "saving the figure: disk full.");
  EXPECT_TRUE(Status{}.context("anything").ok());
}

TEST(Result, HoldsAValueOrAStatus) {
  Result<int> a = half(8);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 4);
  EXPECT_TRUE(a.status().ok());
  Result<int> b = half(7);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "7 is odd.");
}

TEST(Result, MadeFromASuccessStatusIsAnErrorNotAnEmptyOk) {
  Result<int> r = Status{};
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.status().ok());
  EXPECT_NE(r.status().message().find("without a value"), std::string::npos);
}

TEST(RuntimeInfo, VersionStrings) {
  EXPECT_EQ(cudaVersionString(13000), "13.0");
  EXPECT_EQ(cudaVersionString(12080), "12.8");
  EXPECT_EQ(cudaVersionString(0), "none");
}

TEST(RuntimeInfo, QueryNeverCrashesAndExplainsAMissingDevice) {
  RuntimeInfo rt = queryRuntime();
  EXPECT_GT(rt.runtimeVersion, 0);
  if (!rt.hasDevice()) {
    EXPECT_FALSE(rt.status.ok());
    EXPECT_NE(rt.summary().find("No CUDA device"), std::string::npos);
    if (rt.driverInstalled)
      EXPECT_NE(rt.summary().find(rt.status.cudaName()), std::string::npos);
    else
      EXPECT_NE(rt.summary().find("no NVIDIA driver is installed"), std::string::npos);
  } else {
    EXPECT_FALSE(rt.firstDeviceName.empty());
  }
}

}  // namespace
}  // namespace cudalab
