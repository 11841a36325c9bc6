"""Vestorsjø's rules, sentence by sentence (shared/rules/vestorsjo.md), on the small test map.

Each test names the sentence it proves. The scenario games (holding ports, the last salvo, winning)
are in test_vestorsjo_scenarios.py; the tables cell by cell in test_vestorsjo_tables.py.
"""

from __future__ import annotations

import pytest

from referee.rules import vestorsjo as v
from referee.rules.errors import GameOver, IllegalAction, MalformedAction, NotYourTurn, StaleVersion
from referee.rules.events import Role
from referee.rules.vestorsjo.hexes import Edge, Hex, Vertex
from referee.rules.vestorsjo.moves import steps_of

from .vestorsjo_maps import Game, ruleset_data, small_map

SCANIA, ZEALAND = "player:scania", "player:zealand"


def furthest(g: Game, pid: str) -> int:
    """Return the furthest a piece may move now, in hexes (warships)."""
    piece = g.piece(pid)
    return max((piece.hex().distance(Hex.parse(t)) for t in v.move_targets(g.state, piece)), default=0)


# --- Sides and pieces --------------------------------------------------------------------------


def test_two_sides_each_with_its_fleet() -> None:
    """Each side: 1 destroyer, 2 frigates, 4 corvettes, 2 submarines."""
    g = Game()
    for side in v.SIDES:
        classes = sorted(p.cls for p in g.state.pieces.values() if p.side == side)
        assert classes == ["corvette"] * 4 + ["destroyer"] + ["frigate"] * 2 + ["submarine"] * 2
    assert "scania.frigate-1" in g.state.pieces and "zealand.submarine-2" in g.state.pieces


def test_scania_moves_first() -> None:
    """Scania moves first; a round is Scania's turn then Zealand's."""
    g = Game()
    assert g.state.turn == "scania" and g.state.round == 1
    assert isinstance(g.refused({"type": "end_turn"}, by=ZEALAND), NotYourTurn)
    g.end()
    assert g.state.turn == "zealand" and g.state.round == 1
    g.end()
    assert g.state.turn == "scania" and g.state.round == 2


def test_defence() -> None:
    """Defence (hits that sink it): destroyer 4, frigate 2, corvette 1, submarine 1."""
    rs = v.vestorsjo_from_dict(ruleset_data())
    assert {c.id: c.defence for c in rs.classes.values()} == {
        "destroyer": 4,
        "frigate": 2,
        "corvette": 1,
        "submarine": 1,
    }


def test_start_places_from_the_map_and_the_referees_changes() -> None:
    """Pieces start on fixed places (the map's), the destroyer in its middle strategic port; a referee may move them."""
    g = Game()
    assert g.piece("scania.destroyer").place == "G5"  # Lanskròna
    assert g.piece("zealand.destroyer").place == "B5"  # København Nord
    assert g.piece("scania.submarine-1").place == "E6/E7/F7"
    g = Game({"scania.frigate-1": "D8", "zealand.submarine-1": "D7/C8/D8"})
    assert g.piece("scania.frigate-1").place == "D8"
    assert g.piece("zealand.submarine-1").place == "D7/C8/D8"  # written in the map's order: by row, then column


@pytest.mark.parametrize(
    ("start", "error"),
    [
        ({"scania.battleship": "D8"}, MalformedAction),
        ({"scania.frigate-1": "H5"}, IllegalAction),
        ({"scania.frigate-1": "C5"}, IllegalAction),  # Zealand's frigate is there
        ({"scania.submarine-1": "B4/B5/C5"}, IllegalAction),
    ],
)
def test_illegal_start_changes_are_refused(start: dict[str, str], error: type[Exception]) -> None:
    with pytest.raises(error):
        Game(start)


