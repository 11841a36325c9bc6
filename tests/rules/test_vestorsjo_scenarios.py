"""Vestorsjø scenario games on the small map: holding ports, a hold broken, the last salvo of a sunk
destroyer, a draw by both sides holding, surrender, and every piece sunk with and without a port taken."""

from __future__ import annotations

from typing import Any

from referee.rules import vestorsjo as v
from referee.rules.vestorsjo.hexes import Hex

from .vestorsjo_maps import Game, ruleset_data, small_map

# Scania's frigates next to Helsingør (B1) and København Nord (B5); Zealand's ships out of the way.
HOLDERS = {
    "scania.frigate-1": "C1",
    "scania.frigate-2": "C5",
    "zealand.frigate-1": "E8",
    "zealand.destroyer": "C8",
}


def _take_two_ports(g: Game) -> None:
    g.move("scania.frigate-1", "B1")
    g.move("scania.frigate-2", "B5")
    g.end()


def test_a_port_pair_held_four_rounds_wins() -> None:
    """Warships in two of the enemy's strategic ports for four rounds in a row win."""
    g = Game(HOLDERS)
    _take_two_ports(g)
    g.end()  # round 1 ends: both held once
    assert g.state.held["Helsingør"] == 1 and g.state.held["København Nord"] == 1 and g.state.taken["scania"]
    view = v.view_for(g.state, "public", 0)
    port = next(p for p in view["board"]["ports"] if p["name"] == "Helsingør")
    assert (port["holder"], port["held"], port["needed"]) == ("scania", 1, 4)
    g.rounds(2)
    assert g.state.held["Helsingør"] == 3 and v.outcome(g.state) is None
    g.end()
    assert v.outcome(g.state) is None  # Scania's turn of round 4 ends: the round is not over
    g.end()
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason, out.round) == ("scania", "ports", 4)
    assert "Scania held 2 enemy strategic ports for 4 rounds in a row" in out.detail


def test_a_hold_broken_in_the_third_round_starts_again() -> None:
    """ "Without a break": Zealand sinks the frigate in København Nord in round 3; its count starts from zero."""
    g = Game(HOLDERS, dice="physical")
    _take_two_ports(g)
    g.end()
    g.rounds(1)
    g.end()  # Scania's turn of round 3
    g.fire("zealand.destroyer", "scania.frigate-2", 6)  # C8 to B5: range 3, "- - 1 1 1 2" → 2 hits: sunk
    assert g.piece("scania.frigate-2").sunk
    g.end()  # round 3 ends: a sunk ship holds nothing
    assert g.state.held == {**g.state.held, "Helsingør": 3, "København Nord": 0}
    g.end()  # Scania's turn: the sunk frigate is removed at its end
    assert g.piece("scania.frigate-2").removed
    g.end()  # round 4 ends: only Helsingør is held, 4 rounds
    assert g.state.held["Helsingør"] == 4 and v.outcome(g.state) is None
    g.rounds(3)
    assert v.outcome(g.state) is None


def test_leaving_a_port_breaks_the_hold() -> None:
    g = Game(HOLDERS)
    _take_two_ports(g)
    g.end()
    g.rounds(1)
    g.move("scania.frigate-1", "C1")
    g.move("scania.frigate-2", "C5")  # out before the round ends …
    g.end()
    g.end()
    assert g.state.held["Helsingør"] == 0 and g.state.held["København Nord"] == 0
    assert g.state.taken["scania"]  # … but the ports were taken once


