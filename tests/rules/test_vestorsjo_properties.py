"""Vestorsjø property tests: random legal games (random legal actions, server dice), checked against
independent oracles: never two pieces in one place, never a move through an enemy, the action budget
kept, replay equal to the live game, undo equal to never having moved, and legal_actions agreeing
with what the handlers accept."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import vestorsjo as v
from referee.rules.errors import RulesError
from referee.rules.events import encode
from referee.rules.vestorsjo.hexes import Edge, Hex, Vertex

from ..speed import examples
from .vestorsjo_maps import SMALL, Game

SEEDS = st.integers(0, 2**32 - 1)
TERRAIN = SMALL["map"]["terrain"]
PORTS = {p["hex"]: p for p in SMALL["ports"]}
PIER_EDGES = set(SMALL["piers"]["edges"])
PIER_VERTICES = set(SMALL["piers"]["vertices"])
FORTS = {p["hex"] for p in SMALL["ports"] if p["fort"]}
DEPTH = {"corvette": 0, "frigate": 1, "destroyer": 2}


def _terrain(h: Hex) -> str:
    if not (0 <= h.row < len(TERRAIN) and 0 <= h.col < len(TERRAIN[0])):
        return "#"
    return str(TERRAIN[h.row][h.col])


def _ship_may_be(h: Hex, side: str, cls: str) -> bool:
    """The oracle of where a warship may be: sea, or a port deep enough, of the enemy's only a strategic one."""
    if _terrain(h) == ".":
        return True
    port = PORTS.get(h.format()) if _terrain(h) == "P" else None
    return bool(port) and (port["side"] == side or port["strategic"]) and DEPTH[port["depth"]] >= DEPTH[cls]  # type: ignore[index]


def _pier(a: Hex, b: Hex) -> bool:
    return Edge.of(a, b).format() in PIER_EDGES


def _ship_way(frm: Hex, to: Hex, side: str, cls: str, enemies: set[Hex], steps: int) -> bool:
    """The oracle of a ship's move: one step, or two through a hex neither land, nor enemy, nor across a pier."""
    if not _ship_may_be(to, side, cls):
        return False
    d = frm.distance(to)
    if d == 1 and not _pier(frm, to):
        return True
    if d <= 2 and steps >= 2:  # two steps, round a pier too
        middles = set(frm.neighbours()) & set(to.neighbours())
        return any(
            _ship_may_be(m, side, cls) and m not in enemies and not _pier(frm, m) and not _pier(m, to) for m in middles
        )
    return False


def _corner_open(w: Vertex) -> bool:
    if not all(0 <= h.row < len(TERRAIN) and 0 <= h.col < len(TERRAIN[0]) for h in w.hexes):
        return False
    on = True
    sea = any(_terrain(h) == "." for h in w.hexes)
    pier = w.format() in PIER_VERTICES and not any(h.format() in FORTS for h in w.hexes)
    return on and sea and not pier


def _side_open(e: Edge) -> bool:
    sea = any(_terrain(h) == "." for h in e.hexes)
    pier = e.format() in PIER_EDGES and not any(h.format() in FORTS for h in e.hexes)
    return sea and not pier


def _sub_way(frm: Vertex, to: Vertex, enemies: set[Vertex]) -> bool:
    if not _corner_open(to):
        return False
    for edge, w in frm.steps():
        if w == to and _side_open(edge):
            return True
        if w in enemies or not _corner_open(w) or not _side_open(edge):
            continue
        if any(x == to and _side_open(e2) for e2, x in w.steps()):
            return True
    return False


def _check_places(state: v.State) -> None:
    places = [p.place for p in state.pieces.values() if not p.removed]
    assert len(places) == len(set(places)), places


def _check_budget(state: v.State) -> None:
    assert len(state.acts) <= state.ruleset.actions_per_turn
    for piece in state.pieces.values():
        assert len(piece.done) == len(set(piece.done)), piece
        assert not piece.done or piece.side == state.turn


def _check_move(before: v.State, action: dict[str, Any]) -> None:
    piece = before.pieces[action["piece"]]
    enemies = {p.place for p in before.pieces.values() if p.side != piece.side and not p.removed}
    steps = v.moves.steps_of(before, piece)
    if piece.submarine:
        assert _sub_way(piece.vertex(), Vertex.parse(action["to"]), {Vertex.parse(e) for e in enemies if "/" in e})
    else:
        enemy_hexes = {Hex.parse(e) for e in enemies if "/" not in e}
        assert _ship_way(piece.hex(), Hex.parse(action["to"]), piece.side, piece.cls, enemy_hexes, steps), action


