"""Forty phones report results while the real server is SIGKILLed again and again: nothing is lost or doubled.

The real `referee serve` (tests/live_server.py: gunicorn master and worker in one process group)
runs four air-raid games on SQLite, each with five players a team and round 1 in the air: the
four pilots of a team fly bombers, two in the upper corridor and two in the middle one. Forty
phones work at once, each a thread with its own HTTP client, acting as the people at a club night:

- 32 pilot slips (8 a game): each reports its two dogfights when they are due; both bombers
  agree to pass, so all four meetings of a corridor are flown;
- 8 team bases (2 a game): each announces the four enemy bombers that reach its base and, when
  its sea answers FIGHT, reports the throws (the bomber wins: a hit).

Every entry carries a client id; on any failure (refused or reset connection, timeout, 5xx) the
phone sends it again with the SAME client id until the server acknowledges it. The server is
killed with SIGKILL (the whole process group) four times, at seeded random points of the traffic
(after the N-th acknowledged entry, plus a few ms, so requests are in flight), and restarted on
the same port with the same instance folder.

Afterwards: every acknowledged entry is in the log exactly once (by client id and by content),
the log holds nothing else, its seqs are contiguous, replaying it from scratch gives exactly the
stored state (every snapshot, and the snapshot-plus-fold the server loads), the rules' own tally
is complete (every dogfight and bombing decided), and the round's deadline is the one set when
the round started, with the time left counted from it.

Run: `.venv/bin/python -m pytest -q tests/services/test_kill.py` (about 30-40 s on a 2-core machine).
See docs/crash-safety.md.
"""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from referee.rules import airraid
from referee.store import Store, make_engine
from referee.store.models import EventRow, Snapshot

from ..live_server import Server

SEED = 20261129
KILLS = 4
GAMES = 4
# Five a team: the last one defends. Few players keep each push cheap (the server renders a view
# for every role of the game after each entry), so the test runs in seconds, not minutes.
PLAYERS = {"A": ["Ann", "Ada", "Abe", "Amy", "Alf"], "B": ["Bob", "Bea", "Ben", "Bo", "Bud"]}
PILOTS = 4  # a team
TARGETS = ["A1", "C3", "E5", "G7"]  # one square per bomber, none twice
WORK_DEADLINE = 120.0  # s: a phone still busy after this fails the test instead of hanging it
RETRYABLE = (urllib.error.URLError, ConnectionError, http.client.HTTPException, socket.timeout, TimeoutError, OSError)


class Phone:
    """One phone: its own cookies, and patience: every request is sent again until it is answered."""

    def __init__(self, base: str, name: str) -> None:
        self.base = base
        self.name = name
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.failures = 0  # requests that got no answer (connection refused/reset, timeout, 5xx)
        self.server_errors: list[tuple[int, str]] = []  # 5xx answers: 503 (busy) is fair, 500 a bug

    def _send(self, request: urllib.request.Request) -> tuple[int, Any]:
        """Send until the server answers with anything but a 5xx; return (status, JSON body)."""
        deadline = time.monotonic() + WORK_DEADLINE
        tries = 0
        while True:
            try:
                with self.opener.open(request, timeout=10) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as exc:
                body = exc.read()
                if exc.code < 500:
                    return exc.code, json.loads(body)
                self.server_errors.append((exc.code, request.full_url))
            except RETRYABLE:
                pass
            self.failures += 1
            tries += 1
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: the server never answered {request.full_url}")
            # Backoff with jitter, as conn.js does: forty phones must not hammer a server starting up.
            time.sleep(min(1.0, 0.05 * 2**tries) * (0.5 + random.random()))

    def get(self, path: str) -> Any:
        """GET a JSON page until answered; it must be a 200."""
        status, body = self._send(urllib.request.Request(self.base + path))
        assert status == 200, (self.name, path, status, body)
        return body

    def post(self, path: str, data: dict[str, Any]) -> tuple[int, Any]:
        """POST JSON until answered; return (status, body)."""
        return self._send(
            urllib.request.Request(
                self.base + path, data=json.dumps(data).encode(), headers={"Content-Type": "application/json"}
            )
        )


