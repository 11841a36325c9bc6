"""Spread of the round time left shown by 40 screens at one instant, without and with network delay.

    .venv/bin/python bench/timer_spread.py [--clients 40] [--trials 5] [--delay 100] [--jitter 30]

Starts a real `referee serve`, starts a round, then per trial connects N Python Socket.IO clients
at once (websocket, as conn.js tries first). Each client gets the round's deadline from its
`resync` view and estimates the server clock offset exactly as static/js/lib/conn.js `syncClock` +
`bestOffset` do: 8 `time_ping` acks one after another, 30 ms apart, rtt on a monotonic clock,
offset = server_time - (t0 + rtt/2); keep the 3 with the lowest rtt, median of their offsets.
Each client has its own local clock, off by a random ±2 s, so an uncorrected clock would show.
At one instant T every client computes what timer.js shows, deadline - (local_now + offset);
the spread is max - min over the clients.

Scenarios: direct (loopback), and through a TCP delay proxy (a subprocess of this script,
asyncio) adding 100 ± 30 ms each way, order kept: "jitter" draws a delay per chunk (like netem
`delay 100ms 30ms`, but never reordering), "fixed" draws one delay per connection and direction
(the worst case for the rtt/2 assumption: a path slower one way than the other). Goal (issue 4):
spread < 50 ms with 100 ± 30 ms delay.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOAL_MS = 50.0
PING_SAMPLES = 8  # conn.js pingSamples
PING_KEEP = 3  # conn.js pingKeep
PING_GAP_S = 0.030  # conn.js: sleep(30) between pings
PING_TIMEOUT_S = 3.0  # conn.js pingTimeoutMs


# --- the delay proxy (run as a subprocess: its timing must not wait on the clients' GIL) ------


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: Any) -> None:
    """Copy one direction, releasing each chunk `delay()` seconds after it came, never out of order."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def pump_in() -> None:
        last = 0.0
        while True:
            data = await reader.read(65536)
            release = max(loop.time() + delay(), last)  # order is kept: never before the previous chunk
            last = release
            queue.put_nowait((release, data))
            if not data:
                return

    async def pump_out() -> None:
        while True:
            release, data = await queue.get()
            wait = release - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    try:
        await asyncio.gather(pump_in(), pump_out())
    except (ConnectionError, OSError):
        writer.close()


async def _proxy(listen_port: int, target_port: int, mode: str, mean_ms: float, jitter_ms: float) -> None:
    def draw() -> float:
        return max(0.0, random.uniform(mean_ms - jitter_ms, mean_ms + jitter_ms)) / 1000

    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection("127.0.0.1", target_port)
        if mode == "fixed":
            up, down = draw(), draw()
            up_delay, down_delay = (lambda: up), (lambda: down)
        else:
            up_delay = down_delay = draw
        await asyncio.gather(_pipe(client_r, server_w, up_delay), _pipe(server_r, client_w, down_delay))

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


class DelayProxy:
    """A delay proxy subprocess in front of a port."""

    def __init__(self, target_port: int, mode: str, mean_ms: float, jitter_ms: float) -> None:
        from tests.live_server import free_port

        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--proxy", str(self.port), str(target_port), mode, str(mean_ms), str(jitter_ms)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the delay proxy did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# --- the clients ------------------------------------------------------------------------------


def best_offset(samples: list[tuple[float, float]], keep: int = PING_KEEP) -> float:
    """conn.js bestOffset: of (rtt, offset) samples keep the `keep` lowest rtt, median offset."""
    kept = sorted(samples)[: max(1, keep)]
    return float(statistics.median(offset for _rtt, offset in kept))


class Screen:
    """One phone: a Socket.IO client with a skewed local clock, syncing as conn.js does."""

    def __init__(self, url: str, game: str, skew_ms: float, samples: int = PING_SAMPLES, keep: int = PING_KEEP) -> None:
        import socketio

        self.samples = samples
        self.keep = keep
        self.url = url
        self.game = game
        self.skew_ms = skew_ms
        self.client = socketio.Client(reconnection=False)
        self.offset = 0.0
        self.deadline_ms: float | None = None
        self.error: str | None = None

    def local_ms(self) -> float:
        """This phone's Date.now(): the real clock, off by its skew."""
        return time.time() * 1000.0 + self.skew_ms

    def run(self) -> None:
        try:
            self.client.connect(self.url, transports=["websocket"], wait_timeout=20)
            reply = self.client.call("resync", {"game": self.game, "seq": -1}, timeout=20)
            view = reply.get("view") if isinstance(reply, dict) else None
            deadline = ((view or {}).get("round") or {}).get("deadline")
            if deadline is None:
                raise RuntimeError(f"no running round in the view: {str(reply)[:200]}")
            self.deadline_ms = float(deadline) * 1000.0  # team.js / watch.js: round.deadline * 1000
            samples: list[tuple[float, float]] = []
            for i in range(self.samples):
                t0 = self.local_ms()
                p0 = time.perf_counter()
                try:
                    answer = self.client.call("time_ping", {"t0": t0}, timeout=PING_TIMEOUT_S)
                except Exception:  # noqa: BLE001 - a lost ping: fewer samples, as in conn.js
                    continue
                rtt = (time.perf_counter() - p0) * 1000.0
                samples.append((rtt, float(answer["server_time"]) - (t0 + rtt / 2)))
                if i + 1 < self.samples:
                    time.sleep(PING_GAP_S)
            if not samples:
                raise RuntimeError("no ping answered")
            self.offset = best_offset(samples, self.keep)
        except Exception as exc:  # noqa: BLE001 - reported, not hidden
            self.error = f"{type(exc).__name__}: {exc}"

    def shown_ms(self, now_real_ms: float) -> float:
        """What Countdown.remainingMs() shows at a real instant: deadline - serverNow()."""
        assert self.deadline_ms is not None
        return self.deadline_ms - (now_real_ms + self.skew_ms + self.offset)


