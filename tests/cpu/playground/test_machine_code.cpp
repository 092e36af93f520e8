// The playground's machine code: the PTX and SASS listings tied to the learner's lines. Parsers fed
// canned tool output (an inlined device function, an intrinsic of a header, cuobjdump's encoding
// lines); then every exercise's solution compiled with NVRTC here (no GPU needed), its SASS pane
// compared with cuobjdump -sass of the same binary instruction by instruction, and its source lines
// with the PTX's .loc lines.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "playground/compile.hpp"
#include "playground/machine_code.hpp"
#include "playground/playground.hpp"

using namespace cudalab;
using namespace cudalab::playground;

namespace {

constexpr const char* kNvdisasm = R"(	.target	sm_90

//--------------------- .text._Z1fPK6__halfPfi --------------------------
	.section	.text._Z1fPK6__halfPfi,"ax",@progbits
	.align	128
_Z1fPK6__halfPfi:
.text._Z1fPK6__halfPfi:
	//## File "kernel.cu", line 3
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "kernel.cu", line 5
        /*0070*/               @P0 EXIT ;
	//## File "/usr/local/cuda/include/cuda_fp16.hpp", line 708 inlined at "kernel.cu", line 6
	//## File "kernel.cu", line 6
        /*00e0*/                   HADD2.F32 R0, -RZ, R2.H0_H0 ;
	//## File "kernel.cu", line 2 inlined at "kernel.cu", line 6
	//## File "kernel.cu", line 6
        /*00f0*/                   FMUL R7, R0, R0 ;
        /*0100*/                   STG.E desc[UR4][R4.64], R7 ;
.L_x_0:
        /*0140*/                   BRA `(.L_x_0);
        /*0150*/                   NOP;


//--------------------- SYMBOLS --------------------------
	.type		.nv.reservedSmem.offset0,@object
)";

constexpr const char* kCuobjdump = R"dump(
	code for sm_90
		Function : _Z1fPK6__halfPfi
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;              /* 0x00000a00ff017b82 */
                                                                       /* 0x000fe20000000800 */
        /*0150*/                   NOP;                                /* 0x0000000000007918 */
)dump";

constexpr const char* kPtx = R"(.visible .entry _Z1fPK6__halfPfi(
	.param .u64 _Z1fPK6__halfPfi_param_0
)
{
	.reg .f32 	%f<3>;
	.loc	1 3 0
	ld.param.u64 	%rd1, [_Z1fPK6__halfPfi_param_0];
	.loc	2 708 1, function_name $L__info_string0, inlined_at 1 6 5
	{  cvt.f32.f16 %f1, %rs1;}
	{ .reg .pred __$temp3;
	.loc	1 2 31, function_name $L__info_string1, inlined_at 1 6 5
	mul.f32 	%f2, %f1, %f1;
$L__BB0_2:
	.loc	1 7 1
	ret;

}
	.file	1 "kernel.cu"
	.file	2 "/usr/local/cuda/include/cuda_fp16.hpp"
	.section	.debug_str
	{
$L__info_string0:
.b8 95,95,104,0
	}
)";

std::vector<const AsmLine*> instructions(const std::vector<AsmLine>& l) {
  std::vector<const AsmLine*> out;
  for (const AsmLine& a : l)
    if (a.kind == AsmKind::Instruction) out.push_back(&a);
  return out;
}

}  // namespace

TEST(MachineCode, NvdisasmLinesTakeTheInnermostPlaceInTheProgram) {
  const std::vector<AsmLine> l = parseNvdisasm(kNvdisasm, kProgramName);
  const auto ins = instructions(l);
  ASSERT_EQ(ins.size(), 7u);
  EXPECT_EQ(l.front().kind, AsmKind::Function);
  EXPECT_EQ(l.front().text, "_Z1fPK6__halfPfi");
  EXPECT_EQ(ins[0]->text, "LDC R1, c[0x0][0x28];");
  EXPECT_EQ(ins[0]->sourceLine, 3);
  EXPECT_EQ(ins[1]->text, "@P0 EXIT;");
  EXPECT_EQ(ins[1]->pc, 0x70u);
  EXPECT_EQ(ins[2]->sourceLine, 6);  // cuda_fp16.hpp's intrinsic, called on line 6
  EXPECT_EQ(ins[3]->sourceLine, 2);  // the device function's body, inlined on line 6
  EXPECT_EQ(ins[4]->sourceLine, 2);  // no new comment: the line goes on
  EXPECT_EQ(ins[6]->text, "NOP;");
  EXPECT_EQ(ins[5]->text, "BRA `(.L_x_0);");
  EXPECT_EQ(instructions(targetsAsOffsets(l))[5]->text, "BRA 0x140;");
  for (const AsmLine* a : ins)
    EXPECT_EQ(a->function, "_Z1fPK6__halfPfi");
  int labels = 0;
  for (const AsmLine& a : l)
    labels += a.kind == AsmKind::Label;
  EXPECT_EQ(labels, 1);  // .L_x_0; the kernel's own labels are its Function line
  EXPECT_EQ(demangled("_Z1fPK6__halfPfi"), "f(__half const*, float*, int)");
  EXPECT_EQ(demangled("add"), "add");
}

