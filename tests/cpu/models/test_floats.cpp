// The floating-point model checked against values worked out by hand (and with Python's struct
// module), against the compiler's own float/double conversions, and exhaustively for the two
// 16-bit formats.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "models/floats.hpp"

namespace cudalab::floats {
namespace {

constexpr Format kAllFormats[] = {Format::Half, Format::BFloat16, Format::Float32, Format::Float64};
constexpr long double kInf = std::numeric_limits<long double>::infinity();
constexpr long double kNaN = std::numeric_limits<long double>::quiet_NaN();

long double pow2(int n) {
  return std::ldexp(1.0L, n);
}

uint64_t signBit(Format f) {
  return uint64_t{1} << (formatInfo(f).bits - 1);
}
uint64_t infBits(Format f) {
  const FormatInfo& fi = formatInfo(f);
  return ((uint64_t{1} << fi.exponentBits) - 1) << fi.mantissaBits;
}
uint64_t maxBits(Format f) {
  return infBits(f) - 1;
}

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

TEST(FloatsFormats, TableIsInEnumOrder) {
  auto all = formats();
  ASSERT_EQ(all.size(), 4u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].format, kAllFormats[i]);
    EXPECT_EQ(&formatInfo(kAllFormats[i]), &all[i]);
  }
  EXPECT_STREQ(all[0].id, "half");
  EXPECT_STREQ(all[1].id, "bf16");
  EXPECT_STREQ(all[2].id, "f32");
  EXPECT_STREQ(all[3].id, "f64");
  EXPECT_STREQ(all[0].name, "half (FP16)");
  EXPECT_STREQ(all[1].name, "bfloat16");
  EXPECT_STREQ(all[2].name, "float32");
  EXPECT_STREQ(all[3].name, "float64");
}

TEST(FloatsFormats, HalfConstants) {
  const FormatInfo& f = formatInfo(Format::Half);
  EXPECT_EQ(f.bits, 16);
  EXPECT_EQ(f.exponentBits, 5);
  EXPECT_EQ(f.mantissaBits, 10);
  EXPECT_EQ(f.bias, 15);
  EXPECT_EQ(f.epsilon, 0.0009765625);                             // 2^-10
  EXPECT_EQ(f.minNormal, 6.103515625e-05);                        // 2^-14
  EXPECT_EQ(f.minSubnormal, 5.9604644775390625e-08);              // 2^-24
  EXPECT_EQ(f.maxFinite, 65504.0);                                // (2 - 2^-10) * 2^15
  EXPECT_NEAR(f.decimalDigits, 11 * 0.30102999566398120, 1e-12);  // 3.31
}

TEST(FloatsFormats, BFloat16Constants) {
  const FormatInfo& f = formatInfo(Format::BFloat16);
  EXPECT_EQ(f.bits, 16);
  EXPECT_EQ(f.exponentBits, 8);
  EXPECT_EQ(f.mantissaBits, 7);
  EXPECT_EQ(f.bias, 127);
  EXPECT_EQ(f.epsilon, 0.0078125);  // 2^-7
  EXPECT_EQ(f.minNormal, static_cast<double>(pow2(-126)));
  EXPECT_EQ(f.minNormal, static_cast<double>(FLT_MIN));  // same exponent range as float32
  EXPECT_EQ(f.minSubnormal, static_cast<double>(pow2(-133)));
  EXPECT_EQ(f.maxFinite, 3.3895313892515355e38);                 // 0x7f7f = (2 - 2^-7) * 2^127
  EXPECT_NEAR(f.decimalDigits, 8 * 0.30102999566398120, 1e-12);  // 2.41
}

