// Parameter tables: validation refuses values outside the range with a sentence that teaches.
#include <gtest/gtest.h>

#include <cmath>

#include "common/params.hpp"

namespace cudalab {
namespace {

constexpr ParamSpec kThreads{.id = "threads",
                             .label = "Threads per block",
                             .min = 1,
                             .max = 1024,
                             .defaultValue = 256,
                             .help = "Threads in one block."};
constexpr ParamSpec kRatio{.id = "ratio",
                           .label = "Ratio",
                           .min = 0.5,
                           .max = 2.0,
                           .defaultValue = 1.0,
                           .unit = "x",
                           .help = "A ratio.",
                           .integer = false};

TEST(Params, AcceptsValuesInRange) {
  EXPECT_TRUE(checkRange(kThreads, 1).ok());
  EXPECT_TRUE(checkRange(kThreads, 1024).ok());
  EXPECT_TRUE(checkRange(kRatio, 1.25).ok());
}

TEST(Params, RefusesOutOfRangeWithTheRangeInTheSentence) {
  Status s = checkRange(kThreads, 2048);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "Threads per block must be between 1 and 1024; 2048 is outside that range.");
  EXPECT_FALSE(checkRange(kThreads, 0).ok());
  EXPECT_FALSE(checkRange(kRatio, 0.25).ok());
  EXPECT_NE(checkRange(kRatio, 3).message().find("0.5 x and 2 x"), std::string::npos);
}

TEST(Params, RefusesFractionsForIntegersAndNonFiniteValues) {
  EXPECT_EQ(checkRange(kThreads, 2.5).message(),
            "Threads per block must be a whole number; 2.5 is not.");
  EXPECT_FALSE(checkRange(kThreads, NAN).ok());
  EXPECT_FALSE(checkRange(kRatio, INFINITY).ok());
}

}  // namespace
}  // namespace cudalab
