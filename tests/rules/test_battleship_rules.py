"""Battleship rules: one test per line of shared/rules/battleship.md, whole games, the ruleset files and the CLI.

Each test is named after the line of the rule text it checks (zeeslag_…, salvo_…, sjoslag_…,
app_…), in the order of the text.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.rules import rules_group, sea_group
from referee.rules import battleship as bs
from referee.rules.errors import GameOver, IllegalAction, MalformedAction, NotYourTurn, RulesetError, StaleVersion
from referee.rules.events import Role
from referee.rules.grid import Square
from referee.rules.ruleset import load_ruleset, ruleset_from_dict
from referee.rules.sea import Ship, check_fleet, random_sea, ships_from_text
from referee.rules.shots import Volley

from ..battleship_helpers import (
    RULESET_IDS,
    SJO_SPREAD,
    ZEE_PACKED,
    Game,
    play_random,
    ruleset_path,
    ruleset_raw,
    started,
)


def rs(ruleset_id: str) -> bs.BattleshipRuleset:
    ruleset = load_ruleset(ruleset_path(ruleset_id))
    assert isinstance(ruleset, bs.BattleshipRuleset)
    return ruleset


def ship(kind: str, *squares: tuple[int, int], letter: str = "X") -> Ship:
    return Ship(letter, kind, frozenset(Square(c, r) for c, r in squares))


# --- Zeeslag, classic ------------------------------------------------------------------------


def test_zeeslag_two_players_each_with_a_hidden_ocean_grid_and_a_target_grid_of_own_shots() -> None:
    game = started("zeeslag")
    game.fire("A", "J10")
    view = bs.view_for(game.state, "player:A")
    assert sorted(view["players"]) == ["A", "B"]
    assert len(view["boards"]["A"]["ships"]) == 5  # my ocean grid, with my fleet
    assert "ships" not in view["boards"]["B"]  # the enemy's ocean stays hidden
    assert [s["square"] for s in view["boards"]["B"]["shots"]] == ["J10"]  # my target grid
    with pytest.raises(MalformedAction):
        Role.from_str("player:")


def test_zeeslag_the_classic_board_is_10x10_rows_A_to_J_columns_1_to_10() -> None:
    grid = rs("zeeslag").grid()
    assert grid.size == 10
    assert grid.row_labels() == list("ABCDEFGHIJ")
    assert grid.column_labels() == [str(n) for n in range(1, 11)]
    assert grid.parse_square("B6") == Square(5, 1)  # row B, column 6
    assert grid.square_name(Square(9, 9)) == "J10"
    for off in ("K1", "A11"):
        with pytest.raises(MalformedAction, match="off the 10×10 sea"):
            grid.parse_square(off)


def test_zeeslag_fleet_of_5_carrier_5_battleship_4_cruiser_3_submarine_3_destroyer_2() -> None:
    ruleset = rs("zeeslag")
    kinds = ruleset.sea.kinds
    assert [(kinds[k].name, kinds[k].names["nl"], kinds[k].shape.size) for k in ruleset.fleet] == [
        ("aircraft carrier", "vliegdekschip", 5),
        ("battleship", "slagschip", 4),
        ("cruiser", "kruiser", 3),
        ("submarine", "duikboot", 3),
        ("destroyer", "torpedobootjager", 2),
    ]


def test_zeeslag_placement_horizontal_or_vertical_never_diagonal() -> None:
    ruleset = rs("zeeslag")
    grid = ruleset.grid()
    fleet = [
        ship("carrier", *[(c, 0) for c in range(5)], letter="A"),
        ship("battleship", *[(9, r) for r in range(2, 6)], letter="B"),
        ship("cruiser", (0, 4), (1, 5), (2, 6), letter="C"),
        ship("submarine", (5, 5), (5, 6), (5, 7), letter="D"),
        ship("destroyer", (7, 9), (8, 9), letter="E"),
    ]
    problems = [p.message for p in check_fleet(grid, ruleset.sea, ruleset.fleet, fleet)]
    assert problems == ["cruiser at E1/F2/G3 is not the shape XXX (turned or mirrored)"]
    game = Game("zeeslag")
    with pytest.raises(IllegalAction, match="not the shape XXX"):
        game.act({"type": "place_fleet", "player": "A", "ships": [s.to_dict(grid) for s in fleet]})
    fleet[2] = ship("cruiser", (0, 4), (0, 5), (0, 6), letter="C")  # vertical is fine
    game.act({"type": "place_fleet", "player": "A", "ships": [s.to_dict(grid) for s in fleet]})
    assert game.state.players["A"].placed


def test_zeeslag_placement_inside_the_grid() -> None:
    game = Game("zeeslag")
    ships = [{"kind": "carrier", "squares": ["A7", "A8", "A9", "A10", "A11"]}]
    with pytest.raises(MalformedAction, match="A11 is off the 10×10 sea"):
        game.act({"type": "place_fleet", "player": "A", "ships": ships})


def test_zeeslag_placement_no_overlap() -> None:
    game = Game("zeeslag")
    ships = [
        {"kind": k, "squares": sq}
        for k, sq in [
            ("carrier", ["A1", "A2", "A3", "A4", "A5"]),
            ("battleship", ["A2", "B2", "C2", "D2"]),
            ("cruiser", ["F1", "F2", "F3"]),
            ("submarine", ["H1", "H2", "H3"]),
            ("destroyer", ["J1", "J2"]),
        ]
    ]
    with pytest.raises(IllegalAction, match="vliegdekschip · aircraft carrier overlaps slagschip · battleship at A2"):
        game.act({"type": "place_fleet", "player": "A", "ships": ships})


def test_zeeslag_ships_may_touch_nothing_forbids_it() -> None:
    game = Game("zeeslag")
    game.place("A", ZEE_PACKED)  # every ship touches the next one along its length
    assert game.state.players["A"].placed and rs("zeeslag").sea.touching is True


def test_zeeslag_no_ship_moves_once_play_starts() -> None:
    game = started("zeeslag")
    for player in "AB":
        with pytest.raises(IllegalAction, match="no ship moves now"):
            game.place(player, ZEE_PACKED)
    before = Game("zeeslag")
    before.place("A", ZEE_PACKED)
    with pytest.raises(IllegalAction, match="already placed"):
        before.place("A", ZEE_PACKED)


def test_zeeslag_decide_who_starts() -> None:
    assert rs("zeeslag").first == "choose"
    assert started("zeeslag", first="B").state.turn == "B"
    assert started("zeeslag", first="A").state.turn == "A"
    with pytest.raises(MalformedAction):
        Game("zeeslag", first="C")


def test_zeeslag_then_strictly_alternate_turns_one_shot_per_turn_hit_or_miss() -> None:
    game = started("zeeslag")
    assert bs.shots_due(game.state) == 1
    game.fire("A", "A1")  # a hit: still B's turn next
    assert game.last_volley("A").hits == 1 and game.state.turn == "B"
    with pytest.raises(NotYourTurn):
        game.fire("A", "A2")
    game.fire("B", "J10")  # a miss
    assert game.state.turn == "A"
    with pytest.raises(IllegalAction, match="fires 1 shots, not 2"):
        game.fire("A", "A2", "A3")


def test_zeeslag_defender_answers_miss_or_hit_and_names_the_ship_hit() -> None:
    game = started("zeeslag")
    game.fire("A", "C2")
    assert [(s.result, s.ship) for s in game.last_volley("A").shots] == [("hit", "cruiser")]
    game.fire("B", "J10")
    assert [(s.result, s.ship) for s in game.last_volley("B").shots] == [("miss", None)]
    game.fire("A", "D1")
    assert [(s.result, s.ship) for s in game.last_volley("A").shots] == [("hit", "submarine")]


def test_zeeslag_when_the_last_square_of_a_ship_is_hit_its_owner_announces_it_sunk() -> None:
    game = started("zeeslag")
    game.fire("A", "E1")
    game.fire("B", "J10")
    game.fire("A", "E2")
    volley = game.last_volley("A")
    assert [(s.result, s.ship) for s in volley.shots] == [("sunk", "destroyer")]
    assert volley.sunk == ("destroyer",) and volley.ring == ()
    assert bs.view_for(game.state, "player:A")["boards"]["B"]["sunk"] == ["destroyer"]


def test_zeeslag_win_the_first_to_sink_all_five_enemy_ships() -> None:
    game = started("zeeslag")
    targets = [f"{row}{col}" for row, n in zip("ABCDE", (5, 4, 3, 3, 2), strict=True) for col in range(1, n + 1)]
    misses = iter(f"{row}{col}" for row in "GHIJ" for col in range(1, 11))
    for i, square in enumerate(targets):
        game.fire("A", square)
        if i < len(targets) - 1:
            assert game.state.phase == "playing"
            game.fire("B", next(misses))
    result = bs.outcome(game.state)
    assert result is not None and (result.winner, result.reason) == ("A", "fleet_sunk")
    with pytest.raises(GameOver):
        game.fire("B", "J10")


# --- Zeeslag, salvo variant ------------------------------------------------------------------


def test_salvo_as_many_shots_as_ships_still_afloat_5_at_the_start() -> None:
    game = started("zeeslag-salvo")
    assert bs.shots_due(game.state) == 5
    with pytest.raises(IllegalAction, match="fires 5 shots, not 1"):
        game.fire("A", "J10")
    game.fire("A", "J1", "J2", "J3", "J4", "J5")
    assert bs.shots_due(game.state) == 5  # B's salvo: B has lost nothing
    game.fire("B", "E1", "E2", "J1", "J2", "J3")  # sinks A's destroyer
    assert game.state.turn == "A" and bs.shots_due(game.state) == 4  # A has 4 ships afloat
    with pytest.raises(IllegalAction, match="fires 4 shots, not 5"):
        game.fire("A", "E1", "E2", "J6", "J7", "J8")
    game.fire("A", "E1", "E2", "J6", "J7")  # sinks B's destroyer
    assert bs.shots_due(game.state) == 4


def test_salvo_all_called_before_any_answer() -> None:
    game = started("zeeslag-salvo")
    # One action carries the whole salvo: there is no half-fired salvo to answer early.
    with pytest.raises(IllegalAction):
        game.fire("A", "A1", "A2")
    assert game.state.turns == 0 and bs.volleys_of(game.state, "A") == []
    game.fire("A", "A1", "A2", "B1", "J9", "J10")
    assert len(bs.volleys_of(game.state, "A")) == 1


def test_salvo_defender_reports_how_many_on_which_ships_and_any_sunk_but_not_which_squares_hit() -> None:
    game = started("zeeslag-salvo")
    game.fire("A", "E1", "E2", "A1", "J1", "J2")
    volley = game.last_volley("A")
    assert (volley.hits, volley.ships_hit, volley.sunk) == (3, ("carrier", "destroyer", "destroyer"), ("destroyer",))
    assert all(s.result is None and s.ship is None for s in volley.shots)
    for role in ("player:A", "public"):
        view = bs.view_for(game.state, role)
        assert all(s["result"] is None and s["ship"] is None for s in view["boards"]["B"]["shots"])
        assert view["volleys"]["A"][-1]["hits"] == 3
    # The defender knows which squares hit, on its own ocean.
    mine = bs.view_for(game.state, "player:B")["boards"]["B"]["shots"]
    assert [(s["result"], s["ship"]) for s in mine] == [
        ("sunk", "destroyer"),
        ("sunk", "destroyer"),
        ("hit", "carrier"),
        ("miss", None),
        ("miss", None),
    ]


def test_salvo_a_referee_may_pick_report_per_shot_instead_a_common_house_rule() -> None:
    ruleset = rs("zeeslag-salvo")
    assert (ruleset.report, ruleset.per_shot, ruleset.per_shot_report) == ("totals", False, "named")
    game = started("zeeslag-salvo", per_shot=True)
    assert game.state.ruleset.report == "named" and game.state.ruleset.shots_per_turn == "per_ship_afloat"
    game.fire("A", "E1", "E2", "A1", "J1", "J2")
    assert [(s.result, s.ship) for s in game.last_volley("A").shots] == [
        ("hit", "destroyer"),
        ("sunk", "destroyer"),
        ("hit", "carrier"),
        ("miss", None),
        ("miss", None),
    ]
    # The same switch as data in a copy of the file.
    raw = ruleset_raw("zeeslag-salvo")
    raw["play"]["per_shot"] = True
    assert bs.battleship_from_dict(raw).report == "named"
    with pytest.raises(IllegalAction, match="no per-shot house rule"):
        Game("zeeslag", per_shot=True)


# --- Sjøslag ---------------------------------------------------------------------------------


def test_sjoslag_10x10_rows_1_to_10_top_to_bottom_columns_A_to_J_left_to_right_a_square_is_C4() -> None:
    grid = rs("sjoslag").grid()
    assert grid.size == 10
    assert grid.row_labels() == [str(n) for n in range(1, 11)]
    assert grid.column_labels() == list("ABCDEFGHIJ")
    assert grid.parse_square("C4") == Square(2, 3)  # column C, row 4
    assert grid.square_name(Square(9, 0)) == "J1"


def test_sjoslag_fleet_of_10_battleship_4x1_cruiser_3x2_destroyer_2x3_torpedo_boat_1x4() -> None:
    ruleset = rs("sjoslag")
    kinds = ruleset.sea.kinds
    counts = {k: ruleset.fleet.count(k) for k in dict.fromkeys(ruleset.fleet)}
    assert [(kinds[k].names["nb"], kinds[k].shape.size, n) for k, n in counts.items()] == [
        ("slagskip", 4, 1),
        ("krysser", 3, 2),
        ("jager", 2, 3),
        ("torpedobåt", 1, 4),
    ]
    assert len(ruleset.fleet) == 10


def test_sjoslag_placement_straight_horizontal_or_vertical_inside_the_grid() -> None:
    game = Game("sjoslag")
    bent = SJO_SPREAD.replace("AAAA.BBB..\n..........", "AAA..BBB..\n..A.......")
    with pytest.raises(IllegalAction, match="no shape of this fleet"):
        game.place("A", bent)
    with pytest.raises(IllegalAction, match="the sea is 9×9, the game asks for 10×10"):
        game.place("A", "\n".join(line[:9] for line in SJO_SPREAD.strip().splitlines()[:9]))
    game.place("A", SJO_SPREAD)


def test_sjoslag_ships_may_not_touch_neither_by_side_nor_by_corner() -> None:
    game = Game("sjoslag")
    by_side = SJO_SPREAD.replace("AAAA.BBB..", "AAAABBB...")
    with pytest.raises(IllegalAction, match="slagskip · battleship touches krysser · cruiser 1 at D1/E1"):
        game.place("A", by_side)
    by_corner = SJO_SPREAD.replace("FF.G.H.I..\n..........\nJ.........", "FF.G.H.I..\n..J.......\n..........")
    with pytest.raises(IllegalAction, match="jager · destroyer 3 touches torpedobåt · torpedo boat 4 at B5/C6"):
        game.place("A", by_corner)
    assert not game.state.players["A"].placed


def test_sjoslag_at_least_one_empty_square_between_any_two() -> None:
    game = Game("sjoslag")
    game.place("A", SJO_SPREAD)  # every gap is exactly one square wide
    assert game.state.players["A"].placed


def test_sjoslag_the_active_player_calls_a_square() -> None:
    game = started("sjoslag", first="B")
    with pytest.raises(NotYourTurn):
        game.fire("A", "J10")
    with pytest.raises(IllegalAction, match="fires 1 shots, not 2"):
        game.fire("B", "J10", "J9")
    game.fire("B", "J10")
    assert game.last_volley("B").squares() == (Square(9, 9),)


def test_sjoslag_miss_marked_with_a_dot_the_turn_passes() -> None:
    game = started("sjoslag")
    game.fire("A", "J10")
    assert [s.result for s in game.last_volley("A").shots] == ["miss"]
    assert game.state.turn == "B"


def test_sjoslag_hit_marked_with_a_cross_the_shooter_shoots_again() -> None:
    game = started("sjoslag")
    game.fire("A", "B1")
    shot = game.last_volley("A").shots[0]
    assert (shot.result, shot.ship) == ("hit", None)  # a hit does not name the ship here
    assert game.state.turn == "A"


def test_sjoslag_sunk_all_squares_around_the_ship_are_marked_as_misses_the_shooter_shoots_again() -> None:
    game = started("sjoslag")
    game.fire("A", "D5")  # torpedo boat
    volley = game.last_volley("A")
    grid = game.state.grid()
    assert [(s.result, s.ship) for s in volley.shots] == [("sunk", "torpedo_boat")]
    assert grid.names(volley.ring) == "C4/D4/E4/C5/E5/C6/D6/E6"
    assert game.state.turn == "A"
    view = bs.view_for(game.state, "player:A")
    assert sorted(view["boards"]["B"]["marked"]) == sorted(["C4", "D4", "E4", "C5", "E5", "C6", "D6", "E6"])
    assert "E5" not in next(a for a in view["actions"] if a["type"] == "fire")["squares"]
    with pytest.raises(IllegalAction, match="already been shot at or marked"):
        game.fire("A", "E5")
    # A ship along the edge: the ring stays on the grid.
    game.fire("A", "A1")
    game.fire("A", "B1")
    game.fire("A", "C1")
    game.fire("A", "D1")
    assert grid.names(game.last_volley("A").ring) == "E1/A2/B2/C2/D2/E2"


def test_sjoslag_win_the_first_to_sink_all_10_enemy_ships() -> None:
    game = started("sjoslag")
    grid = game.state.grid()
    squares = sorted((s for sh in game.state.players["B"].ships for s in sh.squares), key=lambda s: (s.row, s.col))
    for square in squares:
        assert game.state.turn == "A"  # every shot hits: A never loses the turn
        game.fire("A", grid.square_name(square))
    result = bs.outcome(game.state)
    assert result is not None and (result.winner, result.reason) == ("A", "fleet_sunk")
    assert bs.volleys_of(game.state, "B") == []


def test_sjoslag_rule_breaking_wrong_number_of_ships_is_refused_with_the_reason() -> None:
    game = Game("sjoslag")
    with pytest.raises(IllegalAction, match="torpedo boat: the sea lacks 1"):
        game.place("A", SJO_SPREAD.replace("J.........", ".........."))
    with pytest.raises(IllegalAction, match="torpedo boat: the fleet has 4, this sea has 5"):
        game.act(
            {
                "type": "place_fleet",
                "player": "A",
                "ships": [
                    *[
                        s.to_dict(game.state.grid())
                        for s in ships_from_text(SJO_SPREAD, game.state.ruleset.sea, game.state.ruleset.fleet)[1]
                    ],
                    {"id": "K", "kind": "torpedo_boat", "squares": ["J10"]},
                ],
            }
        )


def test_sjoslag_rule_breaking_touching_ships_is_refused_with_the_reason() -> None:
    with pytest.raises(IllegalAction, match="touches"):
        Game("sjoslag").place("A", SJO_SPREAD.replace("..........\nCCC.DD.EE.", "CCC.......\n....DD.EE."))


def test_sjoslag_rule_breaking_wrong_grid_or_coordinates_is_refused() -> None:
    game = Game("sjoslag")
    with pytest.raises(MalformedAction, match="K1 is off the 10×10 sea"):
        game.act({"type": "place_fleet", "player": "A", "ships": [{"kind": "torpedo_boat", "squares": ["K1"]}]})
    game = started("sjoslag")
    for bad in ("A11", "K1", "11A", 4):
        with pytest.raises(MalformedAction):
            game.fire("A", bad)  # type: ignore[arg-type]


def test_sjoslag_rule_breaking_a_ship_moved_during_play_cannot_happen() -> None:
    game = started("sjoslag")
    with pytest.raises(IllegalAction, match="no ship moves now"):
        game.place("B", SJO_SPREAD.replace("J.........", "........J."))


def test_sjoslag_rule_breaking_a_skipped_turn_cannot_happen_turns_are_enforced() -> None:
    game = started("sjoslag")
    game.fire("A", "J10")  # miss: B's turn
    with pytest.raises(NotYourTurn):
        game.fire("A", "J9")
    with pytest.raises(NotYourTurn, match="only player B or the referee"):
        game.act({"type": "fire", "player": "B", "squares": ["J9"]}, by="player:A")
    with pytest.raises(StaleVersion):
        game.act({"type": "fire", "player": "B", "squares": ["J9"], "version": game.state.version - 1})


def test_sjoslag_the_referee_can_end_a_game_as_a_forfeit_and_that_goes_into_the_log() -> None:
    game = started("sjoslag")
    game.fire("A", "J10")
    with pytest.raises(NotYourTurn):
        game.act({"type": "forfeit", "player": "A"}, by="player:B")  # nobody forfeits for the other
    game.act({"type": "forfeit", "player": "A", "reason": "left the club"}, by="referee")
    result = bs.outcome(game.state)
    assert result is not None and (result.winner, result.reason) == ("B", "forfeit")
    assert "left the club" in result.detail
    assert (game.log[-1].kind, game.log[-1].by) == ("forfeit", "referee")
    assert bs.replay(game.log).outcome == game.state.outcome
    resigned = started("zeeslag")
    resigned.act({"type": "forfeit", "player": "B"})
    assert bs.outcome(resigned.state) is not None and bs.outcome(resigned.state).reason == "resigned"  # type: ignore[union-attr]


# --- What the app adds as referee ------------------------------------------------------------


def test_app_each_fleet_is_hidden_from_the_other_player_by_the_server() -> None:
    flipped = "\n".join(reversed(SJO_SPREAD.strip().splitlines()))  # B's ships on rows 4, 6, 8, 10; A's on 1, 3, 5, 7
    game = started("sjoslag", sea_b=flipped)
    grid = game.state.grid()
    view = bs.view_for(game.state, "player:A")
    assert "ships" in view["boards"]["A"] and "ships" not in view["boards"]["B"]
    assert view["boards"]["B"]["remaining"] == list(game.state.ruleset.fleet)  # the enemy's ships, by kind only
    fire = next(a for a in view["actions"] if a["type"] == "fire")
    assert len(fire["squares"]) == 100  # every square may be called: the list tells nothing
    view["actions"] = []
    text = json.dumps(view)
    hidden = [grid.square_name(s) for sh in game.state.players["B"].ships for s in sh.squares]
    assert len(hidden) == 20 and not [n for n in hidden if f'"{n}"' in text]


def test_app_placement_is_checked_with_a_precise_reason_for_each_refusal() -> None:
    game = Game("sjoslag")
    two_faults = SJO_SPREAD.replace("AAAA.BBB..", "AAAABBB...").replace("FF.G.H.I..", "FFG..H.I..")
    with pytest.raises(IllegalAction) as refusal:
        game.place("A", two_faults)
    message = refusal.value.message
    assert "slagskip · battleship touches krysser · cruiser 1 at D1/E1" in message
    assert "jager · destroyer 3 touches torpedobåt · torpedo boat 1 at B5/C5" in message


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_app_random_placement_always_finds_a_fleet_that_fits(ruleset_id: str) -> None:
    ruleset = rs(ruleset_id)
    for seed in range(20):
        ships = random_sea(ruleset.grid(), ruleset.sea, ruleset.fleet, random.Random(seed))
        assert check_fleet(ruleset.grid(), ruleset.sea, ruleset.fleet, ships) == []


def test_app_a_projected_spectator_view_both_target_grids_never_the_ships_until_the_end() -> None:
    game = started("zeeslag")
    game.fire("A", "A1")
    game.fire("B", "J10")
    view = bs.view_for(game.state, "public")
    assert [s["square"] for s in view["boards"]["B"]["shots"]] == ["A1"]
    assert [s["square"] for s in view["boards"]["A"]["shots"]] == ["J10"]
    assert view["boards"]["B"]["shots"][0]["result"] == "hit"
    assert "ships" not in view["boards"]["A"] and "ships" not in view["boards"]["B"]
    assert bs.legal_actions(game.state, "public") == []
    game.act({"type": "forfeit", "player": "B"})
    end = bs.view_for(game.state, "public")
    assert len(end["boards"]["A"]["ships"]) == 5 and len(end["boards"]["B"]["ships"]) == 5


# --- answer(): the referee of one volley -----------------------------------------------------


def test_answer_counts_only_new_hits_and_sinks_on_the_last_square() -> None:
    ruleset = rs("zeeslag")
    fleet = [ship("destroyer", (0, 0), (1, 0), letter="E")]
    volley = answer_of(ruleset, fleet, {(0, 0)}, [(1, 0)])
    assert (volley.hits, volley.sunk, volley.shots[0].result) == (1, ("destroyer",), "sunk")


def answer_of(
    ruleset: bs.BattleshipRuleset, ships: list[Ship], hit: set[tuple[int, int]], squares: list[tuple[int, int]]
) -> Volley:
    return bs.answer(ruleset, ships, frozenset(Square(c, r) for c, r in hit), [Square(c, r) for c, r in squares])


def test_answer_totals_fill_counts_but_no_per_shot_results() -> None:
    ruleset = rs("zeeslag-salvo")
    fleet = [ship("destroyer", (0, 0), (1, 0), letter="E"), ship("cruiser", (0, 2), (1, 2), (2, 2), letter="C")]
    volley = answer_of(ruleset, fleet, set(), [(0, 0), (1, 0), (0, 2), (5, 5), (6, 6)])
    assert (volley.hits, volley.ships_hit, volley.sunk) == (3, ("cruiser", "destroyer", "destroyer"), ("destroyer",))
    assert [(s.result, s.ship) for s in volley.shots] == [(None, None)] * 5


# --- Whole games, one per ruleset ------------------------------------------------------------


def test_whole_game_zeeslag_classic() -> None:
    game = started("zeeslag", first="B")
    a_targets = iter(f"{row}{col}" for row in "ABCDEFGHIJ" for col in range(1, 11))
    b_targets = iter(f"{row}{col}" for row in "FGHIJ" for col in range(1, 11))
    shooters = []
    while game.state.phase == "playing":
        shooter = game.state.turn
        assert shooter is not None
        shooters.append(shooter)
        game.fire(shooter, next(a_targets) if shooter == "A" else next(b_targets))
    assert shooters[:4] == ["B", "A", "B", "A"] and all(x != y for x, y in itertools.pairwise(shooters))
    # A fires A1…E2 in board order and sinks the packed fleet on its 42nd shot (E2), B having fired 42 too.
    assert bs.outcome(game.state).winner == "A" and shooters.count("A") == 42  # type: ignore[union-attr]
    assert bs.view_for(game.state, "player:A")["boards"]["B"]["ships"]
    assert bs.state_to_dict(bs.replay(game.log)) == bs.state_to_dict(game.state)


def test_whole_game_zeeslag_salvo() -> None:
    game = started("zeeslag-salvo")
    grid = game.state.grid()
    b_fleet = sorted((s for sh in game.state.players["B"].ships for s in sh.squares), key=lambda s: (s.row, s.col))
    a_free = iter(f"{r}{c}" for r in "FGHIJ" for c in range(1, 11))
    a_misses = iter(f"{r}{c}" for r in "JIHGF" for c in range(1, 11))
    dues = []
    while game.state.phase == "playing":
        due = bs.shots_due(game.state)
        if game.state.turn == "A":
            dues.append(due)
            shots, b_fleet = b_fleet[:due], b_fleet[due:]
            names = [grid.square_name(s) for s in shots]
            game.fire("A", *names, *(next(a_misses) for _ in range(due - len(names))))
        else:
            game.fire("B", *(next(a_free) for _ in range(due)))
    # 17 squares, and B never loses a ship: four salvos of 5, the last with 2 hits and 3 misses.
    assert dues == [5, 5, 5, 5] and bs.outcome(game.state).winner == "A"  # type: ignore[union-attr]
    assert [v.hits for v in bs.volleys_of(game.state, "A")] == [5, 5, 5, 2]
    assert [len(v.sunk) for v in bs.volleys_of(game.state, "A")] == [1, 1, 2, 1]
    game2 = started("zeeslag-salvo", first="B")
    game2.fire("B", "A1", "A2", "A3", "A4", "A5")  # sinks A's carrier
    assert bs.shots_due(game2.state) == 4


def test_whole_game_sjoslag() -> None:
    game = started("sjoslag")
    rng = random.Random(7)
    play_random(game, rng)
    result = bs.outcome(game.state)
    assert result is not None and result.reason == "fleet_sunk"
    loser = game.state.players[bs.other(result.winner)]
    assert not loser.afloat() and len(loser.sunk) == 10
    # Every sinking marked its ring, and no marked square was ever fired at afterwards.
    for player in "AB":
        called = [s for v in bs.volleys_of(game.state, player) for s in v.squares()]
        assert len(called) == len(set(called))
        target = game.state.players[bs.other(player)]
        assert not set(target.marked) & set(target.shot_at)
    assert bs.state_to_dict(bs.replay(game.log)) == bs.state_to_dict(game.state)


# --- The ruleset files -----------------------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_ruleset_files_state_their_names_in_their_own_languages(ruleset_id: str) -> None:
    ruleset = rs(ruleset_id)
    assert ruleset.id == ruleset_id and ruleset.mode == "battleship"
    assert set(ruleset.names) >= {"nl", "nb", "en", "cs"}
    for kind in ruleset.sea.kinds.values():
        assert set(kind.names) >= {"nl", "nb", "cs"}
    assert isinstance(ruleset_from_dict(ruleset_raw(ruleset_id)), bs.BattleshipRuleset)


def test_sjoslag_ships_carry_norwegian_names() -> None:
    kinds = rs("sjoslag").sea.kinds
    assert [k.names["nb"] for k in kinds.values()] == ["slagskip", "krysser", "jager", "torpedobåt"]


def test_a_broken_battleship_ruleset_reports_every_problem_as_file_key_reason(tmp_path: Path) -> None:
    text = ruleset_path("sjoslag").read_text(encoding="utf-8")
    text = text.replace('shots = "one"', 'shots = "two"').replace("touching = false", "touching = true")
    text = text.replace("size = 10 ", "size = 4 ").replace("again_on_hit = true", 'again_on_hit = "yes"\nturbo = 1')
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_ruleset(path)
    lines = err.value.lines()
    keys = [line.split(": ")[1] for line in lines]
    assert all(line.startswith(f"{path}: ") for line in lines)
    assert set(keys) == {"fleet", "play.turbo", "play.shots", "play.again_on_hit", "play.sunk_ring"}
    assert any("too small for the fleet" in line for line in lines)
    assert any("ring is not sure water" in line for line in lines)


def test_a_battleship_ruleset_is_refused_by_the_air_raid_game() -> None:
    from referee.rules import airraid

    from ..airraid_helpers import PLAYERS

    teams = [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]
    action = {"type": "create_game", "ruleset": ruleset_raw("zeeslag"), "teams": teams}
    with pytest.raises(MalformedAction, match="takes an airraid ruleset, not 'battleship'"):
        airraid.create(action, at=0.0)


# --- The command line ------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_cli_rules_check_sea_place_and_sea_check_work_on_the_battleship_rulesets(
    ruleset_id: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    path = str(ruleset_path(ruleset_id))
    checked = runner.invoke(rules_group, ["check", path])
    assert checked.exit_code == 0 and checked.output.startswith(f"{path}: ok: ") and checked.output.count("\n") == 1
    first = runner.invoke(sea_group, ["place", path, "--seed", "3"])
    again = runner.invoke(sea_group, ["place", path, "--seed", "3"])
    assert first.exit_code == 0 and first.output == again.output
    rows = first.output.split()
    assert len(rows) == 10 and all(len(r) == 10 for r in rows)
    assert len({ch for r in rows for ch in r} - {"."}) == len(rs(ruleset_id).fleet)  # ships are letters
    sea_file = tmp_path / "sea.txt"
    sea_file.write_text(first.output, encoding="utf-8")
    assert (runner.invoke(sea_group, ["check", path, str(sea_file)]).output) == "ok\n"
    assert runner.invoke(sea_group, ["place", path, "--size", "10"]).exit_code == 0
    for options in (["--size", "8"], ["--players", "6"]):
        refused = runner.invoke(sea_group, ["place", path, *options])
        assert refused.exit_code == 2 and "leave" in refused.output
    small = tmp_path / "small.txt"
    small.write_text("\n".join(r[:9] for r in rows[:9]), encoding="utf-8")
    result = runner.invoke(sea_group, ["check", path, str(small)])
    assert result.exit_code == 1 and "the sea is 9×9, the game asks for 10×10" in result.output


def test_cli_sea_check_gives_sjoslag_reasons(tmp_path: Path) -> None:
    sea = tmp_path / "sea.txt"
    sea.write_text(SJO_SPREAD.replace("AAAA.BBB..", "AAAABBB..."), encoding="utf-8")
    result = CliRunner().invoke(sea_group, ["check", str(ruleset_path("sjoslag")), str(sea)])
    assert result.exit_code == 1
    assert "battleship touches cruiser 1 at D1/E1" in result.output.splitlines()


def test_cli_rules_check_broken_battleship_ruleset(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(
        ruleset_path("zeeslag").read_text(encoding="utf-8").replace('report = "named"', 'report = "loud"'),
        encoding="utf-8",
    )
    result = CliRunner().invoke(rules_group, ["check", str(path)])
    assert result.exit_code == 1
    assert result.output.strip() == f"{path}: play.report: 'loud' is not one of: named, hit_miss_sunk, totals"


# --- The store keeps Battleship games like air-raid ones --------------------------------------


def test_the_store_replays_and_snapshots_a_battleship_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.store import MODES, Store, make_engine, migrate

    monkeypatch.setitem(MODES, bs.MODE, bs.GAME)
    engine = make_engine(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    migrate(engine)
    store = Store(engine, snapshot_every=5)
    action = {
        "type": "create_game",
        "ruleset": ruleset_raw("sjoslag"),
        "players": {"A": "Eva", "B": "Ola"},
        "first": "A",
    }
    gid = store.create_game(bs.MODE, action, at=1.0, by="player:A").game_id
    for p in "AB":
        store.execute(gid, {"type": "place_fleet", "player": p, "sea": SJO_SPREAD}, at=2.0, by=f"player:{p}")
    rng = random.Random(11)
    while True:
        state, version = store.load(gid)
        if state.phase != "playing":
            break
        fire = next(a for a in bs.legal_actions(state, f"player:{state.turn}") if a["type"] == "fire")
        store.execute(
            gid,
            {"type": "fire", "player": state.turn, "squares": rng.sample(fire["squares"], 1)},
            at=3.0,
            by=f"player:{state.turn}",
            client_id=f"c{version}",
            version=version,
        )
    with pytest.raises(StaleVersion):
        store.execute(gid, {"type": "forfeit", "player": "A"}, at=4.0, by="player:A", version=version - 1)
    fresh, fresh_version = Store(engine, snapshot_every=5).load(gid)  # from the newest snapshot and the events after it
    assert fresh_version == version and bs.state_to_dict(fresh) == bs.state_to_dict(state)
    assert bs.outcome(fresh) is not None
    engine.dispose()


def test_an_unknown_field_is_refused_naming_the_action() -> None:
    game = Game("zeeslag")
    with pytest.raises(MalformedAction, match="unknown field 'bogus' in 'place_fleet'"):
        game.act({"type": "place_fleet", "player": "A", "ships": [], "bogus": 1})