def test_the_create_event_holds_ruleset_and_map() -> None:
    """A replay is exact whatever happens to the files: both are in the create event (the state drops the coast)."""
    g = Game()
    assert g.events[0].data["map"]["ports"][0]["name"] == "Helsingør"
    assert g.events[0].data["ruleset"]["ruleset"]["mode"] == "vestorsjo"
    assert "coast" not in g.state.map_raw
    with pytest.raises(MalformedAction):
        v.create({"type": "create_game", "ruleset": ruleset_data(), "map": {"map": {}}}, at=0)
    with pytest.raises(MalformedAction):
        v.create({"type": "create_game", "ruleset": {"ruleset": {"mode": "vestorsjo"}}, "map": small_map()}, at=0)
    with pytest.raises(MalformedAction):
        v.create({"type": "create_game", "ruleset": ruleset_data(), "map": small_map(), "dice": "loaded"}, at=0)
    with pytest.raises(NotYourTurn):
        v.create({"type": "create_game", "ruleset": ruleset_data(), "map": small_map()}, at=0, by="public")


# --- Ports ---------------------------------------------------------------------------------------


def test_depth_destroyer_port_admits_every_warship_frigate_port_frigates_and_corvettes() -> None:
    """Depth: "destroyer" admits all warships; "frigate" admits frigates and corvettes; "corvette" corvettes only."""
    g = Game({"scania.destroyer": "G3", "scania.frigate-1": "F2", "scania.corvette-1": "F3"})
    assert "G2" not in v.move_targets(g.state, g.piece("scania.destroyer"))  # Raû: frigate depth
    assert "G2" in v.move_targets(g.state, g.piece("scania.frigate-1"))
    assert "G2" in v.move_targets(g.state, g.piece("scania.corvette-1"))
    assert "G1" in v.move_targets(g.state, g.piece("scania.destroyer"))  # Hælsengbór: destroyer depth
    g.refused({"type": "move", "piece": "scania.destroyer", "to": "G2"})
    g = Game({"scania.frigate-1": "F8", "scania.corvette-1": "E8"})
    assert "F9" not in v.move_targets(g.state, g.piece("scania.frigate-1"))  # Lomme: corvette depth
    g.move("scania.corvette-1", "F9")
    assert g.piece("scania.corvette-1").place == "F9"


def test_enemy_ports_only_the_strategic_ones() -> None:
    """Of the enemy's ports, only the strategic ones may be entered."""
    g = Game({"scania.corvette-1": "C3", "scania.frigate-1": "C1", "scania.corvette-2": "C7", "scania.frigate-2": "D7"})
    assert "B3" not in v.move_targets(g.state, g.piece("scania.corvette-1"))  # Snekkersten, not strategic
    assert "E4" not in v.move_targets(g.state, g.piece("scania.corvette-1"))  # Flakfort, not strategic
    assert "B1" in v.move_targets(g.state, g.piece("scania.frigate-1"))  # Helsingør, strategic
    assert "B7" in v.move_targets(g.state, g.piece("scania.corvette-2"))  # Dragør, strategic, corvette depth
    assert "B7" not in v.move_targets(g.state, g.piece("scania.frigate-2"))  # too deep for Dragør
    g.move("scania.frigate-1", "B1")
    assert g.piece("scania.frigate-1").place == "B1"


def test_own_ports_of_any_kind_may_be_entered() -> None:
    g = Game({"zealand.corvette-1": "C3"})
    g.end()
    g.move("zealand.corvette-1", "B3")


def test_submarines_are_not_limited_by_depth() -> None:
    """Submarines are not limited by depth: a Scania submarine enters Dragør's corner (a corvette port of the enemy)."""
    g = Game({"scania.submarine-1": "C7/B8/C8"})
    g.move("scania.submarine-1", "B7/C7/B8")
    assert g.state.board.ports_of(Vertex.parse("B7/C7/B8"))[0].name == "Dragør"


# --- A turn --------------------------------------------------------------------------------------


