"""The ships' names in Battleship: the game's own word beside the page's, and each ship told apart."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.rules import battleship as bs
from referee.rules.errors import IllegalAction, Msg, RulesetError
from referee.rules.grid import Grid, Square
from referee.rules.ruleset import load_ruleset
from referee.rules.sea import SeaRules, Ship, ShipKind, check_fleet, ship_labels

from ..battleship_helpers import Game, ruleset_raw
from .test_ruleset_and_sea import RULESET_PATH


def rs(ruleset_id: str) -> bs.BattleshipRuleset:
    return bs.battleship_from_dict(ruleset_raw(ruleset_id), ruleset_id)


def said(message: str, lang: str) -> str:
    """The message as a page in `lang` shows it (the catalogue left out: only the names change)."""
    assert isinstance(message, Msg)
    return message.localize(lambda text: text, lang)


# The sea editor letters its ships by their slot in the fleet: Sjøslag's battleship A,
# cruisers B and C, destroyers D–F, torpedo boats G–J.
def editor_ships(*placed: tuple[str, str, list[str]]) -> list[dict[str, Any]]:
    return [{"id": letter, "kind": kind, "squares": squares} for letter, kind, squares in placed]


# --- The game's own word beside the page's ---------------------------------------------------


def test_sjoslag_names_its_ships_in_norwegian_beside_the_page_language() -> None:
    ruleset = rs("sjoslag")
    assert ruleset.language == "nb"
    word = ruleset.ship_word("battleship")
    assert str(word) == "slagskip · battleship"  # English, and any language the ruleset does not name
    assert word.in_language("nb") == "slagskip"  # in Norwegian, once
    assert word.in_language("cs") == "slagskip · bitevní loď"
    assert word.in_language("en") == "slagskip · battleship"
    assert [str(ruleset.ship_word(k)) for k in ruleset.sea.kinds] == [
        "slagskip · battleship",
        "krysser · cruiser",
        "jager · destroyer",
        "torpedobåt · torpedo boat",
    ]


@pytest.mark.parametrize("ruleset_id", ["zeeslag", "zeeslag-salvo"])
def test_zeeslag_names_its_ships_in_dutch_beside_the_page_language(ruleset_id: str) -> None:
    ruleset = rs(ruleset_id)
    assert ruleset.language == "nl"
    assert [ruleset.ship_word(k).in_language("nl") for k in ruleset.sea.kinds] == [
        "vliegdekschip",
        "slagschip",
        "kruiser",
        "duikboot",
        "torpedobootjager",
    ]
    assert ruleset.ship_word("cruiser").in_language("sv") == "kruiser · kryssare"
    assert str(ruleset.ship_word("carrier")) == "vliegdekschip · aircraft carrier"


def test_a_ruleset_without_a_language_keeps_its_plain_names() -> None:
    raw = ruleset_raw("zeeslag")
    raw["ruleset"] = {k: v for k, v in raw["ruleset"].items() if k != "language"}  # a game stored before it
    ruleset = bs.battleship_from_dict(raw)
    assert ruleset.language is None
    assert (
        str(ruleset.ship_word("cruiser")) == "cruiser" and ruleset.ship_word("cruiser").in_language("nl") == "kruiser"
    )
    assert ruleset.worded_sea == ruleset.sea


@pytest.mark.parametrize("bad", ["", "n", "no-rsk", 7, "nederlands-lang"])
def test_a_ruleset_language_must_be_a_language_code(bad: object) -> None:
    raw = ruleset_raw("sjoslag")
    raw["ruleset"] = {**raw["ruleset"], "language": bad}
    with pytest.raises(RulesetError) as err:
        bs.battleship_from_dict(raw, "x.toml")
    assert [key for _, key, _ in err.value.problems] == ["ruleset.language"]


def test_the_refusal_names_the_ships_in_the_games_words() -> None:
    game = Game("zeeslag")
    ships = [
        {"kind": "carrier", "squares": ["A1", "A2", "A3", "A4", "A5"]},
        {"kind": "battleship", "squares": ["A2", "B2", "C2", "D2"]},
        {"kind": "cruiser", "squares": ["F1", "F2", "F3"]},
        {"kind": "submarine", "squares": ["H1", "H2", "H3"]},
        {"kind": "destroyer", "squares": ["J1", "J2"]},
    ]
    with pytest.raises(IllegalAction) as refusal:
        game.act({"type": "place_fleet", "player": "A", "ships": ships})
    assert refusal.value.message == "vliegdekschip · aircraft carrier overlaps slagschip · battleship at A2"
    assert said(refusal.value.message, "nl") == "vliegdekschip overlaps slagschip at A2"


# --- Each ship told apart --------------------------------------------------------------------


def test_a_half_placed_sjoslag_sea_says_which_cruiser_touches_the_battleship() -> None:
    game = Game("sjoslag")
    draft = bs.sea_draft(game.state, "player:A", "A")
    # Only the second cruiser of the tray (slot C) is on the sea, under the battleship.
    ships = editor_ships(("A", "battleship", ["A1", "B1", "C1", "D1"]), ("C", "cruiser", ["B2", "C2", "D2"]))
    touching = [p for p in draft.problems(ships) if "touches" in p.message]
    assert [p.message for p in touching] == [
        "slagskip · battleship touches krysser · cruiser 2 at A1/B2, B1/B2, B1/C2, C1/B2, C1/C2, C1/D2, D1/C2, D1/D2"
    ]
    assert touching[0].ships == ("A", "C")
    assert said(touching[0].message, "nb").startswith("slagskip touches krysser 2 at A1/B2")
    assert said(touching[0].message, "cs").startswith("slagskip · bitevní loď touches krysser · křižník 2 at ")


def test_two_cruisers_that_touch_are_named_apart() -> None:
    game = Game("sjoslag")
    draft = bs.sea_draft(game.state, "player:A", "A")
    ships = editor_ships(("B", "cruiser", ["A1", "B1", "C1"]), ("C", "cruiser", ["D2", "E2", "F2"]))
    touching = [p.message for p in draft.problems(ships) if "touches" in p.message]
    assert touching == ["krysser · cruiser 1 touches krysser · cruiser 2 at C1/D2"]


def test_the_placing_refusal_says_which_cruiser() -> None:
    game = Game("sjoslag")
    sea = """
