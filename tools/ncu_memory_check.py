#!/usr/bin/env python3
"""Compare the memory lesson's access model with Nsight Compute's counters.

Runs `cudalab bench memory-model` under ncu, which launches every modelled kernel once and writes
the model's counts to bench-memory-model.json; then joins ncu's counters for the same launches
(in launch order) and prints one Markdown table for docs/BENCHMARKS.md.

    python3 tools/ncu_memory_check.py --cudalab build/cudalab --out /tmp/ncu-check

Needs ncu on PATH and permission to read the GPU's performance counters. The counters the app
reads itself are compared with Nsight Compute's by tools/ncu_counters_check.py.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys

METRICS = {
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_load_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "global_store_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "shared_load_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_load_requests": "smsp__inst_executed_op_shared_ld.sum",
    "shared_store_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared_store_requests": "smsp__inst_executed_op_shared_st.sum",
}
SASS = {
    "shared_load_wavefronts_sass": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_store_wavefronts_sass":
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
KERNELS = ("strided_copy|traverse_rows|traverse_columns|read_aos|read_soa|transpose_naive|"
           "transpose_tiled|copy_tiled|copy_through_tile|matmul_course|matmul_swapped|"
           "shared_strided")
# Per request: global sectors, shared wavefronts.
RATIOS = [
    ("global load", "global_load_sectors", "global_load_requests"),
    ("global store", "global_store_sectors", "global_store_requests"),
    ("shared load", "shared_load_wavefronts", "shared_load_requests"),
    ("shared store", "shared_store_wavefronts", "shared_store_requests"),
]


def number(s):
    return float(s.replace(",", "")) if s not in ("", "n/a") else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudalab", default="build/cudalab")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu", default="ncu")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    # The SASS-level shared wavefront counts come from each instruction's own addresses (what
    # the model computes); the hardware counters also see wavefronts added when other L1 traffic
    # (global loads filling the same data banks) competes with a request. Use them if this ncu
    # has them.
    query = subprocess.run([a.ncu, "--query-metrics"], capture_output=True, text=True).stdout
    sass = {k: v for k, v in SASS.items() if v.split(".")[0] in query}
    metrics = dict(METRICS, **sass)
    cmd = [a.ncu, "--csv", "--page", "raw", "--metrics", ",".join(metrics.values()),
           "--kernel-name", "regex:" + KERNELS, a.cudalab, "bench", "memory-model", "--out", a.out]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
        return run.returncode
    # ncu prints the program's own output first; the CSV starts at its header line.
    text = run.stdout[run.stdout.index('"ID"'):]
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r.get("ID", "").isdigit()]
    with open(os.path.join(a.out, "bench-memory-model.json")) as f:
        cases = json.load(f)["cases"]
    if len(rows) != len(cases):
        sys.stderr.write(f"ncu profiled {len(rows)} kernels; the model has {len(cases)} cases\n")
        return 1
    lines = ["| case | counter | model | Nsight Compute (hardware) | Nsight Compute (SASS, from "
             "the addresses) | match |", "| --- | --- | ---: | ---: | ---: | --- |"]
    mismatches = 0
    for case, row in zip(cases, rows):
        if case["kernel"] not in row["Kernel Name"]:
            sys.stderr.write(f"order mismatch: {case['label']} vs {row['Kernel Name']}\n")
            return 1
        for name, num, den in RATIOS:
            if case[den] == 0:
                continue
            # The shared-strided kernel fills its buffer with shared stores the model leaves out.
            if case["kernel"] == "shared_strided" and name == "shared store":
                continue
            model = case[num] / case[den]
            measured_den = number(row[METRICS[den]])
            measured = number(row[METRICS[num]]) / measured_den if measured_den else float("nan")
            sass_key = num + "_sass"
            from_sass = None
            if sass_key in sass and measured_den:
                from_sass = number(row[sass[sass_key]]) / measured_den
            compared = from_sass if from_sass is not None else measured
            ok = abs(model - compared) <= 0.005 * max(model, 1e-9) + 1e-9
            mismatches += not ok
            sass_cell = f"{from_sass:.3f}" if from_sass is not None else ""
            lines.append(f"| {case['label']} | {name} | {model:.3f} | {measured:.3f} | "
                         f"{sass_cell} | {'yes' if ok else '**NO**'} |")
    lines.append("")
    lines.append(f"{mismatches} mismatches.")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "ncu-memory-check.md"), "w") as f:
        f.write(table)
    with open(os.path.join(a.out, "ncu-raw.csv"), "w") as f:
        f.write(text)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
