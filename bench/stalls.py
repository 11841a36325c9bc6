"""Can one client stall the others? A monitor's latency on a real `referee serve` while one client attacks.

    .venv/bin/python bench/stalls.py                       # every attack, about 4 minutes
    .venv/bin/python bench/stalls.py --only void,restart   # a subset (quiet always runs first)
    .venv/bin/python bench/stalls.py --seconds 0.5 --events 2000
    .venv/bin/python bench/stalls.py --root /tmp/before    # serve another checkout of the code

Starts `python -m referee.cli serve` (the gevent server: one event loop) on a free port of
127.0.0.1 with SQLite in a temporary instance folder; `--root DIR` serves that source tree instead
(cwd and PYTHONPATH are DIR), with this venv's packages. Before measuring it builds the games the
attacks need: an air-raid game in planning (both seas locked) with a team's phone joined, the
longest game the bounds allow (the referee pausing and resuming the round clock, `--events` events
in all; the referee's entries are not bounded) and a game of the largest sea a shipped ruleset
allows (its size bound, config/ruleset_limits.toml, with the largest team).

The monitor is another client, in a process of its own (the attackers' threads must not hold its
interpreter) and from another address (127.0.0.2): every 25 ms a `GET /api/health` on a fresh
connection, timed from the connect until the whole answer is read, and every 25 ms a Socket.IO
round trip (`time_ping` and its ack, on a hand-made Engine.IO v4 websocket), over five sockets in
turn so that each stays under the server's limit of 10 events a second. A sixth socket watches the
attacked game as a spectator (its pushes are counted). The attackers' threads run at nice 10, so
that on a small machine the server and the monitor get the processor first: what is measured is
the server, not the bench's own load.

Attacks, one at a time, each after a short settle; each prints one line: its samples, their p50,
p99 and worst in ms (HTTP and Socket.IO together, then each apart), the monitor's failed samples,
and what the attack itself did.
- quiet: no attack, the baseline.
- host: malformed Host headers (`a..b`, a 64-letter label, `bad_char!`, `x:99999`, empty, none) on
  `/`, a static file and an API route, from 4 connections.
- churn: a team's phone adding and removing an order in planning as fast as it can, from 8
  threads over HTTP (a team's base makes at most 60 changes a stage: the rest are refused).
- void: the referee voids early events of the long game several times, each timed.
- restart: the server stops and starts again on the same folder; a stranger reads the long game's
  view and a referee's socket resyncs it at once. Measured from when /api/health answers again.
- downloads: log.json, log.csv and the score sheet of the long game, from 4 connections.
- computer: Battleship and Vestorsjø against the strongest computer, moves as fast as allowed.
- sea_random: `POST …/sea/random` on the largest sea, from 4 connections.
- bodies: 1 MiB JSON bodies to an action route from 20 connections of one stranger.
- create: the referee creating games as fast as allowed, from 4 connections.
An attack a checkout cannot run prints `skipped: <reason>`.

The last line: `stalls worst_ms=… p99_ms=… attacks=N over_100ms=K`: worst and p99 are the largest
of every attack's (quiet included), N the attacks run (quiet and skipped ones not counted), K how
many of those had a worst over 100 ms. The goal: worst under 100 ms and p99 under 50 ms in every
attack.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
MONITOR_ADDRESS = "127.0.0.2"
INTERVAL = 0.025  # seconds between two samples of each kind
MONITOR_SOCKETS = 5  # the Socket.IO samples go round these: 8 events a second each, under the limit of 10
ATTACKER_NICE = 10
ATTACKS = ("host", "churn", "void", "restart", "downloads", "computer", "sea_random", "bodies", "create")
BAD_HOSTS: tuple[str | None, ...] = ("a..b", "a" * 64, "bad_char!", "x:99999", "", None)  # None: no Host header
PLAYERS_10 = {"A": [f"Ann{i}" for i in range(10)], "B": [f"Bob{i}" for i in range(10)]}
PLAYERS_4 = {"A": ["Ann", "Ada", "Abe", "Amy"], "B": ["Bob", "Bea", "Ben", "Bo"]}
CORRIDORS = ("upper", "middle", "lower")


class Skip(Exception):
    """An attack this checkout cannot run: the line says why."""


# --- Small clients ------------------------------------------------------------------------------


def raw_http(port: int, request: bytes, *, source: str | None = None, timeout: float = 10.0) -> str:
    """Send one raw request on a fresh connection and read until it closes; return the status code."""
    with socket.create_connection((HOST, port), timeout=timeout, source_address=(source, 0) if source else None) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            s.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered and closed before the whole body was sent: the answer may still be there
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            if not data:
                return "reset"
    match = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return match.group(1).decode() if match else ("empty" if not data else "garbled")


def health_request(port: int) -> bytes:
    return f"GET /api/health HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode()


class Eio:
    """A Socket.IO client on one websocket (Engine.IO v4), optionally from a given source address.

    Used by one thread at a time: `call` sends an event and reads until its ack, answering the
    server's pings and counting the pushes that come meanwhile.
    """

    def __init__(self, port: int, *, source: str | None = None, cookie: str = "", timeout: float = 10.0) -> None:
        import websocket

        sock = socket.create_connection((HOST, port), timeout=timeout, source_address=(source, 0) if source else None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.ws = websocket.WebSocket()
        try:
            self.ws.connect(
                f"ws://{HOST}:{port}/socket.io/?EIO=4&transport=websocket",
                socket=sock,
                suppress_origin=True,
                cookie=cookie or None,
                timeout=timeout,
            )
            self.ws.settimeout(timeout)
            opened = self.ws.recv()
            if not str(opened).startswith("0"):
                raise ConnectionError(f"no Engine.IO open packet: {str(opened)[:80]}")
            self.ws.send("40")
        except websocket.WebSocketException as exc:
            sock.close()
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from None
        while True:
            message = self.recv()
            if message is None:
                continue
            if message.startswith("40"):
                break
            if message.startswith("44"):
                raise ConnectionError(f"Socket.IO connect refused: {message[:120]}")
        self.next_id = 0
        self.pushes = 0

    def recv(self) -> str | None:
        """Return the next message; None for a ping (answered). Raise TimeoutError or ConnectionError."""
        import websocket

        try:
            message = str(self.ws.recv())
            if message == "2":
                self.ws.send("3")
                return None
        except websocket.WebSocketTimeoutException:
            raise TimeoutError("no message in time") from None
        except websocket.WebSocketException as exc:
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from None
        if message == "1" or message.startswith("41"):
            raise ConnectionError("closed by the server")
        return message

    def call(self, event: str, data: Any, timeout: float | None = None) -> Any:
        """Send an event and return its ack's first argument."""
        import websocket

        n = self.next_id
        self.next_id += 1
        if timeout is not None:
            self.ws.settimeout(timeout)
        try:
            self.ws.send(f"42{n}" + json.dumps([event, data], separators=(",", ":")))
        except websocket.WebSocketException as exc:
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from None
        prefix = f"43{n}["
        while True:
            message = self.recv()
            if message is None:
                continue
            if message.startswith(prefix):
                return json.loads(message[len(prefix) - 1 :])[0]
            if message.startswith("42"):
                self.pushes += 1

    def close(self) -> None:
        try:
            self.ws.close(timeout=0.2)
        except Exception:  # noqa: BLE001 - closing a socket that may be broken already
            pass


