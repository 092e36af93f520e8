// What a floating-point number really is: the four formats a GPU computes in (half, bfloat16,
// float32, float64), rounding to them, their bits, their neighbours and the spacing between them.
//
// Pure C++ (no CUDA headers): the precision lesson's bits view and float explorer draw from it, the
// CPU evaluates "in half" or "in bfloat16" with it when there is no GPU, and errors are counted
// in units in the last place (ULPs) with it.
//
// [SECTION] Formats
//   const FormatInfo& f = formatInfo(Format::Half);     // 16 bits: 1 sign, 5 exponent, 10 mantissa
//   f.epsilon;                                           // 2^-10 = 0.000977
//
// [SECTION] Rounding and bits
//   uint64_t b = encode(Format::Float32, 0.1L);          // 0x3dcccccd, round to nearest even
//   double v = decode(Format::Float32, b);               // 0.100000001490116...
//   Fields fs = fields(Format::Float32, b);              // sign 0, exponent 123 (2^-4), mantissa
//
// [SECTION] Neighbours and ULPs
//   Neighbourhood n = explore(Format::Half, 1000.3L);    // 1000.5, neighbours 1000 and 1001
//   double e = ulpError(Format::Float32, 0.0f, 1e-8L);   // how many float32 ULPs 0 is from 1e-8
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace cudalab::floats {

// ---------------------------------------------------------------------------------------------
// [SECTION] Formats
// ---------------------------------------------------------------------------------------------

// The first four are the formats a GPU computes scalar arithmetic in (formats()); TF32 and FP8
// E4M3 are inputs of the tensor cores (allFormats()). TF32 is float32's range with half's 10
// mantissa bits (19 bits, held in a 32-bit register). FP8 E4M3 (OCP's "E4M3FN") has no
// infinities: its top binade holds numbers up to 448, and 0x7f / 0xff are its only NaNs; rounding
// to it saturates at +-448, as CUDA's __NV_SATFINITE conversions do.
enum class Format { Half, BFloat16, Float32, Float64, TF32, FP8E4M3 };

struct FormatInfo {
  Format format;
  const char* id;           // "half", "bf16", "f32", "f64": command line, exports, tests
  const char* name;         // "half (FP16)", "bfloat16", "float32", "float64"
  int bits;                 // 16, 16, 32, 64
  int exponentBits;         // 5, 8, 8, 11
  int mantissaBits;         // stored fraction bits: 10, 7, 23, 52 (precision p = mantissaBits + 1)
  int bias;                 // 15, 127, 127, 1023
  double epsilon;           // 2^-mantissaBits: the gap between 1 and the next number
  double minNormal;         // 2^(1 - bias)
  double minSubnormal;      // 2^(1 - bias - mantissaBits)
  double maxFinite;         // (2 - epsilon) * 2^bias
  double decimalDigits;     // p * log10(2): about 3.3, 2.4, 7.2, 16.0
  bool finiteOnly = false;  // no infinities (FP8 E4M3): maxFinite = (2 - 2 epsilon) * 2^(bias + 1)
};

// The four formats of scalar arithmetic (half, bfloat16, float32, float64), in enum order.
std::span<const FormatInfo> formats();
// All six, in enum order: the four, then the tensor cores' TF32 and FP8 E4M3.
std::span<const FormatInfo> allFormats();
const FormatInfo& formatInfo(Format f);

// ---------------------------------------------------------------------------------------------
// [SECTION] Rounding and bits
// ---------------------------------------------------------------------------------------------
// Bit patterns are held in the low `bits` bits of a uint64_t. Rounding is IEEE 754 round to
// nearest, ties to even, with gradual underflow (subnormals), overflow to infinity, the sign of
// zero kept, and NaN mapped to the format's canonical quiet NaN. The input is a long double (64
// significant bits on x86-64), so rounding a typed decimal to float64 is itself rounded once.

uint64_t encode(Format f, long double v);
// Exact: every value of the four formats is a double.
double decode(Format f, uint64_t bits);
// decode(encode(v)): v rounded to the format.
double roundTo(Format f, long double v);

enum class Kind { Zero, Subnormal, Normal, Infinite, NaN };

struct Fields {
  bool negative;
  uint32_t exponent;  // the stored (biased) exponent field
  uint64_t mantissa;  // the stored fraction field
  int power;          // the unbiased exponent: value = (1.mantissa or 0.mantissa) * 2^power
                      // (for subnormals and zero: 1 - bias)
  Kind kind;
};
Fields fields(Format f, uint64_t bits);
// "0 01111 0000000000": sign, exponent and mantissa fields as binary digits, space-separated.
std::string bitString(Format f, uint64_t bits);
// "0x3c00" (4 hex digits for 16-bit formats, 8 for float32, 16 for float64).
std::string hexString(Format f, uint64_t bits);
const char* kindName(Kind k);  // "zero", "subnormal", "normal", "infinity", "NaN"

// ---------------------------------------------------------------------------------------------
// [SECTION] Neighbours and ULPs
// ---------------------------------------------------------------------------------------------

// The next representable value towards +infinity / -infinity, as bits (IEEE nextUp/nextDown:
// nextUp(-0) = nextUp(+0) = the smallest subnormal; nextUp(max finite) = +inf; nextUp(+inf) = +inf;
// NaN stays NaN).
uint64_t nextUp(Format f, uint64_t bits);
uint64_t nextDown(Format f, uint64_t bits);

// The unit in the last place at x: the spacing of the format's numbers in the binade that holds
// |x|, 2^(max(floor(log2|x|), 1 - bias) - mantissaBits); the smallest subnormal for x = 0; NaN for
// infinite or NaN x. x need not be representable: ulp(Float32, 1e-8L) is the float32 spacing near
// 1e-8.
double ulp(Format f, long double x);
// |computed - exact| / ulp(f, exact): how far a result is from the true value in ULPs of the
// format. 0.5 is the best any rounding can guarantee. Infinite when computed is infinite or NaN
// and exact is finite; 0 when both are the same infinity.
double ulpError(Format f, long double computed, long double exact);
// The number of representable values from a to b in the format (both rounded to it first),
// signed (b above a is positive); +0 and -0 are 0 apart. Undefined (returns INT64_MIN) for NaN.
int64_t ulpDistance(Format f, long double a, long double b);

// What the float explorer shows for one typed number in one format.
struct Neighbourhood {
  long double input;
  double value;  // the input rounded to the format
  uint64_t bits;
  double below;               // the next representable value below `value` (nextDown)
  double above;               // the next representable value above `value` (nextUp)
  double gapBelow;            // value - below
  double gapAbove;            // above - value (differs from gapBelow at powers of two)
  long double roundingError;  // value - input
  double relativeError;       // |value - input| / |input| (0 when input is 0)
  bool exact;                 // the input is representable
  bool overflow;              // the input rounds to infinity
  bool underflow;             // a non-zero input rounds to zero or to a subnormal
};
Neighbourhood explore(Format f, long double input);

// Knuth's TwoSum: s + e == a + b exactly, s = fl(a + b), for any doubles (no overflow). The exact
// sums of the precision and reduction lessons carry their rounding errors with it.
inline void twoSum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bp = s - a;
  const double ap = s - bp;
  e = (a - ap) + (b - bp);
}

}  // namespace cudalab::floats
