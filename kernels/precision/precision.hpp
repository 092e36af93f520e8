// The precision lesson's computation: formulas that cancel catastrophically, evaluated in half,
// bfloat16, float32 (FMA contraction allowed, forbidden, and fast math) and float64 on the GPU or
// the CPU, against an exact value; the literal trap and the PTX that proves it.
//
// [SECTION] The tables (the one place that names each expression, formula and precision)
//   for (const ExprInfo& e : expressions()) ...       // UI rows, exports, benchmark, tests
//   for (const PrecisionInfo& p : precisions()) ...
//
// [SECTION] Evaluating every formula in every precision over a sweep of x
//   std::vector<double> xs = sweepXs(16);                    // 1e-12 .. 1e4, 16 per decade
//   Result<Evaluation> ev = evaluateGpu(xs);                 // or evaluateCpu(xs) without a GPU
//   double r = ev->relError(Precision::Float32, Expr::Expm1, Formula::Naive, i);
//
// [SECTION] Single operations, for the bit-exact and ULP tests
//   Result<std::vector<double>> g = basicOpGpu(Precision::Half, BasicOp::Div, a, b);
//   std::vector<double> c = basicOpCpu(Precision::Half, BasicOp::Div, a, b);   // == g, bit for bit
//
// [SECTION] The literal trap
//   Result<TrapResult> t = literalTrapGpu(xs);   // (x + 1.0) - 1.0 against (x + 1.0f) - 1.0f
//
// [SECTION] PTX evidence
//   PtxKernel k = ptxKernel(kTrapDoubleKernel);  // this build's PTX for that kernel, and the
//   k.opcodes;                                   // count of each instruction type in it
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/params.hpp"
#include "common/status.hpp"
#include "models/floats.hpp"

namespace cudalab::precision {

// ---------------------------------------------------------------------------------------------
// [SECTION] The tables
// ---------------------------------------------------------------------------------------------

enum class Expr { PlusOne, OneMinusCos, SqrtMinusOne, Expm1, Log1p, Quadratic, Variance };
inline constexpr int kExprCount = 7;

enum class Formula { Naive, Stable };
inline constexpr int kFormulaCount = 2;

struct ExprInfo {
  Expr expr;
  const char* id;      // "plus_one", ...
  const char* label;   // "(x + 1) - 1"
  const char* naive;   // the formula as written naively
  const char* stable;  // the rewritten formula, nullptr when there is none
  const char* exact;   // how the exact value is computed (shown under the plot)
  const char* help;    // for a learner: where the naive formula loses digits and why
};
std::span<const ExprInfo> expressions();
const ExprInfo& exprInfo(Expr e);

// The variance expression's data are x + d for eight fixed offsets d (varianceOffset() in
// precision_formulas.cuh), so the variance stays 1.828125 while the mean x grows.
inline constexpr int kVarianceCount = 8;

enum class Precision { Half, BFloat16, Float32, Float32NoFma, Float32Fast, Float64 };
inline constexpr int kPrecisionCount = 6;

struct PrecisionInfo {
  Precision precision;
  const char* id;     // "half", "bf16", "f32", "f32_rn", "f32_fast", "f64"
  const char* label;  // "float32 (FMA allowed)"
  floats::Format format;
  bool cpu;          // the CPU can evaluate it the same way (rounding after every operation)
  int colour;        // palette index in the plots
  const char* help;  // for a learner
};
std::span<const PrecisionInfo> precisions();
const PrecisionInfo& precisionInfo(Precision p);

// ---------------------------------------------------------------------------------------------
// [SECTION] Evaluating every formula in every precision over a sweep of x
// ---------------------------------------------------------------------------------------------

inline constexpr double kSweepMin = 1e-12;
inline constexpr double kSweepMax = 1e4;

inline constexpr ParamSpec kPointsPerDecade{
    .id = "points_per_decade",
    .label = "Points per decade",
    .min = 4,
    .max = 64,
    .defaultValue = 16,
    .help = "How many values of x the sweep takes between each power of ten, from 1e-12 to 1e4."};
inline constexpr ParamSpec kChosenX{
    .id = "x",
    .label = "x",
    .min = kSweepMin,
    .max = kSweepMax,
    .defaultValue = 1e-8,
    .help = "The value of x the table of values and bits looks at. The course's example is 1e-8.",
    .integer = false,
    .logScale = true};

// perDecade points per decade from kSweepMin to kSweepMax, both included.
std::vector<double> sweepXs(int perDecade);

// The exact value of an expression for the input x as format f holds it (x already rounded to
// f), in long double from a formula that does not cancel (never the formula under test). For the
// variance, the data set x + d is rounded to f as the kernels round it.
long double exactValue(Expr e, floats::Format f, double x);

struct Evaluation {
  std::vector<double> xs;  // as requested (each precision rounds them itself)
  bool onGpu = false;
  std::array<bool, kPrecisionCount> available{};  // evaluated (the CPU lacks fast math and FMA)
  // value[index(p, e, f, i)]: the result in precision p widened to double (exact); NaN where
  // not available or no stable formula exists.
  std::vector<double> value;
  // exact[exactIndex(p, e, i)]
  std::vector<long double> exact;

