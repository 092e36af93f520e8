// The counters' helper process (core/counters_helper.hpp, commands/counters_helper.hpp), on any
// machine: readings cross the pipe unchanged, and the helper started from the real binary answers a
// panel's request with what the app's own process would have said (here, without a GPU, the same
// sentence), refuses a job it does not know or parameters of the wrong size with a sentence, and
// leaves no process; a helper that crashes is quoted by its crash report's first line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/counters_helper.hpp"
#include "reduction/reduction.hpp"
#include "tests/worker_binary.hpp"

namespace cudalab {
namespace {

TEST(CountersHelper, AReadingCrossesAsJsonUnchanged) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> value(0, 1e9);
  counters::StepReading r;
  r.key = "tiled16";
  r.label = "3. Shared tiles, 16 x 16";
  r.colour = 5;
  r.launches = 2;
  r.measured.range = "0";
  for (const char* k : {"global_load_sectors", "global_load_requests", "achieved_occupancy"}) {
    r.measured.keys.push_back(k);
    r.measured.values.push_back(value(rng));
  }
  r.measured.values[2] = NAN;  // a counter CUPTI gave no value for
  r.model = {{"global_load_sectors", value(rng)}, {"achieved_occupancy", 0.5}};
  r.labelPhrase = {"yours: %s threads x %s blocks", {"128", "8"}};
  r.mismatches = {
      {"%s: the model counts %s, the GPU %s", {"global load sectors", "4", "8"}},
      {"%s: the model counts %s, the GPU %s", {"shared load wavefronts", "2", "nothing"}}};
  // Through text, as through the pipe.
  Result<counters::StepReading> back = stepReadingFromJson(nlohmann::json::parse(toJson(r).dump()));
  ASSERT_TRUE(back.ok()) << back.status().sentence();
  EXPECT_EQ(back->key, r.key);
  EXPECT_EQ(back->label, r.label);
  // The label's format and numbers and the mismatches' formats and values arrive apart, so the
  // app translates them without reading numbers back out of English.
  EXPECT_EQ(back->labelPhrase, r.labelPhrase);
  EXPECT_EQ(back->colour, r.colour);
  EXPECT_EQ(back->launches, r.launches);
  EXPECT_EQ(back->measured.range, r.measured.range);
  EXPECT_EQ(back->measured.keys, r.measured.keys);
  ASSERT_EQ(back->measured.values.size(), 3u);
  EXPECT_EQ(back->measured.values[0], r.measured.values[0]);
  EXPECT_EQ(back->measured.values[1], r.measured.values[1]);
  EXPECT_TRUE(std::isnan(back->measured.values[2]));
  EXPECT_EQ(back->model, r.model);
  EXPECT_EQ(back->mismatches, r.mismatches);
  EXPECT_EQ(back->mismatches[1].english(),
            "shared load wavefronts: the model counts 2, the GPU nothing");
  // A ladder's step, named by a marked text, has no phrase and stays without one.
  counters::StepReading plain;
  plain.label = "3. Shared tiles, 16 x 16";
  Result<counters::StepReading> plainBack =
      stepReadingFromJson(nlohmann::json::parse(toJson(plain).dump()));
  ASSERT_TRUE(plainBack.ok()) << plainBack.status().sentence();
  EXPECT_TRUE(plainBack->labelPhrase.empty());
  EXPECT_TRUE(plainBack->mismatches.empty());

  nlohmann::json bad = toJson(r);
  bad["values"].erase(0);
  EXPECT_FALSE(stepReadingFromJson(bad).ok()) << "fewer values than counters";
  EXPECT_FALSE(stepReadingFromJson(nlohmann::json{{"key", 3}}).ok());
}

TEST(CountersHelper, TheHelperSaysWhatTheAppWould) {
  reduction::ReduceParams p;
  p.n = 1 << 16;
  Result<CountersReadings> inApp =
      reduction::measureCounters(p, reduction::allStepIds(), nullptr, {});
  if (inApp.ok()) GTEST_SKIP() << "counters can be read here: the GPU test compares readings";
  int progressLines = 0;
  Result<CountersReadings> inHelper = measureInHelper(
      "reduction", p, nullptr, [&](float, const std::string&) { ++progressLines; },
      cudalabBinary());
  ASSERT_FALSE(inHelper.ok());
  EXPECT_EQ(inHelper.status().sentence(), inApp.status().sentence());
}

TEST(CountersHelper, AnUnknownJobOrParametersOfTheWrongSizeAreRefused) {
  Result<CountersReadings> r =
      measureInHelperBytes("no-such-job", "x", nullptr, {}, cudalabBinary());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no job \"no-such-job\""), std::string::npos)
      << r.status().sentence();
  r = measureInHelperBytes("reduction", "three", nullptr, {}, cudalabBinary());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("wrong size"), std::string::npos) << r.status().sentence();
  // A helper that cannot start says so.
  r = measureInHelperBytes("reduction", "x", nullptr, {}, "/nonexistent/cudalab");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("in their own process failed"), std::string::npos)
      << r.status().sentence();
}

// A helper that crashes: the panel's sentence quotes the first line of its crash report (the
// signal, and where), not the report's last line.
TEST(CountersHelper, AHelperThatCrashesIsQuotedByItsCrashReport) {
  const std::filesystem::path script =
      std::filesystem::temp_directory_path() / ("crashing-helper-" + std::to_string(getpid()));
  {
    std::ofstream f(script);
    f << "#!/bin/sh\n"
         "echo 'CUPTI says something first' >&2\n"
         "echo 'cudalab: ended by signal 11 (segmentation fault) while reading. The thread that "
         "took it is here (innermost first):' >&2\n"
         "echo './cudalab(+0x1234)[0x5555]' >&2\n"
         "echo 'cudalab: end of stack' >&2\n"
         "kill -SEGV $$\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  Result<CountersReadings> r = measureInHelperBytes("reduction", "x", nullptr, {}, script.string());
  std::filesystem::remove(script);
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().message();
  EXPECT_NE(m.find("It said: cudalab: ended by signal 11 (segmentation fault) while reading."),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("end of stack"), std::string::npos) << m;
  EXPECT_EQ(m.find("The thread"), std::string::npos) << m;
}

}  // namespace
}  // namespace cudalab
