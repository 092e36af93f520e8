// png_diff BEFORE_A BEFORE_B AFTER [DIFF.png]: compares a picture rendered after a change with two
// renders of the same picture before it (tools/compare_renders.sh).
//
// Measured values (CPU times, the clock) differ from run to run, so a pixel is compared only where
// both "before" renders agree; the rest is left out and counted. Prints one line:
//   compared=N total=M differing=D box=x0,y0,x1,y1
// (box: the rectangle around the differing pixels, "-" when none) and exits 0 when no compared
// pixel differs, 1 when one does, 2 when a file cannot be read or the sizes differ. With DIFF.png
// it writes the after picture dimmed, the pixels left out in blue and the differing ones in red.
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct Picture {
  int w = 0, h = 0;
  std::vector<unsigned char> px;  // RGBA
};

bool load(const char* path, Picture& p) {
  int n = 0;
  unsigned char* data = stbi_load(path, &p.w, &p.h, &n, 4);
  if (!data) {
    std::fprintf(stderr, "%s: not a readable PNG (%s)\n", path, stbi_failure_reason());
    return false;
  }
  p.px.assign(data, data + static_cast<size_t>(p.w) * p.h * 4);
  stbi_image_free(data);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: png_diff BEFORE_A BEFORE_B AFTER [DIFF.png]\n");
    return 2;
  }
  Picture a, b, after;
  if (!load(argv[1], a) || !load(argv[2], b) || !load(argv[3], after)) return 2;
  if (a.w != b.w || a.h != b.h || a.w != after.w || a.h != after.h) {
    std::fprintf(stderr, "sizes differ: %dx%d, %dx%d, %dx%d\n", a.w, a.h, b.w, b.h, after.w,
                 after.h);
    return 2;
  }
  const size_t n = static_cast<size_t>(a.w) * a.h;
  size_t compared = 0, differing = 0;
  int x0 = a.w, y0 = a.h, x1 = -1, y1 = -1;
  std::vector<unsigned char> diff(n * 4);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* pa = &a.px[i * 4];
    const unsigned char* pb = &b.px[i * 4];
    const unsigned char* pc = &after.px[i * 4];
    unsigned char* d = &diff[i * 4];
    // The after picture, dimmed to a third, as the background of the marks.
    for (int c = 0; c < 3; ++c)
      d[c] = static_cast<unsigned char>(pc[c] / 3);
    d[3] = 255;
    if (std::memcmp(pa, pb, 4) != 0) {
      d[2] = 255;  // left out: the two befores disagree
      continue;
    }
    ++compared;
    if (std::memcmp(pa, pc, 4) != 0) {
      ++differing;
      d[0] = 255;
      d[1] = d[2] = 0;
      const int x = static_cast<int>(i % static_cast<size_t>(a.w));
      const int y = static_cast<int>(i / static_cast<size_t>(a.w));
      x0 = std::min(x0, x);
      y0 = std::min(y0, y);
      x1 = std::max(x1, x);
      y1 = std::max(y1, y);
    }
  }
  if (differing)
    std::printf("compared=%zu total=%zu differing=%zu box=%d,%d,%d,%d\n", compared, n, differing,
                x0, y0, x1, y1);
  else
    std::printf("compared=%zu total=%zu differing=0 box=-\n", compared, n);
  if (argc > 4 && !stbi_write_png(argv[4], a.w, a.h, 4, diff.data(), a.w * 4)) {
    std::fprintf(stderr, "%s: could not write\n", argv[4]);
    return 2;
  }
  return differing ? 1 : 0;
}
