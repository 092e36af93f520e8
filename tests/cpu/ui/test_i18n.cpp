// The UI's languages (core/i18n.hpp): every catalogue translates every text of the template the
// build extracts from the sources and assets, and holds no text the source no longer has; locales
// choose the language; lookups fall back to English; every character of every translation has a
// glyph in the fonts the theme builds for that language (no '?' on a Korean or Chinese screen);
// and every lesson renders in every language.
#include <gtest/gtest.h>

#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "common/params.hpp"
#include "lessons/registry.hpp"
#include "platform/headless_egl.hpp"
#include "commands/restart.hpp"
#include "core/i18n.hpp"
#include "ui/renderer.hpp"
#include "ui/settings.hpp"
#include "ui/shell.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"
#include "tests/without_gpu.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Restores English when a test ends, whatever it chose.
struct English {
  ~English() { setLanguage("en"); }
};

TEST(I18n, EveryCatalogueIsCompleteAndCurrent) {
  std::string error;
  const std::vector<PoEntry> pot = parsePo(readText(CUDALAB_POT), &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_GT(pot.size(), 100u) << "the template holds the marked texts";
  std::set<std::string> current;
  for (const PoEntry& e : pot)
    if (!e.msgid.empty()) current.insert(e.msgid);
  int languagesSeen = 0;
  for (const Language& l : languages()) {
    if (std::string(l.code) == "en") continue;
    ++languagesSeen;
    SCOPED_TRACE(l.code);
    const fs::path po = fs::path(CUDALAB_I18N_DIR) / (std::string(l.code) + ".po");
    ASSERT_TRUE(fs::exists(po)) << po;
    const std::vector<PoEntry> entries = parsePo(readText(po), &error);
    ASSERT_TRUE(error.empty()) << error;
    std::map<std::string, const PoEntry*> byId;
    for (const PoEntry& e : entries)
      if (!e.msgid.empty()) byId[e.msgid] = &e;
    std::vector<std::string> untranslated, stale;
    for (const std::string& id : current) {
      const auto it = byId.find(id);
      if (it == byId.end() || it->second->msgstr.empty() || it->second->fuzzy)
        untranslated.push_back(id);
    }
    for (const auto& [id, e] : byId)
      if (!current.count(id)) stale.push_back(id);
    // A label's hidden id ("Run##ladder") is the control's identity in ImGui: a translation keeps
    // it byte for byte, or the control would change identity with the language.
    for (const auto& [id, e] : byId) {
      const auto hash = id.find("##");
      if (hash == std::string::npos || e->msgstr.empty()) continue;
      const auto tHash = e->msgstr.find("##");
      EXPECT_TRUE(tHash != std::string::npos && e->msgstr.substr(tHash) == id.substr(hash))
          << "\"" << id << "\" -> \"" << e->msgstr << "\" loses its id";
    }
    // Run tools/i18n.sh to merge the template in, then translate what it lists.
    EXPECT_TRUE(untranslated.empty())
        << untranslated.size() << " untranslated (or fuzzy), the first: \"" << untranslated.front()
        << "\"";
    EXPECT_TRUE(stale.empty()) << stale.size() << " stale, the first: \"" << stale.front() << "\"";
    EXPECT_EQ(catalogueSize(l.code), static_cast<int>(byId.size() - untranslated.size()))
        << "the binary embeds this catalogue as built";
  }
  EXPECT_EQ(languagesSeen, 3);
}

TEST(I18n, LocalesChooseTheLanguage) {
  EXPECT_EQ(languageForLocale("ko_KR.UTF-8"), "ko");
  EXPECT_EQ(languageForLocale("zh_CN.UTF-8"), "zh_CN");
  EXPECT_EQ(languageForLocale("zh_SG"), "zh_CN");
  EXPECT_EQ(languageForLocale("zh_TW.UTF-8"), "en") << "Traditional Chinese is another catalogue";
  EXPECT_EQ(languageForLocale("fr_CA.UTF-8"), "fr");
  EXPECT_EQ(languageForLocale("de_DE.UTF-8"), "en");
  const char* keep = std::getenv("LANGUAGE");
  const std::string saved = keep ? keep : "";
  setenv("LANGUAGE", "fr:en", 1);
  EXPECT_EQ(systemLanguage(), "fr");
  setenv("LANGUAGE", "C", 1);
  EXPECT_EQ(systemLanguage(), "en");
  if (keep)
    setenv("LANGUAGE", saved.c_str(), 1);
  else
    unsetenv("LANGUAGE");
}

TEST(I18n, LookupsFallBackToEnglish) {
  English restore;
  setLanguage("ko");
  EXPECT_EQ(currentLanguage(), "ko");
  EXPECT_STREQ(tr("Lessons"), "레슨");
  EXPECT_STREQ(tr("no such text in any catalogue"), "no such text in any catalogue");
  EXPECT_STREQ(tr(""), "");
  setLanguage("xx");
  EXPECT_EQ(currentLanguage(), "en");
  EXPECT_STREQ(tr("Lessons"), "Lessons");
  std::string error;
  EXPECT_TRUE(parsePo("msgid \"a\"\nmsgid_plural \"b\"\n", &error).empty());
  EXPECT_FALSE(error.empty()) << "plurals are refused";
  const std::vector<PoEntry> two = parsePo(
      "#, fuzzy\nmsgid \"a\"\nmsgstr \"\"\n\"b\\n\"\n\nmsgid \"c\"\nmsgstr \"d\"\n", &error);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_TRUE(two[0].fuzzy);
  EXPECT_EQ(two[0].msgstr, "b\n");
  EXPECT_EQ(two[1].msgstr, "d");
}

// A refusal made in the kernels (Status::errorf) reaches the learner translated, its values (the
// parameter's label among them) in their places; a sentence without a format stays as it is.
TEST(I18n, RefusalsWithValuesAreTranslatedWhole) {
  English restore;
  const ParamSpec spec{.id = "threads",
                       .label = "Threads per block",
                       .min = 32,
                       .max = 1024,
                       .defaultValue = 256,
                       .help = ""};
  const Status s = checkRange(spec, 4096);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(trStatus(s),
            "Threads per block must be between 32 and 1024; 4096 is outside that range.");
  setLanguage("ko");
  const std::string ko = trStatus(s);
  EXPECT_EQ(ko, std::string(tr("Threads per block")) +
                    "은(는) 32에서 1024 사이여야 합니다. 4096은(는) "
                    "이 범위를 벗어납니다.");
  EXPECT_EQ(s.message(),
            "Threads per block must be between 32 and 1024; 4096 is outside that range.")
      << "the English sentence is kept for logs and the command line";
  EXPECT_EQ(trStatus(Status::error("not in any catalogue")), "not in any catalogue");
  setLanguage("fr");
  EXPECT_NE(trStatus(checkRange(spec, 7.5)).find("7.5"), std::string::npos);
}

// A kernel's progress line with numbers (a packed Phrase, common/status.hpp) is translated whole,
// and a marked word among its values too; a settings file's problem, found before the language is
// known, is translated when the status bar shows it.
TEST(I18n, PhrasesAndSettingsProblemsAreTranslatedWhenShown) {
  English restore;
  const std::string line = Phrase{N_("N = %s: %s"), {"1,024", N_("random numbers")}}.packed();
  EXPECT_EQ(tr(line), "N = 1,024: random numbers");
  setLanguage("fr");
  EXPECT_EQ(tr(line), std::string("N = 1,024 : ") + tr("random numbers"));
  EXPECT_EQ(tr(Phrase{N_("stride %s"), {"4"}}.packed()), "pas 4");
  EXPECT_EQ(tr(std::string("stride 4")), "stride 4") << "English built in pieces has no entry";

  const std::string dir = ::testing::TempDir() + "cudalab-i18n-settings";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/settings.json";
  std::ofstream(path) << "[1, 2]";
  Status problem;
  loadSettings(path, &problem);
  ASSERT_FALSE(problem.ok());
  EXPECT_EQ(problem.message(), "Settings in " + path +
                                   " could not be read (it does not hold a JSON object); using "
                                   "the defaults.");
  EXPECT_EQ(trStatus(problem), "Les réglages de " + path +
                                   " n'ont pas pu être lus (le fichier ne contient pas d'objet "
                                   "JSON) ; les valeurs par défaut sont utilisées.");
}

// A sentence from another process (a counters reading's row name and mismatches, a playground
// comparison's failure) arrives as its format and values, and is shown translated from those:
// nothing is read back out of the English.
TEST(I18n, PhrasesFromAnotherProcessAreTranslatedFromTheirFormat) {
  English restore;
  const Phrase label{"yours: %s threads x %s blocks", {"128", "8"}};
  const Phrase mismatch{"%s: the model counts %s, the GPU %s",
                        {"global load sectors", "4", "nothing"}};
  EXPECT_EQ(trPhrase(label), label.english());
  EXPECT_EQ(trPhrase(mismatch), "global load sectors: the model counts 4, the GPU nothing");
  setLanguage("fr");
  EXPECT_EQ(trPhrase(label), "le vôtre : 128 threads x 8 blocs");
  // Values that are marked texts are translated too; numbers stay.
  EXPECT_EQ(trPhrase(mismatch), std::string(tr("global load sectors")) + " : le modèle en compte " +
                                    "4, le GPU : " + tr("nothing"));
  EXPECT_NE(std::string(tr("nothing")), "nothing");
  // A Status without a format goes whole and translates as a fixed sentence, or stays English.
  EXPECT_EQ(trPhrase(Phrase::of(Status::error("Measurement cancelled."))),
            tr("Measurement cancelled."));
  EXPECT_EQ(trPhrase(Phrase::of(Status::error("not in any catalogue"))), "not in any catalogue");
}

TEST(I18n, EveryTranslatedCharacterHasAGlyph) {
  English restore;
  for (const Language& l : languages()) {
    SCOPED_TRACE(l.code);
    setLanguage(l.code);
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini where the tests run
    Theme theme;
    theme.apply("light", 1.0f, l.code);
    const Fonts& f = theme.fonts();
    int missing = 0;
    std::string first;
    for (std::uint32_t cp : translationCodepoints()) {
      if (cp < 0x20 || cp == 0x7F || cp > 0xFFFF) continue;  // control characters; ImWchar16
      for (ImFont* font : {f.regular, f.bold, f.heading, f.mono})
        if (!font->FindGlyphNoFallback(static_cast<ImWchar>(cp))) {
          if (missing++ == 0) first = "U+" + std::to_string(cp);
        }
    }
    EXPECT_EQ(missing, 0) << "missing glyphs (fonts-noto-cjk installed?), the first " << first
                          << "; fonts: " << f.source;
    ImGui::DestroyContext();
  }
}

// Every lesson drawn in every language, as a screenshot would be: nothing crashes, nothing is
// blank. CUDALAB_TEST_PICTURES=DIR keeps the pictures to look at.
TEST(I18n, EveryLessonRendersInEveryLanguage) {
  HeadlessContext gl;
  if (Status s = gl.create(-1); !s) GTEST_SKIP() << "no EGL here: " << s.sentence();
  English restore;
  const char* dir = std::getenv("CUDALAB_TEST_PICTURES");
  for (const Language& l : languages()) {
    SCOPED_TRACE(l.code);
    Settings settings;
    settings.language = l.code;
    settings.uiScale = 1.5f;
    Shell shell(lessonRegistry(), settings, withoutGpu(), "test", /*headless=*/true);
    UiRenderer renderer(shell, settings);
    ASSERT_TRUE(renderer.init(nullptr).ok());
    for (const LessonEntry& e : lessonRegistry()) {
      SCOPED_TRACE(e.info->id);
      ASSERT_TRUE(shell.selectLesson(e.info->id));
      // Not waiting for the lessons' first measurements: the texts are what is tested here.
      Result<Image> img = renderer.capture(1280, 720, 1, false, "", 3, 0);
      ASSERT_TRUE(img.ok()) << img.status().sentence();
      EXPECT_FALSE(pictureIsBlank(*img));
      if (dir) (void)writePng(*img, std::string(dir) + "/" + l.code + "-" + e.info->id + ".png");
    }
    for (const auto& lesson : shell.lessons())
      lesson->cancelAll();
  }
}

}  // namespace
}  // namespace cudalab

