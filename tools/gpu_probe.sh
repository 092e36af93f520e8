#!/usr/bin/env bash
# What a CUDA fault in one process does to the GPU's drawing in the next ones, on a GPU machine
# (docs/RELIABILITY.md, "A fault and the GPU's drawing"). Run it on a FRESH machine, and nothing
# after it that should draw with the GPU: the faults it makes last for the machine's lease.
#
#   tools/gpu_probe.sh PROBE [CUDALAB] [OUTDIR]
#
# PROBE is build/tools/cudalab_gpu_probe; CUDALAB (optional) the app, run headless at each step the
# way a figure is made. Each step runs every probe in a fresh process and prints what it did and the
# kernel log's new Xid lines. Steps: before any fault; after a __trap(); after an illegal address
# (5 s and 60 s later).
set -u
probe=${1:?usage: gpu_probe.sh PROBE [CUDALAB] [OUTDIR]}
app=${2:-}
out=${3:-/tmp/gpu_probe}
mkdir -p "$out"

xids() { dmesg 2>/dev/null | grep -ci 'xid' || true; }
seen=$(xids)
newXids() {
  local n
  n=$(xids)
  if [ "$n" -gt "$seen" ]; then
    dmesg | grep -i 'xid' | tail -n $((n - seen)) | sed 's/^/      kernel: /' | cut -c1-220
  fi
  seen=$n
}

# One probe in a fresh process: its line, its time, then the kernel's new Xid lines.
run() {
  local t0 t1 line
  t0=$(date +%s.%N)
  line=$(timeout 60 "$probe" probe --timeout 20 "$@" 2>&1 | tail -1)
  [ -z "$line" ] && line="(no output: killed after 60 s)"
  t1=$(date +%s.%N)
  printf '  %-44s %5.1f s  %s\n' "$*" "$(awk "BEGIN{print $t1 - $t0}")" "$line"
  newXids
}

# The app as a figure is made: the device lesson measured, headless, in its own folder.
runApp() {
  [ -n "$app" ] || return 0
  local name=$1 t0 t1 rc
  t0=$(date +%s.%N)
  timeout 120 "$app" --headless --lesson device --action measure --size 1280x720 \
    --screenshot "$out/$name.png" >"$out/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local how="drew with the GPU"
  grep -qi 'drawing in software' "$out/$name.log" && how="drew in SOFTWARE, the kernels on the GPU"
  grep -qi 'without the GPU' "$out/$name.log" && how="WITHOUT the GPU: $(grep -i -m1 'without the GPU' "$out/$name.log" | cut -c1-150)"
  printf '  %-44s %5.1f s  rc %d, %s\n' "cudalab headless ($name)" "$(awk "BEGIN{print $t1 - $t0}")" "$rc" "$how"
  newXids
}

matrix() {
  run --egl --frames 30
  run --egl --mesa --frames 5 --size 256
  run --cuda
  run --cuda --egl --frames 30
  run --cuda --egl --egl-first --frames 30
  run --interop --frames 30
  run --interop --egl-first --frames 30
  run --cuda --egl --concurrent --frames 60
  run --interop --concurrent --frames 60
  run --interop --concurrent --egl-first --frames 60
  run --cuda --egl --concurrent --frames 300 --size 256
  run --cuda --egl --mesa --frames 5 --size 256
}

# Processes that hold CUDA and GL when another process faults: do they go on drawing?
across() {
  "$probe" probe --interop --concurrent --seconds 20 --size 256 --timeout 30 >"$out/across-interop.txt" 2>&1 &
  local a=$!
  "$probe" probe --egl --seconds 20 --size 256 --timeout 30 >"$out/across-egl.txt" 2>&1 &
  local b=$!
  sleep 5
  echo "  $(timeout 60 "$probe" fault illegal 2>&1 | tail -1) (5 s after two probes started)"
  wait $a $b
  echo "  --interop --concurrent --seconds 20 (started before): $(tail -1 "$out/across-interop.txt")"
  echo "  --egl --seconds 20 (started before): $(tail -1 "$out/across-egl.txt")"
  newXids
}

echo "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), $(date -u +%FT%TZ)"
echo "== before any fault"
newXids
matrix
runApp before

echo "== a __trap() in another process"
echo "  $(timeout 60 "$probe" fault trap 2>&1 | tail -1)"
newXids
matrix
runApp after-trap

echo "== an illegal address in another process (CUDA only) while two probes draw"
across
sleep 5
echo "== 5 s later"
matrix
runApp after-illegal

echo "== 60 s later"
sleep 60
newXids
run --cuda --egl --frames 30
run --interop --concurrent --frames 60
runApp after-illegal-60s
echo "== end $(date -u +%FT%TZ)"
