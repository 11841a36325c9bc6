"""Battleship (Zeeslag classic and salvo, Sjøslag) as a pure event fold, every rule read from the ruleset.

The module's surface mirrors `airraid.py`:

- `battleship_from_dict(data, source)` reads and checks a ruleset (`[ruleset] mode = "battleship"`);
- `answer(ruleset, ships, already_hit, squares)` is the referee of one volley: what the shooter is told;
- `create` / `apply` / `fold` / `replay` run the game; `legal_actions(state, role)` lists what a role
  may do now; `view_for(state, role)` is the only place secrets are stripped; `outcome(state)` tells
  who won; `volleys_of(state, player)` is every volley a player fired, as that player was told it.

Players are "A" and "B"; roles are "player:A", "player:B", "referee" and "public".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from . import battleship_ai
from .engine import SEED, Engine, Fields, Rules, chance
from .errors import IllegalAction, MalformedAction, Msg, Name, NotYourTurn, RulesetError, join_msgs
from .events import JSON, Event, Role, log_state_from_dict, log_state_to_dict
from .grid import LETTERS, Grid, Square
from .ruleset import Problems, brief, check_fit, key_text, mode_ruleset, parse_fleet, parse_sea_rules
from .sea import SeaRules, Ship, check_fleet, ship_labels, ships_from_text
from .shots import Shot, Volley

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

__all__ = [
    "MODE", "PLAYERS", "BattleshipRuleset", "battleship_from_dict", "answer", "Player", "Outcome", "State",
    "Event", "event_from_dict", "create", "apply", "fold", "replay", "outcome", "state_to_dict",
    "state_from_dict", "legal_actions", "view_for", "volleys_of", "shots_due", "other",
    "CHANCE", "COIN", "read_ruleset", "audiences", "next_deadline", "computer_due",
]


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

    def grid(self, size: int | None = None) -> Grid:
        """Return the grid of a sea (its size is the ruleset's; `size` is accepted for the shared CLI)."""
        return self.sea.grid(self.size if size is None else size)

    def name_in(self, lang: str | None) -> str:
        """Return the ruleset's name in a language, falling back to its own."""
        return self.names.get(lang or "", self.name)

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
        report = {"named": "hit names the ship", "hit_miss_sunk": "hit/miss/sunk", "totals": "salvo totals"}[self.report]
        house = f" (house rule per shot: {self.per_shot_report}{', on' if self.per_shot else ', off'})" if self.per_shot_report else ""
        return (
            f"{self.name} ({self.id}): {self.size}×{self.size} sea, rows {rows[0]}–{rows[-1]}, columns {cols[0]}–{cols[-1]}; "
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
    )


# --- One volley, refereed --------------------------------------------------------------------


def ring_of(grid: Grid, squares: Iterable[Square]) -> tuple[Square, ...]:
    """Return the squares around a ship (sides and corners) that lie on the grid, sorted."""
    body = set(squares)
    around = {n for s in body for n in s.neighbours8() if grid.contains(n) and n not in body}
    return tuple(sorted(around, key=lambda s: (s.row, s.col)))


def answer(ruleset: BattleshipRuleset, ships: Sequence[Ship], already_hit: frozenset[Square], squares: Sequence[Square]) -> Volley:
    """Referee one volley at a fleet: return what the shooter is told under the ruleset's report rule.

    `already_hit` holds the squares shot at this fleet before (misses in it change nothing).
    Per-shot reports answer each square in calling order, so a ship sunk by the second shot of a
    salvo reads "sunk" there; "totals" leaves every shot's result empty. `hits`, `ships_hit` and
    `sunk` are always filled; `ring` holds the squares around each ship sunk when the ruleset
    marks them.
    """
    grid = ruleset.grid()
    where = {s: ship for ship in ships for s in ship.squares}
    struck = set(already_hit)
    told: list[Shot] = []
    ships_hit: list[str] = []
    sunk: list[str] = []
    ring: list[Square] = []
    for square in squares:
        ship = where.get(square)
        if ship is None or square in struck:
            # A square already hit strikes nothing new; the game refuses such shots, but
            # `answer` stays total for the AI's simulations.
            struck.add(square)
            told.append(Shot(square) if ruleset.report == "totals" else Shot(square, "miss"))
            continue
        struck.add(square)
        ships_hit.append(ship.kind)
        result = "hit"
        if ship.squares <= struck:
            result = "sunk"
            sunk.append(ship.kind)
            if ruleset.sunk_ring:
                ring.extend(s for s in ring_of(grid, ship.squares) if s not in ring)
        if ruleset.report == "totals":
            told.append(Shot(square))
        elif ruleset.report == "named" or result == "sunk":
            told.append(Shot(square, result, ship.kind))
        else:
            told.append(Shot(square, result))
    return Volley(tuple(told), len(ships_hit), tuple(sorted(ships_hit)), tuple(sunk), tuple(ring))


# --- State -----------------------------------------------------------------------------------


@dataclass
class Player:
    """One side: its name, its fleet and what the enemy did to it, and the volleys it fired."""

    id: str
    name: str
    computer: str | None = None
    ships: list[Ship] = field(default_factory=list)
    placed: bool = False
    shot_at: list[Square] = field(default_factory=list)  # squares the enemy called at this sea, in order
    marked: list[Square] = field(default_factory=list)  # ring squares marked as sure water on this sea
    sunk: list[str] = field(default_factory=list)  # ids of this player's ships sunk, in order
    volleys: list[Volley] = field(default_factory=list)  # what this player fired, as it was told

    def afloat(self) -> list[Ship]:
        """Return the ships not yet sunk."""
        return [s for s in self.ships if s.id not in self.sunk]

    def closed(self) -> set[Square]:
        """Return the squares of this sea that may not be fired at again: called or marked."""
        return set(self.shot_at) | set(self.marked)


@dataclass
class Outcome:
    """How the game ended: the winner, why ("fleet_sunk", "resigned" or "forfeit"), and in words."""

    winner: str
    reason: str
    detail: str
    seq: int


@dataclass
class State:
    """The whole game, as the fold of its events."""

    ruleset_raw: dict[str, Any]
    players: dict[str, Player]
    first: str
    per_shot: bool = False
    hotseat: bool = False
    phase: str = "placing"  # placing → playing → over
    turn: str | None = None
    turns: int = 0  # volleys fired so far
    last: str | None = None  # who fired the latest volley
    outcome: Outcome | None = None
    version: int = 0
    log: tuple[Event, ...] = ()
    skipped: dict[int, str] = field(default_factory=dict)
    ruleset: BattleshipRuleset = field(default=None, metadata={"encode": False})  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.ruleset is None:
            self.ruleset = battleship_from_dict(self.ruleset_raw).with_per_shot(self.per_shot)

    @property
    def over(self) -> str | None:
        """Return how the game ended, in words, once it has; None while it goes on."""
        if self.phase != "over":
            return None
        return self.outcome.detail if self.outcome else ""

    def grid(self) -> Grid:
        """Return the grid both seas share."""
        return self.ruleset.grid()


def shots_due(state: State) -> int:
    """Return how many squares the player to move must call now (0 when nobody is to move)."""
    if state.phase != "playing" or state.turn is None:
        return 0
    shooter, target = state.players[state.turn], state.players[other(state.turn)]
    free = state.ruleset.size ** 2 - len(target.closed())
    return min(state.ruleset.shots_for(len(shooter.afloat())), free)


# --- Reading actions -------------------------------------------------------------------------


def _fields(data: Mapping[str, Any], allowed: Sequence[str]) -> Mapping[str, Any]:
    return Fields(data, allowed).data


def _player_field(data: Mapping[str, Any]) -> str:
    player = data.get("player")
    if player not in PLAYERS:
        raise MalformedAction(Msg("player must be A or B, not {player!r}", player=player))
    return str(player)


def _may_act(role: Role, player: str) -> bool:
    return role.kind == "referee" or (role.kind == "player" and role.subject == player)


def _require(role: Role, player: str) -> None:
    if not _may_act(role, player):
        raise NotYourTurn(Msg("only player {player} or the referee may do this", player=player))


def _name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise MalformedAction(Msg("{key} must be a name", key=key))
    if len(value.strip()) > MAX_NAME:
        raise MalformedAction(Msg("{key} is longer than {limit} characters", key=key, limit=MAX_NAME))
    return value.strip()


def _setup_game(event: Event) -> State:
    if Role.from_str(event.by).kind not in ("referee", "player"):
        raise NotYourTurn(Msg("only the referee or a player creates a game"))
    data = _fields(event.data, ("ruleset", "players", "first", "computer", "hotseat", "per_shot", SEED))
    raw = data.get("ruleset")
    if not isinstance(raw, Mapping):
        raise MalformedAction(Msg("ruleset must be the ruleset's data (a parsed ruleset file)"))
    try:
        ruleset = battleship_from_dict(raw)
    except RulesetError as exc:
        raise MalformedAction(Msg("the ruleset is broken: {problems}", problems="; ".join(exc.lines()))) from exc
    names = data.get("players")
    if not isinstance(names, Mapping) or sorted(names) != sorted(PLAYERS):
        raise MalformedAction(Msg('players must name both sides: {{"A": name, "B": name}}'))
    players = {p: Player(p, _name(names[p], f"players.{p}")) for p in PLAYERS}
    if players["A"].name.casefold() == players["B"].name.casefold():
        raise MalformedAction(Msg("the two players need different names"))
    computer = data.get("computer") or {}
    if not isinstance(computer, Mapping) or any(p not in PLAYERS or lvl not in LEVELS for p, lvl in computer.items()):
        raise MalformedAction(Msg('computer must be like {{"B": "strong"}}, levels easy or strong'))
    if len(computer) == 2:
        raise IllegalAction(Msg("at least one player must be a person"))
    for p, level in computer.items():
        players[p].computer = str(level)
    first = data.get("first")
    if first is None:
        first = "A" if ruleset.first == "choose" else ruleset.first
    elif first == COIN:
        # The toss is the game's own chance: the seed is in the create_game event, so a replay tosses alike.
        first = chance(event).choice(PLAYERS) if ruleset.first == "choose" else ruleset.first
    if first not in PLAYERS:
        raise MalformedAction(Msg("first must be A or B, not {first!r}", first=first))
    if ruleset.first != "choose" and first != ruleset.first:
        raise IllegalAction(Msg("this ruleset has player {first} start", first=ruleset.first))
    hotseat = data.get("hotseat", False)
    per_shot = data.get("per_shot", ruleset.per_shot)
    if not isinstance(hotseat, bool) or not isinstance(per_shot, bool):
        raise MalformedAction(Msg("hotseat and per_shot are true or false"))
    return State(dict(raw), players, str(first), per_shot, hotseat, ruleset=ruleset.with_per_shot(per_shot))


def _parse_fleet(state: State, player: str, data: Mapping[str, Any]) -> list[Ship]:
    grid = state.grid()
    rs = state.ruleset
    if ("ships" in data) == ("sea" in data):
        raise MalformedAction(Msg("place the fleet as ships or as a sea text, one of the two"))
    if "sea" in data:
        text = data["sea"]
        if not isinstance(text, str) or len(text) > 2000:
            raise MalformedAction(Msg("sea must be the sea written as text"))
        _, ships, problems = ships_from_text(text, rs.sea, rs.fleet, rs.size)
        if problems:
            raise IllegalAction(join_msgs([p.message for p in problems]))
        return ships
    raw = data.get("ships")
    if not isinstance(raw, list) or len(raw) > len(LETTERS):
        raise MalformedAction(Msg("ships must be a list of the fleet's ships"))
    ships = []
    for i, item in enumerate(raw):
        ship = Ship.from_dict(item, grid)
        ships.append(Ship(ship.id or LETTERS[i], ship.kind, ship.squares))
    problems = check_fleet(grid, rs.sea, rs.fleet, ships)
    if problems:
        raise IllegalAction(join_msgs([p.message for p in problems]))
    return ships


def _place_fleet(state: State, event: Event, role: Role) -> None:
    data = _fields(event.data, ("player", "ships", "sea"))
    player = _player_field(data)
    _require(role, player)
    if state.phase != "placing":
        raise IllegalAction(Msg("play has started: no ship moves now"))
    side = state.players[player]
    if side.placed:
        raise IllegalAction(Msg("{name}'s fleet is already placed", name=side.name))
    side.ships = _parse_fleet(state, player, data)
    side.placed = True
    if all(state.players[p].placed for p in PLAYERS):
        state.phase = "playing"
        state.turn = state.first


def _fire(state: State, event: Event, role: Role) -> None:
    data = _fields(event.data, ("player", "squares"))
    player = _player_field(data)
    _require(role, player)
    if state.phase != "playing":
        raise IllegalAction(Msg("play has not started: both fleets must be placed first"))
    if state.turn != player:
        raise NotYourTurn(Msg("it is {name}'s turn", name=state.players[other(player)].name))
    grid = state.grid()
    raw = data.get("squares")
    if not isinstance(raw, list) or not raw or len(raw) > grid.size ** 2:
        raise MalformedAction(Msg("squares must list the squares called, like [\"C4\"]"))
    squares = [grid.parse_square(s) for s in raw]
    due = shots_due(state)
    if len(squares) != due:
        raise IllegalAction(Msg("this turn fires {due} shots, not {count}", due=due, count=len(squares)))
    twice = sorted({s for s in squares if squares.count(s) > 1})
    if twice:
        raise IllegalAction(Msg("{names} is called twice", names=grid.names(twice)))
    target = state.players[other(player)]
    closed = target.closed()
    again = [s for s in squares if s in closed]
    if again:
        raise IllegalAction(Msg("{names} has already been shot at or marked", names=grid.names(again)))
    struck = frozenset(target.shot_at)
    volley = answer(state.ruleset, target.ships, struck, squares)
    target.shot_at.extend(squares)
    target.marked.extend(s for s in volley.ring if s not in closed and s not in squares and s not in target.marked)
    now_struck = struck | set(squares)
    target.sunk.extend(s.id for s in target.afloat() if s.squares <= now_struck)
    state.players[player].volleys.append(volley)
    state.turns += 1
    state.last = player
    if not target.afloat():
        _end(state, player, "fleet_sunk", Msg("{name} sank the whole fleet", name=state.players[player].name), event.seq)
        return
    state.turn = player if state.ruleset.again_on_hit and volley.hits else other(player)


def _forfeit(state: State, event: Event, role: Role) -> None:
    data = _fields(event.data, ("player", "reason"))
    player = _player_field(data)
    _require(role, player)
    reason = data.get("reason", "")
    if not isinstance(reason, str) or len(reason) > 300:
        raise MalformedAction(Msg("reason is text of at most 300 characters"))
    name = state.players[player].name
    if role.kind == "referee":
        detail = Msg("{name} forfeits: {reason}", name=name, reason=reason.strip()) if reason.strip() else Msg("{name} forfeits", name=name)
        _end(state, other(player), "forfeit", detail, event.seq)
    else:
        _end(state, other(player), "resigned", Msg("{name} resigned", name=name), event.seq)


def computer_due(state: State) -> str | None:
    """Return the player the computer plays who is to act now (place its fleet, or fire), if any."""
    for p, side in state.players.items():
        if side.computer is None:
            continue
        if (state.phase == "placing" and not side.placed) or (state.phase == "playing" and state.turn == p):
            return p
    return None


def _computer_move(state: State, event: Event, role: Role) -> Mapping[str, Any]:
    """The computer places its fleet or fires, by its own choice from the event's chance.

    What it chose is bound into the event, so a replay places and fires alike without thinking
    again (a strong shot costs tens of milliseconds).
    """
    data = _fields(event.data, ("player", "ships", "squares", SEED))
    player = _player_field(data)
    _require(role, player)
    side = state.players[player]
    if side.computer is None:
        raise IllegalAction(Msg("{name} is not played by the computer", name=side.name))
    if computer_due(state) != player:
        raise IllegalAction(Msg("the computer has nothing to do now"))
    rs = state.ruleset
    grid = rs.grid()
    move: dict[str, Any]
    if state.phase == "placing":
        if "ships" in data:
            move = {"ships": data["ships"]}
        else:
            ships = battleship_ai.place_fleet(grid, rs.sea, rs.fleet, chance(event))
            move = {"ships": [s.to_dict(grid) for s in ships]}
        _place_fleet(state, Event(event.seq, "place_fleet", {"player": player, **move}, event.at, event.by), role)
        return move
    if "squares" in data:
        move = {"squares": data["squares"]}
    else:
        assert side.computer is not None
        squares = battleship_ai.choose_shots(grid, rs.sea, rs.fleet, volleys_of(state, player), shots_due(state), chance(event), side.computer)
        move = {"squares": [grid.square_name(s) for s in squares]}
    _fire(state, Event(event.seq, "fire", {"player": player, **move}, event.at, event.by), role)
    return move


def _end(state: State, winner: str, reason: str, detail: str, seq: int) -> None:
    state.phase = "over"
    state.turn = None
    state.outcome = Outcome(winner, reason, detail, seq)


HANDLERS = {"place_fleet": _place_fleet, "fire": _fire, "forfeit": _forfeit, "computer_move": _computer_move}
CHANCE: frozenset[str] = frozenset({"create_game", "computer_move"})
"""The kinds of action that take a seed from the server: the coin toss, the computer's choices."""
BINDINGS: dict[str, frozenset[str]] = {"computer_move": frozenset({"ships", "squares"})}


# --- Folding ---------------------------------------------------------------------------------


def _clone(state: State) -> State:
    # Ships, volleys, squares and the ruleset are immutable: copying the lists that hold them
    # is enough, and keeps an action cheap however long the game (a deepcopy cost ~40 ms late on).
    players = {
        p: dataclasses.replace(side, ships=list(side.ships), shot_at=list(side.shot_at), marked=list(side.marked), sunk=list(side.sunk), volleys=list(side.volleys))
        for p, side in state.players.items()
    }
    return dataclasses.replace(state, players=players)


ENGINE = Engine(
    Rules(mode=MODE, setup=_setup_game, handlers=HANDLERS, clone=_clone, chance=CHANCE, bindings=BINDINGS, written=BINDINGS)
)


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Rebuild a stored event (for the store)."""
    return Event.from_dict(data)


def create(action: Mapping[str, Any], *, at: float, by: str = "referee", seed: int | None = None) -> tuple[State, list[Event]]:
    """Start a game from a create_game action; return the state and its first event."""
    return ENGINE.create(action, at=at, by=by, seed=seed)


def apply(state: State, action: Mapping[str, Any], *, at: float, by: str, version: int | None = None, seed: int | None = None) -> tuple[State, list[Event]]:
    """Check an action by a role at a time; return the new state and the events it adds.

    `version` (also accepted inside the action) is the state version the actor saw: an action
    based on an older one is refused with StaleVersion, so a double tap cannot fire twice.
    """
    return ENGINE.apply(state, action, at=at, by=by, version=version, seed=seed)


def fold(state: State, event: Event) -> State:
    """Apply a stored event and return the new state (the input is not changed)."""
    return ENGINE.fold(state, event)


def replay(events: Sequence[Event]) -> State:
    """Rebuild a game from its whole log."""
    return ENGINE.replay(events)


def read_ruleset(data: Mapping[str, Any], source: str = "<ruleset>") -> BattleshipRuleset:
    """Build a Battleship ruleset from parsed ruleset data; raise RulesetError with every problem."""
    mode_ruleset(MODE, data, source)
    return battleship_from_dict(data, source)


def audiences(state: State) -> list[Role]:
    """Return the roles whose screens hear a push: the referee, the public, both players."""
    return [Role("referee"), Role("public"), Role("player", "A"), Role("player", "B")]


def next_deadline(state: State) -> float | None:
    """Return when the clock must next act on the game: never, Battleship has no clock."""
    return None


def outcome(state: State) -> Outcome | None:
    """Return how the game ended, or None while it goes on."""
    return state.outcome


def state_to_dict(state: State) -> JSON:
    """Return the whole state as JSON-able data (for snapshots and comparison)."""
    return log_state_to_dict(state)


def state_from_dict(data: Mapping[str, Any]) -> State:
    """Rebuild a state from `state_to_dict` output."""
    return log_state_from_dict(State, data)


# --- What each role may do and see -----------------------------------------------------------


def _role(role: Role | str) -> Role:
    return role if isinstance(role, Role) else Role.from_str(role)


def volleys_of(state: State, player: str) -> list[Volley]:
    """Return every volley a player fired, as that player was told it."""
    return list(state.players[player].volleys)


def legal_actions(state: State, role: Role | str) -> list[JSON]:
    """List the actions a role may take now; a fire action lists the squares that may be called."""
    role = _role(role)
    acts: list[JSON] = []
    if state.phase == "over":
        return acts
    mine = [p for p in PLAYERS if _may_act(role, p)]
    grid = state.grid()
    if state.phase == "placing":
        for p in mine:
            if not state.players[p].placed:
                acts.append({"type": "place_fleet", "player": p, "fleet": list(state.ruleset.fleet)})
    elif state.turn in mine:
        assert state.turn is not None
        closed = state.players[other(state.turn)].closed()
        free = [grid.square_name(s) for s in grid.squares() if s not in closed]
        acts.append({"type": "fire", "player": state.turn, "count": shots_due(state), "squares": free})
    for p in mine:
        acts.append({"type": "forfeit", "player": p})
    return acts


def _kind_view(rs: BattleshipRuleset, kind_id: str) -> JSON:
    kind = rs.sea.kinds[kind_id]
    return {"kind": kind_id, "name": kind.name, "names": dict(kind.names), "size": kind.shape.size}


def _ruleset_view(rs: BattleshipRuleset) -> JSON:
    grid = rs.grid()
    return {
        "id": rs.id,
        "name": rs.name,
        "names": dict(rs.names),
        "size": rs.size,
        "letters": rs.sea.letters,
        "column_labels": grid.column_labels(),
        "row_labels": grid.row_labels(),
        "touching": rs.sea.touching,
        "straight": rs.sea.straight,
        "shots_per_turn": rs.shots_per_turn,
        "report": rs.report,
        "per_shot": rs.per_shot,
        "again_on_hit": rs.again_on_hit,
        "sunk_ring": rs.sunk_ring,
        "fleet": [_kind_view(rs, k) for k in rs.fleet],
    }


def _truth(state: State, owner: str) -> list[JSON]:
    """Every shot at a sea as its owner knows it: the square, miss/hit/sunk (every square of a sunk ship
    reads "sunk"), the ship's kind (as in `Shot.to_dict`) and its letter."""
    grid = state.grid()
    side = state.players[owner]
    where = {s: ship for ship in side.ships for s in ship.squares}
    shots = []
    for square in side.shot_at:
        ship = where.get(square)
        result = "miss" if ship is None else "sunk" if ship.id in side.sunk else "hit"
        shots.append({"square": grid.square_name(square), "result": result, "ship": ship.kind if ship else None, "letter": ship.id if ship else None})
    return shots


def _told(state: State, shooter: str) -> list[JSON]:
    """Every shot a player fired, as the player was told it (salvo totals leave results empty)."""
    grid = state.grid()
    return [shot.to_dict(grid) for volley in state.players[shooter].volleys for shot in volley.shots]


def _board_view(state: State, owner: str, role: Role, reveal: bool) -> JSON:
    """One sea: its ships when `reveal`, the shots at it (the truth for its owner and the referee)."""
    grid = state.grid()
    side = state.players[owner]
    knows = reveal or role.kind == "referee" or (role.kind == "player" and role.subject == owner)
    labels = ship_labels(state.ruleset.sea, side.ships)
    board: JSON = {
        "owner": owner,
        "shots": _truth(state, owner) if knows else _told(state, other(owner)),
        "marked": [grid.square_name(s) for s in side.marked],
        "sunk": [next(s.kind for s in side.ships if s.id == i) for i in side.sunk],
        "remaining": [s.kind for s in side.afloat()],
        "afloat": len(side.afloat()),
    }
    if knows:
        board["ships"] = [{**s.to_dict(grid), "name": str(labels[s.id]), "names": labels[s.id].names, "sunk": s.id in side.sunk} for s in side.ships]
    return board


def _volley_view(state: State, shooter: str, volley: Volley) -> JSON:
    return {"player": shooter, **volley.to_dict(state.grid())}


def view_for(state: State, role: Role | str, now: float = 0.0) -> JSON:
    """Return what a role may see now; the enemy fleet stays out of every view until the game is over.

    A player sees its own fleet and every shot at it, its own volleys as told, the enemy's
    remaining ships by kind, whose turn it is and how many shots are due. The public sees both
    seas' shots as told and no ships. The referee sees everything. At the end every fleet is shown.
    """
    del now  # turns have no clock; kept for the shared view signature
    role = _role(role)
    over = state.phase == "over"
    me = role.subject if role.kind == "player" and role.subject in PLAYERS else None
    volleys = {p: [_volley_view(state, p, v) for v in state.players[p].volleys] for p in PLAYERS}
    last = volleys[state.last][-1] if state.last else None
    view: JSON = {
        "mode": MODE,
        "version": state.version,
        "role": role.to_str(),
        "me": me,
        "phase": state.phase,
        "ruleset": _ruleset_view(state.ruleset),
        "hotseat": state.hotseat,
        "first": state.first,
        "turn": state.turn,
        "shots_due": shots_due(state),
        "turns": state.turns,
        "players": {
            p: {"name": state.players[p].name, "computer": state.players[p].computer, "placed": state.players[p].placed}
            for p in PLAYERS
        },
        "boards": {p: _board_view(state, p, role, over) for p in PLAYERS},
        "volleys": volleys,
        "last": last,
        "outcome": dataclasses.asdict(state.outcome) if state.outcome else None,
        "actions": legal_actions(state, role),
    }
    return view


def ship_name(rs: BattleshipRuleset, kind_id: str) -> Name:
    """Return a ship kind's name with its translations, for messages."""
    kind = rs.sea.kinds[kind_id]
    return Name(kind.name, dict(kind.names))

