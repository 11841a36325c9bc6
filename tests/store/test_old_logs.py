"""Stored games made by older code replay to the very state they had (issue 10).

Each fixture in tests/fixtures/logs/ is a whole game's event log and the `state_to_dict` of the
game it made, written by tests/fixtures/make_logs.py from the rules of that day; the
`*-old-code` and `*-old-ids` logs are in the id scheme of games stored before add_order events
carried their order's id. A change to the rules core that changes what any of these logs mean
fails here. The one change expected is the planes' labels in the notes a replay writes (issue 12,
`relabelled`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, insert

from referee.rules import airraid, battleship
from referee.rules.events import Event
from referee.store import Mode, Store, events_t, games_t, make_engine, migrate, snapshots_t

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
FIXTURES = sorted(LOGS.glob("*.json"))
MODES: dict[str, Mode] = {"airraid": airraid.GAME, "battleship": battleship.GAME}


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def canonical(state_dict: Any) -> str:
    """The state as the fixture stores it: JSON, keys sorted (tuples and lists alike)."""
    return json.dumps(state_dict, ensure_ascii=False, sort_keys=True)


# Fields added since that a replay derives from the log itself: the seq of the last void, which
# made every note again (snapshots use it to know which earlier notes they may leave out), and
# the count of each team's changes in each stage (the bound on a phone's churn, issue 34).
DERIVED = {"notes_rebuilt", "changes"}


def as_stored(state_dict: dict[str, Any], stored: dict[str, Any]) -> str:
    """A state as the fixture's day would have stored it: a field added since must still be empty."""
    added = {k: v for k, v in state_dict.items() if k not in stored and k not in DERIVED}
    # (`False`: a flag added since, such as `practice`, off in every game made before it.)
    assert all(v in ({}, [], None) or v is False for v in added.values()), (
        f"fields added since the fixture are not empty: {added}"
    )
    return canonical({k: v for k, v in state_dict.items() if k in stored})


def relabelled(fixture: dict[str, Any]) -> dict[str, Any]:
    """The fixture's stored state with its notes' plane labels as a replay writes them today (issue 12).

    A label is a name shown: before issue 12 it was team and take-off position ("A1" in every
    corridor), now team and the order's number in its round ("2A3" is A3; ids of the older scheme
    fall back to the corridor's block of numbers). A replay writes the notes afresh, so it names the
    planes the new way; everything else must still be exactly as stored. An old snapshot keeps the
    notes it holds (see the snapshot tests).
    """
    state: dict[str, Any] = json.loads(json.dumps(fixture["state"]))
    if fixture["mode"] != "airraid":
        return state
    corridors = state["ruleset_raw"]["corridors"]
    names, limit = corridors["names"], corridors["limit"]
    orders = {oid: o for rnd in state["rounds"] for oid, o in rnd["orders"].items()}

    def label(order_id: str) -> str:
        o = orders[order_id]
        numbered = re.fullmatch(r"([1-9][0-9]*)([AB])([1-9][0-9]*)", order_id)
        if numbered and int(numbered[1]) == o["round"] and numbered[2] == o["team"]:
            return f"{o['team']}{numbered[3]}"
        return f"{o['team']}{names.index(o['corridor']) * limit + o['position']}"

    for notes in state["notes"].values():
        for note in notes:
            for key, label_key in (("order", "label"), ("a", "a_label"), ("b", "b_label")):
                if label_key in note:
                    note[label_key] = label(note[key])
    return state


def test_relabelling_gives_each_plane_of_a_round_its_own_name() -> None:
    fixture = load(LOGS / "airraid-full.json")
    orders = {oid: o for rnd in fixture["state"]["rounds"] for oid, o in rnd["orders"].items()}
    stored, today = fixture["state"]["notes"], relabelled(fixture)["notes"]
    named = {(orders[n["order"]]["round"], n["label"], n["order"]) for seq in today for n in today[seq] if "label" in n}
    by_name = {(rnd, label) for rnd, label, _order in named}
    assert len(by_name) == len(named), "two planes of one round share a label"
    before = {(orders[n["order"]]["round"], n["label"]) for seq in stored for n in stored[seq] if "label" in n}
    assert len(before) < len({(r, o) for r, _label, o in named}), "the fixture had labels that repeat"


def events_of(fixture: dict[str, Any]) -> list[Event]:
    return [Event.from_dict(e) for e in fixture["events"]]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('old-logs') / 'store.sqlite3'}")
    migrate(engine)
    yield engine
    engine.dispose()


def test_the_fixtures_cover_both_modes_and_the_old_id_scheme() -> None:
    fixtures = [load(p) for p in FIXTURES]
    assert {f["mode"] for f in fixtures} == set(MODES)
    old = [f for f in fixtures if f["name"].endswith(("-old-code", "-old-ids"))]
    assert old and all("id" not in e["data"] for f in old for e in f["events"] if e["kind"] == "add_order")
    assert sum(p.stat().st_size for p in FIXTURES) < 1_500_000


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_replaying_an_old_log_gives_its_stored_state(path: Path) -> None:
    fixture = load(path)
    mode = MODES[fixture["mode"]]
    state = mode.replay(events_of(fixture))
    assert as_stored(mode.state_to_dict(state), fixture["state"]) == canonical(relabelled(fixture))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_an_old_snapshot_reads_back_as_the_same_state(path: Path) -> None:
    fixture = load(path)
    mode = MODES[fixture["mode"]]
    assert as_stored(mode.state_to_dict(mode.state_from_dict(fixture["state"])), fixture["state"]) == canonical(
        fixture["state"]
    )


def store_game(engine: Engine, fixture: dict[str, Any], game_id: str) -> Store:
    """Write a fixture's log into the store's tables as its day stored it: the game row, then every event row."""
    modes = MODES
    store = Store(engine, modes=modes)
    events = fixture["events"]
    with engine.begin() as conn:
        conn.execute(
            insert(games_t).values(
                id=game_id,
                mode=fixture["mode"],
                created_at=events[0]["at"],
                seq=events[-1]["seq"],
                status=fixture["state"]["phase"],
            )
        )
        conn.execute(
            insert(events_t),
            [
                {
                    "game_id": game_id,
                    "seq": e["seq"],
                    "kind": e["kind"],
                    "data": json.dumps(e["data"]),
                    "at": e["at"],
                    "by": e["by"],
                    "batch_seq": e["seq"],
                }
                for e in events
            ],
        )
    store.forget()
    return store


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_the_store_replays_an_old_log_to_its_stored_state(engine: Engine, path: Path) -> None:
    fixture = load(path)
    game_id = f"log-{path.stem}"[:32]
    store = store_game(engine, fixture, game_id)
    state, version = store.load(game_id)
    assert version == fixture["events"][-1]["seq"]
    assert as_stored(MODES[fixture["mode"]].state_to_dict(state), fixture["state"]) == canonical(relabelled(fixture))
    assert [e.to_dict() for e in store.all_events(game_id)] == fixture["events"]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_the_store_loads_an_old_snapshot_to_its_stored_state(engine: Engine, path: Path) -> None:
    fixture = load(path)
    game_id = f"snap-{path.stem}"[:32]
    store = store_game(engine, fixture, game_id)
    with engine.begin() as conn:
        snapshot = {"game_id": game_id, "seq": fixture["events"][-1]["seq"], "state": json.dumps(fixture["state"])}
        conn.execute(insert(snapshots_t).values(**snapshot))
    state, _ = store.load(game_id)
    assert as_stored(MODES[fixture["mode"]].state_to_dict(state), fixture["state"]) == canonical(fixture["state"])