# --- The server under test ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Served:
    """`python -m referee.cli serve` of a source tree on a port, with an instance folder (as tests/live_server.py)."""

    def __init__(self, root: Path, instance: Path, port: int) -> None:
        self.root = root
        self.instance = instance
        self.port = port
        self.proc: subprocess.Popen[str] | None = None
        self.link = ""
        self.output: list[str] = []

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, timeout: float = 90) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONPATH"] = str(self.root)
        args = ["serve", "--host", HOST, "--port", str(self.port), "--instance-path", str(self.instance)]
        self.link = ""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=self.root,
            start_new_session=True,
        )
        found = threading.Event()
        proc = self.proc

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                self.output.append(line)
                if not self.link:
                    match = re.search(r"(http://\S+\?token=\S+)", line)
                    if match:
                        self.link = re.sub(r"^http://[^/]+", self.base, match.group(1))
                        found.set()

        threading.Thread(target=read, daemon=True).start()
        deadline = time.time() + timeout
        if not found.wait(timeout):
            self.stop()
            raise RuntimeError("the server printed no referee link:\n" + self.tail())
        while time.time() < deadline:
            if proc.poll() is not None:
                raise RuntimeError("the server stopped:\n" + self.tail())
            try:
                urllib.request.urlopen(f"{self.base}/api/health", timeout=2)
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the server did not answer:\n" + self.tail())

    def tail(self, lines: int = 30) -> str:
        return "".join(self.output[-lines:])

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


# --- The monitor (its own process) ----------------------------------------------------------------


