#include "models/floats.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "common/table.hpp"

namespace cudalab::floats {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Formats
// ---------------------------------------------------------------------------------------------

// std::ldexp is not constexpr before C++23; halving and doubling by 2 is exact all the way down
// to float64's smallest subnormal, so this builds the table constants exactly at compile time.
constexpr double pow2(int n) {
  double r = 1.0;
  for (; n > 0; --n)
    r *= 2.0;
  for (; n < 0; ++n)
    r /= 2.0;
  return r;
}

constexpr double kLog10Of2 = 0.30102999566398119521;

constexpr FormatInfo makeFormat(Format format, const char* id, const char* name, int bits,
                                int exponentBits, int mantissaBits, bool finiteOnly = false) {
  const int bias = (1 << (exponentBits - 1)) - 1;
  const double epsilon = pow2(-mantissaBits);
  return {format, id, name, bits, exponentBits, mantissaBits, bias, epsilon, pow2(1 - bias),
          pow2(1 - bias - mantissaBits),
          // Without infinities the top binade holds numbers too, all but its NaN pattern.
          finiteOnly ? (2.0 - 2 * epsilon) * pow2(bias + 1) : (2.0 - epsilon) * pow2(bias),
          (mantissaBits + 1) * kLog10Of2, finiteOnly};
}

constexpr FormatInfo kFormats[] = {
    makeFormat(Format::Half, "half", "half (FP16)", 16, 5, 10),
    makeFormat(Format::BFloat16, "bf16", "bfloat16", 16, 8, 7),
    makeFormat(Format::Float32, "f32", "float32", 32, 8, 23),
    makeFormat(Format::Float64, "f64", "float64", 64, 11, 52),
    makeFormat(Format::TF32, "tf32", "TF32", 19, 8, 10),
    makeFormat(Format::FP8E4M3, "e4m3", "FP8 E4M3", 8, 4, 3, true),
};
constexpr std::size_t kScalarFormats = 4;

// The masks every bit-level routine needs, derived once from the two field widths so that no
// format is special-cased.
struct Layout {
  int bits;
  int mantissaBits;
  int bias;
  uint64_t all;       // the low `bits` bits
  uint64_t sign;      // the sign bit
  uint64_t mantissa;  // the fraction field
  uint64_t infinity;  // exponent field all ones, fraction zero: also the largest non-NaN magnitude
                      // (finite-only formats: the largest finite magnitude)
  uint64_t nan;       // the canonical quiet NaN's magnitude
  uint32_t maxExponentField;
  bool finiteOnly;
};

Layout layout(Format f) {
  const FormatInfo& fi = formatInfo(f);
  Layout l{};
  l.bits = fi.bits;
  l.mantissaBits = fi.mantissaBits;
  l.bias = fi.bias;
  l.all = fi.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << fi.bits) - 1;
  l.sign = uint64_t{1} << (fi.bits - 1);
  l.mantissa = (uint64_t{1} << fi.mantissaBits) - 1;
  l.maxExponentField = (uint32_t{1} << fi.exponentBits) - 1;
  l.finiteOnly = fi.finiteOnly;
  const uint64_t top = uint64_t{l.maxExponentField} << fi.mantissaBits;
  // Without infinities the all-ones pattern is the NaN and the one below it the largest number.
  l.nan = l.finiteOnly ? top | l.mantissa : top | (uint64_t{1} << (fi.mantissaBits - 1));
  l.infinity = l.finiteOnly ? l.nan - 1 : top;
  return l;
}

bool isNaNBits(const Layout& l, uint64_t bits) {
  const uint64_t magnitude = bits & ~l.sign & l.all;
  return l.finiteOnly ? magnitude == l.nan : magnitude > l.infinity;
}

// sig / 2^shift rounded to nearest, ties to even. shift > 0; past 64 every bit of sig is below
// the rounding point, and at exactly 64 the value is in [1/2, 1) so only a tie needs care.
uint64_t roundShiftRight(uint64_t sig, int shift) {
  if (shift > 64) return 0;
  if (shift == 64) return sig > (uint64_t{1} << 63) ? 1 : 0;
  uint64_t n = sig >> shift;
  const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (n & 1) != 0)) ++n;
  return n;
}

// Bits to a signed integer that orders like the values: sign-magnitude becomes two's-complement
// style, which makes +0 and -0 the same point and neighbours exactly 1 apart.
int64_t orderedInt(const Layout& l, uint64_t bits) {
  const auto magnitude = static_cast<int64_t>(bits & ~l.sign & l.all);
  return (bits & l.sign) != 0 ? -magnitude : magnitude;
}

}  // namespace

std::span<const FormatInfo> formats() {
  return std::span<const FormatInfo>(kFormats, kScalarFormats);
}

std::span<const FormatInfo> allFormats() {
  return kFormats;
}