def trial(
    url: str, game: str, clients: int, rng: random.Random, samples: int = PING_SAMPLES, keep: int = PING_KEEP
) -> list[float]:
    """Connect and sync `clients` screens at once; return their shown remaining ms at one instant."""
    screens = [Screen(url, game, rng.uniform(-2000, 2000), samples, keep) for _ in range(clients)]
    threads = [threading.Thread(target=s.run) for s in screens]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    failed = [s.error for s in screens if s.error]
    if failed:
        raise SystemExit(f"{len(failed)} screens failed, e.g. {failed[0]}")
    now = time.time() * 1000.0
    shown = [s.shown_ms(now) for s in screens]
    # In parallel: each disconnect waits for its close handshake through the proxy.
    closers = [threading.Thread(target=s.client.disconnect) for s in screens]
    for t in closers:
        t.start()
    for t in closers:
        t.join(30)
    return shown


def start_round(base: str, link: str) -> str:
    """Create a game through the API, start its first round; return the game id."""
    import requests

    from tests.airraid_helpers import PLAYERS

    ref = requests.Session()
    ref.get(link, allow_redirects=False, timeout=10)
    created = ref.post(
        f"{base}/api/games",
        json={
            "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
            "round_seconds": 3600,
        },
        timeout=10,
    ).json()
    gid = str(created["game"])
    for team in "AB":
        ships = ref.post(f"{base}/api/games/{gid}/sea/random", json={"team": team}, timeout=10).json()["ships"]
        assert ref.post(
            f"{base}/api/games/{gid}/actions",
            json={"action": {"type": "lock_sea", "team": team, "ships": ships}},
            timeout=10,
        ).json()["ok"]
    for action in (
        {"type": "start_game"},
        {"type": "set_defender", "team": "A", "pilot": "Amy"},
        {"type": "set_defender", "team": "B", "pilot": "Bo"},
        {"type": "start_round"},
    ):
        answer = ref.post(f"{base}/api/games/{gid}/actions", json={"action": action}, timeout=10)
        assert answer.status_code == 200 and answer.json()["ok"], answer.text
    return gid


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--proxy":
        listen, target, mode, mean, jitter = sys.argv[2:7]
        asyncio.run(_proxy(int(listen), int(target), mode, float(mean), float(jitter)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--delay", type=float, default=100.0, help="mean added delay each way, ms")
    parser.add_argument("--jitter", type=float, default=30.0, help="± ms around the mean")
    parser.add_argument(
        "--samples", type=int, default=PING_SAMPLES, help="pings per sync (conn.js: 8); to try other settings"
    )
    parser.add_argument("--keep", type=int, default=PING_KEEP, help="lowest-rtt pings kept (conn.js: 3)")
    args = parser.parse_args()

    from tests.live_server import Server

    rng = random.Random(4)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "instance")
        server.start()
        try:
            gid = start_round(server.base, server.link)
            scenarios: list[tuple[str, str | None]] = [
                ("direct (loopback)", None),
                (f"jitter {args.delay:.0f} ± {args.jitter:.0f} ms per chunk", "jitter"),
                (f"fixed {args.delay:.0f} ± {args.jitter:.0f} ms per connection and direction", "fixed"),
            ]
            print(
                f"{args.clients} screens, {args.trials} trials each, {args.samples} pings keeping {args.keep}; "
                "spread = max - min of the time left shown at one instant"
            )
            for name, mode in scenarios:
                proxy = DelayProxy(server.port, mode, args.delay, args.jitter) if mode else None
                url = f"http://127.0.0.1:{proxy.port}" if proxy else server.base
                try:
                    spreads = []
                    for _ in range(args.trials):
                        shown = trial(url, gid, args.clients, rng, args.samples, args.keep)
                        spreads.append(max(shown) - min(shown))
                finally:
                    if proxy:
                        proxy.stop()
                worst = max(spreads)
                verdict = (
                    ""
                    if mode is None
                    else f"; goal < {GOAL_MS:.0f} ms: "
                    + ("met" if worst < GOAL_MS else f"MISSED by {worst - GOAL_MS:.0f} ms (worst trial)")
                )
                print(
                    f"  {name}: spread median {statistics.median(spreads):.1f} ms, worst {worst:.1f} ms "
                    f"over {len(spreads)} trials{verdict}"
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
