"""Snapshots hold the state, not the log: their size stays flat as a game grows, and a load from one
gives the same state as a replay of the whole log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, select

from referee.rules import airraid
from referee.rules.errors import Msg
from referee.store import MODES, Store, make_engine, migrate
from referee.store.models import Snapshot
from tests.airraid_helpers import PLAYERS, ruleset_data, ships_json

made: list[Engine] = []  # the engines of the test running now


@pytest.fixture(autouse=True)
def engines() -> Iterator[list[Engine]]:
    """Dispose of every engine a test made."""
    made.clear()
    yield made
    for engine in made:
        engine.dispose()


def new_game(tmp_path: Path, snapshot_every: int) -> tuple[Engine, Store, str]:
    """Return an engine on a fresh SQLite file, a store on it, and a new air-raid game's id."""
    engine = make_engine(f"sqlite:///{tmp_path / 'snapshots.sqlite3'}")
    migrate(engine)
    made.append(engine)
    store = Store(engine, snapshot_every=snapshot_every)
    create = {
        "type": "create_game",
        "ruleset": ruleset_data(),
        "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
    }
    return engine, store, store.create_game("airraid", create, at=1000.0, by="referee").game_id


def test_snapshots_do_not_grow_with_the_log_and_load_to_the_same_state(tmp_path: Path) -> None:
    engine, store, gid = new_game(tmp_path, snapshot_every=50)
    clock = 1000.0
    for team in "AB":
        clock += 1
        store.execute(gid, {"type": "lock_sea", "team": team, "ships": ships_json()}, at=clock, by=f"team:{team}")
    store.execute(gid, {"type": "start_game"}, at=clock + 1, by="referee")
    # The defender changes hands over and over: each change is an event, none adds to the state
    # (the referee's hand: a team's phone may make only so many changes a stage).
    pilots = PLAYERS["A"]
    for i in range(600):
        clock += 1
        store.execute(gid, {"type": "set_defender", "team": "A", "pilot": pilots[i % 4]}, at=clock, by="referee")

    with engine.connect() as conn:
        snaps = conn.execute(select(Snapshot.__table__).where(Snapshot.game_id == gid).order_by(Snapshot.seq)).all()
    sizes = {s.seq: len(s.state) for s in snaps}
    assert len(sizes) == 12, sorted(sizes)
    first, last = sizes[min(sizes)], sizes[max(sizes)]
    # With the log inside, the 600th event's snapshot would be some twelve times the 50th's.
    assert last < first * 1.2, sizes
    assert all("log" not in json.loads(s.state) for s in snaps)

    live, version = store.load(gid)
    fresh = Store(engine, snapshot_every=50)
    loaded, loaded_version = fresh.load(gid)
    replayed = airraid.replay(store.all_events(gid))
    assert loaded_version == version > 600
    mode = MODES["airraid"]
    assert mode.state_to_dict(loaded) == mode.state_to_dict(replayed) == mode.state_to_dict(live)
    # The loaded state acts like the live one: the next event folds onto the snapshot's log.
    after = fresh.execute(gid, {"type": "set_defender", "team": "A", "pilot": "Ann"}, at=clock + 1, by="team:A")
    assert after.version == version + 1 == after.state.log[-1].seq == len(after.state.log)


def narrated_game(tmp_path: Path, events: int, void_at: int | None = None) -> tuple[Engine, Store, str, float]:
    """A game in the air whose referee pauses and resumes the clock: every event adds a note."""
    engine, store, gid = new_game(tmp_path, snapshot_every=50)
    clock = 1000.0
    for team in "AB":
        clock += 1
        store.execute(gid, {"type": "lock_sea", "team": team, "ships": ships_json()}, at=clock, by=f"team:{team}")
    for action in (
        {"type": "start_game"},
        {"type": "set_defender", "team": "A", "pilot": "Amy"},
        {"type": "set_defender", "team": "B", "pilot": "Bo"},
        {"type": "start_round"},
    ):
        clock += 1
        store.execute(gid, action, at=clock, by="referee")
    version = 0
    while version < events:
        clock += 1
        paused = store.load(gid)[0].round.timer.deadline is None
        action = {"type": "resume_timer" if paused else "pause_timer"}
        if version + 1 == void_at:
            action = {"type": "void", "seq": version - 3, "reason": "a slip of the finger"}
        version = store.execute(gid, action, at=clock, by="referee").version
    return engine, store, gid, clock


