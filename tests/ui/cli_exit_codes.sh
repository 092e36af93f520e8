#!/usr/bin/env bash
# The real binary's exit codes and messages: 0 for help and list, 2 with one line on stderr for a
# bad argument, and a plain sentence (never a crash) from `device` without a GPU.
set -uo pipefail
cudalab=$1
fail=0
expect() {  # expect CODE STDERR_FRAGMENT ARGS...
  local code=$1 frag=$2; shift 2
  local err rc
  err=$("$cudalab" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != "$code" ]; then echo "FAIL: cudalab $* exited $rc, expected $code ($err)"; fail=1; return; fi
  if [ -n "$frag" ] && ! grep -qF -- "$frag" <<<"$err"; then echo "FAIL: cudalab $*: stderr lacks '$frag': $err"; fail=1; return; fi
  if [ "$code" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" != 1 ]; then echo "FAIL: cudalab $*: not one line: $err"; fail=1; return; fi
  echo "ok: cudalab $* -> $rc"
}
expect 0 "" --help
expect 0 "" list
expect 0 "" device --help
expect 2 "there is no lesson" --lesson nosuch
expect 2 "--bogus" --bogus
expect 2 "needs --screenshot" --headless
expect 2 "must end in .png" --headless --screenshot x.jpg
expect 2 "--size" --headless --screenshot x.png --size 12
"$cudalab" list | grep -q '^device ' || { echo "FAIL: list lacks the device lesson"; fail=1; }
out=$("$cudalab" device 2>&1); rc=$?
if [ $rc -ne 0 ]; then
  grep -q "No CUDA device" <<<"$out" || { echo "FAIL: device without GPU: $out"; fail=1; }
  echo "ok: device without a GPU says: $out"
else
  grep -q "Compute capability" <<<"$out" || { echo "FAIL: device output lacks compute capability"; fail=1; }
fi
json=$("$cudalab" device --json 2>/dev/null)
python3 -c "import json,sys; json.loads(sys.argv[1])" "$json" || { echo "FAIL: device --json is not JSON: $json"; fail=1; }
exit $fail
