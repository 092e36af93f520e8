// The UI's languages: gettext catalogues compiled by msgfmt and embedded; see i18n.hpp.
#include "core/i18n.hpp"

#include <cstdarg>
#include <cstdio>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_map>

#include "common/embedded.hpp"
#include "common/table.hpp"

namespace cudalab::embedded {
extern const EmbeddedBinary kCatalogues[];
extern const int kCatalogues_count;
}  // namespace cudalab::embedded

namespace cudalab {

namespace {

constexpr Language kLanguages[] = {
    {"en", "English", "English", nullptr},
    {"ko", "한국어", "Korean", "Noto Sans CJK KR"},
    {"zh_CN", "简体中文", "Simplified Chinese", "Noto Sans CJK SC"},
    {"fr", "Français", "French", nullptr},
};

// Looked up by the text as it is (tr() gets a const char* every frame): no string is made.
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using Messages = std::unordered_map<std::string, std::string, TextHash, std::equal_to<>>;

struct Catalogue {
  std::string code = "en";
  Messages messages;
};

Catalogue& current() {
  static Catalogue c;
  return c;
}

std::uint32_t read32(const unsigned char* p, bool swap) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return swap ? __builtin_bswap32(v) : v;
}

// The messages of a .mo file (GNU gettext's binary catalogue: a header, then two tables of
// (length, offset) pairs, the originals and their translations). Bad data gives what could be read.
Messages readMo(const unsigned char* data, unsigned long size) {
  Messages out;
  if (size < 28) return out;
  const std::uint32_t magic = read32(data, false);
  const bool swap = magic == 0xde120495u;
  if (magic != 0x950412deu && !swap) return out;
  const std::uint32_t n = read32(data + 8, swap), orig = read32(data + 12, swap),
                      trans = read32(data + 16, swap);
  auto text = [&](std::uint32_t table, std::uint32_t i, std::string& s) {
    const unsigned long at = table + 8ul * i;
    if (at + 8 > size) return false;
    const std::uint32_t len = read32(data + at, swap), off = read32(data + at + 4, swap);
    if (static_cast<unsigned long>(off) + len > size) return false;
    s.assign(reinterpret_cast<const char*>(data + off), len);
    return true;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string id, str;
    if (!text(orig, i, id) || !text(trans, i, str)) break;
    if (id.empty() || str.empty()) continue;  // the header; untranslated
    out.emplace(std::move(id), std::move(str));
  }
  return out;
}

const embedded::EmbeddedBinary* moFile(std::string_view code) {
  const std::string name = std::string(code) + ".mo";
  for (int i = 0; i < embedded::kCatalogues_count; ++i)
    if (name == embedded::kCatalogues[i].name) return &embedded::kCatalogues[i];
  return nullptr;
}

// UTF-8 to code points (bad bytes are skipped).
void codepoints(const std::string& s, std::set<std::uint32_t>& into) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      ++i;
      continue;
    }
    std::uint32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
    for (int k = 1; k < len; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    into.insert(cp);
    i += len;
  }
}

}  // namespace

std::span<const Language> languages() {
  return kLanguages;
}

const Language* findLanguage(std::string_view code) {
  return findRow(kLanguages, &Language::code, code);
}

std::string languageForLocale(std::string_view locale) {
  if (locale.rfind("ko", 0) == 0) return "ko";
  if (locale.rfind("zh", 0) == 0) {
    // Traditional Chinese (Taiwan, Hong Kong) is not Simplified; cudalab has no catalogue for it.
    if (locale.rfind("zh_TW", 0) == 0 || locale.rfind("zh_HK", 0) == 0) return "en";
    return "zh_CN";
  }
  if (locale.rfind("fr", 0) == 0) return "fr";
  return "en";
}

std::string systemLanguage() {
  for (const char* var : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    std::string_view s(v);
    if (std::string_view(var) == "LANGUAGE") s = s.substr(0, s.find(':'));
    if (s == "C" || s == "POSIX" || s.rfind("C.", 0) == 0) return "en";
    return languageForLocale(s);
  }
  return "en";
}

void setLanguage(std::string_view code) {
  Catalogue& c = current();
  const Language* l = findLanguage(code);
  const std::string want = l ? l->code : "en";
  if (want == c.code) return;
  c.code = want;
  c.messages.clear();
  if (const embedded::EmbeddedBinary* mo = moFile(want)) c.messages = readMo(mo->data, mo->size);
}

const std::string& currentLanguage() {
  return current().code;
}

const char* tr(const char* english) {
  if (!english || !*english) return english;
  const Catalogue& c = current();
  if (c.messages.empty()) return english;
  const auto it = c.messages.find(std::string_view(english));
  return it == c.messages.end() ? english : it->second.c_str();
}

