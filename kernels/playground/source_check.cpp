#include "playground/source_check.hpp"

#include "common/translatable.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace cudalab::playground {

namespace {

const std::set<std::string_view>& keywords() {
  static const std::set<std::string_view> k = {"auto",
                                               "bool",
                                               "break",
                                               "case",
                                               "char",
                                               "class",
                                               "const",
                                               "constexpr",
                                               "continue",
                                               "default",
                                               "do",
                                               "double",
                                               "else",
                                               "enum",
                                               "false",
                                               "float",
                                               "for",
                                               "if",
                                               "inline",
                                               "int",
                                               "long",
                                               "namespace",
                                               "nullptr",
                                               "return",
                                               "short",
                                               "signed",
                                               "sizeof",
                                               "static",
                                               "static_cast",
                                               "struct",
                                               "switch",
                                               "template",
                                               "true",
                                               "typedef",
                                               "typename",
                                               "unsigned",
                                               "using",
                                               "void",
                                               "volatile",
                                               "while",
                                               "size_t",
                                               "int32_t",
                                               "uint32_t",
                                               "int64_t",
                                               "uint64_t",
                                               "half",
                                               "float2",
                                               "float4",
                                               "int2",
                                               "int4",
                                               "dim3",
                                               "goto",
                                               "reinterpret_cast"};
  return k;
}

const std::set<std::string_view>& qualifiers() {
  static const std::set<std::string_view> q = {
      "__global__",   "__device__",      "__host__",     "__shared__",        "__constant__",
      "__restrict__", "__forceinline__", "__noinline__", "__launch_bounds__", "__syncthreads",
      "__syncwarp",   "__threadfence",   "extern",       "__managed__",       "__align__"};
  return q;
}

const std::set<std::string_view>& builtins() {
  static const std::set<std::string_view> b = {"threadIdx",
                                               "blockIdx",
                                               "blockDim",
                                               "gridDim",
                                               "warpSize",
                                               "atomicAdd",
                                               "atomicSub",
                                               "atomicMax",
                                               "atomicMin",
                                               "atomicExch",
                                               "atomicCAS",
                                               "atomicInc",
                                               "atomicAnd",
                                               "atomicOr",
                                               "__shfl_down_sync",
                                               "__shfl_sync",
                                               "__shfl_xor_sync",
                                               "__ballot_sync",
                                               "__any_sync",
                                               "__all_sync",
                                               "printf",
                                               "__ldg",
                                               "__fmul_rn",
                                               "__fadd_rn",
                                               "__fmaf_rn",
                                               "sqrtf",
                                               "sqrt",
                                               "hypotf",
                                               "hypot",
                                               "expf",
                                               "exp",
                                               "logf",
                                               "log",
                                               "sinf",
                                               "cosf",
                                               "fabsf",
                                               "fabs",
                                               "fmaf",
                                               "fma",
                                               "__trap",
                                               "min",
                                               "max",
                                               "rsqrtf"};
  return b;
}

bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  const int n = static_cast<int>(s.size());
  int i = 0, line = 1;
  bool lineStart = true;  // only spaces so far on this line: '#' starts a directive
  auto push = [&](TokenKind k, int b, int e) {
    out.push_back({k, b, e, line});
    for (int j = b; j < e; ++j)
      if (s[static_cast<size_t>(j)] == '\n') ++line;
  };
  while (i < n) {
    const char c = s[static_cast<size_t>(i)];
    const char next = i + 1 < n ? s[static_cast<size_t>(i + 1)] : '\0';
    int j = i + 1;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      while (j < n &&
             std::string_view(" \t\n\r").find(s[static_cast<size_t>(j)]) != std::string_view::npos)
        ++j;
      const bool hasNewline =
          s.substr(static_cast<size_t>(i), static_cast<size_t>(j - i)).find('\n') !=
          std::string_view::npos;
      push(TokenKind::Space, i, j);
      if (hasNewline) lineStart = true;
      i = j;
      continue;
    }
    if (c == '/' && next == '/') {
      while (j < n && s[static_cast<size_t>(j)] != '\n')
        ++j;
      push(TokenKind::Comment, i, j);
    } else if (c == '/' && next == '*') {
      j = i + 2;
      while (j < n && !(s[static_cast<size_t>(j)] == '*' && j + 1 < n &&
                        s[static_cast<size_t>(j + 1)] == '/'))
        ++j;
      j = std::min(n, j + 2);
      push(TokenKind::Comment, i, j);
    } else if (c == '#' && lineStart) {
      // To the end of the line, continued lines included.
      while (j < n && !(s[static_cast<size_t>(j)] == '\n' && s[static_cast<size_t>(j - 1)] != '\\'))
        ++j;
      push(TokenKind::Preprocessor, i, j);
    } else if (c == '"' || c == '\'') {
      while (j < n && s[static_cast<size_t>(j)] != c && s[static_cast<size_t>(j)] != '\n') {
        if (s[static_cast<size_t>(j)] == '\\') ++j;
        ++j;
      }
      j = std::min(n, j + 1);
      push(TokenKind::String, i, j);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && std::isdigit(static_cast<unsigned char>(next)))) {
      while (j < n) {
        const char d = s[static_cast<size_t>(j)];
        const char prev = s[static_cast<size_t>(j - 1)];
        if (identChar(d) || d == '.' || ((d == '+' || d == '-') && (prev == 'e' || prev == 'E')))
          ++j;
        else
          break;
      }
      push(TokenKind::Number, i, j);
    } else if (identStart(c)) {
      while (j < n && identChar(s[static_cast<size_t>(j)]))
        ++j;
      const std::string_view w = s.substr(static_cast<size_t>(i), static_cast<size_t>(j - i));
      TokenKind k = TokenKind::Identifier;
      if (qualifiers().count(w))
        k = TokenKind::Qualifier;
      else if (builtins().count(w))
        k = TokenKind::Builtin;
      else if (keywords().count(w))
        k = TokenKind::Keyword;
      push(k, i, j);
    } else {
      push(TokenKind::Punct, i, j);
    }
    lineStart = false;
    i = j;
  }
  return out;
}

