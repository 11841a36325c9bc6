"""Vestorsjø's moves on the shared engine: moving, firing, attacking submarines, ending a turn, undo,
surrender, and the computer's move.

One predicate per move (`*_problem`) returns its refusal or None: the handlers raise what they
return, and `legal_actions` lists a move exactly when it returns None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..engine import SEED, Engine, Fields, Rules, chance
from ..errors import IllegalAction, MalformedAction, Msg, NotYourTurn, RulesError, RulesetError
from ..events import JSON, Event, Role
from .ai import LEVELS, choose_action
from .board import Board, read_board, ship_reach, start_problems, sub_reach
from .hexes import Hex, Vertex
from .ruleset import FACES, MODE, SIDES, Row, chances, other, piece_ids, vestorsjo_from_dict
from .state import ATTACK, DICE, DRAGS_KEPT, FIRE, MOVE, Done, Drag, Outcome, Pending, Piece, Roll, State

END_TURN, UNDO, SURRENDER, COMPUTER_MOVE = "end_turn", "undo", "surrender", "computer_move"
CONFIRM_ROLL, DISPUTE_ROLL = "confirm_roll", "dispute_roll"
CHANCE: frozenset[str] = frozenset({FIRE, ATTACK, COMPUTER_MOVE})
SLOW_KINDS: frozenset[str] = frozenset({COMPUTER_MOVE})
"""The kinds whose apply takes long (the computer thinks): the server runs them off its event loop."""
"""The kinds of action that take a seed from the server: a die is rolled (unless the dice are
physical); the computer's move picks among equally good actions, and rolls its shot's die."""
BINDINGS: dict[str, frozenset[str]] = {
    FIRE: frozenset({"pips", "physical"}),
    ATTACK: frozenset({"pips", "physical"}),
    UNDO: frozenset({"seq"}),
    COMPUTER_MOVE: frozenset({"action", "pips"}),
}
WRITTEN: dict[str, frozenset[str]] = {
    FIRE: frozenset({"physical"}),
    ATTACK: frozenset({"physical"}),
    UNDO: frozenset({"seq"}),
    COMPUTER_MOVE: frozenset({"action", "pips"}),
}
"""Fields only the rules write: a physical die's pips are the player's, a server's die is bound by
the rules, and so is the action the computer chose."""
COMPUTER_ACTS = (MOVE, FIRE, ATTACK, END_TURN)
"""What the computer's move may turn out to be."""
UNDOS_PER_TURN = 100
"""The most moves one turn of one side may take back. Moving and undoing is the only thing a turn
may repeat (its actions are four), and each is an event kept for good, so without a bound one turn
could grow the log forever. A person trying moves out takes back a few, a very careful one a few
dozen (a side has nine pieces); a hundred is minutes of nothing else. It keeps a turn within
4 + 2 x 100 actions and one end_turn (205 events), and its undos in the view within a hundred."""


def refuse(refusal: RulesError | None) -> None:
    """Raise a predicate's refusal, if it gave one."""
    if refusal is not None:
        raise refusal


def side_name(state: State, side: str) -> str:
    """Return a side's name with its translations, for messages."""
    return state.ruleset.side_names[side]


# --- Where the pieces are ----------------------------------------------------------------------


def occupied(state: State) -> tuple[dict[Hex, Piece], dict[Vertex, Piece]]:
    """Return the pieces on the board by hex (warships) and by corner (submarines); sunk pieces still stand."""
    ships: dict[Hex, Piece] = {}
    subs: dict[Vertex, Piece] = {}
    for piece in state.pieces.values():
        if piece.removed:
            continue
        if piece.submarine:
            subs[piece.vertex()] = piece
        else:
            ships[piece.hex()] = piece
    return ships, subs


def steps_of(state: State, piece: Piece) -> int:
    """Return how many steps a move may take now: by the piece's class and its hits now (none once sunk)."""
    if piece.sunk:
        return 0
    return state.ruleset.classes[piece.cls].steps_with(piece.hits)


Occupancy = tuple[dict[Hex, Piece], dict[Vertex, Piece]]


def move_targets(state: State, piece: Piece, where: Occupancy | None = None) -> set[str]:
    """Return every place a piece may move to now, as text (its hex or corner); `where` is `occupied(state)`."""
    steps = steps_of(state, piece)
    if steps <= 0:
        return set()
    ships, subs = where or occupied(state)
    if piece.submarine:
        blocked_v = {v for v, p in subs.items() if p.side != piece.side}
        ends = sub_reach(state.board, state.ruleset, piece.vertex(), steps, blocked_v, set(subs))
        return {v.format() for v in ends}
    blocked_h = {h for h, p in ships.items() if p.side != piece.side}
    reach = ship_reach(state.board, state.ruleset, piece.side, piece.cls, piece.hex(), steps, blocked_h, set(ships))
    return {h.format() for h in reach}


