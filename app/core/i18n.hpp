// The languages of the UI: English (the source's own text, the key of every translation), Korean,
// Simplified Chinese and French, from gettext catalogues. Translators edit assets/i18n/<code>.po;
// the build checks them with msgfmt, compiles them to .mo and embeds those in the binary, and this
// module reads them: no installed locale is needed (gettext's own lookup gives up when the
// system lacks the locale, which minimal systems do).
//
//   ImGui::TextUnformatted(tr("Parameters"));          // marked for xgettext as tr("...")
//   ImGui::Text(tr("Step %d of %d"), step, count);      // a format string keeps its arguments
//   const char* kLabel = N_("Threads per block");       // a table: marked, translated where shown
//   ImGui::TextUnformatted(tr(kLabel));
//   std::string s = trf("%d of %d blocks", a, b);       // a sentence with numbers, translated
//   whole
//
// Never build a sentence from pieces ("At x = " + v + ": values"): a translator cannot reorder
// pieces, and tr() finds no entry for the joined text. Give trf the whole sentence with %s, %d
// or %.3g where the values go (msgfmt checks that each translation keeps the same conversions);
// numbers formatted beforehand (sciText, rate) go in as %s.
//
// tr() returns the English text itself when the catalogue has no translation of it. The
// strings of the course's presets and plans (assets/) are in the same catalogue: the build lists
// them for xgettext (cmake/i18n_assets.py).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "common/translatable.hpp"  // N_("...")

namespace cudalab {

struct Language {
  const char* code;  // "en", "ko", "zh_CN", "fr": the catalogue's file name, settings, --language
  const char* name;  // in itself: "한국어"
  const char* english;  // "Korean"
  // The fontconfig family its script needs beyond DejaVu's (nullptr: none).
  const char* cjkFamily;
};

// Every language, English first.
std::span<const Language> languages();
const Language* findLanguage(std::string_view code);

// The language a locale's name asks for ("ko_KR.UTF-8" -> "ko", "zh_CN" or "zh_SG" -> "zh_CN",
// "fr_CA" -> "fr"), or "en" when cudalab does not speak it. From the environment: LANGUAGE's
// first entry, then LC_ALL, LC_MESSAGES, LANG.
std::string languageForLocale(std::string_view locale);
std::string systemLanguage();

// Makes `code` the UI's language (its catalogue embedded at build time); an unknown code gives
// English. Call between frames: every string drawn after it is translated.
void setLanguage(std::string_view code);
const std::string& currentLanguage();

// The translation of `english` in the current language, or `english` itself. The pointer stays
// valid until the language changes (translations are kept by the catalogue).
const char* tr(const char* english);
// The same, and a packed Phrase (common/status.hpp: a progress line with numbers) translated whole.
std::string tr(const std::string& english);
// printf with the translation of `english_format` (same conversions, same order).
std::string trf(const char* english_format, ...) __attribute__((format(printf, 1, 2)));
// A Status's sentence in the UI's language: an errorf() sentence through its translated format
// (values that are marked texts, such as a parameter's label, translated too), a fixed sentence
// marked N_() through the catalogue, anything else in English.
std::string trStatus(const Status& s);
// A Phrase (a sentence from another process) in the UI's language: its format translated, its
// values filled in, each translated when it is a marked text (numbers have no entry).
std::string trPhrase(const Phrase& p);
// A paragraph of Phrases, each translated, joined with spaces.
std::string trPhrases(const std::vector<Phrase>& paragraph);

// The code points the current language's translations use, for the font atlas (a CJK font is
// rasterised for these alone, so start-up stays fast and the atlas small).
std::vector<std::uint32_t> translationCodepoints();

// ---- For tests and tools ---------------------------------------------------------------------

// One entry of a .po or .pot file.
struct PoEntry {
  std::string msgid, msgstr;
  bool fuzzy = false;
};
// Parses gettext's .po/.pot text (msgctxt and plurals are not used by cudalab and are refused).
std::vector<PoEntry> parsePo(std::string_view text, std::string* error = nullptr);
// How many messages the language's catalogue holds (0 for English).
int catalogueSize(std::string_view code);

}  // namespace cudalab
