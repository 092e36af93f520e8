#!/usr/bin/env bash
# Every kernel cudalab runs, under all four of compute-sanitizer's tools, on the GPU machine.
#
#   tools/sanitize.sh [--build DIR] [--tools "memcheck racecheck synccheck initcheck"]
#                     [--tests-only | --bench-only] [--suites REGEX] [--benches REGEX]
#                     [--timeout SECONDS] [--jobs N] [--out DIR]
#
# For each tool it runs the GPU tests one test suite per process (a sticky error in one suite
# cannot hide the rest) and every benchmark with `cudalab bench ID --quick` (the same kernels at
# small sizes, so racecheck finishes in minutes). It prints one line per tool and suite with the
# sanitizer's error count and whether the program itself passed, keeps each full log under --out
# (default sanitize-logs/), and exits 1 if any sanitizer reported an error or any program failed
# (a run stopped by --timeout, per run, counts as failed: exit 124). --jobs N runs N processes at
# once (the lines then come in the order the runs finish): the tools are host-bound, and one GPU
# has room for several, so a whole run of every tool fits in minutes rather than an hour.
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
jobs=1
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
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
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

# One line per run: tool, what, sanitizer errors, the program's exit code, seconds. Each run also
# leaves its line in $out/.lines, numbered in the order the runs were planned, for the count.
printf '%-10s %-44s %8s %6s %7s\n' tool what errors exit seconds
rm -rf "$out/.lines"
mkdir -p "$out/.lines"
run_one() {  # number tool label command...
  local number=$1 tool=$2 label=$3
  shift 3
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
  printf '%-10s %-44s %8s %6s %7s\n' "$tool" "$label" "$errors" "$rc" $((SECONDS - start)) |
    tee "$out/.lines/$(printf %05d "$number")"
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

# The plan: tool, label and command of every run, in order.
plan_tool=()
plan_label=()
plan_cmd=()
plan() {  # tool label command...
  plan_tool+=("$1")
  plan_label+=("$2")
  shift 2
  plan_cmd+=("$(printf '%q ' "$@")")
}
for tool in $tools; do
  if [ "$tests" = 1 ]; then
    for s in "${all_suites[@]}"; do
      if [ "$tool" = racecheck ] && [[ "$s" =~ ^($split_racecheck)$ ]]; then
        # Too slow for one process under racecheck: one process per test.
        mapfile -t names < <("$gtests" --gtest_list_tests --gtest_filter="$s.*" |
                             grep -E '^  ' | sed -E 's/^  ([^ ]+).*/\1/')
        for t in "${names[@]}"; do
          plan "$tool" "test $s.$t" "$gtests" --gtest_filter="$s.$t"
        done
      else
        plan "$tool" "test $s" "$gtests" --gtest_filter="$s.*"
      fi
    done
  fi
  if [ "$bench" = 1 ]; then
    for b in "${benches[@]}"; do
      plan "$tool" "bench $b --quick" "$app" bench "$b" --quick --out "$out/bench-$tool-$b"
    done
  fi
done

# Ctrl-C or a kill stops the runs in flight too (background jobs of a script ignore SIGINT): the
# whole process group, this script with them.
trap 'trap - INT TERM; kill 0' INT TERM
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "sanitize.sh: --jobs takes a whole number from 1" >&2; exit 2; }
for i in "${!plan_tool[@]}"; do
  if [ "$jobs" -gt 1 ]; then
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    eval "run_one $i \"\${plan_tool[i]}\" \"\${plan_label[i]}\" ${plan_cmd[i]}" &
  else
    eval "run_one $i \"\${plan_tool[i]}\" \"\${plan_label[i]}\" ${plan_cmd[i]}"
  fi
done
wait

# A run with sanitizer errors, a failing program or no line at all (killed) counts as failed.
failures=0
failed=()
for i in "${!plan_tool[@]}"; do
  line="$out/.lines/$(printf %05d "$i")"
  if [ ! -s "$line" ] || ! awk '{ exit !($(NF-2) == 0 && $(NF-1) == 0) }' "$line"; then
    failures=$((failures + 1))
    failed+=("$i")
  fi
done

# What failed, from each failed run's log: the logs are many and large, and a GPU machine may not
# send them all back, so the summary carries the lines that say why.
for i in "${failed[@]}"; do
  log="$out/${plan_tool[i]}-${plan_label[i]//[^A-Za-z0-9_.-]/_}.log"
  echo
  echo "why ${plan_tool[i]} ${plan_label[i]} failed ($log):"
  grep -E -A4 'Failure$|ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]|Invalid|Race reported|Uninitialized|Barrier error|Google Test trace' \
    "$log" 2>/dev/null | head -40 | sed 's/^/  /'
done

echo
if [ "$jobs" -gt 1 ]; then
  echo "in planned order:"
  cat "$out"/.lines/* 2>/dev/null
  echo
fi
echo "excluded by name (expected to race): ${expected_racy[*]}"
if [ "$failures" -ne 0 ]; then
  echo "sanitize.sh: $failures of ${#plan_tool[@]} run(s) with sanitizer errors, a failing program or no result; logs in $out/"
  exit 1
fi
echo "sanitize.sh: zero errors in all ${#plan_tool[@]} runs."