TEST(FloatsFormats, Float32Constants) {
  const FormatInfo& f = formatInfo(Format::Float32);
  EXPECT_EQ(f.bits, 32);
  EXPECT_EQ(f.exponentBits, 8);
  EXPECT_EQ(f.mantissaBits, 23);
  EXPECT_EQ(f.bias, 127);
  EXPECT_EQ(f.epsilon, 1.1920928955078125e-07);  // 2^-23
  EXPECT_EQ(f.epsilon, static_cast<double>(FLT_EPSILON));
  EXPECT_EQ(f.minNormal, static_cast<double>(FLT_MIN));
  EXPECT_EQ(f.minSubnormal, static_cast<double>(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(f.maxFinite, 3.4028234663852886e38);
  EXPECT_EQ(f.maxFinite, static_cast<double>(FLT_MAX));
  EXPECT_NEAR(f.decimalDigits, 24 * 0.30102999566398120, 1e-12);  // 7.22
}

TEST(FloatsFormats, Float64Constants) {
  const FormatInfo& f = formatInfo(Format::Float64);
  EXPECT_EQ(f.bits, 64);
  EXPECT_EQ(f.exponentBits, 11);
  EXPECT_EQ(f.mantissaBits, 52);
  EXPECT_EQ(f.bias, 1023);
  EXPECT_EQ(f.epsilon, 2.220446049250313e-16);  // 2^-52
  EXPECT_EQ(f.epsilon, DBL_EPSILON);
  EXPECT_EQ(f.minNormal, DBL_MIN);
  EXPECT_EQ(f.minSubnormal, std::numeric_limits<double>::denorm_min());  // 2^-1074
  EXPECT_EQ(f.minSubnormal, static_cast<double>(pow2(-1074)));
  EXPECT_EQ(f.maxFinite, DBL_MAX);
  EXPECT_NEAR(f.decimalDigits, 15.954589770191003, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Encoding known values
// ---------------------------------------------------------------------------------------------

TEST(FloatsEncode, OneInEveryFormat) {
  EXPECT_EQ(encode(Format::Half, 1.0L), 0x3c00u);
  EXPECT_EQ(encode(Format::BFloat16, 1.0L), 0x3f80u);
  EXPECT_EQ(encode(Format::Float32, 1.0L), 0x3f800000u);
  EXPECT_EQ(encode(Format::Float64, 1.0L), 0x3ff0000000000000u);
  for (Format f : kAllFormats)
    EXPECT_EQ(decode(f, encode(f, 1.0L)), 1.0);
}

TEST(FloatsEncode, OneTenthInEveryFormat) {
  EXPECT_EQ(encode(Format::Half, 0.1L), 0x2e66u);
  // float32 0x3dcccccd has low half 0xcccd > 0x8000, so bfloat16 rounds its top half up.
  EXPECT_EQ(encode(Format::BFloat16, 0.1L), 0x3dcdu);
  EXPECT_EQ(encode(Format::Float32, 0.1L), 0x3dcccccdu);
  EXPECT_EQ(encode(Format::Float64, 0.1L), 0x3fb999999999999au);
  EXPECT_EQ(decode(Format::Float32, 0x3dcccccd), 0.100000001490116119384765625);
  EXPECT_EQ(decode(Format::Half, 0x2e66), 0.0999755859375);    // 1638 / 2^14
  EXPECT_EQ(decode(Format::BFloat16, 0x3dcd), 0.10009765625);  // 205 / 2^11
}

TEST(FloatsEncode, HalfKnownValues) {
  EXPECT_EQ(encode(Format::Half, -2.0L), 0xc000u);
  EXPECT_EQ(encode(Format::Half, 65504.0L), 0x7bffu);
  // 1/3 = 1.0101...b x 2^-2; the 11th significant bit onwards is 0101..., below half: 0x3555.
  EXPECT_EQ(encode(Format::Half, 1.0L / 3.0L), 0x3555u);
  EXPECT_EQ(decode(Format::Half, 0x3555), 0.333251953125);
  EXPECT_EQ(encode(Format::Half, 1000.3L), 0x63d1u);
}

TEST(FloatsEncode, BFloat16KnownValues) {
  // float32 pi is 0x40490fdb; bfloat16 keeps the top half as the rest (0x0fdb) is below half.
  EXPECT_EQ(encode(Format::BFloat16, 3.14159265358979323846L), 0x4049u);
  EXPECT_EQ(decode(Format::BFloat16, 0x4049), 3.140625);
  EXPECT_EQ(encode(Format::BFloat16, -2.0L), 0xc000u);
  EXPECT_EQ(encode(Format::BFloat16, 3.3895313892515355e38L), 0x7f7fu);
}

TEST(FloatsEncode, TiesGoToEven) {
  // Half: the spacing at 1 is 2^-10, so 1 + 2^-11 is halfway between 0x3c00 (even) and 0x3c01.
  EXPECT_EQ(encode(Format::Half, 1.0L + pow2(-11)), 0x3c00u);
  EXPECT_EQ(encode(Format::Half, 1.0L + 3 * pow2(-11)), 0x3c02u);  // between 0x3c01 and 0x3c02
  // Just off the tie decides by distance.
  EXPECT_EQ(encode(Format::Half, 1.0L + pow2(-11) + pow2(-40)), 0x3c01u);
  EXPECT_EQ(encode(Format::Half, 1.0L + 3 * pow2(-11) - pow2(-40)), 0x3c01u);
  // bfloat16: spacing 2^-7 at 1.
  EXPECT_EQ(encode(Format::BFloat16, 1.0L + pow2(-8)), 0x3f80u);
  EXPECT_EQ(encode(Format::BFloat16, 1.0L + 3 * pow2(-8)), 0x3f82u);
  EXPECT_EQ(encode(Format::BFloat16, -(1.0L + 3 * pow2(-8))), 0xbf82u);
  // float32 and float64: spacing 2^-23 and 2^-52 at 1.
  EXPECT_EQ(encode(Format::Float32, 1.0L + pow2(-24)), 0x3f800000u);
  EXPECT_EQ(encode(Format::Float32, 1.0L + 3 * pow2(-24)), 0x3f800002u);
  EXPECT_EQ(encode(Format::Float64, 1.0L + pow2(-53)), 0x3ff0000000000000u);
  EXPECT_EQ(encode(Format::Float64, 1.0L + 3 * pow2(-53)), 0x3ff0000000000002u);
  // The lowest bit of the long double (2^-63 at 1) still breaks a float64 tie.
  EXPECT_EQ(encode(Format::Float64, 1.0L + pow2(-53) + pow2(-63)), 0x3ff0000000000001u);
}

TEST(FloatsEncode, HalfGradualUnderflow) {
  EXPECT_EQ(encode(Format::Half, pow2(-24)), 0x0001u);              // smallest subnormal
  EXPECT_EQ(encode(Format::Half, pow2(-25)), 0x0000u);              // tie between 0 and 0x0001
  EXPECT_EQ(encode(Format::Half, pow2(-25) + pow2(-60)), 0x0001u);  // just above the tie
  EXPECT_EQ(encode(Format::Half, 1.5L * pow2(-25)), 0x0001u);
  EXPECT_EQ(encode(Format::Half, 3 * pow2(-25)), 0x0002u);  // tie between 0x0001 and 0x0002
  EXPECT_EQ(encode(Format::Half, 5 * pow2(-25)), 0x0002u);  // tie between 0x0002 and 0x0003
  EXPECT_EQ(encode(Format::Half, pow2(-26)), 0x0000u);
  EXPECT_EQ(encode(Format::Half, -pow2(-26)), 0x8000u);  // underflow keeps the sign
  EXPECT_EQ(encode(Format::Half, -pow2(-24)), 0x8001u);
  // The largest subnormal (1023 x 2^-24) and rounding up out of the subnormals into 2^-14.
  EXPECT_EQ(encode(Format::Half, 1023 * pow2(-24)), 0x03ffu);
  EXPECT_EQ(encode(Format::Half, 1023.5L * pow2(-24)), 0x0400u);
  EXPECT_EQ(encode(Format::Half, pow2(-14)), 0x0400u);
  EXPECT_EQ(encode(Format::Half, 1e-30L), 0x0000u);
  EXPECT_EQ(encode(Format::Half, std::numeric_limits<long double>::denorm_min()), 0x0000u);
}

TEST(FloatsEncode, GradualUnderflowInTheOtherFormats) {
  EXPECT_EQ(encode(Format::BFloat16, pow2(-133)), 0x0001u);
  EXPECT_EQ(encode(Format::BFloat16, pow2(-134)), 0x0000u);
  EXPECT_EQ(encode(Format::BFloat16, 3 * pow2(-134)), 0x0002u);
  EXPECT_EQ(encode(Format::Float32, pow2(-149)), 0x00000001u);
  EXPECT_EQ(encode(Format::Float32, pow2(-150)), 0x00000000u);
  EXPECT_EQ(encode(Format::Float32, -pow2(-150)), 0x80000000u);
  EXPECT_EQ(encode(Format::Float32, 3 * pow2(-150)), 0x00000002u);
  EXPECT_EQ(encode(Format::Float64, pow2(-1074)), 0x1u);
  EXPECT_EQ(encode(Format::Float64, pow2(-1075)), 0x0u);
  EXPECT_EQ(encode(Format::Float64, pow2(-1075) + pow2(-1100)), 0x1u);
  EXPECT_EQ(encode(Format::Float64, 3 * pow2(-1075)), 0x2u);
}

TEST(FloatsEncode, OverflowToInfinity) {
  // Half: max 65504, spacing 32 there; 65520 is the tie with 2^16, whose even side is infinity.
  EXPECT_EQ(encode(Format::Half, 65519.0L), 0x7bffu);
  EXPECT_EQ(encode(Format::Half, 65519.999L), 0x7bffu);
  EXPECT_EQ(encode(Format::Half, 65520.0L), 0x7c00u);
  EXPECT_EQ(encode(Format::Half, -65520.0L), 0xfc00u);
  EXPECT_EQ(encode(Format::Half, 1e6L), 0x7c00u);
  EXPECT_EQ(encode(Format::Half, 1e4000L), 0x7c00u);
  // bfloat16: max (2 - 2^-7) 2^127, spacing 2^120, so the tie is max + 2^119.
  const long double bfMax = 3.3895313892515355e38L;
  EXPECT_EQ(encode(Format::BFloat16, bfMax + pow2(119) - pow2(100)), 0x7f7fu);
  EXPECT_EQ(encode(Format::BFloat16, bfMax + pow2(119)), 0x7f80u);
  // float32: FLT_MAX + 2^103 is the tie; float64: DBL_MAX + 2^970.
  EXPECT_EQ(encode(Format::Float32, FLT_MAX + pow2(103) - pow2(80)), 0x7f7fffffu);
  EXPECT_EQ(encode(Format::Float32, FLT_MAX + pow2(103)), 0x7f800000u);
  EXPECT_EQ(encode(Format::Float64, DBL_MAX + pow2(970) - pow2(960)), 0x7fefffffffffffffu);
  EXPECT_EQ(encode(Format::Float64, DBL_MAX + pow2(970)), 0x7ff0000000000000u);
  EXPECT_EQ(encode(Format::Float64, -std::numeric_limits<long double>::max()), 0xfff0000000000000u);
}

TEST(FloatsEncode, SignedZeroInfinityAndCanonicalNaN) {
  const uint64_t canonicalNaN[] = {0x7e00, 0x7fc0, 0x7fc00000, 0x7ff8000000000000};
  for (std::size_t i = 0; i < 4; ++i) {
    const Format f = kAllFormats[i];
    SCOPED_TRACE(formatInfo(f).id);
    EXPECT_EQ(encode(f, 0.0L), 0u);
    EXPECT_EQ(encode(f, -0.0L), signBit(f));
    EXPECT_TRUE(std::signbit(decode(f, encode(f, -0.0L))));
    EXPECT_EQ(encode(f, kInf), infBits(f));
    EXPECT_EQ(encode(f, -kInf), signBit(f) | infBits(f));
    EXPECT_EQ(encode(f, kNaN), canonicalNaN[i]);
    EXPECT_EQ(encode(f, -kNaN), canonicalNaN[i]);
    EXPECT_TRUE(std::isnan(decode(f, canonicalNaN[i])));
    EXPECT_TRUE(std::isnan(roundTo(f, kNaN)));
    EXPECT_EQ(roundTo(f, -kInf), -std::numeric_limits<double>::infinity());
  }
}

TEST(FloatsEncode, RoundToIsDecodeOfEncode) {
  EXPECT_EQ(roundTo(Format::Half, 1000.3L), 1000.5);
  EXPECT_EQ(roundTo(Format::BFloat16, 256.5L), 256.0);
  EXPECT_EQ(roundTo(Format::Float32, 0.1L), 0.100000001490116119384765625);
  EXPECT_EQ(roundTo(Format::Float64, 0.1L), 0.1);
  EXPECT_EQ(roundTo(Format::Half, 65520.0L), std::numeric_limits<double>::infinity());
}

// ---------------------------------------------------------------------------------------------
// float32 / float64 against the compiler's conversions (x86-64: round to nearest even)
// ---------------------------------------------------------------------------------------------

// Random long doubles with every exponent in [minPow, maxPow]: a full 64-bit significand, or one
// with a random number of low bits cleared so that exact ties and short values come up often.
long double randomLongDouble(std::mt19937_64& rng, int minPow, int maxPow) {
  uint64_t sig = rng() | (uint64_t{1} << 63);
  const auto cleared = static_cast<int>(rng() % 64);
  if (rng() % 2 == 0 && cleared > 0) sig &= ~((uint64_t{1} << cleared) - 1);
  std::uniform_int_distribution<int> power(minPow, maxPow);
  const long double v = std::ldexp(static_cast<long double>(sig), power(rng) - 63);
  return rng() % 2 == 0 ? v : -v;
}

void expectMatchesFloatCast(long double v) {
  const float cast = static_cast<float>(v);
  ASSERT_EQ(encode(Format::Float32, v), std::bit_cast<uint32_t>(cast)) << std::hexfloat << v;
  if (!std::isnan(cast)) {
    ASSERT_EQ(roundTo(Format::Float32, v), static_cast<double>(cast));
  }
}

void expectMatchesDoubleCast(long double v) {
  const double cast = static_cast<double>(v);
  ASSERT_EQ(encode(Format::Float64, v), std::bit_cast<uint64_t>(cast)) << std::hexfloat << v;
  if (!std::isnan(cast)) {
    ASSERT_EQ(roundTo(Format::Float64, v), cast);
  }
}

TEST(FloatsCast, Float32MatchesStaticCastForRandomValues) {
  std::mt19937_64 rng(20240611);
  // 2^-152 is below half the smallest subnormal (2^-150); 2^129 is past the overflow threshold.
  for (int i = 0; i < 100000; ++i)
    expectMatchesFloatCast(randomLongDouble(rng, -152, 129));
  // The whole long double range, its subnormals included.
  for (int i = 0; i < 10000; ++i)
    expectMatchesFloatCast(randomLongDouble(rng, -16445, 16383));
}

TEST(FloatsCast, Float64MatchesStaticCastForRandomValues) {
  std::mt19937_64 rng(19700101);
  for (int i = 0; i < 100000; ++i)
    expectMatchesDoubleCast(randomLongDouble(rng, -1077, 1025));
  for (int i = 0; i < 10000; ++i)
    expectMatchesDoubleCast(randomLongDouble(rng, -16445, 16383));
}

// Exact midpoints between neighbouring floats and doubles (subnormal ones too), and the long
// doubles right next to them: the cases a double rounding or a lost sticky bit would get wrong.
TEST(FloatsCast, MidpointsMatchStaticCast) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 50000; ++i) {
    const auto f = std::bit_cast<float>(static_cast<uint32_t>(rng() & 0x7f7fffffu));
    const long double lo = f;
    const long double mid = (lo + std::nextafter(f, std::numeric_limits<float>::infinity())) / 2;
    for (long double v : {mid, std::nextafter(mid, 0.0L), std::nextafter(mid, kInf), -mid}) {
      expectMatchesFloatCast(v);
    }
    const auto d = std::bit_cast<double>(rng() & 0x7fefffffffffffffu);
    const long double dlo = d;
    const long double dmid = (dlo + std::nextafter(d, std::numeric_limits<double>::infinity())) / 2;
    for (long double v : {dmid, std::nextafter(dmid, 0.0L), std::nextafter(dmid, kInf), -dmid}) {
      expectMatchesDoubleCast(v);
    }
  }
}

TEST(FloatsCast, EdgeValuesMatchStaticCast) {
  const long double edges[] = {0.0L,
                               -0.0L,
                               kInf,
                               -kInf,
                               FLT_MAX,
                               FLT_MIN,
                               DBL_MAX,
                               DBL_MIN,
                               std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<double>::denorm_min(),
                               std::numeric_limits<long double>::max(),
                               std::numeric_limits<long double>::min(),
                               std::numeric_limits<long double>::denorm_min(),
                               0.1L,
                               1.0L / 3.0L,
                               3.14159265358979323846L,
                               1e-8L,
                               1e300L,
                               1e-320L};
  for (long double v : edges) {
    expectMatchesFloatCast(v);
    expectMatchesFloatCast(-v);
    expectMatchesDoubleCast(v);
    expectMatchesDoubleCast(-v);
  }
}

// ---------------------------------------------------------------------------------------------
// Exhaustive checks of the 16-bit formats
// ---------------------------------------------------------------------------------------------

bool isNaNPattern(Format f, uint64_t b) {
  return (b & ~signBit(f)) > infBits(f);
}

void expectRoundTripOfEveryPattern(Format f) {
  int nans = 0;
  for (uint64_t b = 0; b <= 0xffff; ++b) {
    if (isNaNPattern(f, b)) {
      ++nans;
      ASSERT_TRUE(std::isnan(decode(f, b)));
      ASSERT_EQ(fields(f, b).kind, Kind::NaN);
      continue;
    }
    ASSERT_EQ(encode(f, decode(f, b)), b) << hexString(f, b);
  }
  const FormatInfo& fi = formatInfo(f);
  // Exponent all ones with a non-zero fraction, either sign.
  EXPECT_EQ(nans, 2 * ((1 << fi.mantissaBits) - 1));
}

TEST(FloatsExhaustive, HalfRoundTripsEveryPattern) {
  expectRoundTripOfEveryPattern(Format::Half);
}

TEST(FloatsExhaustive, BFloat16RoundTripsEveryPattern) {
  expectRoundTripOfEveryPattern(Format::BFloat16);
}

void expectNeighboursOfEveryPattern(Format f) {
  for (uint64_t b = 0; b <= 0xffff; ++b) {
    if (isNaNPattern(f, b)) continue;
    const double x = decode(f, b);
    const uint64_t up = nextUp(f, b);
    const uint64_t down = nextDown(f, b);
    if (std::isfinite(x) && x != 0) {
      ASSERT_EQ(nextUp(f, down), b) << hexString(f, b);
      ASSERT_EQ(nextDown(f, up), b) << hexString(f, b);
    }
    if (x != std::numeric_limits<double>::infinity()) {
      ASSERT_GT(decode(f, up), x) << hexString(f, b);
      // Consecutive representable values are exactly one ULP apart, across zero too.
      ASSERT_EQ(ulpDistance(f, x, decode(f, up)), 1) << hexString(f, b);
      ASSERT_EQ(ulpDistance(f, decode(f, up), x), -1) << hexString(f, b);
      // Nothing between them: the midpoint rounds to one of the two.
      if (std::isfinite(decode(f, up))) {
        const long double mid = (static_cast<long double>(x) + decode(f, up)) / 2;
        const uint64_t r = encode(f, mid) & ~signBit(f);
        ASSERT_TRUE(r == (b & ~signBit(f)) || r == (up & ~signBit(f))) << hexString(f, b);
        ASSERT_EQ(r % 2, 0u) << "tie not to even at " << hexString(f, b);
      }
    }
    if (x != -std::numeric_limits<double>::infinity()) {
      ASSERT_LT(decode(f, down), x) << hexString(f, b);
    }
  }
}

TEST(FloatsExhaustive, HalfNeighboursAndDistances) {
  expectNeighboursOfEveryPattern(Format::Half);
}

TEST(FloatsExhaustive, BFloat16NeighboursAndDistances) {
  expectNeighboursOfEveryPattern(Format::BFloat16);
}

// Half bits as ordered integers: -inf .. -0 (0xfc00 .. 0x8000) then +0 .. +inf (0 .. 0x7c00).
TEST(FloatsExhaustive, HalfUlpDistanceFromZeroIsThePatternMagnitude) {
  for (uint64_t b = 0; b <= 0x7c00; ++b) {
    const double x = decode(Format::Half, b);
    ASSERT_EQ(ulpDistance(Format::Half, 0.0L, x), static_cast<int64_t>(b));
    ASSERT_EQ(ulpDistance(Format::Half, -x, 0.0L), static_cast<int64_t>(b));
  }
  EXPECT_EQ(ulpDistance(Format::Half, -kInf, kInf), 2 * 0x7c00);
}

// An independent reference for the 16-bit formats: binary search the positive patterns (which are
// ordered like their values) for the two that bracket |x|, then take the nearer or the even one.
// Infinity stands in as 2^(bias + 1), the next value the exponent range would have had.
uint64_t referenceRound16(Format f, long double x) {
  const FormatInfo& fi = formatInfo(f);
  auto value = [&](uint64_t b) -> long double {
    return b == infBits(f) ? pow2(fi.bias + 1) : decode(f, b);
  };
  const long double a = std::fabs(x);
  uint64_t lo = 0;
  uint64_t hi = infBits(f);
  if (a >= value(hi)) return (x < 0 ? signBit(f) : 0) | hi;
  while (hi - lo > 1) {  // value(lo) <= a < value(hi)
    const uint64_t mid = (lo + hi) / 2;
    (value(mid) <= a ? lo : hi) = mid;
  }
  const long double dLo = a - value(lo);
  const long double dHi = value(hi) - a;
  const uint64_t r = dLo < dHi ? lo : dHi < dLo ? hi : (lo % 2 == 0 ? lo : hi);
  return (std::signbit(x) ? signBit(f) : 0) | r;
}

TEST(FloatsExhaustive, SixteenBitEncodeMatchesNearestValueSearch) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const long double h = randomLongDouble(rng, -27, 17);
    ASSERT_EQ(encode(Format::Half, h), referenceRound16(Format::Half, h)) << std::hexfloat << h;
    const long double bf = randomLongDouble(rng, -136, 129);
    ASSERT_EQ(encode(Format::BFloat16, bf), referenceRound16(Format::BFloat16, bf))
        << std::hexfloat << bf;
  }
}

