#!/usr/bin/env bash
# Extract, update and compile the translations (Czech is the home language; English too).
#
#   scripts/compile_translations.sh            # extract + update .po + compile .mo
#   scripts/compile_translations.sh compile    # compile only
#   scripts/compile_translations.sh init nl    # start a new language
#
# The compiled .mo files are committed: they must ship inside the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
PYBABEL="${PYBABEL:-.venv/bin/pybabel}"
[ -x "$PYBABEL" ] || PYBABEL=pybabel
DIR=referee/translations
POT="$DIR/messages.pot"

extract() {
    "$PYBABEL" extract -F babel.cfg -k _l -k lazy_gettext -k Msg -k N_ --no-location --sort-output \
        --project=referee --copyright-holder="referee authors" -o "$POT" .
}

case "${1:-all}" in
    compile)
        "$PYBABEL" compile -f -d "$DIR" --statistics
        ;;
    init)
        extract
        "$PYBABEL" init -i "$POT" -d "$DIR" -l "${2:?language code}"
        ;;
    all)
        extract
        "$PYBABEL" update -i "$POT" -d "$DIR" --no-fuzzy-matching
        "$PYBABEL" compile -f -d "$DIR" --statistics
        ;;
    *)
        echo "usage: $0 [all|compile|init LANG]" >&2
        exit 2
        ;;
esac
