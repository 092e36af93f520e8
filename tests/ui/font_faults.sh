#!/usr/bin/env bash
# Font files that fontconfig lists but that are cut short by the time the app reads them (a package
# upgrade rewriting them under a running app): the app draws with a fallback font and says which
# file it could not use, never aborts inside the rasteriser. Headless, no GPU needed.
#   font_faults.sh CUDALAB PNG_CHECK
set -uo pipefail
cudalab=$1 png_check=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_CONFIG_HOME=$work/config FONTCONFIG_FILE=$work/fonts.conf
mkdir -p "$HOME" "$work/fonts"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

# Fonts of our own, in a folder fontconfig caches: a file then cut short in place keeps its cached
# entry (the folder's time does not change), as when it is rewritten after the app started.
sans=$(fc-match -f '%{file}' 'DejaVu Sans' 2>/dev/null)
cjk=$(fc-match -f '%{file}' 'Noto Sans CJK KR' 2>/dev/null)
[ -f "$sans" ] || sans=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
[ -f "$cjk" ] || cjk=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
[ -f "$sans" ] && [ -f "$cjk" ] || { echo "DejaVu Sans or Noto Sans CJK is missing: ./setup.sh installs them"; exit 1; }
cp "$sans" "$work/fonts/DejaVuSans.ttf"
cp "$cjk" "$work/fonts/NotoSansCJK-Regular.ttc"
cat >"$FONTCONFIG_FILE" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$work/fonts</dir><cachedir>$work/cache</cachedir></fontconfig>
CONF
shot() {  # shot NAME LANGUAGE: a headless picture of the transfers lesson
  "$cudalab" --headless --lesson transfers --language "$2" --size 900x600 \
    --screenshot "$work/$1.png" >"$work/$1.log" 2>&1
}
shot whole ko
rc=$?
check "with whole font files it draws and says nothing about them: $rc" \
  '[ "$rc" = 0 ] && ! grep -q "cannot be used" "$work/whole.log" && "$png_check" "$work/whole.png" 900 600 >/dev/null'
check "fontconfig cached the folder" '[ -n "$(ls "$work/cache" 2>/dev/null)" ]'

truncate -s 300000 "$work/fonts/DejaVuSans.ttf"
truncate -s 5000000 "$work/fonts/NotoSansCJK-Regular.ttc"
shot cut ko
rc=$?
check "with both cut short it still draws its picture: $rc" \
  '[ "$rc" = 0 ] && "$png_check" "$work/cut.png" 900 600 >/dev/null'
check "it names the Latin font it could not use" \
  'grep -q "The font file $work/fonts/DejaVuSans.ttf cannot be used: .*cut short" "$work/cut.log"'
check "and the CJK collection" \
  'grep -q "The font file $work/fonts/NotoSansCJK-Regular.ttc cannot be used" "$work/cut.log"'
[ $fail = 0 ] || { echo "--- logs:"; cat "$work"/*.log; }
exit $fail
