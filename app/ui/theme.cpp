#include "ui/theme.hpp"

#include <fontconfig/fontconfig.h>
#include <imgui_internal.h>  // ImTextCharFromUtf8

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ui/font_file.hpp"
#include "core/i18n.hpp"

namespace cudalab {

ImU32 paletteColour(int i, float alpha) {
  static const ImU32 kOkabeIto[] = {
      IM_COL32(0, 114, 178, 255),    // blue
      IM_COL32(230, 159, 0, 255),    // orange
      IM_COL32(0, 158, 115, 255),    // bluish green
      IM_COL32(204, 121, 167, 255),  // reddish purple
      IM_COL32(86, 180, 233, 255),   // sky blue
      IM_COL32(213, 94, 0, 255),     // vermillion
      IM_COL32(240, 228, 66, 255),   // yellow
      IM_COL32(120, 120, 120, 255),  // grey
  };
  ImU32 c = kOkabeIto[((i % 8) + 8) % 8];
  const auto a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f);
  return (c & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

namespace {

// fontconfig's best scalable match for `family` and weight, as the file, the face's index in it,
// the family it really is and whether it is scalable; `what` is given it (null: no match).
template <class What>
void matchFont(const char* family, bool bold, What what) {
  if (!FcInit()) return;
  FcPattern* pat = FcPatternCreate();
  FcPatternAddString(pat, FC_FAMILY, reinterpret_cast<const FcChar8*>(family));
  FcPatternAddInteger(pat, FC_WEIGHT, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR);
  FcPatternAddBool(pat, FC_SCALABLE, FcTrue);
  FcConfigSubstitute(nullptr, pat, FcMatchPattern);
  FcDefaultSubstitute(pat);
  FcResult result = FcResultNoMatch;
  if (FcPattern* match = FcFontMatch(nullptr, pat, &result)) {
    FcChar8* file = nullptr;
    FcChar8* got = nullptr;
    FcBool scalable = FcFalse;
    int index = 0;
    FcPatternGetBool(match, FC_SCALABLE, 0, &scalable);
    FcPatternGetInteger(match, FC_INDEX, 0, &index);
    if (FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch &&
        FcPatternGetString(match, FC_FAMILY, 0, &got) == FcResultMatch && scalable)
      what(std::string(reinterpret_cast<const char*>(file)), index,
           std::string(reinterpret_cast<const char*>(got)));
    FcPatternDestroy(match);
  }
  FcPatternDestroy(pat);
}

// The letters askForGlyphs() noted, sorted (the UI thread only), and whether some came since the
// atlas was last built.
std::vector<ImWchar>& askedGlyphs() {
  static std::vector<ImWchar> asked;
  return asked;
}
bool gGlyphsPending = false;

// A face for CJK letters when the language needs none: Chinese's Noto Sans CJK family first (its
// Han forms are the Chinese ones; every Noto Sans CJK family has Hangul and Kana too), else
// the first other installed family the languages name.
FontFace anyCjkFace(bool bold, const char** family) {
  std::vector<const Language*> order;
  if (const Language* zh = findLanguage("zh_CN")) order.push_back(zh);
  for (const Language& l : languages())
    order.push_back(&l);
  for (const Language* lp : order) {
    const Language& l = *lp;
    if (!l.cjkFamily) continue;
    FontFace face = findFontFace(l.cjkFamily, bold);
    if (!face.path.empty()) {
      *family = l.cjkFamily;
      return face;
    }
  }
  return {};
}

}  // namespace

void askForGlyphs(std::string_view utf8) {
  ImFont* font = ImGui::GetFont();
  if (!font) return;
  std::vector<ImWchar>& asked = askedGlyphs();
  const char* p = utf8.data();
  const char* const end = p + utf8.size();
  while (p < end) {
    if (static_cast<unsigned char>(*p) < 0x80) {  // ASCII: always in the atlas
      ++p;
      continue;
    }
    unsigned int c = 0;
    const int n = ImTextCharFromUtf8(&c, p, end);
    p += n > 0 ? n : 1;
    if (c < 0x80 || c > 0xFFFF || c == IM_UNICODE_CODEPOINT_INVALID) continue;
    const auto w = static_cast<ImWchar>(c);
    if (font->FindGlyphNoFallback(w)) continue;
    const auto it = std::lower_bound(asked.begin(), asked.end(), w);
    if (it != asked.end() && *it == w) continue;  // asked before: no font here has it
    if (asked.size() >= static_cast<size_t>(kMaxExtraGlyphs)) return;
    asked.insert(it, w);
    gGlyphsPending = true;
  }
}

std::string findFontFile(const char* family, bool bold) {
  std::string path;
  matchFont(family, bold, [&](const std::string& file, int, const std::string&) {
    // ImGui's rasteriser reads TrueType outlines; skip other formats.
    const auto dot = file.rfind('.');
    std::string ext = dot == std::string::npos ? "" : file.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
    if (ext == ".ttf") path = file;
  });
  return path;
}

FontFace findFontFace(const char* family, bool bold) {
  FontFace face;
  matchFont(family, bold, [&](const std::string& file, int index, const std::string& got) {
    if (got == family) face = {file, index};
  });
  return face;
}

void Theme::buildFonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // Past about 96 px the glyph atlas outgrows the textures drivers accept (the command line
  // refuses larger products of --scale and --ui-scale; this guards the GUI's own paths).
  scale = std::min(scale, 6.0f);
  const float base = std::round(16.0f * scale);
  // Latin (French's oe and the like in Latin Extended-A), Greek, punctuation, arrows, maths,
  // box drawing.
  static const ImWchar kRanges[] = {0x0020, 0x017F, 0x0370, 0x03FF, 0x2010,
                                    0x22FF, 0x2500, 0x25FF, 0};
  const std::string sans = findFontFile("DejaVu Sans", false);
  const std::string sansBold = findFontFile("DejaVu Sans", true);
  const std::string mono = findFontFile("DejaVu Sans Mono", false);
  fonts_ = {};
  gGlyphsPending = false;
  // The text fonts' ranges: the UI's own, and the letters the learner's text asked for (DejaVu
  // gives those it has; the CJK face below the rest).
  const std::vector<ImWchar>& asked = askedGlyphs();
  {
    ImFontGlyphRangesBuilder text;
    text.AddRanges(kRanges);
    for (ImWchar c : asked)
      text.AddChar(c);
    textRanges_.clear();
    text.BuildRanges(&textRanges_);
  }
  // Each file is read and checked once, and its checked bytes kept for the atlas builds to come
  // (font_file.hpp says why ImGui must get those very bytes): a rebuild for a new scale or a
  // letter the learner typed then reads and checks no file again (Noto Sans CJK is 19 MB). ImGui
  // copies the bytes it is given (FontDataOwnedByAtlas false) and frees its copies in
  // ClearInputData below. A file that fails is said once per build and not kept: mended (its
  // package reinstalled), the next build takes it.
  std::set<std::pair<std::string, int>> said;
  auto add = [&](const std::string& file, float size, ImFontConfig cfg,
                 const ImWchar* ranges) -> ImFont* {
    const int face = cfg.FontNo;  // the face in a collection
    if (file.empty()) return nullptr;
    auto it = fontFiles_.find({file, face});
    FontBytes failed;
    if (it == fontFiles_.end()) {
      FontBytes bytes = readFontFile(file, face);
      if (bytes.error.empty())
        it = fontFiles_.emplace(std::pair{file, face}, std::move(bytes)).first;
      else
        failed = std::move(bytes);
    }
    if (it == fontFiles_.end()) {
      if (said.insert({file, face}).second) {
        if (!fonts_.unusable.empty()) fonts_.unusable += ' ';
        fonts_.unusable.append("The font file ").append(file).append(" cannot be used: ");
        fonts_.unusable.append(failed.error)
            .append(
                ". Its text draws in another font, or as '?', until the file is mended ("
                "reinstall its package, or start cudalab again after an upgrade).");
      }
      return nullptr;
    }
    std::vector<unsigned char>& data = it->second.data;
    cfg.FontDataOwnedByAtlas = false;  // ImGui copies them; the checked bytes stay here
    return io.Fonts->AddFontFromMemoryTTF(data.data(), static_cast<int>(data.size()), size, &cfg,
                                          ranges);
  };
  auto load = [&](const std::string& file, float size) -> ImFont* {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.PixelSnapH = false;
    return add(file, size, cfg, textRanges_.Data);
  };
  fonts_.regular = load(sans, base);
  if (!fonts_.regular) {
    // No scalable font: ImGui's built-in bitmap font still works, only less crisp when scaled.
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.0f * scale);
    fonts_.regular = io.Fonts->AddFontDefault(&cfg);
    fonts_.source = "built-in bitmap font (install fonts-dejavu-core for crisp text)";
  } else {
    fonts_.source = sans;
  }
  fonts_.bold = load(sansBold, base);
  fonts_.mono = load(mono, base);
  fonts_.heading = load(sansBold.empty() ? sans : sansBold, std::round(22.0f * scale));
  if (!fonts_.bold) fonts_.bold = fonts_.regular;
  if (!fonts_.mono) fonts_.mono = fonts_.regular;
  if (!fonts_.heading) fonts_.heading = fonts_.regular;
  // Korean and Chinese: the CJK face (Noto Sans CJK, through fontconfig) merged into each font,
  // for the characters the catalogue's translations use and CJK punctuation only: the whole
  // face would make an atlas too large for a projector's scale and slow to build. In any
  // language, the letters the learner's text asked for that DejaVu lacks come from it too.
  const Language* lang = findLanguage(language_);
  const bool cjkLanguage = lang && lang->cjkFamily;
  if (cjkLanguage || !asked.empty()) {
    ImFontGlyphRangesBuilder builder;
    if (cjkLanguage) {
      for (std::uint32_t cp : translationCodepoints())
        if (cp >= 0x0180 && cp <= 0xFFFF) builder.AddChar(static_cast<ImWchar>(cp));
      static const ImWchar kPunctuation[] = {0x3000, 0x303F, 0xFF00, 0xFFEF, 0};
      builder.AddRanges(kPunctuation);
    }
    for (ImWchar c : asked)
      builder.AddChar(c);
    cjkRanges_.clear();
    builder.BuildRanges(&cjkRanges_);
    const char* family = cjkLanguage ? lang->cjkFamily : nullptr;
    const FontFace regular = family ? findFontFace(family, false) : anyCjkFace(false, &family);
    const FontFace bold = family ? findFontFace(family, true) : FontFace{};
    auto merge = [&](ImFont* into, const FontFace& face, float size) {
      if (face.path.empty() || !into) return;
      ImFontConfig cfg;
      cfg.MergeMode = true;
      cfg.FontNo = face.index;
      // At the same pixel size CJK glyphs look smaller beside DejaVu's large x-height: a little
      // larger, and lowered so that they sit on the same baseline.
      size *= 1.12f;
      cfg.GlyphOffset.y = 0.06f * size;
      cfg.OversampleH = 1;
      cfg.PixelSnapH = true;
      cfg.DstFont = into;
      add(face.path, size, cfg, cjkRanges_.Data);
    };
    // Merging adds to the font added last: each merge follows its own font's entry.
    merge(fonts_.regular, regular, base);
    if (fonts_.bold != fonts_.regular) merge(fonts_.bold, bold.path.empty() ? regular : bold, base);
    if (fonts_.mono != fonts_.regular) merge(fonts_.mono, regular, base);
    if (fonts_.heading != fonts_.regular)
      merge(fonts_.heading, bold.path.empty() ? regular : bold, std::round(22.0f * scale));
    if (cjkLanguage)
      fonts_.source += regular.path.empty() ? std::string(" (no ") + lang->cjkFamily +
                                                  ": install fonts-noto-cjk for its script)"
                                            : ", " + regular.path;
    else if (!regular.path.empty())
      fonts_.source += ", " + regular.path + " (for the letters of your own text)";
    if (cjkLanguage && regular.path.empty())
      fonts_.missingScript = std::string("No font for ") + lang->english + " (" + lang->cjkFamily +
                             ") was found, so its text draws as '?'. Install fonts-noto-cjk (on "
                             "Debian and Ubuntu: sudo apt-get install fonts-noto-cjk), or choose "
                             "another language (the Language menu, or cudalab --language en).";
  }
  io.FontDefault = fonts_.regular;
  if (!io.Fonts->Build()) {
    // stb_truetype refused a face the checks passed: ImGui's built-in font rather than no atlas
    // (the next frame would assert on one).
    io.Fonts->Clear();
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.0f * scale);
    fonts_.regular = fonts_.bold = fonts_.mono = fonts_.heading = io.Fonts->AddFontDefault(&cfg);
    fonts_.source = "built-in bitmap font (the font files could not be rasterised)";
    if (!fonts_.unusable.empty()) fonts_.unusable += ' ';
    fonts_.unusable +=
        "The fonts found could not be rasterised, so text draws in the built-in font.";
    io.FontDefault = fonts_.regular;
    io.Fonts->Build();
  }
  io.Fonts->ClearInputData();  // the font files' bytes: not needed once the atlas is built
}

