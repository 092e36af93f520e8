#!/usr/bin/env python3
"""Put Nsight Compute's counters beside the ones the app reads itself (CUPTI, in the app).

1. `cudalab bench counters --out DIR` profiles every lesson's counters benchmark in the app and
   writes the raw counters of every kernel it profiled, in launch order, to bench-counters.json.
2. The same command runs again under ncu with CUDALAB_COUNTERS_MARK_ONLY=1: the app then reads
   nothing and only runs the same kernels inside an NVTX range, which ncu profiles for the same
   metrics (--nvtx-include cudalab-counters/).
3. Launch by launch, every counter both read is compared. Counts of work (sectors, requests,
   wavefronts, bank conflicts, instructions, branches) must agree within 1%; counters that
   depend on timing (occupancy reached, SMs busy, cache hit rates, DRAM bytes) are printed
   beside them with their difference, since two runs of one kernel differ there.

    python3 tools/ncu_counters_check.py --cudalab build/cudalab --out /tmp/counters

Prints one Markdown table for docs/BENCHMARKS.md; exits non-zero when a count disagrees.

With --playground it checks the playground's SASS pane and editor margin instead, for every
exercise's solution (assets/playground/*.solution.cu):
1. `cudalab check FILE --exercise ID --json --lines` reads, in the worker, CUPTI's instruction
   counts of the first launch of each kernel: per machine instruction (each with the learner's line
   the SASS pane gives it, from nvdisasm's line information) and per source line.
2. The same check runs under ncu's Source page (SourceCounters, `--print-source cuda,sass`), first
   launch of each kernel, without the worker's own counters.
3. Compared: every instruction's "Instructions Executed" (within 1%), every line of the learner's
   file on the Source page against the app's count for that line (within 1%), and each
   instruction's line against the line ncu lists it under. Code inlined from a header (mma.h's
   WMMA functions) ncu lists under the header's own lines; the editor's margin counts it under
   "not a line of yours" as well (so the lines compare as they are), and the SASS pane bands it in
   the colour of the learner's line that called it, as Compiler Explorer does: the table counts
   those instructions.

    python3 tools/ncu_counters_check.py --playground --cudalab build/cudalab --out /tmp/pg
"""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys

# Counters whose value two runs of the same kernel need not share: they depend on timing (how
# warps interleave, what the caches hold) or, for the L1's bank-conflict counters, on what other
# traffic (global loads filling the same data banks) competes with a shared-memory request.
TIMING = ("sm__warps_active", "sm__cycles_active", "hit_rate", "dram__bytes",
          "l1tex__data_bank_conflicts")


def number(s):
    return float(s.replace(",", "")) if s not in ("", "n/a") else 0.0


def rel_diff(x, y):
    """Relative to the larger of the two; 0 when both are 0."""
    return abs(x - y) / max(abs(x), abs(y)) if (x or y) else 0.0


def ncu_source_rows(text):
    """Instruction rows of ncu's `--page source --print-source cuda,sass --csv` output:
    (function, address, file, line, instructions executed, {stall reason: samples}). A "File Path"
    row starts a file, a "Function Name" row a function, a row whose first cell is a number one of
    its lines; the instruction rows under a line follow it. The stall columns are "stall_REASON"
    (all samples; the "(Not Issued)" twins are left out)."""
    out = []
    path = function = None
    line = 0
    executed = None
    stall_cols = {}
    for r in csv.reader(io.StringIO(text)):
        if not r:
            continue
        if r[0] == "File Path":
            path = r[1]
        elif r[0] == "Function Name":
            function = r[1]
        elif r[0] == "Line No":
            executed = r.index("Instructions Executed")
            stall_cols = {c[len("stall_"):]: i for i, c in enumerate(r)
                          if c.startswith("stall_") and "(" not in c}
        elif r[0].isdigit():
            line = int(r[0])
        elif r[0] == "" and executed is not None and len(r) > executed and r[2].startswith("0x"):
            stalls = {k: number(r[i]) for k, i in stall_cols.items() if i < len(r)}
            out.append((function, int(r[2], 16), path, line, number(r[executed]), stalls))
    return out


