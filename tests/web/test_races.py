"""Races: two entries at the same moment give one of the defined outcomes, never a half of each.

Each race is run in both sequential orders (which defines the allowed outcomes), then many times
truly at once: two threads released by a Barrier call `Store.execute` on a file SQLite database
and on PostgreSQL, half of the runs through one Store (one server, threads) and half through two
Stores on two engines (two server processes). The set of outcomes seen must be within the
defined ones.

- two pilots report their dogfight at once (agreeing, or contradicting each other), and a pilot
  reports while the referee enters the result;
- the referee voids a pilot's report while the other pilot agrees with it;
- a team removes (or adds) an order while the referee starts the round;
- a phone's outbox sends the same report twice (same client id) at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from referee.rules import airraid
from referee.rules.errors import RulesError
from referee.store import MODES, Store, make_engine, migrate

from ..airraid_helpers import started_game
from .screens import Pushes, Screen

MODES.setdefault(airraid.MODE, airraid.GAME)  # as referee.rules does

RUNS = 12
"""Concurrent runs per race and database."""

Entry = tuple[str, dict[str, Any]]  # (by, action)


# --- Databases -------------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Make Stores on one database: each call a new engine, as a second server process would have."""
    engines: list[Engine] = []
    if request.param == "sqlite":
        url, kwargs = f"sqlite:///{tmp_path / 'races.sqlite3'}", {}
    else:
        url, kwargs = request.getfixturevalue("postgres_schema")

    def make() -> Store:
        engine = make_engine(url, **kwargs)
        if not engines:
            migrate(engine)
        engines.append(engine)
        return Store(engine)

    yield make
    for engine in engines:
        engine.dispose()


# --- Games -----------------------------------------------------------------------------------------


def planning_entries() -> list[Entry]:
    """The entries of a game in round 1's planning: defenders and three orders written."""
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    game.do("team:A", type="add_order", team="A", pilot="Ann", kind="fighter", ship="A", corridor="upper")
    game.do("team:A", type="add_order", team="A", pilot="Ada", kind="bomber", ship="B", corridor="lower", target="C4")
    game.do("team:B", type="add_order", team="B", pilot="Bob", kind="fighter", ship="A", corridor="upper")
    # A stored event is an action plus what the rules bound to it (a new order's id): send the action.
    return [
        (e.by, {"type": e.kind, **{k: v for k, v in e.data.items() if k not in airraid.BOUND_FIELDS.get(e.kind, ())}})
        for e in game.events
    ]


def airborne_entries() -> list[Entry]:
    """Round 1 in the air: fighters 1A1 (Ann) and 1B1 (Bob) meet in the upper corridor."""
    return [*planning_entries(), ("referee", {"type": "start_round"})]


PLANNING = planning_entries()
AIRBORNE = airborne_entries()


def new_game(store: Store, entries: list[Entry]) -> str:
    """Write a game's entries through the store; return its id."""
    (by, first), *rest = entries
    gid = store.create_game(airraid.MODE, first, at=1000.0, by=by).game_id
    for i, (by, action) in enumerate(rest):
        store.execute(gid, action, at=1001.0 + i, by=by)
    return gid


def state_of(*stores: Store, gid: str) -> airraid.State:
    """The stored state; each Store's remembered state must be the same."""
    remembered = [store.load(gid) for store in stores]
    stores[0].forget(gid)
    state, version = stores[0].load(gid)
    assert isinstance(state, airraid.State)
    for cached, cached_version in remembered:
        assert cached_version == version and airraid.state_to_dict(cached) == airraid.state_to_dict(state)
    return state


# --- Running two entries -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What one entry got: accepted (with its version), or refused with the rules' code."""

    ok: bool
    code: str = ""
    duplicate: bool = False


def run(store: Store, gid: str, entry: Entry, at: float) -> Answer:
    by, action = entry
    client_id = action.get("client_id")
    try:
        result = store.execute(
            gid, {k: v for k, v in action.items() if k != "client_id"}, at=at, by=by, client_id=client_id
        )
    except RulesError as exc:
        return Answer(False, exc.code)
    return Answer(True, duplicate=result.duplicate)


def in_order(
    make: Callable[[], Store], setup: list[Entry], first: Entry, second: Entry
) -> tuple[Answer, Answer, airraid.State]:
    """Run two entries one after the other."""
    store = make()
    gid = new_game(store, setup)
    a = run(store, gid, first, 2000.0)
    b = run(store, gid, second, 2000.5)
    return a, b, state_of(store, gid=gid)


