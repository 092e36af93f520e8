// `cudalab compile`: a kernel compiled as the playground compiles it, its messages, resources and
// listings as text or JSON, and every bad input refused with exit code 2 and one sentence.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commands/check_command.hpp"
#include "commands/cli.hpp"
#include "commands/compile_command.hpp"
#include "playground/machine_code.hpp"
#include "playground/playground.hpp"
#include "tests/worker_binary.hpp"

using namespace cudalab;

namespace {

std::string writeFile(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST(CompileCommand, ASolutionCompilesWithItsListings) {
  const playground::Exercise& e = *playground::findExercise("hypot");
  const std::string path =
      writeFile("cudalab-hypot.cu", std::string(playground::solutionSource(e)));
  const CommandResult r = runCompileCommand({path, "hypot", "sm_90", true, true, true});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ(j["arch"], "sm_90");
  EXPECT_EQ(j["exercise"], "hypot");
  ASSERT_FALSE(j["resources"].empty());
  EXPECT_GT(j["resources"][0]["registers"].get<int>(), 0);
  int placed = 0;
  for (const auto& l : j["ptx"])
    placed += l["kind"] == "instruction" && l["line"].get<int>() > 0;
  EXPECT_GT(placed, 5);
  if (playground::findMachineTools().nvdisasm.empty()) {
    EXPECT_TRUE(j.contains("sass_error"));
  } else {
    ASSERT_TRUE(j.contains("sass")) << j.value("sass_error", "");
    int sass = 0;
    for (const auto& l : j["sass"])
      sass += l["kind"] == "instruction";
    EXPECT_GT(sass, 10);
  }
  // The same as text: the resources line, and each listing line led by its source line.
  const CommandResult t = runCompileCommand({path, "hypot", "90", true, false, false});
  EXPECT_EQ(t.exitCode, 0);
  EXPECT_NE(t.out.find("compiled for sm_90"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("registers"), std::string::npos);
  EXPECT_NE(t.out.find(" | \tld.global"), std::string::npos) << t.out;
  std::filesystem::remove(path);
}

TEST(CompileCommand, ErrorsNameTheirLineAndExitOne) {
  const std::string path =
      writeFile("cudalab-bad.cu",
                "extern \"C\" __global__ void double_it(const float* in, float* out, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x\n"
                "  if (i < n) out[i] = 2 * in[i];\n"
                "}\n");
  const CommandResult r = runCompileCommand({path, "double", "", false, false, false});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find(path + ":3: error"), std::string::npos) << r.out;
  // cudalab's hint points at the line that lacks its ';'.
  EXPECT_NE(r.out.find(path + ":2: error: line 2 may be missing its ';'"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("did not compile"), std::string::npos);
  const CommandResult j = runCompileCommand({path, "double", "", false, false, true});
  EXPECT_EQ(j.exitCode, 1);
  EXPECT_FALSE(nlohmann::json::parse(j.out)["ok"].get<bool>());
  std::filesystem::remove(path);
}

TEST(CompileCommand, BadInputIsRefusedWithExitTwo) {
  const std::string good = writeFile("cudalab-good.cu", "__global__ void k() {}\n");
  const std::string binary = writeFile("cudalab-binary.cu", std::string("\x7f"
                                                                        "ELF\0\0",
                                                                        6));
  struct Case {
    CompileCommand c;
    const char* says;
  } cases[] = {
      {{.file = "/nonexistent/k.cu"}, "cannot read"},
      {{.file = binary}, "not a text file"},
      {{.file = good, .exercise = "nope"}, "no exercise \"nope\""},
      {{.file = good, .arch = "sm_9"}, "--arch takes"},
      {{.file = good, .arch = "sm_20"}, "not an architecture"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.says);
    const CommandResult r = runCompileCommand(k.c);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(k.says), std::string::npos) << r.err;
  }
  EXPECT_EQ(runCompileCommand({.file = good}).exitCode, 0);
  std::filesystem::remove(good);
  std::filesystem::remove(binary);
}

TEST(CompileCommand, TheCommandLineParsesIt) {
  const char* argv[] = {"cudalab", "compile", "k.cu", "--exercise", "double", "--sass", "--json"};
  const CliParse p = parseCommandLine(7, argv);
  ASSERT_EQ(p.exitCode, -1) << p.error;  // -1: run it
  EXPECT_EQ(p.options.command, Command::Compile);
  EXPECT_EQ(p.options.file, "k.cu");
  EXPECT_EQ(p.options.exercise, "double");
  EXPECT_TRUE(p.options.sass);
  EXPECT_TRUE(p.options.json);
  const char* none[] = {"cudalab", "compile"};
  EXPECT_EQ(parseCommandLine(2, none).exitCode, 2);
  const char* shot[] = {"cudalab", "compile", "k.cu", "--headless"};
  EXPECT_EQ(parseCommandLine(4, shot).exitCode, 2);
}

// `cudalab check`: every bad input refused before anything runs, and without a GPU a sentence
// that says so (the GPU test grades real folders).
TEST(CheckCommand, BadInputAndNoGpuAreRefusedWithExitTwo) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "cudalab-check-cpu";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "empty");
  const std::string good = writeFile("cudalab-check-good.cu", "__global__ void k() {}\n");
  const std::string binary = writeFile("cudalab-check-bin.cu", std::string("\x7f"
                                                                           "ELF\0\0",
                                                                           6));
  struct Case {
    CheckCommand c;
    const char* says;
  } cases[] = {
      {{.paths = {good}, .exercise = "nope"}, "no exercise \"nope\""},
      {{.paths = {"/nonexistent/k.cu"}, .exercise = "double"}, "cannot read"},
      {{.paths = {binary}, .exercise = "double"}, "not a text file"},
      {{.paths = {(dir / "empty").string()}, .exercise = "double"}, "holds no .cu file"},
      {{.paths = {good}, .exercise = "double", .grid = "1,x"}, "--grid takes"},
      {{.paths = {good}, .exercise = "double", .block = "-3"}, "--block takes"},
      {{.paths = {good}, .exercise = "double", .lines = true}, "--lines goes with --json"},
      {{.paths = {good}, .exercise = "double", .allSizes = true, .json = true, .lines = true},
       "not with --sizes all"},
      {{.paths = {good}, .exercise = "double", .stalls = true}, "--stalls goes with --json"},
      {{.paths = {good}, .exercise = "double", .allSizes = true, .json = true, .stalls = true},
       "not with --sizes all"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.says);
    const CommandResult r = runCheckCommand(k.c);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(k.says), std::string::npos) << r.err;
  }
  // Good input on a machine without a GPU: the worker says so, and nothing is graded.
  const CommandResult r =
      runCheckCommand({.paths = {good}, .exercise = "double", .executable = cudalabBinary()});
  if (r.exitCode == 2) {
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  } else {
    EXPECT_EQ(r.exitCode, 1) << "k is not double_it: it cannot be right";
  }
  const char* argv[] = {"cudalab", "check", "a.cu",   "b.cu", "--exercise", "double",
                        "--sizes", "all",   "--grid", "4",    "--json"};
  const CliParse p = parseCommandLine(11, argv);
  ASSERT_EQ(p.exitCode, -1) << p.error;
  EXPECT_EQ(p.options.command, Command::Check);
  EXPECT_EQ(p.options.checkPaths, (std::vector<std::string>{"a.cu", "b.cu"}));
  EXPECT_TRUE(p.options.allSizes);
  EXPECT_EQ(p.options.grid, "4");
  const char* noExercise[] = {"cudalab", "check", "a.cu"};
  EXPECT_EQ(parseCommandLine(3, noExercise).exitCode, 2);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(good);
  std::filesystem::remove(binary);
}