  size_t index(Precision p, Expr e, Formula f, size_t i) const {
    return ((static_cast<size_t>(p) * kExprCount + static_cast<size_t>(e)) * kFormulaCount +
            static_cast<size_t>(f)) *
               xs.size() +
           i;
  }
  size_t exactIndex(Precision p, Expr e, size_t i) const {
    return (static_cast<size_t>(p) * kExprCount + static_cast<size_t>(e)) * xs.size() + i;
  }
  double at(Precision p, Expr e, Formula f, size_t i) const { return value[index(p, e, f, i)]; }
  long double exactAt(Precision p, Expr e, size_t i) const { return exact[exactIndex(p, e, i)]; }
  // |value - exact| / |exact|; 0 when both are 0, infinite when the value is not finite or the
  // exact value is 0 and the value is not.
  double relError(Precision p, Expr e, Formula f, size_t i) const;
  // The error in ULPs of the precision's format (floats::ulpError).
  double ulpError(Precision p, Expr e, Formula f, size_t i) const;
};

// All precisions on the GPU (the fast-math variant comes from a separately compiled file).
Result<Evaluation> evaluateGpu(std::span<const double> xs);
// The precisions with cpu == true, rounding after every operation as the GPU does; functions
// (cos, exp, ...) come from the C library, so they may differ from CUDA's in the last bit.
Evaluation evaluateCpu(std::span<const double> xs);

// ---------------------------------------------------------------------------------------------
// [SECTION] Single operations, for the bit-exact and ULP tests
// ---------------------------------------------------------------------------------------------

enum class BasicOp { Add, Sub, Mul, Div, Sqrt };  // Sqrt ignores b
enum class Func { Cos, Sin, Exp, Expm1, Log, Log1p };

// Operands are rounded to the precision first; results are widened to double exactly.
Result<std::vector<double>> basicOpGpu(Precision p, BasicOp op, std::span<const double> a,
                                       std::span<const double> b);
std::vector<double> basicOpCpu(Precision p, BasicOp op, std::span<const double> a,
                               std::span<const double> b);
Result<std::vector<double>> funcGpu(Precision p, Func fn, std::span<const double> x);
// The exact value of fn at x in long double.
long double funcExact(Func fn, long double x);
// x rounded to the precision by the GPU's conversion (__double2half and friends), widened back.
Result<std::vector<double>> roundGpu(Precision p, std::span<const double> x);

// ---------------------------------------------------------------------------------------------
// [SECTION] The literal trap
// ---------------------------------------------------------------------------------------------
// In C++ and CUDA, 1.0 is a double: (x + 1.0) - 1.0 with a float x is computed in float64 and
// only the result is rounded to float, which hides the cancellation. 1.0f keeps it in float32.

struct TrapResult {
  std::vector<double> xs;
  std::vector<float> floatLiteral;   // (x + 1.0f) - 1.0f
  std::vector<float> doubleLiteral;  // (x + 1.0) - 1.0, stored into a float
  bool onGpu = false;
};
Result<TrapResult> literalTrapGpu(std::span<const double> xs);
// The same two lines of C++ compiled for the CPU (where the same promotion rules apply).
TrapResult literalTrapCpu(std::span<const double> xs);

// ---------------------------------------------------------------------------------------------
// [SECTION] PTX evidence
// ---------------------------------------------------------------------------------------------
// The build compiles precision.cu and precision_fast.cu to PTX as well (for the lowest CUDA
// architecture it builds) and embeds the text, so the app shows the instructions nvcc generated
// for the very kernels it runs, with or without a GPU.

inline constexpr const char* kTrapFloatKernel = "cudalab_trap_float_literal";
inline constexpr const char* kTrapDoubleKernel = "cudalab_trap_double_literal";
// The evaluation kernel of a precision ("cudalab_eval_f32", ...).
std::string evalKernelName(Precision p);

struct PtxKernel {
  std::string name;
  std::string body;  // the instructions, one per line, without declarations
  std::vector<std::pair<std::string, int>> opcodes;  // "add.f32" -> count, most frequent first
  bool found = false;
  int count(std::string_view opcodePrefix) const;  // e.g. count("fma.rn.f32")
};
// Parses `ptx` for the .entry called `name` (pure; tested on hand-written PTX).
PtxKernel parsePtxKernel(std::string_view ptx, std::string_view name);
// From the embedded PTX of this build.
PtxKernel ptxKernel(std::string_view name);
// "compute_75": the virtual architecture the embedded PTX was generated for.
const char* ptxArchitecture();

// ---------------------------------------------------------------------------------------------
// [SECTION] The panel's choices
// ---------------------------------------------------------------------------------------------

// What the lesson's panel chooses besides its numbers, for presets and plans: a choice's value is
// the index of its option in the panel's order (the registry test checks each range against the
// options its binding lists).

// The panel's choices, for presets and plans: the expression (expressions(), in its order), the
// formulas drawn, and which precisions are shown (in Precision's order).
inline constexpr ParamSpec kExprChoice{
    .id = "expression",
    .label = "Expression",
    .min = 0,
    .max = kExprCount - 1,
    .defaultValue = 0,
    .help =
        "The expression evaluated across x: each loses digits to cancellation somewhere, and has a "
        "rewritten form that does not."};

inline constexpr ParamSpec kFormulaChoice{
    .id = "formulas",
    .label = "Formulas",
    .min = 0,
    .max = 2,
    .defaultValue = 2,
    .help = "The formula as written, the rewritten formula that avoids the cancellation, or both."};

inline constexpr ParamSpec kShowChoice[kPrecisionCount] = {
    {.id = "show_half",
     .label = "Show half",
     .min = 0,
     .max = 1,
     .defaultValue = 1,
     .help = "Whether the half-precision (16-bit) curves are shown."},
    {.id = "show_bf16",
     .label = "Show bfloat16",
     .min = 0,
     .max = 1,
     .defaultValue = 1,
     .help = "Whether the bfloat16 curves are shown."},
    {.id = "show_f32",
     .label = "Show float32 (FMA allowed)",
     .min = 0,
     .max = 1,
     .defaultValue = 1,
     .help = "Whether the float32 curves, as nvcc compiles them by default, are shown."},
    {.id = "show_f32_rn",
     .label = "Show float32 (no FMA)",
     .min = 0,
     .max = 1,
     .defaultValue = 0,
     .help =
         "Whether the float32 curves rounded after every operation (as the CPU does) are shown."},
    {.id = "show_f32_fast",
     .label = "Show float32 (fast math)",
     .min = 0,
     .max = 1,
     .defaultValue = 0,
     .help = "Whether the float32 curves built with --use_fast_math are shown."},
    {.id = "show_f64",
     .label = "Show float64",
     .min = 0,
     .max = 1,
     .defaultValue = 1,
     .help = "Whether the float64 curves are shown."},
};

}  // namespace cudalab::precision