def test_up_to_four_actions_fewer_or_none() -> None:
    """A turn = up to four actions; using fewer or none is allowed."""
    g = Game()
    g.end()  # none
    g.move("zealand.corvette-2", "D6")
    g.end()  # one
    for pid, to in (
        ("scania.corvette-1", "F3"),
        ("scania.corvette-2", "D7"),
        ("scania.corvette-3", "E7"),
        ("scania.corvette-4", "E4"),
    ):
        if pid == "scania.corvette-4":
            to = next(iter(sorted(v.move_targets(g.state, g.piece(pid)))))
        g.move(pid, to)
    assert g.state.actions_left() == 0
    refusal = g.refused({"type": "move", "piece": "scania.frigate-1", "to": "E4"})
    assert "all 4 actions" in str(refusal)
    assert [a["type"] for a in v.legal_actions(g.state, SCANIA)] == ["end_turn", "undo", "surrender"]


def test_each_piece_each_kind_once_all_three_in_any_order() -> None:
    """Each piece may do each kind at most once per turn; one piece may do all three, in any order."""
    g = Game({"zealand.submarine-2": "D4/D5/E5"}, dice="physical")
    corvette = "scania.corvette-4"  # E5: D5 (Zealand's corvette) is one hex away, the submarine on a corner
    g.attack(corvette, "zealand.submarine-2", 1)
    g.refused({"type": "attack_submarine", "piece": corvette, "target": "zealand.submarine-2", "pips": 1})
    g.fire(corvette, "zealand.corvette-2", 1)
    g.refused({"type": "fire", "piece": corvette, "target": "zealand.corvette-2", "pips": 1})
    to = sorted(v.move_targets(g.state, g.piece(corvette)))[0]
    g.move(corvette, to)
    refusal = g.refused({"type": "move", "piece": corvette, "to": "E5"})
    assert "already done" in str(refusal)
    assert g.piece(corvette).done == ["attack_submarine", "fire", "move"]
    g.end()
    assert g.piece(corvette).done == []


def test_the_referee_acts_for_the_side_to_move_and_the_public_never() -> None:
    g = Game()
    g.move("scania.corvette-1", "F3", by="referee")
    assert g.piece("scania.corvette-1").place == "F3"
    assert isinstance(g.refused({"type": "end_turn"}, by="public"), NotYourTurn)
    assert isinstance(
        g.refused({"type": "move", "piece": "zealand.corvette-2", "to": "D6"}, by="referee"), IllegalAction
    )
    assert v.legal_actions(g.state, Role("public")) == []
    assert [a["type"] for a in v.legal_actions(g.state, Role("player", "zealand"))] == ["surrender"]


def test_a_stale_version_is_refused() -> None:
    g = Game()
    with pytest.raises(StaleVersion):
        v.apply(g.state, {"type": "end_turn", "version": 0}, at=1, by=SCANIA)


# --- Movement --------------------------------------------------------------------------------------


def test_warships_move_one_or_two_hexes_by_damage() -> None:
    """1 or 2 hexes if undamaged or a destroyer with exactly one hit; otherwise (defence at least halved) 1 hex."""
    g = Game(dice="physical")
    assert furthest(g, "scania.destroyer") == 2 and furthest(g, "scania.frigate-2") == 2
    assert furthest(g, "scania.corvette-2") == 2
    g.end()
    g.fire("zealand.destroyer", "scania.destroyer", 5)  # range 5: "- - - - 1 2", 1 hit
    g.fire("zealand.frigate-1", "scania.frigate-1", 5)  # range 3: "- - - - 1 2", 1 hit
    g.end()
    assert g.piece("scania.destroyer").hits == 1 and furthest(g, "scania.destroyer") == 2
    assert g.piece("scania.frigate-1").hits == 1 and steps_of(g.state, g.piece("scania.frigate-1")) == 1
    g.end()
    g.fire("zealand.destroyer", "scania.destroyer", 5)
    g.end()
    assert g.piece("scania.destroyer").hits == 2 and furthest(g, "scania.destroyer") == 1