// --compare: the same text with one thing changed, both SASS listings diffed; an unknown key is
// refused with the keys.
TEST(CompileCommand, CompareShowsWhatTheChangeMade) {
  const std::string path =
      writeFile("cudalab-compare.cu",
                std::string(playground::solutionSource(*playground::findExercise("double"))));
  const CommandResult bad = runCompileCommand({.file = path, .compare = "nope"});
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("fast-math, restrict, unroll, double"), std::string::npos) << bad.err;
  // The WMMA kernel has no double twin: refused with the reason, before anything compiles.
  const CommandResult wmma =
      runCompileCommand({.file = path, .exercise = "wmma", .compare = "double"});
  EXPECT_EQ(wmma.exitCode, 2);
  EXPECT_NE(wmma.err.find("no double product of halves"), std::string::npos) << wmma.err;
  if (playground::findMachineTools().nvdisasm.empty()) GTEST_SKIP() << "nvdisasm missing";
  const CommandResult t =
      runCompileCommand({.file = path, .exercise = "double", .compare = "fast-math"});
  EXPECT_EQ(t.exitCode, 0) << t.err;
  EXPECT_NE(t.out.find(" + FADD.FTZ"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" - FADD "), std::string::npos) << t.out;
  const CommandResult j =
      runCompileCommand({.file = path, .exercise = "double", .json = true, .compare = "double"});
  ASSERT_EQ(j.exitCode, 0) << j.err;
  const nlohmann::json c = nlohmann::json::parse(j.out)["compare"];
  EXPECT_EQ(c["variant"], "double");
  ASSERT_FALSE(c["registers"].empty());
  EXPECT_GT(c["registers"][0]["other"].get<int>(), c["registers"][0]["yours"].get<int>())
      << "a double takes two registers";
  bool dadd = false;
  for (const auto& row : c["rows"])
    dadd |= row["other"].is_string() && row["other"].get<std::string>().rfind("DADD", 0) == 0;
  EXPECT_TRUE(dadd);
  std::filesystem::remove(path);
}
