"""What a report costs the app itself, in process: the action, the store, the views, the change sets.

    .venv/bin/python bench/report_cost.py                 # min and median CPU ms per report
    .venv/bin/python bench/report_cost.py --profile 300   # and cProfile's top functions over 300 more
    .venv/bin/python bench/report_cost.py --full          # the screens' test sockets decode every push
    .venv/bin/python bench/report_cost.py --gap 0.1       # a report every 0.1 s, as in fanout's scenario A

One air-raid game in the air, as in bench/fanout.py's scenario A: the referee's socket and 39
other screens (teams' phones and watchers, two in three reading Czech, the rest English), all
Flask-SocketIO test clients on an app with its SQLite file. The referee pauses and resumes the
round clock; each report changes every screen's view. A screen's socket is dropped at the
transport (what sending costs is the transport's, as it is the bare server's in bench/fanout.py),
unless `--full`. Prints the min and median of six batches of 100 reports (CPU time of this
process: the machine's other work adds less to it than to wall time). With `--gap`, each report
follows a pause, as in a real server, and the median over 100 single reports is printed: after a
pause the processor's caches hold other work, and a report costs two to three times what it costs
back to back (2.4-2.9 ms against 0.8-1.1 ms on the 2-core machine, 2 Dec 2026), which is the cost
bench/fanout.py measures. For a figure that does not depend on the machine at all, count
instructions:

    valgrind --tool=callgrind .venv/bin/python bench/report_cost.py --reports 20   (and --reports 120)

and take the difference over 100 reports.

With `--parts` (and `--gap`), each report's CPU time is also split by the parts of its work:
the store's write (and within it the rules and the commit), the views, the
change sets, their translation, the emits and the flush; the median of each over the reports.
A part is timed around its outermost call only, so a recursive one (the diff) counts once.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import functools
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy.engine.default import DefaultDialect  # noqa: E402

from referee import store  # noqa: E402
from referee.push import changes  # noqa: E402
from referee.push import sockets as push_sockets  # noqa: E402
from referee.push import views as push_view  # noqa: E402
from referee.rules import engine  # noqa: E402
from referee.web import create_app  # noqa: E402
from referee.web.extensions import socketio  # noqa: E402
from tests.web.test_games_web import create, join, referee_client  # noqa: E402

SCREENS = 40


def set_up(full: bool) -> tuple[Any, str]:
    """Return the referee's socket and the id of a game in the air with its screens connected."""
    tmp = Path(tempfile.mkdtemp())
    app = create_app(
        {"TESTING": True, "SECRET_KEY": "bench-" + "0" * 40, "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}"},
        instance_path=tmp / "instance",
    )
    ref = referee_client(app)
    created = create(app, ref)
    gid = created["game"]
    for team in "AB":
        phone = join(app, created["links"]["join"][team])
        ships = phone.post(f"/api/games/{gid}/sea/random", json={"team": team}).get_json()["ships"]
        body = {"action": {"type": "lock_sea", "team": team, "ships": ships}}
        assert phone.post(f"/api/games/{gid}/actions", json=body).get_json()["ok"]
    for action in (
        {"type": "start_game"},
        {"type": "set_defender", "team": "A", "pilot": "Amy"},
        {"type": "set_defender", "team": "B", "pilot": "Bo"},
        {"type": "start_round"},
    ):
        assert ref.post(f"/api/games/{gid}/actions", json={"action": action}).get_json()["ok"]
    screens = []
    for i in range(1, SCREENS):
        browser = app.test_client() if i % 4 == 0 else join(app, created["links"]["join"]["AB"[i % 2]])
        browser.set_cookie("lang", "en" if i % 3 == 0 else "cs")
        sock = socketio.test_client(app, flask_test_client=browser)
        assert sock.emit("resync", {"game": gid, "seq": 0}, callback=True)["ok"]
        screens.append(sock)
    referee = socketio.test_client(app, flask_test_client=ref)
    assert referee.emit("resync", {"game": gid, "seq": 0}, callback=True)["ok"]
    if not full:
        send = socketio.server._send_eio_packet
        dropped = {s.eio_sid for s in screens}

        def to_the_referee_only(eio_sid: str, pkt: Any) -> Any:
            return None if eio_sid in dropped else send(eio_sid, pkt)

        socketio.server._send_eio_packet = to_the_referee_only
    # One referee reports far faster than a person: the bench is not the rate limit's subject.
    push_sockets.RATE_PER_SECOND = push_sockets.RATE_BURST = 1e9
    return (referee, screens), gid


