// Gives every non-ASCII letter of a text a key of its own on the X server, so that xdotool can
// type it as a person's keyboard would. Without this, xdotool binds each such letter to one spare
// key just before pressing it and unbinds it just after; an app that reads the key event a moment
// later (a frame that rebuilds its font atlas, say) finds another letter or none on that key, and
// letters go missing. Used by tests/ui/window_walk.py for the Korean and Chinese it types.
//
//   x_keymap TEXT      (UTF-8; the bindings stay until the X server ends)
#include <X11/Xlib.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// The code points of a UTF-8 text (a malformed byte is skipped).
std::vector<unsigned> codePoints(const std::string& s) {
  std::vector<unsigned> out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + static_cast<size_t>(n) > s.size()) {
      ++i;
      continue;
    }
    unsigned c = n == 1 ? b : b & (0x7F >> n);
    for (int k = 1; k < n; ++k)
      c = (c << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3F);
    out.push_back(c);
    i += static_cast<size_t>(n);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: x_keymap TEXT\n");
    return 2;
  }
  Display* d = XOpenDisplay(nullptr);
  if (!d) {
    std::fprintf(stderr, "x_keymap: cannot open the display\n");
    return 1;
  }
  int lo = 0, hi = 0, per = 0;
  XDisplayKeycodes(d, &lo, &hi);
  KeySym* map = XGetKeyboardMapping(d, static_cast<KeyCode>(lo), hi - lo + 1, &per);
  int bound = 0, missing = 0;
  for (unsigned c : codePoints(argv[1])) {
    if (c < 0x80) continue;
    // Unicode letters have keysyms 0x01000000 + the code point (Latin-1's are their own).
    const KeySym sym = c < 0x100 ? c : 0x01000000 + c;
    if (XKeysymToKeycode(d, sym) != 0) continue;  // a key has it already
    int free = -1;
    for (int k = 0; k <= hi - lo && free < 0; ++k) {
      bool empty = true;
      for (int j = 0; j < per; ++j)
        empty = empty && map[k * per + j] == NoSymbol;
      if (empty) free = k;
    }
    if (free < 0) {
      ++missing;
      continue;
    }
    std::vector<KeySym> syms(static_cast<size_t>(per), NoSymbol);
    syms[0] = syms[1] = sym;
    XChangeKeyboardMapping(d, lo + free, per, syms.data(), 1);
    for (int j = 0; j < per; ++j)
      map[free * per + j] = syms[static_cast<size_t>(j)];
    XSync(d, False);
    ++bound;
  }
  XFree(map);
  XCloseDisplay(d);
  if (missing) std::fprintf(stderr, "x_keymap: no free key for %d letter(s)\n", missing);
  std::printf("%d letter(s) bound\n", bound);
  return missing ? 1 : 0;
}
