"""Count the Python function calls (or bytecode instructions) a server makes per report, by file and function.

A figure that does not move with the machine's other work, unlike CPU time. Put this folder on
the server's path and name an output file; bench/fanout.py passes both on to the servers:

    COUNT_CALLS=/tmp/calls.txt PYTHONPATH=bench/count_calls \\
        .venv/bin/python bench/fanout.py --scenario A --seconds 25

With COUNT_OPS=file instead, the bytecode instructions the interpreter runs are counted (from the
20th report on; frames begun before it, such as a socket's reading loop, are not counted):

    COUNT_OPS=/tmp/ops.txt PYTHONPATH=bench/count_calls \\
        .venv/bin/python bench/fanout.py --scenario A --seconds 25

Counted on the server's main thread (the event loop's, where every report is handled), from
the 20th report on; every 200 reports the file gets the calls per report, then the files and
functions that made most of them. A report is one call of our `on_action` or the bare server's
`on_report`. The counter slows the server several times over: read its counts, not its timings.

With COUNT_DISTINCT=file, the functions run from one report to the next are counted, each once
however often it ran. That is the count the CPU time of a report follows more closely: a report that
comes after a tenth of a second of other work finds little of its code in the processor's caches,
so a function run once costs far more than each of forty runs in a loop. On the 2-core machine
(4 Dec 2026) ours ran about 340 functions a report and the bare server 86, while the instructions
(36,000 against 32,000) differ far less than the two CPU times (about 4.2 ms against 2.3):

    COUNT_DISTINCT=/tmp/distinct.txt PYTHONPATH=bench/count_calls \\
        .venv/bin/python bench/fanout.py --scenario A --seconds 25
"""

from __future__ import annotations

import collections
import os
import sys
from types import CodeType, FrameType
from typing import Any

# Not in bench/fanout.py itself (its referees' sockets) nor its screens' processes: servers only.
SERVER = not sys.argv or not sys.argv[0].endswith("fanout.py")
OUT = os.environ.get("COUNT_CALLS") if SERVER else None
OPS_OUT = os.environ.get("COUNT_OPS") if SERVER and not OUT else None
DISTINCT_OUT = os.environ.get("COUNT_DISTINCT") if SERVER and not OUT and not OPS_OUT else None
WARM_UP = 20
EVERY = 200


def _short(path: str) -> str:
    """Return a code file's path from its package on (site-packages/ or referee/ cut off)."""
    return path.split("site-packages/")[-1].split(os.sep + "referee" + os.sep, 1)[-1]


if OUT:
    _by: collections.Counter[tuple[str, str]] = collections.Counter()
    _state = {"calls": 0, "reports": 0}

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


def _is_report(code: CodeType) -> bool:
    return code.co_name == "on_report" or (code.co_name == "on_action" and code.co_filename.endswith("live.py"))


if OPS_OUT:
    _ops: collections.Counter[tuple[str, str]] = collections.Counter()
    _seen = {"ops": 0, "reports": 0}

    def _write_ops(reports: int) -> None:
        files: collections.Counter[str] = collections.Counter()
        for (path, _name), count in _ops.items():
            files[path] += count
        with open(OPS_OUT, "a", encoding="utf-8") as out:
            out.write(f"pid {os.getpid()} reports={reports} instructions/report={_seen['ops'] / reports:.0f}\n")
            for path, count in files.most_common(25):
                out.write(f"  {count / reports:8.1f}  {path}\n")
            for (path, name), count in _ops.most_common(50):
                out.write(f"  {count / reports:8.1f}  {path}:{name}\n")

    def _instruction(frame: FrameType, event: str, _arg: Any) -> Any:
        if event == "opcode":
            code = frame.f_code
            _seen["ops"] += 1
            _ops[(_short(code.co_filename), code.co_name)] += 1
        return _instruction

    def _called(frame: FrameType, _event: str, _arg: Any) -> Any:
        if _is_report(frame.f_code):
            _seen["reports"] += 1
            n = _seen["reports"] - WARM_UP
            if n == 0:
                _seen["ops"] = 0
                _ops.clear()
            elif n > 0 and n % EVERY == 0:
                _write_ops(n)
        if _seen["reports"] < WARM_UP:
            return None  # untraced while the server starts: tracing every instruction is slow
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return _instruction

    sys.settrace(_called)


if DISTINCT_OUT:
    # function -> the reports (of the EVERY counted) that ran it at least once
    _ran: collections.Counter[CodeType] = collections.Counter()
    _this: set[CodeType] = set()
    _reports = {"n": 0}

    def _write_distinct(reports: int) -> None:
        files: collections.Counter[str] = collections.Counter()
        for code, count in _ran.items():
            files[_short(code.co_filename)] += count
        with open(DISTINCT_OUT, "a", encoding="utf-8") as out:
            out.write(
                f"pid {os.getpid()} reports={reports} distinct functions/report={sum(_ran.values()) / reports:.0f}"
                f" (ever run: {len(_ran)})\n"
            )
            for path, count in files.most_common(30):
                out.write(f"  {count / reports:6.1f}  {path}\n")
            for code, count in sorted(_ran.items(), key=lambda item: (item[0].co_filename, item[0].co_firstlineno)):
                if count * 2 >= reports:  # run by at least every other report
                    out.write(
                        f"  {count / reports:4.1f}  {_short(code.co_filename)}:{code.co_firstlineno}:{code.co_name}\n"
                    )

    def _entered(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        _this.add(code)
        if _is_report(code):
            # A report's functions are those run from its start to the next one's (its push,
            # its flush, its answer, and whatever else the server did meanwhile).
            _reports["n"] += 1
            n = _reports["n"] - WARM_UP - 1
            if n >= 0:
                _ran.update(_this)
            _this.clear()
            _this.add(code)
            if n > 0 and n % EVERY == 0:
                _write_distinct(n)
                _ran.clear()

    sys.setprofile(_entered)