def test_the_last_salvo_of_a_sunk_destroyer_uses_its_old_damage() -> None:
    """A sunk destroyer stays through its side's next turn: no move, fire with the round before's damage; then gone."""
    g = Game(dice="physical")
    g.fire("scania.destroyer", "zealand.destroyer", 6)  # G5 to B5: range 5, "- - - - 1 2" → 2
    g.fire("scania.frigate-1", "zealand.destroyer", 6)  # F5 to B5: range 4, "- - - - - 1" → 1
    g.end()
    assert g.piece("zealand.destroyer").hits == 3
    g.fire("zealand.destroyer", "scania.destroyer", 6)  # the hits of Scania's turn do not count yet
    assert g.state.rolls[-1].damage == 0 and g.state.rolls[-1].hits == 2  # undamaged, range 5 → 2
    g.end()
    g.fire("scania.destroyer", "zealand.destroyer", 6)  # its own 2 hits came in Zealand's latest turn: still undamaged
    assert g.state.rolls[-1].damage == 0 and g.state.rolls[-1].hits == 2
    assert g.piece("zealand.destroyer").hits == 4 and g.piece("zealand.destroyer").sunk
    g.end()
    refusal = g.refused({"type": "move", "piece": "zealand.destroyer", "to": "C5"})
    assert "is sunk: it may fire in its last turn, but not move" in str(refusal)
    assert not any(
        a["type"] == "move" and a["piece"] == "zealand.destroyer" for a in v.legal_actions(g.state, "player:zealand")
    )
    offer = next(
        a
        for a in v.legal_actions(g.state, "player:zealand")
        if a["type"] == "fire" and a["piece"] == "zealand.destroyer"
    )
    shot = next(t for t in offer["targets"] if t["target"] == "scania.frigate-2")
    assert shot["damage"] == 3
    g.fire(
        "zealand.destroyer", "scania.frigate-2", 6
    )  # B5 to F6: range 5; hit three times "- - - - - 1" → 1 (undamaged: 2)
    roll = g.state.rolls[-1]
    assert (roll.damage, roll.distance, roll.hits) == (3, 5, 1)
    g.end()
    assert g.piece("zealand.destroyer").removed
    assert "sunk already" in str(
        g.refused({"type": "fire", "piece": "scania.destroyer", "target": "zealand.destroyer"}, pips=6)
    )
    assert "B5" not in {p.place for p in g.state.side_pieces("zealand")}
    g.end()
    g.fire("zealand.frigate-1", "scania.destroyer", 1)
    assert g.piece("scania.destroyer").before == 2  # Scania's own damage now counts for its next salvo


def _counted_at_round_end() -> dict[str, Any]:
    """The ruleset of a game stored before `holds_counted` was written: holds counted at each round's end."""
    data = ruleset_data()
    del data["play"]["holds_counted"]
    return data


def _enemy_turns_to_win(g: Game, holder: str) -> int:
    """Let both sides pass until `holder` wins by ports; return how many enemy turns its holds survived."""
    survived = 0
    while g.state.outcome is None:
        if g.state.turn != holder:
            survived += 1
        g.end()
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason) == (holder, "ports")
    return survived


def test_each_sides_hold_survives_four_enemy_turns() -> None:
    """The seed's "four rounds in a row" for both sides: a hold counts after each turn of the port's side.

    Scania moves first, so counted at the end of each round a Zealand hold taken in Zealand's turn
    would count at once, and win after only three Scania turns.
    """
    g = Game(HOLDERS)
    _take_two_ports(g)  # Scania's turn of round 1
    assert _enemy_turns_to_win(g, "scania") == 4
    start = {**HOLDERS, "scania.frigate-1": "D2", "scania.frigate-2": "D6"}
    start |= {"zealand.frigate-1": "F1", "zealand.frigate-2": "F8"}
    g = Game(start)
    g.end()  # Scania passes
    g.move("zealand.frigate-1", "G1")
    g.move("zealand.frigate-2", "G7")
    g.end()  # round 1 ends: taken, but no Scania turn survived yet
    assert g.state.held["Hælsengbór"] == 0 and g.state.held["Malme Nor"] == 0 and not g.state.taken["zealand"]
    g.end()  # Scania's turn of round 2: both holds survived it
    assert g.state.held["Hælsengbór"] == 1 and g.state.held["Malme Nor"] == 1 and g.state.taken["zealand"]
    port = next(p for p in v.view_for(g.state, "public", 0)["board"]["ports"] if p["name"] == "Malme Nor")
    assert (port["holder"], port["held"], port["needed"]) == ("zealand", 1, 4)
    assert _enemy_turns_to_win(g, "zealand") == 3  # and the one survived above: four
    out = v.outcome(g.state)
    assert out is not None and out.round == 5 and "Zealand held 2 enemy strategic ports for 4 rounds" in out.detail


def test_a_game_stored_before_the_choice_counts_at_each_rounds_end() -> None:
    """A stored ruleset that does not say how holds count replays as it was played: at each round's end."""
    start = {**HOLDERS, "scania.frigate-1": "D2", "scania.frigate-2": "D6"}
    start |= {"zealand.frigate-1": "F1", "zealand.frigate-2": "F8"}
    g = Game(start, ruleset=_counted_at_round_end())
    assert g.state.ruleset.holds_counted == "round_end"
    g.end()
    g.move("zealand.frigate-1", "G1")
    g.move("zealand.frigate-2", "G7")
    g.end()  # round 1 ends: counted at once
    assert g.state.held["Hælsengbór"] == 1 and g.state.held["Malme Nor"] == 1
    assert _enemy_turns_to_win(g, "zealand") == 3