// ---------------------------------------------------------------------------------------------
// Fields and strings
// ---------------------------------------------------------------------------------------------

TEST(FloatsBits, HalfFieldsAndStrings) {
  struct Case {
    uint64_t bits;
    const char* bitString;
    const char* hex;
    bool negative;
    uint32_t exponent;
    uint64_t mantissa;
    int power;
    Kind kind;
  };
  const Case cases[] = {
      {0x3c00, "0 01111 0000000000", "0x3c00", false, 15, 0, 0, Kind::Normal},       // 1.0
      {0xc000, "1 10000 0000000000", "0xc000", true, 16, 0, 1, Kind::Normal},        // -2.0
      {0x0001, "0 00000 0000000001", "0x0001", false, 0, 1, -14, Kind::Subnormal},   // 2^-24
      {0x7c00, "0 11111 0000000000", "0x7c00", false, 31, 0, 16, Kind::Infinite},    // inf
      {0x7e00, "0 11111 1000000000", "0x7e00", false, 31, 0x200, 16, Kind::NaN},     // NaN
      {0x8000, "1 00000 0000000000", "0x8000", true, 0, 0, -14, Kind::Zero},         // -0
      {0x7bff, "0 11110 1111111111", "0x7bff", false, 30, 0x3ff, 15, Kind::Normal},  // 65504
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.hex);
    EXPECT_EQ(bitString(Format::Half, c.bits), c.bitString);
    EXPECT_EQ(hexString(Format::Half, c.bits), c.hex);
    const Fields fs = fields(Format::Half, c.bits);
    EXPECT_EQ(fs.negative, c.negative);
    EXPECT_EQ(fs.exponent, c.exponent);
    EXPECT_EQ(fs.mantissa, c.mantissa);
    EXPECT_EQ(fs.power, c.power);
    EXPECT_EQ(fs.kind, c.kind);
  }
  EXPECT_EQ(encode(Format::Half, -2.0L), 0xc000u);
  EXPECT_EQ(encode(Format::Half, pow2(-24)), 0x0001u);
  EXPECT_EQ(encode(Format::Half, kNaN), 0x7e00u);
}

