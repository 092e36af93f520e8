#include "ui/font_file.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>

namespace cudalab {

namespace {

// Big-endian reads that never leave the bytes: a read outside gives 0 and marks the reader, and
// the check that made it then fails with the reason it was reading.
class Reader {
 public:
  Reader(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}
  bool has(std::uint64_t at, std::uint64_t length) const {
    return at <= size_ && length <= size_ - at;
  }
  std::uint8_t u8(std::uint64_t at) {
    if (!has(at, 1)) return static_cast<std::uint8_t>(fail());
    return data_[at];
  }
  std::uint16_t u16(std::uint64_t at) {
    if (!has(at, 2)) return fail();
    return static_cast<std::uint16_t>(data_[at] << 8 | data_[at + 1]);
  }
  std::uint32_t u32(std::uint64_t at) {
    if (!has(at, 4)) return fail();
    return static_cast<std::uint32_t>(data_[at]) << 24 |
           static_cast<std::uint32_t>(data_[at + 1]) << 16 |
           static_cast<std::uint32_t>(data_[at + 2]) << 8 | data_[at + 3];
  }
  bool tag(std::uint64_t at, const char* t) {
    if (!has(at, 4)) return fail() != 0;
    return std::equal(t, t + 4, data_ + at);
  }
  bool outside() const { return outside_; }