def in_port(board: Board, piece: Piece) -> list[str]:
    """Return the names of the ports a piece is in: its port hex, or the ports that list its corner."""
    if piece.submarine:
        return [p.name for p in board.ports_of(piece.vertex())]
    port = board.port_at.get(piece.hex())
    return [port.name] if port else []


# --- When each move may be made ------------------------------------------------------------------


def role_problem(state: State, role: Role) -> RulesError | None:
    """Refuse anyone but the side to move and the referee (who acts for the side to move)."""
    if role.kind == "referee":
        return _pending_problem(state)
    if role.kind == "player" and role.subject in SIDES:
        if role.subject != state.turn:
            return NotYourTurn(Msg("it is {side}'s turn", side=side_name(state, state.turn)))
        return _pending_problem(state)
    return NotYourTurn(Msg("only the players and the referee act in this game"))


def _pending_problem(state: State) -> RulesError | None:
    if state.pending is None:
        return None
    return IllegalAction(Msg("wait: {side} confirms the die first", side=side_name(state, other(state.turn))))


def roll_answer_problem(state: State, role: Role) -> RulesError | None:
    """Refuse confirming or disputing a die unless one waits, and but by the shooter's enemy (or the referee)."""
    if state.pending is None:
        return IllegalAction(Msg("no die waits to be confirmed"))
    if role.kind == "referee" or (role.kind == "player" and role.subject == other(state.turn)):
        return None
    return NotYourTurn(Msg("{side} confirms this die", side=side_name(state, other(state.turn))))


def act_problem(state: State, role: Role, piece_id: str, kind: str) -> RulesError | None:
    """Refuse a piece's action unless it is the mover's, on the board, has not done this kind, and actions are left."""
    refusal = role_problem(state, role)
    if refusal is not None:
        return refusal
    piece = state.pieces.get(piece_id)
    if piece is None:
        return IllegalAction(Msg("there is no piece {piece!r}", piece=piece_id))
    if piece.side != state.turn:
        return IllegalAction(
            Msg("{piece} is not one of {side}'s pieces", piece=piece_id, side=side_name(state, state.turn))
        )
    if piece.removed:
        return IllegalAction(Msg("{piece} was sunk and is off the board", piece=piece_id))
    if kind in piece.done:
        return IllegalAction(Msg("{piece} has already done {kind} this turn", piece=piece_id, kind=kind))
    if state.actions_left() <= 0:
        return IllegalAction(
            Msg("all {count} actions of this turn are used: end the turn", count=state.ruleset.actions_per_turn)
        )
    if kind == MOVE and piece.sunk:
        return IllegalAction(Msg("{piece} is sunk: it may fire in its last turn, but not move", piece=piece_id))
    return None


def move_problem(state: State, role: Role, piece_id: str, to: str) -> RulesError | None:
    """Refuse a move unless the piece may act and some legal path of its steps leads to `to`."""
    refusal = act_problem(state, role, piece_id, MOVE)
    if refusal is not None:
        return refusal
    piece = state.pieces[piece_id]
    if to not in move_targets(state, piece):
        return IllegalAction(
            Msg(
                "{piece} cannot move to {to}: no free way of at most {steps} steps leads there",
                piece=piece_id,
                to=to,
                steps=steps_of(state, piece),
            )
        )
    return None


def _target(state: State, target_id: str, submarine: bool) -> tuple[Piece | None, RulesError | None]:
    target = state.pieces.get(target_id)
    if target is None:
        return None, IllegalAction(Msg("there is no piece {piece!r}", piece=target_id))
    if target.side == state.turn:
        return None, IllegalAction(Msg("{piece} is on your own side", piece=target_id))
    if target.removed or (target.sunk and not state.ruleset.sunk_is_target):
        return None, IllegalAction(Msg("{piece} is sunk already", piece=target_id))
    if submarine and not target.submarine:
        return None, IllegalAction(Msg("{piece} is not a submarine: fire at a ship instead", piece=target_id))
    if not submarine and target.submarine:
        return None, IllegalAction(Msg("{piece} is a submarine: attack it as a submarine", piece=target_id))
    return target, None