TEST(FloatsBits, OtherFormatsFieldsAndStrings) {
  EXPECT_EQ(bitString(Format::BFloat16, 0x3f80), "0 01111111 0000000");
  EXPECT_EQ(hexString(Format::BFloat16, 0x3f80), "0x3f80");
  EXPECT_EQ(bitString(Format::Float32, 0x3f800000), "0 01111111 00000000000000000000000");
  EXPECT_EQ(hexString(Format::Float32, 0x3dcccccd), "0x3dcccccd");
  EXPECT_EQ(hexString(Format::Float32, 0x1), "0x00000001");
  EXPECT_EQ(bitString(Format::Float64, 0x3ff0000000000000),
            "0 01111111111 0000000000000000000000000000000000000000000000000000");
  EXPECT_EQ(hexString(Format::Float64, 0x3fb999999999999a), "0x3fb999999999999a");
  EXPECT_EQ(hexString(Format::Float64, 0xfff0000000000000), "0xfff0000000000000");

  // float32 0.1 = 1.6 x 2^-4: stored exponent 127 - 4 = 123, fraction 0x4ccccd.
  Fields fs = fields(Format::Float32, 0x3dcccccd);
  EXPECT_FALSE(fs.negative);
  EXPECT_EQ(fs.exponent, 123u);
  EXPECT_EQ(fs.mantissa, 0x4ccccdu);
  EXPECT_EQ(fs.power, -4);
  EXPECT_EQ(fs.kind, Kind::Normal);
  fs = fields(Format::Float64, 0x0000000000000001);
  EXPECT_EQ(fs.kind, Kind::Subnormal);
  EXPECT_EQ(fs.power, -1022);
  fs = fields(Format::BFloat16, 0xff80);
  EXPECT_TRUE(fs.negative);
  EXPECT_EQ(fs.exponent, 255u);
  EXPECT_EQ(fs.kind, Kind::Infinite);
  EXPECT_EQ(fields(Format::BFloat16, 0x7fc0).kind, Kind::NaN);
}

