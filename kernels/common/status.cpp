#include "common/status.hpp"

#include <cstring>

namespace cudalab {

Status Status::error(std::string message) {
  Status s;
  s.failed_ = true;
  s.message_ = std::move(message);
  return s;
}

Status Status::errorf(std::string format, std::vector<std::string> values) {
  Status s = error(fillFormat(format.c_str(), values));
  s.format_ = std::move(format);
  s.values_ = std::move(values);
  return s;
}

std::string fillFormat(const char* format, const std::vector<std::string>& values) {
  std::string out;
  size_t next = 0;
  for (const char* p = format; *p; ++p) {
    if (p[0] == '%' && p[1] == 's') {
      if (next < values.size()) out += values[next++];
      ++p;
    } else if (p[0] == '%' && p[1] == '%') {
      out += '%';
      ++p;
    } else {
      out += *p;
    }
  }
  return out;
}

Phrase Phrase::of(const Status& s) {
  // errorf's sentences have no file; one that has, or a CUDA error, goes as its whole sentence.
  if (s.format() && s.file().empty()) return {s.format(), s.values()};
  return {"%s", {s.sentence()}};
}

namespace {
// Control characters no format or value contains: the start of a packed phrase, and before each
// value.
constexpr char kPhraseStart = '\x1e', kPhraseValue = '\x1f';
}  // namespace

std::string Phrase::packed() const {
  std::string out(1, kPhraseStart);
  out += format;
  for (const std::string& v : values) {
    out += kPhraseValue;
    out += !v.empty() && v[0] == kPhraseStart ? phraseEnglish(v) : v;
  }
  return out;
}

std::optional<Phrase> Phrase::unpack(const std::string& s) {
  if (s.empty() || s[0] != kPhraseStart) return std::nullopt;
  Phrase p;
  size_t at = s.find(kPhraseValue, 1);
  p.format = s.substr(1, at == std::string::npos ? std::string::npos : at - 1);
  while (at != std::string::npos) {
    const size_t next = s.find(kPhraseValue, at + 1);
    p.values.push_back(
        s.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
    at = next;
  }
  return p;
}

std::string phraseEnglish(const std::string& s) {
  const std::optional<Phrase> p = Phrase::unpack(s);
  return p ? p->english() : s;
}

std::string english(const std::vector<Phrase>& paragraph) {
  std::string text;
  for (const Phrase& p : paragraph) {
    if (!text.empty()) text += ' ';
    text += p.english();
  }
  return text;
}

Status Status::cuda(int code, std::string name, std::string message, std::string expr,
                    std::string file, int line, bool sticky) {
  Status s;
  s.failed_ = true;
  s.code_ = code;
  s.name_ = std::move(name);
  s.message_ = std::move(message);
  s.expr_ = std::move(expr);
  s.file_ = std::move(file);
  s.line_ = line;
  s.sticky_ = sticky;
  return s;
}

std::string Status::sentence() const {
  if (ok()) return "ok";
  std::string out;
  if (code_ != 0) {
    out = "CUDA error " + name_ + " (" + message_ + ")";
    if (!expr_.empty()) out += " in " + expr_;
    if (!file_.empty()) out += " at " + file_ + ":" + std::to_string(line_);
    if (sticky_) out += "; CUDA cannot be used again in this process";
  } else {
    out = message_;
    if (!file_.empty()) out += " (" + file_ + ":" + std::to_string(line_) + ")";
  }
  return out;
}

Status Status::context(const std::string& what) const {
  if (ok()) return *this;
  Status s = *this;
  s.message_ = code_ != 0 ? message_ : what + ": " + message_;
  s.format_.clear();  // the prefix is not in the format: shown in English
  s.values_.clear();
  if (code_ != 0) s.expr_ = what + ": " + expr_;
  return s;
}

const char* projectPath(const char* file) {
  // Paths are compiled in as absolute paths; show them from the project's top folders.
  for (const char* top : {"/kernels/", "/app/", "/tests/"}) {
    if (const char* p = std::strstr(file, top)) return p + 1;
  }
  return file;
}

}  // namespace cudalab
