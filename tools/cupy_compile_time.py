#!/usr/bin/env python3
"""CuPy's RawModule compile time for the playground's solutions, on this machine.

The playground's target is CuPy's: a learner's edit-compile-run loop in the app should be no
slower than the same kernel through `cupy.RawModule`, the course's own tool. Absolute
compile times depend on the host's processor (the H100 machines here differ by 2x), so
`cudalab bench playground` runs this script in the same run and compares the two.

  python3 tools/cupy_compile_time.py MANIFEST.json

MANIFEST.json: [{"id": "hypot", "source": "...", "entries": ["hypot_stride"]}, ...]. Prints
one JSON object: {"cupy": version, "results": {id: {"first_ms": .., "later_ms": ..}}}, where
later_ms is the median of 5 compilations of new text (a different variable appended each time,
so neither CuPy's nor NVRTC's cache can serve it) and each compilation ends when every entry
point is loaded (CuPy compiles lazily). Exits 2 when CuPy cannot be imported or has no GPU.
"""
import json
import statistics
import sys
import time


def main() -> int:
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, no driver, no GPU: the bench says so
        print(json.dumps({"error": f"CuPy is not usable here: {e}"}))
        return 2
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    stamp = time.time_ns()
    results = {}
    for item in manifest:
        times = []
        for i in range(6):
            code = item["source"] + f"\n__device__ int cupy_bench_{stamp}_{i} = {i};\n"
            t0 = time.perf_counter()
            module = cupy.RawModule(code=code, options=("-std=c++17",))
            for name in item["entries"]:
                module.get_function(name)
            times.append((time.perf_counter() - t0) * 1e3)
        results[item["id"]] = {"first_ms": times[0], "later_ms": statistics.median(times[1:])}
    print(json.dumps({"cupy": cupy.__version__, "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
