// What the compiler made of the learner's kernel, line by line: the PTX NVRTC wrote and the SASS
// (the GPU's own machine code) in the binary, each line tied to the line of the learner's source
// it came from, as Compiler Explorer joins them. The PTX and its `.loc` lines come with every
// compile; the SASS comes from the toolkit's disassembler, nvdisasm, run on the binary (the
// toolkit's own, or NVIDIA's nvidia-cuda-nvdisasm package that ./setup.sh puts in .deps/).
//
// [SECTION] Listings   the lines of a listing and the source line of each
// [SECTION] Tools      where nvdisasm and cuobjdump are, and running them on a binary
//
//   std::vector<AsmLine> ptx = ptxListing(compiled.ptx, kProgramName);
//   Result<std::vector<AsmLine>> sass = sassListing(compiled.cubin, kProgramName);
//   if (!sass) show(sass.status());     // no nvdisasm here: the sentence says what to install
//   for (const AsmLine& l : *sass) draw(l.text, colourOf(l.sourceLine));
//
// Compiling with -lineinfo (the playground always does) keeps the line information; without it
// every line's sourceLine is 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

namespace cudalab::playground {

// ---------------------------------------------------------------------------------------------
// [SECTION] Listings
// ---------------------------------------------------------------------------------------------

enum class AsmKind {
  Instruction,  // a PTX or SASS instruction
  Function,     // the start of a kernel (its name, mangled as in the binary)
  Label,        // a branch target
  Other,        // a PTX declaration or directive kept for reading (.reg, .param, braces)
};

struct AsmLine {
  AsmKind kind = AsmKind::Other;
  std::string text;      // as the tool printed it, without its line-information comments
  int sourceLine = 0;    // the learner's line it came from; 0: none, or another file (a header)
  std::string function;  // the kernel it belongs to (mangled)
  std::uint64_t pc = 0;  // SASS: the instruction's offset in its kernel, in bytes
};

// The PTX as a listing: directives of line information (.loc, .file) and the debug sections are
// left out, every other line kept; an instruction takes the line of the last .loc before it. An
// instruction of an inlined function takes the innermost place in `programFile` (a call of a
// device function on line 12 of the learner's file whose body is on line 3 maps to 3; an
// intrinsic of cuda_fp16.hpp called on line 12 maps to 12).
std::vector<AsmLine> ptxListing(std::string_view ptx, std::string_view programFile);

// nvdisasm's output (`nvdisasm -gi -c`) as a listing: per kernel a Function line, its labels and
// instructions; each instruction takes the innermost place in `programFile` of the line comments
// above it. Pure: the tests feed it text.
std::vector<AsmLine> parseNvdisasm(std::string_view text, std::string_view programFile);

// The listing with nvdisasm's branch targets ("BRA `(.L_x_0)") written as cuobjdump writes them,
// the target's offset ("BRA 0x140"): the same instructions in both tools' words.
std::vector<AsmLine> targetsAsOffsets(std::vector<AsmLine> listing);

// cuobjdump's `-sass` output as a listing (Function lines and instructions, no source lines), to
// compare with nvdisasm's.
std::vector<AsmLine> parseCuobjdump(std::string_view text);

// A kernel's mangled name as C++ writes it ("_Z3addPKfS0_Pfi" -> "add(float const*, float const*,
// float*, int)"); the name itself where it is not mangled.
std::string demangled(const std::string& name);

// Instructions per source line of a listing (index: the line; [0]: those of no line of the
// learner's), for the colour bands and the counts beside the editor.
std::vector<int> instructionsPerLine(const std::vector<AsmLine>& listing, int sourceLines);

// ---------------------------------------------------------------------------------------------
// [SECTION] Tools
// ---------------------------------------------------------------------------------------------

// Where the disassemblers are: $CUDALAB_NVDISASM and $CUDALAB_CUOBJDUMP, then the CUDA toolkit
// cudalab was built with, the project's .deps/ (./setup.sh), /usr/local/cuda/bin and the PATH.
// Empty where none is found.
struct MachineTools {
  std::string nvdisasm, cuobjdump;
};
MachineTools findMachineTools();

// The SASS of `cubin` through nvdisasm. Fails with a sentence that says what to install where
// nvdisasm is missing, and with nvdisasm's own words where it refuses the binary.
Result<std::vector<AsmLine>> sassListing(const std::string& cubin, std::string_view programFile);

// cuobjdump -sass of `cubin` (for the tests and the command line's cross-check).
Result<std::vector<AsmLine>> cuobjdumpListing(const std::string& cubin);

}  // namespace cudalab::playground
