"""Vestorsjø's views: everyone sees everything (no hidden information); the mover sees its legal actions and chances."""

from __future__ import annotations

import itertools
import json

from referee.rules import vestorsjo as v
from referee.rules.modes import GameMode, find_mode

from .vestorsjo_maps import Game, ruleset_data

KEYS = {
    "mode", "version", "role", "me", "ruleset", "dice", "sides", "board", "pieces", "turn", "round", "actions_used",
    "actions_left", "this_turn", "last_turn", "drags", "confirm_rolls", "pending", "taken", "rolls", "undone",
    "skipped", "outcome", "actions",
}  # fmt: skip


def test_every_role_sees_the_whole_board() -> None:
    g = Game()
    g.fire("scania.destroyer", "zealand.frigate-1", 6)
    views = {r: v.view_for(g.state, r, 0.0) for r in ("referee", "public", "player:scania", "player:zealand")}
    for view in views.values():
        assert set(view) == KEYS
        json.dumps(view)
        assert len(view["pieces"]) == 18
        assert view["rolls"][0]["pips"] == 6 and view["rolls"][0]["hits"] == 2
        assert view["board"]["terrain"][0] == "#P....P#"
    strip = {"role", "me", "actions"}
    assert (
        len({json.dumps({k: x for k, x in view.items() if k not in strip}, sort_keys=True) for view in views.values()})
        == 1
    )
    frigate = next(p for p in views["public"]["pieces"] if p["id"] == "zealand.frigate-1")
    assert (frigate["hits"], frigate["defence"], frigate["sunk"], frigate["class"]) == (2, 2, True, "frigate")
    destroyer = next(p for p in views["public"]["pieces"] if p["id"] == "scania.destroyer")
    assert destroyer["done"] == ["fire"] and destroyer["in_port"] == ["Lanskròna"]
    assert views["public"]["actions_left"] == 3 and views["public"]["turn"] == "scania"
    assert views["player:zealand"]["actions"] == [{"type": "surrender", "side": "zealand"}]


def test_targets_carry_their_hit_chance_from_the_table() -> None:
    g = Game()
    fire = next(
        a for a in v.legal_actions(g.state, "player:scania") if a["type"] == "fire" and a["piece"] == "scania.destroyer"
    )
    frigate = next(t for t in fire["targets"] if t["target"] == "zealand.frigate-1")
    # G5 to C5: range 4, undamaged destroyer "- - - 1 1 2": 3 faces hit, 4 hits in all.
    assert (frigate["distance"], frigate["row"], frigate["chance"], frigate["expected"]) == (
        4,
        [0, 0, 0, 1, 1, 2],
        0.5,
        0.6667,
    )
    assert all(t["target"].startswith("zealand.") for t in fire["targets"])


def test_legal_actions_are_accepted() -> None:
    """Every action legal_actions offers is accepted by its handler (the other way: the property test)."""
    g = Game()
    for action in v.actions_for(g.state, "player:scania"):
        v.apply(g.state, action, at=1, by="player:scania", seed=3)
    for action in v.actions_for(g.state, "referee"):
        v.apply(g.state, action, at=1, by="referee", seed=3)


def test_the_package_is_a_game_mode() -> None:
    """The package's `GAME` is its whole mode definition, registered under its name."""
    mode: GameMode = v.GAME
    assert find_mode("vestorsjo") is mode
    assert mode.name == "vestorsjo" and {"fire", "attack_submarine", "computer_move"} == mode.chance
    assert set(mode.action_schemas) == set(v.HANDLERS)
    g = Game()
    assert mode.outcome(g.state) is None and mode.next_deadline(g.state) is None and mode.automatic(g.state) is None
    assert {r.to_str() for r in mode.audiences(g.state)} == {"referee", "public", "player:scania", "player:zealand"}
    rs = mode.read_ruleset(ruleset_data())
    assert rs.summary().startswith("Vestorsjø (vestorsjo): map oresund; Scania first")


def test_the_drag_that_ended_last_is_in_the_view() -> None:
    """After the hand-over (or the computer's drag) the side to move sees what the other side did."""
    g = Game()
    start = g.piece("scania.frigate-1").place
    to = sorted(v.move_targets(g.state, g.piece("scania.frigate-1")))[0]
    g.move("scania.frigate-1", to)
    g.fire("scania.destroyer", "zealand.frigate-1", 6)
    now = v.view_for(g.state, "player:scania", 0.0)
    assert [a["kind"] for a in now["this_turn"]] == ["move", "fire"] and now["last_turn"] == []
    g.end()
    seen = v.view_for(g.state, "player:zealand", 0.0)
    assert seen["this_turn"] == []
    move, shot = seen["last_turn"]
    assert (move["kind"], move["piece"], move["origin"], move["to"]) == ("move", "scania.frigate-1", start, to)
    assert (shot["kind"], shot["piece"], shot["to"]) == ("fire", "scania.destroyer", "zealand.frigate-1")
    assert shot["seq"] == seen["rolls"][-1]["seq"]
    # Zealand passed: what Scania sees of its drag is that nothing was done.
    g.end()
    assert v.view_for(g.state, "player:scania", 0.0)["last_turn"] == []


def test_players_can_step_back_through_the_drags_kept() -> None:
    """The view keeps the last DRAGS_KEPT drags that ended, oldest first, each with whose and which round."""
    g = Game()
    frigate = g.piece("scania.frigate-1")
    start = frigate.place
    target = g.piece("zealand.frigate-1").place
    g.fire("scania.destroyer", "zealand.frigate-1", 1)
    shooter_place = g.piece("scania.destroyer").place
    to = sorted(v.move_targets(g.state, frigate))[0]
    g.move("scania.frigate-1", to)
    g.end()
    first = v.view_for(g.state, "public", 0.0)["drags"]
    assert [(d["round"], d["side"]) for d in first] == [(1, "scania")]
    shot, move = first[0]["acts"]
    # A shot keeps where the shooter and the target stood, so an old drag is drawn where it happened.
    assert (shot["kind"], shot["origin"], shot["to"], shot["at"]) == (
        "fire",
        shooter_place,
        "zealand.frigate-1",
        target,
    )
    assert (move["origin"], move["to"]) == (start, to)
    for _ in range(2 * v.DRAGS_KEPT + 3):
        g.end()
    view = v.view_for(g.state, "public", 0.0)
    drags = view["drags"]
    assert len(drags) == v.DRAGS_KEPT
    assert drags[-1]["acts"] == view["last_turn"]
    sides = [d["side"] for d in drags]
    assert all(a != b for a, b in itertools.pairwise(sides))  # the sides alternate
    rounds = [d["round"] for d in drags]
    assert rounds == sorted(rounds) and rounds[-1] - rounds[0] == v.DRAGS_KEPT // 2 - 1 + (sides[0] == "zealand")
    assert drags[-1]["side"] == ("scania" if view["turn"] == "zealand" else "zealand")
