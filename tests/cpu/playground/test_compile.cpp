// NVRTC compilation and its messages: errors land on the learner's lines, ptxas's resource lines
// are read, a missing entry point is said, the app's own warnings find the usual mistakes.
#include <gtest/gtest.h>

#include <algorithm>

#include "playground/compile.hpp"
#include "playground/playground.hpp"
#include "playground/source_check.hpp"

using namespace cudalab;
using namespace cudalab::playground;

TEST(PlaygroundCompile, ErrorsOnTheirLines) {
  const std::string src =
      "extern \"C\" __global__ void k(float* out, int n)\n"   // 1
      "{\n"                                                   // 2
      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"  // 3
      "    if (i < n) out[i] = undefined_name;\n"             // 4
      "    int j = \"text\";\n"                               // 5
      "}\n";
  Result<CompileResult> r = compileKernel(src, {"k"}, {});
  ASSERT_TRUE(r) << r.status().sentence();
  EXPECT_FALSE(r->ok);
  ASSERT_GE(r->diagnostics.size(), 2u) << r->log;
  EXPECT_EQ(r->diagnostics[0].line, 4);
  EXPECT_EQ(r->diagnostics[0].severity, Severity::Error);
  EXPECT_NE(r->diagnostics[0].message.find("undefined_name"), std::string::npos);
  EXPECT_EQ(r->diagnostics[1].line, 5);
  EXPECT_TRUE(r->cubin.empty());
}

TEST(PlaygroundCompile, WarningsAndResources) {
  const std::string src =
      "extern \"C\" __global__ void k(float* out, int n)\n"
      "{\n"
      "    __shared__ float s[128];\n"
      "    int unused;\n"
      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "    s[threadIdx.x % 128] = i;\n"
      "    __syncthreads();\n"
      "    if (i < n) out[i] = s[(threadIdx.x + 1) % 128];\n"
      "}\n";
  CompileOptions o;
  o.arch = 80;
  Result<CompileResult> r = compileKernel(src, {"k"}, o);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok) << r->log;
  EXPECT_EQ(r->arch, 80);
  ASSERT_FALSE(r->diagnostics.empty());
  EXPECT_EQ(r->diagnostics[0].line, 4);
  EXPECT_EQ(r->diagnostics[0].severity, Severity::Warning);
  ASSERT_EQ(r->resources.size(), 1u);
  EXPECT_EQ(r->resources[0].function, "k");
  EXPECT_EQ(r->resources[0].sharedBytes, 512);
  EXPECT_EQ(r->resources[0].barriers, 1);
  EXPECT_GT(r->resources[0].registers, 0);
  EXPECT_GT(r->ms, 0);
}

TEST(PlaygroundCompile, MissingEntryIsSaid) {
  // Without extern "C" the name is mangled: the app cannot find "k".
  Result<CompileResult> r = compileKernel("__global__ void k(float* p) { p[0] = 1; }", {"k"}, {});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  ASSERT_FALSE(r->diagnostics.empty());
  EXPECT_NE(r->diagnostics.back().message.find("extern \"C\""), std::string::npos);
  EXPECT_EQ(r->diagnostics.back().fromWhom, "cudalab");
}

TEST(PlaygroundCompile, ParsesLogs) {
  const std::string log =
      "kernel.cu(12): error: identifier \"x\" is undefined\n"
      "      y = x;\n"
      "          ^\n"
      "\n"
      "kernel.cu(3): warning #177-D: variable \"z\" was declared but never referenced\n"
      "kernel.cu(40): error: something in the appended code\n"
      "2 errors detected in the compilation of \"kernel.cu\".\n";
  const std::vector<Diagnostic> d = parseNvrtcLog(log, 20);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].line, 12);
  EXPECT_EQ(d[0].message, "identifier \"x\" is undefined");
  EXPECT_EQ(d[1].line, 3);
  EXPECT_EQ(d[1].severity, Severity::Warning);
  EXPECT_EQ(d[2].line, 0);  // past the learner's 20 lines
  const std::string ptxas =
      "ptxas info    : Compiling entry function 'a' for 'sm_90'\n"
      "ptxas info    : Function properties for a\n"
      "ptxas         .     256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]\n";
  const std::vector<PtxasInfo> p = parsePtxasInfo(ptxas);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].registers, 32);
  EXPECT_EQ(p[0].stackBytes, 256);
  EXPECT_EQ(p[0].spillStores, 8);
  EXPECT_EQ(p[0].spillLoads, 4);
  EXPECT_EQ(p[0].sharedBytes, 1024);
  EXPECT_EQ(p[0].constBytes, 380);
}