def monitor_main(port: int, interval: float) -> None:
    """Run the monitor: lines on stdout (`h|s <t> <ms> [timeout]`, `x <t> <what>`, `p <t>`); stdin: `watch GID`."""
    lock = threading.Lock()
    stop = threading.Event()

    def emit(line: str) -> None:
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def paced(sample: Callable[[], None]) -> None:
        due = time.monotonic()
        while not stop.is_set():
            sample()
            due += interval
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
            else:
                due = now  # a slow sample: the next one now, not a burst to catch up

    def http_sample() -> None:
        t0 = time.monotonic()
        try:
            status = raw_http(port, health_request(port), source=MONITOR_ADDRESS)
        except TimeoutError:
            emit(f"h {t0:.6f} {(time.monotonic() - t0) * 1000:.3f} timeout")
            return
        except OSError as exc:
            emit(f"x {t0:.6f} http:{type(exc).__name__}")
            time.sleep(0.05)
            return
        ms = (time.monotonic() - t0) * 1000
        if status == "200":
            emit(f"h {t0:.6f} {ms:.3f}")
        else:
            emit(f"x {t0:.6f} http:{status}")

    sockets: list[Eio | None] = [None] * MONITOR_SOCKETS
    turn = [0]

    def sio_sample() -> None:
        k = turn[0] % MONITOR_SOCKETS
        turn[0] += 1
        client = sockets[k]
        if client is None:
            try:
                client = sockets[k] = Eio(port, source=MONITOR_ADDRESS)
            except (OSError, ValueError) as exc:
                emit(f"x {time.monotonic():.6f} sio-connect:{type(exc).__name__}")
                time.sleep(0.05)
                return
        t0 = time.monotonic()
        try:
            ack = client.call("time_ping", {"t0": time.time() * 1000})
        except TimeoutError:
            emit(f"s {t0:.6f} {(time.monotonic() - t0) * 1000:.3f} timeout")
            client.close()
            sockets[k] = None
            return
        except (OSError, ValueError) as exc:  # websocket-client's errors are OSErrors or ValueErrors
            emit(f"x {t0:.6f} sio:{type(exc).__name__}")
            client.close()
            sockets[k] = None
            return
        ms = (time.monotonic() - t0) * 1000
        if isinstance(ack, dict) and "server_time" in ack:
            emit(f"s {t0:.6f} {ms:.3f}")
        else:
            emit(f"x {t0:.6f} sio:{str(ack)[:60]}")

    watching = {"game": "", "generation": 0}

    def spectator(game: str, generation: int) -> None:
        client: Eio | None = None
        while not stop.is_set() and watching["generation"] == generation:
            try:
                if client is None:
                    client = Eio(port, source=MONITOR_ADDRESS, timeout=30)
                    client.call("resync", {"game": game, "seq": 0})
                    client.ws.settimeout(0.5)
                message = client.recv()
                if message is not None and message.startswith("42"):
                    emit(f"p {time.monotonic():.6f}")
            except TimeoutError:
                continue
            except (OSError, ValueError):
                if client is not None:
                    client.close()
                client = None
                time.sleep(0.2)
        if client is not None:
            client.close()

    threads = [
        threading.Thread(target=paced, args=(http_sample,), daemon=True),
        threading.Thread(target=paced, args=(sio_sample,), daemon=True),
    ]
    for t in threads:
        t.start()
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["watch"] and len(words) == 2:
            watching["generation"] += 1
            watching["game"] = words[1]
            threading.Thread(target=spectator, args=(words[1], watching["generation"]), daemon=True).start()
        elif words[:1] == ["quit"]:
            break
    stop.set()
    os._exit(0)


