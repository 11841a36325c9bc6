"""The path of one move: which of the project's modules a pilot's dogfight report passes through.

    .venv/bin/python bench/move_path.py            # the modules, in order, and the counts
    .venv/bin/python bench/move_path.py --quiet    # the summary line only

A game in the air (tests/fuzz_helpers.airborne_arena), a screen per role; the pilot's socket
sends `report_dogfight` over Socket.IO (Flask-SocketIO's test client: the handlers run as the
server runs them). Every call and return is followed (`sys.setprofile`), and each moment is
counted in the innermost module of `referee/` on the stack: a "stay" is a run of moments in one
module, a module "entered again" is one the report comes back to after it left. The second of two
reports is traced, so nothing is loaded or compiled for the first time. Prints
`move_path modules=… stays=… most_entered=module:count`.
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


def module_of(frame: FrameType | None) -> str | None:
    """The innermost module of the project on the stack, by dotted name."""
    while frame is not None:
        path = frame.f_code.co_filename
        if path.startswith(PACKAGE):
            return ".".join(Path(path[len(str(ROOT)) + 1 :]).with_suffix("").parts).removesuffix(".__init__")
        frame = frame.f_back
    return None


def trace(send: Any) -> list[str]:
    """Run `send()` under a profile hook; return the stays, one module name each, in order."""
    stays: list[str] = []

    def hook(frame: FrameType, event: str, _arg: Any) -> None:
        if event not in ("call", "return"):
            return
        module = module_of(frame)
        if module is not None and (not stays or stays[-1] != module):
            stays.append(module)

    sys.setprofile(hook)
    try:
        send()
    finally:
        sys.setprofile(None)
    return stays


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
    for n, order in enumerate(("1A1", "1B1")):
        sock, view = pilots[order]
        meeting = view["next"]
        report = {"type": "report_dogfight", "a": meeting["a"], "b": meeting["b"], "throws": [{"winner": "A"}]}
        message = {"game": arena.gid, "slip": arena.slips[order], "client_id": f"m{n}", "action": report}

        def send(sock: Any = sock, message: dict[str, Any] = message) -> None:
            answer = sock.emit("action", message, callback=True)
            assert answer["ok"], answer

        stays = trace(send)
    entered = Counter(stays)
    if not args.quiet:
        for module in stays:
            print("  ", module)
    most, times = entered.most_common(1)[0]
    print(f"move_path modules={len(entered)} stays={len(stays)} most_entered={most}:{times}")


if __name__ == "__main__":
    main()
