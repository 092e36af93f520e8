#!/usr/bin/env bash
# Renders every registered lesson and checks each PNG's size and content.
#   render_all.sh headless|xvfb CUDALAB PNG_CHECK OUTDIR
# headless: EGL (Mesa here, the NVIDIA device platform on a GPU machine), at 1x and 2x pixel scale,
#           both themes, plus one panel crop.
# xvfb:     a real GLFW window on a virtual X display.
set -euo pipefail
mode=$1 cudalab=$2 check=$3 out=$4/$1
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"   # never touch the user's settings
lessons=$("$cudalab" list --ids)
[ -n "$lessons" ] || { echo "no lessons listed"; exit 1; }
fail=0
run() { echo "+ $*"; "$@" || fail=1; }
for id in $lessons; do
  case "$mode" in
    headless)
      run "$cudalab" --headless --lesson "$id" --screenshot "$out/$id.png" --size 1280x720 --wait 30
      run "$check" "$out/$id.png" 1280 720
      run "$cudalab" --headless --lesson "$id" --screenshot "$out/$id-2x-light.png" --size 800x600 \
          --scale 2 --theme light --wait 30
      run "$check" "$out/$id-2x-light.png" 1600 1200
      ;;
    xvfb)
      command -v xvfb-run >/dev/null || { echo "xvfb-run is missing (apt-get install xvfb)"; exit 1; }
      run xvfb-run -a -s "-screen 0 1920x1080x24" "$cudalab" --lesson "$id" \
          --screenshot "$out/$id.png" --size 1280x720 --frames 5 --wait 30
      run "$check" "$out/$id.png" 1280 720
      ;;
    *) echo "unknown mode $mode"; exit 2 ;;
  esac
done
if [ "$mode" = headless ]; then
  # A panel on its own: the Device lesson's architecture table exists with or without a GPU
  # (shown open without one); the peaks panel needs a device.
  panel=architectures
  "$cudalab" device >/dev/null 2>&1 && panel=peaks
  run "$cudalab" --headless --lesson device --screenshot "$out/panel.png" --panel "$panel" --wait 30
  [ -f "$out/panel.png" ] && run "$check" "$out/panel.png" "$(python3 -c "import struct;d=open('$out/panel.png','rb').read(24);print(struct.unpack('>I',d[16:20])[0])")" \
      "$(python3 -c "import struct;d=open('$out/panel.png','rb').read(24);print(struct.unpack('>I',d[20:24])[0])")"
  # The same panel as the learner sees it keeps its buttons (Save PNG): not the same picture.
  run "$cudalab" --headless --lesson device --screenshot "$out/panel-as-seen.png" --panel "$panel" \
      --as-seen --wait 30
  if [ -f "$out/panel.png" ] && cmp -s "$out/panel.png" "$out/panel-as-seen.png"; then
    echo "the panel drawn --as-seen is the same picture as its figure (no buttons?)"; fail=1
  fi
fi
exit $fail