def fire_row(state: State, shooter: Piece, target: Piece) -> tuple[str, Row, int, int] | RulesError:
    """Return the table a shooter fires at a ship with (name, row, distance, damage), or why it may not."""
    rs = state.ruleset
    if shooter.submarine:
        if target.hex() not in shooter.vertex().hexes:
            return IllegalAction(Msg("a submarine attacks a ship only from a corner of the ship's hex"))
        if in_port(state.board, target):
            return IllegalAction(Msg("a submarine cannot attack a ship in port"))
        return "submarine_attacks_ship", rs.submarine_attacks_ship, 0, 0
    distance = shooter.hex().distance(target.hex())
    row = rs.gunnery_row(shooter.cls, shooter.before, distance)
    if row is None:
        return IllegalAction(
            Msg(
                "{target} is {distance} hexes away: {piece} fires at most {most}",
                target=target.id,
                distance=distance,
                piece=shooter.id,
                most=rs.max_range(shooter.cls, shooter.before),
            )
        )
    return "gunnery", row, distance, shooter.before


def attack_row(state: State, shooter: Piece, target: Piece) -> tuple[str, Row, int, int] | RulesError:
    """Return the table a piece attacks a submarine with (name, row, distance, damage), or why it may not."""
    rs = state.ruleset
    spot = target.vertex()
    if shooter.submarine:
        if not shooter.vertex().touches(spot):
            return IllegalAction(Msg("two submarines fight only on neighbouring corners"))
        if in_port(state.board, target):
            return IllegalAction(Msg("a submarine cannot attack a submarine in port"))
        return "submarine_attacks_submarine", rs.submarine_attacks_submarine, 1, 0
    if shooter.hex() not in spot.hexes:
        return IllegalAction(Msg("a ship attacks a submarine only on a corner of the ship's own hex"))
    safe = [name for name in in_port(state.board, target) if name in rs.safe_ports]
    if safe:
        return IllegalAction(Msg("a ship cannot attack a submarine in {port}", port=safe[0]))
    return "ship_attacks_submarine", rs.ship_attacks_submarine, 0, 0


def fire_problem(state: State, role: Role, piece_id: str, target_id: str) -> RulesError | None:
    """Refuse firing at a ship unless the shooter may act and the target is an enemy ship in its reach."""
    refusal = act_problem(state, role, piece_id, FIRE)
    if refusal is not None:
        return refusal
    target, refusal = _target(state, target_id, submarine=False)
    if target is None:
        return refusal
    found = fire_row(state, state.pieces[piece_id], target)
    return found if isinstance(found, RulesError) else None


def attack_problem(state: State, role: Role, piece_id: str, target_id: str) -> RulesError | None:
    """Refuse attacking a submarine unless the attacker may act and meets the enemy submarine."""
    refusal = act_problem(state, role, piece_id, ATTACK)
    if refusal is not None:
        return refusal
    target, refusal = _target(state, target_id, submarine=True)
    if target is None:
        return refusal
    found = attack_row(state, state.pieces[piece_id], target)
    return found if isinstance(found, RulesError) else None


def end_turn_problem(state: State, role: Role) -> RulesError | None:
    """Refuse ending the turn but by the side to move or the referee."""
    return role_problem(state, role)


def undo_problem(state: State, role: Role) -> RulesError | None:
    """Refuse undo unless the turn's latest action is a move (no undo past a roll) and the turn has undos left."""
    refusal = role_problem(state, role)
    if refusal is None and not state.acts:
        refusal = IllegalAction(Msg("nothing to undo in this turn"))
    if refusal is None and state.acts[-1].kind != MOVE:
        refusal = IllegalAction(Msg("no undo past a roll: the latest action rolled a die"))
    if refusal is None and len(state.undone) >= UNDOS_PER_TURN:
        refusal = IllegalAction(
            Msg(
                "no more undo this turn: {count} moves were taken back already, the most one turn allows;"
                " play on from here, or end the turn",
                count=UNDOS_PER_TURN,
            )
        )
    return refusal


def surrender_problem(state: State, role: Role, side: str) -> RulesError | None:
    """Refuse a surrender but by the side itself (at any time) or the referee."""
    if role.kind == "referee" or (role.kind == "player" and role.subject == side):
        return None
    return NotYourTurn(Msg("only {side} or the referee may surrender for {side}", side=side_name(state, side)))


def computer_due(state: State) -> str | None:
    """Return the side the computer plays if it is to move now (and the game goes on), else None."""
    if state.outcome is None and state.turn in state.computer:
        return state.turn
    return None


