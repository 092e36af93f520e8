// Font files are checked before stb_truetype reads them: the installed fonts pass, and a file cut
// short, given a character map stb_truetype cannot read, or corrupted at random is refused or,
// where it passes, is read by stb_truetype without a single byte read outside it (the bytes sit
// against a page that faults on any read past their end).
#include <gtest/gtest.h>
#include <stb_truetype.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ui/font_file.hpp"
#include "ui/theme.hpp"

namespace cudalab {
namespace {

std::vector<unsigned char> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string dejaVuSans() {
  return findFontFile("DejaVu Sans", false);
}

// Bytes placed flush against an unreadable page, with another before them: stb_truetype reading
// one byte outside them ends the test with a fault instead of passing by luck.
class GuardedBytes {
 public:
  explicit GuardedBytes(const std::vector<unsigned char>& bytes) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t body = (bytes.size() + page - 1) / page * page;
    length_ = body + 2 * page;
    void* p = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    base_ = static_cast<unsigned char*>(p);
    mprotect(base_, page, PROT_NONE);
    mprotect(base_ + page + body, page, PROT_NONE);
    data_ = base_ + page + body - bytes.size();
    std::memcpy(data_, bytes.data(), bytes.size());
  }
  ~GuardedBytes() {
    if (base_) munmap(base_, length_);
  }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  unsigned char* data() const { return data_; }

