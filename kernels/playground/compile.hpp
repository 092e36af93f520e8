// Run-time compilation of the learner's kernel with NVRTC, the toolkit's compiler library (what
// PyCUDA's SourceModule and CuPy's RawModule call). Compiling runs no learner code, so it happens
// in the app's process, on a worker thread; the result is loaded and run by the worker process.
//
//   CompileOptions o;                  // o.arch = 90 for an H100; 0 = the default below
//   Result<CompileResult> r = compileKernel(programSource(ex, text), entryPoints(ex), o);
//   if (!r) show(r.status());         // NVRTC itself failed (not the learner's error)
//   for (const Diagnostic& d : r->diagnostics) markLine(d.line, d.message);
//   if (r->ok) run(r->cubin);
//
// Without a GPU everything here still works: the code is compiled for kDefaultArch, so errors,
// PTX and the registers per thread are shown on a laptop.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

namespace cudalab::playground {

// The file name NVRTC is given for the learner's program: messages and line information name it.
inline constexpr const char* kProgramName = "kernel.cu";

// Compute capability compiled for when there is no GPU to ask: Hopper (sm_90, the H100).
inline constexpr int kDefaultArch = 90;

// How the learner's program is compiled. The defaults are what the lesson uses; each speed option
// keeps the binary the same and only shortens the wait between an edit and its result:
//   -minimal   skips the runtime API's declarations (texture objects, cudaMalloc from device code,
//              ...) that kernels of this course never use; when the program then fails to
//              compile, it is compiled once more without -minimal, so the learner sees the real
//              errors and a kernel that does use them still runs.
//   -pch       NVRTC's automatic precompiled headers: a later compile that includes the same
//              headers (cooperative_groups.h, cuda_fp16.h) reuses them (0.75 s -> 0.13 s here).
//   --split-compile=0  a program with several kernels (the element-wise exercise's float and
//              double) optimised and assembled on several threads.
struct CompileOptions {
  int arch = 0;                    // compute capability x 10 (90 = sm_90); 0: kDefaultArch
  bool lineInfo = true;            // -lineinfo: compute-sanitizer and profilers name source lines
  bool fast = true;                // -minimal (with the fallback above), -pch, --split-compile
  std::vector<std::string> extra;  // further NVRTC options (-D, --use_fast_math, ...)
  bool useCache = true;
  // Lines of the source that are the learner's (the rest the app appended): messages past them
  // are reported at line 0. 0: all of it.
  int learnerLines = 0;  // the same text and options again: the earlier result, at no cost
};

enum class Severity { Error, Warning, Remark };

// One message, from the compiler or from the app's own checks (lint.hpp).
struct Diagnostic {
  int line = 0;  // 1-based line of the learner's text; 0 when the message has none
  Severity severity = Severity::Error;
  std::string message;
  std::string fromWhom = "nvrtc";  // "nvrtc" or "cudalab"
  // cudalab's own checks: message as a format marked N_() with "%s" for each of `values` (the
  // learner's names), so that the app shows it translated (see Status::errorf).
  const char* format = nullptr;
  std::vector<std::string> values;
};

// Per-kernel resources as ptxas reported them (-Xptxas -v).
struct PtxasInfo {
  std::string function;
  int registers = 0;
  long long sharedBytes = 0;  // static __shared__
  long long stackBytes = 0;   // local memory for the stack frame
  long long spillStores = 0, spillLoads = 0;
  long long constBytes = 0;
  int barriers = 0;
};

struct CompileResult {
  bool ok = false;  // the program compiled and every entry point exists
  int arch = 0;
  std::string log;  // NVRTC's log, as it was
  std::vector<Diagnostic> diagnostics;
  std::vector<PtxasInfo> resources;
  std::string ptx;
  std::string cubin;                 // the binary the worker loads (cudaLibraryLoadData)
  double ms = 0;                     // wall time of the compilation (0 when it came from the cache)
  std::vector<std::string> options;  // the NVRTC options of the compilation returned
  bool cached = false;
  std::string nvrtcVersion;
};

// Compiles `source` for the GPU of compute capability `options.arch`, keeps the PTX and the
// binary, and parses the log into diagnostics and ptxas's resource lines. A compile error is not a
// failure of this function: it returns a CompileResult with ok = false and the errors. A missing
// entry point is reported as a diagnostic. Fails only when NVRTC itself cannot run.
Result<CompileResult> compileKernel(std::string_view source,
                                    const std::vector<std::string>& entries,
                                    const CompileOptions& options);

// The options NVRTC is given for a program with `entries` kernels (CompileOptions says why);
// `minimal` false for the repeat of a failed -minimal compilation.
std::vector<std::string> nvrtcOptions(int arch, size_t entries, const CompileOptions& options,
                                      bool minimal = true);

// NVRTC's log lines ("kernel.cu(12): error: identifier \"x\" is undefined", followed by the source
// line and a caret) as diagnostics. Lines past `maxLine` are the app's additions and are reported
// at line 0. Pure; the tests feed it logs.
std::vector<Diagnostic> parseNvrtcLog(std::string_view log, int maxLine);
// ptxas's "-v" lines as one PtxasInfo per function.
std::vector<PtxasInfo> parsePtxasInfo(std::string_view log);

// The sizes in bytes of kernel `entry`'s parameters, read from the PTX's `.entry entry(...)`
// list (`.param .u64` is 8, `.param .u32` 4, `.param .align 8 .b8 x[16]` 16); nullopt when the
// entry is not there.
std::optional<std::vector<int>> ptxParamSizes(std::string_view ptx, const std::string& entry);

// "13.0" when NVRTC can be loaded, with the reason otherwise.
Result<std::string> nvrtcVersion();

}  // namespace cudalab::playground