def snapshots_of(engine: Engine, gid: str) -> dict[int, dict[str, object]]:
    with engine.connect() as conn:
        rows = conn.execute(select(Snapshot.__table__).where(Snapshot.game_id == gid).order_by(Snapshot.seq)).all()
    return {r.seq: json.loads(r.state) for r in rows}


def loads_as_replayed(engine: Engine, store: Store, gid: str) -> None:
    """A fresh store's load is the live state and the replay of the whole log."""
    mode = MODES["airraid"]
    live, version = store.load(gid)
    loaded, loaded_version = Store(engine, snapshot_every=50).load(gid)
    replayed = airraid.replay(store.all_events(gid))
    assert loaded_version == version
    assert mode.state_to_dict(loaded) == mode.state_to_dict(replayed) == mode.state_to_dict(live)


def test_a_snapshot_holds_only_the_notes_since_the_last_one(tmp_path: Path) -> None:
    # Notes grow with the log (one a pause or resume): a snapshot holding them all would grow too.
    engine, store, gid, _clock = narrated_game(tmp_path, 400)
    snaps = snapshots_of(engine, gid)
    assert sorted(snaps) == list(range(50, 401, 50))
    assert "_grown_since" not in snaps[50]
    for seq in list(snaps)[1:]:
        assert snaps[seq]["_grown_since"] == seq - 50
        assert {int(k) for k in snaps[seq]["notes"]} <= set(range(seq - 49, seq + 1)), seq
    sizes = {seq: len(json.dumps(body)) for seq, body in snaps.items()}
    assert sizes[400] < sizes[100] * 1.2, sizes
    loads_as_replayed(engine, store, gid)


def test_after_a_void_the_next_snapshot_holds_every_note_again(tmp_path: Path) -> None:
    # A void makes every note again: the notes an earlier snapshot holds are no longer the game's.
    # A snapshot follows the void at once (a load starts from the recomputed state).
    engine, store, gid, _clock = narrated_game(tmp_path, 260, void_at=170)
    snaps = snapshots_of(engine, gid)
    (void_seq,) = set(snaps) - {50, 100, 150, 200, 250}
    assert void_seq == 170
    assert snaps[150]["_grown_since"] == 100
    assert "_grown_since" not in snaps[void_seq]
    assert snaps[200]["_grown_since"] == void_seq
    assert snaps[250]["_grown_since"] == 200
    assert "a slip of the finger" in json.dumps(snaps[void_seq]["notes"])
    loads_as_replayed(engine, store, gid)


def test_a_snapshot_whose_earlier_one_is_gone_loads_by_replaying_the_log(tmp_path: Path) -> None:
    engine, store, gid, _clock = narrated_game(tmp_path, 160)
    with engine.begin() as conn:
        conn.execute(Snapshot.__table__.delete().where(Snapshot.game_id == gid, Snapshot.seq == 100))
    loads_as_replayed(engine, store, gid)


def test_an_old_snapshot_that_holds_its_log_still_loads(tmp_path: Path) -> None:
    engine, store, gid = new_game(tmp_path, snapshot_every=1000)
    store.execute(gid, {"type": "lock_sea", "team": "A", "ships": ships_json()}, at=1001.0, by="team:A")
    state, version = store.load(gid)
    mode = MODES["airraid"]
    # A snapshot as earlier versions wrote it: the whole state, its log included.
    with engine.begin() as conn:
        conn.execute(
            Snapshot.__table__.insert().values(game_id=gid, seq=version, state=json.dumps(mode.state_to_dict(state)))
        )
    loaded, _ = Store(engine).load(gid)
    assert mode.state_to_dict(loaded) == mode.state_to_dict(state)