bool isDoubleLiteral(std::string_view t) {
  if (t.empty() || (t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))) return false;
  const bool floating =
      t.find('.') != std::string_view::npos || t.find_first_of("eE") != std::string_view::npos;
  if (!floating) return false;
  const char last = t.back();
  return last != 'f' && last != 'F' && last != 'h';
}

namespace {

// The tokens that matter (no spaces, comments or directives), with their text.
struct Tok {
  TokenKind kind;
  std::string_view text;
  int line;
};

std::vector<Tok> significant(std::string_view text) {
  std::vector<Tok> out;
  for (const Token& t : tokenize(text)) {
    if (t.kind == TokenKind::Space || t.kind == TokenKind::Comment ||
        t.kind == TokenKind::Preprocessor)
      continue;
    out.push_back({t.kind,
                   text.substr(static_cast<size_t>(t.begin), static_cast<size_t>(t.end - t.begin)),
                   t.line});
  }
  return out;
}

// The index of the token that closes the bracket opened at `open` (or the end).
size_t matching(const std::vector<Tok>& t, size_t open) {
  const std::string_view o = t[open].text;
  const std::string_view c = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    if (t[i].text == c && --depth == 0) return i;
  }
  return t.size() - 1;
}

struct Function {
  std::string name;
  bool kernel = false;  // __global__
  size_t paramsBegin = 0, paramsEnd = 0, bodyBegin = 0, bodyEnd = 0;
};

// Function definitions: a name followed by (params) and {body}, outside any other body.
std::vector<Function> functions(const std::vector<Tok>& t) {
  std::vector<Function> out;
  size_t statementStart = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text == ";" || t[i].text == "}") {
      statementStart = i + 1;
      continue;
    }
    if (t[i].text != "(" || i == 0 || t[i - 1].kind != TokenKind::Identifier) continue;
    const size_t close = matching(t, i);
    size_t body = close + 1;
    while (body < t.size() && t[body].text != "{" && t[body].text != ";")
      ++body;
    if (body >= t.size() || t[body].text != "{") continue;
    Function f;
    f.name = std::string(t[i - 1].text);
    for (size_t k = statementStart; k < i; ++k)
      if (t[k].text == "__global__") f.kernel = true;
    f.paramsBegin = i + 1;
    f.paramsEnd = close;
    f.bodyBegin = body + 1;
    f.bodyEnd = matching(t, body);
    out.push_back(f);
    i = f.bodyEnd;
    statementStart = i + 1;
  }
  return out;
}

bool isAssignment(std::string_view op) {
  return op == "=" || op == "+=" || op == "-=" || op == "*=" || op == "/=" || op == "|=" ||
         op == "&=" || op == "^=";
}

}  // namespace

