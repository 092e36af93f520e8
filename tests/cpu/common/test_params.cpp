// Parameter tables: validation refuses values outside the range with a sentence that teaches.
#include <gtest/gtest.h>

#include <cmath>

#include "common/params.hpp"

namespace cudalab {
namespace {

constexpr ParamSpec kThreads{"threads", "Threads per block",     1,    1024, 256,
                             "",        "Threads in one block.", true, false};
constexpr ParamSpec kRatio{"ratio", "Ratio", 0.5, 2.0, 1.0, "x", "A ratio.", false, false};

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
