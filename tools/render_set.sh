#!/usr/bin/env bash
# Renders every lesson headless in every state a refactoring must leave alone, for
# tools/compare_renders.sh:
#   tools/render_set.sh CUDALAB OUTDIR [JOBS]
# For each lesson (`cudalab list --ids`): the lesson as it opens and after each of its actions
# (`--action`; the ids come from the app's own refusal of an unknown one), in the dark and the
# light theme, at UI scale 1 and 2, 1600x900; and as it opens in Korean and in French. An action
# the app refuses here (most need a GPU) leaves its exit code and sentence in NAME.txt instead of
# a picture, and that is compared too. Settings are neither read nor written (--screenshot).
set -euo pipefail
cudalab=$(realpath "$1") out=$2 jobs=${3:-2}
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config"

jobsfile="$out/jobs.txt"
: >"$jobsfile"
for id in $("$cudalab" list --ids); do
  # "its actions are: a, b, c." or "... none." (and " (they need a GPU)" without one)
  actions=$("$cudalab" --headless --lesson "$id" --screenshot "$out/probe.png" --action '?' 2>&1 |
    sed -n 's/.*its actions are: \(.*\)\.$/\1/p' | sed 's/ (they need a GPU)//; s/,//g' || true)
  rm -f "$out/probe.png"
  [ "$actions" = none ] && actions=""
  for theme in dark light; do
    for ui in 1 2; do
      for action in - $actions; do
        echo "$id $theme $ui $action en" >>"$jobsfile"
      done
    done
  done
  echo "$id dark 1 - ko" >>"$jobsfile"
  echo "$id dark 1 - fr" >>"$jobsfile"
done

render() {
  local id=$1 theme=$2 ui=$3 action=$4 lang=$5 args=()
  local name="$id-$theme-ui$ui-$lang"
  [ "$action" != - ] && { name="$name-$action"; args=(--action "$action"); }
  local rc=0 msg
  msg=$("$cudalab" --headless --lesson "$id" --theme "$theme" --ui-scale "$ui" --language "$lang" \
    --size 1600x900 --wait 60 --screenshot "$out/$name.png" "${args[@]}" 2>&1 >/dev/null) || rc=$?
  if [ $rc -ne 0 ]; then
    # Only the app's own sentence, without the run's timings or paths.
    printf 'exit %d\n%s\n' "$rc" "$(printf '%s\n' "$msg" | grep '^cudalab:' | sed "s|$out|OUT|g")" \
      >"$out/$name.txt"
    rm -f "$out/$name.png"
  fi
  echo "$name: exit $rc"
}
export -f render
export cudalab out
xargs -P "$jobs" -L 1 bash -c 'render "$@"' _ <"$jobsfile"
echo "$(wc -l <"$jobsfile") renders in $out"