def _comparable(state: v.State) -> Any:
    """What two games played alike must share (sequence numbers aside: undo leaves gaps)."""
    rolls = [{k: val for k, val in encode(r).items() if k != "seq"} for r in state.rolls]
    ending = (state.outcome.winner, state.outcome.reason) if state.outcome else None
    return encode(state.pieces), state.turn, state.round, state.held, state.taken, rolls, len(state.acts), ending


def _candidate(state: v.State, rng: random.Random) -> dict[str, Any]:
    """An action made up at random (legal or not), to compare legal_actions with the handlers."""
    mine = [p for p in state.pieces.values() if p.side == state.turn]
    theirs = [p for p in state.pieces.values() if p.side != state.turn]
    piece = rng.choice(mine)
    kind = rng.choice(["move", "fire", "attack_submarine"])
    if kind == "move":
        if piece.submarine:
            around = [w for x in piece.vertex().neighbours() for w in (x, *x.neighbours())]
            named = [w for w in around if all(h.row >= 0 and h.col >= 0 for h in w.hexes)]
            to = rng.choice(named).format()
        else:
            ring = [h for n in piece.hex().neighbours() for h in (n, *n.neighbours()) if h.row >= 0 and h.col >= 0]
            to = rng.choice(ring).format()
        return {"type": "move", "piece": piece.id, "to": to}
    return {"type": kind, "piece": piece.id, "target": rng.choice(theirs).id}


def play(seed: int, steps: int = 120) -> Game:
    """Play a random legal game, checking every step; return it."""
    rng = random.Random(seed)
    g = Game()
    played: list[tuple[str, dict[str, Any], int]] = []  # the actions in force, for the undo oracle
    for _ in range(steps):
        state = g.state
        if state.outcome is not None:
            break
        role = f"player:{state.turn}"
        options = v.actions_for(state, role)
        listed = {tuple(sorted(a.items())) for a in options}
        # legal_actions and the handlers agree, both ways, on a made-up action.
        probe = _candidate(state, rng)
        try:
            v.apply(state, probe, at=0, by=role, seed=1)
            accepted = True
        except RulesError:
            accepted = False
        assert accepted == (tuple(sorted(probe.items())) in listed), (probe, accepted)
        roll = rng.random()
        undo = [a for a in options if a["type"] == "undo"]
        if undo and roll < 0.15:
            action = undo[0]
        elif roll < 0.3 or len(options) == 1:
            action = {"type": "end_turn"}
        else:
            action = rng.choice([a for a in options if a["type"] not in ("end_turn", "undo")] or options)
        dice = rng.randrange(2**32)
        before = g.state
        if action["type"] == "move":
            _check_move(before, action)
        g.state, events = v.apply(before, action, at=float(len(g.events)), by=role, seed=dice)
        g.events.extend(events)
        if action["type"] == "undo":
            played.pop()
        else:
            played.append((role, action, dice))
        _check_places(g.state)
        _check_budget(g.state)
    # Replay gives the live game; so does a snapshot.
    assert v.state_to_dict(v.replay(g.events)) == v.state_to_dict(g.state)
    assert v.state_to_dict(v.state_from_dict(v.state_to_dict(g.state))) == v.state_to_dict(g.state)
    # Undo is as if the move had never been made: the actions in force, played afresh, give the same game.
    fresh = Game()
    for role, action, dice in played:
        fresh.state, _ = v.apply(fresh.state, action, at=0, by=role, seed=dice)
    assert _comparable(fresh.state) == _comparable(g.state)
    return g


@given(seed=SEEDS)
@settings(max_examples=examples(15), deadline=None)
def test_random_legal_games_keep_every_rule(seed: int) -> None:
    play(seed)


def test_a_long_random_game_ends_or_goes_on_legally() -> None:
    g = play(7, steps=600)
    assert g.state.round > 3


def test_views_are_json_and_list_the_chances() -> None:
    g = play(11, steps=40)
    for role in ("referee", "public", "player:scania", "player:zealand"):
        view = v.view_for(g.state, role, 0)
        json.dumps(view)
        for entry in view["actions"]:
            for target in entry.get("targets", []):
                assert 0 <= target["chance"] <= 1 and target["expected"] >= 0
