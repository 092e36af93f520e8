// The soak's reading of /proc/PID/smaps: each mapping's resident size goes to its own name, and a
// mapping without a path is "anonymous" even right after a named one (getline keeps its string
// when nothing is left on the line, so the anonymous arenas after [heap] were once counted as
// [heap], and those after a driver file as that file).
// Its growth judgement: a leak raises the floor and is seen; memory that comes and goes, readings
// that failed and readings taken while the lessons made afresh were settling are not taken for
// growth.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <vector>

#include "commands/soak.hpp"

namespace cudalab {
namespace {

TEST(Soak, ResidentByMappingNamesEachMappingItsOwn) {
  std::istringstream smaps(
      "55d0c0a00000-55d0c2a00000 rw-p 00000000 00:00 0                          [heap]\n"
      "Size:              32768 kB\n"
      "Rss:               10240 kB\n"
      "AnonHugePages:         0 kB\n"
      "7f1000000000-7f1004000000 rw-p 00000000 00:00 0 \n"
      "Size:              65536 kB\n"
      "Rss:               20480 kB\n"
      "7f2000000000-7f2000100000 r-xp 00000000 08:01 1234                       "
      "/usr/lib/libcuda.so.1\n"
      "Rss:                1024 kB\n"
      "FilePmdMapped:         0 kB\n"
      "7f3000000000-7f3000200000 rw-p 00000000 00:00 0\n"
      "Rss:                2048 kB\n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
      "Rss:                 132 kB\n"
      "7f4000000000-7f4000001000 rw-p 00000000 00:00 0                          [stack:1234]\n"
      "Rss:                   4 kB\n");
  const std::map<std::string, double> r = residentByMapping(smaps);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_DOUBLE_EQ(r.at("[heap]"), 10.0);
  EXPECT_DOUBLE_EQ(r.at("anonymous"), 22.0);
  EXPECT_DOUBLE_EQ(r.at("/usr/lib/libcuda.so.1"), 1.0);
  EXPECT_DOUBLE_EQ(r.at("[stack]"), 136.0 / 1024);
}

// Readings at `base`, two in three of them higher by half to all of `swing` (a worker's context, a
// lesson's frame), with `leak` MiB more at each reading.
std::vector<SoakReading> readings(int n, double base, double swing, double leak, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(swing / 2, swing);
  std::vector<SoakReading> r;
  for (int i = 0; i < n; ++i)
    r.push_back({base + leak * i + (i % 3 == 0 ? 0 : u(rng)), false});
  return r;
}

TEST(Soak, AFloorThatRisesIsGrowthAndOneThatSwingsIsNot) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE(seed);
  // 30 readings, 5 MiB more each, the floors at every third one: the last third's (reading 21)
  // is 105 MiB above the first third's (reading 0).
  EXPECT_NEAR(soakFloorGrowth(readings(30, 700, 500, 5, seed)).value(), 105, 1e-9);
  // The same swing without the leak: the floors are the same.
  EXPECT_NEAR(soakFloorGrowth(readings(30, 700, 500, 0, seed)).value(), 0, 1e-9);
}

TEST(Soak, FailedAndSettlingReadingsSayNothing) {
  std::vector<SoakReading> r = readings(12, 750, 0, 0, 1);
  // The lessons just made afresh held less: a dip at the start, marked settling.
  r[0] = {600, true};
  r[1] = {610, true};
  // Readings that failed.
  r[2].mib = -1;
  r[11].mib = -1;
  EXPECT_DOUBLE_EQ(soakFloorGrowth(r).value(), 0);
  // Unmarked, the same dip would be taken for 150 MiB of growth.
  r[0].settling = r[1].settling = false;
  EXPECT_DOUBLE_EQ(soakFloorGrowth(r).value(), 150);
}

TEST(Soak, TheThirdsAreOfTheReadingsThatCount) {
  // Nine readings, the first three settling: the thirds are of the six left, so the first
  // third's floor is 700 (readings 3 and 4), not nothing, and a rise at the end is still seen.
  std::vector<SoakReading> r;
  for (int i = 0; i < 9; ++i)
    r.push_back({i < 3 ? 500.0 : 700.0 + (i >= 7 ? 100 : 0), i < 3});
  EXPECT_DOUBLE_EQ(soakFloorGrowth(r).value(), 100);
}

TEST(Soak, WithFewerThanTwoReadingsThatCountNothingIsJudged) {
  std::vector<SoakReading> none(6, SoakReading{-1, false});
  none[5].mib = 900;
  EXPECT_FALSE(soakFloorGrowth(none).has_value());
  none[0] = {100, true};
  EXPECT_FALSE(soakFloorGrowth(none).has_value());
  EXPECT_FALSE(soakFloorGrowth({}).has_value());
  EXPECT_FALSE(soakFloorGrowth({{500, false}}).has_value());
  EXPECT_DOUBLE_EQ(soakFloorGrowth({{500, false}, {530, false}}).value(), 30);
}

}  // namespace
}  // namespace cudalab
