"""Time from one screen's report to the update on every other screen, on a real `referee serve`.

    .venv/bin/python bench/report_latency.py [--clients 40] [--reports 100] [--rate 10]

Starts the server on a free port, creates a game through the API, joins both teams, and
connects N Socket.IO clients (the referee, both teams, the rest as projectors/watchers). The
referee then sends `reports` entries at `rate` per second (pausing and resuming the round
clock, which changes every screen); for each, every other client's arrival time of the view
with that seq is taken. Prints p50/p99/max in ms. Needs `pip install "python-socketio[client]"`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
import socketio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.airraid_helpers import PLAYERS  # noqa: E402
from tests.live_server import Server  # noqa: E402


def session_from(link: str) -> requests.Session:
    """Return a session holding the cookie a token link gives."""
    s = requests.Session()
    s.get(link, allow_redirects=False, timeout=10)
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--reports", type=int, default=100)
    parser.add_argument("--rate", type=float, default=10.0)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "instance")
        server.start()
        try:
            run(server, args)
        finally:
            server.stop()


def run(server: Server, args: argparse.Namespace) -> None:
    base = server.base
    ref = session_from(server.link)
    created = ref.post(
        f"{base}/api/games",
        json={"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        timeout=10,
    ).json()
    gid = created["game"]
    teams = {}
    for team in "AB":
        token = created["links"]["join"][team].split("t=", 1)[1]
        teams[team] = session_from(f"{base}/api/games/{gid}/view?t={token}")
        ships = teams[team].post(f"{base}/api/games/{gid}/sea/random", json={"team": team}, timeout=10).json()["ships"]
        assert (
            teams[team]
            .post(
                f"{base}/api/games/{gid}/actions",
                json={"action": {"type": "lock_sea", "team": team, "ships": ships}},
                timeout=10,
            )
            .json()["ok"]
        )
    for action in (
        {"type": "start_game"},
        {"type": "set_defender", "team": "A", "pilot": "Amy"},
        {"type": "set_defender", "team": "B", "pilot": "Bo"},
        {"type": "start_round"},
    ):
        assert ref.post(f"{base}/api/games/{gid}/actions", json={"action": action}, timeout=10).json()["ok"]

    arrivals: dict[int, list[float]] = {}
    lock = threading.Lock()
    clients = []
    sessions = [ref, teams["A"], teams["B"]] + [requests.Session() for _ in range(max(0, args.clients - 3))]
    for i, sess in enumerate(sessions[: args.clients]):
        client = socketio.Client(reconnection=False)
        if i > 0:

            def on_view(msg: dict[str, object]) -> None:
                now = time.perf_counter()
                with lock:
                    arrivals.setdefault(int(msg["seq"]), []).append(now)  # type: ignore[call-overload]

            client.on("view", on_view)
        cookie = "; ".join(f"{k}={v}" for k, v in sess.cookies.items())
        client.connect(base, headers={"Cookie": cookie} if cookie else {}, transports=["websocket"])
        ack = client.call("resync", {"game": gid, "seq": 0}, timeout=10)
        assert ack["ok"], ack
        clients.append(client)
    time.sleep(0.5)

    referee = clients[0]
    sent: dict[int, float] = {}
    kinds = ["pause_timer", "resume_timer"]
    for n in range(args.reports):
        start = time.perf_counter()
        ack = referee.call(
            "action", {"game": gid, "client_id": f"bench-{n}", "action": {"type": kinds[n % 2]}}, timeout=10
        )
        assert ack["ok"], ack
        sent[int(ack["seq"])] = start
        time.sleep(max(0.0, 1.0 / args.rate - (time.perf_counter() - start)))
    time.sleep(1.0)

    others = len(clients) - 1
    latencies: list[float] = []
    missing = 0
    for seq, start in sent.items():
        got = arrivals.get(seq, [])
        missing += others - len(got)
        latencies.extend((t - start) * 1000 for t in got)
    for client in clients:
        client.disconnect()
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]  # noqa: E731
    print(
        f"clients={len(clients)} reports={len(sent)} rate={args.rate}/s deliveries={len(latencies)} missing={missing}"
    )
    print(
        f"report→update ms: p50={p(0.50):.1f} p99={p(0.99):.1f} max={latencies[-1]:.1f} "
        f"mean={statistics.fmean(latencies):.1f}"
    )


if __name__ == "__main__":
    main()
