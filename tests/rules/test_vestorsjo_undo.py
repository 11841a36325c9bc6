"""Vestorsjø undo: moves of the turn may be taken back, latest first, until a die was rolled, at most
`UNDOS_PER_TURN` a turn; the state and the view keep only the turn's undos."""

from __future__ import annotations

import json

from referee.rules import vestorsjo as v
from referee.rules.errors import IllegalAction, MalformedAction, Msg, NotYourTurn
from referee.rules.events import Role

from .vestorsjo_maps import Game


def _board(state: v.State) -> object:
    return [(p.id, p.place, p.hits, list(p.done)) for p in state.pieces.values()], len(state.acts)


def test_undo_a_move() -> None:
    g = Game()
    before = _board(g.state)
    g.move("scania.corvette-1", "F3")
    assert g.state.actions_left() == 3
    offered = [a for a in v.legal_actions(g.state, "player:scania") if a["type"] == "undo"]
    assert offered == [{"type": "undo", "seq": 2}]
    g.act({"type": "undo"})
    assert _board(g.state) == before and g.state.actions_left() == 4
    assert g.events[-1].data == {"seq": 2} and g.state.undone == {2: 3}
    g.move("scania.corvette-1", "E3")  # the piece may move again
    assert v.state_to_dict(v.replay(g.events)) == v.state_to_dict(g.state)


def test_undo_moves_latest_first_but_never_past_a_roll() -> None:
    g = Game()
    g.move("scania.corvette-1", "F3")
    g.fire("scania.destroyer", "zealand.frigate-1", 1)
    g.move("scania.corvette-2", "D7")
    g.move("scania.corvette-3", "E7")
    g.act({"type": "undo"})
    g.act({"type": "undo"})
    assert g.piece("scania.corvette-2").place == "E6" and g.piece("scania.corvette-3").place == "F7"
    refusal = g.refused({"type": "undo"})
    assert "no undo past a roll" in str(refusal)
    assert g.piece("scania.corvette-1").place == "F3"
    assert not any(a["type"] == "undo" for a in v.legal_actions(g.state, "player:scania"))


def test_nothing_to_undo_and_not_the_other_turn() -> None:
    g = Game()
    assert "nothing to undo" in str(g.refused({"type": "undo"}))
    g.move("scania.corvette-1", "F3")
    g.end()
    assert "nothing to undo" in str(g.refused({"type": "undo"}))  # the turn is over: its moves stand
    g.move("zealand.corvette-2", "D6")
    assert isinstance(g.refused({"type": "undo"}, by="player:scania"), NotYourTurn)
    g.act({"type": "undo"}, by="referee")
    assert g.piece("zealand.corvette-2").place == "D5"


def test_an_undo_may_not_name_its_own_target() -> None:
    g = Game()
    g.move("scania.corvette-1", "F3")
    try:
        v.apply(g.state, {"type": "undo", "seq": 2}, at=9, by="player:scania")
    except MalformedAction as exc:
        assert "seq" in str(exc)
    else:
        raise AssertionError("an undo that names its target was accepted")


# --- Bounded growth: a turn's undos are the turn's, and a turn may take back only so many ----------


def _without_the_clock(view: dict[str, object]) -> dict[str, object]:
    """A view without what moves on with every event (its version and round)."""
    return {k: x for k, x in view.items() if k not in ("version", "round")}


def test_a_turns_undos_leave_the_state_and_the_view_when_the_turn_ends() -> None:
    g = Game()
    for _ in range(3):
        g.move("scania.corvette-1", "F3")
        g.act({"type": "undo"})
    assert g.state.undone == {2: 3, 4: 5, 6: 7}
    assert v.view_for(g.state, "public", 0)["undone"] == [2, 4, 6]
    g.move("scania.corvette-1", "F3")
    g.end()
    # The move stands; what was taken back is only in the log now.
    assert g.state.undone == {} and v.view_for(g.state, "public", 0)["undone"] == []
    assert [e.kind for e in g.events].count("undo") == 3
    g.move("zealand.corvette-2", "D6")
    g.act({"type": "undo"})
    assert v.view_for(g.state, "player:zealand", 0)["undone"] == [10]
    assert v.state_to_dict(v.replay(g.events)) == v.state_to_dict(g.state)


def test_the_view_does_not_grow_with_the_undos_of_turns_past() -> None:
    """2,000 move-and-undo pairs, twenty a turn: the view at a turn's start is the view of a fresh game."""
    g = Game()
    fresh = v.view_for(g.state, "player:scania", 0)
    for _ in range(100):
        for _ in range(20):
            g.move("scania.corvette-1", "F3")
            g.act({"type": "undo"})
        g.end()
        g.end()
    assert g.state.version == 1 + 100 * 42
    later = v.view_for(g.state, "player:scania", 0)
    # The drags kept to step back through are bounded, and hold nothing of the moves taken back.
    drags = later.pop("drags")
    assert len(drags) == v.DRAGS_KEPT and all(d["acts"] == [] for d in drags)
    fresh.pop("drags")
    assert _without_the_clock(later) == _without_the_clock(fresh)
    assert len(json.dumps(later)) - len(json.dumps(fresh)) < 10  # the version's and round's digits
    assert v.GAME.snapshot_to_dict(g.state)["undone"] == {}


def test_a_turn_takes_back_at_most_so_many_moves_then_plays_on() -> None:
    g = Game()
    for _ in range(v.UNDOS_PER_TURN):
        g.move("scania.corvette-1", "F3")
        g.act({"type": "undo"})
    g.move("scania.corvette-1", "F3")
    refusal = g.refused({"type": "undo"})
    assert isinstance(refusal, IllegalAction) and not isinstance(refusal, NotYourTurn)
    assert str(refusal) == (
        "no more undo this turn: 100 moves were taken back already, the most one turn allows;"
        " play on from here, or end the turn"
    )
    assert isinstance(refusal.message, Msg) and refusal.message.params == {"count": v.UNDOS_PER_TURN}
    assert v.undo_problem(g.state, Role("referee")) is not None  # the referee is bound alike
    kinds = {a["type"] for a in v.legal_actions(g.state, "player:scania")}
    assert "undo" not in kinds and {"move", "end_turn"} <= kinds
    # The move stands; the turn's other actions are still the player's.
    assert g.piece("scania.corvette-1").place == "F3"
    g.move("scania.corvette-2", "D7")
    g.end()
    # One turn of one side holds at most its actions, the moves taken back and their undos, and its end.
    assert len(g.events[1:]) == 2 * v.UNDOS_PER_TURN + 2 + 1
    # The next turn may take back moves again, from none.
    g.move("zealand.corvette-2", "D6")
    g.act({"type": "undo"})
    assert g.piece("zealand.corvette-2").place == "D5"
