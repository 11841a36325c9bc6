"""How hard the property tests try: full in CI, an eighth in the quick loop of the pure rules.

`REFEREE_QUICK=1 .venv/bin/python -m pytest tests/rules` is the loop a rules author runs after
every change (well under a minute); `scripts/test.sh` and CI run every example.
"""

from __future__ import annotations

import os

QUICK = os.environ.get("REFEREE_QUICK") == "1"


def examples(full: int) -> int:
    """Return how many examples a property test runs: all of them, or an eighth (at least one) when quick."""
    return max(1, full // 8) if QUICK else full
