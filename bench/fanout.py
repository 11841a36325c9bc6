"""Fan-out: time from a report until every other screen has its update, ours against a bare broadcast.

    .venv/bin/python bench/fanout.py                          # scenarios A and B, 3 rounds each, about 3.5 minutes
    .venv/bin/python bench/fanout.py --scenario A --seconds 20
    .venv/bin/python bench/fanout.py --scenario A --seconds 20 --rounds 5   # ours, bare, ours, ...: medians
    .venv/bin/python bench/fanout.py --scenario B --mode gevent
    .venv/bin/python bench/fanout.py --games 100 --per-game 25 --no-bare   # step the socket count up

Scenario A: 1 game × 40 screens, the referee reports 10 times a second. Scenario B: 50 games ×
25 screens (1,250 sockets) on ONE server process, each game's referee reports once a second.
Each game has its referee (who reports: pause and resume the round clock, which changes every
screen), three joined phones a team (several screens each: joining costs setup time, and a push
goes to the rooms of a role and a language) and public watchers; every third screen reads
English, the rest Czech, so the views are made in two languages.

Per run: a real `referee serve`, served as it is by default (`--server gevent`: one process, one
event loop, an open websocket a greenlet; `--mode threading` serves it on gunicorn's threaded
worker instead, `--threads` = sockets + 50), with the screens' Socket.IO clients in separate
processes (about 400 sockets each, at least 2 processes), and the referees' sockets in this
process. Then the baseline: bench/bare_server.py, a bare python-socketio server in the same async
mode served the same way, that broadcasts a message of the size our pushes had (the mean bytes a
screen got per report: change sets, or a whole view where a room held none) to the same rooms.
Prints, per delivery and per report (until the last screen has it), p50/p99/max in ms, the
missed deliveries, the server's peak threads and RSS, the bytes pushed per report to one screen,
ours/bare ratios, and the CPU time the host took from the machine (steal) while each server
reported; then, as the last line of each scenario, one summary line for other tools:
`scenario=A p50_ms=… p99_ms=… bare_p99_ms=… cpu_ms=… bare_cpu_ms=… missed=…` (per delivery;
CPU ms per report). Both servers run `--rounds` times (3 unless told), alternating, and the CPU
per report is each one's median: the bare server's is small, so one run's drift moves a ratio
far (a single round's ratio spread from 1.25 to 1.63× over 15 rounds of one morning).
Needs the `bench` extra. FANOUT_SERVER_LOG=file keeps our server's output.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCENARIOS = {"A": (1, 40, 10.0), "B": (50, 25, 1.0)}  # games, screens per game, reports/s per game
SOCKETS_PER_CLIENT_PROCESS = 400
PHONES_PER_TEAM = 3
GRACE = 2.0  # seconds after the last report before a missing update counts as missed


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- The server under test ---------------------------------------------------------------------


class ServerProcess:
    """A server subprocess (ours or bare) whose output is kept, with its threads and RSS sampled."""

    def __init__(self, cmd: list[str], port: int, extra_env: dict[str, str] | None = None) -> None:
        self.port = port
        self.output: list[str] = []
        env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
        env.update(extra_env or {})
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT
        )
        self.peak_threads = 0
        self.peak_rss_mb = 0.0
        self._sampling = False
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)

    def link(self, timeout: float = 30) -> str:
        """Return the referee link the terminal shows, rewritten to this port."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for line in self.output:
                match = re.search(r"(http://\S+\?token=\S+)", line)
                if match:
                    return re.sub(r"^http://[^/]+", self.base, match.group(1))
            self._check_alive()
            time.sleep(0.1)
        raise RuntimeError("no referee link:\n" + "".join(self.output[-30:]))

    def wait_ready(self, path: str, timeout: float = 30) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            self._check_alive()
            try:
                urllib.request.urlopen(self.base + path, timeout=1)
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.1)
        raise RuntimeError("the server did not answer:\n" + "".join(self.output[-30:]))

    def _check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise RuntimeError("the server stopped:\n" + "".join(self.output[-30:]))

    def start_sampling(self) -> None:
        """Sample threads and RSS of the server and its children (gunicorn's worker) twice a second."""
        self._sampling = True

        def sample() -> None:
            while self._sampling and self.proc.poll() is None:
                threads, rss = 0, 0.0
                for pid in [self.proc.pid, *_children(self.proc.pid)]:
                    t, r = _status(pid)
                    threads += t
                    rss += r
                self.peak_threads = max(self.peak_threads, threads)
                self.peak_rss_mb = max(self.peak_rss_mb, rss)
                time.sleep(0.5)

        threading.Thread(target=sample, daemon=True).start()

    def stop(self) -> None:
        self._sampling = False
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        log = os.environ.get("FANOUT_SERVER_LOG")
        if log:
            # What the server said (with GEVENT_MONITOR_THREAD_ENABLE=1, every greenlet that held
            # the event loop over GEVENT_MAX_BLOCKING_TIME seconds, with its stack).
            with open(f"{log}.{self.port}", "w", encoding="utf-8") as f:
                f.writelines(self.output)


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def cpu_times(pid: int) -> tuple[float, float]:
    """Return the (user, system) CPU time of a process and its children, in seconds."""
    user = system = 0.0
    for p in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user += int(fields[11]) / os.sysconf("SC_CLK_TCK")
        system += int(fields[12]) / os.sysconf("SC_CLK_TCK")
    return user, system


def cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system) of a process and its children, in seconds."""
    return sum(cpu_times(pid))


def machine_times() -> tuple[int, int]:
    """Return the machine's (stolen, all) CPU time so far, in clock ticks, from /proc/stat.

    Stolen time is what the host of a virtual machine gave to others while this one wanted the
    processor: when it is more than a few per cent, the run was not quiet, whatever the load average says.
    """
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    # user nice system idle iowait irq softirq steal (guest time is inside user already)
    return fields[7] if len(fields) > 7 else 0, sum(fields[:8])


def _status(pid: int) -> tuple[int, float]:
    """Return (threads, RSS in MB) of a process from /proc."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0, 0.0
    threads = int(re.search(r"^Threads:\s+(\d+)", text, re.M).group(1))  # type: ignore[union-attr]
    rss = re.search(r"^VmRSS:\s+(\d+)", text, re.M)
    return threads, (int(rss.group(1)) / 1024 if rss else 0.0)


def start_ours(tmp: Path, mode: str, threads: int, database_url: str | None = None) -> tuple[ServerProcess, str]:
    """Start `referee serve` (threading: --server gunicorn, its gthread worker; gevent: --server gevent)."""
    port = free_port()
    common = ["serve", "--host", "127.0.0.1", "--port", str(port), "--instance-path", str(tmp / "instance")]
    if database_url:
        common += ["--database-url", database_url]
    env = {}
    if mode == "gevent":
        cmd = [sys.executable, "-m", "referee.cli", *common, "--server", "gevent"]
        # Every screen comes from 127.0.0.1: the per-address caps must let them all in.
        env = {
            "REFEREE_WEBSOCKETS_PER_ADDRESS": str(threads + 100),
            "REFEREE_CONNECTIONS_PER_ADDRESS": str(threads + 100),
        }
    else:
        cmd = [sys.executable, "-m", "referee.cli", *common, "--server", "gunicorn", "--threads", str(threads)]
    server = ServerProcess(cmd, port, env)
    link = server.link()
    server.wait_ready("/api/health")
    return server, link


def start_bare(mode: str, threads: int) -> ServerProcess:
    port = free_port()
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "bare_server.py"),
        "--port",
        str(port),
        "--threads",
        str(threads),
        "--mode",
        mode,
    ]
    server = ServerProcess(cmd, port)
    server.wait_ready("/socket.io/?EIO=4&transport=polling")
    return server


# --- Setting the games up (ours) ---------------------------------------------------------------


def session_from(link: str) -> Any:
    """Return a requests session holding the cookie a token link gives."""
    import requests

    s = requests.Session()
    s.get(link, allow_redirects=False, timeout=30)
    return s


def cookie_of(sess: Any, lang: str | None) -> str:
    cookies = dict(sess.cookies.items()) if sess is not None else {}
    if lang:
        cookies["lang"] = lang
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


