// `cudalab check` on a GPU, as a teacher runs it: a folder of twenty kernels for the doubling
// exercise, right, wrong, faulting, endless and not compiling, graded in one call with the right
// verdict for each and exit code 1; and "at every size", a kernel right only when N is a power of
// two fails where the exercise's own size would have let it pass. The folder faults on purpose:
// this test runs with the illegal addresses, last (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "commands/check_command.hpp"
#include "playground/playground.hpp"
#include "tests/gpu/sanitizing.hpp"
#include "tests/worker_binary.hpp"

using namespace cudalab;

namespace {

constexpr const char* kHead =
    "extern \"C\" __global__ void double_it(const float* in, float* out, int n) {\n";

// name -> (body, expected verdict's start)
const std::map<std::string, std::pair<std::string, std::string>> kFiles = {
    {"right_guard",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = 2.0f * in[i];\n}\n",
      "correct"}},
    {"right_return",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n  out[i] = in[i] + "
      "in[i];\n}\n",
      "correct"}},
    {"right_stride",
     {"  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n "
      "   out[i] = 2.0f * in[i];\n}\n",
      "correct"}},
    {"right_long",
     {"  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = "
      "2.0f * in[i];\n}\n",
      "correct"}},
    {"right_unsigned",
     {"  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < (unsigned)n) out[i] = "
      "in[i] * 2.0f;\n}\n",
      "correct"}},
    {"right_fma",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = fmaf(in[i], 2.0f, "
      "0.0f);\n}\n",
      "correct"}},
    {"wrong_no_guard",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  out[i] = 2.0f * in[i];\n}\n", "wrong"}},
    {"wrong_off_by_one",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i <= n) out[i] = 2.0f * in[i];\n}\n",
      "wrong"}},
    {"wrong_triple",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = 3.0f * in[i];\n}\n",
      "wrong"}},
    {"wrong_thread_only",
     {"  int i = threadIdx.x;\n  if (i < n) out[i] = 2.0f * in[i];\n}\n", "wrong"}},
    {"wrong_skips_last",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n - 1) out[i] = 2.0f * "
      "in[i];\n}\n",
      "wrong"}},
    {"wrong_plus_one",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = 2.0f * in[i] + "
      "1.0f;\n}\n",
      "wrong"}},
    {"fault_unmapped",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  float* far = (float*)((unsigned long "
      "long)out ^ (1ull << 45));\n  if (i < n) far[i] = 2.0f * in[i];\n}\n",
      "did not run"}},
    {"fault_far",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i + (1 << 30)] = 2.0f * "
      "in[i];\n}\n",
      "did not run"}},
    {"fault_trap",
     {"  if (threadIdx.x == 0) __trap();\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if "
      "(i < n) out[i] = 2.0f * in[i];\n}\n",
      "did not run"}},
    {"endless_while", {"  while (true) {}\n}\n", "did not run"}},
    {"endless_spin",
     {"  // Reads the poisoned output until it holds 12345, which it never does.\n  while "
      "(((volatile float*)out)[0] != 12345.0f) {\n  }\n}\n",
      "did not run"}},
    {"broken_semicolon",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x\n  if (i < n) out[i] = 2.0f * in[i];\n}\n",
      "does not compile"}},
    {"broken_undefined", {"  if (j < n) out[j] = 2.0f * in[j];\n}\n", "does not compile"}},
    {"broken_brace",
     {"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) { out[i] = 2.0f * "
      "in[i];\n}\n",
      "does not compile"}},
};