def computer_move_problem(state: State, role: Role, side: str) -> RulesError | None:
    """Refuse the computer's move unless it plays the side and the side is to move (by its player or the referee)."""
    if not (role.kind == "referee" or (role.kind == "player" and role.subject == side)):
        return NotYourTurn(Msg("only {side} or the referee may make the computer's move", side=side_name(state, side)))
    if side not in state.computer:
        return IllegalAction(Msg("{side} is not played by the computer", side=side_name(state, side)))
    if computer_due(state) != side:
        return IllegalAction(
            Msg("the computer has nothing to do now: it is {side}'s turn", side=side_name(state, state.turn))
        )
    return None


# --- What each role may do now ------------------------------------------------------------------


def role_of(role: Role | str) -> Role:
    """Return a role given as a Role or as its text."""
    return role if isinstance(role, Role) else Role.from_str(role)


def _target_ok(state: State, shooter: Piece, target: Piece, submarine: bool) -> bool:
    """Tell whether a piece is a target of the right kind (the same tests as the predicates' `_target`)."""
    if target.side == shooter.side or target.removed or (target.sunk and not state.ruleset.sunk_is_target):
        return False
    return target.submarine == submarine


def _offer(target: Piece, found: tuple[str, Row, int, int]) -> JSON:
    table, row, distance, damage = found
    hit, expected = chances(row)
    return {
        "target": target.id,
        "table": table,
        "distance": distance,
        "damage": damage,
        "row": list(row),
        "chance": round(hit, 4),
        "expected": round(expected, 4),
    }


def _targets(state: State, shooter: Piece, kind: str) -> list[JSON]:
    offers = []
    for target in state.pieces.values():
        if not _target_ok(state, shooter, target, submarine=kind == ATTACK):
            continue
        found = attack_row(state, shooter, target) if kind == ATTACK else fire_row(state, shooter, target)
        if not isinstance(found, RulesError):
            offers.append(_offer(target, found))
    return offers


def legal_actions(state: State, role: Role | str) -> list[JSON]:
    """List what a role may do now: per piece its moves and its targets (each with its hit chance), then the rest.

    Each entry lists the choices of one kind of action for one piece: `{"type": "move", "piece",
    "to": [...]}`, `{"type": "fire" | "attack_submarine", "piece", "targets": [{"target", "chance",
    "expected", …}]}`; then `end_turn`, `undo` and `surrender` as they may be sent. The predicates of
    `moves` decide each one, as the handlers do.
    """
    role = role_of(role)
    acts: list[JSON] = []
    if state.outcome is not None:
        return acts
    where = occupied(state)
    for piece in state.pieces.values():
        if piece.side != state.turn or piece.removed:
            continue
        if act_problem(state, role, piece.id, MOVE) is None:
            to = sorted(move_targets(state, piece, where))
            if to:
                acts.append({"type": MOVE, "piece": piece.id, "to": to})
        for kind in (FIRE, ATTACK):
            if act_problem(state, role, piece.id, kind) is None:
                offers = _targets(state, piece, kind)
                if offers:
                    acts.append({"type": kind, "piece": piece.id, "targets": offers})
    if end_turn_problem(state, role) is None:
        acts.append({"type": END_TURN})
    if undo_problem(state, role) is None:
        acts.append({"type": UNDO, "seq": state.acts[-1].seq})
    for side in SIDES:
        if computer_move_problem(state, role, side) is None:
            acts.append({"type": COMPUTER_MOVE, "side": side})
    if roll_answer_problem(state, role) is None:
        assert state.pending is not None
        acts.append({"type": CONFIRM_ROLL, "seq": state.pending.seq, "pips": state.pending.pips})
        acts.append({"type": DISPUTE_ROLL, "seq": state.pending.seq})
    for side in SIDES:
        if surrender_problem(state, role, side) is None:
            acts.append({"type": SURRENDER, "side": side})
    return acts


def actions_for(state: State, role: Role | str) -> list[JSON]:
    """List every action a role may send now, each ready to apply (a computer player picks among these).

    Fire and attack actions carry no pips (the server rolls); surrender is left out (a player
    gives up by choice, not by search).
    """
    flat: list[JSON] = []
    for entry in legal_actions(state, role):
        kind = entry["type"]
        if kind == MOVE:
            flat.extend({"type": MOVE, "piece": entry["piece"], "to": to} for to in entry["to"])
        elif kind in (FIRE, ATTACK):
            flat.extend({"type": kind, "piece": entry["piece"], "target": t["target"]} for t in entry["targets"])
        elif kind in (END_TURN, UNDO):
            flat.append({"type": kind})
        elif kind == COMPUTER_MOVE:
            flat.append({"type": kind, "side": entry["side"]})
        elif kind in (CONFIRM_ROLL, DISPUTE_ROLL):
            flat.append({"type": kind})
    return flat


