#include "playground/compile.hpp"

#include "common/translatable.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <list>
#include <mutex>
#include <memory>
#include <regex>

namespace cudalab::playground {

namespace {

// The name NVRTC gives the learner's program: its messages read "kernel.cu(12): error: ...".

Status nvrtcFailure(nvrtcResult r, const char* what) {
  return Status::error(std::string("NVRTC could not ") + what + ": " + nvrtcGetErrorString(r) +
                       ".");
}

struct ProgramGuard {
  nvrtcProgram p = nullptr;
  ~ProgramGuard() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
    s.pop_back();
  size_t i = 0;
  while (i < s.size() && s[i] == ' ')
    ++i;
  return s.substr(i);
}

// The log's lines, one by one.
std::vector<std::string> lines(std::string_view log) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string_view::npos) end = log.size();
    out.emplace_back(log.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::vector<Diagnostic> parseNvrtcLog(std::string_view log, int maxLine) {
  static const std::regex head(
      R"(^(.*)\((\d+)\): (error|warning|remark|catastrophic error)[^:]*: (.*)$)");
  std::vector<Diagnostic> out;
  for (const std::string& line : lines(log)) {
    std::smatch m;
    if (std::regex_match(line, m, head)) {
      Diagnostic d;
      d.line = std::stoi(m[2]);
      if (d.line > maxLine) d.line = 0;  // in the code the app appended
      // In a header: its name said, no line of the learner's (compileOnce finds the #include).
      if (const std::string file = m[1]; file != kProgramName) {
        d.line = 0;
        d.message = file + ": ";
      }
      const std::string kind = m[3];
      d.severity = kind == "warning"  ? Severity::Warning
                   : kind == "remark" ? Severity::Remark
                                      : Severity::Error;
      d.message += trim(m[4]);
      out.push_back(std::move(d));
    } else if (line.rfind("error", 0) == 0 || line.find(": fatal") != std::string::npos) {
      // Messages without a line (options, the linker).
      out.push_back({0, Severity::Error, trim(line), "nvrtc", nullptr, {}});
    }
  }
  return out;
}

std::vector<PtxasInfo> parsePtxasInfo(std::string_view log) {
  static const std::regex fn(R"(Function properties for (\S+))");
  static const std::regex compiling(R"(Compiling entry function '([^']+)')");
  static const std::regex stack(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs(R"(Used (\d+) registers)");
  static const std::regex bars(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  std::vector<PtxasInfo> out;
  auto current = [&](const std::string& name) -> PtxasInfo& {
    for (PtxasInfo& p : out)
      if (p.function == name) return p;
    out.push_back({});
    out.back().function = name;
    return out.back();
  };
  std::string name;
  for (const std::string& line : lines(log)) {
    std::smatch m;
    if (std::regex_search(line, m, compiling) || std::regex_search(line, m, fn)) {
      name = m[1];
      current(name);
      continue;
    }
    if (name.empty()) continue;
    PtxasInfo& p = current(name);
    if (std::regex_search(line, m, stack)) {
      p.stackBytes = std::stoll(m[1]);
      p.spillStores = std::stoll(m[2]);
      p.spillLoads = std::stoll(m[3]);
    }
    if (std::regex_search(line, m, regs)) p.registers = std::stoi(m[1]);
    if (std::regex_search(line, m, bars)) p.barriers = std::stoi(m[1]);
    if (std::regex_search(line, m, smem)) p.sharedBytes = std::stoll(m[1]);
    if (std::regex_search(line, m, cmem)) p.constBytes = std::stoll(m[1]);
  }
  return out;
}

std::optional<std::vector<int>> ptxParamSizes(std::string_view ptx, const std::string& entry) {
  const std::string head = ".entry " + entry + "(";
  const size_t b = ptx.find(head);
  if (b == std::string_view::npos) return std::nullopt;
  const size_t e = ptx.find(')', b + head.size());
  const std::string list(
      ptx.substr(b + head.size(), e == std::string_view::npos ? 0 : e - b - head.size()));
  static const std::regex param(
      R"(\.param\s+(?:\.align\s+\d+\s+)?\.([bsuf])(\d+)\s+\w+(?:\[(\d+)\])?)");
  std::vector<int> sizes;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), param);
       it != std::sregex_iterator(); ++it) {
    const int bits = std::stoi((*it)[2]);
    const int count = (*it)[3].matched ? std::stoi((*it)[3]) : 1;
    sizes.push_back(bits / 8 * count);
  }
  return sizes;
}

Result<std::string> nvrtcVersion() {
  int major = 0, minor = 0;
  if (nvrtcResult r = ::nvrtcVersion(&major, &minor); r != NVRTC_SUCCESS)
    return nvrtcFailure(r, "report its version");
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

// Earlier results by program text and options: re-running unchanged text is free, with the
// registers and warnings of its compilation.
struct CompileCache {
  std::mutex mutex;
  std::list<std::pair<std::string, CompileResult>> entries;  // most recent first
  static constexpr size_t kMax = 32;
};

CompileCache& cache() {
  static CompileCache c;
  return c;
}

// The 1-based line of `text` where `what` first stands; 0 where it does not.
int lineOf(const std::string& text, std::string_view what) {
  const size_t at = text.find(what);
  if (at == std::string::npos) return 0;
  return static_cast<int>(std::count(text.begin(), text.begin() + long(at), '\n')) + 1;
}

Result<CompileResult> compileUncached(std::string_view source,
                                      const std::vector<std::string>& entries,
                                      const CompileOptions& options);

}  // namespace

Result<CompileResult> compileKernel(std::string_view source,
                                    const std::vector<std::string>& entries,
                                    const CompileOptions& options) {
  std::string key = std::to_string(options.arch) + (options.lineInfo ? "L" : "-") +
                    (options.fast ? "F" : "-") + std::to_string(options.learnerLines);
  for (const std::string& o : options.extra)
    key += "\x1f" + o;
  for (const std::string& e : entries)
    key += "\x1e" + e;
  key += "\x1d";
  key += source;
  CompileCache& c = cache();
  if (options.useCache) {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.entries.begin(); it != c.entries.end(); ++it) {
      if (it->first != key) continue;
      c.entries.splice(c.entries.begin(), c.entries, it);
      CompileResult r = c.entries.front().second;
      r.cached = true;
      r.ms = 0;
      return r;
    }
  }
  Result<CompileResult> r = compileUncached(source, entries, options);
  if (r) {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.entries.emplace_front(std::move(key), *r);
    if (c.entries.size() > CompileCache::kMax) c.entries.pop_back();
  }
  return r;
}