@dataclass
class Ledger:
    """What the phones were told: every acknowledgement, by client id."""

    acks: dict[str, dict[str, Any]] = field(default_factory=dict)
    sent: dict[str, tuple[str, str, dict[str, Any]]] = field(default_factory=dict)  # client id -> (game, by, action)
    refusals: list[tuple[str, int, Any]] = field(default_factory=list)
    retried: int = 0  # entries that needed more than one try
    lock: threading.Lock = field(default_factory=threading.Lock)
    count: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.count = threading.Condition(self.lock)

    def entry(
        self, phone: Phone, game: str, by: str, action: dict[str, Any], client_id: str, slip: str | None = None
    ) -> dict[str, Any]:
        """Send one entry until it is acknowledged; record the answer."""
        with self.lock:
            assert client_id not in self.sent, f"client id {client_id} made twice"
            self.sent[client_id] = (game, by, action)
        before = phone.failures
        body = {"action": action, "client_id": client_id, **({"slip": slip} if slip else {})}
        status, answer = phone.post(f"/api/games/{game}/actions", body)
        with self.count:
            if phone.failures > before:
                self.retried += 1
            if status == 200 and answer.get("ok"):
                self.acks[client_id] = answer
            else:
                self.refusals.append((client_id, status, answer))
            self.count.notify_all()
        return dict(answer)

    def wait_for(self, n: int, timeout: float) -> bool:
        """Wait until n entries have been answered (acknowledged or refused)."""
        with self.count:
            return self.count.wait_for(lambda: len(self.acks) + len(self.refusals) >= n, timeout)


def pilot(phone: Phone, ledger: Ledger, game: str, slip: str, order: str) -> None:
    """A pilot's slip page: report each dogfight when it is due (both bombers pass), until through."""
    me = f"pilot:{order}"
    deadline = time.monotonic() + WORK_DEADLINE
    while time.monotonic() < deadline:
        view = phone.get(f"/api/games/{game}/view?slip={slip}")
        if view["order"]["status"] != "airborne":
            return
        meeting = view["next"]
        if meeting and meeting["status"] == "due" and me not in meeting["reported_by"]:
            action = {"type": "report_dogfight", "a": meeting["a"], "b": meeting["b"], "throws": [], "choice": "pass"}
            ledger.entry(phone, game, me, action, f"{game}:{order}:{meeting['a']}-{meeting['b']}", slip=slip)
            continue
        time.sleep(0.25 + random.random() * 0.25)
    raise AssertionError(f"{me} of {game} never got through its corridor")


def base(phone: Phone, ledger: Ledger, game: str, team: str, bombers: int) -> None:
    """A team base: announce each enemy bomber at the base; on FIGHT, the bomber wins the throw."""
    announced: set[str] = set()
    deadline = time.monotonic() + WORK_DEADLINE
    while time.monotonic() < deadline:
        view = phone.get(f"/api/games/{game}/view")
        waiting = view["bombers_at_base"]
        if len(announced) == bombers and not waiting:
            return
        for bomber in waiting:
            order = bomber["order"]
            if bomber["answer"] is None:
                ledger.entry(
                    phone,
                    game,
                    f"team:{team}",
                    {"type": "announce_bombing", "order": order},
                    f"{game}:announce:{order}",
                )
                announced.add(order)
            elif bomber["answer"] == "fight":
                action = {"type": "report_bombing", "order": order, "throws": [{"winner": "bomber"}]}
                ledger.entry(phone, game, f"team:{team}", action, f"{game}:report:{order}")
        if not waiting:
            time.sleep(0.25 + random.random() * 0.25)
    raise AssertionError(f"team {team} of {game} never saw every bomber")


def set_up_game(referee: Phone, ledger: Ledger) -> dict[str, Any]:
    """Make a game, lock random seas, start it, write four bomber orders a team, start round 1."""
    status, created = referee.post(
        "/api/games",
        {
            "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
            "round_seconds": 900,
        },
    )
    assert status == 201, created
    gid = created["game"]

    def act(action: dict[str, Any], cid: str) -> dict[str, Any]:
        answer = ledger.entry(referee, gid, "referee", action, f"{gid}:setup:{cid}")
        assert answer.get("ok"), (action, answer)
        return answer

    for team in "AB":
        status, fleet = referee.post(f"/api/games/{gid}/sea/random", {"team": team})
        assert status == 200, fleet
        act({"type": "lock_sea", "team": team, "ships": fleet["ships"]}, f"lock-{team}")
    act({"type": "start_game"}, "start")
    view = referee.get(f"/api/games/{gid}/view")
    corridors = view["ruleset"]["corridors"]
    for team in "AB":
        act({"type": "set_defender", "team": team, "pilot": PLAYERS[team][-1]}, f"defender-{team}")
        legal = referee.get(f"/api/games/{gid}/view")["legal"]
        ships = next(a["options"]["ships"] for a in legal if a["type"] == "add_order" and a["team"] == team)
        # Each bomber from a ship that still has one on deck.
        decks = [s["ship"] for s in ships for _ in range(s["bomber"])]
        for i, name in enumerate(PLAYERS[team][:PILOTS]):
            ship = decks[i]
            act(
                {
                    "type": "add_order",
                    "team": team,
                    "pilot": name,
                    "kind": "bomber",
                    "ship": ship,
                    "corridor": corridors[i % 2],
                    "target": TARGETS[i],
                },
                f"order-{team}-{i}",
            )
    started = act({"type": "start_round"}, "round-1")
    slips = referee.get(f"/api/games/{gid}/slips")["slips"]
    assert len(slips) == 2 * PILOTS
    return {
        "id": gid,
        "join": created["links"]["join"],
        "deadline": started["view"]["round"]["deadline"],
        "slips": slips,
    }