# --- Setting up ----------------------------------------------------------------------------------


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedAction(Msg("{what} must be the parsed data of its file", what=what))
    return value


def _setup(event: Event) -> State:
    if Role.from_str(event.by).kind not in ("referee", "player"):
        raise NotYourTurn(Msg("only the referee or a player creates a game"))
    f = Fields(event.data, ("ruleset", "map", "dice", "start", "computer", "confirm_rolls", SEED), kind=event.kind)
    raw_rs = _mapping(f.data.get("ruleset"), "ruleset")
    try:
        rs = vestorsjo_from_dict(raw_rs)
    except RulesetError as exc:
        raise MalformedAction(Msg("the ruleset is broken: {problems}", problems="; ".join(exc.lines()))) from exc
    raw_map = {k: v for k, v in _mapping(f.data.get("map"), "map").items() if k != "coast"}
    try:
        board = read_board(raw_map, rs)
    except RulesetError as exc:
        raise MalformedAction(Msg("the map is broken: {problems}", problems="; ".join(exc.lines()))) from exc
    dice = f.choice("dice", DICE, optional=True) or DICE[0]
    computer = _computer_seats(f.data.get("computer"), dice)
    confirm = f.data.get("confirm_rolls", False)
    if not isinstance(confirm, bool):
        raise MalformedAction(Msg("confirm_rolls must be true or false"))
    if confirm and dice != "physical":
        raise IllegalAction(Msg("only a die thrown by hand is confirmed: confirm_rolls needs our own dice"))
    overrides = f.data.get("start", {})
    if not isinstance(overrides, Mapping) or not all(isinstance(v, str) for v in overrides.values()):
        raise MalformedAction(Msg('start must map piece ids to places, like {{"scania.frigate-1": "F12"}}'))
    ids = {f"{side}.{local}": (side, local, cls) for side in SIDES for local, cls in piece_ids(rs)}
    for key in overrides:
        if key not in ids:
            raise MalformedAction(Msg("start names no piece {piece!r}", piece=key))
    places = {side: dict(board.start[side]) for side in SIDES}
    for key, place in overrides.items():
        side, local, _ = ids[key]
        places[side][local] = place
    problems = start_problems(board, places, rs)
    if problems:
        lines = "; ".join(f"{side}.{local}: {reason}" for side, local, reason in problems)
        raise IllegalAction(Msg("illegal start places: {problems}", problems=lines))
    pieces = {}
    for pid, (side, local, cls) in ids.items():
        text = places[side][local]
        place = Vertex.parse(text).format() if cls == "submarine" else Hex.parse(text).format()
        pieces[pid] = Piece(pid, side, cls, place)
    held = {p.name: 0 for p in board.ports if p.strategic}
    return State(
        dict(raw_rs),
        raw_map,
        dice,
        pieces,
        rs.first,
        held=held,
        taken=dict.fromkeys(SIDES, False),
        computer=computer,
        confirm_rolls=confirm,
        ruleset=rs,
        board=board,
    )


def _computer_seats(value: Any, dice: str) -> dict[str, str]:
    """Read create_game's `computer`, the sides the computer plays and how well: {"zealand": "strong"}."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(side in SIDES and level in LEVELS for side, level in value.items()):
        raise MalformedAction(
            Msg('computer must be like {{"zealand": "strong"}}, levels {levels}', levels=", ".join(LEVELS))
        )
    if len(value) == len(SIDES):
        raise IllegalAction(Msg("at least one side must be played by a person"))
    if value and dice != "server":
        raise IllegalAction(Msg("the computer plays only with the server's dice"))
    return {str(side): str(level) for side, level in value.items()}


# --- The handlers -------------------------------------------------------------------------------


def _piece_field(f: Fields, key: str) -> str:
    return f.text(key, limit=40)


def _record(state: State, event: Event, piece: Piece, kind: str, origin: str = "", to: str = "", at: str = "") -> None:
    piece.done.append(kind)
    state.acts.append(Done(event.seq, kind, piece.id, origin, to, at))


def _move(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("piece", "to"), kind=event.kind)
    pid = _piece_field(f, "piece")
    piece = state.pieces.get(pid)
    raw_to = f.text("to", limit=40)
    # The place is read by the piece's kind, so "F12" and "F12/G12/F13" are both refused clearly.
    if piece is not None and piece.submarine:
        to = Vertex.parse(raw_to).format()
    elif piece is not None:
        to = Hex.parse(raw_to).format()
    else:
        to = raw_to
    refuse(move_problem(state, role, pid, to))
    origin = piece.place if piece else ""
    assert piece is not None
    piece.place = to
    _record(state, event, piece, MOVE, origin, to)


def _die(state: State, event: Event, f: Fields) -> tuple[int, bool, dict[str, Any]]:
    """Return the pips of the action's die, whether it was physical, and what to bind into the event."""
    if state.dice == "physical":
        pips = f.integer("pips", low=1, high=FACES)
        assert pips is not None
        return pips, True, {"physical": True}
    rolled = chance(event).randint(1, FACES)
    if "pips" in f.data and f.data["pips"] != rolled:
        raise MalformedAction(Msg("the server rolls the dice in this game: send no pips"))
    return rolled, False, {"pips": rolled}