 private:
  unsigned char* base_ = nullptr;
  unsigned char* data_ = nullptr;
  std::size_t length_ = 0;
};

// What ImGui asks of stb_truetype for each font before rasterising: the face, its vertical
// metrics, and for each character of its ranges the glyph, its advance and (with `boxes`) its box.
// A CFF font's box runs the glyph's charstring, whose code the check does not read.
void readAsImGuiDoes(const unsigned char* data, int face, bool boxes = true) {
  stbtt_fontinfo info;
  ASSERT_EQ(1, stbtt_InitFont(&info, data, stbtt_GetFontOffsetForIndex(data, face)));
  int ascent = 0, descent = 0, gap = 0;
  stbtt_GetFontVMetrics(&info, &ascent, &descent, &gap);
  for (int cp = 0; cp <= 0xFFFF; ++cp) {
    const int g = stbtt_FindGlyphIndex(&info, cp);
    if (g == 0) continue;
    int advance = 0, bearing = 0, x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    stbtt_GetGlyphHMetrics(&info, g, &advance, &bearing);
    if (boxes) stbtt_GetGlyphBox(&info, g, &x0, &y0, &x1, &y1);
  }
}

unsigned u16(const std::vector<unsigned char>& f, std::size_t at) {
  return static_cast<unsigned>(f[at] << 8 | f[at + 1]);
}
unsigned u32(const std::vector<unsigned char>& f, std::size_t at) {
  return u16(f, at) << 16 | u16(f, at + 2);
}

// Where table `tag` of face `face` starts (0: none), for tests that alter it.
std::size_t tableOffset(const std::vector<unsigned char>& f, int face, const char* tag) {
  const std::size_t start = std::memcmp(f.data(), "ttcf", 4) == 0 ? u32(f, 12 + 4 * face) : 0;
  for (unsigned i = 0; i < u16(f, start + 4); ++i)
    if (std::memcmp(&f[start + 12 + 16 * i], tag, 4) == 0) return u32(f, start + 12 + 16 * i + 8);
  return 0;
}

// The offset of the character map stb_truetype uses (the last Unicode one), for tests that alter
// it.
std::size_t unicodeMapOffset(const std::vector<unsigned char>& f) {
  const std::size_t cmap = tableOffset(f, 0, "cmap");
  std::size_t map = 0;
  for (unsigned i = 0; i < u16(f, cmap + 2); ++i) {
    const std::size_t r = cmap + 4 + 8 * i;
    const unsigned platform = u16(f, r), encoding = u16(f, r + 2);
    if ((platform == 3 && (encoding == 1 || encoding == 10)) || platform == 0)
      map = cmap + u32(f, r + 4);
  }
  return map;
}

TEST(FontFile, TheInstalledFontsPassAndStbTrueTypeReadsThemInBounds) {
  const std::string sans = dejaVuSans();
  if (sans.empty()) GTEST_SKIP() << "DejaVu Sans is not installed (fonts-dejavu-core)";
  for (const std::string& path :
       {sans, findFontFile("DejaVu Sans", true), findFontFile("DejaVu Sans Mono", false)}) {
    const FontBytes f = readFontFile(path, 0);
    ASSERT_EQ("", f.error) << path;
    GuardedBytes guarded(f.data);
    readAsImGuiDoes(guarded.data(), 0);
  }
  // The CJK face is one of several in a collection, and has CFF outlines, not glyf.
  const FontFace cjk = findFontFace("Noto Sans CJK KR", false);
  if (cjk.path.empty()) GTEST_SKIP() << "Noto Sans CJK is not installed (fonts-noto-cjk)";
  const FontBytes f = readFontFile(cjk.path, cjk.index);
  ASSERT_EQ("", f.error) << cjk.path << " face " << cjk.index;
  GuardedBytes guarded(f.data);
  readAsImGuiDoes(guarded.data(), cjk.index);
  EXPECT_NE("", checkFontBytes(f.data.data(), f.data.size(), 1000));
}

// The CFF table's header, name index and top dictionary (where its other parts are found) damaged
// at random, or zeroed: refused, or stb_truetype reads the face without leaving the bytes. Before
// the CFF checks, such damage passed and made stb_truetype assert or read past the file.
TEST(FontFile, ADamagedCffTableIsRefusedOrReadInBounds) {
  const FontFace cjk = findFontFace("Noto Sans CJK KR", false);
  if (cjk.path.empty()) GTEST_SKIP() << "Noto Sans CJK is not installed (fonts-noto-cjk)";
  const std::vector<unsigned char> whole = slurp(cjk.path);
  const std::size_t cff = tableOffset(whole, cjk.index, "CFF ");
  ASSERT_GT(cff, 0u);
  std::vector<unsigned char> zeroed = whole;
  std::fill(zeroed.begin() + static_cast<std::ptrdiff_t>(cff),
            zeroed.begin() + static_cast<std::ptrdiff_t>(cff + 1000), 0);
  EXPECT_NE("", checkFontBytes(zeroed.data(), zeroed.size(), cjk.index));
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<std::size_t> where(cff, cff + 104);
  int refused = 0;
  for (int trial = 0; trial < 24; ++trial) {
    std::vector<unsigned char> f = whole;
    for (int i = 0; i < 1 + trial % 3; ++i) {
      const std::size_t at = where(rng);
      f[at] = static_cast<unsigned char>(rng());
    }
    if (!checkFontBytes(f.data(), f.size(), cjk.index).empty()) {
      ++refused;
      continue;
    }
    GuardedBytes guarded(f);
    readAsImGuiDoes(guarded.data(), cjk.index, false);
  }
  RecordProperty("refused", refused);
}

TEST(FontFile, AFileCutShortIsRefusedWhereverItIsCut) {
  const std::string sans = dejaVuSans();
  if (sans.empty()) GTEST_SKIP() << "DejaVu Sans is not installed (fonts-dejavu-core)";
  const std::vector<unsigned char> whole = slurp(sans);
  ASSERT_GT(whole.size(), 4096u);
  std::mt19937 rng(std::random_device{}());
  // The last table ends at most 3 bytes of padding before the end: every shorter cut loses a part
  // of some table. Short cuts (the header itself) and cuts anywhere after.
  std::vector<std::size_t> cuts = {0, 1, 4, 11, 12, 13, 100, whole.size() / 2, whole.size() - 4};
  std::uniform_int_distribution<std::size_t> anywhere(0, whole.size() - 4);
  for (int i = 0; i < 200; ++i)
    cuts.push_back(anywhere(rng));
  for (std::size_t cut : cuts) {
    const std::string error = checkFontBytes(whole.data(), cut, 0);
    EXPECT_NE("", error) << "cut at " << cut << " of " << whole.size();
  }
  // The same through the file reader, as the app reads it.
  const std::string path = testing::TempDir() + "cut_font.ttf";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(whole.data()), static_cast<std::streamsize>(cuts[7]));
  const FontBytes cut = readFontFile(path, 0);
  EXPECT_NE("", cut.error);
  EXPECT_TRUE(cut.data.empty());
}

