#!/usr/bin/env bash
# The window under an X server (Xvfb) while a lesson works: a corrupt settings file, the window
# resized to 1 x 1, minimised and restored, a GPU fault in a second window (it starts itself
# again), then the display lost. Each must leave a working app or a sentence, never a crash: the
# app stays alive through the first four, and when the X server ends it prints one sentence, saves
# the settings (a valid file again) and exits with code 1.
set -uo pipefail
cudalab=$1
work=$(mktemp -d)
trap 'kill $xpid $app 2>/dev/null; rm -rf "$work"' EXIT
export HOME=$work/home XDG_CONFIG_HOME=$work/config
mkdir -p "$HOME" "$XDG_CONFIG_HOME/cudalab"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
command -v xdotool >/dev/null || { echo "xdotool is missing: ./setup.sh installs it"; exit 1; }

# A settings file cut short, as a crash or a full disk leaves it.
printf '{"theme": "light", "ui_scale": 2, "window": {"wid' >"$XDG_CONFIG_HOME/cudalab/settings.json"

# An X server of our own, so the test can end it; -displayfd picks a free display number.
exec {fd}<> <(:)
Xvfb -displayfd "$fd" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xpid=$!
read -r -t 10 num <&"$fd" || { echo "FAIL: Xvfb did not start"; exit 1; }
export DISPLAY=:$num

# The reduction lesson's CPU sums run on worker threads meanwhile (no GPU needed).
"$cudalab" --lesson reduction --action cpu >"$work/out" 2>"$work/err" &
app=$!
win=
for _ in $(seq 100); do
  win=$(xdotool search --name '^cudalab$' 2>/dev/null | head -1)
  [ -n "$win" ] && break
  sleep 0.2
done
check "the window opened despite a truncated settings file" '[ -n "$win" ]'
sleep 2
alive() { kill -0 "$app" 2>/dev/null; }
xdotool windowsize "$win" 1 1; sleep 1
check "alive after resizing the window to 1 x 1" alive
xdotool windowminimize "$win"; sleep 1
check "alive while minimised" alive
xdotool windowmap "$win"; xdotool windowsize "$win" 1200 800; sleep 1
check "alive after being restored" alive
# Settings are saved as they change, not only on the way out: a kill now would keep the lesson
# chosen on the command line (the truncated file is already replaced by a whole one).
sleep 2
check "the settings were written while the window runs" \
  'python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(j[\"lesson\"] != \"reduction\")" "$XDG_CONFIG_HOME/cudalab/settings.json"'

# A sticky GPU error in the window (simulated: recorded as a real one, no GPU needed): the window
# closes, a fresh cudalab opens with the same lesson, finishes the action and its picture.
"$cudalab" --lesson matmul --inject-fault simulated --action course --size 900x600 --wait 60 \
  --screenshot "$work/restarted.png" >"$work/fault-out" 2>&1
rc=$?
check "the window started again after a GPU fault and wrote its picture: $rc" \
  '[ "$rc" = 0 ] && grep -q "Starting again with the same lesson" "$work/fault-out" && grep -q "wrote .*lesson matmul, window" "$work/fault-out" && [ -s "$work/restarted.png" ]'

# The same, but the window started again finds its first picture blank (what a GPU that stopped
# drawing after the fault leaves): it starts once more drawing in software (Mesa's GLX) and says so.
CUDALAB_TEST_FIRST_PICTURE=blank "$cudalab" --lesson matmul --inject-fault simulated --action course \
  --size 900x600 --wait 60 --screenshot "$work/software.png" >"$work/blank-out" 2>&1
rc=$?
check "a blank first picture after the restart went on drawing in software: $rc" \
  '[ "$rc" = 0 ] && grep -q "came out blank. Starting again .*, drawing in software" "$work/blank-out" && grep -q "wrote .*lesson matmul, window, llvmpipe" "$work/blank-out" && [ -s "$work/software.png" ]'

kill "$xpid"; wait "$xpid" 2>/dev/null
wait "$app"; rc=$?
check "exit code 1 (not a signal) when the display went away: $rc" '[ "$rc" = 1 ]'
check "one sentence about the display" 'grep -q "the display .* went away" "$work/err"'
check "the settings saved as valid JSON" \
  'python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$XDG_CONFIG_HOME/cudalab/settings.json"'
[ $fail = 0 ] || { echo "--- stderr:"; cat "$work/err"; }
exit $fail