def _strike(
    state: State, event: Event, kind: str, shooter: Piece, target: Piece, found: tuple[str, Row, int, int], f: Fields
) -> dict[str, Any]:
    pips, physical, bound = _die(state, event, f)
    _record(state, event, shooter, kind, shooter.place, target.id, target.place)
    if physical and state.confirm_rolls:
        state.pending = Pending(event.seq, kind, shooter.id, target.id, pips)
        return bound
    _hit(state, event.seq, kind, shooter, target, found, pips, physical)
    return bound


def _hit(
    state: State,
    seq: int,
    kind: str,
    shooter: Piece,
    target: Piece,
    found: tuple[str, Row, int, int],
    pips: int,
    physical: bool,
) -> None:
    """Read the table at the die's pips and hit the target (the roll is the shot's, `seq`)."""
    table, row, distance, damage = found
    hits = row[pips - 1]
    defence = state.ruleset.classes[target.cls].defence
    target.hits = min(defence, target.hits + hits)
    sunk_now = not target.sunk and target.hits >= defence
    target.sunk = target.sunk or sunk_now
    state.rolls.append(
        Roll(
            seq,
            state.round,
            shooter.side,
            kind,
            shooter.id,
            target.id,
            table,
            distance,
            damage,
            pips,
            physical,
            hits,
            sunk_now,
        )
    )


def _confirm_roll(state: State, event: Event, role: Role) -> None:
    """The other side says the die showed what the shooter entered: the shot hits as the table says."""
    Fields(event.data, (), kind=event.kind)
    refuse(roll_answer_problem(state, role))
    pending = state.pending
    assert pending is not None
    shooter, target = state.pieces[pending.piece], state.pieces[pending.target]
    found = attack_row(state, shooter, target) if pending.kind == ATTACK else fire_row(state, shooter, target)
    assert not isinstance(found, RulesError)  # nothing has moved since the shot
    state.pending = None
    _hit(state, pending.seq, pending.kind, shooter, target, found, pending.pips, True)


def _dispute_roll(state: State, event: Event, role: Role) -> None:
    """The other side says the die showed something else: the shot is taken back, to be thrown again."""
    Fields(event.data, (), kind=event.kind)
    refuse(roll_answer_problem(state, role))
    pending = state.pending
    assert pending is not None
    state.pending = None
    shooter = state.pieces[pending.piece]
    shooter.done.remove(pending.kind)
    state.acts = [a for a in state.acts if a.seq != pending.seq]


def _fire(state: State, event: Event, role: Role) -> Mapping[str, Any]:
    f = Fields(event.data, ("piece", "target", "pips", "physical", SEED), kind=event.kind)
    pid, tid = _piece_field(f, "piece"), _piece_field(f, "target")
    refuse(fire_problem(state, role, pid, tid))
    shooter, target = state.pieces[pid], state.pieces[tid]
    found = fire_row(state, shooter, target)
    assert not isinstance(found, RulesError)
    return _strike(state, event, FIRE, shooter, target, found, f)


def _attack(state: State, event: Event, role: Role) -> Mapping[str, Any]:
    f = Fields(event.data, ("piece", "target", "pips", "physical", SEED), kind=event.kind)
    pid, tid = _piece_field(f, "piece"), _piece_field(f, "target")
    refuse(attack_problem(state, role, pid, tid))
    shooter, target = state.pieces[pid], state.pieces[tid]
    found = attack_row(state, shooter, target)
    assert not isinstance(found, RulesError)
    return _strike(state, event, ATTACK, shooter, target, found, f)