TEST(FloatsBits, KindNames) {
  EXPECT_STREQ(kindName(Kind::Zero), "zero");
  EXPECT_STREQ(kindName(Kind::Subnormal), "subnormal");
  EXPECT_STREQ(kindName(Kind::Normal), "normal");
  EXPECT_STREQ(kindName(Kind::Infinite), "infinity");
  EXPECT_STREQ(kindName(Kind::NaN), "NaN");
}

// ---------------------------------------------------------------------------------------------
// Neighbours and ULPs
// ---------------------------------------------------------------------------------------------

TEST(FloatsNeighbours, NextUpAndDownAtTheEdges) {
  for (Format f : kAllFormats) {
    SCOPED_TRACE(formatInfo(f).id);
    const uint64_t s = signBit(f);
    EXPECT_EQ(nextUp(f, maxBits(f)), infBits(f));
    EXPECT_EQ(nextUp(f, infBits(f)), infBits(f));
    EXPECT_EQ(nextUp(f, s), 1u);  // -0 -> smallest subnormal
    EXPECT_EQ(nextUp(f, 0), 1u);
    EXPECT_EQ(nextDown(f, 0), s | 1);  // +0 -> -smallest subnormal
    EXPECT_EQ(nextDown(f, s), s | 1);
    EXPECT_EQ(nextUp(f, s | 1), s);  // -smallest subnormal -> -0
    EXPECT_EQ(nextDown(f, 1), 0u);
    EXPECT_EQ(nextUp(f, s | infBits(f)), s | maxBits(f));
    EXPECT_EQ(nextDown(f, s | infBits(f)), s | infBits(f));
    EXPECT_EQ(nextDown(f, infBits(f)), maxBits(f));
    const uint64_t nan = encode(f, kNaN);
    EXPECT_EQ(nextUp(f, nan), nan);
    EXPECT_EQ(nextDown(f, nan), nan);
    EXPECT_EQ(decode(f, nextUp(f, encode(f, -0.0L))), formatInfo(f).minSubnormal);
    EXPECT_EQ(decode(f, nextDown(f, encode(f, 0.0L))), -formatInfo(f).minSubnormal);
    EXPECT_EQ(decode(f, nextDown(f, infBits(f))), formatInfo(f).maxFinite);
  }
}