const FormatInfo& formatInfo(Format f) {
  return kFormats[static_cast<std::size_t>(f)];
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Rounding and bits
// ---------------------------------------------------------------------------------------------

uint64_t encode(Format f, long double v) {
  const Layout l = layout(f);
  const int m = l.mantissaBits;
  if (std::isnan(v)) return l.nan;
  const uint64_t sign = std::signbit(v) ? l.sign : 0;
  // (A finite-only format saturates: infinity and overflow become its largest number.)
  if (std::isinf(v)) return sign | l.infinity;
  if (v == 0) return sign;

  // |v| = sig * 2^(exp2 - 64) with sig's top bit set: the whole long double significand as an
  // integer, so the rounding below sees every input bit and rounds only once.
  int exp2 = 0;
  const long double scaled = std::ldexp(std::frexp(std::fabs(v), &exp2), 64);
  auto sig = static_cast<uint64_t>(scaled);
  // Where long double is wider than 64 bits (quad precision), the dropped bits still decide
  // ties: fold them into a sticky bit, which always lies below the rounding point.
  if (scaled != static_cast<long double>(sig)) sig |= 1;

  const int power = exp2 - 1;  // floor(log2 |v|)
  if (power > l.bias + (l.finiteOnly ? 1 : 0)) return sign | l.infinity;
  // The spacing of the format at |v|: fixed at the subnormal spacing below the normal range,
  // which is what makes underflow gradual.
  const int quantum = std::max(power, 1 - l.bias) - m;
  const uint64_t n = roundShiftRight(sig, quantum - (exp2 - 64));

  // n counts quanta and includes the implicit leading bit, so adding it to (field - 1) << m
  // carries that bit into the exponent field. The same addition turns a subnormal that rounds up
  // to 2^m into the smallest normal, a binade that rounds up into the next one, and the largest
  // binade that rounds up into infinity.
  const auto fieldMinusOne = static_cast<uint64_t>(quantum + m + l.bias - 1);
  const uint64_t magnitude = (fieldMinusOne << m) + n;
  return sign | std::min(magnitude, l.infinity);
}

double decode(Format f, uint64_t bits) {
  const Fields fs = fields(f, bits);
  const double sign = fs.negative ? -1.0 : 1.0;
  switch (fs.kind) {
    case Kind::NaN:
      return std::copysign(std::numeric_limits<double>::quiet_NaN(), sign);
    case Kind::Infinite:
      return sign * std::numeric_limits<double>::infinity();
    case Kind::Normal:
    case Kind::Subnormal:
    case Kind::Zero:
      break;
  }
  const int m = formatInfo(f).mantissaBits;
  const uint64_t lead = fs.kind == Kind::Normal ? uint64_t{1} << m : 0;
  // At most 53 significant bits: the conversion to double and the scaling are exact.
  return sign * std::ldexp(static_cast<double>(lead | fs.mantissa), fs.power - m);
}

double roundTo(Format f, long double v) {
  return decode(f, encode(f, v));
}

Fields fields(Format f, uint64_t bits) {
  const Layout l = layout(f);
  bits &= l.all;
  Fields fs{};
  fs.negative = (bits & l.sign) != 0;
  fs.exponent = static_cast<uint32_t>((bits & ~l.sign) >> l.mantissaBits);
  fs.mantissa = bits & l.mantissa;
  if (fs.exponent == 0) {
    fs.kind = fs.mantissa == 0 ? Kind::Zero : Kind::Subnormal;
    fs.power = 1 - l.bias;
  } else {
    // For infinity and NaN the power is just the field minus the bias (bias + 1); it has no
    // value meaning but keeps the field readable.
    fs.power = static_cast<int>(fs.exponent) - l.bias;
    if (fs.exponent < l.maxExponentField) {
      fs.kind = Kind::Normal;
    } else if (l.finiteOnly) {
      fs.kind = fs.mantissa == l.mantissa ? Kind::NaN : Kind::Normal;
    } else {
      fs.kind = fs.mantissa == 0 ? Kind::Infinite : Kind::NaN;
    }
  }
  return fs;
}

std::string bitString(Format f, uint64_t bits) {
  const FormatInfo& fi = formatInfo(f);
  std::string s;
  s.reserve(static_cast<std::size_t>(fi.bits + 2));
  for (int i = fi.bits - 1; i >= 0; --i) {
    s += ((bits >> i) & 1) != 0 ? '1' : '0';
    if (i == fi.bits - 1 || i == fi.mantissaBits) s += ' ';
  }
  return s;
}

std::string hexString(Format f, uint64_t bits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const int digits = (formatInfo(f).bits + 3) / 4;  // TF32's 19 bits: 5 digits
  std::string s = "0x";
  for (int i = digits - 1; i >= 0; --i)
    s += kDigits[(bits >> (4 * i)) & 0xf];
  return s;
}

const char* kindName(Kind k) {
  static constexpr EnumName<Kind> kNames[] = {{Kind::Zero, "zero"},
                                              {Kind::Subnormal, "subnormal"},
                                              {Kind::Normal, "normal"},
                                              {Kind::Infinite, "infinity"},
                                              {Kind::NaN, "NaN"}};
  return nameOf(kNames, k);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Neighbours and ULPs
// ---------------------------------------------------------------------------------------------

uint64_t nextUp(Format f, uint64_t bits) {
  const Layout l = layout(f);
  bits &= l.all;
  if (isNaNBits(l, bits)) return bits;
  const uint64_t magnitude = bits & ~l.sign;
  if (magnitude == 0) return 1;  // from either zero to the smallest positive subnormal
  // Magnitudes are ordered like the bit patterns, so a step up is +1 on a positive pattern and -1
  // on a negative one (-infinity steps to -max finite, the smallest negative subnormal to -0).
  if ((bits & l.sign) != 0) return bits - 1;
  return magnitude == l.infinity ? bits : bits + 1;
}

uint64_t nextDown(Format f, uint64_t bits) {
  // nextDown(x) = -nextUp(-x), which also gives nextDown(+0) = -smallest subnormal.
  const Layout l = layout(f);
  return nextUp(f, (bits & l.all) ^ l.sign) ^ l.sign;
}

double ulp(Format f, long double x) {
  const FormatInfo& fi = formatInfo(f);
  if (std::isnan(x) || std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return fi.minSubnormal;
  // ilogb is exactly floor(log2 |x|), with no rounding trouble at powers of two.
  const int power = std::max(std::ilogb(x), 1 - fi.bias);
  return std::ldexp(1.0, power - fi.mantissaBits);
}

double ulpError(Format f, long double computed, long double exact) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (std::isnan(exact)) return std::numeric_limits<double>::quiet_NaN();
  // Against an infinite exact value only the same infinity is right; anything else is
  // infinitely many ULPs away (ulp(inf) itself is undefined).
  if (std::isinf(exact)) return computed == exact ? 0.0 : kInf;
  if (std::isnan(computed) || std::isinf(computed)) return kInf;
  return static_cast<double>(std::fabs(computed - exact) / ulp(f, exact));
}

int64_t ulpDistance(Format f, long double a, long double b) {
  const Layout l = layout(f);
  const uint64_t bitsA = encode(f, a);
  const uint64_t bitsB = encode(f, b);
  if (isNaNBits(l, bitsA) || isNaNBits(l, bitsB)) return std::numeric_limits<int64_t>::min();
  const int64_t oa = orderedInt(l, bitsA);
  const int64_t ob = orderedInt(l, bitsB);
  // Only float64 across zero can leave int64 (-inf to +inf is about 1.8e19 steps); saturate
  // there rather than overflow. INT64_MIN stays reserved for NaN.
  if ((oa < 0) != (ob < 0)) {
    const uint64_t span =
        static_cast<uint64_t>(oa < 0 ? -oa : oa) + static_cast<uint64_t>(ob < 0 ? -ob : ob);
    constexpr auto kMax = std::numeric_limits<int64_t>::max();
    if (span > static_cast<uint64_t>(kMax)) return ob > oa ? kMax : -kMax;
  }
  return ob - oa;
}

Neighbourhood explore(Format f, long double input) {
  Neighbourhood n{};
  n.input = input;
  n.bits = encode(f, input);
  n.value = decode(f, n.bits);
  n.below = decode(f, nextDown(f, n.bits));
  n.above = decode(f, nextUp(f, n.bits));
  // At +-infinity one neighbour is the value itself; inf - inf would be NaN, but the gap is 0.
  n.gapBelow = n.below == n.value ? 0.0 : n.value - n.below;
  n.gapAbove = n.above == n.value ? 0.0 : n.above - n.value;
  n.exact = static_cast<long double>(n.value) == input;
  // Decided before subtracting so that an infinite input is exact with no error, not inf - inf.
  if (!n.exact) {
    n.roundingError = static_cast<long double>(n.value) - input;
    // Zero is always exact, so input is non-zero here.
    n.relativeError = static_cast<double>(std::fabs(n.roundingError / input));
  }
  const Kind kind = fields(f, n.bits).kind;
  const bool finiteInput = std::isfinite(input);
  n.overflow = finiteInput &&
               (kind == Kind::Infinite || (formatInfo(f).finiteOnly && std::fabs(input) > n.value &&
                                           std::fabs(n.value) == formatInfo(f).maxFinite));
  n.underflow = finiteInput && input != 0 && (kind == Kind::Zero || kind == Kind::Subnormal);
  return n;
}

}  // namespace cudalab::floats
