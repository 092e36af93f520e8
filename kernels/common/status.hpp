// Status: errors as values.
//
// Every fallible call in cudalab returns a Status (or a Result<T>, which is a value or a Status).
// The app shows Status::sentence() to the user; it never exits or aborts on an error. A Status made
// from a CUDA error keeps the failing expression, the file and line, CUDA's error name and message,
// and whether the error is sticky (the context is unusable until the device is reset).
//
//   Status s = doSomething();
//   if (!s) showError(s.sentence());
//
//   Result<int> r = countThings();
//   if (!r) return r.status();
//   use(*r);
//
// CUDA calls are checked with CUDALAB_CUDA_TRY (see cuda_check.hpp); other Status-returning calls
// are chained with CUDALAB_TRY.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cudalab {

class Status {
 public:
  Status() = default;  // success

  // A failure described by one sentence written for the user (validation, I/O, bad input).
  static Status error(std::string message);
  // The same, for a sentence with values that the app can show translated: `format` is English,
  // marked N_() for the catalogue, with "%s" where each of `values` goes (numbers formatted by the
  // caller; "%%" is a percent sign). message() is the English sentence.
  //   return Status::errorf(N_("%s bins do not fit a block of %s threads."), {bins, threads});
  static Status errorf(std::string format, std::vector<std::string> values);
  // A failure returned by the CUDA runtime; `expr`, `file` and `line` locate the failing call.
  static Status cuda(int code, std::string name, std::string message, std::string expr,
                     std::string file, int line, bool sticky);

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }

  const std::string& message() const { return message_; }
  // errorf's format and values (nullptr and none otherwise, and after context()).
  const char* format() const { return format_.empty() ? nullptr : format_.c_str(); }
  const std::vector<std::string>& values() const { return values_; }
  const std::string& expression() const { return expr_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int cudaCode() const { return code_; }  // 0 when the error did not come from CUDA
  const std::string& cudaName() const { return name_; }
  bool sticky() const { return sticky_; }

  // One line for the status bar and stderr, e.g.
  // "CUDA error cudaErrorMemoryAllocation (out of memory) in cudaMalloc(&p, bytes) at
  // kernels/device/device.cu:88".
  std::string sentence() const;

  // Returns a copy whose message is prefixed with what the caller was doing ("measuring: ...").
  Status context(const std::string& what) const;

 private:
  bool failed_ = false;
  bool sticky_ = false;
  int code_ = 0;
  int line_ = 0;
  std::string message_, name_, expr_, file_;
  std::string format_;
  std::vector<std::string> values_;
};

// `format` with "%s" replaced by each of `values` in turn and "%%" by "%" (errorf's sentences).
std::string fillFormat(const char* format, const std::vector<std::string>& values);

// A sentence with values that crosses a process boundary (the playground's worker, the counters'
// helper) or a channel that carries only text (a job's progress line), and is shown translated on
// the other side, where errorf's `const char*` format cannot go: `format` is the English text,
// marked N_() where it is written, with "%s" for each of `values` (numbers formatted by the
// writer, or marked texts, which the app translates too: trPhrase in app/core/i18n.hpp). The app
// never parses english() back; it serves logs, the command line and the benchmarks' tables.
//   Phrase{N_("%s: the model counts %s, the GPU %s"), {what, want, got}}
//   progress(f, Phrase{N_("N = %s: %s"), {std::to_string(n), what}}.packed());
struct Phrase {
  std::string format;  // empty: no sentence
  std::vector<std::string> values;
  bool empty() const { return format.empty(); }
  std::string english() const { return fillFormat(format.c_str(), values); }
  bool operator==(const Phrase&) const = default;
  // A Status's sentence: errorf's format and values, or the whole sentence as the one value of
  // "%s" (so a fixed sentence marked N_() still translates whole).
  static Phrase of(const Status& s);
  // The phrase packed into one string (control characters before the format and each value), for
  // a channel of plain text: the app's tr(std::string) unpacks and translates it. A value that is
  // itself packed goes in as its English.
  std::string packed() const;
  // The phrase `s` packs; nullopt for a plain string.
  static std::optional<Phrase> unpack(const std::string& s);
};

// The English of a string that may be a packed phrase (a plain one is returned as it is).
std::string phraseEnglish(const std::string& s);
// The sentences of a paragraph in English, joined with spaces.
std::string english(const std::vector<Phrase>& paragraph);

// A value or the Status that explains why there is none.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose
  // A Result made from a success Status would hold neither a value nor an error: it becomes an
  // error that says so, instead of an "ok" that has no value.
  Result(Status s)  // NOLINT: implicit on purpose
      : v_(s.ok() ? Status::error("Internal error: a result was made without a value.")
                  : std::move(s)) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

// Strips the build machine's directory from __FILE__ so messages show project paths.
const char* projectPath(const char* file);

}  // namespace cudalab

#define CUDALAB_TRY(expr)                       \
  do {                                          \
    ::cudalab::Status cudalab_try_s_ = (expr);  \
    if (!cudalab_try_s_) return cudalab_try_s_; \
  } while (0)
