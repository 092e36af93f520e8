#include "playground/machine_code.hpp"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "common/run_tool.hpp"
#include "common/translatable.hpp"

namespace cudalab::playground {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Listings: text helpers
// ---------------------------------------------------------------------------------------------

std::string_view trimmed(std::string_view s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return {};
  const std::size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Whether `path` names the learner's file: the same name, or a path ending in it.
bool isProgram(std::string_view path, std::string_view programFile) {
  if (path == programFile) return true;
  return path.size() > programFile.size() && path.ends_with(programFile) &&
         path[path.size() - programFile.size() - 1] == '/';
}

// An instruction's text with its spacing made regular: runs of blanks as one, none before ';'.
std::string regular(std::string_view s) {
  std::string out;
  bool blank = false;
  for (char c : trimmed(s)) {
    if (c == ' ' || c == '\t') {
      blank = true;
      continue;
    }
    if (blank && c != ';' && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

// "/*00f0*/   FMUL R7, R0, R0 ;   /* 0x... */" -> pc 0xf0 and the instruction; nullopt for any
// other line (cuobjdump's second encoding line is a comment alone).
std::optional<std::pair<std::uint64_t, std::string>> sassInstruction(std::string_view line) {
  const std::string_view t = trimmed(line);
  if (!startsWith(t, "/*")) return std::nullopt;
  const std::size_t close = t.find("*/");
  if (close == std::string_view::npos || close <= 2) return std::nullopt;
  const std::string_view hex = t.substr(2, close - 2);
  if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
    return std::nullopt;
  std::string_view rest = trimmed(t.substr(close + 2));
  if (rest.empty() || startsWith(rest, "/*")) return std::nullopt;
  if (const std::size_t enc = rest.rfind("/*"); enc != std::string_view::npos)
    rest = trimmed(rest.substr(0, enc));  // cuobjdump's encoding
  return std::pair{std::strtoull(std::string(hex).c_str(), nullptr, 16), regular(rest)};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Listings
// ---------------------------------------------------------------------------------------------

std::vector<AsmLine> ptxListing(std::string_view ptx, std::string_view programFile) {
  const std::vector<std::string_view> all = lines(ptx);
  // `.file N "path"` comes after the code: read the table first.
  std::map<int, bool> fileIsProgram;
  for (std::string_view l : all) {
    const std::string_view t = trimmed(l);
    if (!startsWith(t, ".file")) continue;
    const int index = std::atoi(std::string(trimmed(t.substr(5))).c_str());
    const std::size_t q = t.find('"'), q2 = t.find('"', q + 1);
    if (q != std::string_view::npos && q2 != std::string_view::npos)
      fileIsProgram[index] = isProgram(t.substr(q + 1, q2 - q - 1), programFile);
  }
  auto placeOf = [&](std::string_view loc) {
    // ".loc F L C[, function_name X, inlined_at F2 L2 C2]": the innermost place in the program.
    int file = 0, line = 0;
    std::sscanf(std::string(loc).c_str(), ".loc %d %d", &file, &line);
    if (fileIsProgram[file]) return line;
    if (const std::size_t at = loc.find("inlined_at"); at != std::string_view::npos) {
      int f2 = 0, l2 = 0;
      std::sscanf(std::string(loc.substr(at)).c_str(), "inlined_at %d %d", &f2, &l2);
      if (fileIsProgram[f2]) return l2;
    }
    return 0;
  };
  std::vector<AsmLine> out;
  std::string function;
  int current = 0, debugDepth = 0;
  bool sectionOpens = false;  // a debug section's heading was read: its "{" comes next
  for (std::string_view l : all) {
    const std::string_view t = trimmed(l);
    if (sectionOpens && t == "{") {
      sectionOpens = false;
      debugDepth = 1;
      continue;
    }
    sectionOpens = false;
    if (debugDepth > 0) {  // inside a .section .debug_* { ... } block
      if (t == "{") ++debugDepth;
      if (t == "}") --debugDepth;
      continue;
    }
    if (startsWith(t, ".section") && t.find(".debug") != std::string_view::npos) {
      if (t.back() == '{')
        debugDepth = 1;
      else
        sectionOpens = true;
      continue;
    }
    if (t.empty() || startsWith(t, ".file")) continue;
    if (startsWith(t, ".loc")) {
      current = placeOf(t);
      continue;
    }
    AsmLine a;
    a.text = std::string(l.substr(0, l.find_last_not_of(" \t\r") + 1));
    if (const std::size_t e = t.find(".entry "); e != std::string_view::npos) {
      std::string_view name = trimmed(t.substr(e + 7));
      name = name.substr(0, name.find_first_of("( \t"));
      function = std::string(name);
      a.kind = AsmKind::Function;
      current = 0;
    } else if (t.back() == ':' && t.front() == '$') {
      a.kind = AsmKind::Label;
    } else if (const std::string_view body = trimmed(t.substr(t.front() == '{' ? 1 : 0));
               !body.empty() && body.front() != '.' && !startsWith(t, "//") &&
               t.find(';') != std::string_view::npos) {
      // An instruction, also inside an inline-asm brace ("{  cvt.f32.f16 %f1, %rs1;}"); a
      // declaration there ("{ .reg .pred __$temp3;") is not one.
      a.kind = AsmKind::Instruction;
      a.sourceLine = current;
    }
    a.function = function;
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<AsmLine> parseNvdisasm(std::string_view text, std::string_view programFile) {
  std::vector<AsmLine> out;
  std::string function;
  bool inCode = false, freshComments = false;
  int current = 0;
  // "//## File "a", line 3 inlined at "b", line 7": the innermost place in the program.
  auto placeOf = [&](std::string_view comment) {
    std::size_t pos = 0;
    while (true) {
      const std::size_t q = comment.find('"', pos), q2 = comment.find('"', q + 1);
      if (q == std::string_view::npos || q2 == std::string_view::npos) return 0;
      const std::size_t ln = comment.find("line ", q2);
      if (ln == std::string_view::npos) return 0;
      if (isProgram(comment.substr(q + 1, q2 - q - 1), programFile))
        return std::atoi(std::string(comment.substr(ln + 5, 12)).c_str());
      pos = ln;
    }
  };
  for (std::string_view l : lines(text)) {
    const std::string_view t = trimmed(l);
    if (startsWith(t, "//---------------------")) {
      // A section's heading: "//--------------------- .text.NAME  -------".
      const std::size_t after = t.find_first_not_of('-', 2);
      std::string_view name = after == std::string_view::npos ? "" : trimmed(t.substr(after));
      name = name.substr(0, name.find_first_of(" \t"));
      inCode = startsWith(name, ".text.");
      if (inCode) {
        function = std::string(name.substr(6));
        out.push_back({AsmKind::Function, function, 0, function, 0});
        current = 0;
      }
      continue;
    }
    if (!inCode || t.empty()) continue;
    if (startsWith(t, "//##")) {
      // Several comments may precede one instruction (an inlined call: its chain, then the
      // outer line): the first says the innermost place.
      if (!freshComments) current = placeOf(t);
      freshComments = true;
      continue;
    }
    if (auto ins = sassInstruction(t)) {
      out.push_back({AsmKind::Instruction, ins->second, current, function, ins->first});
      freshComments = false;
      continue;
    }
    // Branch targets (.L_x_0:) and the math library's subroutines ($__internal_0_$...:); the
    // kernel's own two labels are its Function line.
    if (t.back() == ':' && t.find_first_of(" \t") == std::string_view::npos &&
        t != function + ":" && t != ".text." + function + ":")
      out.push_back({AsmKind::Label, std::string(t), 0, function, 0});
    // Anything else: the section's directives and the kernel's own labels, which the Function
    // line stands for.
  }
  return out;
}

std::vector<AsmLine> targetsAsOffsets(std::vector<AsmLine> listing) {
  // A label stands for the offset of the instruction after it, in its kernel.
  std::map<std::pair<std::string, std::string>, std::uint64_t> offset;
  std::vector<std::string> waiting;
  for (const AsmLine& a : listing) {
    if (a.kind == AsmKind::Function) offset[{a.function, a.function}] = 0;  // RET's `(kernel)
    if (a.kind == AsmKind::Label) waiting.push_back(a.text.substr(0, a.text.size() - 1));
    if (a.kind != AsmKind::Instruction) continue;
    for (const std::string& label : waiting)
      offset[{a.function, label}] = a.pc;
    waiting.clear();
  }
  for (AsmLine& a : listing) {
    if (a.kind != AsmKind::Instruction) continue;
    const std::size_t open = a.text.find("`(");
    const std::size_t close = a.text.find(')', open);
    if (open == std::string::npos || close == std::string::npos) continue;
    const auto it = offset.find({a.function, a.text.substr(open + 2, close - open - 2)});
    if (it == offset.end()) continue;
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(it->second));
    a.text.replace(open, close - open + 1, hex);
  }
  return listing;
}

std::vector<AsmLine> parseCuobjdump(std::string_view text) {
  std::vector<AsmLine> out;
  std::string function;
  for (std::string_view l : lines(text)) {
    const std::string_view t = trimmed(l);
    if (startsWith(t, "Function :")) {
      function = std::string(trimmed(t.substr(10)));
      out.push_back({AsmKind::Function, function, 0, function, 0});
    } else if (auto ins = sassInstruction(t)) {
      out.push_back({AsmKind::Instruction, ins->second, 0, function, ins->first});
    }
  }
  return out;
}

std::string demangled(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out = d;
  std::free(d);
  return out;
}

std::vector<int> instructionsPerLine(const std::vector<AsmLine>& listing, int sourceLines) {
  std::vector<int> count(std::size_t(std::max(sourceLines, 0)) + 1, 0);
  for (const AsmLine& a : listing)
    if (a.kind == AsmKind::Instruction)
      ++count[a.sourceLine > 0 && a.sourceLine <= sourceLines ? a.sourceLine : 0];
  return count;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Tools
// ---------------------------------------------------------------------------------------------

namespace {

std::string findTool(const char* env, const char* name) {
  if (const char* e = std::getenv(env); e && isExecutable(e)) return e;
  std::vector<std::string> dirs;
#ifdef CUDALAB_CUDA_BIN_DIR
  dirs.push_back(CUDALAB_CUDA_BIN_DIR);
#endif
#ifdef CUDALAB_DEPS_BIN_DIR
  dirs.push_back(CUDALAB_DEPS_BIN_DIR);
#endif
  dirs.push_back("/usr/local/cuda/bin");
  if (const char* path = std::getenv("PATH")) {
    std::string_view p = path;
    while (!p.empty()) {
      const std::size_t colon = p.find(':');
      dirs.emplace_back(p.substr(0, colon));
      if (colon == std::string_view::npos) break;
      p.remove_prefix(colon + 1);
    }
  }
  for (const std::string& d : dirs)
    if (!d.empty() && isExecutable(d + "/" + name)) return d + "/" + name;
  return {};
}

// Runs `tool` with `args` and the binary's path last.
Result<std::string> runOnBinary(const std::string& tool, std::vector<std::string> args,
                                const std::string& cubin) {
  Result<TempFile> file = TempFile::write(cubin, ".cubin");
  if (!file) return file.status();
  args.push_back(file->path());
  Result<ToolRun> run = runTool(tool, args, 30.0);
  if (!run) return run.status();
  if (run->exitCode != 0) {
    const std::string_view first = trimmed(run->output.substr(0, run->output.find('\n')));
    return Status::errorf(N_("%s could not read the compiled kernel: %s"),
                          {tool, std::string(first)});
  }
  return std::move(run->output);
}

}  // namespace

MachineTools findMachineTools() {
  return {findTool("CUDALAB_NVDISASM", "nvdisasm"), findTool("CUDALAB_CUOBJDUMP", "cuobjdump")};
}

Result<std::vector<AsmLine>> sassListing(const std::string& cubin, std::string_view programFile) {
  const std::string tool = findMachineTools().nvdisasm;
  if (tool.empty())
    return Status::error(
        N_("The SASS pane needs nvdisasm, the CUDA toolkit's disassembler, which is not on this "
           "machine: ./setup.sh deps puts NVIDIA's nvidia-cuda-nvdisasm package in the project's "
           ".deps folder (or install the toolkit's cuda-nvdisasm package). The PTX pane works "
           "without it."));
  Result<std::string> text = runOnBinary(tool, {"-gi", "-c"}, cubin);
  if (!text) return text.status();
  return parseNvdisasm(*text, programFile);
}

Result<std::vector<AsmLine>> cuobjdumpListing(const std::string& cubin) {
  const std::string tool = findMachineTools().cuobjdump;
  if (tool.empty())
    return Status::error(
        N_("cuobjdump, the CUDA toolkit's binary dumper, is not on this machine: "
           "./setup.sh deps puts NVIDIA's nvidia-cuda-cuobjdump package in the "
           "project's .deps folder."));
  Result<std::string> text = runOnBinary(tool, {"-sass"}, cubin);
  if (!text) return text.status();
  return parseCuobjdump(*text);
}

}  // namespace cudalab::playground
