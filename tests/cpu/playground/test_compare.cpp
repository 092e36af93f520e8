// "Compare two compiles": each variant changes one thing and keeps the line numbers, every
// exercise's solution compiles in every variant, the diff pairs instructions by operation, and
// --use_fast_math changes what the hypot solution compiles to.
#include <gtest/gtest.h>

#include <algorithm>

#include "playground/compare.hpp"
#include "playground/compile.hpp"
#include "playground/playground.hpp"

using namespace cudalab;
using namespace cudalab::playground;

namespace {

int lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

AsmLine ins(const char* text) {
  return {AsmKind::Instruction, text, 1, "k", 0};
}

}  // namespace

TEST(Compare, EachVariantChangesOneThingAndKeepsTheLines) {
  const std::string k =
      "extern \"C\" __global__ void f(const float* in, float *out, int n) {\n"
      "  for (int i = 0; i < n; ++i)\n"
      "    out[i] = 2.0f * in[i];\n"
      "}\n";
  const VariantSource r = applyVariant(Variant::Restrict, k);
  EXPECT_NE(r.text.find("const float* __restrict__ in,"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("* __restrict__ out,"), std::string::npos) << r.text;
  EXPECT_EQ(applyVariant(Variant::Restrict, r.text).text, r.text) << "marked once";
  const VariantSource u = applyVariant(Variant::Unroll, k);
  EXPECT_NE(u.text.find("_Pragma(\"unroll\") for (int i"), std::string::npos) << u.text;
  EXPECT_EQ(lines(u.text), lines(k));
  const VariantSource d = applyVariant(Variant::Double, k);
  EXPECT_EQ(d.text.find("float"), std::string::npos);
  EXPECT_NE(d.text.find("const double* in"), std::string::npos);
  EXPECT_NE(d.text.find("= 2.0 * in[i]"), std::string::npos) << d.text;
  // The float functions and literals go too; hex numbers and CUDA's intrinsics stay.
  EXPECT_EQ(applyVariant(Variant::Double, "y = sqrtf(x) + hypotf(a, b) * 1.5e3f + .5f;").text,
            "y = sqrt(x) + hypot(a, b) * 1.5e3 + .5;");
  EXPECT_EQ(applyVariant(Variant::Double, "m = 0x1f + __expf(x);").text, "m = 0x1f + __expf(x);");
  const VariantSource f = applyVariant(Variant::FastMath, k);
  EXPECT_EQ(f.text, k);
  EXPECT_EQ(f.options, std::vector<std::string>{"--use_fast_math"});
  for (const VariantInfo& v : variants()) {
    EXPECT_NE(std::string(v.help).size(), 0u);
    EXPECT_EQ(lines(applyVariant(v.id, k).text), lines(k)) << v.key;
  }
}

TEST(Compare, EverySolutionCompilesInEveryVariant) {
  for (const Exercise& e : exercises())
    for (const VariantInfo& v : variants()) {
      SCOPED_TRACE(std::string(e.id) + " " + v.key);
      if (const char* why = variantRefused(e, v.id)) {
        // Refused with a sentence, never offered: the WMMA kernel in double alone.
        EXPECT_TRUE(e.kind == Kind::Wmma && v.id == Variant::Double) << why;
        EXPECT_GT(std::string(why).size(), 40u);
        continue;
      }
      const VariantSource s = applyVariant(v.id, solutionSource(e));
      CompileOptions o;
      o.extra = s.options;
      Result<CompileResult> c = compileKernel(programSource(e, s.text), entryPoints(e), o);
      ASSERT_TRUE(c) << c.status().sentence();
      EXPECT_TRUE(c->ok) << c->log;
    }
}

TEST(Compare, TheDiffPairsInstructionsByOperation) {
  const std::vector<AsmLine> a = {ins("LDG.E R2, desc[UR4][R2.64];"), ins("FMUL R7, R2, R2;"),
                                  ins("MUFU.RSQ R5, R7;"), ins("STG.E [R4], R5;"), ins("EXIT;")};
  const std::vector<AsmLine> b = {ins("LDG.E R9, desc[UR4][R2.64];"),
                                  ins("FMUL R3, R9, R9;"),
                                  ins("CALL.REL.NOINC `(slowpath);"),
                                  ins("STG.E [R4], R3;"),
                                  ins("@P0 EXIT;"),
                                  ins("EXIT;")};
  const std::vector<DiffRow> rows = diffInstructions(a, b);
  int both = 0, onlyA = 0, onlyB = 0;
  for (const DiffRow& r : rows) {
    both += r.a >= 0 && r.b >= 0;
    onlyA += r.a >= 0 && r.b < 0;
    onlyB += r.a < 0 && r.b >= 0;
  }
  EXPECT_EQ(both, 4);  // LDG.E, FMUL, STG.E, EXIT: the registers aside
  EXPECT_EQ(onlyA, 1);
  EXPECT_EQ(onlyB, 2);
  EXPECT_EQ(operationOf("@P0 EXIT;"), "@P0 EXIT");
  EXPECT_EQ(operationOf("LDG.E.64 R2, [R4];"), "LDG.E.64");
  EXPECT_EQ(operationOf("NOP;"), "NOP");
}

TEST(Compare, DoubleMakesTheHypotSolutionComputeInDouble) {
  if (findMachineTools().nvdisasm.empty()) GTEST_SKIP() << "nvdisasm missing: ./setup.sh deps";
  const Exercise& e = *findExercise("hypot");
  const VariantSource s = applyVariant(Variant::Double, solutionSource(e));
  Result<CompileResult> c = compileKernel(programSource(e, s.text), entryPoints(e), {});
  ASSERT_TRUE(c && c->ok);
  Result<std::vector<AsmLine>> l = sassListing(c->cubin, kProgramName);
  ASSERT_TRUE(l) << l.status().sentence();
  int doubles = 0;
  for (const AsmLine& a : *l)
    doubles += a.kind == AsmKind::Instruction && (operationOf(a.text).rfind("DFMA", 0) == 0 ||
                                                  operationOf(a.text).rfind("DMUL", 0) == 0 ||
                                                  operationOf(a.text).rfind("DADD", 0) == 0);
  EXPECT_GT(doubles, 0);
}

TEST(Compare, FastMathChangesTheHypotSolutionsMachineCode) {
  if (findMachineTools().nvdisasm.empty()) GTEST_SKIP() << "nvdisasm missing: ./setup.sh deps";
  const Exercise& e = *findExercise("hypot");
  std::vector<AsmLine> sass[2];
  for (int i = 0; i < 2; ++i) {
    const VariantSource s = applyVariant(Variant::FastMath, solutionSource(e));
    CompileOptions o;
    if (i) o.extra = s.options;
    Result<CompileResult> c = compileKernel(programSource(e, s.text), entryPoints(e), o);
    ASSERT_TRUE(c && c->ok);
    Result<std::vector<AsmLine>> l = sassListing(c->cubin, kProgramName);
    ASSERT_TRUE(l) << l.status().sentence();
    sass[i] = *l;
  }
  int changed = 0;
  for (const DiffRow& r : diffInstructions(sass[0], sass[1]))
    changed += r.a < 0 || r.b < 0;
  EXPECT_GT(changed, 0);
}