def test_a_state_loaded_from_a_snapshot_still_speaks_every_language(tmp_path: Path) -> None:
    engine, store, gid = new_game(tmp_path, snapshot_every=1)
    store.execute(gid, {"type": "forfeit", "team": "B", "reason": "went home"}, at=1001.0, by="referee")
    live, _ = store.load(gid)
    loaded, _ = Store(engine).load(gid)  # from the snapshot just written, not from a replay
    assert live.outcome is not None and loaded.outcome is not None
    assert isinstance(live.outcome.detail, Msg), "the detail is a message to translate"
    assert isinstance(loaded.outcome.detail, Msg) and loaded.outcome.detail.template == live.outcome.detail.template
    assert loaded.outcome.detail.params == live.outcome.detail.params
    czech = {live.outcome.detail.template: "PŘELOŽENO {team}"}
    say = lambda text: czech.get(text, text)  # noqa: E731
    assert loaded.outcome.detail.localize(say, "cs") == live.outcome.detail.localize(say, "cs")


def test_a_snapshot_left_to_the_caller_is_written_when_asked(tmp_path: Path) -> None:
    engine, store, gid = new_game(tmp_path, snapshot_every=3)

    def snapshots() -> list[int]:
        with engine.connect() as conn:
            rows = conn.execute(select(Snapshot.__table__.c.seq).where(Snapshot.game_id == gid)).all()
        return [r.seq for r in rows]

    results = [
        store.execute(
            gid, {"type": "lock_sea", "team": t, "ships": ships_json()}, at=1001.0, by=f"team:{t}", defer_snapshot=True
        )
        for t in "AB"
    ]
    assert [r.snapshot_due for r in results] == [False, True] and snapshots() == []
    store.write_snapshot(results[0])  # nothing was due
    store.write_snapshot(results[1])
    assert snapshots() == [3]


def test_a_snapshot_finds_the_one_it_points_back_to_without_reading_the_table(tmp_path: Path) -> None:
    # The newest snapshot this store wrote or read is remembered (none is ever deleted by it).
    engine, store, gid, clock = narrated_game(tmp_path, 60)
    looked: list[str] = []

    def on_statement(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        if "max(snapshots.seq)" in statement:
            looked.append(statement)

    event.listen(engine, "before_cursor_execute", on_statement)

    def play(on: Store, upto: int) -> None:
        nonlocal clock
        version = on.load(gid)[1]
        while version < upto:
            clock += 1
            paused = on.load(gid)[0].round.timer.deadline is None
            action = {"type": "resume_timer" if paused else "pause_timer"}
            version = on.execute(gid, action, at=clock, by="referee").version

    play(store, 100)
    assert looked == [], "the snapshot at 100 found its base (50) in memory"
    assert snapshots_of(engine, gid)[100]["_grown_since"] == 50
    # A fresh store (another process, a restart) loads the game from the snapshot at 100: remembered too.
    fresh = Store(engine, snapshot_every=50)
    play(fresh, 200)
    assert looked == []
    snaps = snapshots_of(engine, gid)
    assert snaps[150]["_grown_since"] == 100 and snaps[200]["_grown_since"] == 150
    loads_as_replayed(engine, fresh, gid)
    # Whatever snapshot a load starts from is the base of the next one (here 150: 200 was lost).
    third = Store(engine, snapshot_every=50)
    with engine.begin() as conn:
        conn.execute(Snapshot.__table__.delete().where(Snapshot.game_id == gid, Snapshot.seq == 200))
    play(third, 250)
    assert looked == [] and snapshots_of(engine, gid)[250]["_grown_since"] == 150
    loads_as_replayed(engine, third, gid)
    event.remove(engine, "before_cursor_execute", on_statement)