TEST(PlaygroundSource, Tokens) {
  const std::string s =
      "// note\n#define B 256\n__global__ void k(float* p) { p[0] = 2.0f + threadIdx.x; /* c */ "
      "\"s\"; }\n";
  const std::vector<Token> t = tokenize(s);
  std::string joined;
  for (const Token& k : t)
    joined += s.substr(k.begin, k.end - k.begin);
  EXPECT_EQ(joined, s);  // every character is in exactly one token
  auto kindOf = [&](const std::string& text) {
    for (const Token& k : t)
      if (s.substr(k.begin, k.end - k.begin) == text) return k.kind;
    return TokenKind::Space;
  };
  EXPECT_EQ(kindOf("// note"), TokenKind::Comment);
  EXPECT_EQ(kindOf("#define B 256"), TokenKind::Preprocessor);
  EXPECT_EQ(kindOf("__global__"), TokenKind::Qualifier);
  EXPECT_EQ(kindOf("void"), TokenKind::Keyword);
  EXPECT_EQ(kindOf("float"), TokenKind::Keyword);
  EXPECT_EQ(kindOf("threadIdx"), TokenKind::Builtin);
  EXPECT_EQ(kindOf("2.0f"), TokenKind::Number);
  EXPECT_EQ(kindOf("/* c */"), TokenKind::Comment);
  EXPECT_EQ(kindOf("\"s\""), TokenKind::String);
  EXPECT_EQ(kindOf("p"), TokenKind::Identifier);
  for (const Token& k : t) {
    if (s.substr(k.begin, k.end - k.begin) == "threadIdx") {
      EXPECT_EQ(k.line, 3);
    }
  }
  EXPECT_TRUE(isDoubleLiteral("2.0"));
  EXPECT_TRUE(isDoubleLiteral("1e-3"));
  EXPECT_TRUE(isDoubleLiteral(".5"));
  EXPECT_FALSE(isDoubleLiteral("2.0f"));
  EXPECT_FALSE(isDoubleLiteral("2"));
  EXPECT_FALSE(isDoubleLiteral("0x1e"));
}

TEST(PlaygroundSource, LintFindsTheUsualMistakes) {
  auto messages = [](const std::string& src) {
    std::vector<std::string> m;
    for (const Diagnostic& d : lint(src))
      m.push_back(std::to_string(d.line) + ": " + d.message);
    return m;
  };
  auto has = [](const std::vector<std::string>& m, const std::string& part) {
    for (const std::string& s : m)
      if (s.find(part) != std::string::npos) return true;
    return false;
  };
  // No blockIdx: every block does block 0's work.
  std::vector<std::string> m = messages(
      "extern \"C\" __global__ void k(const float* in, float* out, int n)\n"
      "{\n  int i = threadIdx.x;\n  if (i < n) out[i] = 2.0f * in[i];\n}\n");
  EXPECT_TRUE(has(m, "1: k never uses blockIdx or blockDim")) << m.size();
  EXPECT_FALSE(has(m, "bounds check"));
  // No guard.
  m = messages(
      "extern \"C\" __global__ void k(const float* in, float* out, int n)\n"
      "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  out[i] = 2.0f * in[i];\n}\n");
  EXPECT_TRUE(has(m, "4: the write to out[...] has no bounds check"));
  EXPECT_FALSE(has(m, "never uses blockIdx"));
  // A double literal in float code.
  m = messages(
      "extern \"C\" __global__ void k(const float* in, float* out, int n)\n"
      "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = 2.0 * in[i];\n}\n");
  EXPECT_TRUE(has(m, "4: 2.0 is a double"));
  // None of these: a constant index, one place per block, a double kernel.
  EXPECT_TRUE(messages("extern \"C\" __global__ void k(int* c) { atomicAdd(&c[0], 1); c[0] += 0; "
                       "int b = blockIdx.x; }")
                  .empty());
  EXPECT_TRUE(messages("extern \"C\" __global__ void k(double* p, int n) { int i = blockIdx.x; "
                       "if (i < n) p[i] = 2.0 * p[i]; }")
                  .empty());
  EXPECT_TRUE(
      messages("extern \"C\" __global__ void k(float* p) { p[blockIdx.x] = 1.0f; }").empty());
}