def test_a_move_of_two_needs_a_way_of_two_steps() -> None:
    """A move of 2 is two steps through hexes a ship may be in: never over land."""
    g = Game({"scania.corvette-1": "G3"})
    targets = v.move_targets(g.state, g.piece("scania.corvette-1"))
    assert "H3" not in targets and "G2" in targets
    assert all(g.state.board.at(Hex.parse(t)) != "#" for t in targets)
    g.refused({"type": "move", "piece": "scania.corvette-1", "to": "E1"})  # three steps


def test_a_harbour_pier_blocks_movement_between_two_hexes() -> None:
    """Movement between two hexes is blocked where a harbour pier separates them (B4|B5 at København Nord)."""
    g = Game({"zealand.destroyer": "C8", "zealand.corvette-4": "D8", "scania.corvette-1": "B4"})
    assert Hex.parse("B5") not in g.state.board.ship_steps(Hex.parse("B4"))
    # The only other way in is through C5, where Zealand's frigate stands: blocked.
    g.refused({"type": "move", "piece": "scania.corvette-1", "to": "B5"})
    g = Game(
        {
            "zealand.destroyer": "C8",
            "zealand.corvette-4": "D8",
            "zealand.frigate-1": "E8",
            "scania.corvette-1": "B4",
            "scania.frigate-1": "C5",
        }
    )
    g.move("scania.corvette-1", "B5")  # round the pier, over its own frigate in C5


def test_pieces_never_share_and_pass_own_but_never_enemy() -> None:
    """Two pieces never share a hex; a piece may pass over its own side's pieces, never over the enemy's."""
    g = Game({"scania.corvette-1": "C3", "scania.frigate-2": "D3"})
    assert "C4" not in v.move_targets(g.state, g.piece("scania.corvette-1"))  # Zealand's corvette there
    g.refused({"type": "move", "piece": "scania.corvette-1", "to": "D3"})  # its own frigate is there
    g.refused({"type": "move", "piece": "scania.corvette-1", "to": "C4"})
    # Over its own frigate at D3 to E3 (C3, D3, E3 in a line).
    g.move("scania.corvette-1", "E3")
    g = Game({"scania.corvette-1": "C3"})
    # C5 is two steps from C3, through C4 or B4: both Zealand's corvettes.
    assert "C5" not in v.move_targets(g.state, g.piece("scania.corvette-1"))


def test_a_ship_may_not_pass_an_enemy() -> None:
    """A corvette hemmed in by enemy ships cannot pass over them: only its own port's way is open."""
    g = Game(
        {
            "scania.corvette-1": "G3",
            "zealand.corvette-1": "F3",
            "zealand.corvette-2": "G4",
            "zealand.corvette-3": "F2",
            "zealand.corvette-4": "F4",
        }
    )
    # G3's neighbours: H3 (land), F2, F3, F4, G4 (Zealand's) and G2 (Raû): through G2 to G1, nowhere else.
    assert v.move_targets(g.state, g.piece("scania.corvette-1")) == {"G1", "G2"}
    g.refused({"type": "move", "piece": "scania.corvette-1", "to": "E3"})


def test_submarines_move_up_to_two_corners() -> None:
    """Submarines stand on corners and move up to 2 corners per move."""
    g = Game({"scania.submarine-1": "D6/D7/E7"})
    sub = g.piece("scania.submarine-1")
    start = sub.vertex()
    targets = {Vertex.parse(t) for t in v.move_targets(g.state, sub)}
    one = set(start.neighbours())
    two = {w for x in one for w in x.neighbours()} - {start}
    assert targets <= one | two
    assert targets & (two - one)
    g.move("scania.submarine-1", sorted(str(t) for t in targets & (two - one))[0])


