#!/usr/bin/env python3
"""Every include points down the house (ARCHITECTURE.md's map): fails, naming each offending
line, when a file includes a layer above its own.

    kernels/            computation: nothing of app/, no ImGui, no GL
    app/platform/       window, contexts, GL, interop, processes: kernels only
    app/core/           the lesson interface, catalogue, i18n: platform and kernels
    app/plans/          presets and plans: core and kernels
    app/ui/             shell, widgets, plots: plans, core, platform, kernels
    app/lessons/<one>/  a lesson: everything above, and its own folder (no other lesson's)
    app/lessons/        the registry: the lessons
    app/commands/       main and the commands: everything

Usage: include_check.py SOURCE_ROOT"""
import pathlib
import re
import sys

# What each layer may include, by the first folder of the include's path (its root is app/ or
# kernels/). Kernels' own folders (common/, models/, the lessons' computations) are one layer.
KERNEL_DIRS = None  # filled from kernels/ at run time
APP_LAYERS = ["platform", "core", "plans", "ui", "lessons", "commands"]
MAY = {
    "platform": {"platform"},
    "core": {"platform", "core"},
    "plans": {"core", "plans"},
    "ui": {"platform", "core", "plans", "ui"},
    "lessons": {"platform", "core", "plans", "ui", "lessons"},
    "commands": {"platform", "core", "plans", "ui", "lessons", "commands"},
}
# Headers of the libraries only the app's presentation may use.
UI_LIBRARIES = re.compile(r"^(imgui|imgui_internal|GLFW/|glad/|EGL/|GL/|implot)")


def check(root):
    global KERNEL_DIRS
    KERNEL_DIRS = {p.name for p in (root / "kernels").iterdir() if p.is_dir()}
    problems = []
    files = [f for f in (root / "app").rglob("*") if f.suffix in (".cpp", ".hpp", ".h")]
    files += [f for f in (root / "kernels").rglob("*") if f.suffix in (".cpp", ".hpp", ".cu", ".cuh")]
    include = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
    for f in sorted(files):
        rel = f.relative_to(root)
        parts = rel.parts
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            m = include.match(line)
            if not m:
                continue
            path = m.group(2)
            head = path.split("/")[0]
            why = None
            if parts[0] == "kernels":
                if m.group(1) == '"' and head in APP_LAYERS:
                    why = "kernels/ never includes app/"
                elif UI_LIBRARIES.match(path):
                    why = "kernels/ never includes ImGui or GL"
            elif m.group(1) == '"' and head in APP_LAYERS:
                layer = parts[1] if len(parts) > 2 else "commands"
                if head not in MAY.get(layer, set()):
                    why = f"app/{layer}/ sits under app/{head}/"
                elif layer == "lessons" and head == "lessons":
                    # A lesson's folder includes only itself; the registry includes the lessons.
                    own = parts[2] if len(parts) > 3 else None
                    target = path.split("/")[1] if path.count("/") >= 2 else None
                    if own is not None and target != own:
                        why = f"the lesson {own} includes another lesson's or the registry's file"
            if why:
                problems.append(f"{rel}:{n}: {line.strip()}  ({why})")
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems = check(root)
    for p in problems:
        print(p)
    print(f"{len(problems)} include(s) pointing up the house" if problems else
          "every include points down the house")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