// A learner compiles the same text again and again: every compilation must give the binary, the
// entry points and (where ptxas reports them) the same registers.
TEST(PlaygroundCompile, SameTextTwice) {
  const std::string src = "extern \"C\" __global__ void k(float* o) { o[threadIdx.x] = 1.0f; }";
  Result<CompileResult> a = compileKernel(src, {"k"}, {});
  Result<CompileResult> b = compileKernel(src, {"k"}, {});
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->ok && b->ok) << b->log;
  EXPECT_EQ(a->cubin.size(), b->cubin.size());
  EXPECT_EQ(a->resources.size(), b->resources.size()) << "first:\n"
                                                      << a->log << "\nsecond:\n"
                                                      << b->log;
  EXPECT_TRUE(b->cached);
  CompileOptions fresh;
  fresh.useCache = false;
  Result<CompileResult> c = compileKernel(src + "\n// changed", {"k"}, fresh);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->ok);
  EXPECT_FALSE(c->cached);
  EXPECT_GT(c->ms, 0);
  // Compiled again for real (the app's cache off): ptxas reports again. NVRTC's own cache, which
  // lives in the driver's and so works only where a driver is installed, would return the
  // program without a report; the app turns it off.
  Result<CompileResult> d = compileKernel(src + "\n// changed", {"k"}, fresh);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->ok);
  EXPECT_EQ(d->resources.size(), 1u) << d->log;
  EXPECT_EQ(c->resources.size(), 1u) << c->log;
}

// The speed options: -minimal and -pch by default, --split-compile for several kernels, and a
// kernel that needs what -minimal leaves out still compiles (the fallback), with the options of
// the compilation that produced it.
TEST(PlaygroundCompile, FastOptionsAndTheFallback) {
  auto has = [](const CompileResult& r, const std::string& o) {
    return std::find(r.options.begin(), r.options.end(), o) != r.options.end();
  };
  CompileOptions o;
  o.useCache = false;
  Result<CompileResult> plain =
      compileKernel("extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = 1; }", {"k"}, o);
  ASSERT_TRUE(plain);
  ASSERT_TRUE(plain->ok) << plain->log;
  EXPECT_TRUE(has(*plain, "-minimal"));
  EXPECT_TRUE(has(*plain, "-pch"));
  EXPECT_FALSE(has(*plain, "--split-compile=0"));

  const Exercise& ew = *findExercise("elementwise");
  Result<CompileResult> two =
      compileKernel(programSource(ew, solutionSource(ew)), entryPoints(ew), o);
  ASSERT_TRUE(two);
  ASSERT_TRUE(two->ok) << two->log;
  EXPECT_TRUE(has(*two, "--split-compile=0"));
  EXPECT_EQ(two->resources.size(), 2u) << two->log;

  // cudaTextureObject_t is one of the runtime API's types that -minimal omits.
  Result<CompileResult> texture = compileKernel(
      "extern \"C\" __global__ void k(cudaTextureObject_t t, int* p) { p[0] = t != 0; }", {"k"}, o);
  ASSERT_TRUE(texture);
  EXPECT_TRUE(texture->ok) << texture->log;
  EXPECT_FALSE(has(*texture, "-minimal"));

  // A genuine error is still an error, on its line, after the repeat.
  Result<CompileResult> wrong =
      compileKernel("extern \"C\" __global__ void k(int* p)\n{\n  p[0] = nope;\n}\n", {"k"}, o);
  ASSERT_TRUE(wrong);
  EXPECT_FALSE(wrong->ok);
  ASSERT_FALSE(wrong->diagnostics.empty());
  EXPECT_EQ(wrong->diagnostics[0].line, 3);

  CompileOptions slow = o;
  slow.fast = false;
  Result<CompileResult> r =
      compileKernel("extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = 2; }", {"k"}, slow);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok);
  EXPECT_FALSE(has(*r, "-minimal"));
  EXPECT_FALSE(has(*r, "-pch"));
}

// The toolkit's headers, cooperative groups among them (they need CCCL's cuda/std), are found.
TEST(PlaygroundCompile, ToolkitHeadersAreFound) {
  const std::string src =
      "#include <cooperative_groups.h>\n"
      "#include <cuda_fp16.h>\n"
      "namespace cg = cooperative_groups;\n"
      "extern \"C\" __global__ void k(unsigned* count, float* h)\n"
      "{\n"
      "    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());\n"
      "    if (warp.thread_rank() == 0) atomicAdd(count, warp.size());\n"
      "    h[threadIdx.x] = __half2float(__float2half(1.5f));\n"
      "}\n";
  Result<CompileResult> r = compileKernel(src, {"k"}, {});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok) << r->log;
}

