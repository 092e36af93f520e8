#!/usr/bin/env bash
# The GPU suite twice in a row on one machine, as docs/RELIABILITY.md reports it: `ctest -L gpu`
# (the deliberate faults last: `gpu_traps`, then `gpu_illegal_addresses`), then again at once,
# when the first run's faults have stopped NVIDIA's OpenGL beside CUDA on the lent servers. Each
# run's whole output, its time and the kernel log's new Xid lines go to OUTDIR.
#
#   tools/gpu_suite_twice.sh BUILD_DIR OUTDIR
set -u
build=${1:?usage: gpu_suite_twice.sh BUILD_DIR OUTDIR}
out=${2:?usage: gpu_suite_twice.sh BUILD_DIR OUTDIR}
mkdir -p "$out"
xids() { dmesg 2>/dev/null | grep -ci 'xid' || true; }
for run in 1 2; do
  before=$(xids)
  start=$(date +%s)
  ctest --test-dir "$build" -L gpu -V --timeout 900 >"$out/run$run.txt" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  echo "run $run: ctest exit $rc in $secs s"
  grep -E '^[0-9]+/[0-9]+ Test|tests passed|\[  (PASSED|FAILED|SKIPPED) \]' "$out/run$run.txt" |
    sed 's/^/  /' | head -40
  grep -E '^[0-9]+: (cancel|trap|illegal-address|the figure|drawing in software)' "$out/run$run.txt" |
    sed 's/^/  /' | head -40
  now=$(xids)
  [ "$now" -gt "$before" ] && dmesg | grep -i xid | tail -n $((now - before)) | cut -c1-200 |
    sed 's/^/  kernel: /' | sort -u -k6 | head -12
done