def test_a_submarine_is_blocked_by_a_pier_corner_but_passes_at_a_fort() -> None:
    """They may not pass or stand on a pier corner, except at Flakfort and Middelgrunds fort."""
    g = Game({"scania.submarine-1": "B4/C4/C5", "scania.submarine-2": "F3/G3/F4", "zealand.corvette-4": "D8"})
    west = v.move_targets(g.state, g.piece("scania.submarine-1"))
    assert "B4/B5/C5" not in west  # a pier corner at København Nord
    assert "A4/B4/B5" not in west  # only through it
    g.refused({"type": "move", "piece": "scania.submarine-1", "to": "B4/B5/C5"})
    east = v.move_targets(g.state, g.piece("scania.submarine-2"))
    assert "F3/E4/F4" in east  # a pier corner at Flakfort: open
    assert "E4/F4/F5" in east  # … passing it, along the fort's pier
    g.move("scania.submarine-2", "E4/F4/F5")


def test_submarines_never_share_pass_own_never_enemy() -> None:
    """Never two pieces on one vertex; a submarine passes its own side's, never the enemy's."""
    g = Game({"scania.submarine-1": "C6/D6/D7", "scania.submarine-2": "D6/D7/E7"})
    sub1 = g.piece("scania.submarine-1")
    targets = v.move_targets(g.state, sub1)
    assert "C6/C7/D7" not in targets  # Zealand's submarine stands there
    assert "D6/D7/E7" not in targets  # its own
    # Through its own submarine at D6/D7/E7 to that corner's neighbours.
    beyond = {str(w) for w in Vertex.parse("D6/D7/E7").neighbours()} - {"C6/D6/D7"}
    assert beyond <= targets | {p for p in beyond if not g.state.board.sub_may_stand(Vertex.parse(p))}
    # Past Zealand's submarine: the corners beyond it only by other ways.
    behind = {str(w) for w in Vertex.parse("C6/C7/D7").neighbours()} - {"C6/D6/D7"}
    for corner in behind:
        assert corner not in targets or any(
            Vertex.parse(corner) in w.neighbours()
            for w in Vertex.parse("C6/D6/D7").neighbours()
            if str(w) != "C6/C7/D7"
        )


def test_a_submarine_may_not_follow_a_coast_or_a_pier_side() -> None:
    """Silent in the rules, chosen in the ruleset: no step along a side with no sea, none along a pier but a fort's."""
    g = Game()
    rs, board = g.state.ruleset, g.state.board
    assert not board.sub_may_follow(Edge.parse("A4|A5"), rs)  # land and land
    assert not board.sub_may_follow(Edge.parse("A5|B5"), rs)  # land and port
    assert board.sub_may_follow(Edge.parse("A4|B4"), rs)  # land and sea
    assert not board.sub_may_follow(Edge.parse("B4|B5"), rs)  # a pier
    assert board.sub_may_follow(Edge.parse("E4|F4"), rs)  # the fort's pier
    data = ruleset_data()
    data["submarines"]["pier_edges"] = True
    data["submarines"]["coast_edges"] = True
    loose = v.vestorsjo_from_dict(data)
    assert board.sub_may_follow(Edge.parse("B4|B5"), loose) and board.sub_may_follow(Edge.parse("A5|B5"), loose)


# --- Combat --------------------------------------------------------------------------------------


def test_ships_fire_over_land_counting_as_if_the_grid_were_everywhere() -> None:
    """At any range up to the table's maximum, over land too."""
    data = small_map()
    data["map"]["terrain"][7] = "#..##.##"  # D8 and E8 land, between F8 and C8
    data["map"]["terrain"][8] = "##P##P.#"
    g = Game({"scania.frigate-1": "F8", "zealand.corvette-2": "C8"}, map_data=data, dice="physical")
    g.fire("scania.frigate-1", "zealand.corvette-2", 5)  # range 3: "- - - - 1 2"
    roll = g.state.rolls[-1]
    assert roll.distance == 3 and roll.hits == 1 and g.piece("zealand.corvette-2").sunk