@dataclass
class Stats:
    http: list[float] = field(default_factory=list)
    sio: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    pushes: int = 0

    @property
    def both(self) -> list[float]:
        return self.http + self.sio


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Monitor:
    """The monitor process, and the samples it sends back (kind, start time, ms)."""

    def __init__(self, port: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--monitor-port", str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.samples: list[tuple[str, float, float]] = []
        self.errors: list[tuple[float, str]] = []
        self.pushes: list[float] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            words = line.split()
            if not words:
                continue
            if words[0] in ("h", "s"):
                self.samples.append((words[0], float(words[1]), float(words[2])))
                if len(words) > 3:
                    self.errors.append((float(words[1]), f"{words[0]}:{words[3]}"))
            elif words[0] == "x":
                self.errors.append((float(words[1]), words[2]))
            elif words[0] == "p":
                self.pushes.append(float(words[1]))

    def watch(self, game: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"watch {game}\n")
        self.proc.stdin.flush()

    def window(self, t0: float, t1: float) -> Stats:
        stats = Stats()
        for kind, t, ms in list(self.samples):
            if t0 <= t <= t1:
                (stats.http if kind == "h" else stats.sio).append(ms)
        for t, what in list(self.errors):
            if t0 <= t <= t1:
                stats.errors[what] += 1
        stats.pushes = sum(1 for t in list(self.pushes) if t0 <= t <= t1)
        return stats

    def stop(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


# --- The bench ------------------------------------------------------------------------------------


def lower_priority() -> None:
    """Run the calling thread at nice ATTACKER_NICE (Linux: a thread's priority is its own)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), ATTACKER_NICE)
    except (OSError, AttributeError):
        pass


def workers(n: int, seconds: float, work: Callable[[int, float], None]) -> None:
    """Run work(i, deadline) in n threads at a lower priority; return when all are done."""
    deadline = time.monotonic() + seconds
    errors: list[BaseException] = []

    def run(i: int) -> None:
        lower_priority()
        try:
            work(i, deadline)
        except Exception as exc:  # noqa: BLE001 - reported by the caller, whichever thread it was
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def fmt_ms(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}" if values else "-"


class Bench:
    def __init__(self, root: Path, instance: Path, args: argparse.Namespace) -> None:
        import requests

        self.requests = requests
        self.root = root
        self.args = args
        self.scale = args.seconds
        self.server = Served(root, instance, free_port())
        self.monitor: Monitor | None = None
        self.ref_cookies: dict[str, str] = {}
        self.main_game = ""
        self.team_cookies: dict[str, str] = {}
        self.long_game = ""
        self.long_first_pause = 0
        self.sea_game = ""
        self.sea_size = 0

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def base(self) -> str:
        return self.server.base

    def session(self, cookies: dict[str, str] | None = None) -> Any:
        s = self.requests.Session()
        s.headers["Accept-Language"] = "en"
        if cookies:
            s.cookies.update(cookies)
        return s

    def cookie_header(self, cookies: dict[str, str]) -> str:
        return "; ".join(f"{k}={v}" for k, v in cookies.items())

    def act(self, s: Any, game: str, action: dict[str, Any]) -> dict[str, Any]:
        r = s.post(f"{self.base}/api/games/{game}/actions", json={"action": action}, timeout=60)
        answer: dict[str, Any] = r.json()
        if not answer.get("ok"):
            raise RuntimeError(f"{action['type']} refused: {r.status_code} {str(answer)[:300]}")
        return answer

    # --- Set-up, before anything is measured -----------------------------------------------------

    def set_up(self) -> None:
        ref = self.session()
        ref.get(self.server.link, allow_redirects=False, timeout=10)
        self.ref_cookies = dict(ref.cookies)
        if not self.ref_cookies:
            raise RuntimeError("the referee link gave no cookie")
        # The game a phone churns in: both seas locked, round 1 in planning, team A's phone joined.
        created = self.create_airraid(ref, PLAYERS_10)
        gid = self.main_game = created["game"]
        for team in "AB":
            phone = self.session()
            phone.get(created["links"]["join"][team], allow_redirects=False, timeout=10)
            ships = phone.post(f"{self.base}/api/games/{gid}/sea/random", json={"team": team}, timeout=10).json()
            self.act(phone, gid, {"type": "lock_sea", "team": team, "ships": ships["ships"]})
            if team == "A":
                self.team_cookies = dict(phone.cookies)
        self.act(ref, gid, {"type": "start_game"})
        # The largest sea: the bound of a sea's size, with the largest team (the largest fleet).
        self.sea_size = self.largest_sea()
        self.sea_game = self.create_airraid(ref, PLAYERS_10, sea_size=self.sea_size)["game"]
        self.build_long_game(ref)

    def create_airraid(self, ref: Any, players: dict[str, list[str]], **extra: Any) -> dict[str, Any]:
        body = {"teams": [{"name": "Eagles", "players": players["A"]}, {"name": "Sharks", "players": players["B"]}]}
        r = ref.post(f"{self.base}/api/games", json={**body, **extra}, timeout=30)
        if r.status_code != 201:
            raise RuntimeError(f"creating a game: {r.status_code} {r.text[:300]}")
        created: dict[str, Any] = r.json()
        return created

    def largest_sea(self) -> int:
        try:
            limits = tomllib.loads((self.root / "config" / "ruleset_limits.toml").read_text(encoding="utf-8"))
            return int(limits["bounds"]["sea_sizes[].size"][1])
        except (OSError, KeyError, ValueError, tomllib.TOMLDecodeError):
            return 26  # 26 letters A–Z name the squares

    def build_long_game(self, ref: Any) -> None:
        """The long game: a round in the air, the referee pausing and resuming its clock until --events."""
        started = time.perf_counter()
        gid = self.long_game = self.create_airraid(ref, PLAYERS_4, round_seconds=3600)["game"]
        for team in "AB":
            ships = ref.post(f"{self.base}/api/games/{gid}/sea/random", json={"team": team}, timeout=10).json()
            self.act(ref, gid, {"type": "lock_sea", "team": team, "ships": ships["ships"]})
        for action in (
            {"type": "start_game"},
            {"type": "set_defender", "team": "A", "pilot": "Amy"},
            {"type": "set_defender", "team": "B", "pilot": "Bo"},
            {"type": "start_round"},
        ):
            version = self.act(ref, gid, action)["seq"]
        self.long_first_pause = version + 1
        # Over sockets (no view in the answer), in turn, each under its limit of 10 a second.
        cookie = self.cookie_header(self.ref_cookies)
        clients = [Eio(self.port, cookie=cookie, timeout=30) for _ in range(30)]
        n = 0
        try:
            while version < self.args.events:
                client = clients[n % len(clients)]
                kind = "pause_timer" if (version + 1 - self.long_first_pause) % 2 == 0 else "resume_timer"
                ack = client.call("action", {"game": gid, "client_id": f"long-{n}", "action": {"type": kind}})
                n += 1
                if ack.get("ok"):
                    version = int(ack["seq"])
                elif ack.get("error") == "rate_limited":
                    time.sleep(float(ack.get("retry_after", 0.05)))
                else:
                    raise RuntimeError(f"building the long game: {ack}")
        finally:
            for client in clients:
                client.close()
        print(f"set-up: the long game has {version} events ({time.perf_counter() - started:.0f} s)", flush=True)

    # --- The attacks -----------------------------------------------------------------------------

    def attack_quiet(self) -> str:
        time.sleep(10 * self.scale)
        return "no attack"

    def attack_host(self) -> str:
        paths = ["/", "/static/css/app.css", f"/api/games/{self.main_game}/view"]
        if not (self.root / "static" / "css" / "app.css").is_file():
            paths[1] = "/static/img/icon.svg"
        requests_ = [
            (
                f"GET {path} HTTP/1.1\r\n"
                + (f"Host: {host}\r\n" if host is not None else "")
                + "Connection: close\r\n\r\n"
            )
            for host in BAD_HOSTS
            for path in paths
        ]
        statuses: Counter[str] = Counter()
        lock = threading.Lock()

        def work(i: int, deadline: float) -> None:
            k = i
            while time.monotonic() < deadline:
                try:
                    status = raw_http(self.port, requests_[k % len(requests_)].encode())
                except OSError as exc:
                    status = type(exc).__name__
                k += 1
                with lock:
                    statuses[status] += 1

        workers(4, 10 * self.scale, work)
        return f"requests={sum(statuses.values())} statuses={dict(sorted(statuses.items()))}"

    def attack_churn(self) -> str:
        gid = self.main_game
        before = self.version_of(gid)
        refusals: Counter[str] = Counter()
        made: Counter[str] = Counter()
        lock = threading.Lock()

        def work(i: int, deadline: float) -> None:
            phone = self.session(self.team_cookies)
            order = {
                "type": "add_order",
                "team": "A",
                "pilot": PLAYERS_10["A"][i],
                "kind": "fighter",
                "ship": chr(ord("A") + i % 8),
                "corridor": CORRIDORS[i % 3],
            }
            url = f"{self.base}/api/games/{gid}/actions"
            while time.monotonic() < deadline:
                r = phone.post(url, json={"action": order}, timeout=30)
                answer = r.json()
                if answer.get("ok"):
                    with lock:
                        made["add"] += 1
                    r = phone.post(url, json={"action": {"type": "remove_order", "order": answer["order"]}}, timeout=30)
                    answer = r.json()
                    if answer.get("ok"):
                        with lock:
                            made["remove"] += 1
                        continue
                reason = f"{r.status_code} {answer.get('error')}"
                if "changes" in str(answer.get("message", "")):
                    reason += " (changes a stage)"
                with lock:
                    refusals[reason] += 1

        workers(8, 60 * self.scale, work)
        after = self.version_of(gid)
        sent = sum(made.values()) + sum(refusals.values())
        return (
            f"requests={sent} events={after - before} (version {before}->{after}) "
            f"refusals={dict(sorted(refusals.items()))}"
        )

    def version_of(self, gid: str) -> int:
        r = self.session(self.ref_cookies).get(f"{self.base}/api/games/{gid}/view", timeout=60)
        view = r.json()
        return int(view.get("version") or view.get("seq") or 0)

    def attack_void(self) -> str:
        client = Eio(self.port, cookie=self.cookie_header(self.ref_cookies), timeout=120)
        times = []
        answers: Counter[str] = Counter()
        try:
            for k in range(5):
                target = self.long_first_pause + 2 * (k + 1)  # early pauses: every later event is recomputed
                action = {"type": "void", "seq": target, "reason": "bench"}
                t = time.perf_counter()
                ack = client.call("action", {"game": self.long_game, "client_id": f"void-{k}", "action": action})
                times.append((time.perf_counter() - t) * 1000)
                answers["ok" if ack.get("ok") else str(ack.get("error"))] += 1
                if not ack.get("ok") and k == 0:
                    raise Skip(f"the void was refused: {str(ack)[:200]}")
                time.sleep(1.0 * self.scale)
        finally:
            client.close()
        return f"voids={dict(answers)} void_ms=[{', '.join(f'{t:.0f}' for t in times)}]"

    def attack_restart(self) -> tuple[float, str]:
        down = time.perf_counter()
        self.server.stop()
        self.server.start()
        t0 = time.monotonic()
        took = time.perf_counter() - down
        results: dict[str, str] = {}

        def stranger() -> None:
            lower_priority()
            t = time.perf_counter()
            try:
                r = self.session().get(f"{self.base}/api/games/{self.long_game}/view", timeout=60)
                status = str(r.status_code)
            except OSError as exc:
                status = type(exc).__name__
            results["stranger"] = f"{status} in {(time.perf_counter() - t) * 1000:.0f} ms"

        def resync() -> None:
            lower_priority()
            t = time.perf_counter()
            try:
                client = Eio(self.port, cookie=self.cookie_header(self.ref_cookies), timeout=60)
                ack = client.call("resync", {"game": self.long_game, "seq": 0})
                client.close()
                status = "ok" if ack.get("ok") else str(ack.get("error"))
            except (OSError, ValueError) as exc:
                status = type(exc).__name__
            results["resync"] = f"{status} in {(time.perf_counter() - t) * 1000:.0f} ms"

        threads = [threading.Thread(target=stranger), threading.Thread(target=resync)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(max(0.0, t0 + 5 * self.scale - time.monotonic()))
        return t0, (
            f"down_and_up={took:.1f} s stranger_view={results.get('stranger')} referee_resync={results.get('resync')}"
        )

    def attack_downloads(self) -> str:
        gid = self.long_game
        urls = {
            "log.json": f"/api/games/{gid}/log.json",
            "log.csv": f"/api/games/{gid}/log.csv",
            "sheet": f"/g/{gid}/sheet",
        }
        times: dict[str, list[float]] = {k: [] for k in urls}
        statuses: Counter[str] = Counter()
        sizes: dict[str, int] = {}
        lock = threading.Lock()

        def work(i: int, deadline: float) -> None:
            s = self.session(self.ref_cookies)
            names = list(urls)
            k = i
            while time.monotonic() < deadline:
                name = names[k % len(names)]
                k += 1
                t = time.perf_counter()
                r = s.get(self.base + urls[name], timeout=120)
                ms = (time.perf_counter() - t) * 1000
                with lock:
                    statuses[f"{name}:{r.status_code}"] += 1
                    if r.status_code == 200:
                        times[name].append(ms)
                        sizes[name] = len(r.content)

        workers(4, 10 * self.scale, work)
        if not any(times.values()):
            raise Skip(f"no download answered 200: {dict(statuses)}")
        parts = [f"{k}={len(v)} (median {fmt_ms(v)} ms, {sizes.get(k, 0) // 1024} KB)" for k, v in times.items()]
        refused = {k: v for k, v in statuses.items() if not k.endswith(":200")}
        return "downloads: " + ", ".join(parts) + (f" other={refused}" if refused else "")

    def attack_computer(self) -> str:
        results: dict[str, str] = {}

        def battleship(deadline: float) -> None:
            s = self.session()
            squares = [f"{r}{c}" for r in "ABCDEFGHIJ" for c in range(1, 11)]
            times: list[float] = []
            shots = computer = games = 0
            note = ""
            while time.monotonic() < deadline:
                r = s.post(
                    f"{self.base}/api/battleship/games",
                    json={"ruleset": "zeeslag", "opponent": "computer", "level": "strong", "first": "A"},
                    timeout=30,
                )
                if r.status_code != 201:
                    note = f" creation refused {r.status_code}"
                    break
                games += 1
                gid = r.json()["game"]
                ships = s.post(f"{self.base}/api/games/{gid}/sea/random", json={"player": "A"}, timeout=30).json()
                seq = self.act(s, gid, {"type": "place_fleet", "player": "A", "ships": ships["ships"]})["seq"]
                random.shuffle(squares)
                k = 0
                while time.monotonic() < deadline and k < len(squares):
                    t = time.perf_counter()
                    r = s.post(
                        f"{self.base}/api/games/{gid}/actions",
                        json={"action": {"type": "fire", "player": "A", "squares": [squares[k]]}},
                        timeout=60,
                    )
                    answer = r.json()
                    if answer.get("ok"):
                        times.append((time.perf_counter() - t) * 1000)
                        shots += 1
                        computer += max(0, int(answer["seq"]) - int(seq) - 1)
                        seq = int(answer["seq"])
                        k += 1
                    elif "already" in str(answer.get("message", "")):
                        k += 1
                    else:
                        view = s.get(f"{self.base}/api/games/{gid}/view", timeout=30).json()
                        if view.get("outcome") is not None:
                            break  # over: the next game
                        time.sleep(0.02)
            results["battleship"] = (
                f"battleship games={games} shots={shots} computer_events={computer} "
                f"answer_ms median={fmt_ms(times)} max={max(times, default=0):.0f}{note}"
            )

        def vestorsjo(deadline: float) -> None:
            s = self.session()
            times: list[float] = []
            turns = computer = games = 0
            note = ""
            while time.monotonic() < deadline:
                r = s.post(
                    f"{self.base}/api/vestorsjo/games", json={"opponent": "computer", "level": "strong"}, timeout=30
                )
                if r.status_code != 201:
                    note = f" creation refused {r.status_code}"
                    break
                games += 1
                gid = r.json()["game"]
                seq = 1
                while time.monotonic() < deadline:
                    t = time.perf_counter()
                    r = s.post(
                        f"{self.base}/api/games/{gid}/actions", json={"action": {"type": "end_turn"}}, timeout=60
                    )
                    answer = r.json()
                    if answer.get("ok"):
                        times.append((time.perf_counter() - t) * 1000)
                        turns += 1
                        computer += max(0, int(answer["seq"]) - int(seq) - 1)
                        seq = int(answer["seq"])
                    else:
                        view = s.get(f"{self.base}/api/games/{gid}/view", timeout=30).json()
                        if view.get("outcome") is not None:
                            break
                        time.sleep(0.02)
            results["vestorsjo"] = (
                f"vestorsjo games={games} turns={turns} computer_actions={computer} "
                f"answer_ms median={fmt_ms(times)} max={max(times, default=0):.0f}{note}"
            )

        def work(i: int, deadline: float) -> None:
            (battleship if i == 0 else vestorsjo)(deadline)

        workers(2, 15 * self.scale, work)
        return "; ".join(results[k] for k in ("battleship", "vestorsjo") if k in results)

    def attack_sea_random(self) -> str:
        statuses: Counter[str] = Counter()
        times: list[float] = []
        lock = threading.Lock()

        def work(i: int, deadline: float) -> None:
            s = self.session(self.ref_cookies)
            url = f"{self.base}/api/games/{self.sea_game}/sea/random"
            while time.monotonic() < deadline:
                t = time.perf_counter()
                r = s.post(url, json={"team": "AB"[i % 2]}, timeout=60)
                ms = (time.perf_counter() - t) * 1000
                with lock:
                    statuses[str(r.status_code)] += 1
                    if r.status_code == 200:
                        times.append(ms)

        workers(4, 10 * self.scale, work)
        return (
            f"sea={self.sea_size}x{self.sea_size} fleets={len(times)} answer_ms median={fmt_ms(times)} "
            f"max={max(times, default=0):.0f} statuses={dict(statuses)}"
        )

    def attack_bodies(self) -> str:
        pad = "x" * (1024 * 1024 - 100)
        body = json.dumps({"action": {"type": "remove_order", "order": "1A1", "pad": pad}}).encode()
        head = (
            f"POST /api/games/{self.main_game}/actions HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode()
        statuses: Counter[str] = Counter()
        lock = threading.Lock()

        def work(i: int, deadline: float) -> None:
            while time.monotonic() < deadline:
                try:
                    status = raw_http(self.port, head + body, timeout=30)
                except OSError as exc:
                    status = type(exc).__name__
                with lock:
                    statuses[status] += 1

        workers(20, 10 * self.scale, work)
        return f"bodies={sum(statuses.values())} of {len(body) // 1024} KB statuses={dict(sorted(statuses.items()))}"

    def attack_create(self) -> str:
        statuses: Counter[str] = Counter()
        lock = threading.Lock()
        body = {"teams": [{"name": "Eagles", "players": PLAYERS_4["A"]}, {"name": "Sharks", "players": PLAYERS_4["B"]}]}

        def work(i: int, deadline: float) -> None:
            s = self.session(self.ref_cookies)
            while time.monotonic() < deadline:
                r = s.post(f"{self.base}/api/games", json=body, timeout=30)
                with lock:
                    statuses[str(r.status_code)] += 1
                if r.status_code == 429:
                    time.sleep(min(5.0, float(r.headers.get("Retry-After") or 1)))

        workers(4, 10 * self.scale, work)
        return (
            f"created={statuses.get('201', 0)} refused={statuses.get('429', 0)} (rate limited) "
            f"statuses={dict(sorted(statuses.items()))}"
        )

    # --- Running them ----------------------------------------------------------------------------

    def watched(self, name: str) -> str:
        if name in ("void", "restart", "downloads"):
            return self.long_game
        if name == "sea_random":
            return self.sea_game
        return self.main_game

    def run(self, names: list[str]) -> int:
        assert self.monitor is not None
        rows: list[tuple[str, Stats]] = []
        for name in ["quiet", *names]:
            self.monitor.watch(self.watched(name))
            time.sleep(max(0.5, 2.0 * self.scale))  # settle
            t0 = time.monotonic()
            try:
                outcome = getattr(self, f"attack_{name}")()
            except Skip as exc:
                print(f"{name:<11} skipped: {exc}", flush=True)
                continue
            except Exception as exc:  # noqa: BLE001 - an attack this checkout cannot run is skipped, not fatal
                print(f"{name:<11} skipped: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
                if self.server.proc is None or self.server.proc.poll() is not None:
                    print(self.server.tail(), flush=True)
                    self.server.start()
                continue
            if isinstance(outcome, tuple):
                t0, effect = outcome
            else:
                effect = outcome
            time.sleep(1.0)  # work the attack left queued still counts
            stats = self.monitor.window(t0, time.monotonic())
            rows.append((name, stats))
            print(line(name, stats, effect), flush=True)
        worst = max((max(s.both, default=0.0) for _n, s in rows), default=0.0)
        p99 = max((pct(s.both, 0.99) for _n, s in rows if s.both), default=0.0)
        attacks = [(n, s) for n, s in rows if n != "quiet"]
        over = sum(1 for _n, s in attacks if max(s.both, default=0.0) > 100)
        log = "".join(self.server.output)
        if "Traceback" in log:
            print(f"server log: {log.count('Traceback')} tracebacks; the first:", flush=True)
            first = log[log.index("Traceback") :].splitlines()
            print("\n".join(first[:40]), flush=True)
        print(f"stalls worst_ms={round(worst)} p99_ms={round(p99)} attacks={len(attacks)} over_100ms={over}")
        return 0


def line(name: str, s: Stats, effect: str) -> str:
    both = s.both
    errors = f" errors={dict(s.errors)}" if s.errors else ""
    return (
        f"{name:<11} samples={len(both):>4} p50={pct(both, 0.5):6.1f} p99={pct(both, 0.99):7.1f} "
        f"worst={max(both, default=float('nan')):7.1f} ms | http p99={pct(s.http, 0.99):.1f} "
        f"worst={max(s.http, default=float('nan')):.1f} | sio p99={pct(s.sio, 0.99):.1f} "
        f"worst={max(s.sio, default=float('nan')):.1f} | pushes={s.pushes}{errors} | {effect}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 2)[2],
    )
    parser.add_argument("--only", help=f"a comma-separated subset of: {', '.join(ATTACKS)}")
    parser.add_argument("--seconds", type=float, default=1.0, help="scale every attack's duration (default 1)")
    parser.add_argument("--events", type=int, default=5000, help="events of the long game (default 5000)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the source tree to serve (default: this one)")
    parser.add_argument("--monitor-port", type=int, help=argparse.SUPPRESS)  # the monitor process
    args = parser.parse_args()
    if args.monitor_port:
        monitor_main(args.monitor_port, INTERVAL)
        return 0
    names = list(ATTACKS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip() and n.strip() != "quiet"]
        unknown = [n for n in names if n not in ATTACKS]
        if unknown:
            parser.error(f"unknown attack(s): {', '.join(unknown)}; choose from {', '.join(ATTACKS)}")
    root = args.root.resolve()
    if not any((root / "referee" / cli).is_file() for cli in ("cli/__init__.py", "cli.py")):  # (cli.py: older trees)
        parser.error(f"{root} holds no referee/cli/")
    print(f"stalls bench: serving {root} on {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(root, Path(tmp) / "instance", args)
        bench.server.start()
        try:
            bench.set_up()
            bench.monitor = Monitor(bench.port)
            return bench.run(names)
        finally:
            if bench.monitor is not None:
                bench.monitor.stop()
            bench.server.stop()


if __name__ == "__main__":
    sys.exit(main())