def phones_of(games: list[dict[str, Any]], base_url: str, ledger: Ledger) -> list[tuple[Phone, Any, tuple[Any, ...]]]:
    """Each game's two team bases (joined by their links) and its pilots' slips: (phone, its work, its arguments)."""
    phones: list[tuple[Phone, Any, tuple[Any, ...]]] = []
    for game in games:
        gid = game["id"]
        for team in "AB":
            phone = Phone(base_url, f"base {team} of {gid}")
            token = game["join"][team].split("t=", 1)[1]
            assert phone.get(f"/api/games/{gid}/view?t={token}")["role"] == f"team:{team}"
            phones.append((phone, base, (phone, ledger, gid, team, PILOTS)))
        for slip in game["slips"]:
            code = slip["url"].rsplit("/s/", 1)[1]
            phone = Phone(base_url, f"slip {slip['order']} of {gid}")
            phones.append((phone, pilot, (phone, ledger, gid, code, slip["order"])))
    return phones


def check_store(db_file: Path, game: dict[str, Any], ledger: Ledger, log_json: dict[str, Any]) -> None:
    """The log holds every acknowledged entry once and nothing else; replay equals every stored state."""
    gid = game["id"]
    engine = make_engine(f"sqlite:///{db_file}")
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(EventRow).where(EventRow.game_id == gid).order_by(EventRow.seq)).all()
            snaps = conn.execute(select(Snapshot).where(Snapshot.game_id == gid).order_by(Snapshot.seq)).all()
        assert [r.seq for r in rows] == list(range(1, len(rows) + 1)), "seqs are contiguous from 1"
        logged = [r.client_id for r in rows if r.client_id is not None]
        assert len(logged) == len(set(logged)), "no client id is in the log twice"
        acked = {cid for cid, (g, _by, _a) in ledger.sent.items() if g == gid and cid in ledger.acks}
        assert set(logged) == acked, (
            f"missing: {sorted(acked - set(logged))[:5]}, never acknowledged: {sorted(set(logged) - acked)[:5]}"
        )
        # One action, one event: the log is the creation plus exactly the acknowledged entries.
        assert len(rows) == 1 + len(acked)
        by_cid = {r.client_id: r for r in rows}
        for cid in acked:
            _g, by, action = ledger.sent[cid]
            row = by_cid[cid]
            assert (row.by, row.kind) == (by, action["type"])
            # Stored as sent, plus only what the rules bind to an event (a new order's id and position).
            stored, sent = json.loads(row.data), {k: v for k, v in action.items() if k != "type"}
            assert {k: v for k, v in stored.items() if k in sent} == sent
            assert set(stored) - set(sent) <= airraid.BINDINGS.get(action["type"], frozenset())
            assert ledger.acks[cid]["duplicate"] or ledger.acks[cid]["seq"] >= row.seq
        contents = [(r.by, r.kind, r.data) for r in rows]
        assert len(contents) == len(set(contents)), "no entry is in the log twice, whatever its client id"

        store = Store(engine, modes={"airraid": airraid.GAME})
        events = store.all_events(gid)
        assert [e.to_dict() for e in events] == log_json["events"], "the server's log.json is the stored log"
        replayed = airraid.state_to_dict(airraid.replay(events))
        loaded, version = store.load(gid)  # latest snapshot plus a fold of later events
        assert version == len(rows)
        assert airraid.state_to_dict(loaded) == replayed
        assert snaps, "the game is long enough to have a snapshot"
        for snap in snaps:
            # A snapshot holds the state without its log (the events hold that), messages translatable,
            # and only the notes since the snapshot it points back to, if it points to one.
            body = json.loads(snap.state)
            since = body.get("_grown_since", 0)
            marks = {"_log_in_events": True, **({"_grown_since": since} if since else {})}
            state = airraid.replay(events[: snap.seq])
            expected = json.loads(json.dumps(airraid.snapshot_to_dict(state, after=since)))
            assert body == {**expected, **marks}, f"snapshot at {snap.seq}"

        state = airraid.replay(events)
        rnd = state.round
        assert rnd is not None and rnd.phase == "airborne" and state.phase == "playing"
        assert len(rnd.duels) == 2 * 2 * 2 and all(d.passed for d in rnd.duels.values()), (
            "every meeting of every corridor was flown"
        )
        assert all(o.status == "landed" for o in rnd.orders.values()), "every bomber bombed and went home"
        assert len(rnd.bombings) == 2 * PILOTS and all(b.result for b in rnd.bombings.values())
        assert rnd.timer.deadline == game["deadline"]
    finally:
        engine.dispose()


