"""The path of one move: which of the project's modules a pilot's dogfight report passes through.

    .venv/bin/python bench/move_path.py            # the modules, in order, and the counts
    .venv/bin/python bench/move_path.py --quiet    # the summary line only

A game in the air (tests/fuzz_helpers.airborne_arena), a screen per role; the pilot's socket
sends `report_dogfight` over Socket.IO (Flask-SocketIO's test client: the handlers run as the
server runs them). Every call and return is followed (`sys.setprofile`). The second of two
reports is traced, so nothing is loaded or compiled for the first time. Two measures:

- **read**: what a newcomer reading the report from its handler opens. A module is entered when a
  function of another module of `referee/` calls one of its functions; each such call is counted
  once however often it runs (a push's loop over rooms is read once), and calls to dunder methods
  and comprehensions (a value type's `__eq__`, a dataclass's `__init__`) and calls inside the
  pure core `referee/rules/` among its own modules are not counted.
- **stays**: every moment counted in the innermost module of `referee/` on the stack; a stay is a
  run of moments in one module (value types and per-room loops included).

Prints `move_path modules=… entries=… most_entered=module:count stays=…`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.push import sockets as push_sockets  # noqa: E402
from referee.web import create_app  # noqa: E402
from referee.web.extensions import socketio  # noqa: E402
from tests.fuzz_helpers import airborne_arena  # noqa: E402

PACKAGE = str(ROOT / "referee") + "/"
RULES = "referee.rules"


def module_of(frame: FrameType | None) -> str | None:
    """The innermost module of the project on the stack, by dotted name."""
    while frame is not None:
        path = frame.f_code.co_filename
        if path.startswith(PACKAGE):
            return ".".join(Path(path[len(str(ROOT)) + 1 :]).with_suffix("").parts).removesuffix(".__init__")
        frame = frame.f_back
    return None


def trace(send: Any) -> tuple[list[str], set[tuple[str, str, str]]]:
    """Run `send()` under a profile hook; return the stays (module names, in order) and the calls read.

    A call read is (calling module, called module, called function).
    """
    stays: list[str] = []
    calls: set[tuple[str, str, str]] = set()

    def hook(frame: FrameType, event: str, _arg: Any) -> None:
        if event not in ("call", "return"):
            return
        module = module_of(frame)
        if module is not None and (not stays or stays[-1] != module):
            stays.append(module)
        name = frame.f_code.co_name
        if event != "call" or module is None or name.startswith(("__", "<")):
            return
        if not frame.f_code.co_filename.startswith(PACKAGE):
            return
        caller = module_of(frame.f_back)
        if caller is None or caller == module or (caller.startswith(RULES) and module.startswith(RULES)):
            return
        calls.add((caller, module, name))

    sys.setprofile(hook)
    try:
        send()
    finally:
        sys.setprofile(None)
    return stays, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="print the summary line only")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    app = create_app(
        {"TESTING": True, "SECRET_KEY": "bench-" + "0" * 40, "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}"},
        instance_path=tmp / "instance",
    )
    push_sockets.RATE_PER_SECOND = push_sockets.RATE_BURST = 1e9
    arena = airborne_arena(app)
    screens = []
    for browser in (arena.referee, arena.team_a, arena.team_b, app.test_client()):
        sock = socketio.test_client(app, flask_test_client=browser)
        assert sock.emit("resync", {"game": arena.gid}, callback=True)["ok"]
        screens.append(sock)
    pilots = {}
    for order in ("1A1", "1B1"):
        sock = socketio.test_client(app, flask_test_client=app.test_client())
        answer = sock.emit("resync", {"game": arena.gid, "slip": arena.slips[order]}, callback=True)
        assert answer["ok"], answer
        pilots[order] = (sock, answer["view"])
    stays: list[str] = []
    calls: set[tuple[str, str, str]] = set()
    for n, order in enumerate(("1A1", "1B1")):
        sock, view = pilots[order]
        meeting = view["next"]
        report = {"type": "report_dogfight", "a": meeting["a"], "b": meeting["b"], "throws": [{"winner": "A"}]}
        message = {"game": arena.gid, "slip": arena.slips[order], "client_id": f"m{n}", "action": report}

        def send(sock: Any = sock, message: dict[str, Any] = message) -> None:
            answer = sock.emit("action", message, callback=True)
            assert answer["ok"], answer

        stays, calls = trace(send)
    entered = Counter(called for _caller, called, _name in calls)
    if not args.quiet:
        for caller, called, name in sorted(calls, key=lambda c: (c[1], c[0], c[2])):
            print(f"   {called}.{name}  <- {caller}")
    most, times = entered.most_common(1)[0]
    print(
        f"move_path modules={len(entered) + 1} entries={sum(entered.values())} "
        f"most_entered={most}:{times} stays={len(stays)} modules_with_stays={len(set(stays))}"
    )


if __name__ == "__main__":
    main()
