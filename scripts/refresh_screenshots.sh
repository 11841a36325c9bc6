#!/usr/bin/env bash
# Refresh docs/screenshots/ from the browser tests' own screenshots. The tests write theirs
# under test-artifacts/ (untracked) and never touch docs/; this copies them over the tracked
# ones, for a commit that shows what the pages look like now.
#
#   bash scripts/refresh_screenshots.sh          # needs Debian's Chromium and .venv (scripts/test.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV="${VENV:-.venv}"
"$VENV/bin/python" -m pytest -q -m browser tests/browser
for kind in game-night vestorsjo; do
  if [[ -d "test-artifacts/screenshots/$kind" ]]; then
    mkdir -p "docs/screenshots/$kind"
    for shot in docs/screenshots/"$kind"/*.png; do  # the ones kept in docs, refreshed
      fresh="test-artifacts/screenshots/$kind/${shot##*/}"
      if [[ -e "$fresh" ]]; then cp "$fresh" "$shot"; fi
    done
  fi
done
# The README's: a slip and a team's phone during a bombing (tests/browser/test_e2e_game.py).
mkdir -p docs/screenshots/e2e
cp test-artifacts/e2e/05-team-a-slips.png test-artifacts/e2e/08-team-b-fight.png docs/screenshots/e2e/
git status --short docs/screenshots
