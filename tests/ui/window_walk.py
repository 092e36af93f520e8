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
pictures too: the sidebar's lines of text, the menu bar's words. Then the playground at 1440 x 900:
its editor with Korean and Chinese typed, a click on a machine-code instruction, and the
comparison chosen in its combo and started with its button (Check at every size greyed out
without a GPU, and a click on it doing nothing).

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
X_GRAB, X_KEYMAP = (os.path.join(os.path.dirname(X_CLOSE), n) for n in ("x_grab", "x_keymap"))
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
            kept = os.path.join(FAILURE_DIR, "window_walk-failure-%d%s" % (
                len(failures), os.path.splitext(last_picture)[1]))
            os.makedirs(FAILURE_DIR, exist_ok=True)
            shutil.copy(last_picture, kept)
            print("   the window at that moment: " + kept, flush=True)
    return ok


class Picture:
    """A picture F12 saved (PNG), or the screen as x_grab read it (PPM): pixels, and where its
    text is."""

    def __init__(self, path):
        self.path = path
        self._px = self._ppm = None
        if path.endswith(".ppm"):
            with open(path, "rb") as f:
                data = f.read()
            magic, w, h = data.split(maxsplit=3)[:3]
            self.w, self.h = int(w), int(h)
            self._ppm = data[len(data) - self.w * self.h * 3:]  # after the header, whatever it is
        else:
            self.w, self.h = png_size(path)

    def rgb(self, x, y):
        if self._ppm is not None:
            i = (y * self.w + x) * 3
            return self._ppm[i], self._ppm[i + 1], self._ppm[i + 2]
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

    def boxes(self, colour, x0, x1, y0, y1, unit, min_h=None):
        """Buttons (or fields) filled with `colour` between x0..x1 and y0..y1: a list of
        (left, top, right, bottom), top to bottom, then left to right. Found by their rows of
        colour at least a text line long; a row through the label breaks into pieces, so the rows
        above and below it join (the same left end) where the button's left padding fills the
        rows between (between two buttons lies the background)."""
        done, open_ = [], []
        for y in range(y0, y1):
            runs, start = [], None
            for x in range(x0, x1 + 1):
                c = x < x1 and self.rgb(x, y) == colour
                if c and start is None:
                    start = x
                elif not c and start is not None:
                    if x - start >= unit:
                        runs.append((start, x - 1))
                    start = None
            still = []
            for a, b in runs:
                for box in open_ + done:
                    if abs(box[0] - a) <= 3 and b <= box[2] + 3 and all(
                            self.rgb(max(a, box[0]) + 3, yy) == colour
                            for yy in range(box[3], y)):
                        box[0], box[2], box[3] = min(box[0], a), max(box[2], b), y
                        if any(d is box for d in done):
                            done = [d for d in done if d is not box]
                        still.append(box)
                        break
                else:
                    still.append([a, y, b, y])
            done += [b for b in open_ if not any(b is t for t in still)]
            open_ = still
        done += open_
        min_h = unit // 2 if min_h is None else min_h
        return sorted((tuple(b) for b in done if b[3] - b[1] >= min_h),
                      key=lambda b: (b[1] // 4, b[0]))


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

    def key(self, keys, keep_pointer=False):
        if not keep_pointer:
            self.pointer_in_window()
        self.xdo("key", keys)
        time.sleep(0.3)  # a few frames at the slowest (a picture taken after it waits for its file)

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
        time.sleep(0.5)

    def pictures(self):
        d = self.env["HOME"] + "/Pictures/cudalab"
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def grab(self):
        """The screen as a person sees it now (hover and tooltips included), or None."""
        global last_picture
        path = self.work + "/grab-%d.ppm" % time.monotonic_ns()
        if subprocess.run([X_GRAB, path], env=self.env).returncode != 0:
            return None
        # A Picture of a grab holds its pixels: the grab before (6 MB at 1920 x 1080) goes.
        if getattr(self, "last_grab", None) and os.path.exists(self.last_grab):
            os.remove(self.last_grab)
        self.last_grab = last_picture = path
        return Picture(path)

    def look(self):
        """The screen a few frames from now, the pointer out of the way (on the status bar): what
        F12 would save, without the second or so a PNG file takes."""
        self.pointer_in_window()
        time.sleep(0.4)
        return self.grab()

    def new_files(self, before, ext, seconds=10):
        """The files the app saved in its export folder since `before` (a set of names) ending in
        `ext`, written whole; waits up to `seconds` for one."""
        for _ in range(int(seconds * 4)):
            new = [f for f in self.pictures() if f not in before and f.endswith(ext)]
            if new:
                time.sleep(0.5)
                return [self.env["HOME"] + "/Pictures/cudalab/" + f for f in new]
            time.sleep(0.25)
        return []

    def shot(self, keys="F12", keep_pointer=False):
        """Presses F12 (or Shift+F12) and returns the new picture, or None. With keep_pointer the
        pointer stays where it is (over a tooltip's button, say)."""
        global last_picture
        before = set(self.pictures())
        self.key(keys, keep_pointer)
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


BUTTON = (40, 76, 119)  # the dark theme's button, enabled, not under the pointer
BUTTON_OFF = (33, 56, 84)  # the same, greyed out (its lesson at work)
BUTTON_HELD = (15, 135, 250)  # the same, held down
FRAME = (33, 52, 80)  # the dark theme's field, slider and radio button
EDITOR = FRAME  # the playground's editor: a field's colour as its background


def rows_of(boxes):
    """Boxes grouped by the row they stand on."""
    rows = []
    for b in boxes:
        if rows and abs(rows[-1][0][1] - b[1]) <= 3:
            rows[-1].append(b)
        else:
            rows.append([b])
    return rows


def centre(b):
    return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2


def radios(p, y0, y1, unit):
    """The tops of the radio buttons not chosen (a chosen one has a dot in it) at the sidebar's
    left edge between rows y0 and y1."""
    return [b[1] for b in p.boxes(FRAME, 0, 3 * unit, y0, y1, unit) if b[2] - b[0] < 2 * unit]


def wait_idle(s, box, seconds=40):
    """The screen once the button `box` is enabled again (the lesson's work is done)."""
    s.pointer_in_window()
    p = None
    for _ in range(int(seconds * 2)):
        p = s.grab()
        if not p or p.rgb(box[0] + 3, (box[1] + box[3]) // 2) == BUTTON:
            return p
        time.sleep(0.5)
    return p


def press(s, a, before, region):
    """Holds the button `a` down and lets go, as a person clicks: (lit, ran, the screen after),
    or None when no screen could be read. Lit: it took the click (the held colour); ran: its
    work started (the button greyed while it ran) or `region` (x0, x1, y0, y1) of the screen
    changed from `before`."""
    x, y = centre(a)
    s.xdo("mousemove", str(int(x)), str(int(y)))
    time.sleep(0.25)
    s.xdo("mousedown", "1")
    time.sleep(0.3)
    held = s.grab()
    s.xdo("mouseup", "1")
    time.sleep(0.3)
    busy = s.grab()
    lit = held is not None and held.rgb(a[0] + 3, int(y)) == BUTTON_HELD
    busy = busy is not None and busy.rgb(a[0] + 3, int(y)) == BUTTON_OFF
    after = wait_idle(s, a)
    if not after:
        return None
    return lit, busy or after.region_differs(before, *region), after


def changed_box(p, q, x0, x1, y0, y1):
    """The bounding box of what differs between two pictures in a region, or None."""
    xs, ys = [], []
    for y in range(y0, y1, 2):
        for x in range(x0, x1, 2):
            if p.rgb(x, y) != q.rgb(x, y):
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def use_transfers(s, bar, lines, words):
    """The transfers lesson used as the README says: a tooltip, every action pressed, the results
    exported, a control moved, a preset saved, chosen and loaded, a pin kept across a change of
    lesson, a panel's Save PNG, a lesson plan stepped through. Buttons are found by their colour
    in the sidebar, in the order the lesson draws them."""
    unit = bar[1] - bar[0] + 1
    y0, y1 = lines[1 + LESSONS.index("transfers")]
    s.click(bar[1] * 3, (y0 + y1) / 2)
    p = s.shot()
    if not p:
        return
    side = p.w * 17 // 100  # the sidebar: 300 of 1920 pixels
    below = lines[len(LESSONS)][1] + unit  # under the list of lessons
    rows = rows_of(p.boxes(BUTTON, 0, side, below, p.h - 2 * unit, unit))
    if not check("the transfers sidebar shows its buttons (presets, pin, sizes, actions, export)",
                 len(rows) >= 7 and len(rows[3]) >= 3 and len(rows[-1]) == 2, str(rows)):
        return
    presets_button, save_preset, pin = rows[0][0], rows[1][0], rows[2][0]
    actions, exports = [r[0] for r in rows[4:-1]], rows[-1]
    kernels = (pin[3], actions[0][1])  # the rows of the parameters

    # A tooltip: the pointer resting on an action says what it does.
    # (F12 leaves hover out of its pictures, so the screen itself is read.)
    a = actions[0]
    s.pointer_in_window()
    plain = s.grab()
    s.xdo("mousemove", str(int(centre(a)[0])), str(int(centre(a)[1])))
    time.sleep(1.5)
    tip = s.grab()
    check("resting on an action shows its tooltip", plain and tip and tip.region_differs(
        plain, int(centre(a)[0]) + unit, min(p.w, a[2] + 25 * unit), a[1],
        min(p.h, a[3] + 5 * unit)))

    # Every action: held down, its button lights up (it takes the click); let go, it works
    # (its button off while it does) or the view changes. A model's action run again with the
    # same parameters (the chain of kernels without a GPU) shows the same figures: one may not.
    before, ran = s.look(), []  # the screen, as the ones after are
    for k, a in enumerate(actions):
        pressed = press(s, a, before, (side, p.w, bar[1] + 2, p.h - 2 * unit))
        if not pressed:
            return
        lit, worked, before = pressed
        ran.append(worked)
        check("action %d of %d lit up when pressed" % (k + 1, len(actions)), lit)
    check("the actions ran (at work, or the view changed): %s" % ran,
          sum(ran) >= len(actions) - 1)

    # Export CSV and JSON: files that parse.
    for box, ext in zip(exports, (".csv", ".json")):
        known = set(s.pictures())
        s.click(*centre(box))
        new = s.new_files(known, ext)
        if not check("Export %s saved a file" % ext[1:].upper(), bool(new), s.stderr()):
            continue
        with open(new[0]) as f:
            text = f.read()
        if ext == ".json":
            try:
                ok = bool(json.loads(text))
            except ValueError:
                ok = False
        else:
            ok = len(text.splitlines()) >= 3 and "," in text.splitlines()[0]
        check("the %s file parses, with the measured rows" % ext[1:].upper(), ok, text[:200])

    # A control moved: another kernel (a radio button), and the lesson runs again at once.
    chosen_before = radios(before, *kernels, unit)
    if not check("the kernel's radio buttons are found", len(chosen_before) >= 2,
                 str(chosen_before)):
        return
    s.click(unit, chosen_before[0] + unit / 2)  # the first kernel not chosen
    moved = wait_idle(s, actions[0])
    if not moved:
        return
    chosen_after = radios(moved, *kernels, unit)
    check("a click on a radio button chose another kernel", chosen_after != chosen_before,
          "%s, then %s" % (chosen_before, chosen_after))
    check("the lesson ran again at once for it",
          moved.region_differs(before, side, p.w - 20, bar[1] + 2, p.h // 2))

    # Presets: this kernel saved under a name; Defaults chosen; the saved one loaded.
    preset_dir = s.env["XDG_CONFIG_HOME"] + "/cudalab/presets"
    s.click(*centre(save_preset))
    s.xdo("type", "--delay", "40", "walk preset")
    s.hold("Return")  # the name field has the keys: held, as ImGui reads them
    saved = [f for f in (os.listdir(preset_dir) if os.path.isdir(preset_dir) else [])]
    check("Save as preset wrote a preset file", bool(saved), s.stderr())
    # The list: where the screen changed when it opened (a popup over the sidebar).
    s.pointer_in_window()
    plain = s.grab()
    s.click(*centre(presets_button))
    listing = s.grab()
    box = changed_box(plain, listing, 0, side + 6 * unit, presets_button[3] + 1,
                      p.h - 2 * unit) if plain and listing else None
    names = listing.text_lines(box[0] + unit // 2, min(box[2], box[0] + 6 * unit), box[1],
                               box[3]) if box else []
    s.hold("Escape")
    if not check("the presets list shows Defaults and the saved preset", len(names) >= 2,
                 "%s in %s" % (names, box)):
        return
    for line, want, what in ((names[0], chosen_before, "Defaults"),
                             (names[-1], chosen_after, "the saved preset")):
        s.click(*centre(presets_button))
        s.click(box[0] + 2 * unit, (line[0] + line[1]) / 2)
        q = wait_idle(s, actions[0])
        got = radios(q, *kernels, unit) if q else None
        check("choosing %s set its kernel" % what, got == want, "%s, not %s" % (got, want))

    # A pin (Ctrl+P), kept while another lesson is shown and drawn when this one is back.
    unpinned = s.look()
    s.key("ctrl+p")
    pinned = s.look()
    if unpinned and pinned:
        check("Ctrl+P pinned the run (the status bar says so)",
              pinned.region_differs(unpinned, 0, p.w // 2, p.h - unit - 4, p.h))
    for lesson in ("reduction", "transfers"):
        y0, y1 = lines[1 + LESSONS.index(lesson)]
        s.click(bar[1] * 3, (y0 + y1) / 2)
    back = s.look()
    if back and unpinned:
        check("back on the lesson, the pinned run is drawn beside this one",
              back.region_differs(unpinned, side, p.w - 20, bar[1] + 2, p.h // 2))

    # A panel's Save PNG: the panel alone, in a file of its own.
    s.pointer_in_window()
    now = s.grab()  # (F12's pictures leave out the buttons of some panels)
    panel_buttons = now.boxes(BUTTON, p.w * 85 // 100, p.w - 10, bar[1], p.h - 2 * unit, unit,
                              min_h=unit // 3) if now else []
    if check("the first panel has its Save PNG button", bool(panel_buttons)):
        known = set(s.pictures())
        s.click(*centre(panel_buttons[0]))
        new = s.new_files(known, ".png")
        if check("the panel's Save PNG saved a file", bool(new), s.stderr()):
            w, h = png_size(new[0])
            k = s.settings().get("export_scale", 1)  # File > Panels' "Save PNG" buttons use
            check("the panel's picture is the panel, not the window (%dx%d at %dx)" % (w, h, k),
                  10 * unit * k < w < (p.w - side) * k and 3 * unit * k < h < p.h * k)

    # A lesson plan from the File menu (its fifth bright line opens the course's plans; Close
    # lesson plan is greyed out), then the next step (Page Down) and back (Page Up).
    file_x, bar_y = (words[0][0] + words[0][1]) / 2, (bar[0] + bar[1]) / 2
    s.pointer_in_window()
    plain = s.grab()
    s.click(file_x, bar_y)
    menu = s.grab()
    box = changed_box(plain, menu, 0, p.w // 2, bar[1] + 1, p.h // 2) if plain and menu else None
    items = menu.text_lines(box[0] + unit // 2, box[0] + 8 * unit, box[1], box[3]) if box else []
    if not check("the File menu shows its lines", len(items) >= 6, "%s in %s" % (items, box)):
        return
    open_y = (items[4][0] + items[4][1]) / 2
    s.xdo("mousemove", str(box[0] + 2 * unit), str(int(open_y)))
    time.sleep(0.8)
    sub = s.grab()
    sub_box = changed_box(menu, sub, box[2] + 1, p.w, bar[1] + 1, p.h // 2) if sub else None
    plans = sub.text_lines(sub_box[0] + unit // 2, min(sub_box[2], sub_box[0] + 10 * unit),
                           sub_box[1], sub_box[3]) if sub_box else []
    if not check("Open lesson plan lists the course's plans", len(plans) >= 3,
                 "%s in %s" % (plans, sub_box)):
        s.hold("Escape")
        return
    # Course 001: its first step (compile in the playground) works without a GPU.
    s.xdo("mousemove", str(sub_box[0] + 2 * unit), str(int(open_y)))
    time.sleep(0.3)
    s.click(sub_box[0] + 2 * unit, (plans[1][0] + plans[1][1]) / 2)
    first = s.look()
    if not first:
        return

    def plan_title(q):
        """The plan bar's first line (its step), as rows of pixels, or None."""
        band = q.text_lines(side + unit, q.w * 6 // 10, bar[1] + 2, bar[1] + 5 * unit)
        if not band:
            return None
        return [[q.rgb(x, y) for x in range(side + unit, q.w * 6 // 10)]
                for y in range(band[0][0], band[0][1] + 1)]

    start = plan_title(first)
    check("the plan opened, its step shown above the lesson", start is not None and
          first.region_differs(back, side, p.w - 20, bar[1] + 2, bar[1] + 5 * unit))
    step = first
    for _ in range(3):  # a step with an action runs it first, then goes on
        s.key("Next")
        time.sleep(1.0)
        step = s.look()
        if not step or plan_title(step) != start:
            break
    check("Page Down went to the plan's next step", step is not None and
          plan_title(step) not in (None, start))
    s.key("Prior")
    again = s.look()
    check("Page Up came back to the step before", again is not None and
          plan_title(again) == start)
    # Closed from the File menu (its sixth bright line now): the lesson alone again.
    s.click(file_x, bar_y)
    menu = s.grab()
    items = menu.text_lines(box[0] + unit // 2, box[0] + 8 * unit, box[1], box[3]) if menu else []
    if check("Close lesson plan is no longer greyed out", len(items) >= 7, str(items)):
        s.click(box[0] + 2 * unit, (items[5][0] + items[5][1]) / 2)
        closed = s.look()
        check("Close lesson plan closed it", closed is not None and plan_title(closed) != start)
    else:
        s.hold("Escape")
    y0, y1 = lines[1 + LESSONS.index("transfers")]
    s.click(bar[1] * 3, (y0 + y1) / 2)


# What each lesson's sidebar ends with, without a GPU, once it is scrolled to its end: its rows of
# buttons (not the small ones of presets and sizes), top to bottom, one letter a button. R: an
# action that runs here (pressed by the walk); S: the same, but its results are the same as those
# on screen (a CPU evaluation of the same values, instant and exact), so only its lighting up is
# seen; G: an action that needs a GPU (greyed out); x: another button (not pressed); E: an export
# button. Then a small button clicked before the actions, so that they run on another value than
# the lesson opened with (a control moved, and less work for this machine): (its row counted from
# the last row of small buttons upwards, its place in the row), or None. Last, whether the main
# view is scrolled to its end first, where the actions' results show. The transfers lesson is
# walked on its own (use_transfers); Your GPU and the launch configuration have no button that
# works without a GPU.
LESSON_BUTTONS = {
    "precision": ("S R G EE", (0, 1), True),  # "2^20" numbers summed
    "memory": ("R G EE", None, False),
    "matmul": ("G G R EE", None, False),
    "tensor-cores": ("G EE", None, False),
    "reduction": ("G G R EE", (0, 0), False),  # "1,000,003" numbers
    "playground": ("RG xxx x x", None, False),
    "atomics": ("G G R E", None, False),
    "stencil": ("G R", None, False),
}


def sidebar_buttons(p, side, top, unit):
    """The sidebar's buttons below `top`: (rows of wide ones, each a list of (box, enabled)),
    (rows of small ones). Wide: a frame's height (a line and its padding) and at least twice as
    wide (a combo's arrow is square); small: the presets' and sizes' buttons, about a line."""
    found = [(b, True) for b in p.boxes(BUTTON, 0, side, top, p.h - 2 * unit, unit)] + \
        [(b, False) for b in p.boxes(BUTTON_OFF, 0, side, top, p.h - 2 * unit, unit)]
    found.sort(key=lambda t: (t[0][1] // 4, t[0][0]))
    wide, small, rows = [], [], []
    for b, on in found:
        h, w = b[3] - b[1], b[2] - b[0]
        if h >= 1.3 * unit and w >= 2 * h:
            wide.append((b, on))
        elif h < 1.3 * unit and on:
            small.append(b)
    for b, on in wide:
        if rows and abs(rows[-1][0][0][1] - b[1]) <= 3:
            rows[-1].append((b, on))
        else:
            rows.append([(b, on)])
    return rows, rows_of(small)


def press_actions(s, bar, lesson):
    """A lesson's buttons as LESSON_BUTTONS says, read after its sidebar is scrolled to its end:
    the actions that need a GPU greyed out; a small button moved the lesson to another value; each
    action that runs here, held down, lights up, and let go, works (its button off while it
    does, or the view changes)."""
    spec, small_click, to_end = LESSON_BUTTONS[lesson]
    want = spec.split()
    unit = bar[1] - bar[0] + 1
    side = s.width * 17 // 100
    s.xdo("mousemove", str(side // 2), str(s.height // 2))
    s.xdo("click", "--repeat", "12", "--delay", "20", "5")  # the sidebar scrolled to its end
    rows, smalls, p = [], [], None
    for _ in range(80):  # until the lesson's work since it opened is done (its R buttons lit)
        p = s.look()
        if not p:
            return
        rows, smalls = sidebar_buttons(p, side, bar[1] + 8 * unit, unit)
        rows = rows[-len(want):]
        if len(rows) == len(want) and all(on for row, w in zip(rows, want)
                                           for (_, on), c in zip(row, w) if c in "RS"):
            break
        time.sleep(0.5)
    got = ["".join((c if on else "G") if c in "RSG" else c for (_, on), c in zip(row, w))
           for row, w in zip(rows, want)]
    shape = [len(r) for r in rows] == [len(w) for w in want]
    if not check("%s: the sidebar ends with its buttons, the GPU's greyed out (%s)" %
                 (lesson, spec), shape and got == want, "found %s" % got):
        return
    if small_click:
        above = [r for r in smalls if r[0][3] < rows[0][0][0][1]]
        row, place = small_click
        if not check("%s: the sizes' small buttons are found" % lesson,
                     len(above) > row and len(above[-1 - row]) > place, str(above)):
            return
        s.click(*centre(above[-1 - row][place]))
    if to_end:
        s.xdo("mousemove", str(s.width * 2 // 3), str(s.height // 2))
        s.xdo("click", "--repeat", "40", "--delay", "10", "5")
    before = s.look()
    for row, w in zip(rows, want):
        for (a, _), c in zip(row, w):
            if c not in "RS":
                continue
            pressed = press(s, a, before, (side, p.w - 20, bar[1] + 2, p.h - 2 * unit))
            if not pressed:
                return
            lit, ran, before = pressed
            check("%s: an action lit up when pressed" % lesson, lit)
            if c == "R":
                check("%s: the action worked (at work, or the view changed)" % lesson, ran)
    s.xdo("mousemove", str(side // 2), str(s.height // 2))
    # The sidebar back at its top, its list of lessons where it was.
    s.xdo("click", "--repeat", "12", "--delay", "20", "4")
    if to_end:
        s.xdo("mousemove", str(s.width * 2 // 3), str(s.height // 2))
        s.xdo("click", "--repeat", "40", "--delay", "10", "4")


def changed_rows(p, q, x0, x1, y0, y1):
    """Bands of rows where two pictures differ between x0 and x1, each with the rightmost column
    that differs: [(top, bottom, right)]."""
    bands = []
    for y in range(y0, y1):
        xs = [x for x in range(x0, x1) if p.rgb(x, y) != q.rgb(x, y)]
        if not xs:
            continue
        if bands and bands[-1][1] >= y - 2:
            t, _, r = bands[-1]
            bands[-1] = (t, y, max(r, xs[-1]))
        else:
            bands.append((y, y, xs[-1]))
    return bands


def open_playground(s):
    """The playground opened in Session `s` (1440 x 900), the first start's Getting started
    closed: its picture and the menu bar's rows, or None."""
    if not s.start("--lesson", "playground"):
        return None
    s.fit_window()
    p = s.shot()
    if not p:
        return None
    bar = menu_bar(p)[1]
    title = centred_window_title(p)
    if title:  # the first start's Getting started, closed
        y0, y1, right = title
        s.click(right - (y1 - y0 + 1) / 2, (y0 + y1) / 2)
        p = s.shot()
        if not p:
            return None
    return p, bar


def playground_at_its_end(s):
    """The playground opened in Session `s` and scrolled to its end, where the machine code's
    panes and its comparison are: (the picture before the scroll, the menu bar's rows, the text
    line's height), or None. The starting kernel compiles as the lesson opens; the wheel turns
    low in the lesson, below the editor (which would scroll itself)."""
    opened = open_playground(s)
    if not opened:
        return None
    p, bar = opened
    unit = bar[1] - bar[0] + 1
    time.sleep(2.0)
    s.xdo("mousemove", str(p.w * 2 // 3), str(p.h - 4 * unit))
    s.xdo("click", "--repeat", "60", "--delay", "20", "5")
    time.sleep(1.0)
    return p, bar, unit


def editor_walk():
    """The playground in a 1440-wide window: its editor as wide as the lesson, and Korean and
    Chinese typed into it drawn as letters. Ten '?' on one line, ten Korean and Chinese letters
    on the next: drawn as '?' (a font atlas without them), the two lines would be the same; drawn
    as letters (each wider than DejaVu Sans Mono's '?'), the second is longer."""
    s = Session(1440, 900)
    try:
        opened = open_playground(s)
        if not opened:
            return
        p, bar = opened
        unit = bar[1] - bar[0] + 1
        # The editor: the longest run of its background down a column of the lesson; its width
        # along the middle of that run.
        x = p.w * 6 // 10
        best, start = (0, 0), None
        for y in range(bar[1], p.h + 1):
            inside = y < p.h and p.rgb(x, y) == EDITOR
            if inside and start is None:
                start = y
            elif not inside and start is not None:
                best = max(best, (y - start, start))
                start = None
        length, top = best
        mid = top + length // 2
        left = right = x
        while left > 0 and p.rgb(left - 1, mid) == EDITOR:
            left -= 1
        while right + 1 < p.w and p.rgb(right + 1, mid) == EDITOR:
            right += 1
        side = p.w * 21 // 100  # the sidebar: 300 of 1440 pixels
        if not check("the playground's editor is as wide as the lesson (%d of %d pixels)" %
                     (right - left, p.w - side), length > 3 * unit and
                     right - left > 0.8 * (p.w - side)):
            return
        text = "// \uc548\ub155\ud558\uc138\uc694\u4e2d\u6587\u6ce8\u91ca\u5b57"  # 안녕하세요中文注释字
        subprocess.run([X_KEYMAP, text], env=s.env, stdout=subprocess.DEVNULL)
        # Just under the last line (the field holds two lines more than the text), then the
        # text's end.
        s.click((left + right) / 2, top + unit)
        s.key("ctrl+End")
        s.hold("Return")
        s.xdo("type", "--delay", "80", "// ??????????")
        s.hold("Return")
        s.xdo("type", "--delay", "150", text)
        time.sleep(1.0)
        s.click(p.w * 6 // 10, (bar[0] + bar[1]) / 2)  # the menu bar's empty end: out of it
        q = s.shot()
        if not q:
            return
        # Right of the gutter (its line numbers change too: a line more).
        bands = changed_rows(p, q, left + 4 * unit, right, max(bar[1] + 1, top - 30 * unit),
                             min(p.h, top + length))
        lines = [b for b in bands if b[1] - b[0] >= unit // 3]
        if not check("the two typed lines show in the editor", len(lines) >= 2, str(bands)):
            return
        a, b = lines[-2], lines[-1]
        check("Korean and Chinese typed in the editor draw as letters, not '?' (the line "
              "reaches %d, ten '?' %d)" % (b[2], a[2]), b[2] > a[2] + unit // 2)
    finally:
        s.close()


# The palette's seven hues (app/ui/theme.cpp), which band the machine code's lines.
PALETTE = [(0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233),
           (213, 94, 0), (240, 228, 66)]


def colour_bands(p, x0, y0, unit):
    """The narrow bars of a palette colour with a field's colour on their left (the machine code
    panes' bands, the editor's margin): {x: [(y, colour), ...]}, by the bar's left edge."""
    out = {}
    for y in range(y0, p.h, 2):
        x = x0
        while x < p.w - 1:
            c = p.rgb(x, y)
            if c in PALETTE and p.rgb(x - 1, y) == FRAME:
                run = 1
                while x + run < p.w and p.rgb(x + run, y) == c:
                    run += 1
                if unit * 0.1 <= run <= unit * 0.8:
                    out.setdefault(x, []).append((y, c, run))
                x += run
            x += 1
    return {x: rows for x, rows in out.items() if len(rows) >= 3}


def machine_code_walk():
    """The playground's machine code: a click on a SASS instruction highlights every instruction
    of its source line, in the SASS and in the PTX, and no other."""
    s = Session(1440, 900)
    try:
        opened = playground_at_its_end(s)
        if not opened:
            return
        p, bar, unit = opened
        p = s.look()
        if not p:
            return
        side = p.w * 21 // 100
        bands = colour_bands(p, side, bar[1] + 1, unit)
        xs = sorted(bands)
        if not check("the PTX and SASS panes show banded instructions (%d columns of bands)" %
                     len(xs), len(xs) >= 2, str(xs)):
            return
        ptx_x, sass_x = xs[-2], xs[-1]
        colours = {c for _, c, _ in bands[sass_x]} & {c for _, c, _ in bands[ptx_x]}
        if not check("a source line has instructions in both panes", bool(colours)):
            return
        # A colour that is not every row's, and the middle of its first run of rows in the SASS.
        chosen = min(colours, key=lambda c: sum(1 for _, k, _ in bands[sass_x] if k == c))
        ys = [y for y, c, _ in bands[sass_x] if c == chosen]
        s.click(sass_x + 8 * unit, ys[len(ys) // 2])
        q = s.look()
        if not q:
            return
        after = colour_bands(q, side, bar[1] + 1, unit)
        lit = {True: 0, False: 0}
        wrong = []
        for x in (ptx_x, sass_x):
            for y, c, run in after.get(x, []):
                tinted = q.rgb(x + run + 2, y) != FRAME
                if tinted == (c == chosen):
                    lit[tinted] += 1
                else:
                    wrong.append((x, y, c, tinted))
        check("the clicked line's instructions are highlighted in both panes (%d rows), the "
              "others not (%d rows)" % (lit[True], lit[False]),
              lit[True] >= 2 and lit[False] >= 2 and not wrong, str(wrong[:5]))
    finally:
        s.close()


def tinted_rows(p, x0, x1, y0, y1):
    """Rows between y0 and y1 where a third of the pixels from x0 to x1 have one of the
    comparison's tints over a field: (red ones, green ones). The dark theme's error and good colours at a quarter
    over FRAME: red lifts red over green, green lifts green over red."""
    red = green = 0
    for y in range(y0, y1):
        r_n = g_n = 0
        xs = range(x0, x1, 2)
        for x in xs:
            r, g, b = p.rgb(x, y)
            r_n += r - g > 15 and r > FRAME[0] + 20
            g_n += g - r > 25 and g > FRAME[1] + 20
        # Each tint fills its own half of the listing: a third of the row is plenty.
        red += r_n > len(xs) // 3
        green += g_n > len(xs) // 3
    return red, green


def compare_walk():
    """The machine code's comparison, chosen and started with the pointer: the combo opened, its
    second variant chosen, Compare pressed; the two listings then stand side by side with rows
    only one has tinted. Without a GPU, Check at every size stays greyed out."""
    s = Session(1440, 900)
    try:
        opened = playground_at_its_end(s)
        if not opened:
            return
        p, bar, unit = opened
        p = s.look()
        if not p:
            return
        side = p.w * 21 // 100
        # The combo's arrow (a square button) with the Compare button right of it, on one row.
        pair = None
        for row in rows_of(p.boxes(BUTTON, side, p.w - 20, bar[1] + 1, p.h - 2 * unit, unit)):
            for a, b in zip(row, row[1:]):
                square = abs((a[2] - a[0]) - (a[3] - a[1])) <= 3
                if square and b[2] - b[0] > a[2] - a[0] and b[0] - a[2] < 2 * unit:
                    pair = (a, b)
        if not check("the comparison's choice and its Compare button are found", pair is not None):
            return
        arrow, button = pair
        greyed = [b for b in p.boxes(BUTTON_OFF, side, p.w - 20, button[3] + 1, p.h - 2 * unit,
                                     unit) if b[2] - b[0] > 4 * unit]
        check("without a GPU, Check at every size is greyed out", bool(greyed))
        if greyed:
            s.click(*centre(greyed[0]))
            q = s.look()
            check("a click on the greyed-out Check at every size changes nothing",
                  q is not None and not q.region_differs(p, side, p.w - 20, greyed[0][1],
                                                         p.h - 2 * unit))
        # The combo opened: its list drawn below it, four variants; the second one chosen.
        s.click(*centre(arrow))
        opened_list = s.look()
        if not opened_list:
            return
        bands = changed_rows(p, opened_list, side, arrow[2] + 1, arrow[3] + 1, p.h - unit)
        if not check("the combo opened its list", bool(bands), str(bands)):
            return
        top, bottom = bands[0][0], max(b[1] for b in bands)
        s.click((side + arrow[0]) / 2, top + 1.5 * (bottom - top) / 4)
        chosen = s.look()
        if not chosen:
            return
        check("another variant is chosen (the combo's text changed)",
              chosen.region_differs(p, side, arrow[0], arrow[1], arrow[3]))
        # Compare: both compiles and disassemblies on a worker thread, then the listings.
        s.click(*centre(button))
        after = None
        for _ in range(60):
            time.sleep(0.5)
            after = s.look()
            if after and changed_rows(chosen, after, side, p.w - 20, button[3] + 1,
                                      p.h - unit):
                time.sleep(1.0)
                after = s.look()
                break
        if not after:
            return
        grown = changed_rows(chosen, after, side, p.w - 20, button[3] + 1, p.h - unit)
        check("Compare showed the comparison under its button", bool(grown))
        # The side-by-side listing, scrolled to its first rows (the wheel over it scrolls it).
        s.xdo("mousemove", str(p.w * 2 // 3), str(min(p.h - 4 * unit, button[3] + 8 * unit)))
        s.xdo("click", "--repeat", "40", "--delay", "20", "4")
        time.sleep(1.0)
        end = s.look()
        if not end:
            return
        red, green = tinted_rows(end, side + unit, p.w - 3 * unit, bar[1] + 1, p.h - unit)
        check("the listings side by side mark what only one has (%d red rows, %d green)" %
              (red, green), red > 0 and green > 0)
    finally:
        s.close()


def walk(width, height, scale_steps):
    s = Session(width, height)
    try:
        if not s.start():
            return
        s.fit_window()
        for _ in range(scale_steps):  # Ctrl+= : a quarter more each
            s.key("ctrl+equal")
        want_scale = 1.0 + 0.25 * scale_steps
        if scale_steps:
            st = s.settings(lambda st: abs(st.get("ui_scale", 0) - want_scale) < 1e-6)
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
            if listed and not scale_steps and lesson in LESSON_BUTTONS:
                press_actions(s, bar, lesson)
        if tops:
            lowest = max(tops.values())
            check("every lesson opened at its top (its title's first row within two lines of the "
                  "menu bar)", lowest - bar[1] <= 4 * (bar[1] - bar[0] + 1), str(tops))

        if scale_steps and p:
            # A short view: the introduction's first two lines and "more", which opens it all.
            unit = bar[1] - bar[0] + 1
            # (right of the sidebar: 375 of 1280 pixels at this scale)
            more = p.boxes(BUTTON, p.w * 3 // 10, p.w - 20, bar[1], p.h // 2, unit,
                           min_h=unit // 3)
            if check("a short view cuts the introduction, with 'more'", bool(more)):
                cut = s.look()  # the screen, as the one after is
                s.click(*centre(more[0]))
                opened = s.look()
                check("'more' showed the whole introduction", cut is not None and
                      opened is not None and
                      opened.region_differs(cut, p.w // 4, p.w - 20, more[0][3] + 2, p.h * 2 // 3))

        shown = LESSONS[-1]
        if listed and "reduction" in LESSONS:
            plot_menu(s, bar, first_lines, LESSONS.index("reduction"))
            shown = "reduction"
        if listed and not scale_steps and "transfers" in LESSONS:
            use_transfers(s, bar, first_lines, words)
            shown = "transfers"

        # The mouse wheel scrolls the lesson's view.
        before = s.look()
        s.xdo("mousemove", str(width * 2 // 3), str(height // 2))
        for _ in range(6):
            s.xdo("click", "5")
            time.sleep(0.1)
        time.sleep(0.5)
        scrolled = s.look()
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
        pres = s.look()
        if pres:
            check("F5 presents the lesson alone (no menu bar)", len(menu_bar(pres)[0]) != 5 or
                  pres.region_differs(p, 0, pres.w // 4, 0, pres.h // 2))
        s.key("Escape")
        back = s.look()
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
            # The system's default, English, then Korean: its line is tried first (each line
            # that is not waits two seconds for settings.json).
            order = [2] + [i for i in range(min(len(items), 6)) if i != 2]
            for y0, y1 in (items[i] for i in order if i < len(items)):
                s.click(lang_x, (bar[0] + bar[1]) / 2)
                s.click(lang_x, (y0 + y1) / 2)
                chosen = s.settings(lambda st: st.get("language") == "ko", 2).get("language")
                if chosen == "ko":
                    break
        check("the language menu chose Korean, saved at once", chosen == "ko", str(chosen))
        korean = s.look()
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


def main():
    start = time.monotonic()
    print("--- 1920 x 1080, UI scale 1", flush=True)
    walk(1920, 1080, 0)
    print("--- 1280 x 720, UI scale 2 (Ctrl+= four times)", flush=True)
    walk(1280, 720, 4)
    print("--- 1440 x 900, the playground's editor, Korean and Chinese typed", flush=True)
    editor_walk()
    print("--- 1440 x 900, the playground's machine code, a click on an instruction", flush=True)
    machine_code_walk()
    print("--- 1440 x 900, the machine code's comparison, chosen and pressed", flush=True)
    compare_walk()
    print("%d failure(s) in %.0f s" % (len(failures), time.monotonic() - start))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
