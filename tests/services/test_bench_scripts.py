"""Every script in bench/ starts: its imports (of the project and of the tests' helpers) still exist.

A bench is run by hand, rarely: one whose import broke when a module moved would be found only
when a figure was needed. `--help` imports all of it and measures nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..live_server import ROOT

BENCHES = sorted(p.name for p in (ROOT / "bench").glob("*.py"))


@pytest.mark.parametrize("script", BENCHES)
def test_the_bench_script_starts(script: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, str(Path("bench") / script), "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "usage" in result.stdout.lower(), result.stdout[-500:]
