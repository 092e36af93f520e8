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
// What is not checked: the outlines themselves (the points inside each glyph's record, and the
// charstrings of a CFF font). A file cut short or overwritten fails the checks of its tables; a
// font built wrong on purpose could still get past them.
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

// Empty when stb_truetype can use face `faceIndex` of these bytes: the face exists, its tables lie
// inside the bytes, and every character-to-glyph lookup, every glyph's metrics and every glyph's
// place in the outlines read inside them too. Otherwise what is wrong, for a sentence.
std::string checkFontBytes(const unsigned char* data, std::size_t size, int faceIndex);

}  // namespace cudalab