TEST(FloatsNeighbours, AroundOne) {
  struct Case {
    Format f;
    double below;
    double above;
  };
  const Case cases[] = {
      {Format::Half, 0.99951171875, 1.0009765625},  // 1 - 2^-11, 1 + 2^-10
      {Format::BFloat16, 0.99609375, 1.0078125},    // 1 - 2^-8, 1 + 2^-7
      {Format::Float32, 1.0 - 0x1p-24, 1.0 + 0x1p-23},
      {Format::Float64, 1.0 - 0x1p-53, 1.0 + 0x1p-52},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(formatInfo(c.f).id);
    const Neighbourhood n = explore(c.f, 1.0L);
    EXPECT_EQ(n.value, 1.0);
    EXPECT_EQ(n.below, c.below);
    EXPECT_EQ(n.above, c.above);
    EXPECT_EQ(n.gapBelow, 1.0 - c.below);
    EXPECT_EQ(n.gapAbove, c.above - 1.0);
    EXPECT_EQ(n.gapAbove, 2 * n.gapBelow);  // the spacing halves below a power of two
    EXPECT_EQ(n.gapAbove, formatInfo(c.f).epsilon);
    EXPECT_TRUE(n.exact);
    EXPECT_FALSE(n.overflow);
    EXPECT_FALSE(n.underflow);
    EXPECT_EQ(n.roundingError, 0.0L);
    EXPECT_EQ(n.relativeError, 0.0);
  }
}

TEST(FloatsNeighbours, HalfAt1000Point3) {
  // [512, 1024) has spacing 2^(9 - 10) = 0.5: 1000.3 is 0.2 from 1000.5 and 0.3 from 1000.
  const Neighbourhood n = explore(Format::Half, 1000.3L);
  EXPECT_EQ(n.input, 1000.3L);
  EXPECT_EQ(n.value, 1000.5);
  EXPECT_EQ(n.bits, 0x63d1u);
  EXPECT_EQ(n.below, 1000.0);
  EXPECT_EQ(n.above, 1001.0);
  EXPECT_EQ(n.gapBelow, 0.5);
  EXPECT_EQ(n.gapAbove, 0.5);
  EXPECT_NEAR(static_cast<double>(n.roundingError), 0.2, 1e-15);
  EXPECT_NEAR(n.relativeError, 0.2 / 1000.3, 1e-15);
  EXPECT_FALSE(n.exact);
  EXPECT_EQ(ulp(Format::Half, 1000.3L), 0.5);
}

TEST(FloatsNeighbours, BFloat16At256Point5) {
  // [256, 512) has spacing 2^(8 - 7) = 2, so 256.5 rounds down to 256; below 256 the spacing is 1.
  const Neighbourhood n = explore(Format::BFloat16, 256.5L);
  EXPECT_EQ(n.value, 256.0);
  EXPECT_EQ(n.bits, 0x4380u);
  EXPECT_EQ(n.below, 255.0);
  EXPECT_EQ(n.above, 258.0);
  EXPECT_EQ(n.gapBelow, 1.0);
  EXPECT_EQ(n.gapAbove, 2.0);
  EXPECT_EQ(n.roundingError, -0.5L);
  EXPECT_FALSE(n.exact);
  EXPECT_EQ(ulp(Format::BFloat16, 256.5L), 2.0);
  EXPECT_EQ(roundTo(Format::BFloat16, 257.0L), 256.0);  // tie: 256 (0x4380) is even
  EXPECT_EQ(roundTo(Format::BFloat16, 259.0L), 260.0);  // tie: 260 (0x4382) is even
}

TEST(FloatsUlp, SpacingAtKnownPoints) {
  EXPECT_EQ(ulp(Format::Half, 1.0L), 0x1p-10);
  EXPECT_EQ(ulp(Format::BFloat16, 1.0L), 0x1p-7);
  EXPECT_EQ(ulp(Format::Float32, 1.0L), 0x1p-23);
  EXPECT_EQ(ulp(Format::Float64, 1.0L), 0x1p-52);
  // 2^-27 <= 1e-8 < 2^-26, so the float32 spacing there is 2^(-27 - 23) = 2^-50.
  EXPECT_EQ(ulp(Format::Float32, 1e-8L), 0x1p-50);
  // Just below a power of two the spacing is still the lower binade's.
  EXPECT_EQ(ulp(Format::Half, 0.999L), 0x1p-11);
  EXPECT_EQ(ulp(Format::Half, -2.0L), 0x1p-9);
  // In and below the subnormal range the spacing stays the smallest subnormal.
  EXPECT_EQ(ulp(Format::Half, 1e-6L), 0x1p-24);
  EXPECT_EQ(ulp(Format::Half, 0x1p-14L), 0x1p-24);
  EXPECT_EQ(ulp(Format::Float64, 1e-320L), std::numeric_limits<double>::denorm_min());
  for (Format f : kAllFormats) {
    EXPECT_EQ(ulp(f, 0.0L), formatInfo(f).minSubnormal);
    EXPECT_EQ(ulp(f, formatInfo(f).maxFinite), formatInfo(f).maxFinite - decode(f, maxBits(f) - 1));
    EXPECT_TRUE(std::isnan(ulp(f, kInf)));
    EXPECT_TRUE(std::isnan(ulp(f, kNaN)));
  }
}

TEST(FloatsUlp, UlpError) {
  // 1e-8 / 2^-50 = 1e-8 x 1125899906842624.
  EXPECT_NEAR(ulpError(Format::Float32, 0.0L, 1e-8L), 11258999.06842624, 1e-6);
  EXPECT_EQ(ulpError(Format::Float32, 0.100000001490116119384765625L, 0.1L),
            static_cast<double>((0.100000001490116119384765625L - 0.1L) / 0x1p-27L));
  EXPECT_NEAR(ulpError(Format::Float32, 0.100000001490116119384765625L, 0.1L), 0.2, 1e-6);
  EXPECT_EQ(ulpError(Format::Half, 1.0L + 0x1p-10L, 1.0L), 1.0);
  EXPECT_EQ(ulpError(Format::Half, 1.0L - 0x1p-11L, 1.0L), 0.5);  // measured in 1's binade
  for (Format f : kAllFormats) {
    SCOPED_TRACE(formatInfo(f).id);
    for (long double x : {0.0L, 1.0L, -3.5L, 1e-8L, 0.1L})
      EXPECT_EQ(ulpError(f, x, x), 0.0);
    EXPECT_EQ(ulpError(f, kInf, 1.0L), std::numeric_limits<double>::infinity());
    EXPECT_EQ(ulpError(f, kNaN, 1.0L), std::numeric_limits<double>::infinity());
    EXPECT_EQ(ulpError(f, kInf, kInf), 0.0);
    EXPECT_EQ(ulpError(f, -kInf, kInf), std::numeric_limits<double>::infinity());
    EXPECT_EQ(ulpError(f, 1.0L, kInf), std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(ulpError(f, 1.0L, kNaN)));
  }
}

