"""Vestorsjø undo: moves of the turn may be taken back, latest first, until a die was rolled."""

from __future__ import annotations

from referee.rules import vestorsjo as v
from referee.rules.errors import MalformedAction, NotYourTurn

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