// Compiles `src` (its kernel named k) where it must fail with a message: the result, in `out`.
// Call it under ASSERT_NO_FATAL_FAILURE.
static void compileMustFail(const std::string& src, CompileResult& out) {
  Result<CompileResult> r = compileKernel(src, {"k"}, {});
  ASSERT_TRUE(r) << r.status().sentence();
  EXPECT_FALSE(r->ok);
  ASSERT_FALSE(r->diagnostics.empty()) << r->log;
  out = std::move(*r);
}

// The headers learners copy from tutorials compile (NVRTC has none of them); <iostream> says on
// its line what to use instead of NVRTC's bare "cannot open source file".
TEST(PlaygroundCompile, TutorialHeadersCompileAndIostreamSaysWhy) {
  const std::string src =
      "#include <cstdio>\n"
      "#include <stdio.h>\n"
      "#include <cmath>\n"
      "#include <math.h>\n"
      "#include <cstdint>\n"
      "#include <stdint.h>\n"
      "extern \"C\" __global__ void k(float* out, int n)\n"
      "{\n"
      "    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "    uint64_t big = 1ull << 40;\n"
      "    if (i < n) out[i] = sqrtf(float(i)) + float(big >> 40);\n"
      "    if (i == 0) printf(\"n = %d\\n\", n);\n"
      "}\n";
  Result<CompileResult> r = compileKernel(src, {"k"}, {});
  ASSERT_TRUE(r) << r.status().sentence();
  EXPECT_TRUE(r->ok) << r->log;

  CompileResult io;
  ASSERT_NO_FATAL_FAILURE(compileMustFail(
      "// line 1\n#include <iostream>\nextern \"C\" __global__ void k(float* out) { out[0] = 1; "
      "}\n",
      io));
  EXPECT_NE(io.diagnostics[0].message.find("print with printf"), std::string::npos) << io.log;
  EXPECT_EQ(io.diagnostics[0].line, 2) << "on the line of the #include";
}

// A static __shared__ array past 48 KiB: NVRTC fails without saying why; the app says it, on the
// array's line.
TEST(PlaygroundCompile, TooMuchStaticSharedMemoryIsSaid) {
  const std::string src =
      "extern \"C\" __global__ void k(float* out)\n"
      "{\n"
      "    __shared__ float tile[16384];\n"
      "    tile[threadIdx.x] = 1.0f;\n"
      "    __syncthreads();\n"
      "    out[threadIdx.x] = tile[threadIdx.x ^ 1];\n"
      "}\n";
  CompileResult r;
  ASSERT_NO_FATAL_FAILURE(compileMustFail(src, r));
  EXPECT_EQ(r.diagnostics[0].line, 3) << r.diagnostics[0].message;
  EXPECT_NE(r.diagnostics[0].message.find("k declares 65536 bytes of __shared__ memory"),
            std::string::npos)
      << r.diagnostics[0].message;
  EXPECT_EQ(r.diagnostics[0].message.find("precompiled header"), std::string::npos);
}

// NVRTC notices a missing ';' on the next line; the app says which line misses it.
TEST(PlaygroundCompile, AMissingSemicolonIsSaidOnItsLine) {
  const std::string src =
      "extern \"C\" __global__ void k(float* out, int n)\n"
      "{\n"
      "    int i = blockIdx.x * blockDim.x + threadIdx.x\n"
      "\n"
      "    if (i < n) out[i] = 1.0f;\n"
      "}\n";
  CompileResult r;
  ASSERT_NO_FATAL_FAILURE(compileMustFail(src, r));
  EXPECT_EQ(r.diagnostics[0].line, 3);
  EXPECT_EQ(r.diagnostics[0].fromWhom, "cudalab");
  EXPECT_NE(r.diagnostics[0].message.find("line 3 may be missing its ';'"), std::string::npos)
      << r.diagnostics[0].message;
  // A line that ends as it should gets no such hint.
  Result<CompileResult> fine = compileKernel(
      "extern \"C\" __global__ void k(float* out) {\n  out[0] = 1.0f;\n  out[1] = ;\n}\n", {"k"},
      {});
  ASSERT_TRUE(fine);
  for (const Diagnostic& d : fine->diagnostics)
    EXPECT_EQ(d.message.find("may be missing its ';'"), std::string::npos) << d.message;
}
