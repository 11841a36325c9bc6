"""Vestorsjø's hexes, corners and sides, and the map check (`map_problems`) on the small map and broken copies."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from referee.rules.errors import MalformedAction
from referee.rules.vestorsjo import Edge, Hex, Vertex, map_problems, read_board
from referee.rules.vestorsjo.ruleset import vestorsjo_from_dict

from .vestorsjo_maps import ruleset_data, small_map

REAL_MAP = Path(__file__).resolve().parents[2] / "config" / "maps" / "oresund.toml"


# --- Hexes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["A1", "F12", "Z99", "B5"])
def test_hex_parse_format_pair(text: str) -> None:
    assert Hex.parse(text).format() == text
    assert Hex.parse(text.lower()) == Hex.parse(text)


@pytest.mark.parametrize("text", ["", "5B", "A0", "AA1", "F", "F1/2", 12, None])
def test_hex_parse_refuses(text: Any) -> None:
    with pytest.raises(MalformedAction):
        Hex.parse(text)


def test_hex_coordinates_follow_odd_r() -> None:
    """A1 is column 0, row 0; rows 2, 4, … are shoved half a hex east (so B2 touches B1 and C1)."""
    assert Hex.parse("A1") == Hex(0, 0)
    assert Hex.parse("F12") == Hex(5, 11)
    assert {h.format() for h in Hex.parse("B2").neighbours() if h.row >= 0} == {"B1", "C1", "A2", "C2", "B3", "C3"}
    assert {h.format() for h in Hex.parse("B3").neighbours()} == {"A2", "B2", "A3", "C3", "A4", "B4"}


def test_distance_is_cube_distance() -> None:
    a = Hex.parse("A1")
    assert a.distance(a) == 0
    assert all(a.distance(n) == 1 for n in a.neighbours())
    assert Hex.parse("B3").distance(Hex.parse("B5")) == 2
    assert Hex.parse("A1").distance(Hex.parse("H1")) == 7
    assert Hex.parse("A1").distance(Hex.parse("A7")) == 6  # zig-zag down a column: one step a row
    for x in ("A1", "C4", "H9"):
        for y in ("B2", "G7", "D10"):
            assert Hex.parse(x).distance(Hex.parse(y)) == Hex.parse(y).distance(Hex.parse(x))


def test_vertex_and_edge_names_are_sorted_by_row_then_column() -> None:
    v = Vertex.of(Hex.parse("C5"), Hex.parse("B5"), Hex.parse("B4"))
    assert v.format() == "B4/B5/C5"
    assert Vertex.parse("C5/B4/B5") == v
    assert Edge.of(Hex.parse("B5"), Hex.parse("B4")).format() == "B4|B5"
    assert Edge.parse("B5|B4").format() == "B4|B5"


@pytest.mark.parametrize("text", ["B4/B5", "A1/C1/E1", "B4/B5/B5", "B4|B6", "A1|A1", "x"])
def test_vertex_and_edge_parse_refuse(text: str) -> None:
    with pytest.raises(MalformedAction):
        (Vertex.parse if "/" in text or text == "x" else Edge.parse)(text)


def test_corners_and_vertex_neighbours() -> None:
    h = Hex.parse("D5")
    corners = h.corners()
    assert len(set(corners)) == 6
    assert all(h in v.hexes for v in corners)
    for v in corners:
        assert len(set(v.neighbours())) == 3
        assert all(w.touches(v) for w in v.neighbours())
        # Two neighbouring corners share exactly two hexes: the side between them.
        for edge, w in v.steps():
            assert set(edge.hexes) == set(v.hexes) & set(w.hexes)
    # Going round a hex, each corner touches the next.
    assert all(corners[i].touches(corners[(i + 1) % 6]) for i in range(6))
    assert set(Edge.of(h, Hex.parse("E5")).ends()) <= set(corners)


# --- The map check --------------------------------------------------------------------------------


def test_the_small_map_is_clean() -> None:
    assert map_problems(small_map()) == []
    board = read_board(small_map(), vestorsjo_from_dict(ruleset_data()))
    assert board.columns == 8 and board.rows == 10
    assert len(board.ports) == 11


def _keys(data: dict[str, Any]) -> list[str]:
    return [f"{k}: {r}" for k, r in map_problems(data)]


def test_a_port_not_next_to_the_sea() -> None:
    data = small_map()
    data["map"]["terrain"][7] = "###...##"  # Kastrup C9 loses B8 and C8 …
    data["map"]["terrain"][8] = "##P#.P.#"  # … and D9: only land around it
    assert "ports[9].hex: Kastrup: C9 is not next to the sea" in _keys(data)


def test_a_port_off_its_hex_or_two_ports_on_one() -> None:
    data = small_map()
    data["ports"][2]["hex"] = "F2"  # Raû on a sea hex; G2 then names no port
    found = _keys(data)
    assert any("ports[2].hex" in line and "not a port hex" in line for line in found)
    assert any("G2 is a port hex that no port names" in line for line in found)
    data = small_map()
    data["ports"][2]["hex"] = "G1"
    assert any("already holds another port" in line for line in _keys(data))


def test_a_side_without_ports() -> None:
    data = small_map()
    for port in data["ports"]:
        port["side"] = "scania"
    found = _keys(data)
    assert "ports: zealand has no ports" in found


def test_a_strategic_port_unreachable_from_the_start() -> None:
    data = small_map()
    # Close Dragør (B7) by piers on every side: no corvette reaches it.
    data["piers"]["edges"] += ["B6|B7", "B7|C7", "B7|B8"]
    found = _keys(data)
    assert any(line.startswith("ports[7].hex: Dragør: a corvette of scania cannot sail there") for line in found)
    assert any(line.startswith("ports[7].hex: Dragør: a corvette of zealand cannot sail there") for line in found)


def test_a_dangling_pier() -> None:
    data = small_map()
    data["piers"]["edges"].append("D5|E5")
    data["piers"]["vertices"].append("D5/E5/D6")
    data["piers"]["edges"].append("H10|I10")
    found = _keys(data)
    assert "piers.edges[3]: D5|E5 dangles: a pier must touch a port hex" in found
    assert "piers.vertices[4]: D5/E5/D6 dangles: a pier must touch a port hex" in found
    assert "piers.edges[4]: H10|I10 is not on the map" in found


@pytest.mark.parametrize(
    ("side", "piece", "place", "why"),
    [
        ("scania", "frigate-1", "H5", "may not stand there"),  # land
        ("scania", "frigate-1", "G5", "is taken already"),  # the destroyer's
        ("scania", "destroyer", "G2", "may not stand there"),  # Raû admits frigates at most
        ("scania", "frigate-1", "B1", "enemy port"),  # Helsingør is Zealand's
        ("zealand", "corvette-1", "G1", "enemy port"),
        ("scania", "submarine-1", "B4/B5/C5", "may not stand there"),  # a pier corner, not a fort's
        ("scania", "submarine-1", "A4/A5/B5", "may not stand there"),  # no sea at that corner
        ("scania", "submarine-1", "C6/C7/D7", "is taken already"),  # Zealand's submarine's
        ("scania", "frigate-1", "F12", "may not stand there"),  # off the map
        ("scania", "submarine-1", "F3", "a vertex is written like"),
    ],
)
def test_an_illegal_start_place(side: str, piece: str, place: str, why: str) -> None:
    data = small_map()
    data["start"][side][piece] = place
    found = _keys(data)
    # A place taken twice is reported at whichever piece comes second.
    assert any((line.startswith(f"start.{side}.{piece}: ") or "taken" in why) and why in line for line in found), found


def test_a_submarine_may_start_on_a_forts_pier_corner() -> None:
    data = small_map()
    data["start"]["scania"]["submarine-1"] = "F3/E4/F4"
    assert map_problems(data) == []


def test_missing_and_unknown_start_pieces() -> None:
    data = small_map()
    del data["start"]["scania"]["corvette-4"]
    data["start"]["zealand"]["battleship"] = "D8"
    found = _keys(data)
    assert "start.scania.corvette-4: missing start place" in found
    assert any(line.startswith("start.zealand.battleship: unknown piece") for line in found)


def test_a_broken_grid() -> None:
    data = small_map()
    data["map"]["terrain"][3] = "#..x.P.#"
    assert [k for k, _ in map_problems(data)] == ["map.terrain[3]"]
    data = small_map()
    data["map"]["rows"] = 11
    assert [k for k, _ in map_problems(data)] == ["map.terrain"]


def test_port_corners_must_be_its_own_and_by_the_sea() -> None:
    data = small_map()
    data["ports"][5]["vertices"] = ["C5/D5/C6", "A4/A5/B5"]
    found = _keys(data)
    assert any("C5/D5/C6 is not a corner of the port's hex B5" in line for line in found)
    assert any("A4/A5/B5 is not a corner a submarine may stand on" in line for line in found)


# --- The real map, when it is there -----------------------------------------------------------------

SCANIA_PORTS = [
    "Limmhámnen", "Malme Syngor", "Malme Nor", "Lomme", "Vihójjana", "Bâsebetçs lajje", "Lanskròna",
    "Tçorkebakken", "Bækkvigen", "Boostahusen", "Aûlaboen", "Raû", "Hælsengbór",
]  # fmt: skip
ZEALAND_PORTS = [
    "Dragør", "Kastrup", "København SydSyd", "København Syd", "København Nord", "Tuborg", "Flakfort",
    "Middelgrunds fort", "Skovshoved", "Taarbæk", "Vedbæk", "Rungsted", "Sletten", "Humlebæk", "Espergærde",
    "Snekkersten", "Helsingør",
]  # fmt: skip


def test_the_real_map_if_it_is_there() -> None:
    """The Öresund map passes the check with the ruleset, and holds every port of both lists as the rules name them."""
    if not REAL_MAP.exists():
        pytest.skip("config/maps/oresund.toml is not written yet")
    data = tomllib.loads(REAL_MAP.read_text(encoding="utf-8"))
    rs = vestorsjo_from_dict(ruleset_data())
    assert map_problems(data, rs) == []
    board = read_board(data, rs)
    names = {p.name: p for p in board.ports}
    for side, listed in (("scania", SCANIA_PORTS), ("zealand", ZEALAND_PORTS)):
        for name in listed:
            assert any(n.startswith(name) for n in names), name
        assert {p.name for p in board.ports if p.side == side and p.strategic} == {
            n for n in names if any(n.startswith(s) for s in listed) and names[n].strategic
        }
    assert rs.safe_ports <= set(names)
    assert {p.name for p in board.ports if p.fort} == {"Flakfort", "Middelgrunds fort"}
