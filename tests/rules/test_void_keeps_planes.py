"""A void recomputes the game as if that one event never happened, and changes nothing else.

Order ids are given once and never reused; every stored event names the order it was recorded
against (a new order's id and take-off position, the bomber an announcement by square was matched
to), so that after a void the other events still apply to the same planes.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import airraid
from referee.rules.errors import MalformedAction, RulesError
from referee.rules.events import Role

from ..airraid_helpers import Game, new_game, started_game, win
from ..speed import examples
from .test_airraid_properties import bot_action

PLAYERS_4 = {"A": ["Ann", "Ada", "Abe", "Amy"], "B": ["Bob", "Bea", "Ben", "Bo"]}


def seq_of(game: Game, kind: str, **data: Any) -> int:
    """The seq of the event of a kind whose data has these values."""
    return next(e.seq for e in game.events if e.kind == kind and all(e.data.get(k) == v for k, v in data.items()))


def orders(state: airraid.State) -> dict[str, tuple[Any, ...]]:
    """Every order of every round by id: who flies what, where, at what."""
    return {
        o.id: (o.round, o.team, o.pilot, o.kind, o.ship, o.corridor, o.position, o.target)
        for r in state.rounds
        for o in r.orders.values()
    }


def ship_with(game: Game, team: str, kind: str) -> str:
    """A ship of the team that still has a plane of that kind to send."""
    return next(s["ship"] for s in airraid.order_options(game.state, team)["ships"] if s[kind] > 0)


def send(game: Game, team: str, pilot: str, kind: str, corridor: str, **more: Any) -> None:
    game.do(
        f"team:{team}",
        type="add_order",
        team=team,
        pilot=pilot,
        kind=kind,
        ship=ship_with(game, team, kind),
        corridor=corridor,
        **more,
    )


def three_orders_of_a() -> Game:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Ann")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    for pilot in ("Ada", "Abe", "Amy"):
        send(game, "A", pilot, "fighter", "upper")
    return game


def test_voiding_an_order_leaves_the_later_orders_their_ids() -> None:
    game = three_orders_of_a()
    before = orders(game.state)
    assert [before[i][2] for i in ("1A1", "1A2", "1A3")] == ["Ada", "Abe", "Amy"]
    game.ref(type="void", seq=seq_of(game, "add_order", pilot="Ada"), reason="Ada is not here")
    after = orders(game.state)
    # Abe's slip (1A2) still opens Abe's order, Amy's (1A3) Amy's; Ada's is gone.
    assert after == {k: v for k, v in before.items() if k != "1A1"}
    ada = airraid.view_for(game.state, Role("pilot", "1A1"), now=game.clock) if "1A1" in after else None
    assert ada is None


def test_an_id_is_never_given_twice_even_after_a_void() -> None:
    game = three_orders_of_a()
    game.ref(type="void", seq=seq_of(game, "add_order", pilot="Amy"), reason="wrong pilot")
    send(game, "A", "Amy", "fighter", "middle")
    new = game.order_id("A", "Amy")
    assert new not in ("1A1", "1A2", "1A3"), new
    # The old slip of 1A3 does not open the new order: it says that order no longer exists.
    try:
        airraid.view_for(game.state, Role("pilot", "1A3"), now=game.clock)
    except RulesError as exc:
        assert "no longer exists" in exc.message
    else:
        raise AssertionError("the voided order's slip still opens an order")
    # A replay of the log gives the same ids.
    assert orders(airraid.replay(game.events)) == orders(game.state)


def test_a_void_does_not_move_a_trophy_to_another_pilot() -> None:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Ann")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    send(game, "A", "Ada", "fighter", "middle")
    send(game, "A", "Abe", "fighter", "upper")
    send(game, "A", "Amy", "fighter", "lower")
    send(game, "B", "Bea", "fighter", "upper")
    game.ref(type="start_round")
    abe, bea = game.order_id("A", "Abe"), game.order_id("B", "Bea")
    game.ref(type="report_dogfight", a=abe, b=bea, throws=[win("A")])
    assert [(t.holder, t.order) for t in game.state.trophies] == [("Abe", bea)]
    game.ref(type="void", seq=seq_of(game, "add_order", pilot="Ada"), reason="Ada stayed home")
    # Abe shot Bea down, and still holds the trophy; Amy holds none.
    assert [(t.holder, t.order) for t in game.state.trophies] == [("Abe", bea)]
    assert game.state.round is not None and game.state.round.orders[abe].pilot == "Abe"


def test_an_announcement_by_square_stays_with_the_bomber_it_was_matched_to() -> None:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    send(game, "A", "Abe", "fighter", "lower")
    send(game, "B", "Bob", "bomber", "lower", target="C4")
    send(game, "B", "Bea", "bomber", "middle", target="C4")
    game.ref(type="start_round")
    bob, bea = game.order_id("B", "Bob"), game.order_id("B", "Bea")
    # Abe holds Bob in the lower corridor; Bea flew through the middle and stands at A's base.
    game.do("team:A", type="announce_bombing", target="C4")
    game.do("team:A", type="report_bombing", order=bea, throws=[{"winner": "bomber"}])
    hit = airraid.state_to_dict(game.state)["teams"]["A"]["hits"]
    assert hit, "Bea's bomb hit C4"
    announced = game.events[-2]
    assert announced.kind == "announce_bombing" and announced.data.get("order") == bea
    # Abe never flew: voiding his order lets Bob through the lower corridor too. The announcement
    # stays Bea's; Bob waits at the base, unannounced, and the hit stands.
    game.ref(type="void", seq=seq_of(game, "add_order", pilot="Abe"), reason="Abe was not on the list")
    rnd = game.state.round
    assert rnd is not None
    assert set(rnd.bombings) == {bea} and rnd.bombings[bea].result == "hit"
    assert rnd.orders[bob].status == "bombing"
    assert airraid.state_to_dict(game.state)["teams"]["A"]["hits"] == hit
    assert not game.state.skipped, game.state.skipped


def test_an_action_may_not_choose_an_orders_id() -> None:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Ann")
    try:
        send(game, "A", "Ada", "fighter", "upper", id="1B1")
    except MalformedAction as exc:
        assert "id" in exc.message
    else:
        raise AssertionError("an action chose its order's id")


# --- The property: void any one event of a random game ------------------------------------------

DIRECT = {"order_added", "order_removed", "reported", "conflict", "dogfight", "bombing", "bombing_result"}
"""Narration notes that say which planes an event itself acted on (not its consequences)."""


def planes_of(state: airraid.State, seq: int) -> set[tuple[str, str]]:
    return {
        (k, str(n[k])) for n in state.notes.get(seq, []) if n["type"] in DIRECT for k in ("order", "a", "b") if k in n
    }


def random_game(seed: int, steps: int) -> Game:
    """A random game with no voids; some bombings are announced by their target square."""
    game = Game(*new_game(PLAYERS_4))
    rng = random.Random(seed)
    for _ in range(steps):
        if game.state.phase == "over":
            break
        picked = bot_action(game.state, rng, void_rate=0.0)
        if picked is None:
            break
        by, action = picked
        if action["type"] == "announce_bombing" and rng.random() < 0.5:
            rnd = game.state.round
            assert rnd is not None
            bomber = rnd.orders[action.pop("order")]
            assert bomber.target is not None
            action["target"] = game.state.grid(airraid.other(bomber.team)).square_name(bomber.target)
        try:
            game.do(by, **action)
        except RulesError:
            continue
    return game


@given(seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 10**6))
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_voiding_any_one_event_leaves_the_others_on_their_planes(seed: int, pick: int) -> None:
    game = random_game(seed, steps=120)
    before = game.state
    target = 2 + pick % (before.version - 1)
    try:
        game.ref(type="void", seq=target, reason="property")
    except RulesError:
        return  # nothing to void there (an event already void)
    after = game.state
    # An order keeps its id, pilot, corridor, position and target; only a voided one may go.
    kept = orders(after)
    for order_id, fields in kept.items():
        assert orders(before).get(order_id, fields) == fields, order_id
    for event in before.log[1:]:
        if event.seq == target or event.kind == "void":
            continue
        if event.seq in after.skipped:
            assert after.skipped[event.seq], f"event {event.seq} skipped without a reason"
            continue
        assert planes_of(after, event.seq) == planes_of(before, event.seq), (event.seq, event.kind, event.data)
