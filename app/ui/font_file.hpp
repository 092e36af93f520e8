// Font files read once and checked before the rasteriser sees them.
//
// ImGui rasterises text with stb_truetype, which trusts its input: given a font file that is
// truncated, corrupt or being rewritten (a package upgrade under the running app), it reads out of
// bounds or aborts the process. So the app reads each font file whole, checks every table and
// every lookup that stb_truetype makes for the glyphs ImGui asks of it, and hands ImGui the very
// bytes it checked (a file checked and then opened again could have changed in between).
//
//   FontBytes font = readFontFile(path, faceIndex);
//   if (!font.error.empty()) { say font.error; use another font; }
//   else io.Fonts->AddFontFromMemoryTTF(copy of font.data, ...);
//
// What is checked: the face, every table lying inside the file, the character map (its format,
// and every lookup stb_truetype makes up to U+FFFF giving a glyph the font has), each glyph's
// metrics, a glyf font's index of outlines, and a CFF font's header, indexes, dictionaries,
// subroutine indexes and font selection (everything stbtt_InitFont and a glyph's lookup reach).
// What is not: the outlines' own contents, the points of each glyf record and the code of each
// charstring and subroutine. A file cut short fails the checks of its tables; bytes damaged inside
// an outline could still get past them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cudalab {

struct FontBytes {
  std::vector<unsigned char> data;  // the whole file, when error is empty
  std::string error;                // what is wrong with it, as a sentence; empty when usable
};

// Reads `path` whole and checks face `faceIndex` in it (0 for a single font, the face's number in a
// collection such as Noto Sans CJK's .ttc).
FontBytes readFontFile(const std::string& path, int faceIndex);

// Empty when stb_truetype can use face `faceIndex` of these bytes as above. Otherwise what is
// wrong, for a sentence ("The font file F cannot be used: " + it).
std::string checkFontBytes(const unsigned char* data, std::size_t size, int faceIndex);

}  // namespace cudalab