std::string tr(const std::string& english) {
  // A packed Phrase (a progress line with numbers, common/status.hpp) is translated whole.
  if (std::optional<Phrase> p = Phrase::unpack(english)) return trPhrase(*p);
  return tr(english.c_str());
}

std::string trf(const char* english_format, ...) {
  const char* fmt = tr(english_format);
  va_list args, again;
  va_start(args, english_format);
  va_copy(again, args);
  char small[256];
  // The translation's conversions match the English (msgfmt --check); the compiler checked those.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const int n = std::vsnprintf(small, sizeof small, fmt, args);
  std::string out;
  if (n >= static_cast<int>(sizeof small)) {
    out.resize(static_cast<size_t>(n));
    std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  } else if (n > 0) {
    out.assign(small, static_cast<size_t>(n));
  }
#pragma GCC diagnostic pop
  va_end(again);
  va_end(args);
  return out;
}

std::string trStatus(const Status& s) {
  if (s.ok() || !s.format()) return tr(s.sentence());
  std::string out = trPhrase({s.format(), s.values()});
  if (!s.file().empty()) out += " (" + s.file() + ":" + std::to_string(s.line()) + ")";
  return out;
}

std::string trPhrase(const Phrase& p) {
  // A value that is itself a marked text (a parameter's label) is shown translated; numbers have
  // no entry and stay as they are.
  std::vector<std::string> values;
  values.reserve(p.values.size());
  for (const std::string& v : p.values)
    values.push_back(tr(v));
  return fillFormat(tr(p.format.c_str()), values);
}

std::string trPhrases(const std::vector<Phrase>& paragraph) {
  std::string text;
  for (const Phrase& p : paragraph) {
    if (!text.empty()) text += ' ';
    text += trPhrase(p);
  }
  return text;
}

std::vector<std::uint32_t> translationCodepoints() {
  std::set<std::uint32_t> all;
  for (const auto& [id, str] : current().messages)
    codepoints(str, all);
  return {all.begin(), all.end()};
}

int catalogueSize(std::string_view code) {
  const embedded::EmbeddedBinary* mo = moFile(code);
  return mo ? static_cast<int>(readMo(mo->data, mo->size).size()) : 0;
}

// ---- .po text --------------------------------------------------------------------------------

namespace {

// A C string literal's contents after the opening quote, escapes resolved.
bool unquote(std::string_view line, std::string& out) {
  const size_t a = line.find('"'), b = line.rfind('"');
  if (a == std::string_view::npos || b <= a) return false;
  for (size_t i = a + 1; i < b; ++i) {
    char c = line[i];
    if (c == '\\' && i + 1 < b) {
      const char e = line[++i];
      c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    out += c;
  }
  return true;
}

}  // namespace

std::vector<PoEntry> parsePo(std::string_view text, std::string* error) {
  std::vector<PoEntry> out;
  PoEntry cur;
  bool fuzzy = false, any = false;
  std::string* into = nullptr;
  auto finish = [&] {
    if (any) {
      cur.fuzzy = fuzzy;
      out.push_back(std::move(cur));
    }
    cur = PoEntry{};
    fuzzy = any = false;
    into = nullptr;
  };
  size_t lineNo = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineNo;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.remove_suffix(1);
    if (line.empty()) {
      finish();
      continue;
    }
    if (line.rfind("#~", 0) == 0) continue;  // obsolete entries are not messages
    if (line.rfind("#,", 0) == 0) {
      if (line.find("fuzzy") != std::string_view::npos) fuzzy = true;
      continue;
    }
    if (line[0] == '#') continue;
    if (line.rfind("msgctxt", 0) == 0 || line.rfind("msgid_plural", 0) == 0 ||
        line.rfind("msgstr[", 0) == 0) {
      if (error) *error = "line " + std::to_string(lineNo) + ": contexts and plurals are not used";
      return {};
    }
    if (line.rfind("msgid ", 0) == 0) {
      if (any && into == &cur.msgstr) finish();
      any = true;
      into = &cur.msgid;
    } else if (line.rfind("msgstr ", 0) == 0) {
      into = &cur.msgstr;
    } else if (line[0] != '"') {
      if (error) *error = "line " + std::to_string(lineNo) + ": \"" + std::string(line) + "\"";
      return {};
    }
    if (!into || !unquote(line, *into)) {
      if (error) *error = "line " + std::to_string(lineNo) + ": a string was expected";
      return {};
    }
  }
  finish();
  return out;
}

}  // namespace cudalab
