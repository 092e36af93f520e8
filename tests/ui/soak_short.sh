#!/usr/bin/env bash
# A half-minute soak of one lesson, through the binary: it cycles, takes its baseline, makes every
# lesson afresh there and at the end (Shell::remakeLessons), and writes a report that passes.
#   soak_short.sh CUDALAB OUTDIR
set -uo pipefail
cudalab=$1 out=$2/soak_short
rm -rf "$out"; mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"   # never touch the user's settings
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
"$cudalab" --lesson atomics soak --minutes 0.5 --seed 3 --out "$out" >"$out/log" 2>&1
rc=$?
check "the soak passed: exit $rc" '[ "$rc" = 0 ] && grep -q "Result: passed" "$out/bench-soak.md"'
check "memory read with every lesson made afresh, at the baseline and at the end" \
  '[ "$(grep -c "with every lesson made afresh" "$out/log")" = 2 ]'
check "the report judges that reading" \
  'grep -q "With every lesson made afresh, the end against the baseline: host RSS" "$out/bench-soak.md"'
check "its JSON has the afresh growth" \
  'python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if \"rss_growth_lessons_afresh_mib\" in j and j[\"passed\"] else 1)" "$out/bench-soak.json"'
[ $fail = 0 ] || { echo "--- log:"; cat "$out/log"; }
exit $fail