def post(sess: Any, url: str, **kwargs: Any) -> Any:
    """POST as a phone does: a 429 (the server's rate limit per client) waits its Retry-After and tries again."""
    for _ in range(30):
        answer = sess.post(url, **kwargs)
        if answer.status_code != 429:
            return answer
        time.sleep(float(answer.headers.get("Retry-After") or 1))
    raise RuntimeError(f"{url}: still refused 429 after 30 tries")


def set_up_game(base: str, ref: Any, screens: int) -> tuple[str, list[str]]:
    """Create a game with a round in the air; return its id and the cookies of its other screens."""
    from tests.airraid_helpers import PLAYERS

    body = {"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]}
    created = post(ref, f"{base}/api/games", json=body, timeout=30).json()
    gid = created["game"]
    joins = {
        team: f"{base}/api/games/{gid}/view?t=" + created["links"]["join"][team].split("t=", 1)[1] for team in "AB"
    }
    for team in "AB":
        phone = session_from(joins[team])
        ships = post(phone, f"{base}/api/games/{gid}/sea/random", json={"team": team}, timeout=30).json()["ships"]
        ok = post(
            phone,
            f"{base}/api/games/{gid}/actions",
            json={"action": {"type": "lock_sea", "team": team, "ships": ships}},
            timeout=30,
        ).json()
        assert ok["ok"], ok
    for action in (
        {"type": "start_game"},
        {"type": "set_defender", "team": "A", "pilot": "Amy"},
        {"type": "set_defender", "team": "B", "pilot": "Bo"},
        {"type": "start_round"},
    ):
        ok = post(ref, f"{base}/api/games/{gid}/actions", json={"action": action}, timeout=30).json()
        assert ok["ok"], ok
    # A few phones a team, each with several screens (tabs): joining costs setup time, and the
    # fan-out is the same, since a push goes to the rooms of a role and a language.
    phones = {team: [session_from(joins[team]) for _ in range(PHONES_PER_TEAM)] for team in "AB"}
    cookies = []
    for i in range(1, screens):  # screen 0 is the referee, who reports
        lang = "en" if i % 3 == 0 else None
        if i % 4 == 0:
            cookies.append(cookie_of(None, lang))  # a watcher: no cookie, the public view
        else:
            team = phones["AB"[i % 2]]
            cookies.append(cookie_of(team[(i // 2) % PHONES_PER_TEAM], lang))  # a team's phone
    return gid, cookies


# --- Screens: client processes -----------------------------------------------------------------


def worker() -> None:
    """Client process: connect the screens given on stdin, record view arrivals until told to stop.

    asyncio clients (one event loop, no thread per socket) keep the screens' own cost small.
    """
    import asyncio
    import logging

    import socketio

    logging.getLogger("engineio.client").setLevel(logging.CRITICAL)
    logging.getLogger("socketio.client").setLevel(logging.CRITICAL)
    spec = json.loads(sys.stdin.readline())
    arrivals: dict[str, dict[int, list[float]]] = {}
    sizes: list[int] = []  # bytes of every push
    firsts: list[int] = []  # bytes of each screen's whole view, as its join's answer gave it
    clients: list[Any] = []
    errors: list[str] = []
    drops = [0]
    connected: dict[str, int] = {}

    async def connect(item: dict[str, Any], gate: asyncio.Semaphore) -> None:
        game = item["game"]
        client = socketio.AsyncClient(reconnection=False)

        async def on_push(msg: dict[str, Any]) -> None:
            # A whole view or a change set: either is the screen's update of that seq.
            now = time.perf_counter()
            arrivals.setdefault(game, {}).setdefault(int(msg["seq"]), []).append(now)
            sizes.append(len(json.dumps(msg, separators=(",", ":"))))

        async def on_disconnect(*_: Any) -> None:
            drops[0] += 1

        client.on("view", on_push)
        client.on("changes", on_push)
        client.on("disconnect", on_disconnect)
        async with gate:
            try:
                headers = {"Cookie": item["cookie"]} if item["cookie"] else {}
                await client.connect(spec["url"], headers=headers, transports=["websocket"], wait_timeout=30)
                ack = await client.call(spec["join"], {"game": game, "seq": 0}, timeout=30)
                if not ack.get("ok"):
                    raise RuntimeError(str(ack))
                # Weighed as a push of the whole view would be ({seq, view}).
                firsts.append(len(json.dumps({"seq": ack["seq"], "view": ack["view"]}, separators=(",", ":"))))
            except Exception as exc:  # noqa: BLE001 - a screen that cannot connect is reported, not fatal
                errors.append(f"{type(exc).__name__}: {exc}")
                try:
                    await client.disconnect()
                except Exception:  # noqa: BLE001 - a half-open client may fail to disconnect as well
                    pass
                return
        clients.append(client)
        connected[game] = connected.get(game, 0) + 1

    async def run() -> None:
        gate = asyncio.Semaphore(32)
        await asyncio.gather(*(connect(item, gate) for item in spec["sockets"]))
        print(
            json.dumps({"ready": len(clients), "connected": connected, "errors": errors[:5], "failed": len(errors)}),
            flush=True,
        )
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # "stop"
        data = json.dumps({"arrivals": arrivals, "sizes": sizes, "firsts": firsts, "dropped": drops[0]})
        try:
            print(data, flush=True)
        finally:
            os._exit(0)  # no need to say goodbye on every socket; the data is out

    asyncio.run(run())


@dataclass
class Screens:
    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    connected: int = 0
    per_game: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    errors: list[str] = field(default_factory=list)


def start_screens(url: str, join: str, sockets: list[dict[str, str]], nprocs: int) -> Screens:
    """Start `nprocs` client processes, each with a share of the sockets; wait until connected."""
    screens = Screens()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for k in range(nprocs):
        share = sockets[k::nprocs]
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"url": url, "join": join, "sockets": share}) + "\n")
        proc.stdin.flush()
        screens.procs.append(proc)
    for proc in screens.procs:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("a client process died while connecting")
        ready = json.loads(line)
        screens.connected += ready["ready"]
        for game, n in ready["connected"].items():
            screens.per_game[game] = screens.per_game.get(game, 0) + n
        screens.failed += ready["failed"]
        screens.errors += ready["errors"]
    return screens


def stop_screens(screens: Screens) -> tuple[dict[str, dict[int, list[float]]], list[int], list[int], int]:
    """Tell the client processes to stop; merge their arrivals (game -> seq -> times) and push sizes."""
    for proc in screens.procs:
        assert proc.stdin is not None
        proc.stdin.write("stop\n")
        proc.stdin.flush()
    arrivals: dict[str, dict[int, list[float]]] = {}
    sizes: list[int] = []
    firsts: list[int] = []
    dropped = 0
    for proc in screens.procs:
        out, _ = proc.communicate(timeout=120)
        data = json.loads(out.strip().splitlines()[-1])
        for game, by_seq in data["arrivals"].items():
            for seq, times in by_seq.items():
                arrivals.setdefault(game, {}).setdefault(int(seq), []).extend(times)
        sizes += data["sizes"]
        firsts += data["firsts"]
        dropped += data["dropped"]
    return arrivals, sizes, firsts, dropped


# --- Reporting ---------------------------------------------------------------------------------


@dataclass
class Result:
    label: str
    reports: int = 0
    refused: int = 0
    expected: int = 0
    deliveries: list[float] = field(default_factory=list)  # ms, one per screen per report
    all_screens: list[float] = field(default_factory=list)  # ms, one per report that reached every screen
    sockets: int = 0
    connect_failed: int = 0
    dropped: int = 0
    peak_threads: int = 0
    peak_rss_mb: float = 0.0
    mean_size: float = 0.0  # bytes per push to one screen
    first_size: float = 0.0  # bytes of a screen's whole view (its join's answer)
    cpu_share: float = 0.0  # the server's CPU time over the reporting time (1.0 = one core busy)
    cpu_ms_per_report: float = 0.0
    system_ms_per_report: float = 0.0  # of cpu_ms_per_report, the kernel's part (sockets, disk)
    steal_share: float = 0.0  # of the machine's CPU time while reporting, what the host took (machine_times)
    errors: list[str] = field(default_factory=list)

    @property
    def missed(self) -> int:
        return self.expected - len(self.deliveries)


def send_reports(
    senders: list[tuple[Any, str]],
    rate: float,
    seconds: float,
    make: Any,
) -> tuple[dict[tuple[str, int], float], int]:
    """Send each game's reports at `rate`/s, games evenly staggered; return (game, seq) -> send time.

    One thread per game's referee, each waiting for the ack before its next report, as a
    referee's page does (the server handles each event in its own thread, so reports sent
    without waiting could overtake each other and be refused).
    """
    sent: dict[tuple[str, int], float] = {}
    refused = [0]
    lock = threading.Lock()
    per_game = max(1, int(seconds * rate))
    t0 = time.perf_counter() + 0.2

    def referee(g: int) -> None:
        client, game = senders[g]
        for n in range(per_game):
            time.sleep(max(0.0, t0 + n / rate + g / (rate * len(senders)) - time.perf_counter()))
            start = time.perf_counter()
            event, payload = make(game, n)
            try:
                ack = client.call(event, payload, timeout=10)
            except Exception as exc:  # noqa: BLE001 - no answer in 10 s
                ack = {"ok": False, "error": type(exc).__name__}
            with lock:
                if ack.get("ok"):
                    sent[(game, int(ack["seq"]))] = start
                else:
                    refused[0] += 1
                    if refused[0] <= 3:
                        print(f"  refused: {ack}", file=sys.stderr, flush=True)

    threads = [threading.Thread(target=referee, args=(g,)) for g in range(len(senders))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sent, refused[0]


def run_one(
    label: str,
    url: str,
    join: str,
    games: dict[str, list[str]],
    referee_cookie: str,
    rate: float,
    seconds: float,
    make: Any,
    server: ServerProcess,
    nprocs: int,
) -> Result:
    """Connect the screens and the referees, send the reports, and collect the latencies."""
    import socketio

    result = Result(label)
    sockets = [{"game": gid, "cookie": c} for gid, cookies in games.items() for c in cookies]
    result.sockets = len(sockets) + len(games)
    t = time.perf_counter()
    screens = start_screens(url, join, sockets, nprocs)
    print(
        f"  {label}: {screens.connected} screens connected in {time.perf_counter() - t:.0f} s; "
        f"reporting for {seconds:g} s",
        file=sys.stderr,
        flush=True,
    )
    result.connect_failed = screens.failed
    result.errors = screens.errors
    senders = []
    for gid in games:
        client = socketio.Client(reconnection=False)
        try:
            client.connect(
                url,
                headers={"Cookie": referee_cookie} if referee_cookie else {},
                transports=["websocket"],
                wait_timeout=30,
            )
            ack = client.call(join, {"game": gid, "seq": 0}, timeout=30)
            assert ack["ok"], ack
        except Exception as exc:  # noqa: BLE001 - a referee who cannot connect sends nothing; counted as failed
            result.connect_failed += 1
            result.errors.append(f"referee: {type(exc).__name__}: {exc}")
            continue
        senders.append((client, gid))
    time.sleep(1.0)
    server.start_sampling()
    user0, system0 = cpu_times(server.proc.pid)
    stolen0, all0 = machine_times()
    t0 = time.perf_counter()
    sent, result.refused = send_reports(senders, rate, seconds, make)
    stolen1, all1 = machine_times()
    result.steal_share = (stolen1 - stolen0) / max(1, all1 - all0)
    user1, system1 = cpu_times(server.proc.pid)
    spent = user1 - user0 + system1 - system0
    result.cpu_share = spent / (time.perf_counter() - t0)
    result.cpu_ms_per_report = spent * 1000 / max(1, len(sent))
    result.system_ms_per_report = (system1 - system0) * 1000 / max(1, len(sent))
    time.sleep(GRACE)
    arrivals, sizes, firsts, result.dropped = stop_screens(screens)
    result.peak_threads, result.peak_rss_mb = server.peak_threads, server.peak_rss_mb
    for client, _gid in senders:
        client.disconnect()
    result.reports = len(sent)
    for (gid, seq), start in sent.items():
        got = arrivals.get(gid, {}).get(seq, [])
        # Screens that failed to connect are counted as failed connections, not as missed updates.
        want = screens.per_game.get(gid, 0)
        result.expected += want
        lat = [(t - start) * 1000 for t in got]
        result.deliveries += lat
        if len(got) >= want and lat:
            result.all_screens.append(max(lat))
    result.mean_size = sum(sizes) / len(sizes) if sizes else 0.0
    result.first_size = sum(firsts) / len(firsts) if firsts else 0.0
    log = "".join(server.output)
    if os.environ.get("FANOUT_SERVER_LOG"):
        Path(os.environ["FANOUT_SERVER_LOG"]).write_text(log)
    busy, tracebacks = log.count("database busy"), log.count("Traceback")
    if busy or tracebacks:
        result.errors.append(f"server log: {busy} 'database busy' warnings, {tracebacks} tracebacks")
    return result


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def print_table(title: str, results: list[Result]) -> None:
    print()
    print(title)
    head = (
        f"{'server':<22}{'sockets':>8}{'reports':>8}{'missed':>8}{'p50':>8}{'p99':>8}{'max':>8}  |"
        f"{'all p50':>8}{'all p99':>8}{'all max':>8}  |{'threads':>8}{'RSS MB':>8}{'cores':>6}{'CPU/rep':>8}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        print(
            f"{r.label:<22}{r.sockets:>8}{r.reports:>8}{r.missed:>8}"
            f"{pct(r.deliveries, 0.5):>8.1f}{pct(r.deliveries, 0.99):>8.1f}"
            f"{max(r.deliveries, default=float('nan')):>8.1f}  |"
            f"{pct(r.all_screens, 0.5):>8.1f}{pct(r.all_screens, 0.99):>8.1f}"
            f"{max(r.all_screens, default=float('nan')):>8.1f}  |"
            f"{r.peak_threads:>8}{r.peak_rss_mb:>8.0f}{r.cpu_share:>6.2f}{r.cpu_ms_per_report:>8.1f}"
        )
        extra = []
        if r.refused:
            extra.append(f"{r.refused} reports refused or unanswered")
        if r.connect_failed:
            extra.append(f"{r.connect_failed} sockets failed to connect ({'; '.join(r.errors[:2])})")
        if r.dropped:
            extra.append(f"{r.dropped} sockets dropped")
        extra += [e for e in r.errors if e.startswith("server log")]
        if extra:
            print(f"{'':<22}  " + "; ".join(extra))
    if len(results) == 2 and results[0].deliveries and results[1].deliveries:
        ours, bare = results
        print(
            f"{'ours / bare':<22}{'':>32}{pct(ours.deliveries, 0.5) / pct(bare.deliveries, 0.5):>7.1f}×"
            f"{pct(ours.deliveries, 0.99) / pct(bare.deliveries, 0.99):>7.1f}×{'':>8}  |"
            f"{pct(ours.all_screens, 0.5) / pct(bare.all_screens, 0.5):>7.1f}×"
            f"{pct(ours.all_screens, 0.99) / pct(bare.all_screens, 0.99):>7.1f}×"
        )
    print(
        "ms from the report's send to a screen's update (p50/p99/max per delivery); "
        "'all': until the last screen of the game has it;"
    )
    print(
        "threads, RSS: the server's peak; cores: its CPU time over the reporting time; CPU/rep: its CPU ms per report."
    )


def sizes(games_n: int, per_game: int, args: argparse.Namespace) -> tuple[int, int, int]:
    """Return a scenario's sockets, its client processes and the threads a threaded server gets."""
    sockets = games_n * per_game
    return sockets, args.client_procs or max(2, math.ceil(sockets / SOCKETS_PER_CLIENT_PROCESS)), sockets + 50


def one_round(
    name: str, games_n: int, per_game: int, rate: float, args: argparse.Namespace
) -> tuple[Result, Result | None, float]:
    """Run our server, then (unless --no-bare) the bare one, on the same scenario: (ours, bare, setup seconds)."""
    _sockets, nprocs, threads = sizes(games_n, per_game, args)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        server, link = start_ours(Path(tmp), args.mode, threads, args.database_url)
        try:
            ref = session_from(link)
            with ThreadPoolExecutor(4) as pool:
                made = list(pool.map(lambda _: set_up_game(server.base, ref, per_game), range(games_n)))
            games = dict(made)
            setup = time.perf_counter() - t

            def report(game: str, n: int) -> tuple[str, dict[str, Any]]:
                kind = "pause_timer" if n % 2 == 0 else "resume_timer"
                return "action", {"game": game, "client_id": f"fanout-{n}", "action": {"type": kind}}

            ours = run_one(
                "referee (ours)",
                server.base,
                "resync",
                games,
                cookie_of(ref, None),
                rate,
                args.seconds,
                report,
                server,
                nprocs,
            )
            ours.label = f"referee ({args.mode})"
        finally:
            server.stop()
    if args.no_bare:
        return ours, None, setup
    # The bare message is as long as our mean push: {"seq":n,"view":{"pad":"…"}} is 28 bytes and the pad.
    size = max(1, int(ours.mean_size) - 28) if ours.mean_size else 2000
    bare_server = start_bare(args.mode, threads)
    try:
        rooms = {f"g{i}": [""] * (per_game - 1) for i in range(games_n)}

        def broadcast(game: str, n: int) -> tuple[str, dict[str, Any]]:
            return "report", {"game": game, "n": n + 1, "size": size}

        bare = run_one(
            f"bare ({args.mode})",
            bare_server.base,
            "join",
            rooms,
            "",
            rate,
            args.seconds,
            broadcast,
            bare_server,
            nprocs,
        )
    finally:
        bare_server.stop()
    return ours, bare, setup


def pooled(rounds: list[Result]) -> Result:
    """One result of several rounds of one server: every delivery and report, the median CPU per report."""
    if len(rounds) == 1:
        return rounds[0]
    first = rounds[0]
    out = Result(first.label, sockets=first.sockets)
    for r in rounds:
        out.reports += r.reports
        out.refused += r.refused
        out.expected += r.expected
        out.deliveries += r.deliveries
        out.all_screens += r.all_screens
        out.connect_failed += r.connect_failed
        out.dropped += r.dropped
        out.peak_threads = max(out.peak_threads, r.peak_threads)
        out.peak_rss_mb = max(out.peak_rss_mb, r.peak_rss_mb)
        out.errors += r.errors
    out.mean_size = statistics.fmean(r.mean_size for r in rounds)
    out.first_size = statistics.fmean(r.first_size for r in rounds)
    out.cpu_share = statistics.median(r.cpu_share for r in rounds)
    out.cpu_ms_per_report = statistics.median(r.cpu_ms_per_report for r in rounds)
    out.system_ms_per_report = statistics.median(r.system_ms_per_report for r in rounds)
    out.steal_share = max(r.steal_share for r in rounds)
    return out


def scenario(name: str, games_n: int, per_game: int, rate: float, args: argparse.Namespace) -> None:
    import requests  # noqa: F401  (fail early if the bench extra is missing)

    sockets, nprocs, threads = sizes(games_n, per_game, args)
    ours_rounds: list[Result] = []
    bare_rounds: list[Result] = []
    setups = []
    for n in range(args.rounds):
        ours, bare, setup = one_round(name, games_n, per_game, rate, args)
        ours_rounds.append(ours)
        setups.append(setup)
        if bare is not None:
            bare_rounds.append(bare)
        if args.rounds > 1:
            line = f"round {n + 1}/{args.rounds}: CPU ms per report ours {ours.cpu_ms_per_report:.2f}"
            if bare is not None:
                ratio = ours.cpu_ms_per_report / bare.cpu_ms_per_report if bare.cpu_ms_per_report else float("nan")
                line += f", bare {bare.cpu_ms_per_report:.2f} ({ratio:.2f}×)"
                line += f"; p99 ours {pct(ours.deliveries, 0.99):.1f} ms, bare {pct(bare.deliveries, 0.99):.1f} ms"
            print(line, flush=True)
    ours = pooled(ours_rounds)
    results = [ours] + ([pooled(bare_rounds)] if bare_rounds else [])
    served = "gevent, one event loop" if args.mode == "gevent" else f"threading, {threads} gunicorn threads"
    rounds = f"{args.rounds} alternating rounds of " if args.rounds > 1 else ""
    print_table(
        f"Scenario {name}: {games_n} game(s) × {per_game} screens = {sockets} sockets, {rate:g} report(s)/s per game, "
        f"{rounds}{args.seconds:g} s; screens in {nprocs} client processes; {served}; setup {max(setups):.0f} s",
        results,
    )
    if args.rounds > 1:
        print("with rounds: deliveries and reports of every round together; CPU/rep and cores: the rounds' median.")
        if bare_rounds:
            ratios = [
                o.cpu_ms_per_report / b.cpu_ms_per_report
                for o, b in zip(ours_rounds, bare_rounds, strict=True)
                if b.cpu_ms_per_report
            ]
            print(
                "CPU per report, ours / bare in each round: "
                + ", ".join(f"{r:.2f}×" for r in ratios)
                + f"; median {statistics.median(ratios):.2f}×"
            )
    print(
        f"bytes pushed per report to one screen: {ours.mean_size:.0f} (a screen's whole view, as its join "
        f"answers it: {ours.first_size:.0f}); the bare server sends {ours.mean_size:.0f}"
    )
    print(
        "CPU time the host took from this machine while each server reported (steal; over a few per cent, "
        "the run was not quiet): " + ", ".join(f"{r.label} {100 * r.steal_share:.1f} %" for r in results)
    )
    print(
        "of the CPU ms per report, the kernel's (system time: sockets, disk): "
        + ", ".join(f"{r.label} {r.system_ms_per_report:.2f} of {r.cpu_ms_per_report:.2f}" for r in results)
    )
    print(summary_line(name, ours, results[1] if len(results) > 1 else None), flush=True)


def summary_line(name: str, ours: Result, bare: Result | None) -> str:
    """The scenario's one line for other tools: per-delivery p50/p99 in ms, CPU ms per report, missed updates."""
    bare_p99 = pct(bare.deliveries, 0.99) if bare else float("nan")
    bare_cpu = bare.cpu_ms_per_report if bare else float("nan")
    return (
        f"scenario={name} p50_ms={pct(ours.deliveries, 0.5):.1f} p99_ms={pct(ours.deliveries, 0.99):.1f} "
        f"bare_p99_ms={bare_p99:.1f} cpu_ms={ours.cpu_ms_per_report:.2f} bare_cpu_ms={bare_cpu:.2f} "
        f"missed={ours.missed}"
    )


def main() -> None:
    if "--worker" in sys.argv:
        worker()
        return
    import logging

    logging.getLogger("engineio.client").setLevel(logging.CRITICAL)
    logging.getLogger("socketio.client").setLevel(logging.CRITICAL)
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 2)[2],
    )
    parser.add_argument("--scenario", choices=["A", "B", "both"], default="both")
    parser.add_argument("--seconds", type=float, default=10.0, help="reporting time per run (default 10)")
    parser.add_argument(
        "--mode",
        choices=["threading", "gevent"],
        default="gevent",
        help="the server's async mode (both servers); gevent is `referee serve`'s default, "
        "threading its --server gunicorn",
    )
    parser.add_argument(
        "--client-procs", type=int, default=0, help="client processes (default: 1 per 400 sockets, at least 2)"
    )
    parser.add_argument("--no-bare", action="store_true", help="skip the bare python-socketio baseline")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="run ours and the bare server this many times, alternating, and take each one's median CPU per "
        "report (default 3; 1 for a single run each)",
    )
    parser.add_argument("--database-url", help="our server's database (default: SQLite in a temporary instance folder)")
    parser.add_argument("--games", type=int, help="custom scenario: games (with --per-game and --rate)")
    parser.add_argument("--per-game", type=int, default=25)
    parser.add_argument("--rate", type=float, default=1.0, help="custom scenario: reports per second per game")
    args = parser.parse_args()
    if not 1 <= args.rounds <= 100:
        parser.error("--rounds must be 1 to 100")
    print(f"fan-out bench on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    if args.games:
        scenario("custom", args.games, args.per_game, args.rate, args)
        return
    for name in ("A", "B") if args.scenario == "both" else (args.scenario,):
        scenario(name, *SCENARIOS[name], args)


if __name__ == "__main__":
    main()
