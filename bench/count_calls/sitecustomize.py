"""Count the Python function calls a server makes per report, by file and by function.

A figure that does not move with the machine's other work, unlike CPU time. Put this folder on
the server's path and name an output file; bench/fanout.py passes both on to the servers:

    COUNT_CALLS=/tmp/calls.txt PYTHONPATH=bench/count_calls \\
        .venv/bin/python bench/fanout.py --scenario A --seconds 25

Counted on the server's main thread (the event loop's, where every report is handled), from
the 20th report on; every 200 reports the file gets the calls per report, then the files and
functions that made most of them. A report is one call of our `on_action` or the bare server's
`on_report`. The counter slows the server several times over: read its counts, not its timings.
"""

from __future__ import annotations

import collections
import os
import sys
from types import FrameType
from typing import Any

# Not in bench/fanout.py itself (its referees' sockets) nor its screens' processes: servers only.
OUT = os.environ.get("COUNT_CALLS") if not sys.argv or not sys.argv[0].endswith("fanout.py") else None
WARM_UP = 20
EVERY = 200

if OUT:
    _by: collections.Counter[tuple[str, str]] = collections.Counter()
    _state = {"calls": 0, "reports": 0}

    def _short(path: str) -> str:
        return path.split("site-packages/")[-1].split(os.sep + "referee" + os.sep, 1)[-1]

    def _write(reports: int) -> None:
        files: collections.Counter[str] = collections.Counter()
        for (path, _name), count in _by.items():
            files[path] += count
        with open(OUT, "a", encoding="utf-8") as out:
            out.write(f"pid {os.getpid()} reports={reports} calls/report={_state['calls'] / reports:.0f}\n")
            for path, count in files.most_common(25):
                out.write(f"  {count / reports:8.1f}  {path}\n")
            for (path, name), count in _by.most_common(40):
                out.write(f"  {count / reports:8.1f}  {path}:{name}\n")

    def _count(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        _state["calls"] += 1
        _by[(_short(code.co_filename), code.co_name)] += 1
        if code.co_name == "on_report" or (code.co_name == "on_action" and code.co_filename.endswith("live.py")):
            _state["reports"] += 1
            n = _state["reports"] - WARM_UP
            if n == 0:
                _state["calls"] = 0
                _by.clear()
            elif n > 0 and n % EVERY == 0:
                _write(n)

    sys.setprofile(_count)  # this (main) thread's: the event loop's, where the server starts