std::vector<Diagnostic> lint(std::string_view text) {
  std::vector<Diagnostic> out;
  // Multi-character operators are split by the tokenizer into single characters: join the ones
  // the checks read ("+=", "<=", ...).
  std::vector<Tok> raw = significant(text);
  std::vector<Tok> t;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i].kind == TokenKind::Punct && i + 1 < raw.size() &&
        raw[i + 1].kind == TokenKind::Punct && raw[i + 1].text == "=" &&
        raw[i].line == raw[i + 1].line &&
        std::string_view("+-*/|&^<>!=").find(raw[i].text) != std::string_view::npos &&
        raw[i].text.data() + 1 == raw[i + 1].text.data()) {
      t.push_back({TokenKind::Punct, std::string_view(raw[i].text.data(), 2), raw[i].line});
      ++i;
      continue;
    }
    t.push_back(raw[i]);
  }
  auto warn = [&](int line, const char* format, std::vector<std::string> values) {
    out.push_back({line, Severity::Warning, fillFormat(format, values), "cudalab", format,
                   std::move(values)});
  };
  for (const Function& f : functions(t)) {
    // Pointer parameters: the arrays a kernel can write.
    std::set<std::string_view> pointers;
    bool floatParams = false;
    for (size_t i = f.paramsBegin; i < f.paramsEnd; ++i) {
      if (t[i].text == "*" && i + 1 < f.paramsEnd && t[i + 1].kind == TokenKind::Identifier)
        pointers.insert(t[i + 1].text);
      if (t[i].text == "float") floatParams = true;
    }
    bool usesBlock = false, usesThread = false, usesDouble = false, usesFloat = floatParams;
    for (size_t i = f.bodyBegin; i < f.bodyEnd; ++i) {
      const std::string_view w = t[i].text;
      if (w == "blockIdx" || w == "blockDim" || w == "gridDim") usesBlock = true;
      if (w == "threadIdx") usesThread = true;
      if (w == "double") usesDouble = true;
      if (w == "float") usesFloat = true;
    }
    // Only kernels that compute an index from threadIdx: a kernel with no index at all (the
    // counter) does the same work in every thread on purpose.
    if (f.kernel && usesThread && !usesBlock) {
      warn(t[f.paramsBegin - 2].line,
           N_("%s never uses blockIdx or blockDim: every block computes the same indices, so "
              "with more than one block the blocks repeat block 0's work and the rest of the "
              "data is never reached. Is that what you meant?"),
           {f.name});
    }
    if (f.kernel && !pointers.empty()) {
      // A write through a pointer parameter (p[i] = ...) whose subscript's variables no earlier
      // condition compared (if, for, while): the thread's index was never checked against the
      // array's size. Parameters (n, nbins) do not count: every condition mentions them.
      std::set<std::string_view> params;
      for (size_t i = f.paramsBegin; i < f.paramsEnd; ++i)
        if (t[i].kind == TokenKind::Identifier) params.insert(t[i].text);
      std::set<std::string_view> compared;
      for (size_t i = f.bodyBegin; i < f.bodyEnd; ++i) {
        const std::string_view w = t[i].text;
        if ((w == "if" || w == "for" || w == "while") && i + 1 < f.bodyEnd &&
            t[i + 1].text == "(") {
          const size_t close = matching(t, i + 1);
          bool comparison = false;
          for (size_t k = i + 2; k < close; ++k)
            comparison |= t[k].text == "<" || t[k].text == ">" || t[k].text == "<=" ||
                          t[k].text == ">=" || t[k].text == "==" || t[k].text == "!=";
          if (comparison)
            for (size_t k = i + 2; k < close; ++k)
              if (t[k].kind == TokenKind::Identifier && !params.count(t[k].text))
                compared.insert(t[k].text);
        }
        if (!pointers.count(w) || i + 1 >= f.bodyEnd || t[i + 1].text != "[") continue;
        const size_t close = matching(t, i + 1);
        if (close + 1 >= f.bodyEnd || !isAssignment(t[close + 1].text)) continue;
        // p[0] and p[blockIdx.x] (one place per block) cannot run past the end.
        bool variables = false, checked = false;
        for (size_t k = i + 2; k < close; ++k) {
          if (t[k].kind != TokenKind::Identifier || params.count(t[k].text) ||
              t[k - 1].text == ".")  // .x of blockIdx.x
            continue;
          variables = true;
          checked |= compared.count(t[k].text) > 0;
        }
        if (variables && !checked) {
          warn(t[i].line,
               N_("the write to %s[...] has no bounds check before it: when the grid has more "
                  "threads than elements (it is rounded up to whole blocks), the extra threads "
                  "write past the end. Guard it with if (i < n)."),
               {std::string(w)});
          break;
        }
      }
    }
    if (usesFloat && !usesDouble) {
      for (size_t i = f.bodyBegin; i < f.bodyEnd; ++i) {
        if (t[i].kind != TokenKind::Number || !isDoubleLiteral(t[i].text)) continue;
        const std::string lit(t[i].text);
        warn(t[i].line,
             N_("%s is a double: an expression with it is computed in float64 (much slower on "
                "most GPUs) and rounded back to float. Write %sf to stay in float32."),
             {lit, lit});
      }
    }
  }
  return out;
}

}  // namespace cudalab::playground