 private:
  std::uint16_t fail() {
    outside_ = true;
    return 0;
  }
  const unsigned char* data_;
  std::size_t size_;
  bool outside_ = false;
};

// The headers stb_truetype accepts as one font (stbtt__isfont).
bool isFont(Reader& r, std::uint64_t at) {
  static const unsigned char kTrueType1[4] = {'1', 0, 0, 0};
  static const unsigned char kOpenType1[4] = {0, 1, 0, 0};
  if (!r.has(at, 4)) return false;
  return r.tag(at, reinterpret_cast<const char*>(kTrueType1)) ||
         r.tag(at, reinterpret_cast<const char*>(kOpenType1)) || r.tag(at, "typ1") ||
         r.tag(at, "OTTO") || r.tag(at, "true");
}

struct Table {
  std::uint64_t at = 0, length = 0;
  bool found = false;
};

// The glyph stb_truetype's stbtt_FindGlyphIndex gives for `cp` under a format-4 character map,
// reading exactly where it reads, so that a map whose search or arrays point outside the file is
// caught by the reader.
std::uint32_t format4Glyph(Reader& r, std::uint64_t map, std::uint32_t cp) {
  const std::uint32_t segcount = r.u16(map + 6) >> 1;
  std::uint32_t searchRange = r.u16(map + 8) >> 1;
  std::uint32_t entrySelector = r.u16(map + 10);
  const std::uint32_t rangeShift = r.u16(map + 12) >> 1;
  const std::uint64_t endCount = map + 14;
  std::uint64_t search = endCount;
  if (cp >= r.u16(search + rangeShift * 2)) search += rangeShift * 2;
  search -= 2;
  while (entrySelector) {
    searchRange >>= 1;
    if (cp > r.u16(search + searchRange * 2)) search += searchRange * 2;
    --entrySelector;
  }
  search += 2;
  const auto item = static_cast<std::uint16_t>((search - endCount) >> 1);
  const std::uint32_t start = r.u16(map + 14 + segcount * 2 + 2 + 2 * item);
  const std::uint32_t last = r.u16(endCount + 2 * item);
  if (cp < start || cp > last) return 0;
  const std::uint32_t offset = r.u16(map + 14 + segcount * 6 + 2 + 2 * item);
  if (offset == 0)
    return static_cast<std::uint16_t>(
        cp + static_cast<std::int16_t>(r.u16(map + 14 + segcount * 4 + 2 + 2 * item)));
  return r.u16(offset + (cp - start) * 2 + map + 14 + segcount * 6 + 2 + 2 * item);
}

// The character map stb_truetype would use (the last Unicode one, as stbtt_InitFont picks it):
// its format must be one stb_truetype reads, and every glyph it gives for the characters ImGui can
// ask for (up to U+FFFF) must exist. "" when so.
std::string checkCharacterMap(Reader& r, const Table& cmap, std::uint32_t numGlyphs) {
  if (cmap.length < 4) return "its character map is cut short";
  const std::uint32_t records = r.u16(cmap.at + 2);
  if (4 + 8ull * records > cmap.length) return "its character map's records run past its end";
  std::uint64_t map = 0;
  for (std::uint32_t i = 0; i < records; ++i) {
    const std::uint64_t record = cmap.at + 4 + 8ull * i;
    const std::uint16_t platform = r.u16(record), encoding = r.u16(record + 2);
    if ((platform == 3 && (encoding == 1 || encoding == 10)) || platform == 0)
      map = cmap.at + r.u32(record + 4);
  }
  if (map == 0) return "it has no Unicode character map";
  const std::uint16_t format = r.u16(map);
  if (r.outside()) return "its character map points past the end of the file";
  auto glyphOk = [&](std::uint32_t g) { return g < numGlyphs; };
  std::string badGlyph = "its character map names glyphs the font does not have";
  switch (format) {
    case 0: {
      const std::uint32_t bytes = r.u16(map + 2);
      if (bytes < 6 || !r.has(map, bytes)) return "its character map is cut short";
      for (std::uint32_t cp = 0; cp + 6 < bytes; ++cp)
        if (!glyphOk(r.u8(map + 6 + cp))) return badGlyph;
      return "";
    }
    case 6: {
      const std::uint32_t count = r.u16(map + 8);
      if (!r.has(map + 10, 2ull * count)) return "its character map is cut short";
      for (std::uint32_t i = 0; i < count; ++i)
        if (!glyphOk(r.u16(map + 10 + 2ull * i))) return badGlyph;
      return "";
    }
    case 4: {
      for (std::uint32_t cp = 0; cp <= 0xFFFF; ++cp) {
        const std::uint32_t g = format4Glyph(r, map, cp);
        if (r.outside()) return "its character map's search reads past the end of the file";
        if (g != 0 && !glyphOk(g)) return badGlyph;
      }
      return "";
    }
    case 12:
    case 13: {
      const std::uint64_t groups = r.u32(map + 12);
      if (r.outside() || !r.has(map + 16, 12 * groups)) return "its character map is cut short";
      for (std::uint64_t i = 0; i < groups; ++i) {
        const std::uint64_t group = map + 16 + 12 * i;
        const std::uint32_t first = r.u32(group), last = r.u32(group + 4), glyph = r.u32(group + 8);
        if (first > last || first > 0xFFFF) continue;  // never asked for
        const std::uint64_t highest =
            format == 12 ? glyph + (std::min(last, 0xFFFFu) - first) : glyph;
        if (highest >= numGlyphs) return badGlyph;
      }
      return "";
    }
    default:
      return "its character map is in a format the text renderer cannot read (format " +
             std::to_string(format) + ")";
  }
}

}  // namespace

std::string checkFontBytes(const unsigned char* data, std::size_t size, int faceIndex) {
  Reader r(data, size);
  if (size < 12) return "it is too short to be a font";
  // Where the face starts, as stbtt_GetFontOffsetForIndex finds it.
  std::uint64_t start = 0;
  if (isFont(r, 0)) {
    if (faceIndex != 0)
      return "it holds one font, so it has no face number " + std::to_string(faceIndex);
  } else if (r.tag(0, "ttcf")) {
    const std::uint32_t version = r.u32(4);
    if (version != 0x00010000 && version != 0x00020000)
      return "its collection header has a version the text renderer does not know";
    const auto faces = static_cast<std::int32_t>(r.u32(8));
    if (faceIndex < 0 || faceIndex >= faces)
      return "it has no face number " + std::to_string(faceIndex);
    start = r.u32(12 + 4ull * static_cast<std::uint32_t>(faceIndex));
    if (r.outside() || !isFont(r, start))
      return "its face number " + std::to_string(faceIndex) + " is not a font";
  } else {
    return "it is not a TrueType or OpenType font";
  }

  // Every table must lie inside the file (a file cut short fails here); the first of each name is
  // the one stb_truetype uses.
  const std::uint32_t count = r.u16(start + 4);
  if (!r.has(start + 12, 16ull * count)) return "its table directory is cut short";
  auto find = [&](const char* name) {
    Table t;
    for (std::uint32_t i = 0; i < count && !t.found; ++i) {
      const std::uint64_t record = start + 12 + 16ull * i;
      if (r.tag(record, name)) t = {r.u32(record + 8), r.u32(record + 12), true};
    }
    return t;
  };
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t record = start + 12 + 16ull * i;
    if (!r.has(r.u32(record + 8), r.u32(record + 12)))
      return "a table ends past the end of the file (is the file cut short?)";
  }
  const Table cmap = find("cmap"), head = find("head"), hhea = find("hhea"), hmtx = find("hmtx"),
              maxp = find("maxp"), glyf = find("glyf"), loca = find("loca"), cff = find("CFF ");
  if (!cmap.found || !head.found || !hhea.found || !hmtx.found || !maxp.found)
    return "it lacks a table every font has";
  if (!glyf.found && !cff.found) return "it has no glyph outlines";
  if (head.length < 54 || hhea.length < 36 || maxp.length < 6)
    return "its header tables are cut short";
  const std::uint32_t numGlyphs = r.u16(maxp.at + 4);
  const std::uint32_t longMetrics = r.u16(hhea.at + 34);
  if (numGlyphs == 0 || longMetrics == 0) return "it declares no glyphs";

