// "Compare two compiles": the learner's kernel beside one changed thing, as the course's questions
// go (what does --use_fast_math change? what does __restrict__ let the compiler do? what does
// double cost?): the registers and SASS instructions of each, and the two SASS listings side by
// side with what only one of them has marked.
//
//   VariantSource b = applyVariant(Variant::FastMath, text);   // b.text, b.options
//   ... compile both, sassListing both ...
//   std::vector<DiffRow> rows = diffInstructions(sassA, sassB);
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "playground/machine_code.hpp"
#include "playground/playground.hpp"

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants: the one thing changed
// ---------------------------------------------------------------------------------------------

enum class Variant { FastMath, Restrict, Unroll, Double };
struct VariantInfo {
  Variant id;
  const char* key;    // "fast-math": settings, the command line, tests
  const char* label;  // marked N_(): the menu
  const char* help;   // marked N_(): what changes and what to look for
};
std::span<const VariantInfo> variants();

// The learner's text changed by `v`, and the NVRTC options it adds. Every change keeps the line
// numbers (a pragma goes on the line of its loop), so both listings name the same lines.
struct VariantSource {
  std::string text;
  std::vector<std::string> options;
};
VariantSource applyVariant(Variant v, std::string_view text);

// Why variant `v` has no meaning for exercise `e` (a sentence marked N_()), or nullptr where it
// applies: the WMMA exercise's halves have no double twin on the tensor cores.
const char* variantRefused(const Exercise& e, Variant v);

// ---------------------------------------------------------------------------------------------
// [SECTION] The diff
// ---------------------------------------------------------------------------------------------

// One row of the side-by-side view: an instruction both listings have (matched in order by its
// operation, the registers aside), or one only the first or only the second has.
struct DiffRow {
  int a = -1, b = -1;  // indexes into the listings' instructions (-1: none on that side)
};
// The instructions of `a` and `b` (AsmKind::Instruction lines, in order) matched by the longest
// common sequence of their operations ("FFMA", "MUFU.RSQ", "@P0 BRA"); at most 4,000 on a side.
std::vector<DiffRow> diffInstructions(const std::vector<AsmLine>& a, const std::vector<AsmLine>& b);
// An instruction's operation: its text up to the first blank after the predicate ("@P0 EXIT",
// "LDG.E.64").
std::string operationOf(const std::string& instruction);

}  // namespace cudalab::playground