def test_holds_counted_takes_only_its_two_ways() -> None:
    data = ruleset_data()
    data["play"]["holds_counted"] = "whenever"
    try:
        v.read_ruleset(data)
    except Exception as exc:  # noqa: BLE001 - the message is what is checked
        assert "play.holds_counted" in str(exc) and "enemy_turn, round_end" in str(exc)
    else:
        raise AssertionError("an unknown way of counting holds was read")


def test_both_sides_holding_is_a_draw() -> None:
    """If both sides achieve it, nobody wins (counted at each round's end: with each enemy turn, one side is first)."""
    start = {**HOLDERS, "zealand.frigate-1": "F1", "zealand.frigate-2": "F8"}
    g = Game(start, ruleset=_counted_at_round_end())
    _take_two_ports(g)
    g.move("zealand.frigate-1", "G1")
    g.move("zealand.frigate-2", "G7")
    g.end()
    assert g.state.held["Hælsengbór"] == 1 and g.state.held["Malme Nor"] == 1
    g.rounds(3)
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason) == (None, "draw-ports")


def test_surrender_in_a_game() -> None:
    g = Game(HOLDERS)
    _take_two_ports(g)
    g.act({"type": "surrender"}, by="player:scania")  # in Zealand's turn
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason) == ("zealand", "surrender")
    assert "Scania surrendered" in out.detail


# --- Every piece sunk, on a two-piece fleet ------------------------------------------------------


def _small_fleets(scania: dict[str, str], zealand: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    rs = ruleset_data()
    for cls, count in (("destroyer", 0), ("frigate", 1), ("corvette", 1), ("submarine", 0)):
        rs["classes"][cls]["count"] = count
    data = small_map()
    data["start"] = {"scania": scania, "zealand": zealand}
    return rs, data


def _duel(zealand_corvette: str = "C4") -> Game:
    rs, data = _small_fleets({"frigate": "D5", "corvette": "D4"}, {"frigate": "C5", "corvette": zealand_corvette})
    return Game(ruleset=rs, map_data=data, dice="physical")


def test_all_sunk_the_other_side_wins() -> None:
    """If all of one side's pieces are sunk, the other side (if it still has a ship) wins: after their last salvo."""
    g = _duel()
    g.fire("scania.frigate", "zealand.frigate", 6)  # range 1: 2 hits, sunk
    g.fire("scania.corvette", "zealand.corvette", 3)  # range 1: 1 hit, sunk
    g.end()
    assert v.outcome(g.state) is None  # Zealand's sunk pieces still have their last turn
    g.fire("zealand.frigate", "scania.corvette", 1)  # a miss
    g.end()
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason) == ("scania", "sunk")


def test_all_sunk_after_taking_a_port_is_a_draw() -> None:
    """… unless the sunk side had already taken a port, in which case nobody wins."""
    g = _duel("F8")
    g.end()
    g.move("zealand.corvette", "G7")  # Malme Nor
    g.end()
    assert not g.state.taken["zealand"]  # taken once the hold has survived a turn of Scania's
    g.end()
    assert g.state.taken["zealand"]
    g.end()
    g.fire("scania.frigate", "zealand.frigate", 6)
    # The corvette sails within 2 hexes of Malme Nor (G7) and fires: "- - - - 1 2" or better → 2 with a six.
    corvette = g.piece("scania.corvette")
    to = next(t for t in sorted(v.move_targets(g.state, corvette)) if Hex.parse(t).distance(Hex.parse("G7")) <= 2)
    g.move("scania.corvette", to)
    g.fire("scania.corvette", "zealand.corvette", 6)
    assert g.piece("zealand.corvette").sunk
    g.end()
    g.end()
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason) == (None, "draw-sunk")
    assert "had taken a port" in out.detail


def test_all_sunk_with_no_ship_left_on_the_other_side_is_a_draw() -> None:
    """The other side wins only "if it still has a ship": the last salvo sinks Scania's last ships."""
    g = _duel()
    g.fire("scania.frigate", "zealand.frigate", 6)
    g.fire("scania.corvette", "zealand.corvette", 3)
    g.end()
    g.fire("zealand.frigate", "scania.corvette", 4)  # C5 to D4: range 2, "- - - 1 1 2" → 1
    g.fire("zealand.corvette", "scania.frigate", 6)  # range 1 → 2
    g.end()
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason) == (None, "draw-sunk")
