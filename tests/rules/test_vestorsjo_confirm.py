"""Vestorsjø on two devices with our own dice: the shooter's enemy confirms each die entered by hand."""

from __future__ import annotations

import pytest

from referee.rules import vestorsjo as v
from referee.rules.errors import IllegalAction, MalformedAction, NotYourTurn

from .vestorsjo_maps import Game

SHOT = ("scania.destroyer", "zealand.frigate-1")


def kinds(state: v.State, role: str) -> list[str]:
    return [a["type"] for a in v.legal_actions(state, role)]


def test_a_die_waits_for_the_enemy_and_hits_once_confirmed() -> None:
    g = Game(dice="physical", confirm_rolls=True)
    g.fire(*SHOT, 6)
    frigate = g.piece("zealand.frigate-1")
    assert frigate.hits == 0 and g.state.rolls == []
    assert g.state.pending is not None and g.state.pending.pips == 6
    view = v.view_for(g.state, "player:zealand", 0.0)
    assert view["pending"] == {"seq": 2, "kind": "fire", "piece": SHOT[0], "target": SHOT[1], "pips": 6}
    # The shot counts as Scania's action; Scania may do nothing else (but surrender) meanwhile.
    assert view["actions_left"] == 3
    assert kinds(g.state, "player:scania") == ["surrender"]
    assert kinds(g.state, "player:zealand") == ["confirm_roll", "dispute_roll", "surrender"]
    for action in ({"type": "end_turn"}, {"type": "move", "piece": "scania.frigate-1", "to": "E5"}):
        refusal = g.refused(action)
        assert isinstance(refusal, IllegalAction) and "Zealand confirms the die first" in str(refusal)
    assert isinstance(g.refused({"type": "confirm_roll"}), NotYourTurn)  # not the shooter
    g.act({"type": "confirm_roll"}, by="player:zealand")
    assert g.state.pending is None and g.piece("zealand.frigate-1").hits == 2 and g.piece("zealand.frigate-1").sunk
    roll = g.state.rolls[-1]
    assert (roll.seq, roll.pips, roll.hits, roll.physical) == (2, 6, 2, True)
    assert isinstance(g.refused({"type": "confirm_roll"}, by="player:zealand"), IllegalAction)
    g.end()


def test_a_disputed_die_takes_the_shot_back_to_be_thrown_again() -> None:
    g = Game(dice="physical", confirm_rolls=True)
    g.fire(*SHOT, 6)
    g.act({"type": "dispute_roll"}, by="player:zealand")
    assert g.state.pending is None and g.state.rolls == [] and g.state.acts == []
    assert "fire" not in g.piece(SHOT[0]).done and g.piece(SHOT[1]).hits == 0
    g.fire(*SHOT, 2)  # thrown again: range 5 with a two is a miss
    g.act({"type": "confirm_roll"}, by="referee")
    assert g.state.rolls[-1].pips == 2 and g.state.rolls[-1].hits == 0


def test_confirmation_is_for_dice_thrown_by_hand_only() -> None:
    with pytest.raises(IllegalAction, match="needs our own dice"):
        Game(confirm_rolls=True)
    g = Game(dice="physical")
    g.fire(*SHOT, 6)  # one device: no confirmation
    assert g.state.pending is None and g.piece(SHOT[1]).sunk
    assert isinstance(g.refused({"type": "confirm_roll"}, by="player:zealand"), IllegalAction)


def test_confirm_rolls_is_true_or_false() -> None:
    from .vestorsjo_maps import ruleset_data, small_map

    action = {"type": "create_game", "ruleset": ruleset_data(), "map": small_map(), "dice": "physical"}
    with pytest.raises(MalformedAction, match="confirm_rolls must be true or false"):
        v.create({**action, "confirm_rolls": "yes"}, at=0.0, by="referee")


def test_a_waiting_die_survives_a_replay() -> None:
    g = Game(dice="physical", confirm_rolls=True)
    g.fire(*SHOT, 6)
    again = v.replay(g.events)
    assert again.pending == g.state.pending and again.confirm_rolls
    assert v.state_from_dict(v.state_to_dict(g.state)).pending == g.state.pending
