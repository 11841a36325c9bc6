"""Plane labels are unique in a round (issue 12): the team letter and the order's number.

Orders are numbered as a team writes them (1A1, 1A2, …), and a number is never given twice: three
pilots at take-off position 1 of three corridors are A1, A2 and A3 in every list, note, refusal
and view, and a label says nothing of the corridor or the position the enemy's view keeps secret.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import airraid
from referee.rules.errors import IllegalAction
from referee.rules.events import REFEREE, Role

from ..airraid_helpers import PLAYERS, SEA_7, Game, ruleset_data, ships_json, started_game, win
from ..speed import examples

# --- The shipped ruleset -----------------------------------------------------------------------


def three_corridors(game: Game, team: str, kind: str = "fighter") -> dict[str, str]:
    """Send three of a team's pilots at position 1 of the upper, middle and lower corridors; return order ids."""
    pilots = PLAYERS[team][:3]
    ids = {}
    for pilot, corridor, ship in zip(pilots, ("upper", "middle", "lower"), "ABC", strict=True):
        game.do(f"team:{team}", type="add_order", team=team, pilot=pilot, kind=kind, ship=ship, corridor=corridor)
        ids[corridor] = game.order_id(team, pilot)
    return ids


def defenders(game: Game) -> None:
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")


def labels(game: Game) -> dict[str, str]:
    rnd = game.state.round
    assert rnd is not None
    return {o.id: o.label(game.state.ruleset) for o in rnd.orders.values()}


def test_position_one_of_three_corridors_is_a1_a2_a3() -> None:
    game = started_game()
    defenders(game)
    a, b = three_corridors(game, "A"), three_corridors(game, "B")
    assert {c: labels(game)[i] for c, i in a.items()} == {"upper": "A1", "middle": "A2", "lower": "A3"}
    assert {c: labels(game)[i] for c, i in b.items()} == {"upper": "B1", "middle": "B2", "lower": "B3"}
    # The take-off position stays the position within the corridor.
    assert {game.state.round.orders[i].position for i in a.values()} == {1}


def test_the_label_does_not_follow_the_take_off_position() -> None:
    game = started_game()
    defenders(game)
    for pilot, position, ship in (("Ann", 3, "A"), ("Ada", 1, "B"), ("Abe", 2, "C")):
        game.do(
            "team:A",
            type="add_order",
            team="A",
            pilot=pilot,
            kind="fighter",
            ship=ship,
            corridor="lower",
            position=position,
        )
    # Ann takes off third, Ada first: the labels are the order they were written in, not the queue.
    assert labels(game) == {game.order_id("A", p): label for p, label in (("Ann", "A1"), ("Ada", "A2"), ("Abe", "A3"))}


def test_a_label_stays_when_other_orders_come_and_go() -> None:
    game = started_game()
    defenders(game)
    game.do("team:A", type="add_order", team="A", pilot="Ann", kind="fighter", ship="A", corridor="middle", position=2)
    ann = game.order_id("A", "Ann")
    game.do("team:A", type="add_order", team="A", pilot="Ada", kind="fighter", ship="A", corridor="middle")
    ada = game.order_id("A", "Ada")
    assert labels(game) == {ann: "A1", ada: "A2"}
    game.do("team:A", type="remove_order", order=ada)
    game.do("team:A", type="add_order", team="A", pilot="Abe", kind="fighter", ship="A", corridor="upper")
    assert labels(game)[ann] == "A1"
    assert labels(game)[game.order_id("A", "Abe")] == "A3", "a removed order's number is not given again"


def test_refusals_name_the_planes_by_their_labels() -> None:
    game = started_game()
    defenders(game)
    a, b = three_corridors(game, "A"), three_corridors(game, "B")
    game.ref(type="start_round")
    with pytest.raises(IllegalAction, match="A2 flies the middle corridor and B3 the lower: they never meet"):
        game.ref(type="report_dogfight", a=a["middle"], b=b["lower"], throws=[win("A")])
    with pytest.raises(IllegalAction, match="A3 flies the lower corridor and B2 the middle"):
        game.ref(type="report_dogfight", a=a["lower"], b=b["middle"], throws=[win("A")])
    with pytest.raises(IllegalAction, match="A2 is a fighter: fighters do not bomb"):
        game.ref(type="announce_bombing", order=a["middle"])


def test_notes_and_views_name_the_planes_by_their_labels() -> None:
    game = started_game()
    defenders(game)
    a, b = three_corridors(game, "A"), three_corridors(game, "B")
    game.ref(type="start_round")
    pilot = Role("pilot", a["middle"])
    opponent = airraid.view_for(game.state, pilot, game.clock)["next"]["opponent"]
    assert opponent == {"label": "B2", "kind": "fighter", "team": "B"}
    game.ref(type="report_dogfight", a=a["middle"], b=b["middle"], throws=[win("A")])
    notes = game.state.notes[game.state.version]
    dogfight = next(n for n in notes if n["type"] == "dogfight")
    assert (dogfight["a_label"], dogfight["b_label"]) == ("A2", "B2")
    assert next(n for n in notes if n["type"] == "shot_down")["label"] == "B2"
    assert next(n for n in notes if n["type"] == "through")["label"] == "A2"
    ref = airraid.view_for(game.state, REFEREE, game.clock)
    assert sorted(o["label"] for o in ref["orders"]) == ["A1", "A2", "A3", "B1", "B2", "B3"]
    assert [(d["a_label"], d["b_label"]) for d in ref["duels"]] == [("A2", "B2")]
    middle = next(c for c in ref["corridors"] if c["corridor"] == "middle")
    assert [o["label"] for o in middle["a"] + middle["b"]] == ["A2", "B2"]
    team = airraid.view_for(game.state, Role("team", "A"), game.clock)
    assert sorted(o["label"] for o in team["orders"]) == ["A1", "A2", "A3"]
    assert sorted(s["label"] for s in airraid.slip_rows(game.state, REFEREE, 1)) == ["A1", "A2", "A3", "B1", "B2", "B3"]


