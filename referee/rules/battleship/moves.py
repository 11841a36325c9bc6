"""Battleship's moves: placing a fleet, firing, forfeiting, and the computer's turn, on the shared engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine import SEED, Engine, Fields, Rules, chance
from ..errors import (
    IllegalAction,
    MalformedAction,
    Msg,
    NotYourTurn,
    RulesError,
    RulesetError,
    join_msgs,
)
from ..events import Event, Role
from ..grid import LETTERS
from ..ruleset import (
    mode_ruleset,
)
from ..sea import Ship, check_fleet, ships_from_text
from .ai import choose_shots, place_fleet
from .ruleset import (
    COIN,
    LEVELS,
    MAX_NAME,
    MODE,
    PLAYERS,
    BattleshipRuleset,
    battleship_from_dict,
    other,
)
from .state import Outcome, Player, State, shots_due, volleys_of
from .volley import answer

# --- Reading actions -------------------------------------------------------------------------


def _fields(data: Mapping[str, Any], allowed: Sequence[str], *, kind: str) -> Mapping[str, Any]:
    return Fields(data, allowed, kind=kind).data


def _player_field(data: Mapping[str, Any]) -> str:
    player = data.get("player")
    if player not in PLAYERS:
        raise MalformedAction(Msg("player must be A or B, not {player!r}", player=player))
    return str(player)


def _may_act(role: Role, player: str) -> bool:
    return role.kind == "referee" or (role.kind == "player" and role.subject == player)


# --- When each move may be made --------------------------------------------------------------
# One predicate per move, returning the refusal or None: the handlers raise what they return,
# and `legal_actions` lists a move exactly when they return None, so the two cannot drift.


def refuse(refusal: RulesError | None) -> None:
    """Raise a predicate's refusal, if it gave one."""
    if refusal is not None:
        raise refusal


def role_problem(role: Role, player: str) -> RulesError | None:
    """Refuse anyone but the player and the referee."""
    if not _may_act(role, player):
        return NotYourTurn(Msg("only player {player} or the referee may do this", player=player))
    return None


def place_fleet_problem(state: State, role: Role, player: str) -> RulesError | None:
    """Refuse placing a fleet but before play, once per player."""
    refusal = role_problem(role, player)
    if refusal is None and state.phase != "placing":
        refusal = IllegalAction(Msg("play has started: no ship moves now"))
    if refusal is None and state.players[player].placed:
        refusal = IllegalAction(Msg("{name}'s fleet is already placed", name=state.players[player].name))
    return refusal


def fire_problem(state: State, role: Role, player: str) -> RulesError | None:
    """Refuse firing but in play, on the player's turn (which squares: the handler's check)."""
    refusal = role_problem(role, player)
    if refusal is None and state.phase != "playing":
        refusal = IllegalAction(Msg("play has not started: both fleets must be placed first"))
    if refusal is None and state.turn != player:
        refusal = NotYourTurn(Msg("it is {name}'s turn", name=state.players[other(player)].name))
    return refusal


def forfeit_problem(state: State, role: Role, player: str) -> RulesError | None:
    """Refuse a forfeit from anyone but the player and the referee (the engine refuses one once over)."""
    return role_problem(role, player)


def computer_move_problem(state: State, role: Role, player: str) -> RulesError | None:
    """Refuse the computer's move unless it plays the player and is to act now."""
    refusal = role_problem(role, player)
    if refusal is None and state.players[player].computer is None:
        refusal = IllegalAction(Msg("{name} is not played by the computer", name=state.players[player].name))
    if refusal is None and computer_due(state) != player:
        refusal = IllegalAction(Msg("the computer has nothing to do now"))
    return refusal


def _name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise MalformedAction(Msg("{key} must be a name", key=key))
    if len(value.strip()) > MAX_NAME:
        raise MalformedAction(Msg("{key} is longer than {limit} characters", key=key, limit=MAX_NAME))
    return value.strip()


def _setup_game(event: Event) -> State:
    if Role.from_str(event.by).kind not in ("referee", "player"):
        raise NotYourTurn(Msg("only the referee or a player creates a game"))
    data = _fields(
        event.data, ("ruleset", "players", "first", "computer", "hotseat", "per_shot", SEED), kind=event.kind
    )
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
        _, ships, problems = ships_from_text(text, rs.worded_sea, rs.fleet, rs.size)
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
    # The game's own words name the ships in a refusal, as on the page's tray.
    problems = check_fleet(grid, rs.worded_sea, rs.fleet, ships)
    if problems:
        raise IllegalAction(join_msgs([p.message for p in problems]))
    return ships


