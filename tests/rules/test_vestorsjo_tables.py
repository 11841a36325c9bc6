"""Vestorsjø's tables cell by cell: the gunnery table and the submarine table as the rules file writes them,
against the ruleset data the game plays with."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.rules.ruleset import Problems
from referee.rules.vestorsjo.ruleset import chances, read_row, vestorsjo_from_dict

from .vestorsjo_maps import ruleset_data

RULES_MD = Path("/work/shared/rules/vestorsjo.md")
if not RULES_MD.exists():
    RULES_MD = Path(__file__).resolve().parents[3] / "shared" / "rules" / "vestorsjo.md"
DAMAGE = {"undamaged": 0, "hit once": 1, "hit twice": 2, "hit three times": 3}
_CELL = re.compile(r"(\d): ((?:[-\d] ){5}[-\d])")


def _rules_text() -> str:
    if not RULES_MD.exists():
        pytest.skip(f"the rules file {RULES_MD} is not here")
    return RULES_MD.read_text(encoding="utf-8")


def gunnery_as_written() -> dict[tuple[str, int, int], list[int]]:
    """Read the gunnery table from the rules file: (class, hits, range) -> hits for die faces 1 to 6."""
    text = _rules_text()
    block = text.split("```", 2)[1]
    table: dict[tuple[str, int, int], list[int]] = {}
    cls, hits = "", 0
    for line in block.splitlines():
        head = re.match(r"^(Corvette|Frigate|Destroyer)\s+(undamaged|hit once|hit twice|hit three times)", line)
        if head:
            cls, hits = head.group(1).lower(), DAMAGE[head.group(2)]
        for distance, row in _CELL.findall(line):
            table[(cls, hits, int(distance))] = [0 if c == "-" else int(c) for c in row.split()]
    return table


def submarine_table_as_written() -> dict[str, list[int]]:
    """Read the submarine combat sentences ("ship attacks submarine: 5 or 6 → 1 hit") into rows for faces 1 to 6."""
    text = " ".join(_rules_text().split())
    rows: dict[str, list[int]] = {}
    for who, whom, clauses in re.findall(
        r"([Ss]ubmarine|[Ss]hip) attacks (ship|submarine): ((?:[\d ,or]+→ \d hits?,? ?)+)", text
    ):
        row = [0] * 6
        for faces, hits in re.findall(r"((?:\d(?: or )?)+) → (\d) hit", clauses):
            for face in faces.split(" or "):
                row[int(face) - 1] = int(hits)
        rows[f"{who.lower()}_attacks_{whom}"] = row
    assert sorted(rows) == ["ship_attacks_submarine", "submarine_attacks_ship", "submarine_attacks_submarine"], rows
    return rows


RULESET = vestorsjo_from_dict(ruleset_data())
WRITTEN = gunnery_as_written() if RULES_MD.exists() else {}
CELLS = [(cls, hits, distance, face) for (cls, hits, distance) in sorted(WRITTEN) for face in range(1, 7)]


def test_the_table_has_every_row_of_the_rules() -> None:
    """Corvette 2 ranges, frigate 2×4, destroyer 4×6: 34 rows, and the ruleset has exactly these."""
    assert len(WRITTEN) == 2 + 8 + 24
    ours = {
        (cls, hits, d + 1)
        for cls, tables in RULESET.gunnery.items()
        for hits, rows in enumerate(tables)
        for d in range(len(rows))
    }
    assert ours == set(WRITTEN)


@pytest.mark.parametrize(("cls", "hits", "distance", "face"), CELLS)
def test_gunnery_cell(cls: str, hits: int, distance: int, face: int) -> None:
    """Each cell of the gunnery table: the hits a die face makes for a shooter class, damage and range."""
    row = RULESET.gunnery_row(cls, hits, distance)
    assert row is not None
    assert row[face - 1] == WRITTEN[(cls, hits, distance)][face - 1]


@pytest.mark.parametrize(
    ("cls", "hits", "most"),
    [("corvette", 0, 2), ("frigate", 0, 4), ("frigate", 1, 4)] + [("destroyer", h, 6) for h in range(4)],
)
def test_ranges_end_where_the_table_ends(cls: str, hits: int, most: int) -> None:
    """Ranges 1 to the table's maximum; nothing beyond, nothing at 0."""
    assert RULESET.max_range(cls, hits) == most
    assert RULESET.gunnery_row(cls, hits, most + 1) is None
    assert RULESET.gunnery_row(cls, hits, 0) is None


SUB_ROWS = submarine_table_as_written() if RULES_MD.exists() else {}


@pytest.mark.parametrize(("table", "face"), [(t, f) for t in sorted(SUB_ROWS) for f in range(1, 7)])
def test_submarine_cell(table: str, face: int) -> None:
    """Each cell of the submarine table."""
    assert getattr(RULESET, table)[face - 1] == SUB_ROWS[table][face - 1]


def test_the_seed_table_is_the_ruleset_table() -> None:
    """The Swedish seed's own table lines agree with the ruleset (as a check on the English transcription)."""
    seed = RULES_MD.parent.parent / "seeds" / "000_7ed2919f42630ea3.txt"
    if not seed.exists():
        pytest.skip("the seed is not here")
    text = seed.read_text(encoding="utf-8")
    rows = {"Korvett": "corvette", "Fregatt": "frigate", "Jagare": "destroyer"}
    cls = ""
    seen = 0
    for line in text.splitlines():
        words = line.split()
        if words and words[0] in rows and "steg" in line:
            cls = rows[words[0]]
            words = words[1:]
        if len(words) < 8 or words[1] != "steg" or not words[0].isdigit():
            continue
        distance = int(words[0])
        cells = words[2:]
        for hits in range(len(cells) // 6):
            assert list(RULESET.gunnery_row(cls, hits, distance) or ()) == [
                0 if c == "-" else int(c) for c in cells[6 * hits : 6 * hits + 6]
            ], (cls, hits, distance)
            seen += 1
    assert seen == 34


@pytest.mark.parametrize(
    ("row", "chance", "expected"),
    [
        ("- - 1 1 2 2", 4 / 6, 6 / 6),
        ("- - - - - 1", 1 / 6, 1 / 6),
        ("- - - - 2 4", 2 / 6, 1.0),
        ("- 1 1 1 2 2", 5 / 6, 7 / 6),
    ],
)
def test_hit_chances(row: str, chance: float, expected: float) -> None:
    """The chance of at least one hit and the expected hits a target is shown with."""
    parsed = read_row(row, "x", Problems("t"))
    assert parsed is not None
    assert chances(parsed) == pytest.approx((chance, expected))