def ncu_reason(name):
    """CUPTI's stall reason in ncu's Source page words: long_scoreboard -> long_sb, lg_throttle ->
    lg, math_pipe_throttle -> math, no_instructions -> no_inst, sleeping -> sleep, ..."""
    name = name.replace("scoreboard", "sb").replace("math_pipe", "math")
    for suffix in ("_throttle", "_stall", "_miss"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return {"no_instructions": "no_inst", "sleeping": "sleep"}.get(name, name)


def shares(counts):
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def playground(a):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folder = os.path.join(root, "assets", "playground")
    rows = ["| exercise | instructions within 1% | lines within 1% | instructions on ncu's line | "
            "header code (the pane's calling line; ncu's header) | stall samples, app / ncu | "
            "distance per line | distance per reason | top reason, app / ncu |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    problems = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".solution.cu"):
            continue
        if a.exercises and name[: -len(".solution.cu")] not in a.exercises.split(","):
            continue
        ex = name[: -len(".solution.cu")]
        path = os.path.join(folder, name)
        with open(path) as f:
            source = f.read()
        entries = re.findall(r'extern\s+"C"\s+__global__\s+void\s+(\w+)', source)
        if not entries:  # the element-wise exercise: the app's two wrappers apply the learner's f
            entries = ["cudalab_apply_float", "cudalab_apply_double"]
        check = [a.cudalab, "check", path, "--exercise", ex]
        app = subprocess.run(check + ["--json", "--lines", "--stalls"], capture_output=True,
                             text=True)
        try:
            counters = json.loads(app.stdout)["files"][0]["counters"]
            stalls = json.loads(app.stdout)["files"][0].get("stalls", {})
        except (ValueError, KeyError, IndexError):
            problems.append(f"{ex}: the app gave no counters: {app.stdout[-300:]} {app.stderr[-300:]}")
            continue
        if counters.get("problem"):
            problems.append(f"{ex}: the app read no counters: {counters['problem']}")
            continue
        # Each kernel's first launch, one ncu run per kernel: the element-wise exercise launches
        # its float kernel 22 times before its double kernel, so one run with -c 2 would profile
        # the float kernel twice.
        text = ""
        for entry in entries:
            cmd = [a.ncu, "--csv", "--page", "source", "--print-source", "cuda,sass", "--section",
                   "SourceCounters", "-k", "regex:^" + entry + "$", "-c", "1"] + check
            run = subprocess.run(cmd, capture_output=True, text=True, cwd=a.out)
            text += run.stdout + "\n"
        with open(os.path.join(a.out, f"ncu-source-{ex}.csv"), "w") as f:
            f.write(text)
        ncu = ncu_source_rows(text)
        if not ncu:
            problems.append(f"{ex}: ncu gave no Source page: {run.stdout[-300:]} {run.stderr[-300:]}")
            continue
        start = {}
        for fn, addr, _, _, _, _ in ncu:
            start[fn] = min(start.get(fn, addr), addr)
        by_pc = {(fn, addr - start[fn]): (p, line, n) for fn, addr, p, line, n, _ in ncu}
        ncu_stalls = {(fn, addr - start[fn]): st for fn, addr, _, _, _, st in ncu}
        program = {p for p, _, _ in by_pc.values() if p and p.endswith("/kernel.cu")}
        # Instructions.
        same = compared = on_line = mapped = inlined = 0
        ncu_line = {}     # learner's line -> ncu's count of that line of the learner's file
        # Lines past the learner's text are the app's own (the element-wise wrappers).
        last = source.count("\n") + 1
        # Only the kernels the app read (each in a worker run of its own: CUPTI's SASS metrics
        # give records once per process); both of the element-wise exercise's.
        app_functions = {i["function"] for i in counters["instructions"]}
        for (fn, pc), (p, line, n) in by_pc.items():
            if p in program and fn in app_functions:
                ncu_line[line] = ncu_line.get(line, 0) + n
        for i in counters["instructions"]:
            key = (i["function"], i["pc"])
            if key not in by_pc:
                problems.append(f"{ex}: ncu has no instruction at {key}")
                continue
            p, line, n = by_pc[key]
            compared += 1
            ok = rel_diff(i["inst_executed"], n) <= 0.01
            same += ok
            if not ok:
                problems.append(f"{ex}: {key} app {i['inst_executed']} ncu {n:.0f}")
            if "line" not in i:
                continue
            if p in program:
                mapped += 1
                # Line 0 in the app: code of no line of the learner's (ncu: past the text).
                same_line = i["line"] == line or (i["line"] == 0 and line > last)
                on_line += same_line
                if not same_line:
                    problems.append(f"{ex}: {key} on line {i['line']} in the app, {line} in ncu")
            elif i["line"]:
                inlined += 1
        # Lines: the app's count of each line against ncu's, plus the header code on it.
        lines_ok = lines = 0
        for l in counters["lines"]:
            if l["line"] <= 0:
                continue
            lines += 1
            want = ncu_line.get(l["line"], 0)
            ok = rel_diff(l["inst_executed"], want) <= 0.01
            lines_ok += ok
            if not ok:
                problems.append(f"{ex}: line {l['line']} app {l['inst_executed']} ncu {want:.0f}")
        # Where the kernel waits: samples are statistics, so the shares are compared, per line
        # (the app's line of each sampled instruction, as the margin shows it; ncu's line of the
        # learner's file, header code under 0 on both sides) and per stall reason, as the
        # distance between the two distributions (half the sum of |difference|: 0 the same, 1
        # nothing in common).
        stall_text = stalls.get("problem") or "-"
        if stalls.get("instructions"):
            app_line, ncu_by_line, app_reason, ncu_by_reason = {}, {}, {}, {}
            for i in stalls["instructions"]:
                line = i.get("line", 0)
                line = line if line <= last else 0  # the app's own wrapper lines, as below
                for reason, n in i["samples"].items():
                    app_line[line] = app_line.get(line, 0) + n
                    app_reason[ncu_reason(reason)] = app_reason.get(ncu_reason(reason), 0) + n
            for key, st in ncu_stalls.items():
                p, line, _ = by_pc[key]
                line = line if p in program and line <= last else 0
                for reason, n in st.items():
                    ncu_by_line[line] = ncu_by_line.get(line, 0) + n
                    ncu_by_reason[reason] = ncu_by_reason.get(reason, 0) + n
            def distance(x, y):
                x, y = shares(x), shares(y)
                return sum(abs(x.get(k, 0) - y.get(k, 0)) for k in set(x) | set(y)) / 2
            top = lambda d: max(d, key=d.get) if d else "-"
            stall_text = (f"{sum(app_reason.values()):.0f} / {sum(ncu_by_reason.values()):.0f} | "
                          f"{distance(app_line, ncu_by_line):.2f} | "
                          f"{distance(app_reason, ncu_by_reason):.2f} | {top(app_reason)} / "
                          f"{top(ncu_by_reason)}")
        else:
            stall_text += " | | |"
        rows.append(f"| {ex} | {same} of {compared} | {lines_ok} of {lines} | {on_line} of "
                    f"{mapped} | {inlined} | {stall_text} |")
    table = "\n".join(rows) + "\n"
    if problems:
        table += "\nDisagreements:\n\n" + "\n".join("- " + p for p in problems[:60]) + "\n"
    with open(os.path.join(a.out, "ncu-playground-check.md"), "w") as f:
        f.write(table)
    print(table)
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudalab", default="build/cudalab")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--in-app", help="an existing bench-counters.json (skips step 1)")
    ap.add_argument("--playground", action="store_true",
                    help="the playground's per-instruction and per-line counts, every solution")
    ap.add_argument("--exercises", default="",
                    help="with --playground: only these exercises (comma-separated ids)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    a.cudalab = os.path.abspath(a.cudalab)
    if a.playground:
        return playground(a)
    in_app = a.in_app
    if not in_app:
        run = subprocess.run([a.cudalab, "bench", "counters", "--out", a.out])
        in_app = os.path.join(a.out, "bench-counters.json")
        if not os.path.exists(in_app):
            sys.stderr.write("the app wrote no bench-counters.json\n")
            return run.returncode or 1
    with open(in_app) as f:
        profiled = json.load(f)["profiled"]
    launches = [(p["what"], i, l) for p in profiled for i, l in enumerate(p["launches"])]
    metrics = sorted({m for _, _, l in launches for m in l})
    env = dict(os.environ, CUDALAB_COUNTERS_MARK_ONLY="1")
    cmd = [a.ncu, "--csv", "--page", "raw", "--nvtx", "--nvtx-include", "cudalab-counters/",
           "--metrics", ",".join(metrics), a.cudalab, "bench", "counters", "--out",
           os.path.join(a.out, "under-ncu")]
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if '"ID"' not in run.stdout:
        sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
        return run.returncode or 1
    text = run.stdout[run.stdout.index('"ID"'):]
    with open(os.path.join(a.out, "ncu-counters-raw.csv"), "w") as f:
        f.write(text)
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r.get("ID", "").isdigit()]
    if len(rows) != len(launches):
        sys.stderr.write(f"ncu profiled {len(rows)} kernels; the app {len(launches)}\n")
        return 1
    counts = {"both": 0, "agree": 0}
    timing = {"both": 0, "agree": 0}
    worst_count = ("", "", 0.0)
    worst_timing = ("", "", 0.0)
    per_bench = {}
    differing = []
    for (what, i, app), row in zip(launches, rows):
        b = per_bench.setdefault(what, {"kernels": 0, "counters": 0, "agree": 0, "timing": 0,
                                        "timing_agree": 0, "worst_timing": 0.0})
        b["kernels"] += 1
        for metric, value in app.items():
            if metric not in row:
                continue
            ncu = number(row[metric])
            # Relative to the larger of the two: 0 against 6 bank conflicts is a 100% difference.
            rel = abs(value - ncu) / max(abs(ncu), abs(value)) if (value or ncu) else 0.0
            where = f"{what} kernel {i + 1} ({row.get('Kernel Name', '?')[:40]})"
            if any(t in metric for t in TIMING):
                timing["both"] += 1
                timing["agree"] += rel <= 0.01
                b["timing"] += 1
                b["timing_agree"] += rel <= 0.01
                b["worst_timing"] = max(b["worst_timing"], rel)
                if rel > worst_timing[2]:
                    worst_timing = (where, metric, rel)
            else:
                counts["both"] += 1
                counts["agree"] += rel <= 0.01
                if rel > 0.01:
                    differing.append(f"| {where} | {metric} | {value:.0f} | {ncu:.0f} |")
                b["counters"] += 1
                b["agree"] += rel <= 0.01
                if rel > worst_count[2]:
                    worst_count = (where, metric, rel)
    lines = ["| benchmark | kernels | counts of work within 1% | timing-dependent within 1% | "
             "largest timing-dependent difference |", "| --- | ---: | ---: | ---: | ---: |"]
    for what, b in per_bench.items():
        lines.append(f"| {what} | {b['kernels']} | {b['agree']} of {b['counters']} | "
                     f"{b['timing_agree']} of {b['timing']} | {100 * b['worst_timing']:.1f}% |")
    lines.append("")
    lines.append(f"Counts of work: {counts['agree']} of {counts['both']} agree within 1%"
                 + (f"; the largest difference {100 * worst_count[2]:.3f}% ({worst_count[1]}, "
                    f"{worst_count[0]})." if worst_count[0] else "; none differs at all."))
    lines.append(f"Timing- or traffic-dependent counters (occupancy reached, SMs busy, hit "
                 f"rates, DRAM bytes, L1 bank conflicts): {timing['agree']} of {timing['both']} within 1%"
                 + (f"; the largest difference {100 * worst_timing[2]:.1f}% ({worst_timing[1]}, "
                    f"{worst_timing[0]})." if worst_timing[0] else "."))
    if differing:
        lines += ["", "Counts of work that differ:", "", "| kernel | counter | app | ncu |",
                  "| --- | --- | ---: | ---: |"] + differing[:40]
    table = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "ncu-counters-check.md"), "w") as f:
        f.write(table)
    print(table)
    return 0 if counts["agree"] == counts["both"] else 1


if __name__ == "__main__":
    sys.exit(main())