TEST(FloatsUlp, UlpDistance) {
  EXPECT_EQ(ulpDistance(Format::Float32, 1.0L, 1.0L + 0x1p-23L), 1);
  EXPECT_EQ(ulpDistance(Format::Float32, 1.0L + 0x1p-23L, 1.0L), -1);
  EXPECT_EQ(ulpDistance(Format::Half, -0.0L, 0.0L), 0);
  EXPECT_EQ(ulpDistance(Format::Half, 0.0L, -0.0L), 0);
  EXPECT_EQ(ulpDistance(Format::Half, -0x1p-24L, 0x1p-24L), 2);
  EXPECT_EQ(ulpDistance(Format::Half, 1.0L, 2.0L), 1024);  // one binade: 2^10 steps
  EXPECT_EQ(ulpDistance(Format::BFloat16, 1.0L, 2.0L), 128);
  EXPECT_EQ(ulpDistance(Format::Float64, 1.0L, 2.0L), int64_t{1} << 52);
  EXPECT_EQ(ulpDistance(Format::Half, 1.0L, 1.0004L), 0);   // both round to 1
  EXPECT_EQ(ulpDistance(Format::Half, 65504.0L, 1e9L), 1);  // max to inf
  EXPECT_EQ(ulpDistance(Format::Float32, -1.0L, 1.0L), 2 * int64_t{0x3f800000});
  for (Format f : kAllFormats) {
    EXPECT_EQ(ulpDistance(f, kNaN, 1.0L), std::numeric_limits<int64_t>::min());
    EXPECT_EQ(ulpDistance(f, 1.0L, kNaN), std::numeric_limits<int64_t>::min());
  }
  // -inf to +inf in float64 is 2 x 0x7ff0000000000000 steps, more than int64 holds: saturates.
  EXPECT_EQ(ulpDistance(Format::Float64, -kInf, kInf), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ulpDistance(Format::Float64, kInf, -kInf), -std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ulpDistance(Format::Float64, 0.0L, kInf), int64_t{0x7ff0000000000000});
}

// ---------------------------------------------------------------------------------------------
// The explorer
// ---------------------------------------------------------------------------------------------

TEST(FloatsExplore, ExactHalf) {
  for (Format f : kAllFormats) {
    SCOPED_TRACE(formatInfo(f).id);
    const Neighbourhood n = explore(f, 0.5L);
    EXPECT_TRUE(n.exact);
    EXPECT_EQ(n.value, 0.5);
    EXPECT_EQ(n.roundingError, 0.0L);
    EXPECT_EQ(n.relativeError, 0.0);
    EXPECT_FALSE(n.overflow);
    EXPECT_FALSE(n.underflow);
  }
}

TEST(FloatsExplore, HalfOverflowAndUnderflow) {
  Neighbourhood n = explore(Format::Half, 1e6L);
  EXPECT_TRUE(n.overflow);
  EXPECT_FALSE(n.underflow);
  EXPECT_FALSE(n.exact);
  EXPECT_EQ(n.bits, 0x7c00u);
  EXPECT_EQ(n.value, std::numeric_limits<double>::infinity());
  EXPECT_EQ(n.below, 65504.0);
  EXPECT_EQ(n.gapBelow, std::numeric_limits<double>::infinity());

  // 1e-6 is below 2^-14 (6.1e-5): a subnormal, 17 x 2^-24 (16.78 rounds to 17).
  n = explore(Format::Half, 1e-6L);
  EXPECT_TRUE(n.underflow);
  EXPECT_FALSE(n.overflow);
  EXPECT_EQ(n.bits, 0x0011u);
  EXPECT_EQ(n.value, 17 * 0x1p-24);
  EXPECT_EQ(n.gapBelow, 0x1p-24);
  EXPECT_EQ(n.gapAbove, 0x1p-24);

  // 1e-9 is below 2^-25, half the smallest subnormal: zero.
  n = explore(Format::Half, 1e-9L);
  EXPECT_TRUE(n.underflow);
  EXPECT_EQ(n.bits, 0x0000u);
  EXPECT_EQ(n.value, 0.0);
  EXPECT_EQ(n.relativeError, 1.0);
  n = explore(Format::Half, -1e-9L);
  EXPECT_TRUE(n.underflow);
  EXPECT_EQ(n.bits, 0x8000u);

  // Zero itself neither underflows nor has a relative error.
  n = explore(Format::Half, 0.0L);
  EXPECT_FALSE(n.underflow);
  EXPECT_TRUE(n.exact);
  EXPECT_EQ(n.relativeError, 0.0);
  EXPECT_EQ(n.below, -0x1p-24);
  EXPECT_EQ(n.above, 0x1p-24);
  // An infinite input is represented exactly, it does not overflow.
  n = explore(Format::Half, kInf);
  EXPECT_TRUE(n.exact);
  EXPECT_FALSE(n.overflow);
  EXPECT_EQ(n.roundingError, 0.0L);
  EXPECT_EQ(n.below, 65504.0);
  EXPECT_EQ(n.above, std::numeric_limits<double>::infinity());
  EXPECT_EQ(n.gapAbove, 0.0);
}

TEST(FloatsExplore, Float32RelativeErrorOfOneTenth) {
  const Neighbourhood n = explore(Format::Float32, 0.1L);
  EXPECT_EQ(n.value, 0.100000001490116119384765625);
  EXPECT_EQ(n.bits, 0x3dcccccdu);
  // |0.100000001490116119384765625 - 0.1| / 0.1, worked in decimal: computing it in double would
  // use float64's 0.1, itself 5.55e-18 off, and be wrong in the 9th digit.
  const double expected = 1.490116119384765625e-8;
  EXPECT_NEAR(n.relativeError, expected, 1e-12 * expected);
  EXPECT_NEAR(static_cast<double>(n.roundingError), 1.490116119384765625e-9, 1e-20);
  EXPECT_FALSE(n.exact);
  EXPECT_FALSE(n.underflow);
  EXPECT_FALSE(n.overflow);
  // float32 spacing in [2^-4, 2^-3) is 2^-27.
  EXPECT_EQ(n.gapBelow, 0x1p-27);
  EXPECT_EQ(n.gapAbove, 0x1p-27);
}

TEST(FloatsExplore, Float64AndBFloat16Flags) {
  Neighbourhood n = explore(Format::Float64, 1e-310L);
  EXPECT_TRUE(n.underflow);  // below DBL_MIN (2.2e-308)
  n = explore(Format::Float64, 1e309L);
  EXPECT_TRUE(n.overflow);
  n = explore(Format::BFloat16, 1e38L);
  EXPECT_FALSE(n.overflow);  // bfloat16 keeps float32's range
  n = explore(Format::BFloat16, 1e-39L);
  EXPECT_TRUE(n.underflow);
  EXPECT_NE(n.value, 0.0);
}

}  // namespace
}  // namespace cudalab::floats

