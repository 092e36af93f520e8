// The learner's CUDA source as tokens, for the editor's colours and the app's own warnings.
//
//   std::vector<Token> t = tokenize(text);        // every character belongs to one token
//   for (const Diagnostic& w : lint(text)) markLine(w.line, w.message);
//
// lint() looks for what learners get wrong and nvcc only hints at: a kernel that never uses
// blockIdx or blockDim (every block does the same work), a write through a pointer with no bounds
// check before it, and a double literal such as 2.0 in float arithmetic (the precision lesson's
// trap: the expression is computed in float64 and rounded back). They are heuristics on tokens,
// worded as questions to check, never as errors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "playground/compile.hpp"

namespace cudalab::playground {

enum class TokenKind {
  Space,         // spaces, tabs and newlines
  Comment,       // // ... and /* ... */
  String,        // "..." and '...'
  Preprocessor,  // a # line
  Number,        // 12, 0x1f, 2.0f, 1e-3
  Keyword,       // C++ keywords and types: if, for, int, float, const, template, ...
  Qualifier,     // CUDA: __global__, __device__, __shared__, __syncthreads, extern "C" ...
  Builtin,       // threadIdx, blockIdx, blockDim, gridDim, warpSize, atomicAdd, ...
  Identifier,
  Punct,
};

struct Token {
  TokenKind kind;
  int begin, end;  // byte offsets into the text
  int line;        // 1-based line of `begin`
};

std::vector<Token> tokenize(std::string_view text);

// A floating literal without an f suffix: "2.0", "1e-3", ".5" (not "2.0f", not "2").
bool isDoubleLiteral(std::string_view number);

std::vector<Diagnostic> lint(std::string_view text);

}  // namespace cudalab::playground