def _end_turn(state: State, event: Event, role: Role) -> None:
    Fields(event.data, (), kind=event.kind)
    refuse(end_turn_problem(state, role))
    side = state.turn
    for piece in state.pieces.values():
        if piece.side != side:
            continue
        if piece.sunk:
            piece.removed = True  # its last turn is over
        piece.before = piece.hits  # what the enemy's next turn does to it counts only after it
        piece.done = []
    state.drags = [*state.drags[-(DRAGS_KEPT - 1) :], Drag(state.round, side, state.acts)]
    state.last_turn, state.acts = state.acts, []
    state.undone = {}  # the turn's moves stand now: only the log remembers what was taken back
    state.turn = other(side)
    if state.ruleset.holds_counted == "enemy_turn":
        _count_holds(state, event, owners=(side,))  # the holds on this side's ports survived its turn
    if side != state.ruleset.first:
        if state.ruleset.holds_counted == "round_end":
            _count_holds(state, event, owners=SIDES)
        if state.outcome is None:
            state.round += 1
    if state.outcome is None:
        _wiped_out(state, event, side)


def _holder_in(state: State, port_hex: Hex, holder: str) -> bool:
    for piece in state.pieces.values():
        if piece.side != holder or piece.removed or piece.submarine:
            continue
        if piece.sunk and not state.ruleset.sunk_holds_port:
            continue
        if piece.place == port_hex.format():
            return True
    return False


def _count_holds(state: State, event: Event, owners: tuple[str, ...]) -> None:
    """Count each strategic port of `owners` held by the enemy one more round (or from zero again); decide a win.

    The ruleset's `holds_counted` says when: after each turn of the port's side (`owners` is that
    side), or at the end of each round (both sides).
    """
    rs = state.ruleset
    for port in state.board.ports:
        if not port.strategic or port.side not in owners:
            continue
        holder = other(port.side)
        if _holder_in(state, port.hex, holder):
            state.held[port.name] = state.held.get(port.name, 0) + 1
            state.taken[holder] = True
        else:
            state.held[port.name] = 0
    winners = [
        side
        for side in SIDES
        if other(side) in owners
        and sum(
            1 for p in state.board.ports if p.strategic and p.side != side and state.held[p.name] >= rs.rounds_to_hold
        )
        >= rs.ports_needed
    ]
    if len(winners) == 2:
        _end(state, None, "draw-ports", Msg("both sides held enemy strategic ports long enough: nobody wins"), event)
    elif winners:
        side = winners[0]
        _end(
            state,
            side,
            "ports",
            Msg(
                "{side} held {count} enemy strategic ports for {rounds} rounds in a row",
                side=side_name(state, side),
                count=rs.ports_needed,
                rounds=rs.rounds_to_hold,
            ),
            event,
        )


def _afloat_warship(state: State, side: str) -> bool:
    return any(p.side == side and not p.removed and not p.sunk and not p.submarine for p in state.pieces.values())


def _wiped_out(state: State, event: Event, side: str) -> None:
    """End the game once every piece of the side that just ended its turn is sunk (its last salvo fired)."""
    if any(p.side == side and not p.removed and not p.sunk for p in state.pieces.values()):
        return
    winner = other(side)
    loser_name, winner_name = side_name(state, side), side_name(state, winner)
    if state.taken[side]:
        detail = Msg("every piece of {loser} is sunk, but {loser} had taken a port: nobody wins", loser=loser_name)
        _end(state, None, "draw-sunk", detail, event)
    elif not _afloat_warship(state, winner):
        detail = Msg(
            "every piece of {loser} is sunk, and {winner} has no ship afloat: nobody wins",
            loser=loser_name,
            winner=winner_name,
        )
        _end(state, None, "draw-sunk", detail, event)
    else:
        _end(
            state,
            winner,
            "sunk",
            Msg("every piece of {loser} is sunk: {winner} wins", loser=loser_name, winner=winner_name),
            event,
        )


def _undo(state: State, event: Event, role: Role) -> Mapping[str, Any]:
    f = Fields(event.data, ("seq",), kind=event.kind)
    refuse(undo_problem(state, role))
    last = state.acts[-1]
    bound = f.data.get("seq")
    if bound is not None and bound != last.seq:
        raise IllegalAction(Msg("undo names action {seq}, but the latest is {latest}", seq=bound, latest=last.seq))
    # A move changes nothing but where its piece stands and what the turn has done, and no die has
    # been rolled since (undo_problem): putting those back is the same as re-folding the log without it.
    piece = state.pieces[last.piece]
    piece.place = last.origin
    piece.done.remove(MOVE)
    state.acts.pop()
    state.undone[last.seq] = event.seq
    return {"seq": last.seq}