def at_once(
    make: Callable[[], Store], setup: list[Entry], one: Entry, two: Entry, *, shared: bool
) -> tuple[Answer, Answer, airraid.State]:
    """Run two entries from two threads released together; `shared`: through one Store, else two."""
    store_one = make()
    gid = new_game(store_one, setup)
    store_two = store_one if shared else make()
    barrier = threading.Barrier(2)
    answers: dict[int, Answer] = {}
    failures: list[BaseException] = []

    def go(i: int, store: Store, entry: Entry) -> None:
        try:
            barrier.wait(10)
            answers[i] = run(store, gid, entry, 2000.0)
        except BaseException as exc:  # noqa: BLE001 - reported below: a thread's crash must fail the test
            failures.append(exc)

    threads = [
        threading.Thread(target=go, args=(1, store_one, one)),
        threading.Thread(target=go, args=(2, store_two, two)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures, failures
    return answers[1], answers[2], state_of(store_one, store_two, gid=gid)


def explore(
    make: Callable[[], Store],
    setup: list[Entry],
    one: Entry,
    two: Entry,
    outcome: Callable[[Answer, Answer, airraid.State], Any],
) -> tuple[set[Any], set[Any]]:
    """Return (outcomes of both sequential orders, outcomes of the concurrent runs)."""
    sequential = set()
    a, b, state = in_order(make, setup, one, two)
    sequential.add(outcome(a, b, state))
    b, a, state = in_order(make, setup, two, one)
    sequential.add(outcome(a, b, state))
    concurrent = {outcome(*at_once(make, setup, one, two, shared=i % 2 == 0)) for i in range(RUNS)}
    return sequential, concurrent


# --- What a state says about the dogfight of 1A1 and 1B1 ---------------------------------------------

KEY = airraid.duel_key("upper", "1A1", "1B1")
A_WINS = {"type": "report_dogfight", "a": "1A1", "b": "1B1", "throws": [{"winner": "A"}]}
B_WINS = {"type": "report_dogfight", "a": "1A1", "b": "1B1", "throws": [{"winner": "B"}]}


def dogfight(state: airraid.State) -> tuple[str, Any]:
    """("decided", who was shot down) | ("conflict", n) | ("reported", by whom) | ("open", None)."""
    rnd = state.round
    assert rnd is not None
    if KEY in rnd.duels:
        assert KEY not in rnd.reports and KEY not in rnd.conflicts
        return "decided", rnd.duels[KEY].shot_down
    if KEY in rnd.conflicts:
        return "conflict", len(rnd.conflicts[KEY])
    if rnd.reports.get(KEY):
        return "reported", tuple(r.by for r in rnd.reports[KEY])
    return "open", None


def consistent(state: airraid.State) -> None:
    """No half-applied entry: every plane is accounted for, the version is the last event's."""
    assert airraid.ledger_balances(state)
    assert state.version == state.log[-1].seq == len(state.log)


# --- The races -------------------------------------------------------------------------------------------


def test_both_pilots_report_the_same_result_at_once(stores: Callable[[], Store]) -> None:
    ann, bob = ("pilot:1A1", A_WINS), ("pilot:1B1", A_WINS)

    def outcome(a: Answer, b: Answer, state: airraid.State) -> Any:
        consistent(state)
        return a, b, dogfight(state)

    # Whoever is first reports, the other agrees: the duel is decided once, Bob shot down.
    defined = {(Answer(True), Answer(True), ("decided", "1B1"))}
    sequential, concurrent = explore(stores, AIRBORNE, ann, bob, outcome)
    assert sequential == defined
    assert concurrent <= defined, concurrent - defined


def test_both_pilots_report_contradicting_results_at_once(stores: Callable[[], Store]) -> None:
    ann, bob = ("pilot:1A1", A_WINS), ("pilot:1B1", B_WINS)

    def outcome(a: Answer, b: Answer, state: airraid.State) -> Any:
        consistent(state)
        return a, b, dogfight(state)

    # Both reports are taken; they contradict each other: a conflict for the referee, no loss yet.
    defined = {(Answer(True), Answer(True), ("conflict", 2))}
    sequential, concurrent = explore(stores, AIRBORNE, ann, bob, outcome)
    assert sequential == defined
    assert concurrent <= defined, concurrent - defined


def test_a_pilot_reports_while_the_referee_enters_the_result(stores: Callable[[], Store]) -> None:
    ann, referee = ("pilot:1A1", A_WINS), ("referee", B_WINS)

    def outcome(a: Answer, r: Answer, state: airraid.State) -> Any:
        consistent(state)
        return a, r, dogfight(state)

    # The referee's word decides either way: Ann's report is pending when the referee enters the
    # result (both taken), or comes after it and is refused as already decided.
    defined = {
        (Answer(True), Answer(True), ("decided", "1A1")),
        (Answer(False, "illegal"), Answer(True), ("decided", "1A1")),
    }
    sequential, concurrent = explore(stores, AIRBORNE, ann, referee, outcome)
    assert sequential == defined
    assert concurrent <= defined, concurrent - defined


def test_the_referee_voids_a_report_while_the_other_pilot_agrees(stores: Callable[[], Store]) -> None:
    setup = [*AIRBORNE, ("pilot:1A1", A_WINS)]
    ann_report = len(setup)  # its seq: the create event is 1
    void, bob = (
        ("referee", {"type": "void", "seq": ann_report, "reason": "Ann reported for the wrong plane"}),
        ("pilot:1B1", A_WINS),
    )

    def outcome(v: Answer, b: Answer, state: airraid.State) -> Any:
        consistent(state)
        assert ann_report in state.voided
        return v, b, dogfight(state), tuple(sorted(state.skipped))

    # Either order ends the same: Ann's report is void, Bob's stands alone as a pending report;
    # nobody is shot down. (Bob first: his agreement decided the duel, the void undoes that and
    # replays his entry as a report of its own.)
    defined = {(Answer(True), Answer(True), ("reported", ("pilot:1B1",)), ())}
    sequential, concurrent = explore(stores, setup, void, bob, outcome)
    assert sequential == defined
    assert concurrent <= defined, concurrent - defined


def test_a_team_removes_an_order_while_the_referee_starts_the_round(stores: Callable[[], Store]) -> None:
    remove, start = ("team:A", {"type": "remove_order", "order": "1A2"}), ("referee", {"type": "start_round"})

    def outcome(r: Answer, s: Answer, state: airraid.State) -> Any:
        consistent(state)
        rnd = state.rounds[0]
        return r, s, rnd.phase, tuple(sorted(rnd.orders)), state.teams["A"].stock["B"]["bomber"]

    # The edit is in round 1's orders (removed, Ada's bomber stays on its ship), or it comes
    # after the start and is refused (Ada's bomber flies); never the order gone and the plane
    # taken off, or the other way round.
    bombers = state_after(PLANNING).teams["A"].stock["B"]["bomber"]
    defined = {
        (Answer(True), Answer(True), "airborne", ("1A1", "1B1"), bombers),
        (Answer(False, "illegal"), Answer(True), "airborne", ("1A1", "1A2", "1B1"), bombers - 1),
    }
    sequential, concurrent = explore(stores, PLANNING, remove, start, outcome)
    assert sequential == defined
    assert concurrent <= defined, concurrent - defined


def test_a_team_adds_an_order_while_the_referee_starts_the_round(stores: Callable[[], Store]) -> None:
    add = (
        "team:B",
        {
            "type": "add_order",
            "team": "B",
            "pilot": "Bea",
            "kind": "bomber",
            "ship": "B",
            "corridor": "lower",
            "target": "A1",
        },
    )
    start = ("referee", {"type": "start_round"})

    def outcome(a: Answer, s: Answer, state: airraid.State) -> Any:
        consistent(state)
        rnd = state.rounds[0]
        statuses = {o.id: o.status for o in rnd.orders.values()}
        return a, s, rnd.phase, tuple(sorted(statuses.items()))

    # Bea's bomber is in round 1 and meets Ada's in the lower corridor; or it is refused, and
    # Ada's bomber meets nobody and is at the enemy base at once.
    defined = {
        (
            Answer(True),
            Answer(True),
            "airborne",
            (("1A1", "airborne"), ("1A2", "airborne"), ("1B1", "airborne"), ("1B2", "airborne")),
        ),
        (
            Answer(False, "illegal"),
            Answer(True),
            "airborne",
            (("1A1", "airborne"), ("1A2", "bombing"), ("1B1", "airborne")),
        ),
    }
    sequential, concurrent = explore(stores, PLANNING, add, start, outcome)
    assert sequential == defined
    assert concurrent <= defined, concurrent - defined


def state_after(entries: list[Entry]) -> airraid.State:
    """The state a list of entries makes, folded in memory."""
    (by, first), *rest = entries
    state, _events = airraid.create(first, at=1000.0, by=by)
    for i, (by, action) in enumerate(rest):
        state, _events = airraid.apply(state, action, at=1001.0 + i, by=by)
    return state


def test_the_same_report_sent_twice_at_once_is_taken_once(stores: Callable[[], Store]) -> None:
    """A phone's outbox resends an entry whose answer was lost while the first is still in flight."""
    report = ("pilot:1A1", {**A_WINS, "client_id": "ann-phone-7"})

    def outcome(first: Answer, second: Answer, state: airraid.State) -> Any:
        consistent(state)
        return frozenset({first, second}), len(state.log), dogfight(state)

    # One of the two is stored, the other answered as its duplicate; one report, one event.
    defined = {
        (frozenset({Answer(True), Answer(True, duplicate=True)}), len(AIRBORNE) + 1, ("reported", ("pilot:1A1",)))
    }
    sequential, concurrent = explore(stores, AIRBORNE, report, report, outcome)
    assert sequential == defined
    assert concurrent <= defined, concurrent - defined


# --- Through the web: the views the screens are left with ------------------------------------------


def test_screens_end_on_the_newest_view_when_two_reports_race(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both pilots report at once: the first entry's push is late, after the second's. Every screen must
    still end on the newest view (conn.js shows whatever view came last), not the older one."""
    from referee.push import views as push_view
    from referee.web.extensions import socketio, store_of

    from ..fuzz_helpers import airborne_arena

    arena = airborne_arena(app)
    pushes = Pushes(monkeypatch)
    watchers = {
        "referee": Screen(socketio.test_client(app, flask_test_client=arena.referee), arena.gid, pushes),
        "public": Screen(socketio.test_client(app, flask_test_client=app.test_client()), arena.gid, pushes),
    }
    for screen in watchers.values():
        assert screen.ack["ok"], screen.ack
        assert screen.sock.get_received() == []
    with app.app_context():
        start = store_of(app).load(arena.gid)[1]

    first_stored, second_pushed = threading.Event(), threading.Event()
    push = push_view.push_views

    def late_first_push(game_id: str, state: Any, **kwargs: Any) -> Any:
        if state.version == start + 1:  # Ann's report is stored; its push is overtaken by Bob's
            first_stored.set()
            second_pushed.wait(10)
        made = push(game_id, state, **kwargs)
        if state.version == start + 2:
            second_pushed.set()
        return made

    monkeypatch.setattr(push_view, "push_views", late_first_push)
    answers: dict[str, Any] = {}

    def report(pilot: str) -> None:
        response = app.test_client().post(
            f"/api/games/{arena.gid}/actions", json={"action": A_WINS, "slip": arena.slips[pilot]}
        )
        answers[pilot] = response.get_json()

    ann = threading.Thread(target=report, args=("1A1",))
    ann.start()
    assert first_stored.wait(10)
    report("1B1")
    ann.join(20)
    assert answers["1A1"]["ok"] and answers["1B1"]["ok"], answers

    for who, screen in watchers.items():
        # Each push is applied as a page applies it (a change set from the view it holds).
        seqs = [m["args"][0]["seq"] for m in screen.take()]
        assert screen.seq == start + 2, f"{who}'s screen was left on view {screen.seq} (pushed in order {seqs})"
        screen.sock.disconnect()


NODE_VIEW_ORDER = r"""
import assert from 'node:assert/strict';
const { Connection } = await import(process.argv[1] + '/lib/conn.js');
const handlers = {};
const socket = { connected: false, io: { on() {} }, on(name, fn) { handlers[name] = fn; }, emit() {}, connect() {}, disconnect() {}, removeAllListeners() {} };
const mem = new Map();
const storage = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => mem.set(k, v), removeItem: (k) => mem.delete(k) };
const conn = new Connection({ game: 'g', io: () => socket, storage, clockEveryMs: 1e9 });
conn.start();
const shown = [];
conn.on('view', (m) => shown.push(m.seq));
handlers.view({ seq: 14, view: { version: 14 } });
handlers.view({ seq: 13, view: { version: 13 } });  // another server process's older push, late
handlers.view({ seq: 14, view: null });             // the same version again (a pilot's order gone): shown
handlers.view({ seq: 15, view: { version: 15 } });
assert.deepEqual(shown, [14, 14, 15]);
assert.equal(conn.lastSeq, 15);
conn.stop();
console.log('order ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def test_a_page_never_goes_back_to_an_older_pushed_view() -> None:
    """Across server processes (Redis) pushes may arrive out of order: conn.js keeps the newest view."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the conn.js check is skipped")
    js = Path(__file__).resolve().parents[2] / "static" / "js"
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_VIEW_ORDER, js.as_uri()], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and "order ok" in result.stdout, result.stderr + result.stdout
