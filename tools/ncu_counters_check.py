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
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys

# Counters whose value two runs of the same kernel need not share: they depend on timing (how
# warps interleave, what the caches hold) or, for the L1's bank-conflict counters, on what other
# traffic (global loads filling the same data banks) competes with a shared-memory request.
TIMING = ("sm__warps_active", "sm__cycles_active", "hit_rate", "dram__bytes",
          "l1tex__data_bank_conflicts")


def number(s):
    return float(s.replace(",", "")) if s not in ("", "n/a") else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudalab", default="build/cudalab")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--in-app", help="an existing bench-counters.json (skips step 1)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
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