AAAA......
BBB.......
..........
CCC.DD.EE.
..........
FF.G.H.I..
..........
J.........
..........
..........
"""
    with pytest.raises(IllegalAction) as refusal:
        game.place("A", sea)
    assert "slagskip · battleship touches krysser · cruiser 1 at " in refusal.value.message
    assert "cruiser 2" not in refusal.value.message  # the other cruiser lies clear
    assert not game.state.players["A"].placed


def test_a_players_own_sea_names_every_ship_apart() -> None:
    game = Game("sjoslag")
    game.place_random("A", random.Random(3))
    view = bs.view_for(game.state, "player:A")
    ships = view["boards"]["A"]["ships"]
    names = [s["name"] for s in ships]
    assert len(set(names)) == len(names) == 10
    assert names[:3] == ["slagskip · battleship", "krysser · cruiser 1", "krysser · cruiser 2"]
    assert [s["names"]["nb"] for s in ships[:4]] == ["slagskip", "krysser 1", "krysser 2", "jager 1"]
    assert view["ruleset"]["language"] == "nb"


# --- ship_labels, which the air raid shares --------------------------------------------------

KINDS = SeaRules(
    {
        "cruiser": ShipKind("cruiser", "cruiser", load_ruleset(RULESET_PATH).sea.kinds["cruiser"].shape),
        "two": ShipKind("two", "ship-two", load_ruleset(RULESET_PATH).sea.kinds["two"].shape, {"cs": "loď dvojka"}),
    }
)


def two(letter: str, *squares: tuple[int, int]) -> Ship:
    return Ship(letter, "two", frozenset(Square(c, r) for c, r in squares))


def test_labels_are_made_once_a_fleet_and_handed_out_as_copies() -> None:
    ships = [two("B", (0, 0), (1, 0)), two("C", (0, 2), (1, 2))]
    first = ship_labels(KINDS, ships)
    first["B"] = first["C"]  # a caller's own dict: the next caller still gets the names
    again = ship_labels(KINDS, list(ships))
    assert [str(again[s.id]) for s in ships] == ["ship-two 1", "ship-two 2"]
    # Other rules of the same kinds are other rules: their names are their own.
    other = SeaRules({"two": ShipKind("two", "deuce", KINDS.kinds["two"].shape)})
    assert str(ship_labels(other, ships)["B"]) == "deuce 1"


def test_labels_without_the_fleet_number_the_ships_in_their_order_as_before() -> None:
    ships = [two("B", (0, 0), (1, 0)), two("C", (0, 2), (1, 2))]
    labels = ship_labels(KINDS, ships)
    assert [str(labels[s.id]) for s in ships] == ["ship-two 1", "ship-two 2"]
    assert labels["C"].in_language("cs") == "loď dvojka 2"
    assert str(ship_labels(KINDS, ships[:1])["B"]) == "ship-two"


def test_labels_with_the_fleet_take_the_trays_number_before_the_fleet_is_complete() -> None:
    fleet = ["cruiser", "two", "two"]
    second = two("C", (0, 2), (1, 2))  # the tray's second ship-two, alone on the sea
    assert str(ship_labels(KINDS, [second], fleet=fleet)["C"]) == "ship-two 2"
    ships = [two("C", (0, 2), (1, 2)), two("B", (0, 0), (1, 0))]
    labels = ship_labels(KINDS, ships, fleet=fleet)
    assert (str(labels["B"]), str(labels["C"])) == ("ship-two 1", "ship-two 2")


def test_labels_of_ships_lettered_off_their_slots_stay_distinct() -> None:
    # A sea text letters ships as it likes: no slot to go by, so they count up, skipping the taken.
    fleet = ["cruiser", "two", "two"]
    ships = [two("X", (0, 0), (1, 0)), two("C", (0, 2), (1, 2))]
    labels = ship_labels(KINDS, ships, fleet=fleet)
    assert (str(labels["X"]), str(labels["C"])) == ("ship-two 1", "ship-two 2")


def test_the_check_names_the_second_ship_two_of_a_half_placed_air_raid_sea() -> None:
    fleet = ["cruiser", "two", "two"]
    cruiser = Ship("A", "cruiser", frozenset(Square(c, 0) for c in range(4)))
    problems = [p.message for p in check_fleet(Grid(7), KINDS, fleet, [cruiser, two("C", (0, 1), (1, 1))])]
    assert "cruiser touches ship-two 2 at A1/A2, A1/B2, B1/A2, B1/B2, C1/B2" in problems
