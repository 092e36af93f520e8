#!/usr/bin/env python3
"""No file in app/ or kernels/ past what a reader holds at once: at most 800 lines (the plot
module's internal header and files up to 1,000), and no function past 200 lines. Prints the
longest files and functions, and every one over its limit; fails when there is one.

Functions are found by their braces: a `{` after a parameter list `(...)` (and `const`,
`override`, `noexcept`, `-> type`) that is not a control statement's, up to its matching `}`.
Lambdas count as functions of their own (and inside their enclosing one).

Usage: unit_sizes.py SOURCE_ROOT"""
import pathlib
import re
import sys

FILE_LIMIT = 800
FILE_LIMIT_PLOT = 1000  # app/ui/plot/: ImPlot's own files run longer; ours stay under this
FUNCTION_LIMIT = 200
CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype"}


def blank_out(text):
    """The text with comments, strings and character literals replaced by spaces (newlines kept),
    so braces inside them do not count."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, line count) of every function body in the file."""
    code = blank_out(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for i, c in enumerate(code):
        line_of[i] = line
        if c == "\n":
            line += 1
    found, stack = [], []
    sig = re.compile(r"(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:const\s*|override\s*|noexcept\s*|"
                     r"mutable\s*|final\s*|->\s*[\w:<>,\s\*&]+)*$")
    for i, c in enumerate(code):
        if c == "{":
            before = code[max(0, i - 400):i]
            m = sig.search(before)
            name = m.group(1) if m and m.group(1) not in CONTROL else None
            lam = re.search(r"\]\s*(?:\((?:[^()]|\([^()]*\))*\))?\s*(?:mutable\s*)?(?:->\s*[\w:<>,\s\*&]+)?$",
                            before)
            if name is None and lam:
                name = "(lambda)"
            stack.append((name, i))
        elif c == "}" and stack:
            name, start = stack.pop()
            if name:
                first, last = line_of[start], line_of[i]
                found.append((name, first, last - first + 1))
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = [f for d in ("app", "kernels") for f in (root / d).rglob("*")
             if f.suffix in (".cpp", ".hpp", ".cu", ".cuh", ".h")]
    over, sizes, longest = [], [], []
    for f in sorted(files):
        rel = f.relative_to(root).as_posix()
        text = f.read_text(encoding="utf-8")
        lines = text.count("\n")
        limit = FILE_LIMIT_PLOT if rel.startswith("app/ui/plot/") else FILE_LIMIT
        sizes.append((lines, rel))
        if lines > limit:
            over.append(f"{rel}: {lines} lines (at most {limit})")
        for name, first, count in functions(text):
            longest.append((count, f"{rel}:{first} {name}"))
            if count > FUNCTION_LIMIT:
                over.append(f"{rel}:{first}: {name} is {count} lines (at most {FUNCTION_LIMIT})")
    print("longest files:", ", ".join(f"{r} {n}" for n, r in sorted(sizes, reverse=True)[:5]))
    print("longest functions:", ", ".join(f"{w} {n}" for n, w in sorted(longest, reverse=True)[:5]))
    for o in over:
        print(o)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