bool Theme::apply(const std::string& name, float scale, const std::string& language) {
  const bool rebuild = std::fabs(scale - scale_) > 1e-4f || language != language_ || gGlyphsPending;
  if (!rebuild && name == name_) return false;
  name_ = name;
  language_ = language;
  ImGuiStyle style;
  if (light())
    ImGui::StyleColorsLight(&style);
  else
    ImGui::StyleColorsDark(&style);
  style.WindowRounding = 0.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowBorderSize = 0.0f;
  style.FramePadding = ImVec2(6, 4);
  style.ItemSpacing = ImVec2(8, 6);
  if (light()) {
    // Projector-friendly: stronger contrast than ImGui's light defaults.
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.98f, 0.98f, 0.98f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    style.Colors[ImGuiCol_Text] = ImVec4(0.05f, 0.05f, 0.08f, 1.0f);
    style.Colors[ImGuiCol_Border] = ImVec4(0.70f, 0.72f, 0.76f, 1.0f);
    // Check boxes, radio buttons and sliders must stand out from the white panels.
    style.Colors[ImGuiCol_FrameBg] = ImVec4(0.86f, 0.87f, 0.90f, 1.0f);
    style.Colors[ImGuiCol_FrameBgHovered] = ImVec4(0.78f, 0.84f, 0.95f, 1.0f);
  } else {
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.12f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(0.12f, 0.13f, 0.16f, 1.0f);
  }
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
  if (rebuild) {
    scale_ = scale;
    buildFonts(scale);
  }
  return rebuild;
}

ImVec4 Theme::errorColour() const {
  return light() ? ImVec4(0.75f, 0.10f, 0.05f, 1) : ImVec4(1.0f, 0.45f, 0.40f, 1);
}
ImVec4 Theme::warningColour() const {
  return light() ? ImVec4(0.60f, 0.38f, 0.0f, 1) : ImVec4(0.95f, 0.75f, 0.30f, 1);
}
ImVec4 Theme::mutedColour() const {
  return light() ? ImVec4(0.35f, 0.37f, 0.42f, 1) : ImVec4(0.62f, 0.64f, 0.70f, 1);
}
ImVec4 Theme::goodColour() const {
  return light() ? ImVec4(0.0f, 0.45f, 0.30f, 1) : ImVec4(0.35f, 0.85f, 0.60f, 1);
}

}  // namespace cudalab