  // Each glyph's advance and side bearing (stbtt_GetGlyphHMetrics).
  const std::uint64_t shortMetrics = numGlyphs > longMetrics ? numGlyphs - longMetrics : 0;
  if (4ull * longMetrics + 2 * shortMetrics > hmtx.length)
    return "its table of glyph widths is shorter than its glyphs";

  // Each glyph's place in the outlines (stbtt__GetGlyfOffset), and the 10-byte box at its start.
  if (glyf.found) {
    if (!loca.found) return "it lacks the index of its outlines";
    const std::uint32_t longOffsets = r.u16(head.at + 50);
    if (longOffsets > 1) return "its index of outlines has an unknown format";
    const std::uint64_t entry = longOffsets ? 4 : 2;
    if (entry * (numGlyphs + 1ull) > loca.length) return "its index of outlines is cut short";
    auto place = [&](std::uint32_t g) -> std::uint64_t {
      return longOffsets ? r.u32(loca.at + 4ull * g) : 2ull * r.u16(loca.at + 2ull * g);
    };
    for (std::uint32_t g = 0; g < numGlyphs; ++g) {
      const std::uint64_t from = place(g), to = place(g + 1);
      if (from == to) continue;  // an empty glyph, such as the space
      if (to < from || to > glyf.length || from + 10 > glyf.length)
        return "its index of outlines points outside the outlines";
    }
  }

  std::string map = checkCharacterMap(r, cmap, numGlyphs);
  if (!map.empty()) return map;
  if (r.outside()) return "it is cut short";
  return "";
}

FontBytes readFontFile(const std::string& path, int faceIndex) {
  FontBytes font;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"),
                                                          std::fclose);
  if (!f) {
    font.error = "it cannot be opened";
    return font;
  }
  // Read to the end rather than to a size asked for first: a file being rewritten can change its
  // size in between. The largest CJK collections are about 30 MiB; past 256 MiB it is not a font.
  constexpr std::size_t kLargest = 256u << 20;
  unsigned char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) {
    font.data.insert(font.data.end(), buffer, buffer + got);
    if (font.data.size() > kLargest) {
      font.data.clear();
      font.error = "it is larger than any font (over 256 MiB)";
      return font;
    }
  }
  if (std::ferror(f.get())) {
    font.data.clear();
    font.error = "it could not be read to the end";
    return font;
  }
  font.error = checkFontBytes(font.data.data(), font.data.size(), faceIndex);
  if (!font.error.empty()) font.data.clear();
  return font;
}

}  // namespace cudalab
