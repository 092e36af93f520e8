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
            format == 12 ? std::uint64_t{glyph} + (std::min(last, 0xFFFFu) - first) : glyph;
        if (highest >= numGlyphs) return badGlyph;
      }
      return "";
    }
    default:
      return "its character map is in a format the text renderer cannot read (format " +
             std::to_string(format) + ")";
  }
}

// The CFF table of an OpenType font with PostScript outlines (Noto Sans CJK's), as
// stbtt_InitFont and its glyph lookups read it: the header, the name, top-dictionary, string and
// global-subroutine indexes, the top dictionary's operands, each Private dictionary and its
// subroutines, the CharStrings index and, for a CID font, the FDArray and FDSelect. stb_truetype's
// own cursor over this table is 512 MiB long, so its bounds do not keep it inside the file, and a
// malformed index or operand makes it assert: each of those is refused here instead. Offsets are
// from the table's start; the charstrings' contents (the outlines) are not read.
class CffCheck {
 public:
  CffCheck(Reader& r, const Table& t) : r_(r), base_(t.at), size_(t.length) {}

  std::string check(std::uint32_t numGlyphs) {
    // The header: its size says where the name index starts.
    const std::uint64_t header = u8(2);
    if (bad_ || header > size_) return "its outlines' header is cut short";
    const Index names = index(header);
    const Index tops = index(names.end);
    const Index strings = index(tops.end);
    const Index globals = index(strings.end);
    if (!names.ok || !tops.ok || !strings.ok || !globals.ok)
      return "its outlines' indexes run past the end of their table";
    if (tops.count < 1) return "its outlines have no top dictionary";
    const Range top = element(tops, 0);
    if (!dictionaryOk(top)) return "its outlines' top dictionary is malformed";
    std::uint32_t charstrings = 0, type = 2, fdArray = 0, fdSelect = 0;
    if (!integers(top, 17, 1, &charstrings) || !integers(top, 0x100 | 6, 1, &type) ||
        !integers(top, 0x100 | 36, 1, &fdArray) || !integers(top, 0x100 | 37, 1, &fdSelect))
      return "its outlines' top dictionary is malformed";
    if (!subroutinesOk(top)) return "its outlines' private dictionary or subroutines are malformed";
    if (type != 2) return "its outlines are not Type 2 charstrings";
    if (charstrings == 0 || charstrings >= size_) return "its outlines have no charstrings";
    const Index glyphs = index(charstrings);
    if (!glyphs.ok) return "its charstrings run past the end of their table";
    if (glyphs.count < numGlyphs) return "it has fewer charstrings than glyphs";
    if (fdArray != 0) return fontDictionaries(fdArray, fdSelect, numGlyphs);
    return "";
  }

 private:
  struct Range {
    std::uint64_t from = 0, to = 0;
  };
  struct Index {
    std::uint64_t at = 0, end = 0;
    std::uint32_t count = 0, offsize = 0;
    bool ok = false;
  };

  std::uint32_t u8(std::uint64_t o) {
    if (o >= size_) {
      bad_ = true;
      return 0;
    }
    return r_.u8(base_ + o);
  }
  std::uint32_t big(std::uint64_t o, std::uint32_t n) {
    std::uint32_t v = 0;
    for (std::uint32_t i = 0; i < n; ++i)
      v = v << 8 | u8(o + i);
    return v;
  }

  // An index (stbtt__cff_get_index): a count, an offset size of 1 to 4, count + 1 offsets, then
  // the data; all of it inside the table.
  Index index(std::uint64_t at) {
    Index x;
    x.at = at;
    x.count = big(at, 2);
    if (x.count == 0) {
      x.end = at + 2;
      x.ok = !bad_;
      return x;
    }
    x.offsize = u8(at + 2);
    if (bad_ || x.offsize < 1 || x.offsize > 4) return x;
    const std::uint64_t offsets = at + 3;
    const std::uint32_t last = big(offsets + std::uint64_t{x.offsize} * x.count, x.offsize);
    x.end = offsets + std::uint64_t{x.offsize} * (x.count + 1ull) + last - 1;
    x.ok = !bad_ && last >= 1 && x.end <= size_;
    return x;
  }

