"""Battleship's ruleset as data: the grid, the fleet, touching, shots per turn, what a shot reports."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import (
    IllegalAction,
    Msg,
    Name,
)
from ..grid import Grid
from ..ruleset import (
    Problems,
    brief,
    check_fit,
    key_text,
    parse_fleet,
    parse_sea_rules,
)
from ..sea import SeaRules

MODE = "battleship"
PLAYERS = ("A", "B")
SHOTS_PER_TURN = ("one", "per_ship_afloat")
REPORTS = ("named", "hit_miss_sunk", "totals")
PER_SHOT_REPORTS = ("named", "hit_miss_sunk")
FIRSTS = ("choose", "A", "B")
COIN = "coin"  # a create_game's `first`: toss a coin for who starts
LEVELS = ("easy", "strong")
PLAY_KEYS = ("first", "shots", "report", "again_on_hit", "sunk_ring", "per_shot", "per_shot_report")
MAX_NAME = 40


def other(player: str) -> str:
    """Return the other player's id."""
    return "B" if player == "A" else "A"


# --- The ruleset -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BattleshipRuleset:
    """Everything the Battleship rules leave to the ruleset file.

    `report` is the rule in force: the file's `play.report`, or `per_shot_report` when the
    per-shot house rule is on (`per_shot`); `base_report` keeps the file's own.
    """

    id: str
    name: str
    names: dict[str, str]
    sea: SeaRules
    size: int
    fleet: tuple[str, ...]
    shots_per_turn: str
    report: str
    again_on_hit: bool
    sunk_ring: bool
    first: str = "choose"
    base_report: str = ""
    per_shot: bool = False
    per_shot_report: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    mode: str = MODE
    language: str | None = None  # the game's own language: its words stand beside the page's

    def grid(self, size: int | None = None) -> Grid:
        """Return the grid of a sea (its size is the ruleset's; `size` is accepted for the shared CLI)."""
        return self.sea.grid(self.size if size is None else size)

    def name_in(self, lang: str | None) -> str:
        """Return the ruleset's name in a language, falling back to its own."""
        return self.names.get(lang or "", self.name)

    def ship_word(self, kind_id: str) -> Name:
        """Return a ship kind's name in the game's own word beside each language's, e.g. "krysser · cruiser".

        In the own language itself the word stands once; a kind without an own word keeps its names.
        """
        kind = self.sea.kinds[kind_id]
        own = kind.names.get(self.language or "")
        if not own:
            return Name(kind.name, dict(kind.names))

        def beside(name: str) -> str:
            return name if name == own else f"{own} · {name}"

        names = {code: own if code == self.language else beside(name) for code, name in kind.names.items()}
        return Name(beside(kind.name), names)

    @property
    def worded_sea(self) -> SeaRules:
        """Return the sea rules with each kind named by `ship_word`: the names refusals and labels use."""
        kinds = {}
        for kind_id, kind in self.sea.kinds.items():
            word = self.ship_word(kind_id)
            kinds[kind_id] = dataclasses.replace(kind, name=str(word), names=word.names)
        return dataclasses.replace(self.sea, kinds=kinds)

    def with_per_shot(self, on: bool) -> BattleshipRuleset:
        """Return the ruleset with the per-shot house rule switched on or off."""
        if on and self.per_shot_report is None:
            raise IllegalAction(Msg("this ruleset has no per-shot house rule"))
        report = self.per_shot_report if on and self.per_shot_report else self.base_report
        return dataclasses.replace(self, per_shot=on, report=report)

    def shots_for(self, afloat: int) -> int:
        """Return how many shots a player with this many ships afloat fires in one turn."""
        return afloat if self.shots_per_turn == "per_ship_afloat" else 1

    def summary(self) -> str:
        """Describe the ruleset in one line."""
        grid = self.grid()
        rows, cols = grid.row_labels(), grid.column_labels()
        sizes = ", ".join(str(self.sea.kinds[k].shape.size) for k in self.fleet)
        shots = "one shot per turn" if self.shots_per_turn == "one" else "one shot per ship afloat"
        report = {"named": "hit names the ship", "hit_miss_sunk": "hit/miss/sunk", "totals": "salvo totals"}[
            self.report
        ]
        house = (
            f" (house rule per shot: {self.per_shot_report}{', on' if self.per_shot else ', off'})"
            if self.per_shot_report
            else ""
        )
        return (
            f"{self.name} ({self.id}): {self.size}×{self.size} sea, "
            f"rows {rows[0]}–{rows[-1]}, columns {cols[0]}–{cols[-1]}; "
            f"fleet of {len(self.fleet)} ({sizes}); ships {'may' if self.sea.touching else 'may not'} touch; "
            f"{'straight ships only' if self.sea.straight else 'shapes'}; {shots}; {report}{house}; "
            f"{'a hit shoots again' if self.again_on_hit else 'turns alternate'}"
            f"{'; the ring around a sunk ship is marked' if self.sunk_ring else ''}; "
            f"{'the creator picks who starts' if self.first == 'choose' else self.first + ' starts'}"
        )


