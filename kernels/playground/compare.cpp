#include "playground/compare.hpp"

#include <algorithm>
#include <regex>

#include "common/translatable.hpp"

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] Variants
// ---------------------------------------------------------------------------------------------

namespace {

constexpr VariantInfo kVariants[] = {
    {Variant::FastMath, "fast-math", N_("with --use_fast_math"),
     N_("The same text compiled with --use_fast_math: division, square roots and sin, exp, log "
        "become the hardware's fast approximations (MUFU instructions), with denormals flushed "
        "to zero. Look for fewer instructions and fewer calls in the SASS, and check the errors "
        "it costs in the precision lesson.")},
    {Variant::Restrict, "restrict", N_("with __restrict__ pointers"),
     N_("Every pointer parameter of the kernels marked __restrict__: a promise that they do not "
        "overlap, so the compiler may keep values in registers and read through the read-only "
        "cache (LDG.E.CONSTANT) instead of reading again after every write.")},
    {Variant::Unroll, "unroll", N_("with #pragma unroll on every loop"),
     N_("Every for loop asked to unroll: the loop's body repeated, fewer compares and branches, "
        "more registers. A loop whose count is not known at compile time is unrolled four times "
        "with a remainder loop.")},
    {Variant::Double, "double", N_("in double instead of float"),
     N_("Every float of the text made double: 64-bit arithmetic (DFMA, DADD), twice the bytes per "
        "load and twice the registers per value. On a data-centre GPU double runs at half the "
        "rate of float; on a gaming GPU at a sixty-fourth.")},
};

// The parameter lists of the text's __global__ functions: [begin, end) of each "(...)".
std::vector<std::pair<std::size_t, std::size_t>> kernelParameterLists(const std::string& s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t at = s.find("__global__"); at != std::string::npos;
       at = s.find("__global__", at + 10)) {
    const std::size_t open = s.find('(', at);
    if (open == std::string::npos) break;
    int depth = 0;
    for (std::size_t i = open; i < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')' && --depth == 0) {
        out.emplace_back(open, i + 1);
        break;
      }
    }
  }
  return out;
}

}  // namespace

std::span<const VariantInfo> variants() {
  return kVariants;
}

const char* variantRefused(const Exercise& e, Variant v) {
  if (v == Variant::Double && e.kind == Kind::Wmma)
    return N_(
        "The tensor cores multiply these halves into float; they have no double product of "
        "halves, so this kernel has no double twin (their double product, 8 x 8 x 4 on "
        "doubles, is another kernel).");
  return nullptr;
}

VariantSource applyVariant(Variant v, std::string_view text) {
  VariantSource out{std::string(text), {}};
  std::string& s = out.text;
  switch (v) {
    case Variant::FastMath:
      out.options.push_back("--use_fast_math");
      break;
    case Variant::Restrict: {
      // "float* in" -> "float* __restrict__ in", in each kernel's parameters, from the last list
      // back so the earlier positions hold.
      const auto lists = kernelParameterLists(s);
      for (auto it = lists.rbegin(); it != lists.rend(); ++it) {
        const std::string params = s.substr(it->first, it->second - it->first);
        const std::string marked = std::regex_replace(
            params, std::regex(R"(\*(\s*)(?!__restrict__)(\w+\s*[,)]))"), "* __restrict__ $2");
        s.replace(it->first, it->second - it->first, marked);
      }
      break;
    }
    case Variant::Unroll:
      // _Pragma on the loop's own line: the line numbers stay.
      s = std::regex_replace(s, std::regex(R"((^|[;{}\s])for(\s*\())"),
                             "$1_Pragma(\"unroll\") for$2");
      break;
    case Variant::Double:
      // The type, the float functions (sqrtf -> sqrt; CUDA's __ intrinsics stay) and the float
      // literals (2.0f -> 2.0), so that the arithmetic really is in double.
      s = std::regex_replace(s, std::regex(R"(\bfloat\b)"), "double");
      s = std::regex_replace(
          s,
          std::regex(
              R"(\b(sqrt|rsqrt|cbrt|hypot|exp|exp2|exp10|expm1|log|log2|log10|log1p|sin|cos|)"
              R"(tan|sinh|cosh|tanh|asin|acos|atan|atan2|pow|fabs|fma|fmin|fmax|floor|ceil|)"
              R"(round|trunc|fmod|copysign|erf|erfc)f(\s*\())"),
          "$1$2");
      s = std::regex_replace(s, std::regex(R"((^|[^\w.])(\d+\.\d*|\.\d+)([eE][-+]?\d+)?[fF]\b)"),
                             "$1$2$3");
      break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The diff
// ---------------------------------------------------------------------------------------------

std::string operationOf(const std::string& instruction) {
  std::size_t start = 0;
  if (!instruction.empty() && instruction[0] == '@') {  // the predicate stays with its operation
    start = instruction.find(' ');
    if (start == std::string::npos) return instruction;
    ++start;
  }
  const std::size_t end = instruction.find_first_of(" ;", start);
  return instruction.substr(0, end);
}

std::vector<DiffRow> diffInstructions(const std::vector<AsmLine>& a,
                                      const std::vector<AsmLine>& b) {
  constexpr std::size_t kMost = 4000;
  std::vector<int> ia, ib;
  for (std::size_t i = 0; i < a.size() && ia.size() < kMost; ++i)
    if (a[i].kind == AsmKind::Instruction) ia.push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < b.size() && ib.size() < kMost; ++i)
    if (b[i].kind == AsmKind::Instruction) ib.push_back(static_cast<int>(i));
  std::vector<std::string> oa, ob;
  for (int i : ia)
    oa.push_back(operationOf(a[static_cast<std::size_t>(i)].text));
  for (int i : ib)
    ob.push_back(operationOf(b[static_cast<std::size_t>(i)].text));
  // The longest common subsequence, by the table of suffixes.
  const std::size_t n = oa.size(), m = ob.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = oa[i] == ob[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<DiffRow> rows;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && oa[i] == ob[j]) {
      rows.push_back({ia[i], ib[j]});
      ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      rows.push_back({-1, ib[j++]});
    } else {
      rows.push_back({ia[i++], -1});
    }
  }
  return rows;
}

}  // namespace cudalab::playground
