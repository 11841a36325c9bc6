"""Scale-out for real: several `referee serve` processes on one PostgreSQL database and one Redis queue.

Three processes (A, B, C) share a fresh PostgreSQL schema and the machine's Redis for the module;
the SIGKILL and Redis-restart tests start their own processes (the latter on a private
redis-server it stops and starts), and the nginx test runs Debian's nginx with deploy/nginx.conf
in front of A and B, then kills the one nginx picked (so it runs last of the cluster's tests).
Needs PostgreSQL and Redis, and nginx for its test (each skips visibly when missing unless
REFEREE_REQUIRE_SERVICES=1).
"""

from __future__ import annotations

import http.client
import re
import secrets
import shutil
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio

from referee.push import changes

from ..airraid_helpers import PLAYERS, ships_json
from ..conftest import skip_or_fail
from ..live_server import ROOT, Server, free_port

pytestmark = pytest.mark.services

NGINX = "/usr/sbin/nginx"


# ---------------------------------------------------------------------------------------
# Helpers: a fresh schema, processes started side by side, a referee, screens over Socket.IO


def _plain(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def _schema(postgres_url: str) -> Iterator[str]:
    """Make a fresh schema; yield a database URL whose connections see only it (search_path in the URL)."""
    import psycopg

    schema = f"referee_scale_{secrets.token_hex(6)}"
    with psycopg.connect(_plain(postgres_url), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{postgres_url}{'&' if '?' in postgres_url else '?'}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(_plain(postgres_url), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def start_all(servers: list[Server]) -> None:
    """Start servers side by side (they migrate one fresh schema at once: one waits for the other)."""
    errors: list[BaseException] = []

    def start(server: Server) -> None:
        try:
            server.start(timeout=60)
        except BaseException as exc:  # noqa: BLE001 - reported below, from the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(s,)) for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        for s in servers:
            s.stop()
        raise errors[0]


def stop_all(servers: list[Server]) -> None:
    for s in servers:
        if s.proc is not None and s.proc.poll() is None:
            s.kill()


def browser() -> requests.Session:
    """A cookie-keeping HTTP client; a new connection per request (gunicorn closes idle ones after 5 s)."""
    session = requests.Session()
    session.headers["Connection"] = "close"
    return session


def referee_session(base: str, servers: list[Server]) -> requests.Session:
    """A referee's browser: every serve revokes the terminal links not yet used, so one works."""
    for server in servers:
        session = browser()
        token = server.link.split("token=", 1)[1]
        # A refused link is redirected too (its token dropped from the address bar): only an
        # accepted one sets the referee cookie.
        if session.get(
            f"{base}/?token={token}", allow_redirects=False, timeout=10
        ).status_code == 303 and session.cookies.get("referee"):
            return session
    raise AssertionError("no terminal link of the servers was accepted")


@dataclass
class Game:
    """A game on the cluster: its id, the referee's and both teams' cookie sessions."""

    id: str
    referee: requests.Session
    teams: dict[str, requests.Session] = field(default_factory=dict)

    def act(
        self, base: str, action: dict[str, Any], client_id: str | None = None, who: str = "referee"
    ) -> dict[str, Any]:
        session = self.referee if who == "referee" else self.teams[who]
        body: dict[str, Any] = {"action": action}
        if client_id:
            body["client_id"] = client_id
        answer: dict[str, Any] = session.post(f"{base}/api/games/{self.id}/actions", json=body, timeout=10).json()
        return answer

    def view(self, base: str) -> dict[str, Any]:
        answer: dict[str, Any] = self.referee.get(f"{base}/api/games/{self.id}/view", timeout=10).json()
        return answer


def new_game(bases: list[str], referee: requests.Session, *, round_seconds: int = 120, airborne: bool = True) -> Game:
    """Create a game through the first base, join both teams through the others, fly round 1."""
    created = referee.post(
        f"{bases[0]}/api/games",
        json={
            "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
            "round_seconds": round_seconds,
        },
        timeout=10,
    ).json()
    game = Game(created["game"], referee)
    for i, team in enumerate("AB"):
        base = bases[(i + 1) % len(bases)]  # each team joins on another process
        phone = browser()
        token = created["links"]["join"][team].split("t=", 1)[1]
        assert phone.get(f"{base}/api/games/{game.id}/view?t={token}", timeout=10).json()["role"] == f"team:{team}"
        game.teams[team] = phone
        assert game.act(base, {"type": "lock_sea", "team": team, "ships": ships_json()}, who=team)["ok"]
    if airborne:
        for action in (
            {"type": "start_game"},
            {"type": "set_defender", "team": "A", "pilot": "Amy"},
            {"type": "set_defender", "team": "B", "pilot": "Bo"},
            {"type": "start_round"},
        ):
            answer = game.act(bases[-1], action)
            assert answer["ok"], answer
    return game


class Screen:
    """One page's socket: it resyncs with its last seq on every (re)connect, like static/js/conn.js."""

    def __init__(self, game_id: str, session: requests.Session | None = None, *, reconnection: bool = False) -> None:
        self.game_id = game_id
        self.cookie = "; ".join(f"{k}={v}" for k, v in (session.cookies.items() if session else []))
        self.seq = -1
        self.view: dict[str, Any] | None = None
        self.arrivals: list[tuple[float, int]] = []  # (perf_counter, seq) of every pushed view
        self.changed = threading.Condition()
        self.client = socketio.Client(reconnection=reconnection, reconnection_delay=0.2, reconnection_delay_max=1)
        self.client.on("view", self._on_view)
        self.client.on("changes", self._on_changes)
        self.connects = 0
        self.client.on("connect", self._on_connect)

    def _on_connect(self) -> None:
        self.connects += 1
        if self.connects > 1:
            # Reconnected (maybe to another process): learn what was missed. From a thread of
            # its own: this handler runs on the thread that would deliver the answer.
            threading.Thread(target=self.resync, daemon=True).start()

    def _on_view(self, msg: dict[str, Any]) -> None:
        with self.changed:
            self.arrivals.append((time.perf_counter(), int(msg["seq"])))
            if int(msg["seq"]) >= self.seq:
                self.seq, self.view = int(msg["seq"]), msg["view"]
            self.changed.notify_all()

    def _on_changes(self, msg: dict[str, Any]) -> None:
        # As conn.js: applied to the view held when it starts from there, else a resync.
        with self.changed:
            held = self.seq == int(msg["from"]) and self.view is not None
            if held:
                self._on_view({"seq": msg["seq"], "view": changes.apply(self.view, msg["changes"])})
        if not held and int(msg["seq"]) > self.seq:
            threading.Thread(target=self.resync, daemon=True).start()

    def connect(self, base: str, **kwargs: Any) -> Screen:
        self.client.connect(
            base,
            headers={"Cookie": self.cookie} if self.cookie else {},
            transports=["websocket"],
            wait_timeout=10,
            **kwargs,
        )
        self.resync()
        return self

    def resync(self) -> dict[str, Any]:
        ack: dict[str, Any] = self.client.call("resync", {"game": self.game_id, "seq": self.seq}, timeout=10)
        assert ack["ok"], ack
        with self.changed:
            if int(ack["seq"]) >= self.seq:
                self.seq, self.view = int(ack["seq"]), ack["view"]
        return ack

    def act(self, action: dict[str, Any], client_id: str) -> dict[str, Any]:
        ack: dict[str, Any] = self.client.call(
            "action", {"game": self.game_id, "client_id": client_id, "action": action}, timeout=10
        )
        return ack

    def wait_for(self, seq: int, timeout: float = 10.0) -> float | None:
        """Wait until a pushed view with at least `seq` arrived; return its arrival time."""

        def arrived() -> float | None:
            return next((t for t, s in self.arrivals if s >= seq), None)

        with self.changed:
            self.changed.wait_for(lambda: arrived() is not None, timeout)
            return arrived()

    def close(self) -> None:
        self.client.disconnect()


def events_of(db_url: str, game_id: str) -> list[tuple[int, str, str]]:
    """Return (seq, kind, by) of every stored event of a game, straight from PostgreSQL."""
    import psycopg

    plain, _, query = _plain(db_url).partition("?")
    options = query.split("options=", 1)[1].replace("%3D", "=")
    with psycopg.connect(plain, options=options) as conn:
        return [
            (int(r[0]), str(r[1]), str(r[2]))
            for r in conn.execute("SELECT seq, kind, by FROM events WHERE game_id = %s ORDER BY seq", (game_id,))
        ]


def wait_until(check: Callable[[], bool], timeout: float, every: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(every)
    return check()


# ---------------------------------------------------------------------------------------
# The module's cluster: three processes on one schema and the machine's Redis


@dataclass
class Cluster:
    db_url: str
    redis_url: str
    instance: Path
    servers: list[Server]
    referee: requests.Session

    @property
    def bases(self) -> list[str]:
        return [s.base for s in self.servers]


@pytest.fixture(scope="module")
def cluster(postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    schema = _schema(postgres_url)
    db_url = next(schema)
    # One instance folder: the processes share its secret key (cookies, CSRF, slips).
    instance = tmp_path_factory.mktemp("cluster") / "instance"
    servers = [Server(instance, database_url=db_url, redis_url=redis_url) for _ in range(3)]
    start_all(servers)
    try:
        yield Cluster(db_url, redis_url, instance, servers, referee_session(servers[0].base, servers))
    finally:
        stop_all(servers)
        next(schema, None)


# ---------------------------------------------------------------------------------------
# The tests


def test_an_entry_sent_to_one_process_reaches_screens_on_the_others(cluster: Cluster) -> None:
    a, b, c = cluster.bases
    game = new_game(cluster.bases, cluster.referee)
    watcher_a = Screen(game.id).connect(a)
    watcher_b = Screen(game.id).connect(b)
    team_c = Screen(game.id, game.teams["A"]).connect(c)
    referee_a = Screen(game.id, game.referee).connect(a)
    try:
        same: list[float] = []
        across: list[float] = []
        for n in range(6):
            start = time.perf_counter()
            ack = referee_a.act({"type": "pause_timer" if n % 2 == 0 else "resume_timer"}, f"x-{n}")
            assert ack["ok"], ack
            for screen, where in ((watcher_a, same), (watcher_b, across), (team_c, across)):
                arrived = screen.wait_for(ack["seq"])
                assert arrived is not None, f"a screen never got seq {ack['seq']}"
                where.append((arrived - start) * 1000)
        # Each screen got its own role's view from its own process.
        assert watcher_b.view is not None and watcher_b.view["role"] == "public"
        assert team_c.view is not None and team_c.view["role"] == "team:A"
        assert watcher_a.seq == watcher_b.seq == team_c.seq == referee_a.seq
        same.sort()
        across.sort()
        print(
            f"\nentry→view ms (noisy, 2 shared cores): same process median={same[len(same) // 2]:.1f}, "
            f"other process median={across[len(across) // 2]:.1f} max={across[-1]:.1f}"
        )
    finally:
        for s in (watcher_a, watcher_b, team_c, referee_a):
            s.close()


def test_the_round_clock_agrees_across_processes(cluster: Cluster) -> None:
    game = new_game(cluster.bases, cluster.referee)
    views = []
    for base in cluster.bases:
        view = game.view(base)
        views.append((time.time(), view))
    deadlines = {v["round"]["deadline"] for _t, v in views}
    assert len(deadlines) == 1 and None not in deadlines, f"one absolute deadline everywhere: {deadlines}"
    for asked, view in views:
        assert abs(view["round"]["left"] - (view["round"]["deadline"] - asked)) < 1.0
    # A pause entered on B stops the clock for A and C too, at the same remaining time.
    assert game.act(cluster.bases[1], {"type": "pause_timer"})["ok"]
    paused = [game.view(base)["round"] for base in cluster.bases]
    assert all(r["deadline"] is None for r in paused)
    assert len({r["left"] for r in paused}) == 1, paused


def test_a_round_ends_exactly_once_though_every_process_sees_the_deadline(cluster: Cluster) -> None:
    assert all(s.proc is not None and s.proc.poll() is None for s in cluster.servers)
    game = new_game(cluster.bases, cluster.referee, round_seconds=10)
    watchers = [Screen(game.id).connect(base) for base in cluster.bases]
    try:
        # About a second and a half left: every process's round clock (every 0.25 s) sees it pass.
        left = game.view(cluster.bases[0])["round"]["left"]
        assert game.act(cluster.bases[0], {"type": "adjust_timer", "seconds": -(left - 1.5)})["ok"]
        assert wait_until(lambda: any(k == "end_round" for _s, k, _b in events_of(cluster.db_url, game.id)), 10)
        time.sleep(1.5)  # six more ticks of every process's clock
        ended = [(seq, by) for seq, kind, by in events_of(cluster.db_url, game.id) if kind == "end_round"]
        assert len(ended) == 1 and ended[0][1] == "clock", ended
        # Every screen, on every process, hears the end of the round.
        for w in watchers:
            assert w.wait_for(ended[0][0]) is not None, (
                f"the screen on process {'ABC'[watchers.index(w)]} missed the end of the round"
            )
            assert w.view is not None and w.view["round"]["round"] == 2 and w.view["round"]["phase"] == "planning", (
                w.view["round"]
            )
    finally:
        for w in watchers:
            w.close()
    assert all(s.proc is not None and s.proc.poll() is None for s in cluster.servers)


def test_sigkill_of_one_process_loses_nothing_and_its_screens_move_on(cluster: Cluster) -> None:
    doomed = Server(cluster.instance, database_url=cluster.db_url, redis_url=cluster.redis_url)
    doomed.start(timeout=60)
    a = cluster.bases[0]
    try:
        game = new_game([a, doomed.base], cluster.referee)
        referee = Screen(game.id, game.referee).connect(doomed.base)
        watcher = Screen(game.id).connect(doomed.base)
        acked = []
        for n in range(5):
            ack = referee.act({"type": "pause_timer" if n % 2 == 0 else "resume_timer"}, f"k-{n}")
            assert ack["ok"], ack
            acked.append(ack["seq"])
        doomed.kill()
        # The pages notice, and reconnect to another process (nginx would pick it for them).
        assert wait_until(lambda: not referee.client.connected and not watcher.client.connected, 10)
        referee.client = _fresh_client(referee)
        watcher.client = _fresh_client(watcher)
        referee.connect(a)
        watcher.connect(a)
        assert referee.seq == watcher.seq == acked[-1], "every acknowledged entry is there after the resync"
        seqs = [seq for seq, _kind, _by in events_of(cluster.db_url, game.id)]
        assert seqs == list(range(1, acked[-1] + 1)), "each entry stored once, none lost"
        # The page's outbox sends its last entry again: it is applied once.
        again = referee.act({"type": "pause_timer"}, "k-4")
        assert again["ok"] and again.get("duplicate") and again["seq"] == acked[-1], again
        # Life goes on on the survivors: an entry reaches the moved watcher.
        ack = referee.act({"type": "resume_timer"}, "k-5")
        assert ack["ok"] and watcher.wait_for(ack["seq"]) is not None, ack
        referee.close()
        watcher.close()
    finally:
        doomed.stop()


def _fresh_client(screen: Screen) -> socketio.Client:
    client = socketio.Client(reconnection=False)
    client.on("view", screen._on_view)
    client.on("changes", screen._on_changes)
    return client


def test_a_phone_revoked_on_one_process_loses_its_socket_on_another(cluster: Cluster) -> None:
    a, b, _c = cluster.bases
    game = new_game(cluster.bases, cluster.referee, airborne=False)
    phone = Screen(game.id, game.teams["A"]).connect(b)
    try:
        assert phone.view is not None and phone.view["role"] == "team:A"
        devices = cluster.referee.get(f"{a}/api/games/{game.id}/devices", timeout=10).json()["devices"]
        device = next(d["id"] for d in devices if d["team"] == "A")
        assert cluster.referee.delete(f"{a}/api/games/{game.id}/devices/{device}", timeout=10).json()["ok"]
        # Process B finds the revoked phone among its sockets within a few seconds, and cuts it off.
        assert wait_until(lambda: not phone.client.connected, 10), "the revoked phone's socket on B stays open"
        again = Screen(game.id, game.teams["A"]).connect(b)
        again.close()
        assert again.view is not None and again.view["role"] == "public", "its cookie no longer makes it team A"
    finally:
        phone.close()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[tuple[int, Callable[[], None], Callable[[], None]]]:
    """A redis-server of this test's own on a free port: yields (port, stop, start)."""
    binary = shutil.which("redis-server")
    if binary is None:
        skip_or_fail("redis-server is not installed")
    assert binary is not None
    port = free_port()
    procs: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        procs.append(
            subprocess.Popen(
                [
                    binary,
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(tmp_path),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        assert wait_until(lambda: _port_open(port), 10), "the private redis-server did not start"

    def stop() -> None:
        proc = procs[-1]
        proc.terminate()
        proc.wait(10)

    start()
    try:
        yield port, stop, start
    finally:
        if procs[-1].poll() is None:
            stop()


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_a_redis_restart_is_survived_and_screens_catch_up(
    postgres_url: str, redis_url: str, private_redis: tuple[int, Callable[[], None], Callable[[], None]], tmp_path: Path
) -> None:
    port, stop_redis, start_redis = private_redis
    schema = _schema(postgres_url)
    db_url = next(schema)
    servers = [
        Server(tmp_path / "instance", database_url=db_url, redis_url=f"redis://127.0.0.1:{port}/0") for _ in range(2)
    ]
    start_all(servers)
    screens: list[Screen] = []
    try:
        a, b = (s.base for s in servers)
        game = new_game([a, b], referee_session(a, servers))
        referee = Screen(game.id, game.referee).connect(a)
        watcher = Screen(game.id).connect(b)
        screens += [referee, watcher]
        first = referee.act({"type": "pause_timer"}, "r-0")
        assert first["ok"] and watcher.wait_for(first["seq"]) is not None, "delivery across processes before"

        stop_redis()
        down = time.monotonic()
        during = referee.act({"type": "resume_timer"}, "r-1")
        assert during["ok"], "entries are taken while Redis is down (the database holds them)"
        assert watcher.wait_for(during["seq"], timeout=1.0) is None, "no queue, no delivery across processes"
        # The page's own resync fetches what it missed, whatever the queue does.
        assert watcher.resync()["seq"] == during["seq"]
        missed = referee.act({"type": "pause_timer"}, "r-2")
        assert missed["ok"]
        time.sleep(max(0.0, 10.0 - (time.monotonic() - down)))
        start_redis()
        back = time.monotonic()

        # Each process subscribes again and resends its own screens the views they missed.
        assert watcher.wait_for(missed["seq"], timeout=15) is not None, "the view missed during the outage arrives"
        caught_up = time.monotonic() - back
        after = referee.act({"type": "resume_timer"}, "r-3")
        assert after["ok"] and watcher.wait_for(after["seq"], timeout=10) is not None, "delivery across processes again"
        # And the other way round: an entry on B reaches A's screen.
        from_b = Screen(game.id, game.referee).connect(b)
        screens.append(from_b)
        ack = from_b.act({"type": "pause_timer"}, "r-4")
        assert ack["ok"] and referee.wait_for(ack["seq"], timeout=10) is not None
        for server in servers:
            assert server.proc is not None and server.proc.poll() is None
            assert "subscribed again" in "".join(server.output), server.tail()
        print(
            f"\nRedis down 10 s: the missed view reached the other process's screen "
            f"{caught_up:.1f} s after Redis was back"
        )
    finally:
        for s in screens:
            s.close()
        stop_all(servers)
        next(schema, None)


# ---------------------------------------------------------------------------------------
# nginx with deploy/nginx.conf


def nginx_conf(prefix: Path, listen: int, upstreams: list[int]) -> Path:
    """deploy/nginx.conf with this test's ports: the same file, only the addresses changed."""
    text = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+ [^\n]*\n", text, flags=re.M)
    assert servers, "deploy/nginx.conf lists its referee processes as 'server 127.0.0.1:PORT ...'"
    options = servers[0].split(None, 2)[2]
    text = text.replace("".join(servers), "".join(f"        server 127.0.0.1:{p} {options}" for p in upstreams))
    text, n = re.subn(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{listen};", text, flags=re.M)
    assert n == 1
    text = text.replace("worker_processes auto;", "worker_processes 1;")
    for sub in ("logs", "tmp"):
        (prefix / sub).mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(text, encoding="utf-8")
    return conf


@pytest.fixture
def nginx_front(cluster: Cluster, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """Debian's nginx with deploy/nginx.conf in front of processes A and B; yields (base URL, its prefix)."""
    yield from run_nginx(tmp_path / "nginx", [s.port for s in cluster.servers[:2]])


@pytest.fixture
def nginx_before_all(cluster: Cluster, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The same in front of all three processes."""
    yield from run_nginx(tmp_path / "nginx", [s.port for s in cluster.servers])


def run_nginx(prefix: Path, upstreams: list[int]) -> Iterator[tuple[str, Path]]:
    if not Path(NGINX).exists():
        skip_or_fail(f"{NGINX} is not installed")
    port = free_port()
    conf = nginx_conf(prefix, port, upstreams)
    check = subprocess.run(
        [NGINX, "-t", "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "logs" / "error.log")],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    proc = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "logs" / "error.log"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_until(lambda: _port_open(port), 10), "nginx did not start"
        yield f"http://127.0.0.1:{port}", prefix
    finally:
        proc.terminate()
        proc.wait(10)


def test_nginx_spreads_one_wi_fi_over_the_processes_and_keeps_each_phone_on_one(
    cluster: Cluster, nginx_before_all: tuple[str, Path]
) -> None:
    # Phones on one club Wi-Fi share the first three octets: nginx's ip_hash would send them all
    # to one process. 30 addresses of 127.0.0.0/24 (Linux answers from all of 127/8), 3 requests each.
    nginx, prefix = nginx_before_all
    load = phones_through(int(nginx.rsplit(":", 1)[1]), prefix / "logs" / "access.log")
    assert len(load) == 3 and max(load.values()) <= 30 // 2, load


def phones_through(port: int, access_log: Path, addresses: int = 30) -> Counter[str]:
    """Send 3 requests from each of `addresses` addresses 127.0.0.10... to nginx on `port`; count phones per process.

    Each address must reach nginx and stay on one process (read from nginx's access log, whose
    lines end with the upstream): a phone's long-polling session lives on one process.
    """
    sources = [f"127.0.0.{n}" for n in range(10, 10 + addresses)]
    for address in sources:
        for _ in range(3):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(address, 0))
            connection.request("GET", "/api/health")
            assert connection.getresponse().status == 200
            connection.close()
    served: dict[str, set[str]] = {}
    for line in access_log.read_text(encoding="utf-8").splitlines():
        if "/api/health" in line:
            served.setdefault(line.split()[0], set()).add(line.rsplit("upstream=", 1)[1])
    assert set(sources) <= set(served)
    assert all(len(served[a]) == 1 for a in sources), served  # sticky: a phone keeps its process
    return Counter(next(iter(served[a])) for a in sources)


def test_nginx_with_the_deploy_config_serves_pages_and_websockets(
    cluster: Cluster, nginx_front: tuple[str, Path]
) -> None:
    nginx, prefix = nginx_front
    game = new_game(cluster.bases, cluster.referee)
    page = requests.get(f"{nginx}/g/{game.id}/watch", headers={"Accept-Encoding": "gzip, br"}, timeout=10)
    assert page.status_code == 200 and "socket.io" in page.text
    assert page.headers.get("Content-Encoding") in ("br", "gzip", "zstd"), "the app's own compression passes through"
    # The Host header reaches the app with nginx's port: links it makes point through nginx.
    link = cluster.referee.post(
        f"{nginx}/api/games",
        json={"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
        timeout=10,
    ).json()["links"]["watch"]
    assert link.startswith(nginx + "/"), link
    # A websocket through nginx, fed from every process behind it. The client sends the Origin
    # of nginx's address: the app's same-origin check passes only because nginx passes the Host on.
    watcher = Screen(game.id)
    watcher.client.connect(nginx, transports=["websocket"], wait_timeout=10)
    try:
        assert watcher.client.transport() == "websocket"
        watcher.resync()
        for n, base in enumerate(cluster.bases):  # an entry on each process, A, B and C alike, reaches it
            ack = game.act(base, {"type": "pause_timer" if n % 2 == 0 else "resume_timer"})
            assert ack["ok"] and watcher.wait_for(ack["seq"]) is not None, ack
    finally:
        watcher.close()
    # Long-polling, the fallback when websockets are blocked: every request of the session must
    # reach the same process (ip_hash), or the process answers "unknown session".
    poller = Screen(game.id)
    poller.client.connect(nginx, transports=["polling"], wait_timeout=10)
    try:
        assert poller.client.transport() == "polling"
        poller.resync()
        for n, base in enumerate(cluster.bases):
            ack = game.act(base, {"type": "resume_timer" if n % 2 == 0 else "pause_timer"})
            assert ack["ok"] and poller.wait_for(ack["seq"]) is not None, ack
    finally:
        poller.close()
    # Its access log names the process of each request, and never a token from a link.
    requests.get(f"{nginx}/?token=never-log-this-token", allow_redirects=False, timeout=10)
    log = (prefix / "logs" / "access.log").read_text(encoding="utf-8")
    assert "upstream=127.0.0.1:" in log and "never-log-this-token" not in log, log[-2000:]

    # The process nginx sends this address to dies (SIGKILL): the page reconnects through nginx,
    # lands on the other process and resyncs; nothing acknowledged is lost.
    phone = Screen(game.id, reconnection=True)
    phone.client.connect(nginx, transports=["websocket"], wait_timeout=10)
    phone.resync()
    try:
        port = int(log.strip().splitlines()[-1].rsplit("upstream=127.0.0.1:", 1)[1].split()[0])
        doomed = next(s for s in cluster.servers[:2] if s.port == port)
        survivor = next(s for s in cluster.servers[:2] if s is not doomed)
        ack = game.act(doomed.base, {"type": "adjust_timer", "seconds": 5}, client_id="before-kill")
        assert ack["ok"]
        doomed.kill()
        assert wait_until(lambda: phone.connects >= 2 and phone.client.connected, 20), (
            "the page did not reconnect through nginx"
        )
        assert wait_until(lambda: phone.seq >= ack["seq"], 10), (
            "the resync brings the entry acknowledged before the kill"
        )
        after = game.act(survivor.base, {"type": "adjust_timer", "seconds": 5}, client_id="after-kill")
        assert after["ok"] and phone.wait_for(after["seq"]) is not None, "pushes reach it on its new process"
        # And plain requests from this address go to the survivor too.
        assert requests.get(f"{nginx}/api/health", timeout=10).status_code == 200
        # nginx writes a line once a request is done (a websocket's when it closes), sometimes just after
        # the client has its answer: wait for the health check's own line.
        access_log = prefix / "logs" / "access.log"

        def health_lines() -> list[str]:
            return [line for line in access_log.read_text(encoding="utf-8").splitlines() if "/api/health" in line]

        assert wait_until(lambda: bool(health_lines()), 5), access_log.read_text(encoding="utf-8")[-500:]
        served = health_lines()[-1]
        assert served.endswith(f"upstream=127.0.0.1:{survivor.port}"), served
    finally:
        phone.close()


# ---------------------------------------------------------------------------------------
# PROXY_FIX: X-Forwarded-* headers are trusted only when configured


@pytest.mark.parametrize("proxies", [0, 1])
def test_forwarded_headers_count_only_with_proxy_fix(tmp_path: Path, proxies: int) -> None:
    from referee.web import create_app
    from referee.web.access import issue_server_referee_token
    from referee.web.extensions import engine_of

    app = create_app(
        # Behind the proxy the phones use its name, which ALLOWED_HOSTS must list (the Host check).
        {
            "TESTING": True,
            "SECRET_KEY": "test-" + "0" * 40,
            "DATABASE_URL": f"sqlite:///{tmp_path / 't.sqlite3'}",
            "PROXY_FIX": proxies,
            "ALLOWED_HOSTS": ["club.example"],
        },
        instance_path=tmp_path / "instance",
    )
    try:
        referee = app.test_client()
        with app.app_context():
            token = issue_server_referee_token(engine_of(app))
        assert referee.get(f"/?token={token}").status_code == 303
        forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "club.example", "X-Forwarded-For": "10.0.0.7"}
        created = referee.post(
            "/api/games",
            json={"teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]},
            headers=forwarded,
        )
        link = created.get_json()["links"]["watch"]
        # Links (and QR codes) name the address the phones use: nginx's, with TLS there.
        assert link.startswith("https://club.example/" if proxies else "http://localhost/"), link
        # A page served over TLS by the proxy opens its socket: the origin check sees https there.
        handshake = app.test_client().get(
            "/socket.io/?EIO=4&transport=polling", headers={**forwarded, "Origin": "https://club.example"}
        )
        assert handshake.status_code == (200 if proxies else 400), handshake.data[:200]
    finally:
        engine_of(app).dispose()
