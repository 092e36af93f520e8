#!/usr/bin/env python3
"""The window as a person uses it, under Xvfb, with real X input events (xdotool) and the app's
normal main loop: nothing in the app knows it is being tested.

  window_walk.py CUDALAB X_CLOSE [FAILURE_DIR]

It walks the README at 1920 x 1080, then at 1280 x 720 with the UI scale raised to 2 by Ctrl+=:
every lesson opened from the sidebar (each at its top), F12 and Shift+F12, presentation mode (F5,
then Escape), the language menu, Ctrl+Q, a start again that finds the settings back, and the
window's close button (the WM_DELETE_WINDOW message a window manager sends, by x_close). It
checks what the app shows through what the app already writes: the pictures F12 saves (their
size, the lesson in their name, their content compared region by region, never at fixed pixel
positions), settings.json, the exit code and the standard error. Where to click is found in those
pictures too: the sidebar's lines of text, the menu bar's words.

On a failure the last picture is kept in FAILURE_DIR (default: the temporary folder) and named.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_read import PngRows, png_size  # noqa: E402

CUDALAB, X_CLOSE = sys.argv[1], sys.argv[2]
FAILURE_DIR = sys.argv[3] if len(sys.argv) > 3 else tempfile.gettempdir()
LESSONS = subprocess.run([CUDALAB, "list", "--ids"], capture_output=True, text=True,
                         check=True).stdout.split()
failures = []
last_picture = None


def check(what, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " " + detail), flush=True)
    if not ok:
        failures.append(what)
        if last_picture and os.path.exists(last_picture):
            kept = os.path.join(FAILURE_DIR, "window_walk-failure-%d.png" % len(failures))
            shutil.copy(last_picture, kept)
            print("   the window at that moment: " + kept, flush=True)
    return ok


class Picture:
    """A picture F12 saved: pixels, and where its text is."""

    def __init__(self, path):
        self.path = path
        self.w, self.h = png_size(path)
        self._px = None

    def rgb(self, x, y):
        if self._px is None:  # read when first looked at, each row as it is needed
            self._px = PngRows(self.path)
        row, i = self._px.row(y), x * self._px.bpp
        return row[i], row[i + 1], row[i + 2]

    def bright(self, x, y):
        r, g, b = self.rgb(x, y)
        return r + g + b >= 3 * 140

    def text_lines(self, x0, x1, y0, y1, step=1):
        """Bands of rows with bright pixels (text on the dark theme) between x0 and x1."""
        bands, start = [], None
        for y in range(y0, y1):
            has = any(self.bright(x, y) for x in range(x0, x1, step))
            if has and start is None:
                start = y
            if not has and start is not None:
                bands.append((start, y - 1))
                start = None
        if start is not None:
            bands.append((start, y1 - 1))
        return bands

    def words(self, y0, y1, gap):
        """Clusters of bright columns between rows y0 and y1, split where `gap` columns are dark."""
        cols = [any(self.bright(x, y) for y in range(y0, y1 + 1)) for x in range(self.w)]
        out, start, dark = [], None, 0
        for x, c in enumerate(cols):
            if c:
                if start is None:
                    start = x
                dark = 0
            elif start is not None:
                dark += 1
                if dark >= gap:
                    out.append((start, x - dark))
                    start, dark = None, 0
        if start is not None:
            out.append((start, self.w - 1))
        return out

    def region_differs(self, other, x0, x1, y0, y1):
        return any(self.rgb(x, y) != other.rgb(x, y) for y in range(y0, y1, 3)
                   for x in range(x0, x1, 3))


class Session:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.work = tempfile.mkdtemp(prefix="cudalab-walk-")
        self.env = dict(os.environ, HOME=self.work + "/home", XDG_CONFIG_HOME=self.work + "/config",
                        LANG="C.UTF-8")
        for k in ("XDG_RUNTIME_DIR", "CUDALAB_DRAWING"):
            self.env.pop(k, None)
        os.makedirs(self.env["HOME"])
        for _ in range(10):
            # A display the last X server just left can refuse a new one for a moment: again.
            r, w = os.pipe()
            self.xvfb = subprocess.Popen(
                ["Xvfb", "-displayfd", str(w), "-screen", "0", "%dx%dx24" % (width, height),
                 "-nolisten", "tcp"], pass_fds=[w], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            os.close(w)
            num = os.read(r, 16).decode().strip()
            os.close(r)
            time.sleep(0.5)
            if num and self.xvfb.poll() is None:
                break
            self.xvfb.wait()
            time.sleep(0.5)
        self.env["DISPLAY"] = ":" + num
        self.app = None

    def settings(self, until=None, seconds=6):
        """settings.json; with `until`, waits up to `seconds` for it to hold."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                with open(self.env["XDG_CONFIG_HOME"] + "/cudalab/settings.json") as f:
                    st = json.load(f)
            except (OSError, ValueError):
                st = {}
            if until is None or until(st) or time.monotonic() > deadline:
                return st
            time.sleep(0.2)

    def xdo(self, *args):
        return subprocess.run(["xdotool", *args], env=self.env, capture_output=True,
                              text=True).stdout.strip()

    def start(self, *args):
        self.err_path = self.work + "/err-%d.txt" % time.monotonic_ns()
        self.app = subprocess.Popen([CUDALAB, *args], env=self.env, stdout=subprocess.DEVNULL,
                                    stderr=open(self.err_path, "w"))
        self.win = None
        for _ in range(150):
            self.win = self.xdo("search", "--name", "^cudalab$").split("\n")[0] or None
            if self.win:
                break
            time.sleep(0.2)
        if not check("the window opened", self.win is not None, self.stderr()):
            return False
        time.sleep(1.5)
        return True

    def stderr(self):
        with open(self.err_path) as f:
            return f.read()

    def fit_window(self):
        self.xdo("windowmove", self.win, "0", "0")
        self.xdo("windowsize", self.win, str(self.width), str(self.height))
        time.sleep(1.0)

    def pointer_in_window(self):
        # Without a window manager the keyboard follows the pointer (PointerRoot focus).
        self.xdo("mousemove", str(self.width // 2), str(self.height - 5))
        time.sleep(0.1)

    def key(self, keys):
        self.pointer_in_window()
        self.xdo("key", keys)
        time.sleep(0.6)

    def hold(self, key):
        """A key held for a moment, as a person presses it (ImGui's keyboard navigation, which
        reads keys only as they are down at a frame's start)."""
        self.xdo("keydown", key)
        time.sleep(0.2)
        self.xdo("keyup", key)
        time.sleep(0.3)

    def click(self, x, y, button="1"):
        self.xdo("mousemove", str(int(x)), str(int(y)))
        time.sleep(0.25)  # ImGui sees the pointer over the widget first
        self.xdo("mousedown", button)
        time.sleep(0.15)
        self.xdo("mouseup", button)
        time.sleep(0.8)

    def pictures(self):
        d = self.env["HOME"] + "/Pictures/cudalab"
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def shot(self, keys="F12"):
        """Presses F12 (or Shift+F12) and returns the new picture, or None."""
        global last_picture
        before = set(self.pictures())
        self.key(keys)
        for _ in range(60):
            new = [p for p in self.pictures() if p not in before]
            if new:
                path = self.env["HOME"] + "/Pictures/cudalab/" + new[0]
                size = -1
                while size != os.path.getsize(path):  # written whole
                    size = os.path.getsize(path)
                    time.sleep(0.2)
                last_picture = path
                return Picture(path)
            time.sleep(0.25)
        check("F12 saved a picture (" + keys + ")", False, self.stderr())
        return None

    def wait_exit(self, seconds=15):
        try:
            return self.app.wait(seconds)
        except subprocess.TimeoutExpired:
            self.app.kill()
            return None

    def close(self):
        if self.app and self.app.poll() is None:
            self.app.kill()
            self.app.wait()
        self.xvfb.terminate()  # and wait: the next session's X server must not find this one's
        self.xvfb.wait()
        shutil.rmtree(self.work, ignore_errors=True)


def menu_bar(p):
    """The menu bar's words (File, View, Language, Lesson, Help) and the rows they sit on."""
    top = p.text_lines(0, p.w // 3, 0, p.h // 8)[0]
    return p.words(top[0], top[1], gap=max(6, (top[1] - top[0]) // 2)), top


def sidebar_lines(p, bar):
    """The sidebar's lines of text below the menu bar: the "Lessons" header, then its list."""
    unit = bar[1] - bar[0] + 1  # a line of text, at this scale
    return p.text_lines(unit // 2, unit * 9, bar[1] + unit, p.h - 3 * unit)


def main_top(p, bar):
    """The first line of text of the main view (the lesson's title when it is at its top)."""
    lines = p.text_lines(p.w * 45 // 100, p.w * 80 // 100, bar[1] + 2, p.h // 2, step=2)
    return lines[0][0] if lines else p.h


TITLE = (41, 74, 122)  # the dark theme's title bar of the window in focus


def centred_window_title(p):
    """The rows and right end of the title bar of a window in the middle of the screen (Getting
    started), or None."""
    x = p.w // 2
    rows = [y for y in range(p.h // 2) if p.rgb(x, y) == TITLE]
    if len(rows) < 10:
        return None
    y0, y1 = rows[0], rows[-1]
    mid, right, dark = (y0 + y1) // 2, x, 0
    for xx in range(x, p.w):
        if p.rgb(xx, mid) == TITLE or any(p.rgb(xx, y) == TITLE for y in (y0, y1)):
            right, dark = xx, 0
        else:
            dark += 1
            if dark > 12:
                break
    return y0, y1, right


def orange_box(p, x0, y0):
    """The bounding box of the reduction's accuracy bars (Okabe-Ito vermillion) right of x0."""
    found = [(x, y) for y in range(y0, p.h, 4) for x in range(x0, p.w, 4)
             if (lambda c: c[0] > 180 and 60 < c[1] < 130 and c[2] < 60)(p.rgb(x, y))]
    if not found:
        return None
    xs, ys = [f[0] for f in found], [f[1] for f in found]
    return min(xs), min(ys), max(xs), max(ys)


def plot_menu(s, bar, lines, index):
    """A plot's right-click menu: Save as SVG and Save as PNG write files that parse."""
    y0, y1 = lines[1 + index]
    s.click(bar[1] * 3, (y0 + y1) / 2)
    p = s.shot()
    box = orange_box(p, p.w // 4, bar[1] + 2) if p else None
    if not check("the reduction's accuracy plot is on screen (its bars)", box is not None):
        return
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    s.click(x, y, button="3")
    menu = s.shot()
    unit = bar[1] - bar[0] + 1
    items = menu.text_lines(int(x) + 2, int(x) + 8 * unit, int(y) + 2, int(y) + 8 * unit)
    if not check("right-click on a plot opens its menu (two lines)", len(items) >= 2, str(items)):
        return
    s.hold("Escape")
    for line, ext in ((items[0], ".svg"), (items[1], ".png")):
        before = set(s.pictures())
        s.click(x, y, button="3")
        s.click(x + 3 * unit, (line[0] + line[1]) / 2)
        new = []
        for _ in range(40):
            new = [f for f in s.pictures() if f not in before and f.endswith(ext)]
            if new:
                break
            time.sleep(0.25)
        if not check("the plot's menu saved a %s file" % ext, bool(new), s.stderr()):
            continue
        path = s.env["HOME"] + "/Pictures/cudalab/" + new[0]
        time.sleep(0.5)
        if ext == ".svg":
            import xml.etree.ElementTree as ET
            try:
                root = ET.parse(path).getroot()
                ok = root.tag.endswith("svg") and len(list(root.iter())) > 10
            except ET.ParseError as e:
                ok, root = False, e
            check("the SVG parses, with the plot's shapes in it", ok, str(root))
        else:
            w, h = png_size(path)
            check("the plot's PNG has a picture (%dx%d)" % (w, h), w > 100 and h > 50)


def walk(width, height, scale_steps):
    s = Session(width, height)
    try:
        if not s.start():
            return
        s.fit_window()
        for _ in range(scale_steps):  # Ctrl+= : a quarter more each
            s.key("ctrl+equal")
        want_scale = 1.0 + 0.25 * scale_steps
        st = s.settings(lambda st: abs(st.get("ui_scale", 0) - want_scale) < 1e-6)
        if scale_steps:
            check("Ctrl+= set the UI scale to %g, saved as it changed" % want_scale,
                  abs(st.get("ui_scale", 0) - want_scale) < 1e-6, str(st))
        p = s.shot()
        if not p:
            return
        check("F12 saved the window at its size (%dx%d)" % (width, height),
              (p.w, p.h) == (width, height), "%dx%d" % (p.w, p.h))
        words, bar = menu_bar(p)
        check("the menu bar shows five menus", len(words) == 5, str(words))

        # A first start says what cudalab is and where to start, in a window of its own; its
        # close button (the title bar's right end) closes it.
        title = centred_window_title(p)
        if check("the first start shows Getting started", title is not None):
            y0, y1, right = title
            s.click(right - (y1 - y0 + 1) / 2, (y0 + y1) / 2)
            p = s.shot()
            if p:
                check("its close button closed it", centred_window_title(p) is None)
        if not p:
            return

        # Every lesson from the sidebar, each opening at its top.
        previous, tops, menu_lines = p, {}, None
        # The sidebar lists the lessons where they fit (the first lesson has few parameters, so
        # its sidebar has fewer lines than the lessons only when they are a drop-down).
        first_lines = sidebar_lines(p, bar)
        listed = len(first_lines) >= len(LESSONS) + 1
        for i, lesson in enumerate(LESSONS):
            if listed:
                y0, y1 = first_lines[1 + i]
                s.click(bar[1] * 3, (y0 + y1) / 2)
            elif i:
                # A short window: the sidebar's lessons are a drop-down; the menu bar's Lesson
                # menu lists them too, one line each, in the same order. Its lines are found in a
                # picture of it open; then it is closed (Escape) and opened again to click one (a
                # menu pictured by F12 no longer takes the click).
                lesson_x = (words[3][0] + words[3][1]) / 2
                if not menu_lines:
                    s.click(lesson_x, (bar[0] + bar[1]) / 2)
                    menu = s.shot()
                    if not menu:
                        break
                    menu_lines = menu.text_lines(words[3][0],
                                                 words[3][0] + 6 * (bar[1] - bar[0] + 1),
                                                 bar[1] + 2, menu.h)
                    s.hold("Escape")
                    if not check("the Lesson menu lists every lesson",
                                 len(menu_lines) >= len(LESSONS), str(menu_lines)):
                        break
                s.click(lesson_x, (bar[0] + bar[1]) / 2)
                s.click(lesson_x, (menu_lines[i][0] + menu_lines[i][1]) / 2)
            p = s.shot()
            if not p:
                break
            name = os.path.basename(p.path)
            check("the sidebar opened %s (%s)" % (lesson, name),
                  name.startswith("cudalab-%s-" % lesson))
            tops[lesson] = main_top(p, bar)
            if i:
                check("%s looks unlike the lesson before" % lesson,
                      p.region_differs(previous, p.w // 3, p.w - 20, bar[1] + 2, p.h // 3))
            previous = p
        if tops:
            lowest = max(tops.values())
            check("every lesson opened at its top (its title's first row within two lines of the "
                  "menu bar)", lowest - bar[1] <= 4 * (bar[1] - bar[0] + 1), str(tops))

        shown = LESSONS[-1]
        if listed and "reduction" in LESSONS:
            plot_menu(s, bar, first_lines, LESSONS.index("reduction"))
            shown = "reduction"

        # The mouse wheel scrolls the lesson's view.
        before = s.shot()
        s.xdo("mousemove", str(width * 2 // 3), str(height // 2))
        for _ in range(6):
            s.xdo("click", "5")
            time.sleep(0.1)
        time.sleep(0.5)
        scrolled = s.shot()
        if before and scrolled:
            check("the mouse wheel scrolled the lesson", scrolled.region_differs(
                before, scrolled.w // 3, scrolled.w - 20, bar[1] + 2, scrolled.h // 3))

        # Shift+F12: the window at twice the pixels, for slides.
        big = s.shot("shift+F12")
        if big:
            check("Shift+F12 saved the window at twice the pixels",
                  (big.w, big.h) == (2 * width, 2 * height), "%dx%d" % (big.w, big.h))

        # Presentation mode: the lesson alone (no sidebar, no menu bar), Escape to come back.
        s.key("F5")
        pres = s.shot()
        if pres:
            check("F5 presents the lesson alone (no menu bar)", len(menu_bar(pres)[0]) != 5 or
                  pres.region_differs(p, 0, pres.w // 4, 0, pres.h // 2))
        s.key("Escape")
        back = s.shot()
        if back:
            check("Escape left presentation mode (the menu bar is back)",
                  len(menu_bar(back)[0]) == 5)

        # The language menu: Korean, chosen with the mouse, saved at once. Its lines are found in
        # a picture of it open; then each is tried, the menu opened again for each.
        lang_x = (words[2][0] + words[2][1]) / 2
        s.click(lang_x, (bar[0] + bar[1]) / 2)
        menu = s.shot()
        chosen = None
        if menu:
            items = menu.text_lines(words[2][0], words[2][0] + (bar[1] - bar[0]) * 8,
                                    bar[1] + 2, menu.h // 2)
            s.hold("Escape")
            for y0, y1 in items[:6]:
                s.click(lang_x, (bar[0] + bar[1]) / 2)
                s.click(lang_x, (y0 + y1) / 2)
                chosen = s.settings(lambda st: st.get("language") == "ko", 2).get("language")
                if chosen == "ko":
                    break
        check("the language menu chose Korean, saved at once", chosen == "ko", str(chosen))
        korean = s.shot()
        if korean:
            check("the menu bar changed language", korean.region_differs(
                back or p, 0, korean.w // 3, bar[0], bar[1] + 1))

        # Ctrl+Q: the app ends at once, exit code 0, the settings kept.
        s.key("ctrl+q")
        rc = s.wait_exit()
        check("Ctrl+Q ended the app with exit code 0", rc == 0, "exit %s\n%s" % (rc, s.stderr()))
        st = s.settings(lambda st: st.get("lesson") == shown)
        check("the settings kept the lesson, the language and the scale",
              st.get("lesson") == shown and st.get("language") == "ko" and
              abs(st.get("ui_scale", 0) - want_scale) < 1e-6, str(st))

        # Started again: the same lesson, language and scale; then the window's close button.
        if s.start():
            again = s.shot()
            if again:
                check("started again on the same lesson", os.path.basename(again.path).startswith(
                    "cudalab-%s-" % shown), again.path)
                check("started again at the same size",
                      (again.w, again.h) == (width, height), "%dx%d" % (again.w, again.h))
            subprocess.run([X_CLOSE, s.win], env=s.env)
            rc = s.wait_exit()
            check("the window's close button ended the app with exit code 0", rc == 0,
                  "exit %s\n%s" % (rc, s.stderr()))
    finally:
        s.close()


start = time.monotonic()
print("--- 1920 x 1080, UI scale 1", flush=True)
walk(1920, 1080, 0)
print("--- 1280 x 720, UI scale 2 (Ctrl+= four times)", flush=True)
walk(1280, 720, 4)
print("%d failure(s) in %.0f s" % (len(failures), time.monotonic() - start))
sys.exit(1 if failures else 0)