def _surrender(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("side",), kind=event.kind)
    side = f.choice("side", SIDES, optional=True)
    if side is None:
        side = role.subject if role.kind == "player" and role.subject in SIDES else state.turn
    refuse(surrender_problem(state, role, side))
    _end(state, other(side), "surrender", Msg("{side} surrendered", side=side_name(state, side)), event)


def _end(state: State, winner: str | None, reason: str, detail: str, event: Event) -> None:
    state.outcome = Outcome(winner, reason, detail, event.seq, state.round)


def _bound_action(value: Any) -> dict[str, Any]:
    """Read the action a stored computer's move bound: one of the computer's kinds, with text fields."""
    if (
        not isinstance(value, Mapping)
        or value.get("type") not in COMPUTER_ACTS
        or not all(isinstance(k, str) and isinstance(x, str) for k, x in value.items())
    ):
        raise MalformedAction(Msg("the computer's bound action is broken: {action!r}", action=value))
    return dict(value)


def _computer_move(state: State, event: Event, role: Role) -> Mapping[str, Any]:
    """The computer makes one action of its side's turn (a move, a shot, or ending the turn) by its own choice.

    The seed first draws the die of its shot (so the choice cannot lean on it), then breaks ties
    among equally good actions. What it chose, and the die, are bound into the event, so a replay
    applies the same action without thinking again.
    """
    f = Fields(event.data, ("side", "action", "pips", SEED), kind=event.kind)
    side = f.choice("side", SIDES, optional=True) or state.turn
    refuse(computer_move_problem(state, role, side))
    rng = chance(event)
    die_seed = rng.getrandbits(63)
    if "action" in f.data:
        action = _bound_action(f.data["action"])
    else:
        action = choose_action(state, state.computer[side], rng, legal_actions)
    kind = str(action["type"])
    data: dict[str, Any] = {k: x for k, x in action.items() if k != "type"}
    if kind in (FIRE, ATTACK):
        data[SEED] = die_seed
        if "pips" in f.data:
            data["pips"] = f.data["pips"]
    inner = Event(event.seq, kind, data, event.at, event.by)
    bound = dict(HANDLERS[kind](state, inner, role) or {})
    return {"action": action, **{k: x for k, x in bound.items() if k == "pips"}}


HANDLERS = {
    MOVE: _move,
    FIRE: _fire,
    ATTACK: _attack,
    END_TURN: _end_turn,
    UNDO: _undo,
    SURRENDER: _surrender,
    COMPUTER_MOVE: _computer_move,
    CONFIRM_ROLL: _confirm_roll,
    DISPUTE_ROLL: _dispute_roll,
}


def _clone(state: State) -> State:
    # The ruleset, the board and the raw files never change: share them; copy what a handler changes.
    pieces = {k: p.copy() for k, p in state.pieces.items()}
    return dataclasses.replace(
        state,
        pieces=pieces,
        acts=list(state.acts),
        last_turn=list(state.last_turn),
        drags=list(state.drags),
        held=dict(state.held),
        taken=dict(state.taken),
        rolls=list(state.rolls),
        undone=dict(state.undone),
        skipped=dict(state.skipped),
    )


ENGINE = Engine(
    Rules(
        mode=MODE,
        setup=_setup,
        handlers=HANDLERS,
        clone=_clone,
        chance=CHANCE,
        bindings=BINDINGS,
        written=WRITTEN,
    )
)


# --- The mode surface ---------------------------------------------------------------------------


def server_pips_problem(state: State, action: Mapping[str, Any]) -> RulesError | None:
    """Refuse pips sent with an action where the server rolls: only its stored events carry them."""
    if (
        isinstance(action, Mapping)
        and action.get("type") in (FIRE, ATTACK)
        and "pips" in action
        and state.dice == "server"
    ):
        return MalformedAction(Msg("the server rolls the dice in this game: send no pips"))
    return None


def audiences(state: State) -> list[Role]:
    """Return the roles whose screens hear a push: the referee, the public, both players."""
    del state
    return [Role("referee"), Role("public"), *(Role("player", s) for s in SIDES)]


def automatic(state: State) -> tuple[str, JSON] | None:
    """Return the computer's move (as whom) while it is a computer side's turn and the game goes on."""
    side = computer_due(state)
    if side is None:
        return None
    return Role("player", side), {"type": COMPUTER_MOVE, "side": side}