def test_in_port_does_not_matter_for_gunnery() -> None:
    """Whether either ship is in port does not matter."""
    g = Game(dice="physical")
    g.fire("scania.destroyer", "zealand.destroyer", 6)  # Lanskròna to København Nord, range 5: "- - - - 1 2"
    assert g.piece("zealand.destroyer").hits == 2


def test_out_of_range_and_wrong_targets_are_refused() -> None:
    g = Game(dice="physical")
    refusal = g.refused({"type": "fire", "piece": "scania.corvette-1", "target": "zealand.destroyer", "pips": 6})
    assert "fires at most 2" in str(refusal)
    assert "own side" in str(
        g.refused({"type": "fire", "piece": "scania.destroyer", "target": "scania.frigate-1", "pips": 6})
    )
    assert "submarine" in str(
        g.refused({"type": "fire", "piece": "scania.destroyer", "target": "zealand.submarine-1", "pips": 6})
    )
    assert "not a submarine" in str(
        g.refused({"type": "attack_submarine", "piece": "scania.corvette-2", "target": "zealand.corvette-2", "pips": 6})
    )
    assert "no piece" in str(
        g.refused({"type": "fire", "piece": "scania.nothing", "target": "zealand.destroyer", "pips": 6})
    )
    assert "not one of" in str(
        g.refused({"type": "fire", "piece": "zealand.destroyer", "target": "scania.destroyer", "pips": 6})
    )


def test_a_roll_makes_the_tables_hits() -> None:
    """Declare shooter and target, then roll one six-sided die: hits by the table."""
    for pips, hits in ((1, 0), (2, 0), (3, 0), (4, 1), (5, 1), (6, 2)):
        g = Game(dice="physical")
        g.fire("scania.destroyer", "zealand.frigate-1", pips)  # G5 to C5: range 4, "- - - 1 1 2"
        assert g.state.rolls[-1].hits == hits
        assert g.piece("zealand.frigate-1").hits == hits


def test_hits_at_defence_sink() -> None:
    """At hits ≥ defence a piece is sunk: a frigate at 2, not at 1; hits beyond the defence are not counted."""
    g = Game(dice="physical")
    g.fire("scania.destroyer", "zealand.frigate-1", 4)
    assert g.piece("zealand.frigate-1").hits == 1 and not g.piece("zealand.frigate-1").sunk
    g.fire("scania.frigate-1", "zealand.frigate-1", 6)  # F5 to C5: range 3, "- - - - 1 2"
    assert g.piece("zealand.frigate-1").hits == 2 and g.piece("zealand.frigate-1").sunk
    assert g.state.rolls[-1].sunk


def test_a_sunk_piece_is_no_target() -> None:
    g = Game(dice="physical")
    g.fire("scania.destroyer", "zealand.corvette-2", 6)
    assert g.piece("zealand.corvette-2").sunk
    assert "sunk already" in str(
        g.refused({"type": "fire", "piece": "scania.frigate-1", "target": "zealand.corvette-2", "pips": 6})
    )


def test_the_shooters_damage_counts_as_before_the_enemys_latest_turn() -> None:
    """Damage taken "immediately before" does not count: Zealand's frigate, hit in Scania's turn, fires undamaged."""
    g = Game({"scania.corvette-2": "D5", "zealand.corvette-2": "D8"}, dice="physical")
    g.fire("scania.destroyer", "zealand.frigate-1", 4)  # one hit on C5
    g.end()
    g.fire("zealand.frigate-1", "scania.corvette-2", 3)  # C5 to D5: range 1; undamaged "- - 1 1 2 2" → 1
    roll = g.state.rolls[-1]
    assert (roll.damage, roll.distance, roll.hits) == (0, 1, 1)
    g.end()
    g.end()
    g.fire("zealand.frigate-1", "scania.corvette-4", 3)  # C5 to E5: range 2; hit once "- - - - 1 2" → 0
    roll = g.state.rolls[-1]
    assert (roll.damage, roll.distance, roll.hits) == (1, 2, 0)


