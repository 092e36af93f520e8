// Saves what the X screen shows, as a person sees it, to a PPM file: the window with the pointer's
// hover and tooltips, which F12's pictures leave out on purpose (a figure for slides has no hover
// highlight). Used by tests/ui/window_walk.py for what only shows under the pointer.
//
//   x_grab FILE.ppm
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: x_grab FILE.ppm\n");
    return 2;
  }
  Display* d = XOpenDisplay(nullptr);
  if (!d) {
    std::fprintf(stderr, "x_grab: cannot open the display\n");
    return 1;
  }
  const Window root = DefaultRootWindow(d);
  XWindowAttributes a;
  XGetWindowAttributes(d, root, &a);
  XImage* im = XGetImage(d, root, 0, 0, static_cast<unsigned>(a.width),
                         static_cast<unsigned>(a.height), AllPlanes, ZPixmap);
  if (!im) {
    std::fprintf(stderr, "x_grab: the screen could not be read\n");
    XCloseDisplay(d);
    return 1;
  }
  std::vector<unsigned char> rgb(static_cast<size_t>(a.width) * static_cast<size_t>(a.height) * 3);
  size_t i = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const unsigned long p = XGetPixel(im, x, y);  // 24-bit TrueColor: 0xRRGGBB
      rgb[i++] = static_cast<unsigned char>((p >> 16) & 0xFF);
      rgb[i++] = static_cast<unsigned char>((p >> 8) & 0xFF);
      rgb[i++] = static_cast<unsigned char>(p & 0xFF);
    }
  XDestroyImage(im);
  XCloseDisplay(d);
  FILE* f = std::fopen(argv[1], "wb");
  if (!f) {
    std::fprintf(stderr, "x_grab: cannot write %s\n", argv[1]);
    return 1;
  }
  std::fprintf(f, "P6\n%d %d\n255\n", a.width, a.height);
  const bool ok = std::fwrite(rgb.data(), 1, rgb.size(), f) == rgb.size();
  return std::fclose(f) == 0 && ok ? 0 : 1;
}