def _choice(p: Problems, table: Mapping[str, Any], key: str, options: Sequence[str], default: str | None = None) -> str:
    value = table.get(key.rsplit(".", 1)[-1], default)
    if not isinstance(value, str) or value not in options:
        p.add(key, ("missing: " if value is None else f"{brief(value)} is not one of: ") + ", ".join(options))
        return options[0]
    return str(value)


def battleship_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> BattleshipRuleset:
    """Build and check a Battleship ruleset from parsed TOML; raise RulesetError listing every problem."""
    p = Problems(source)
    head = p.table(data, "ruleset")
    rid = p.text(head, "ruleset.id", MODE)
    mode = head.get("mode", MODE)
    if mode != MODE:
        p.add("ruleset.mode", f"this reader takes mode {MODE}, not {brief(mode)}")
    name = p.text(head, "ruleset.name", rid)
    names = p.names(head, "ruleset.names")
    language = head.get("language")
    if language is not None and not (
        isinstance(language, str) and 2 <= len(language) <= 8 and language.isascii() and language.isalpha()
    ):
        p.add("ruleset.language", f"must be a language code like nb or nl, not {brief(language)}")
        language = None
    before_sea = len(p.items)
    sea = parse_sea_rules(data, p)
    sea_table = data.get("sea") if isinstance(data.get("sea"), Mapping) else {}
    assert isinstance(sea_table, Mapping)
    before_fleet = len(p.items)
    size = p.bounded(sea_table, "sea.size")
    # parse_fleet holds the fleet to its bound, at most the 26 letters of a sea text.
    fleet = parse_fleet(data.get("fleet"), "fleet", sea.kinds, p)
    if fleet and len(p.items) == before_fleet and len(p.items) == before_sea:
        check_fit(size, sea, fleet, "fleet", "the fleet", p)

    play = p.table(data, "play")
    for key in play:
        if key not in PLAY_KEYS:
            p.add(f"play.{key_text(key)}", f"unknown rule (known: {', '.join(PLAY_KEYS)})")
    first = _choice(p, play, "play.first", FIRSTS, "choose")
    shots = _choice(p, play, "play.shots", SHOTS_PER_TURN)
    report = _choice(p, play, "play.report", REPORTS)
    again = p.flag(play, "play.again_on_hit", False)
    ring = p.flag(play, "play.sunk_ring", False)
    per_shot = p.flag(play, "play.per_shot", False)
    per_shot_report: str | None = None
    if "per_shot_report" in play:
        per_shot_report = _choice(p, play, "play.per_shot_report", PER_SHOT_REPORTS)
    elif per_shot:
        p.add("play.per_shot", "is true, but play.per_shot_report does not say what a shot then reports")
    if ring and sea.touching:
        # With touching ships the squares around a sunk ship may hold another ship: not sure water.
        p.add("play.sunk_ring", "needs sea.touching = false: with touching ships the ring is not sure water")
    p.raise_if_any()
    return BattleshipRuleset(
        id=rid,
        name=name,
        names=dict(names),
        sea=sea,
        size=size,
        fleet=fleet,
        shots_per_turn=shots,
        report=per_shot_report if per_shot and per_shot_report else report,
        again_on_hit=again,
        sunk_ring=ring,
        first=first,
        base_report=report,
        per_shot=per_shot,
        per_shot_report=per_shot_report,
        raw=data,
        language=language,
    )


def ship_name(rs: BattleshipRuleset, kind_id: str) -> Name:
    """Return a ship kind's name with its translations, for messages."""
    kind = rs.sea.kinds[kind_id]
    return Name(kind.name, dict(kind.names))