def test_a_submarine_attacks_a_ship_only_from_its_corners() -> None:
    """A submarine and a ship fight only when the submarine stands on one of the 6 corners of the ship's hex."""
    g = Game({"scania.submarine-2": "D5/E5/D6"}, dice="physical")
    assert "corner" in str(
        g.refused({"type": "fire", "piece": "scania.submarine-2", "target": "zealand.frigate-1", "pips": 6})
    )
    g.fire("scania.submarine-2", "zealand.corvette-2", 5)  # submarine attacks ship: 5 → 2 hits
    roll = g.state.rolls[-1]
    assert (roll.table, roll.hits) == ("submarine_attacks_ship", 2) and g.piece("zealand.corvette-2").sunk


def test_a_submarine_sinks_a_destroyer_with_a_six() -> None:
    """Submarine attacks ship: 6 → 4 hits, a destroyer's whole defence."""
    g = Game({"scania.submarine-2": "C7/D7/C8", "zealand.destroyer": "C8"}, dice="physical")
    g.fire("scania.submarine-2", "zealand.destroyer", 6)
    assert g.piece("zealand.destroyer").hits == 4 and g.piece("zealand.destroyer").sunk


def test_a_submarine_cannot_attack_a_ship_in_port() -> None:
    """A submarine cannot attack a ship … that is in port."""
    g = Game({"scania.submarine-1": "A4/B4/B5"}, dice="physical")
    assert "in port" in str(
        g.refused({"type": "fire", "piece": "scania.submarine-1", "target": "zealand.destroyer", "pips": 6})
    )


def test_a_ship_attacks_a_submarine_on_a_corner_of_its_hex() -> None:
    """Ship attacks submarine: 5 or 6 → 1 hit, only when the submarine is on a corner of the ship's hex."""
    g = Game({"zealand.submarine-2": "D4/D5/E5"}, dice="physical")
    assert "corner" in str(
        g.refused({"type": "attack_submarine", "piece": "scania.frigate-1", "target": "zealand.submarine-2", "pips": 6})
    )
    g.attack("scania.corvette-4", "zealand.submarine-2", 4)
    assert g.state.rolls[-1].hits == 0
    g = Game({"zealand.submarine-2": "D4/D5/E5"}, dice="physical")
    g.attack("scania.corvette-4", "zealand.submarine-2", 5)
    assert g.piece("zealand.submarine-2").sunk


def test_a_ship_may_attack_a_submarine_in_port_but_not_in_the_six() -> None:
    """A ship can attack a submarine in port, except in the six: København Nord and Syd, Helsingør, Hælsengbór, …"""
    rs = v.vestorsjo_from_dict(ruleset_data())
    assert rs.safe_ports == {"København Nord", "København Syd", "Helsingør", "Hælsengbór", "Lanskròna", "Malme Nor"}
    g = Game({"zealand.submarine-1": "B6/B7/C7", "scania.corvette-3": "C7"}, dice="physical")  # Dragør
    g.attack("scania.corvette-3", "zealand.submarine-1", 6)
    assert g.piece("zealand.submarine-1").sunk
    g = Game(
        {"zealand.submarine-1": "B5/A6/B6", "zealand.corvette-3": "D8", "scania.corvette-3": "B6"}, dice="physical"
    )
    refusal = g.refused(
        {"type": "attack_submarine", "piece": "scania.corvette-3", "target": "zealand.submarine-1", "pips": 6}
    )
    assert "København Nord" in str(refusal)


