#!/usr/bin/env bash
# The window's CPU use while nobody touches it, under an X server of its own (Xvfb).
#
#   tools/idle_cpu.sh [BUILD_DIR] [LESSON...]     (default: build, and every lesson)
#
# For each lesson: opens the window on it with fresh settings, waits 6 s (IDLE_SETTLE_SECONDS) for
# its first work to finish, then reads the process's CPU time over 10 s (the lesson's own work on
# its threads included, if it has not finished). 100% is one core busy. The numbers go into
# docs/BENCHMARKS.md ("An idle window"); they are measurements, never asserted by a test.
set -uo pipefail
build=${1:-build}
shift || true
app=$build/cudalab
[ -x "$app" ] || { echo "idle_cpu.sh: $app is missing: build first (./setup.sh build)." >&2; exit 2; }
lessons=("$@")
[ ${#lessons[@]} -gt 0 ] || mapfile -t lessons < <("$app" list --ids)
work=$(mktemp -d)
exec {fd}<> <(:)
Xvfb -displayfd "$fd" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xpid=$!
trap 'kill $xpid 2>/dev/null; rm -rf "$work"' EXIT
read -r -t 10 num <&"$fd" || { echo "idle_cpu.sh: Xvfb did not start" >&2; exit 1; }
tick=$(getconf CLK_TCK)
for l in "${lessons[@]}"; do
  HOME=$work XDG_CONFIG_HOME=$work/config DISPLAY=:$num "$app" --lesson "$l" >/dev/null 2>&1 &
  pid=$!
  sleep "${IDLE_SETTLE_SECONDS:-6}"
  t0=$(awk '{print $14 + $15}' /proc/$pid/stat)
  sleep 10
  t1=$(awk '{print $14 + $15}' /proc/$pid/stat)
  printf '%-14s %4d%% CPU\n' "$l" $(((t1 - t0) * 100 / (10 * tick)))
  kill $pid; wait $pid 2>/dev/null
  rm -rf "$work/config"
done
