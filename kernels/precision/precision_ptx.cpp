// Reading the PTX that nvcc generated for the precision kernels (embedded at build time by
// kernels/CMakeLists.txt): one kernel's instructions and how often each instruction type occurs.
#include <algorithm>
#include <map>

#include "precision/precision.hpp"
#include "precision/precision_internal.hpp"

namespace cudalab::embedded {
extern const char kEvalPtx[];
extern const char kFastPtx[];
}  // namespace cudalab::embedded

namespace cudalab::precision {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Declarations, labels, comments and braces are not instructions.
bool isInstruction(std::string_view line) {
  if (line.empty() || line == "{" || line == "}") return false;
  if (line.front() == '.' || line.starts_with("//") || line.back() == ':') return false;
  return true;
}

// "@%p1 bra $L__BB0_2;" -> "bra"; "add.f32 %f2, %f1, 0f3F800000;" -> "add.f32".
std::string_view opcodeOf(std::string_view line) {
  if (line.front() == '@') {
    const size_t sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) return {};
    line = trim(line.substr(sp));
  }
  const size_t end = line.find_first_of(" \t;");
  return line.substr(0, end);
}

}  // namespace

int PtxKernel::count(std::string_view prefix) const {
  int n = 0;
  for (const auto& [op, c] : opcodes)
    if (op == prefix ||
        (op.size() > prefix.size() && op.starts_with(prefix) && op[prefix.size()] == '.'))
      n += c;
  return n;
}

PtxKernel parsePtxKernel(std::string_view ptx, std::string_view name) {
  PtxKernel k;
  k.name = std::string(name);
  // ".entry name(" : the name must be followed by the parameter list, not be a prefix of another.
  size_t at = 0;
  for (;;) {
    at = ptx.find(".entry", at);
    if (at == std::string_view::npos) return k;
    std::string_view rest = trim(ptx.substr(at + 6));
    if (rest.starts_with(name) && rest.size() > name.size() &&
        (rest[name.size()] == '(' || rest[name.size()] == ' ' || rest[name.size()] == '\n'))
      break;
    at += 6;
  }
  const size_t open = ptx.find('{', at);
  if (open == std::string_view::npos) return k;
  // The body ends at the brace that closes the first one (inline assembly nests braces).
  int depth = 0;
  size_t close = open;
  for (; close < ptx.size(); ++close) {
    if (ptx[close] == '{') ++depth;
    if (ptx[close] == '}' && --depth == 0) break;
  }
  if (close >= ptx.size()) return k;
  k.found = true;
  std::map<std::string, int> counts;
  std::string_view body = ptx.substr(open + 1, close - open - 1);
  while (!body.empty()) {
    const size_t nl = body.find('\n');
    std::string_view line = trim(body.substr(0, nl));
    body = nl == std::string_view::npos ? std::string_view{} : body.substr(nl + 1);
    if (!isInstruction(line)) continue;
    k.body.append(line).push_back('\n');
    const std::string_view op = opcodeOf(line);
    if (!op.empty()) ++counts[std::string(op)];
  }
  k.opcodes.assign(counts.begin(), counts.end());
  std::stable_sort(k.opcodes.begin(), k.opcodes.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return k;
}

namespace detail {
std::string_view embeddedEvalPtx() {
  return embedded::kEvalPtx;
}
std::string_view embeddedFastPtx() {
  return embedded::kFastPtx;
}
}  // namespace detail

PtxKernel ptxKernel(std::string_view name) {
  PtxKernel k = parsePtxKernel(detail::embeddedEvalPtx(), name);
  if (!k.found) k = parsePtxKernel(detail::embeddedFastPtx(), name);
  return k;
}

const char* ptxArchitecture() {
  return CUDALAB_PTX_ARCH;
}

}  // namespace cudalab::precision