namespace cudalab {
namespace {

// The wrapping every paragraph goes through (ui/widgets.hpp, wrappedText): lines end at spaces
// and between Chinese characters, never inside a number, never before closing punctuation; a
// word wider than the line is cut; a newline ends a line.
TEST(Wrapping, NumbersStayWholeAndChineseWraps) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini where the tests run
  io.DisplaySize = ImVec2(800, 600);
  io.Fonts->AddFontDefault();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  ImGui::NewFrame();
  const float em = ImGui::CalcTextSize("M").x;
  auto lines = [](const char* text, float width) {
    std::vector<std::string> out;
    int from = 0;
    for (int end : wrapPoints(text, width)) {
      out.emplace_back(text + from, text + end);
      from = end;
      while (text[from] == ' ' || text[from] == '\n')
        ++from;
    }
    return out;
  };
  // ImGui's own wrapping ends a line after '.' or ','; here a line ends only at a space (when
  // every word fits the line), so numbers stay whole.
  for (const char* text : {"Exact sum 3477.833680753181 (accumulated in double-double)",
                           "32 blocks of 128 threads for 4,096 elements, and no guard"})
    for (float width = 18 * em; width < 40 * em; width += em) {
      const std::string t = text;
      for (int end : wrapPoints(text, width))
        EXPECT_TRUE(end == int(t.size()) || t[size_t(end)] == ' ')
            << "a line ends inside \"" << t.substr(size_t(std::max(0, end - 4)), 8) << "\" at "
            << width;
      for (const std::string& line : lines(text, width))
        EXPECT_LE(ImGui::CalcTextSize(line.c_str()).x, width + 0.5f) << line;
    }
  // Chinese without spaces wraps between characters, not before "？".
  const char* zh = "每个元素都恰好被写入一次吗？";
  const std::vector<std::string> zhLines = lines(zh, 5 * em);
  EXPECT_GT(zhLines.size(), 1u);
  for (size_t i = 1; i < zhLines.size(); ++i)
    EXPECT_NE(zhLines[i].rfind("？", 0), 0u) << "a line starts with the question mark";
  // A word wider than the line is cut; a newline ends a line.
  EXPECT_GT(lines("Supercalifragilisticexpialidocious", 5 * em).size(), 1u);
  EXPECT_EQ(lines("one\ntwo", 40 * em), (std::vector<std::string>{"one", "two"}));
  ImGui::EndFrame();
  ImGui::DestroyContext();
}

// A machine without the CJK font (the lent GPU server had none): Korean draws as '?', so cudalab
// says why and what to install, on stderr and in the status bar, in English.
TEST(Fonts, AMissingScriptFontIsSaid) {
  const std::string dir = ::testing::TempDir() + "cudalab-no-cjk";
  std::filesystem::create_directories(dir);
  // A fontconfig that knows DejaVu only.
  const std::string conf = dir + "/fonts.conf", log = dir + "/log.txt", png = dir + "/ko.png";
  std::ofstream(conf) << "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n"
                         "<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir>"
                         "<cachedir>"
                      << dir << "/cache</cachedir></fontconfig>\n";
  const std::string cmd = "FONTCONFIG_FILE='" + conf + "' HOME='" + dir + "' '" + CUDALAB_BINARY +
                          "' --headless --lesson device --language ko --size 800x600 "
                          "--screenshot '" +
                          png + "' >'" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string out = readText(log);
  if (out.find("EGL") != std::string::npos && out.find("wrote") == std::string::npos)
    GTEST_SKIP() << "no headless GL here: " << out;
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("No font for Korean (Noto Sans CJK KR) was found, so its text draws as '?'. "
                     "Install fonts-noto-cjk"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace cudalab