// ---------------------------------------------------------------------------------------------
// The tensor cores' input formats: TF32 and FP8 E4M3
// ---------------------------------------------------------------------------------------------

namespace cudalab::floats {
namespace {

TEST(FloatsTensorFormats, AllFormatsAddTf32AndE4m3AfterTheFour) {
  const auto all = allFormats();
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(formats().size(), 4u);
  EXPECT_EQ(all[4].format, Format::TF32);
  EXPECT_EQ(all[5].format, Format::FP8E4M3);
  EXPECT_EQ(&formatInfo(Format::TF32), &all[4]);
  const FormatInfo& t = formatInfo(Format::TF32);
  EXPECT_EQ(t.bits, 19);
  EXPECT_EQ(t.mantissaBits, 10);
  EXPECT_EQ(t.bias, 127);
  EXPECT_FALSE(t.finiteOnly);
  const FormatInfo& e = formatInfo(Format::FP8E4M3);
  EXPECT_EQ(e.bits, 8);
  EXPECT_EQ(e.bias, 7);
  EXPECT_TRUE(e.finiteOnly);
  EXPECT_EQ(e.maxFinite, 448.0);
  EXPECT_EQ(e.minNormal, 1.0 / 64);
  EXPECT_EQ(e.minSubnormal, 1.0 / 512);
}

// TF32 is float32's sign and exponent with 10 mantissa bits: 1.0 is 0x1fc00 (127 << 10).
TEST(FloatsTensorFormats, Tf32RoundsToTenMantissaBits) {
  EXPECT_EQ(encode(Format::TF32, 1.0L), 0x1fc00u);
  EXPECT_EQ(encode(Format::TF32, 1.0L + 0x1p-10L), 0x1fc01u);
  EXPECT_EQ(encode(Format::TF32, 1.0L + 0x1p-11L), 0x1fc00u);     // a tie: to even
  EXPECT_EQ(encode(Format::TF32, 1.0L + 0x3p-11L), 0x1fc02u);     // a tie: to even, up
  EXPECT_EQ(encode(Format::TF32, -2.0L), 0x40000u | 0x20000u);    // sign, exponent 128
  EXPECT_EQ(roundTo(Format::TF32, 0.1L), 0.0999755859375 * 1.0);  // as half's mantissa, 2^-4
  EXPECT_EQ(hexString(Format::TF32, 0x1fc00u), "0x1fc00");
  EXPECT_EQ(bitString(Format::TF32, 0x1fc00u), "0 01111111 0000000000");
  // float32's range: 2^127 stays finite, 2^128 is infinite.
  EXPECT_EQ(fields(Format::TF32, encode(Format::TF32, 0x1p127L)).kind, Kind::Normal);
  EXPECT_EQ(fields(Format::TF32, encode(Format::TF32, 0x1p128L)).kind, Kind::Infinite);
}

// E4M3: 1.0 is 0x38 (exponent 7 = bias); the top binade reaches 448 (0x7e); 0x7f is NaN; larger
// values saturate to 448; subnormals down to 2^-9.
TEST(FloatsTensorFormats, E4m3HasNoInfinityAndSaturates) {
  const Format f = Format::FP8E4M3;
  EXPECT_EQ(encode(f, 1.0L), 0x38u);
  EXPECT_EQ(encode(f, 0.5L), 0x30u);
  EXPECT_EQ(encode(f, -2.0L), 0xc0u);
  EXPECT_EQ(encode(f, 448.0L), 0x7eu);
  EXPECT_EQ(encode(f, 256.0L), 0x78u);  // exponent field 15 is a binade of numbers
  EXPECT_EQ(fields(f, 0x78).kind, Kind::Normal);
  EXPECT_EQ(decode(f, 0x78), 256.0);
  EXPECT_EQ(decode(f, 0x7e), 448.0);
  EXPECT_EQ(encode(f, 460.0L), 0x7eu);  // rounds down to 448
  EXPECT_EQ(encode(f, 500.0L), 0x7eu);  // would round to 480: saturates
  EXPECT_EQ(encode(f, 1e30L), 0x7eu);
  EXPECT_EQ(encode(f, -1e30L), 0xfeu);
  EXPECT_EQ(encode(f, std::numeric_limits<long double>::infinity()), 0x7eu);
  EXPECT_EQ(encode(f, std::numeric_limits<long double>::quiet_NaN()), 0x7fu);
  EXPECT_EQ(fields(f, 0x7f).kind, Kind::NaN);
  EXPECT_EQ(fields(f, 0xff).kind, Kind::NaN);
  EXPECT_TRUE(std::isnan(decode(f, 0xff)));
  EXPECT_EQ(encode(f, 1.0625L), 0x38u);   // 1 + 1/16, a tie: to even (1.0)
  EXPECT_EQ(encode(f, 1.1875L), 0x3au);   // 1 + 3/16, a tie: to even (1.25)
  EXPECT_EQ(encode(f, 0x1p-9L), 0x01u);   // the smallest subnormal
  EXPECT_EQ(encode(f, 0x7p-9L), 0x07u);   // the largest
  EXPECT_EQ(encode(f, 0x1p-6L), 0x08u);   // the smallest normal
  EXPECT_EQ(encode(f, 0x1p-11L), 0x00u);  // a quarter of the smallest subnormal: 0
  EXPECT_EQ(nextUp(f, 0x7e), 0x7eu);      // nothing above 448
  EXPECT_EQ(nextUp(f, 0x38), 0x39u);
  EXPECT_EQ(decode(f, 0x39), 1.125);
  EXPECT_EQ(ulp(f, 300.0L), 32.0);
  EXPECT_EQ(hexString(f, 0x7e), "0x7e");
  EXPECT_EQ(bitString(f, 0x7e), "0 1111 110");
  const Neighbourhood n = explore(f, 1000.0L);
  EXPECT_TRUE(n.overflow);
  EXPECT_EQ(n.value, 448.0);
  EXPECT_FALSE(explore(f, 448.0L).overflow);
  // Every one of the 256 patterns decodes to a number or NaN, and numbers encode back to
  // themselves.
  int nans = 0;
  for (uint64_t b = 0; b < 256; ++b) {
    const double v = decode(f, b);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    EXPECT_FALSE(std::isinf(v)) << b;
    EXPECT_EQ(encode(f, v), b) << b;  // -0 (0x80) encodes as -0 too
  }
  EXPECT_EQ(nans, 2);
}

}  // namespace
}  // namespace cudalab::floats