namespace {

bool nvrtcAtLeast(int major, int minor) {
  static const std::pair<int, int> v = [] {
    int ma = 0, mi = 0;
    if (::nvrtcVersion(&ma, &mi) != NVRTC_SUCCESS) return std::pair<int, int>{0, 0};
    return std::pair<int, int>{ma, mi};
  }();
  return v >= std::pair<int, int>{major, minor};
}

}  // namespace

std::vector<std::string> nvrtcOptions(int arch, size_t entries, const CompileOptions& options,
                                      bool minimal) {
  std::vector<std::string> opts = {"--gpu-architecture=sm_" + std::to_string(arch), "--std=c++17",
                                   "-Xptxas", "-v"};
  if (options.lineInfo) opts.push_back("-lineinfo");
  // NVRTC 12.9 and later keep compilations in the driver's cache, also across processes, and serve
  // a repeated program without ptxas's report (no registers, no warnings) and with a time that
  // is not a compilation's. The app keeps its own results (compileKernel's cache) instead.
  if (nvrtcAtLeast(12, 9)) opts.push_back("--no-cache");
  if (options.fast) {
    if (minimal) opts.push_back("-minimal");
    opts.push_back("-pch");
    if (entries > 1) opts.push_back("--split-compile=0");
  }
  // The toolkit's headers (cuda_fp16.h, and cooperative_groups.h, which needs CCCL's cuda/std)
  // when they are where the build found them.
#ifdef CUDALAB_CUDA_INCLUDE_DIR
  for (const std::string& dir :
       {std::string(CUDALAB_CUDA_INCLUDE_DIR), std::string(CUDALAB_CUDA_INCLUDE_DIR) + "/cccl"})
    if (std::error_code ec; std::filesystem::is_directory(dir, ec)) opts.push_back("-I" + dir);
#endif
  for (const std::string& o : options.extra)
    opts.push_back(o);
  return opts;
}

