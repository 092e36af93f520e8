// Look and feel: dark and light themes, fonts found through fontconfig and rasterised at the UI
// scale (so text stays crisp at projector size rather than being a bitmap zoom), and the
// colour-blind-safe palette (Okabe-Ito) that every chart uses.
//
//   Theme theme;
//   theme.apply("light", 2.0f);   // between frames: rebuilds fonts when the scale changed
//   ImGui::PushFont(theme.fonts().heading);
#pragma once

#include <imgui.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "ui/font_file.hpp"

namespace cudalab {

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  ImFont* mono = nullptr;
  ImFont* heading = nullptr;
  std::string source;  // which font files, for the About box
  // When the language's script has no font here: the sentence saying so, in English (its own
  // language would draw as '?' for want of that very font); empty otherwise.
  std::string missingScript;
  // Font files found but unreadable, cut short or corrupt (a package upgrade rewriting them under
  // the running app, say): one sentence each, in English; empty when every file was usable.
  std::string unusable;
};

// Eight colours distinguishable with the common colour-vision deficiencies (Okabe & Ito 2008).
ImU32 paletteColour(int i, float alpha = 1.0f);

// Finds a scalable font file through fontconfig ("" when none).
std::string findFontFile(const char* family, bool bold);
// The same for a face that may sit in a collection (.ttc) or be OpenType (.otf): the file and the
// face's index in it. Only the family asked for counts (no substitute): an empty path otherwise.
struct FontFace {
  std::string path;
  int index = 0;
};
FontFace findFontFace(const char* family, bool bold);

// Text the learner brings (their code, a file's name, a preset's name) may hold letters the atlas
// was not built with: it holds DejaVu's Latin and Greek and only the CJK characters of the
// chosen language's translations. Pass such text here while it is drawn (inside a frame); letters
// the atlas lacks are noted, and the next frame's Theme::apply adds them (one rebuild, from
// DejaVu or a Noto Sans CJK face, whichever has them), up to kMaxExtraGlyphs in a session (a
// learner's comments need a few hundred; more, at a projector's scale in four fonts, would
// outgrow the atlas texture drivers accept).
// Letters no font here has are asked for once and then draw as '?'.
void askForGlyphs(std::string_view utf8);
inline constexpr int kMaxExtraGlyphs = 1000;

class Theme {
 public:
  // Applies theme colours and sizes for `scale`; rebuilds the font atlas when the scale or the
  // language changed, or askForGlyphs() noted letters the atlas lacks (a Korean or Chinese UI
  // adds the CJK glyphs its catalogue uses; the caller recreates the GL font texture when this
  // returns true).
  bool apply(const std::string& name, float scale, const std::string& language = "en");
  float scale() const { return scale_; }
  bool light() const { return name_ == "light"; }
  const Fonts& fonts() const { return fonts_; }
  // Colours for text that must stand out in both themes.
  ImVec4 errorColour() const;
  ImVec4 warningColour() const;
  ImVec4 mutedColour() const;
  ImVec4 goodColour() const;

 private:
  void buildFonts(float scale);
  std::string name_, language_ = "en";
  ImVector<ImWchar> cjkRanges_;  // the CJK glyphs of the catalogue, kept until the atlas is built
  // The font files read so far, checked, by path and face (buildFonts says why they are kept).
  std::map<std::pair<std::string, int>, FontBytes> fontFiles_;
  ImVector<ImWchar> textRanges_;  // DejaVu's ranges and the letters asked for, likewise
  float scale_ = 0.0f;
  Fonts fonts_;
};

}  // namespace cudalab