def test_two_submarines_fight_only_on_neighbouring_corners() -> None:
    """Submarine attacks submarine: 5 or 6 → 1 hit; only on adjacent vertices."""
    g = Game({"scania.submarine-1": "D6/D7/E7"}, dice="physical")
    assert "neighbouring" in str(
        g.refused(
            {"type": "attack_submarine", "piece": "scania.submarine-1", "target": "zealand.submarine-1", "pips": 6}
        )
    )
    g = Game({"scania.submarine-1": "C6/D6/D7"}, dice="physical")
    g.attack("scania.submarine-1", "zealand.submarine-1", 5)
    roll = g.state.rolls[-1]
    assert (roll.table, roll.hits) == ("submarine_attacks_submarine", 1) and g.piece("zealand.submarine-1").sunk


def test_a_submarine_cannot_attack_a_submarine_in_port() -> None:
    g = Game({"zealand.submarine-1": "B6/B7/C7", "scania.submarine-1": "B6/C6/C7"}, dice="physical")
    assert "in port" in str(
        g.refused(
            {"type": "attack_submarine", "piece": "scania.submarine-1", "target": "zealand.submarine-1", "pips": 6}
        )
    )


# --- Dice ----------------------------------------------------------------------------------------


def test_server_dice_are_the_events_chance_and_logged() -> None:
    g = Game()
    g.act({"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1"}, pips=6)
    event = g.events[-1]
    assert event.data["pips"] == 6 and "seed" in event.data and "physical" not in event.data
    assert g.state.rolls[-1].pips == 6 and not g.state.rolls[-1].physical
    assert v.state_to_dict(v.replay(g.events)) == v.state_to_dict(g.state)


def test_server_dice_take_no_pips_and_need_a_seed() -> None:
    g = Game()
    with pytest.raises(MalformedAction, match="send no pips"):
        v.apply(
            g.state,
            {"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1", "pips": 6},
            at=1,
            by=SCANIA,
            seed=1,
        )
    with pytest.raises(MalformedAction, match="seed"):
        v.apply(g.state, {"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1"}, at=1, by=SCANIA)


def test_physical_dice_are_entered_and_logged_as_physical() -> None:
    g = Game(dice="physical")
    with pytest.raises(MalformedAction):
        v.apply(g.state, {"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1"}, at=1, by=SCANIA)
    with pytest.raises(MalformedAction):
        v.apply(
            g.state,
            {"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1", "pips": 7},
            at=1,
            by=SCANIA,
        )
    with pytest.raises(MalformedAction):
        v.apply(
            g.state,
            {"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1", "pips": 6, "physical": True},
            at=1,
            by=SCANIA,
        )
    g.fire("scania.destroyer", "zealand.frigate-1", 6)
    assert g.events[-1].data["physical"] is True and g.events[-1].data["pips"] == 6
    assert g.state.rolls[-1].physical
    view = v.view_for(g.state, "public", 0)
    assert view["rolls"][-1]["physical"] and view["rolls"][-1]["pips"] == 6


# --- Surrender, game over --------------------------------------------------------------------------


def test_surrender_at_any_time() -> None:
    """A player may surrender at any time (also in the other side's turn)."""
    g = Game()
    g.act({"type": "surrender"}, by=ZEALAND)
    out = v.outcome(g.state)
    assert out is not None and (out.winner, out.reason) == ("scania", "surrender")
    assert isinstance(g.refused({"type": "end_turn"}), GameOver)
    assert v.legal_actions(g.state, SCANIA) == []


def test_a_player_surrenders_only_for_its_own_side() -> None:
    g = Game()
    assert isinstance(g.refused({"type": "surrender", "side": "zealand"}, by=SCANIA), NotYourTurn)
    g.act({"type": "surrender", "side": "zealand"}, by="referee")
    assert v.outcome(g.state).winner == "scania"  # type: ignore[union-attr]


def test_an_unknown_field_is_refused_naming_the_action() -> None:
    g = Game()
    with pytest.raises(MalformedAction, match="unknown field 'bogus' in 'fire'"):
        g.act({"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1", "bogus": 1}, pips=6)
