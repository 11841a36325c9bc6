#!/usr/bin/env bash
# The ONE test command of referee. The README's quick start runs it, and
# .ci/run runs it after installing the system pieces (Chromium, services).
#
#   bash scripts/test.sh            # everything
#   bash scripts/test.sh -k sea     # extra arguments go to pytest
#
# It makes .venv if missing, installs the locked dependencies and the project, runs
# the strict type check of the whole package, the linter and the formatter's
# check, then pytest. Browser tests skip with a visible reason when
# /usr/bin/chromium is missing; service tests skip when PostgreSQL/Redis are
# unreachable, unless REFEREE_REQUIRE_SERVICES=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "== creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

# The versions CI tests are the lock file's (README.md, "Dependencies"); then the project itself.
# pip's progress shows on a terminal (about 150 MB the first time), not in a CI log.
quiet=()
[[ -t 1 ]] || quiet=(--quiet)
echo "== installing requirements.lock, then the project"
# (${quiet[@]+...}: an empty array under `set -u` is an error in the bash of macOS, 3.2)
"$VENV/bin/python" -m pip install ${quiet[@]+"${quiet[@]}"} --disable-pip-version-check -r requirements.lock
"$VENV/bin/python" -m pip install ${quiet[@]+"${quiet[@]}"} --disable-pip-version-check --no-deps .

echo "== mypy --strict referee"
"$VENV/bin/python" -m mypy --strict referee

echo "== ruff check, ruff format --check"
# pyproject.toml has the rule set. `ruff format` with no --check rewrites the files.
"$VENV/bin/python" -m ruff check referee tests bench scripts
"$VENV/bin/python" -m ruff format --check referee tests bench scripts

echo "== pytest"
# `python -m pytest` puts the work tree first on sys.path, so the tests run
# against these sources (the installed copy only brings the dependencies).
set +e
# Two workers (pytest-xdist; REFEREE_TEST_WORKERS changes it, 0 runs in this process): most tests
# wait on a browser or a server, not the processor. Tests of the shared PostgreSQL and Redis run
# on one worker (tests/conftest.py). Options given to this script come after, so they win.
"$VENV/bin/python" -m pytest -n "${REFEREE_TEST_WORKERS:-2}" --dist loadgroup "$@"
status=$?
set -e
if [[ $status -eq 5 ]]; then
  echo "scripts/test.sh: pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit $status