def test_the_defender_sees_each_bomber_at_its_base_by_its_own_label() -> None:
    game = started_game()
    defenders(game)
    for pilot, corridor, ship, target in (
        ("Ann", "upper", "A", "C3"),
        ("Ada", "middle", "B", "E5"),
        ("Abe", "lower", "C", "G7"),
    ):
        game.do(
            "team:A",
            type="add_order",
            team="A",
            pilot=pilot,
            kind="bomber",
            ship=ship,
            corridor=corridor,
            target=target,
        )
    game.ref(type="start_round")  # B sends nobody: every bomber flies through to B's base
    waiting = airraid.view_for(game.state, Role("team", "B"), game.clock)["bombers_at_base"]
    assert sorted(w["label"] for w in waiting) == ["A1", "A2", "A3"]
    game.do("team:B", type="announce_bombing", order=game.order_id("A", "Ada"))
    assert next(n for n in game.state.notes[game.state.version] if n["type"] == "bombing")["label"] == "A2"


def test_labels_start_again_in_the_next_round() -> None:
    game = started_game()
    defenders(game)
    three_corridors(game, "A")
    game.ref(type="start_round")
    game.ref(type="end_round")
    defenders(game)
    game.do("team:A", type="add_order", team="A", pilot="Ada", kind="fighter", ship="B", corridor="middle")
    assert list(labels(game).values()) == ["A1"]


# --- Any ruleset, any orders -------------------------------------------------------------------

TEN = {t: [f"{t}{name}" for name in ("nn", "da", "be", "my", "li", "va", "ra", "ke", "ol", "ut")] for t in "AB"}


def crowded_game(corridors: int, limit: int) -> Game:
    """A game of ten a side on the 7×7 sea, with `corridors` corridors of `limit` planes each."""
    data = ruleset_data()
    data["corridors"] = {"names": [f"c{i}" for i in range(corridors)], "limit": limit}
    data["sea_sizes"] = [{**data["sea_sizes"][0], "players": [4, 10]}]
    state, events = airraid.create(
        {
            "type": "create_game",
            "ruleset": data,
            "teams": [{"name": "Eagles", "players": TEN["A"]}, {"name": "Sharks", "players": TEN["B"]}],
        },
        at=1000.0,
    )
    game = Game(state, events)
    for team in "AB":
        game.do(f"team:{team}", type="lock_sea", team=team, ships=ships_json(SEA_7))
    game.ref(type="start_game")
    game.do("team:A", type="set_defender", team="A", pilot=TEN["A"][-1])
    game.do("team:B", type="set_defender", team="B", pilot=TEN["B"][-1])
    return game


add = st.tuples(
    st.just("add"),
    st.sampled_from("AB"),
    st.integers(0, 5),  # the corridor, modulo the ruleset's count
    st.none() | st.integers(0, 4),  # the take-off position modulo the limit, or the first free one
    st.sampled_from(["fighter", "bomber"]),
)
remove = st.tuples(st.just("remove"), st.integers(0, 20))


def order_action(game: Game, team: str, corridor: int, position: int | None, kind: str) -> dict[str, Any]:
    """An order the rules take but for a full corridor or a taken position: a free pilot, a ship with planes."""
    rs, rnd = game.state.ruleset, game.state.round
    assert rnd is not None
    mine = [o for o in rnd.orders.values() if o.team == team]
    flying = {o.pilot for o in mine}
    pilot = next((p for p in TEN[team][:-1] if p not in flying), TEN[team][0])
    ship = min("ABCDE", key=lambda s: sum(1 for o in mine if o.ship == s and o.kind == kind))
    action: dict[str, Any] = {
        "type": "add_order",
        "team": team,
        "pilot": pilot,
        "kind": kind,
        "ship": ship,
        "corridor": rs.corridors[corridor % len(rs.corridors)],
    }
    if position is not None:
        action["position"] = position % rs.corridor_limit + 1
    if kind == "bomber":
        action["target"] = "C3"
    return action


@given(
    corridors=st.integers(1, 4),
    limit=st.integers(1, 4),
    steps=st.lists(add | remove, min_size=4, max_size=30),
)
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_labels_are_unique_in_a_round_and_never_change(corridors: int, limit: int, steps: list[Any]) -> None:
    game = crowded_game(corridors, limit)
    rs = game.state.ruleset
    given_labels: dict[str, str] = {}
    for step in steps:
        rnd = game.state.round
        assert rnd is not None
        try:
            if step[0] == "add":
                _, team, corridor, position, kind = step
                game.do(f"team:{team}", **order_action(game, team, corridor, position, kind))
            elif rnd.orders:
                game.do("referee", type="remove_order", order=sorted(rnd.orders)[step[1] % len(rnd.orders)])
        except IllegalAction as exc:
            # Only a full corridor, a taken position or a team with no pilot left refuses an order.
            assert any(w in str(exc) for w in ("corridor", "position", "already flies")), exc
            continue
        now = labels(game)
        # Unique among all orders of the round, short, and the same as when the order was written.
        assert len(set(now.values())) == len(now)
        for order_id, label in now.items():
            o = game.state.round.orders[order_id]
            assert label[0] == o.team and 1 <= int(label[1:]) <= len(steps) and len(label) <= 3
            assert given_labels.setdefault(order_id, label) == label
    # A replay of the log names every plane the same.
    replayed = airraid.replay(game.events)
    assert {o.id: o.label(rs) for o in replayed.round.orders.values()} == labels(game)
