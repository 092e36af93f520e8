#!/usr/bin/env bash
# Every kernel cudalab runs, under all four of compute-sanitizer's tools, on the GPU machine.
#
#   tools/sanitize.sh [--build DIR] [--tools "memcheck racecheck synccheck initcheck"]
#                     [--tests-only | --bench-only] [--suites REGEX] [--benches REGEX]
#                     [--timeout SECONDS] [--out DIR]
#
# For each tool it runs the GPU tests one test suite per process (a sticky error in one suite
# cannot hide the rest) and every benchmark with `cudalab bench ID --quick` (the same kernels at
# small sizes, so racecheck finishes in minutes). It prints one line per tool and suite with the
# sanitizer's error count and whether the program itself passed, keeps each full log under --out
# (default sanitize-logs/), and exits 1 if any sanitizer reported an error or any program failed
# (a run stopped by --timeout, per run, counts as failed: exit 124).
#
# The GPU tests skip, under CUDALAB_SANITIZE=1, what cannot run under a sanitizer and is covered
# by the plain GPU test run: faults, endless loops and out-of-memory made on purpose (FaultGpu,
# OomGpu, CancelGpu, the playground's faulting kernels), a compute-sanitizer started inside
# (PlaygroundSanitizer), and CUPTI's counters (CUPTI refuses to profile under a sanitizer; for the
# same reason the counters-* benchmarks are left out: their kernels are the other benchmarks').
# Under it the tests also use smaller sizes and the playground's longest time limit.
#
# Expected and excluded, by kernel name, nothing else:
#   counterPlain  the atomics lesson's race: `*c = *c + 1` from every thread, wrong on purpose
#                 (the lesson measures how wrong). racecheck checks shared memory only, so it does
#                 not see this global-memory race; it is excluded from every tool all the same, so
#                 a future tool that does see it is not counted as a failure.
set -u

build=build
tools="memcheck racecheck synccheck initcheck"
tests=1
bench=1
suites='.*'
benches='.*'
limit=0
out=sanitize-logs
expected_racy=(counterPlain)
# Suites that racecheck runs one test per process (each test takes minutes under it).
split_racecheck='MatmulGpu|ReductionGpu|StencilGpu|PlaygroundGpu|SummationGpu|AtomicsGpu'
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --tests-only) bench=0; shift ;;
    --bench-only) tests=0; shift ;;
    --suites) suites=$2; shift 2 ;;
    --benches) benches=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then
  echo "sanitize.sh: compute-sanitizer was not found (it comes with the CUDA toolkit)." >&2
  exit 2
fi
app="$build/cudalab"
gtests="$build/tests/cudalab_gpu_tests"
for f in "$app" "$gtests"; do
  [ -x "$f" ] || { echo "sanitize.sh: $f is missing: build first (./setup.sh build)." >&2; exit 2; }
done
mkdir -p "$out"
export CUDALAB_SANITIZE=1

exclude=()
for k in "${expected_racy[@]}"; do exclude+=(--kernel-name-exclude "kns=$k"); done

# One line per run: tool, what, sanitizer errors, the program's exit code, seconds.
failures=0
printf '%-10s %-44s %8s %6s %7s\n' tool what errors exit seconds
run_one() {  # tool label command...
  local tool=$1 label=$2
  shift 2
  local log="$out/$tool-${label//[^A-Za-z0-9_.-]/_}.log"
  local start=$SECONDS
  local extra=()
  [ "$tool" = racecheck ] && extra+=(--racecheck-report all)
  local wrap=()
  [ "$limit" -gt 0 ] && wrap=(timeout -k 10 "$limit")
  "${wrap[@]}" "$sanitizer" --tool "$tool" "${extra[@]}" "${exclude[@]}" --print-limit 20 \
    --target-processes all "$@" >"$log" 2>&1
  local rc=$?
  local errors
  # One summary per process ("ERROR SUMMARY: 3 errors"); not the "... errors were not printed"
  # line --print-limit adds.
  errors=$(grep -E 'ERROR SUMMARY: [0-9]+ errors?$' "$log" |
           sed -E 's/.*ERROR SUMMARY: ([0-9]+).*/\1/' | awk '{s += $1} END {print s + 0}')
  # racecheck reports hazards in its own summary line.
  local hazards
  hazards=$(grep -E 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" |
            sed -E 's/.*RACECHECK SUMMARY: ([0-9]+) hazard.*/\1/' | awk '{s += $1} END {print s + 0}')
  errors=$((errors + hazards))
  # A GPU test binary that found no device exits 77: that is not a pass.
  local program=$rc
  if [ "$rc" -ne 0 ] || [ "$errors" -ne 0 ]; then failures=$((failures + 1)); fi
  printf '%-10s %-44s %8s %6s %7s\n' "$tool" "$label" "$errors" "$program" $((SECONDS - start))
}

if [ "$tests" = 1 ]; then
  # Suite lines end in a dot ("MatmulGpu."); the binary's first line (the CUDA versions) does not.
  mapfile -t all_suites < <("$gtests" --gtest_list_tests | grep -E '^[A-Za-z0-9_/]+\.$' |
                            tr -d . | grep -E "$suites")
fi
if [ "$bench" = 1 ]; then
  mapfile -t benches < <("$app" bench --help 2>/dev/null | sed -n 's/.*Which: //p' | tr ',' '\n' |
                         tr -d ' ' | grep -v '^$' | grep -v '^counters' | grep -E "$benches")
fi

for tool in $tools; do
  if [ "$tests" = 1 ]; then
    for s in "${all_suites[@]}"; do
      if [ "$tool" = racecheck ] && [[ "$s" =~ ^($split_racecheck)$ ]]; then
        # Too slow for one process under racecheck: one process per test.
        mapfile -t names < <("$gtests" --gtest_list_tests --gtest_filter="$s.*" |
                             grep -E '^  ' | sed -E 's/^  ([^ ]+).*/\1/')
        for t in "${names[@]}"; do
          run_one "$tool" "test $s.$t" "$gtests" --gtest_filter="$s.$t"
        done
      else
        run_one "$tool" "test $s" "$gtests" --gtest_filter="$s.*"
      fi
    done
  fi
  if [ "$bench" = 1 ]; then
    for b in "${benches[@]}"; do
      run_one "$tool" "bench $b --quick" "$app" bench "$b" --quick --out "$out/bench-$tool"
    done
  fi
done

echo
echo "excluded by name (expected to race): ${expected_racy[*]}"
if [ "$failures" -ne 0 ]; then
  echo "sanitize.sh: $failures run(s) with sanitizer errors or a failing program; logs in $out/"
  exit 1
fi
echo "sanitize.sh: zero errors everywhere."