def _place_fleet(state: State, event: Event, role: Role) -> None:
    data = _fields(event.data, ("player", "ships", "sea"), kind=event.kind)
    player = _player_field(data)
    refuse(place_fleet_problem(state, role, player))
    side = state.players[player]
    side.ships = _parse_fleet(state, player, data)
    side.placed = True
    if all(state.players[p].placed for p in PLAYERS):
        state.phase = "playing"
        state.turn = state.first


def _fire(state: State, event: Event, role: Role) -> None:
    data = _fields(event.data, ("player", "squares"), kind=event.kind)
    player = _player_field(data)
    refuse(fire_problem(state, role, player))
    grid = state.grid()
    raw = data.get("squares")
    if not isinstance(raw, list) or not raw or len(raw) > grid.size**2:
        raise MalformedAction(Msg('squares must list the squares called, like ["C4"]'))
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
        _end(
            state, player, "fleet_sunk", Msg("{name} sank the whole fleet", name=state.players[player].name), event.seq
        )
        return
    state.turn = player if state.ruleset.again_on_hit and volley.hits else other(player)


def _forfeit(state: State, event: Event, role: Role) -> None:
    data = _fields(event.data, ("player", "reason"), kind=event.kind)
    player = _player_field(data)
    refuse(forfeit_problem(state, role, player))
    reason = data.get("reason", "")
    if not isinstance(reason, str) or len(reason) > 300:
        raise MalformedAction(Msg("reason is text of at most 300 characters"))
    name = state.players[player].name
    if role.kind == "referee":
        detail = (
            Msg("{name} forfeits: {reason}", name=name, reason=reason.strip())
            if reason.strip()
            else Msg("{name} forfeits", name=name)
        )
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
    data = _fields(event.data, ("player", "ships", "squares", SEED), kind=event.kind)
    player = _player_field(data)
    refuse(computer_move_problem(state, role, player))
    side = state.players[player]
    rs = state.ruleset
    grid = rs.grid()
    move: dict[str, Any]
    if state.phase == "placing":
        if "ships" in data:
            move = {"ships": data["ships"]}
        else:
            ships = place_fleet(grid, rs.sea, rs.fleet, chance(event))
            move = {"ships": [s.to_dict(grid) for s in ships]}
        _place_fleet(state, Event(event.seq, "place_fleet", {"player": player, **move}, event.at, event.by), role)
        return move
    if "squares" in data:
        move = {"squares": data["squares"]}
    else:
        assert side.computer is not None
        squares = choose_shots(
            grid, rs.sea, rs.fleet, volleys_of(state, player), shots_due(state), chance(event), side.computer
        )
        move = {"squares": [grid.square_name(s) for s in squares]}
    _fire(state, Event(event.seq, "fire", {"player": player, **move}, event.at, event.by), role)
    return move


def _end(state: State, winner: str, reason: str, detail: str, seq: int) -> None:
    state.phase = "over"
    state.turn = None
    state.outcome = Outcome(winner, reason, detail, seq)


HANDLERS = {"place_fleet": _place_fleet, "fire": _fire, "forfeit": _forfeit, "computer_move": _computer_move}
CHANCE: frozenset[str] = frozenset({"create_game", "computer_move"})
SLOW_KINDS: frozenset[str] = frozenset({"computer_move"})
"""The kinds whose apply takes long (the computer thinks): the server runs them off its event loop."""
"""The kinds of action that take a seed from the server: the coin toss, the computer's choices."""
BINDINGS: dict[str, frozenset[str]] = {"computer_move": frozenset({"ships", "squares"})}


# --- Folding ---------------------------------------------------------------------------------


def _clone(state: State) -> State:
    # Ships, volleys, squares and the ruleset are immutable: copying the lists that hold them
    # is enough, and keeps an action cheap however long the game (a deepcopy cost ~40 ms late on).
    players = {
        p: dataclasses.replace(
            side,
            ships=list(side.ships),
            shot_at=list(side.shot_at),
            marked=list(side.marked),
            sunk=list(side.sunk),
            volleys=list(side.volleys),
        )
        for p, side in state.players.items()
    }
    return dataclasses.replace(state, players=players)


ENGINE = Engine(
    Rules(
        mode=MODE,
        setup=_setup_game,
        handlers=HANDLERS,
        clone=_clone,
        chance=CHANCE,
        bindings=BINDINGS,
        written=BINDINGS,
    )
)


def read_ruleset(data: Mapping[str, Any], source: str = "<ruleset>") -> BattleshipRuleset:
    """Build a Battleship ruleset from parsed ruleset data; raise RulesetError with every problem."""
    mode_ruleset(MODE, data, source)
    return battleship_from_dict(data, source)


def audiences(state: State) -> list[Role]:
    """Return the roles whose screens hear a push: the referee, the public, both players."""
    return [Role("referee"), Role("public"), Role("player", "A"), Role("player", "B")]