  // Element i of an index (stbtt__cff_index_get), empty where stb_truetype's range would be.
  Range element(const Index& x, std::uint32_t i) {
    const std::uint64_t offsets = x.at + 3 + std::uint64_t{x.offsize} * i;
    const auto start = static_cast<std::int32_t>(big(offsets, x.offsize));
    const auto end = static_cast<std::int32_t>(big(offsets + x.offsize, x.offsize));
    const std::int64_t o = 2 + (x.count + 1ll) * x.offsize + start,
                       length = std::int64_t{end} - start;
    const std::int64_t whole = static_cast<std::int64_t>(x.end - x.at);
    if (o < 0 || length < 0 || o > whole || length > whole - o) return {};
    return {x.at + static_cast<std::uint64_t>(o), x.at + static_cast<std::uint64_t>(o + length)};
  }

  // One operand (stbtt__cff_skip_operand, stbtt__cff_int): false for the bytes stb_truetype
  // asserts on (31, 255, and a real number where it wants an integer).
  bool operand(std::uint64_t& at, const Range& d, bool integer, std::uint32_t* value) {
    const std::uint32_t b0 = at < d.to ? u8(at) : 0;
    ++at;
    if (b0 == 30) {
      if (integer) return false;
      while (at < d.to) {
        const std::uint32_t v = u8(at++);
        if ((v & 0xF) == 0xF || (v >> 4) == 0xF) break;
      }
      return true;
    }
    auto next = [&]() { return at < d.to ? u8(at++) : 0u; };
    std::uint32_t v = 0;
    if (b0 >= 32 && b0 <= 246) {
      v = b0 - 139;
    } else if (b0 >= 247 && b0 <= 250) {
      v = (b0 - 247) * 256 + next() + 108;
    } else if (b0 >= 251 && b0 <= 254) {
      v = static_cast<std::uint32_t>(-static_cast<std::int32_t>((b0 - 251) * 256) -
                                     static_cast<std::int32_t>(next()) - 108);
    } else if (b0 == 28) {
      v = next() << 8;
      v |= next();
    } else if (b0 == 29) {
      for (int i = 0; i < 4; ++i)
        v = v << 8 | next();
    } else {
      return false;
    }
    if (value) *value = v;
    return true;
  }

  // Walks a dictionary as stbtt__dict_get does, looking for `key` (-1: none, to check it all).
  // Returns false on a malformed operand; `found` gets the key's operands.
  bool walk(const Range& d, int key, Range* found) {
    std::uint64_t at = d.from;
    while (at < d.to) {
      const std::uint64_t start = at;
      while (at < d.to && u8(at) >= 28)
        if (!operand(at, d, false, nullptr)) return false;
      const std::uint64_t end = at;
      int op = at < d.to ? static_cast<int>(u8(at)) : 0;
      ++at;
      if (op == 12) {
        op = static_cast<int>((at < d.to ? u8(at) : 0) | 0x100);
        ++at;
      }
      if (op == key) {
        if (found) *found = {start, end};
        return !bad_;
      }
    }
    return !bad_;
  }
  bool dictionaryOk(const Range& d) { return walk(d, -1, nullptr); }

  // stbtt__dict_get_ints: up to n integers of `key`'s operands; `out` keeps its default when the
  // key is absent.
  bool integers(const Range& d, int key, int n, std::uint32_t* out) {
    Range operands;
    if (!walk(d, key, &operands)) return false;
    std::uint64_t at = operands.from;
    for (int i = 0; i < n && at < operands.to; ++i)
      if (!operand(at, operands, true, &out[i])) return false;
    return !bad_;
  }