// The soak's abort: stb_truetype met a character map it cannot read and asserted.
TEST(FontFile, ACharacterMapStbTrueTypeCannotReadIsRefusedWithItsFormat) {
  const std::string sans = dejaVuSans();
  if (sans.empty()) GTEST_SKIP() << "DejaVu Sans is not installed (fonts-dejavu-core)";
  std::vector<unsigned char> f = slurp(sans);
  const std::size_t map = unicodeMapOffset(f);
  ASSERT_GT(map, 0u);
  for (unsigned format : {2u, 8u, 10u, 14u, 0xABCDu}) {
    f[map] = static_cast<unsigned char>(format >> 8);
    f[map + 1] = static_cast<unsigned char>(format & 0xFF);
    const std::string error = checkFontBytes(f.data(), f.size(), 0);
    EXPECT_NE(std::string::npos, error.find("format " + std::to_string(format))) << error;
  }
}

// A format-12 group whose glyphs wrap past 2^32 back to small numbers: stb_truetype would return a
// negative glyph and read before its tables.
TEST(FontFile, AGroupOfGlyphsThatWrapsAroundIsRefused) {
  const std::string sans = dejaVuSans();
  if (sans.empty()) GTEST_SKIP() << "DejaVu Sans is not installed (fonts-dejavu-core)";
  std::vector<unsigned char> f = slurp(sans);
  const std::size_t map = unicodeMapOffset(f);
  if (u16(f, map) != 12) GTEST_SKIP() << "this DejaVu Sans has no format-12 map";
  ASSERT_EQ("", checkFontBytes(f.data(), f.size(), 0));
  const std::size_t group = map + 16;
  const unsigned span = u32(f, group + 4) - u32(f, group);
  const unsigned start = 0u - span;  // start + span wraps to 0
  for (int i = 0; i < 4; ++i)
    f[group + 8 + static_cast<std::size_t>(i)] = static_cast<unsigned char>(start >> (24 - 8 * i));
  EXPECT_NE("", checkFontBytes(f.data(), f.size(), 0));
}

TEST(FontFile, AFaceThatIsNotThereIsRefused) {
  const std::string sans = dejaVuSans();
  if (sans.empty()) GTEST_SKIP() << "DejaVu Sans is not installed (fonts-dejavu-core)";
  const FontBytes f = readFontFile(sans, 1);
  EXPECT_NE(std::string::npos, f.error.find("no face number 1")) << f.error;
  EXPECT_NE("", readFontFile(sans, -1).error);
}

TEST(FontFile, WhatIsNotAFontIsRefused) {
  EXPECT_NE("", readFontFile(testing::TempDir() + "no such font.ttf", 0).error);
  EXPECT_NE("", checkFontBytes(nullptr, 0, 0));
  std::mt19937 rng(std::random_device{}());
  std::vector<unsigned char> noise(100000);
  for (auto& b : noise)
    b = static_cast<unsigned char>(rng());
  EXPECT_NE("", checkFontBytes(noise.data(), noise.size(), 0));
  // A font's header on noise: its table directory points anywhere.
  const unsigned char header[4] = {0, 1, 0, 0};
  std::memcpy(noise.data(), header, 4);
  EXPECT_NE("", checkFontBytes(noise.data(), noise.size(), 0));
}

// Bytes changed at random in the tables the check covers: each damaged font is refused, or
// stb_truetype reads everything ImGui asks of it without reading outside the bytes.
TEST(FontFile, ARandomlyDamagedFontIsRefusedOrReadInBounds) {
  const std::string sans = dejaVuSans();
  if (sans.empty()) GTEST_SKIP() << "DejaVu Sans is not installed (fonts-dejavu-core)";
  const std::vector<unsigned char> whole = slurp(sans);
  const std::size_t map = unicodeMapOffset(whole);
  std::mt19937 rng(std::random_device{}());
  int refused = 0, passed = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<unsigned char> f = whole;
    // Half the damage lands in the header and table directory, half in the character map.
    std::uniform_int_distribution<std::size_t> where(0, 12 + 16 * 24);
    std::uniform_int_distribution<std::size_t> inMap(map, map + 2000);
    for (int i = 0; i < 1 + trial % 4; ++i)
      f[trial % 2 ? inMap(rng) : where(rng)] = static_cast<unsigned char>(rng());
    if (checkFontBytes(f.data(), f.size(), 0).empty()) {
      ++passed;
      GuardedBytes guarded(f);
      readAsImGuiDoes(guarded.data(), 0);
    } else {
      ++refused;
    }
  }
  EXPECT_EQ(60, refused + passed);
  // Both outcomes happen (about a third pass: a checksum or a name changed, say).
  EXPECT_GT(refused, 0);
  EXPECT_GT(passed, 0);
  RecordProperty("refused", refused);
  RecordProperty("passed", passed);
}

}  // namespace
}  // namespace cudalab