TEST(MachineCode, CuobjdumpLinesLoseTheirEncoding) {
  const std::vector<AsmLine> l = parseCuobjdump(kCuobjdump);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].kind, AsmKind::Function);
  EXPECT_EQ(l[1].text, "LDC R1, c[0x0][0x28];");
  EXPECT_EQ(l[2].text, "NOP;");
  EXPECT_EQ(l[2].pc, 0x150u);
}

TEST(MachineCode, PtxTakesTheLastLocAndDropsTheDebugSections) {
  const std::vector<AsmLine> l = ptxListing(kPtx, kProgramName);
  const auto ins = instructions(l);
  ASSERT_EQ(ins.size(), 4u);
  EXPECT_EQ(ins[0]->sourceLine, 3);
  EXPECT_EQ(ins[1]->sourceLine, 6);  // the header's intrinsic, inlined at line 6
  EXPECT_EQ(ins[2]->sourceLine, 2);
  EXPECT_EQ(ins[3]->sourceLine, 7);
  EXPECT_EQ(l.front().kind, AsmKind::Function);
  EXPECT_EQ(l.front().function, "_Z1fPK6__halfPfi");
  for (const AsmLine& a : l) {
    EXPECT_EQ(a.text.find(".loc"), std::string::npos);
    EXPECT_EQ(a.text.find(".file"), std::string::npos);
    EXPECT_EQ(a.text.find(".b8"), std::string::npos) << "a debug section was kept";
  }
  const std::vector<int> per = instructionsPerLine(l, 7);
  EXPECT_EQ(per[2], 1);
  EXPECT_EQ(per[6], 1);
  EXPECT_EQ(per[0], 0);
}

// What the SASS pane shows is what cuobjdump prints from the same binary, instruction for
// instruction, for every exercise's solution; every line the SASS names has PTX from it too.
TEST(MachineCode, SassPaneEqualsCuobjdumpForEverySolution) {
  const MachineTools tools = findMachineTools();
  if (tools.nvdisasm.empty() || tools.cuobjdump.empty())
    GTEST_SKIP() << "nvdisasm or cuobjdump missing: ./setup.sh deps installs them";
  for (const Exercise& e : exercises()) {
    SCOPED_TRACE(e.id);
    Result<CompileResult> c =
        compileKernel(programSource(e, solutionSource(e)), entryPoints(e), {});
    ASSERT_TRUE(c && c->ok);
    Result<std::vector<AsmLine>> sass = sassListing(c->cubin, kProgramName);
    ASSERT_TRUE(sass) << sass.status().sentence();
    Result<std::vector<AsmLine>> dump = cuobjdumpListing(c->cubin);
    ASSERT_TRUE(dump) << dump.status().sentence();
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> a, b;
    // nvdisasm names branch targets by label, cuobjdump by offset.
    const std::vector<AsmLine> resolved = targetsAsOffsets(*sass);
    for (const AsmLine* i : instructions(resolved))
      a[i->function].push_back({i->pc, i->text});
    for (const AsmLine* i : instructions(*dump))
      b[i->function].push_back({i->pc, i->text});
    EXPECT_EQ(a.size(), entryPoints(e).size());
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [function, list] : a) {
      SCOPED_TRACE(function);
      ASSERT_TRUE(b.count(function));
      const auto& other = b[function];
      EXPECT_EQ(list.size(), other.size());
      for (std::size_t i = 0; i < std::min(list.size(), other.size()); ++i)
        if (list[i] != other[i]) {
          ADD_FAILURE() << "instruction " << i << ": nvdisasm " << list[i].first << " "
                        << list[i].second << ", cuobjdump " << other[i].first << " "
                        << other[i].second;
          break;
        }
    }
    // -lineinfo: most instructions know their line, and each such line has PTX of its own.
    const std::vector<AsmLine> ptx = ptxListing(c->ptx, kProgramName);
    std::set<int> ptxLines;
    for (const AsmLine* i : instructions(ptx))
      ptxLines.insert(i->sourceLine);
    int placed = 0, total = 0;
    for (const AsmLine* i : instructions(*sass)) {
      ++total;
      if (i->sourceLine == 0) continue;
      ++placed;
      EXPECT_TRUE(ptxLines.count(i->sourceLine))
          << "SASS line " << i->sourceLine << ": " << i->text;
    }
    EXPECT_GT(placed, total / 2) << placed << " of " << total;
  }
}

TEST(MachineCode, WithoutNvdisasmTheSentenceSaysWhatToInstall) {
  ::setenv("CUDALAB_NVDISASM", "/nonexistent/nvdisasm", 1);
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  // Only when no other copy is found can the refusal be seen; with one installed, the run works.
  if (findMachineTools().nvdisasm.empty()) {
    Result<std::vector<AsmLine>> r = sassListing("not a cubin", kProgramName);
    ASSERT_FALSE(r);
    EXPECT_NE(r.status().sentence().find("setup.sh"), std::string::npos);
  } else {
    Result<std::vector<AsmLine>> r = sassListing("not a cubin", kProgramName);
    ASSERT_FALSE(r) << "nvdisasm read garbage";
    EXPECT_NE(r.status().sentence().find("could not read"), std::string::npos)
        << r.status().sentence();
  }
  ::unsetenv("CUDALAB_NVDISASM");
}
