#!/usr/bin/env python3
"""Lists the learner-facing texts xgettext cannot find by itself as tr("...") calls in a C++ file,
so that they join cudalab's catalogue beside the source's marked strings: the course's presets and
plans (assets/presets, assets/plans), and the label, help and unit (when it is a word) of every
parameter declared as
`ParamSpec kName{.id = "id", .label = "label", ..., .unit = "unit", .help = "help", ...}` in the
sources (shown through paramSlider and helpTooltip, which translate them).
Usage: i18n_extra.py SOURCE_ROOT OUT.cpp"""
import json
import pathlib
import re
import sys


def literal(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def braced_fields(text, start):
    """The comma-separated fields of the brace initializer opening at text[start] == '{': each
    a list of the string literals in it (adjacent literals joined), or None when it has none."""
    fields, cur, i, depth = [], [], start + 1, 0
    lits = []
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            lits.append(text[i + 1:j])
            i = j + 1
            continue
        if c in "({[":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "}" and depth == 0:
            fields.append("".join(lits) if lits else None)
            return fields
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            fields.append("".join(lits) if lits else None)
            lits = []
        i += 1
    return fields


def designated_fields(text, start):
    """The designated fields (`.name = value`) of the brace initializer opening at
    text[start] == '{': a dict of each name to the string literals in its value (adjacent literals
    joined), or None when it has none."""
    fields, i, depth, cur = {}, start + 1, 0, start + 1
    lits = []

    def close(end):
        m = re.match(r"\s*\.(\w+)\s*=", text[cur:end])
        if m:
            fields[m.group(1)] = "".join(lits) if lits else None

    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            lits.append(text[i + 1:j])
            i = j + 1
            continue
        if c in "({[":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "}" and depth == 0:
            close(i)
            return fields
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            close(i)
            lits, cur = [], i + 1
        i += 1
    return fields


def without_comments(text):
    """The source with its // and /* */ comments blanked (string literals kept)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text[i] == "'":  # a character literal, '"' among them
            j = i + 1
            while j < len(text) and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            i = len(text) if j < 0 else j + 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def param_specs(root):
    """(file, label, help, unit or None) of every ParamSpec initializer in app/ and kernels/, one by one in an
    array of them."""
    out = []
    pattern = re.compile(r"ParamSpec\s+k\w+(\[\w*\])?\s*(?:=\s*)?\{")
    for f in sorted(list((root / "app").rglob("*.[ch]pp")) + list((root / "kernels").rglob("*.[ch]pp"))):
        text = without_comments(f.read_text(encoding="utf-8"))
        for m in pattern.finditer(text):
            starts = [m.end() - 1]
            if m.group(1) is not None:  # an array: each of its braced entries
                starts, i, depth = [], m.end(), 0
                while i < len(text):
                    c = text[i]
                    if c == '"':
                        i += 1
                        while text[i] != '"':
                            i += 2 if text[i] == "\\" else 1
                    elif c == "{":
                        if depth == 0:
                            starts.append(i)
                        depth += 1
                    elif c == "}":
                        if depth == 0:
                            break
                        depth -= 1
                    i += 1
            for start in starts:
                fields = designated_fields(text, start)
                if "label" in fields:
                    # A unit that is a word ("elements", "threads") is translated beside the
                    # number; a symbol ("ms", "MiB") is not.
                    unit = fields.get("unit")
                    unit = unit if unit and re.search(r"[a-z]{4,}", unit) else None
                    out.append((f.relative_to(root), fields["label"], fields.get("help"), unit))
    return out


def table_columns(root):
    """(file, texts) of every `TableColumn kName[] = {{"header", "short", priority, "help"}, ...}`
    in app/: the headers, short headers and help of the data tables (ui/data_table)."""
    out = []
    pattern = re.compile(r"TableColumn\s+k\w+\[\]\s*=\s*\{")
    for f in sorted((root / "app").rglob("*.cpp")):
        text = without_comments(f.read_text(encoding="utf-8"))
        for m in pattern.finditer(text):
            i = m.end()
            while True:
                while i < len(text) and text[i] in " \n\t,":
                    i += 1
                if i >= len(text) or text[i] != "{":
                    break
                fields = braced_fields(text, i)
                texts = [t for k, t in enumerate(fields) if k in (0, 1, 3) and t]
                out.append((f.relative_to(root), texts))
                depth, j = 0, i
                while True:  # past this entry's closing brace
                    if text[j] == '"':
                        j += 1
                        while text[j] != '"':
                            j += 2 if text[j] == "\\" else 1
                    elif text[j] == "{":
                        depth += 1
                    elif text[j] == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                i = j + 1
    return out


def message(lines, c_literal):
    """One message for xgettext: tr() on a C string literal, whose '%' is no format."""
    lines.append("// xgettext:no-c-format")
    lines.append(f"tr({c_literal});")


def json_messages(lines, obj, keys):
    """The messages of a JSON object's text fields `keys` (those present and not empty)."""
    for key in keys:
        if isinstance(obj.get(key), str) and obj[key]:
            message(lines, literal(obj[key]))


def main():
    root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    assets = root / "assets"
    lines = ["// Generated by cmake/i18n_extra.py. Do not edit."]
    for f, texts in table_columns(root):
        lines.append(f"// {f}")
        for t in texts:
            message(lines, f'"{t}"')
    for f, label, help_, unit in param_specs(root):
        lines.append(f"// {f}")
        for t in (label, help_, unit):
            if t:
                message(lines, f'"{t}"')
    for f in sorted((assets / "presets").glob("*.json")):
        lines.append(f"// assets/presets/{f.name}")
        json_messages(lines, json.loads(f.read_text(encoding="utf-8")), ("name", "description"))
    for f in sorted((assets / "plans").glob("*.json")):
        p = json.loads(f.read_text(encoding="utf-8"))
        lines.append(f"// assets/plans/{f.name}")
        json_messages(lines, p, ("title", "description"))
        for step in p.get("steps", []):
            json_messages(lines, step, ("title", "question", "note"))
    text = "\n".join(lines) + "\n"
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")


main()
