// The soak's reading of /proc/PID/smaps: each mapping's resident size goes to its own name, and a
// mapping without a path is "anonymous" even right after a named one (getline keeps its string
// when nothing is left on the line, so the anonymous arenas after [heap] were once counted as
// [heap], and those after a driver file as that file).
#include <gtest/gtest.h>

#include <sstream>

#include "soak.hpp"

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

}  // namespace
}  // namespace cudalab
