#!/usr/bin/env bash
# Brings the translation catalogues up to date with the source, for translators.
#
#   tools/i18n.sh [BUILD_DIR]     (default: build)
#
# The build extracts the catalogue's template, BUILD_DIR/generated/i18n/cudalab.pot, from the
# marked strings of the sources (tr("..."), N_("..."), the shared widgets' texts), the parameters'
# labels and help, and the course's presets and plans. This merges it into every
# assets/i18n/<language>.po: new English texts come in untranslated, texts no longer in the source
# become obsolete (#~) and no longer count. Then translate the empty msgstr "" entries (and check
# the "fuzzy" ones) and build: msgfmt checks every file, and the test
# I18n.EveryCatalogueIsCompleteAndCurrent fails until each is complete.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target cudalab_pot >/dev/null
pot="$build/generated/i18n/cudalab.pot"
for po in assets/i18n/*.po; do
  msgmerge --quiet --update --backup=none --no-fuzzy-matching --no-wrap --sort-by-file \
    "$po" "$pot"
  printf '%s: ' "$po"
  msgfmt --statistics --output-file=/dev/null "$po"
done