  // stbtt__get_subrs: the Private dictionary a font dictionary names, and its subroutines' index.
  bool subroutinesOk(const Range& fontDict) {
    std::uint32_t where[2] = {0, 0};  // size, offset
    if (!integers(fontDict, 18, 2, where)) return false;
    if (where[0] == 0 || where[1] == 0) return true;
    if (std::uint64_t{where[1]} + where[0] > size_) return false;
    const Range privateDict{where[1], std::uint64_t{where[1]} + where[0]};
    std::uint32_t subrs = 0;
    if (!dictionaryOk(privateDict) || !integers(privateDict, 19, 1, &subrs)) return false;
    if (subrs == 0) return true;
    const std::uint64_t at = std::uint64_t{where[1]} + subrs;
    return at < size_ && index(at).ok;
  }

  // A CID font: each glyph's font dictionary, chosen by FDSelect (format 0 or 3, as
  // stbtt__cid_get_glyph_subrs reads it), must exist and be well formed.
  std::string fontDictionaries(std::uint32_t fdArray, std::uint32_t fdSelect,
                               std::uint32_t numGlyphs) {
    if (fdSelect == 0 || fdSelect >= size_ || fdArray >= size_)
      return "its outlines' font dictionaries are missing";
    const Index dicts = index(fdArray);
    if (!dicts.ok) return "its outlines' font dictionaries run past the end of their table";
    std::vector<int> selector(numGlyphs, -1);
    const std::uint32_t format = u8(fdSelect);
    if (format == 0) {
      for (std::uint32_t g = 0; g < numGlyphs; ++g)
        selector[g] = static_cast<int>(u8(fdSelect + 1 + g));
    } else if (format == 3) {
      const std::uint32_t ranges = big(fdSelect + 1, 2);
      std::uint32_t start = big(fdSelect + 3, 2);
      for (std::uint32_t i = 0; i < ranges && !bad_; ++i) {
        const std::uint64_t range = fdSelect + 5 + 3ull * i;
        const auto v = static_cast<int>(u8(range));
        const std::uint32_t end = big(range + 1, 2);
        for (std::uint32_t g = start; g < end && g < numGlyphs; ++g)
          if (selector[g] < 0) selector[g] = v;
        start = end;
      }
    }
    if (bad_) return "its outlines' font selection runs past the end of their table";
    std::vector<char> checked(dicts.count, 0);
    for (std::uint32_t g = 0; g < numGlyphs; ++g) {
      const int s = selector[g];
      if (s < 0 || static_cast<std::uint32_t>(s) >= dicts.count)
        return "its outlines give a glyph no font dictionary";
      if (checked[s]) continue;
      checked[s] = 1;
      const Range dict = element(dicts, static_cast<std::uint32_t>(s));
      if (!dictionaryOk(dict) || !subroutinesOk(dict))
        return "its outlines' private dictionary or subroutines are malformed";
    }
    return "";
  }

  Reader& r_;
  std::uint64_t base_, size_;
  bool bad_ = false;
};

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
      // An offset of 0 is "absent" to stb_truetype (a glyf table there sends it down the CFF
      // path): the same here.
      if (r.tag(record, name) && r.u32(record + 8) != 0)
        t = {r.u32(record + 8), r.u32(record + 12), true};
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

  if (!glyf.found) {
    std::string outlines = CffCheck(r, cff).check(numGlyphs);
    if (!outlines.empty()) return outlines;
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
  // The size now is only a hint for the buffer (a 19 MiB collection otherwise grows it 20 times).
  if (std::fseek(f.get(), 0, SEEK_END) == 0) {
    const long hint = std::ftell(f.get());
    if (hint > 0 && static_cast<std::size_t>(hint) <= kLargest)
      font.data.reserve(static_cast<std::size_t>(hint));
    std::rewind(f.get());
  }
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