def test_forty_phones_and_four_sigkills_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    (tmp_path / "instance").mkdir()
    # Snapshots every 10 events: each game's log then has several, and each is checked below.
    (tmp_path / "instance" / "referee.toml").write_text("SNAPSHOT_EVERY = 10\n", encoding="utf-8")
    server = Server(tmp_path / "instance")
    server.start()
    ledger = Ledger()
    kills: list[tuple[int, float]] = []
    restarts: list[float] = []
    try:
        referee = Phone(server.base, "referee")
        referee.opener.open(server.link, timeout=10).read()  # the terminal's link: the referee's cookie
        set_up = time.monotonic()
        with ThreadPoolExecutor(GAMES) as pool:  # the four referees' set-ups at once: quicker
            games = list(pool.map(lambda _n: set_up_game(referee, ledger), range(GAMES)))
        set_up = time.monotonic() - set_up
        setup_entries = len(ledger.acks)

        phones = phones_of(games, server.base, ledger)
        assert len(phones) == 40

        errors: list[BaseException] = []

        def run(fn: Any, args: tuple[Any, ...]) -> None:
            try:
                fn(*args)
            except BaseException as exc:  # noqa: BLE001 - reported below, with the phone's name
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(fn, args), daemon=True) for _phone, fn, args in phones]
        # The entries to come: 4 games × (16 dogfight reports + 8 announcements + some bombing reports).
        points = sorted(rng.sample(range(setup_entries + 8, setup_entries + 90), KILLS))
        started = time.monotonic()
        for t in threads:
            t.start()
        for point in points:
            if not ledger.wait_for(point, WORK_DEADLINE):
                break
            time.sleep(rng.uniform(0.0, 0.05))  # some requests are in flight, some just committed
            server.kill()
            kills.append((point, round(time.monotonic() - started, 2)))
            time.sleep(rng.uniform(0.0, 0.5))
            t0 = time.monotonic()
            server.start()
            restarts.append(round(time.monotonic() - t0, 2))
        for t in threads:
            t.join(WORK_DEADLINE)
        assert not any(t.is_alive() for t in threads), "a phone is still at work"
        assert not errors, errors[:3]
        elapsed = time.monotonic() - started

        assert len(kills) == KILLS, f"the traffic ended before every kill: {kills}"
        assert not ledger.refusals, f"every entry was legal when made: {ledger.refusals[:3]}"
        assert ledger.retried > 0, "some entries had to be sent again (else no kill hit the traffic)"
        errors_5xx = [e for phone, _fn, _args in phones for e in phone.server_errors]
        assert not [e for e in errors_5xx if e[0] != 503], f"the server failed, not just went away: {errors_5xx[:3]}"
        duplicates = sum(1 for a in ledger.acks.values() if a.get("duplicate"))
        print(
            f"\nset-up {set_up:.1f} s; {len(ledger.acks) - setup_entries} entries by 40 phones in {elapsed:.1f} s, "
            f"kills after entries {kills}; restarts took {restarts} s; {ledger.retried} entries sent again, "
            f"{duplicates} answered as duplicates (committed before the kill, ack lost)"
        )

        # The round clock: the deadline set at start_round survived every kill; time left counts from it.
        for game in games:
            asked = time.time()
            clock = referee.get(f"/api/games/{game['id']}/view")["round"]
            answered = time.time()
            assert clock["running"] and clock["deadline"] == game["deadline"]
            # Time left is counted from that deadline at the moment of the answer (not from a restart).
            assert game["deadline"] - answered - 0.5 <= clock["left"] <= game["deadline"] - asked + 0.5
        logs = {
            g["id"]: json.loads(referee.opener.open(f"{server.base}/api/games/{g['id']}/log.json", timeout=10).read())
            for g in games
        }
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill()
    for game in games:
        check_store(tmp_path / "instance" / "referee.sqlite3", game, ledger, logs[game["id"]])
