// The command line: every bad input gives exit code 2 and one sentence; good inputs parse.
#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

#include "commands/cli.hpp"

namespace cudalab {
namespace {

CliParse parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"cudalab"};
  argv.insert(argv.end(), args.begin(), args.end());
  return parseCommandLine(static_cast<int>(argv.size()), argv.data());
}

void expectRefused(std::initializer_list<const char*> args, const std::string& fragment) {
  CliParse p = parse(args);
  EXPECT_EQ(p.exitCode, 2) << fragment;
  EXPECT_NE(p.error.find(fragment), std::string::npos) << p.error;
  EXPECT_EQ(p.error.find('\n'), std::string::npos) << "one sentence, one line: " << p.error;
  EXPECT_EQ(p.error.rfind("cudalab: ", 0), 0u) << p.error;
}

TEST(Cli, NoArgumentsOpensTheWindow) {
  CliParse p = parse({});
  EXPECT_EQ(p.exitCode, -1);
  EXPECT_EQ(p.options.command, Command::Window);
  EXPECT_TRUE(p.options.lesson.empty());
}

TEST(Cli, HeadlessScreenshotWithEverything) {
  CliParse p = parse({"--headless", "--lesson", "device", "--screenshot", "x.png", "--size",
                      "1280x720", "--scale", "2", "--frames", "5", "--theme", "light", "--ui-scale",
                      "1.5", "--transparent"});
  ASSERT_EQ(p.exitCode, -1) << p.error;
  const CliOptions& o = p.options;
  EXPECT_EQ(o.command, Command::Headless);
  EXPECT_EQ(o.lesson, "device");
  EXPECT_EQ(o.screenshot, "x.png");
  EXPECT_EQ(o.width, 1280);
  EXPECT_EQ(o.height, 720);
  EXPECT_EQ(o.scale, 2);
  EXPECT_EQ(o.frames, 5);
  EXPECT_EQ(o.theme.value_or(""), "light");
  EXPECT_FLOAT_EQ(o.uiScale.value_or(0), 1.5f);
  EXPECT_TRUE(o.transparent);
}

TEST(Cli, APanelAsSeenKeepsItsButtons) {
  CliParse p = parse({"--headless", "--lesson", "matmul", "--screenshot", "x.png", "--panel",
                      "counters", "--as-seen"});
  ASSERT_EQ(p.exitCode, -1) << p.error;
  EXPECT_EQ(p.options.panel, "counters");
  EXPECT_TRUE(p.options.asSeen);
  EXPECT_FALSE(
      parse({"--headless", "--screenshot", "x.png", "--panel", "counters"}).options.asSeen);
}

TEST(Cli, Subcommands) {
  EXPECT_EQ(parse({"list"}).options.command, Command::List);
  EXPECT_TRUE(parse({"list", "--ids"}).options.idsOnly);
  CliParse d = parse({"device", "--json"});
  EXPECT_EQ(d.options.command, Command::Device);
  EXPECT_TRUE(d.options.json);
}

TEST(Cli, HelpExitsZeroWithUsage) {
  for (const char* flag : {"--help", "-h"}) {
    CliParse p = parse({flag});
    EXPECT_EQ(p.exitCode, 0);
    EXPECT_NE(p.output.find("--headless"), std::string::npos);
    EXPECT_NE(p.output.find("--screenshot"), std::string::npos);
  }
  CliParse p = parse({"device", "--help"});
  EXPECT_EQ(p.exitCode, 0);
  EXPECT_NE(p.output.find("--json"), std::string::npos);
}

TEST(Cli, EachBadInputIsRefusedWithOneSentence) {
  expectRefused({"--lesson", "nosuch"}, "there is no lesson \"nosuch\"; the lessons are: device");
  expectRefused({"--no-such-flag"}, "--no-such-flag");
  expectRefused({"frobnicate"}, "frobnicate");
  expectRefused({"--headless"}, "--headless needs --screenshot");
  expectRefused({"--screenshot", "shot.jpg"}, "must end in .png");
  expectRefused({"--size", "big", "--screenshot", "a.png"}, "--size must look like 1600x900");
  expectRefused({"--size", "100x100", "--screenshot", "a.png"}, "between 320x240 and 8192x8192");
  expectRefused({"--size", "9000x900"}, "between 320x240");
  expectRefused({"--size", "100000x2", "--screenshot", "a.png"}, "between 320x240");
  expectRefused({"--scale", "7"}, "--scale");
  expectRefused({"--scale", "two"}, "--scale");
  expectRefused({"--frames", "0"}, "--frames");
  expectRefused({"--theme", "pink"}, "--theme");
  expectRefused({"--ui-scale", "10"}, "--ui-scale");
  expectRefused({"--panel", "peaks"}, "--panel only makes sense with --screenshot");
  expectRefused({"--headless", "--screenshot", "a.png", "--as-seen"},
                "--as-seen describes a --panel picture");
  expectRefused({"--lesson"}, "--lesson");
  expectRefused({"--headless", "--screenshot", "a.png", "list"}, "print text");
  expectRefused({"list", "--headless"}, "--headless");
  expectRefused({"device", "--csv"}, "--csv");
  expectRefused({"--scale", "2"}, "add --screenshot");
  expectRefused({"--action", "run", "list"}, "--action works with the window");
  expectRefused({"bench", "nope"}, "there is no benchmark \"nope\"; the benchmarks are: device");
  expectRefused({"--transparent"}, "add --screenshot");
  expectRefused({"--headless", "--screenshot", "a.png", "--scale", "3", "--ui-scale", "2.5"},
                "at most 6");
}

TEST(Cli, PlansAndPresets) {
  CliParse p = parse({"--headless", "--plan", "course-002", "--out", "slides", "--size", "1280x720",
                      "--scale", "2"});
  ASSERT_EQ(p.exitCode, -1) << p.error;
  EXPECT_EQ(p.options.command, Command::Headless);
  EXPECT_EQ(p.options.plan, "course-002");
  EXPECT_EQ(p.options.planOut, "slides");
  EXPECT_EQ(p.options.scale, 2);
  p = parse({"--plan", "my-plan.json"});
  ASSERT_EQ(p.exitCode, -1) << p.error;
  EXPECT_EQ(p.options.command, Command::Window);
  p = parse({"--lesson", "reduction", "--preset", "Course 002: 2^27 - 157 float32 numbers",
             "--headless", "--screenshot", "a.png"});
  ASSERT_EQ(p.exitCode, -1) << p.error;
  EXPECT_EQ(p.options.preset, "Course 002: 2^27 - 157 float32 numbers");
  expectRefused({"--headless", "--plan", "course-002"}, "--headless --plan needs --out DIR");
  expectRefused({"--out", "x"}, "--out goes with --headless --plan PLAN");
  expectRefused({"--plan", "course-002", "--out", "x"}, "--out goes with --headless --plan");
  expectRefused({"--plan", "course-002", "--preset", "x"}, "leave out --preset and --action");
  expectRefused({"--headless", "--plan", "course-002", "--out", "x", "--screenshot", "a.png"},
                "choose one");
  p = parse({"--headless", "--plan", "course-002", "--screenshot", "first-step.png"});
  EXPECT_EQ(p.exitCode, -1) << "the plan's first step, as a screenshot";
  expectRefused({"list", "--plan", "x"}, "--plan");
  expectRefused({"device", "--preset", "x"}, "--preset");
}

}  // namespace
}  // namespace cudalab