namespace {

Result<CompileResult> compileOnce(std::string_view source, const std::vector<std::string>& entries,
                                  const CompileOptions& options, bool minimal);

// The C and C++ headers learners copy from every tutorial: NVRTC has none of them, and said only
// "cannot open source file". printf and the math functions need no include in a kernel (NVRTC
// declares them), so those headers are empty; the fixed-width integers are declared here; and
// <iostream>, which is for the host, says what to use instead.
struct BuiltInHeader {
  const char* name;
  const char* text;
};
constexpr const char* kIntegers =
    "#pragma once\n"
    "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\n"
    "typedef long long int64_t;\ntypedef unsigned char uint8_t;\n"
    "typedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\ntypedef long long intptr_t;\n"
    "typedef unsigned long long uintptr_t;\n";
constexpr const char* kNothingNeeded =
    "#pragma once\n// printf and the math functions need no include in a kernel.\n";
constexpr const char* kHostOnly =
    "#error \"<iostream> is for the CPU's code: in a kernel, print with printf (no include "
    "needed)\"\n";
constexpr BuiltInHeader kBuiltInHeaders[] = {
    {"cstdio", kNothingNeeded}, {"stdio.h", kNothingNeeded}, {"cmath", kNothingNeeded},
    {"math.h", kNothingNeeded}, {"cstdlib", kNothingNeeded}, {"stdlib.h", kNothingNeeded},
    {"cstdint", kIntegers},     {"stdint.h", kIntegers},     {"iostream", kHostOnly},
};

Result<CompileResult> compileUncached(std::string_view source,
                                      const std::vector<std::string>& entries,
                                      const CompileOptions& options) {
  Result<CompileResult> r = compileOnce(source, entries, options, options.fast);
  // -minimal leaves out declarations a kernel may use after all (cudaTextureObject_t, ...): a
  // compilation that failed (no binary; a missing entry point is another matter) is repeated
  // without it, and that result, with its errors, is the one shown.
  if (options.fast && r && !r->ok && r->cubin.empty()) {
    const double firstMs = r->ms;
    r = compileOnce(source, entries, options, false);
    if (r) r->ms += firstMs;
  }
  return r;
}

Result<CompileResult> compileOnce(std::string_view source, const std::vector<std::string>& entries,
                                  const CompileOptions& options, bool minimal) {
  CompileResult res;
  res.arch = options.arch > 0 ? options.arch : kDefaultArch;
  if (Result<std::string> v = nvrtcVersion()) res.nvrtcVersion = *v;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text(source);
  ProgramGuard prog;
  std::vector<const char*> headerTexts, headerNames;
  for (const BuiltInHeader& h : kBuiltInHeaders) {
    headerNames.push_back(h.name);
    headerTexts.push_back(h.text);
  }
  if (nvrtcResult r = nvrtcCreateProgram(&prog.p, text.c_str(), kProgramName,
                                         static_cast<int>(headerTexts.size()), headerTexts.data(),
                                         headerNames.data());
      r != NVRTC_SUCCESS)
    return nvrtcFailure(r, "create a program");

  const std::vector<std::string> opts = nvrtcOptions(res.arch, entries.size(), options, minimal);
  res.options = opts;
  std::vector<const char*> argv;
  for (const std::string& o : opts)
    argv.push_back(o.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(prog.p, static_cast<int>(argv.size()), argv.data());

  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(prog.p, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    res.log.resize(logSize);
    nvrtcGetProgramLog(prog.p, res.log.data());
    res.log.resize(logSize - 1);
  }
  const int learnerLines = options.learnerLines > 0
                               ? options.learnerLines
                               : static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  res.diagnostics = parseNvrtcLog(res.log, learnerLines);
  // A missing ';' is noticed on the line after it: say where it is missing.
  const std::vector<std::string> sourceLines = lines(text);
  std::vector<Diagnostic> hints;
  for (const Diagnostic& d : res.diagnostics) {
    if (d.line <= 1 || d.line > int(sourceLines.size()) ||
        d.message.find("expected a \";\"") == std::string::npos)
      continue;
    int before = d.line - 1;  // 1-based: the line before, skipping blank ones
    while (before > 1 && trim(sourceLines[size_t(before - 1)]).empty())
      --before;
    const std::string code = trim(sourceLines[size_t(before - 1)]);
    if (code.empty() || code[0] == '#' || code.rfind("//", 0) == 0) continue;
    const char last = code.back();
    if (last == ';' || last == '{' || last == '}') continue;
    const char* format =
        N_("line %s may be missing its ';' at the end (the compiler noticed on "
           "the next line, %s).");
    const std::vector<std::string> values = {std::to_string(before), std::to_string(d.line)};
    hints.push_back(
        {before, Severity::Error, fillFormat(format, values), "cudalab", format, values});
  }
  res.diagnostics.insert(res.diagnostics.begin(), hints.begin(), hints.end());
  // A built-in header's message ("iostream: #error ...") belongs on the line that includes it.
  for (Diagnostic& d : res.diagnostics) {
    if (d.line != 0) continue;
    for (const BuiltInHeader& h : kBuiltInHeaders) {
      const std::string name = h.name;
      if (d.message.rfind(name + ": ", 0) == 0) d.line = lineOf(text, "<" + name + ">");
    }
  }
  res.resources = parsePtxasInfo(res.log);

  if (compiled == NVRTC_SUCCESS) {
    size_t n = 0;
    if (nvrtcGetPTXSize(prog.p, &n) == NVRTC_SUCCESS && n > 1) {
      res.ptx.resize(n);
      nvrtcGetPTX(prog.p, res.ptx.data());
      res.ptx.resize(n - 1);
    }
    if (nvrtcResult r = nvrtcGetCUBINSize(prog.p, &n); r != NVRTC_SUCCESS)
      return nvrtcFailure(r, "size the compiled binary");
    res.cubin.resize(n);
    if (nvrtcResult r = nvrtcGetCUBIN(prog.p, res.cubin.data()); r != NVRTC_SUCCESS)
      return nvrtcFailure(r, "return the compiled binary");
    res.ok = true;
    // Every function the app launches must be there, under its exact name (extern "C"): the PTX
    // declares each kernel as `.entry name(`. (ptxas's report is not enough: NVRTC may reuse an
    // earlier compilation of the same program and say nothing.)
    for (const std::string& e : entries) {
      const bool found = res.ptx.find(".entry " + e + "(") != std::string::npos;
      if (!found) {
        res.ok = false;
        const char* format =
            N_("there is no kernel named \"%s\": the app launches `extern \"C\" __global__ void "
               "%s(...)`. Keep that name, the extern \"C\" (without it C++ changes the name) and "
               "__global__.");
        res.diagnostics.push_back(
            {0, Severity::Error, fillFormat(format, {e, e}), "cudalab", format, {e, e}});
      }
    }
  } else if (compiled != NVRTC_ERROR_COMPILATION) {
    return nvrtcFailure(compiled, "compile");
  } else {
    // A static __shared__ array past 48 KiB: ptxas reports its size and NVRTC fails without a
    // word about it (its log then holds only a warning about the app's precompiled header).
    constexpr long long kStaticSharedLimit = 48 * 1024;
    for (const PtxasInfo& k : res.resources)
      if (k.sharedBytes > kStaticSharedLimit) {
        const char* format =
            N_("%s declares %s bytes of __shared__ memory, and a block may declare at most "
               "49152 (48 KiB). Use a smaller array, or `extern __shared__` with its size as the "
               "launch's third number.");
        const std::vector<std::string> values = {k.function, std::to_string(k.sharedBytes)};
        res.diagnostics.insert(res.diagnostics.begin(),
                               {lineOf(text, "__shared__"), Severity::Error,
                                fillFormat(format, values), "cudalab", format, values});
      }
    if (res.diagnostics.empty())
      res.diagnostics.push_back(
          {0, Severity::Error, "the compilation failed: " + res.log, "nvrtc", nullptr, {}});
  }
  res.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace

}  // namespace cudalab::playground