def report(sockets: Any, gid: str, first: int, count: int) -> None:
    """Send `count` reports, pause and resume in turn, each waiting for its ack."""
    referee, screens = sockets
    for n in range(first, first + count):
        kind = "pause_timer" if n % 2 == 0 else "resume_timer"
        ack = referee.emit("action", {"game": gid, "client_id": f"r-{n}", "action": {"type": kind}}, callback=True)
        assert ack["ok"], ack
    for sock in screens:
        sock.get_received()


# The parts `--parts` times: (label, owner, attribute). The commit is timed apart (`timed_parts`).
PARTS = (
    ("the store's write", store.Store, "execute"),
    ("  the rules", engine.Engine, "apply"),
    ("the push", push_view, "push_views"),
    ("  the views", push_view, "_view_or_none"),
    ("  the change sets", changes, "diff"),
    ("  their translation", push_view, "_said_message"),
    ("  the emits", None, "emit"),  # the app's Socket.IO manager's, known once the app is made
)
COMMIT = "  the commit"


def timed_parts() -> dict[str, float]:
    """Wrap each part with a CPU timer of its outermost calls; return the running totals, in seconds."""
    spent: dict[str, float] = collections.defaultdict(float)
    inside: collections.Counter[str] = collections.Counter()

    def timed(label: str, fn: Any) -> Any:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            if inside[label]:
                return fn(*args, **kwargs)
            inside[label] += 1
            started = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - started
                inside[label] -= 1

        return run

    for label, part_of, name in PARTS:
        owner = socketio.server.manager if part_of is None else part_of
        setattr(owner, name, timed(label, getattr(owner, name)))
    DefaultDialect.do_commit = timed(COMMIT, DefaultDialect.do_commit)  # type: ignore[method-assign]
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the screens' sockets decode every push too")
    parser.add_argument("--profile", type=int, default=0, help="then profile this many more reports")
    parser.add_argument("--reports", type=int, default=0, help="only send this many reports (for callgrind)")
    parser.add_argument("--sort", default="cumulative", help="the profile's order (cumulative, tottime, ...)")
    parser.add_argument("--gap", type=float, default=0.0, help="seconds of pause before each report (cold caches)")
    parser.add_argument("--parts", action="store_true", help="with --gap: split each report's CPU time by its parts")
    args = parser.parse_args()
    if args.parts and not args.gap:
        parser.error("--parts needs --gap")
    sockets, gid = set_up(args.full)
    spent = timed_parts() if args.parts else None
    if args.reports:
        report(sockets, gid, 0, args.reports)
        return
    report(sockets, gid, 0, 50)  # warm: caches, the first whole views
    if args.gap:
        each = []
        parts: dict[str, list[float]] = collections.defaultdict(list)
        for n in range(100):
            time.sleep(args.gap)
            before = dict(spent) if spent is not None else {}
            started = time.process_time()
            report(sockets, gid, 50 + n, 1)
            each.append((time.process_time() - started) * 1000)
            for label, total in (spent or {}).items():
                parts[label].append((total - before.get(label, 0.0)) * 1000)
        print(
            f"report_cost screens={SCREENS} full={args.full} gap_s={args.gap:g} "
            f"median_ms={statistics.median(each):.2f} p90_ms={sorted(each)[89]:.2f}"
        )
        labels = [label for label, _owner, _name in PARTS]
        labels.insert(labels.index("the push"), COMMIT)
        for label in labels if spent is not None else []:
            print(f"  {label:<22} median {statistics.median(parts[label] or [0.0]):.3f} ms")
        return
    batches = []
    for b in range(6):
        started = time.process_time()
        report(sockets, gid, 50 + 100 * b, 100)
        batches.append((time.process_time() - started) * 10)
    print(
        f"report_cost screens={SCREENS} full={args.full} min_ms={min(batches):.2f} "
        f"median_ms={statistics.median(batches):.2f}"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        report(sockets, gid, 650, args.profile)
        profiler.disable()
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(40)


if __name__ == "__main__":
    main()