std::filesystem::path folder(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace

TEST(CheckGpu, AFolderOfTwentyKernelsGetsTheRightVerdictEach) {
  if (testing_support::underSanitizer()) GTEST_SKIP() << "faults and endless loops on purpose";
  const std::filesystem::path d = folder("cudalab-check-twenty");
  ASSERT_EQ(kFiles.size(), 20u);
  for (const auto& [name, file] : kFiles)
    std::ofstream(d / (name + ".cu")) << kHead << file.first;
  const CommandResult r = runCheckCommand(
      {.paths = {d.string()}, .exercise = "double", .json = true, .executable = cudalabBinary()});
  if (r.exitCode == 2 && r.err.find("no CUDA device") != std::string::npos) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 20u);
  EXPECT_EQ(j["correct"], 6);
  for (const auto& f : j["files"]) {
    const std::string name = std::filesystem::path(f["file"].get<std::string>()).stem();
    const std::string verdict = f["verdict"];
    SCOPED_TRACE(name + ": " + verdict);
    ASSERT_TRUE(kFiles.count(name));
    EXPECT_EQ(verdict.rfind(kFiles.at(name).second, 0), 0u);
    EXPECT_EQ(f["correct"].get<bool>(), kFiles.at(name).second == "correct");
  }
  std::filesystem::remove_all(d);
}

TEST(CheckGpu, EverySizeCatchesAKernelRightOnlyForPowersOfTwo) {
  if (testing_support::underSanitizer()) GTEST_SKIP() << "the grading's large sizes";
  const std::filesystem::path d = folder("cudalab-check-sizes");
  std::ofstream(d / "right.cu") << kHead << kFiles.at("right_guard").first;
  // Writes element i only where i & (n - 1) == i: every i < n when n is a power of two.
  std::ofstream(d / "powers.cu")
      << kHead
      << "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n && (i & (n - 1)) == i) out[i] = 2.0f * in[i];\n}\n";
  CheckCommand c{.paths = {(d / "right.cu").string(), (d / "powers.cu").string()},
                 .exercise = "double",
                 .json = true,
                 .executable = cudalabBinary()};
  c.allSizes = true;
  const CommandResult r = runCheckCommand(c);
  if (r.exitCode == 2 && r.err.find("no CUDA device") != std::string::npos) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_TRUE(j["files"][0]["correct"].get<bool>()) << j["files"][0]["verdict"];
  EXPECT_FALSE(j["files"][1]["correct"].get<bool>());
  std::set<long long> failed;
  for (const auto& s : j["files"][1]["sizes"])
    if (!s["correct"].get<bool>()) failed.insert(s["n"].get<long long>());
  EXPECT_TRUE(failed.count(33)) << j["files"][1]["verdict"];
  EXPECT_TRUE(failed.count(1009));
  EXPECT_FALSE(failed.count(32));
  EXPECT_FALSE(failed.count(1));
  std::filesystem::remove_all(d);
}

// Every exercise graded at every size: its solution right at each, its starting kernel (with its
// deliberate mistake) wrong at one at least.
TEST(CheckGpu, EverySolutionPassesAtEverySizeAndEveryStarterFailsAtOne) {
  if (testing_support::underSanitizer()) GTEST_SKIP() << "the grading's large sizes";
  const std::filesystem::path d = folder("cudalab-check-exercises");
  for (const playground::Exercise& e : playground::exercises()) {
    SCOPED_TRACE(e.id);
    const std::filesystem::path solution = d / (std::string(e.id) + ".solution.cu"),
                                starter = d / (std::string(e.id) + ".starter.cu");
    std::ofstream(solution) << playground::solutionSource(e);
    std::ofstream(starter) << playground::starterSource(e);
    CheckCommand c{.paths = {solution.string(), starter.string()},
                   .exercise = e.id,
                   .json = true,
                   .executable = cudalabBinary()};
    c.allSizes = true;
    const CommandResult r = runCheckCommand(c);
    if (r.exitCode == 2 && r.err.find("no CUDA device") != std::string::npos) GTEST_SKIP() << r.err;
    ASSERT_NE(r.exitCode, 2) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["files"].size(), 2u);
    EXPECT_TRUE(j["files"][0]["correct"].get<bool>()) << j["files"][0]["verdict"];
    EXPECT_FALSE(j["files"][1]["correct"].get<bool>()) << j["files"][1]["verdict"];
    std::printf("%-12s solution: %s\n%-12s starter:  %s\n", e.id,
                j["files"][0]["verdict"].get<std::string>().c_str(), "",
                j["files"][1]["verdict"].get<std::string>().c_str());
  }
  std::filesystem::remove_all(d);
}
