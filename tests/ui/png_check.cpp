// png_check FILE WIDTH HEIGHT [MIN_COLOURS]: exits 0 when FILE is a PNG of exactly that size with
// real content (at least MIN_COLOURS distinct colours, default 16; a blank or single-colour image
// fails), and prints why otherwise.
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: png_check FILE WIDTH HEIGHT [MIN_COLOURS]\n");
    return 2;
  }
  const int wantW = std::atoi(argv[2]), wantH = std::atoi(argv[3]);
  const int minColours = argc > 4 ? std::atoi(argv[4]) : 16;
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(argv[1], &w, &h, &n, 4);
  if (!px) {
    std::fprintf(stderr, "%s: not a readable PNG (%s)\n", argv[1], stbi_failure_reason());
    return 1;
  }
  std::unordered_set<unsigned> colours;
  for (long i = 0; i < static_cast<long>(w) * h; ++i) {
    unsigned c;
    std::memcpy(&c, px + i * 4, 4);
    colours.insert(c);
  }
  stbi_image_free(px);
  if (w != wantW || h != wantH) {
    std::fprintf(stderr, "%s: %dx%d, expected %dx%d\n", argv[1], w, h, wantW, wantH);
    return 1;
  }
  if (static_cast<int>(colours.size()) < minColours) {
    std::fprintf(stderr, "%s: only %zu distinct colours; expected real content (>= %d)\n", argv[1],
                 colours.size(), minColours);
    return 1;
  }
  std::printf("%s: %dx%d, %zu colours\n", argv[1], w, h, colours.size());
  return 0;
}
