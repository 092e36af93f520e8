// Asks an X window to close as a window manager's close button does: a WM_DELETE_WINDOW client
// message (xdotool 3.2016 has no such command; without a window manager under Xvfb nothing else
// sends it). Used by tests/ui/window_walk.py.
//
//   x_close WINDOW_ID
#include <X11/Xlib.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: x_close WINDOW_ID\n");
    return 2;
  }
  Display* d = XOpenDisplay(nullptr);
  if (!d) {
    fprintf(stderr, "x_close: cannot open the display\n");
    return 1;
  }
  XEvent e;
  memset(&e, 0, sizeof e);
  e.xclient.type = ClientMessage;
  e.xclient.window = static_cast<Window>(std::strtoul(argv[1], nullptr, 0));
  e.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
  e.xclient.format = 32;
  e.xclient.data.l[0] = static_cast<long>(XInternAtom(d, "WM_DELETE_WINDOW", False));
  e.xclient.data.l[1] = CurrentTime;
  const Status sent = XSendEvent(d, e.xclient.window, False, NoEventMask, &e);
  XFlush(d);
  XCloseDisplay(d);
  return sent ? 0 : 1;
}
