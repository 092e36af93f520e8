#!/usr/bin/env bash
# Checks that a change left the pictures alone:
#   tools/compare_renders.sh PNG_DIFF BEFORE_A BEFORE_B AFTER [DIFFDIR]
# BEFORE_A and BEFORE_B are two tools/render_set.sh runs of the old build, AFTER one of the new.
# Measured CPU times differ from run to run, so each picture is compared only on the pixels where
# the two befores agree (png_diff, built with the tests: build/tests/png_diff); a refused action's
# sentence (NAME.txt) must be the same. Prints a line per picture that differs or is missing, the
# share of pixels compared over all pictures, and exits 1 when anything differs. DIFFDIR receives
# a picture of each difference (red: differs, blue: left out).
set -uo pipefail
diff_tool=$1 a=$2 b=$3 after=$4 diffdir=${5:-}
[ -n "$diffdir" ] && mkdir -p "$diffdir"
fail=0 pictures=0 same=0 compared=0 total=0
for f in "$a"/*.png "$a"/*.txt; do
  [ -e "$f" ] || continue
  name=$(basename "$f")
  [ "$name" = jobs.txt ] && continue
  if [ ! -e "$after/$name" ]; then
    echo "MISSING $name (after: $(ls "$after/${name%.*}".* 2>/dev/null | xargs -r -n1 basename))"
    fail=1
    continue
  fi
  if [[ $name == *.txt ]]; then
    cmp -s "$f" "$after/$name" || { echo "DIFFERS $name: $(tr '\n' ' ' <"$after/$name")"; fail=1; }
    continue
  fi
  pictures=$((pictures + 1))
  args=("$f" "$b/$name" "$after/$name")
  [ -n "$diffdir" ] && args+=("$diffdir/$name")
  line=$("$diff_tool" "${args[@]}")
  rc=$?
  c=$(sed -n 's/.*compared=\([0-9]*\).*/\1/p' <<<"$line")
  t=$(sed -n 's/.*total=\([0-9]*\).*/\1/p' <<<"$line")
  compared=$((compared + ${c:-0}))
  total=$((total + ${t:-0}))
  if [ $rc -eq 0 ]; then
    same=$((same + 1))
    [ -n "$diffdir" ] && rm -f "$diffdir/$name"
  else
    echo "DIFFERS $name: $line"
    fail=1
  fi
done
for f in "$after"/*.png "$after"/*.txt; do
  name=$(basename "$f")
  [ -e "$a/$name" ] || [ "$name" = jobs.txt ] || { echo "NEW $name"; fail=1; }
done
awk -v p="$pictures" -v s="$same" -v c="$compared" -v t="$total" 'BEGIN {
  printf "%d of %d pictures the same; %.2f%% of their pixels compared (%d of %d)\n",
         s, p, t ? 100 * c / t : 0, c, t }'
exit $fail
