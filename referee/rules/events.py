"""Events, roles and rock-paper-scissors throws: the small value types every mode shares."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self, TypeVar, Union

from .errors import MalformedAction, Msg, Name, is_message_data, message_from_data, message_to_data
from .grid import Square

JSON = dict[str, Any]


@dataclass(frozen=True)
class Event:
    """One accepted action in a game's log: the state is the fold of these."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    at: float
    by: str

    def to_dict(self) -> JSON:
        """Return the event as JSON-able data."""
        return {"seq": self.seq, "kind": self.kind, "data": dict(self.data), "at": self.at, "by": self.by}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """Rebuild an event from its JSON-able form."""
        return cls(int(data["seq"]), str(data["kind"]), dict(data["data"]), float(data["at"]), str(data["by"]))


class Role(str):
    """Who acts or looks: the referee, a team, a pilot (by order id), a player, the public, the clock.

    A role is its own text ("team:A"), parsed once where it enters (`from_str`): it is stored,
    compared, sent and used as a room name as that text, and read through `kind` and `subject`.
    """

    KINDS = ("referee", "team", "pilot", "player", "public", "clock")

    def __new__(cls, kind: str, subject: str = "") -> Role:
        return super().__new__(cls, f"{kind}:{subject}" if subject else kind)

    @property
    def kind(self) -> str:
        """Return what sort of role this is: one of KINDS."""
        return self.partition(":")[0]

    @property
    def subject(self) -> str:
        """Return whom the role names (a team, an order id, a player), or "" for the referee and the public."""
        return self.partition(":")[2]

    @classmethod
    def from_str(cls, text: str) -> Role:
        """Parse a role written like "referee", "team:A", "pilot:1A3", "player:A" or "public"."""
        if isinstance(text, Role):
            return text
        if not isinstance(text, str):
            raise MalformedAction(Msg("a role is written like team:A, not {text!r}", text=text))
        kind, _, subject = text.partition(":")
        if kind not in cls.KINDS or (kind in ("team", "pilot", "player")) != bool(subject):
            raise MalformedAction(Msg("unknown role {text!r}: use referee, team:A, pilot:ORDER or public", text=text))
        return cls(kind, subject)

    def to_str(self) -> str:
        """Write the role as text."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Role({self.to_str()!r})"


REFEREE = Role("referee")
PUBLIC = Role("public")
CLOCK = Role("clock")

HANDS = ("rock", "paper", "scissors")
_BEATS = {"rock": "scissors", "scissors": "paper", "paper": "rock"}


@dataclass(frozen=True)
class Throw:
    """One rock-paper-scissors throw between two sides: its winner, or None for a tie."""

    winner: str | None
    hands: tuple[str, str] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Return itself: a value made only of values never changes, so a copy of a state shares it."""
        return self

    @classmethod
    def from_dict(cls, data: object, sides: tuple[str, str]) -> Throw:
        """Parse a throw given as {"winner": side|"tie"} or {"hands": [first, second]}."""
        if not isinstance(data, Mapping):
            raise MalformedAction(
                Msg(
                    'a throw is {{"winner": {sides!r}}} or {{"hands": ["rock", "paper"]}}, not {data!r}',
                    sides=sides[0],
                    data=data,
                )
            )
        if "hands" in data:
            hands = data["hands"]
            if (
                not isinstance(hands, (list, tuple))
                or len(hands) != 2
                or not all(isinstance(h, str) and h.lower() in HANDS for h in hands)
            ):
                raise MalformedAction(
                    Msg(
                        "hands are two of rock, paper, scissors ({sides} first), not {hands!r}",
                        sides=sides[0],
                        hands=hands,
                    )
                )
            first, second = hands[0].lower(), hands[1].lower()
            if first == second:
                return cls(None, (first, second))
            return cls(sides[0] if _BEATS[first] == second else sides[1], (first, second))
        winner = data.get("winner")
        if winner == "tie" or (winner is None and "winner" in data):
            return cls(None)
        if winner not in sides:
            raise MalformedAction(
                Msg(
                    "a throw's winner is {sides!r}, {sides2!r} or 'tie', not {winner!r}",
                    sides=sides[0],
                    sides2=sides[1],
                    winner=winner,
                )
            )
        return cls(str(winner))

    def to_dict(self) -> JSON:
        """Return the throw as JSON-able data."""
        if self.hands:
            return {"hands": list(self.hands), "winner": self.winner or "tie"}
        return {"winner": self.winner or "tie"}


def parse_throws(data: object, sides: tuple[str, str]) -> list[Throw]:
    """Parse a list of throws; ties are kept, since a tie means "throw again" and is recorded."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise MalformedAction(Msg("throws are a list, one entry per throw"))
    if len(data) > 50:
        raise MalformedAction(Msg("more than 50 throws in one duel: enter the decisive throws"))
    return [Throw.from_dict(item, sides) for item in data]


# A small generic codec for the state's dataclasses, so snapshots need no hand-written
# serialisers that could drift from the classes they mirror.


def encode(value: Any, *, messages: bool = False) -> Any:
    """Turn state values (dataclasses, squares, sets, tuples) into JSON-able data.

    `messages`: keep each message's template and values (for snapshots, so that a state loaded
    from one still speaks every language); otherwise a message is its English text.
    """
    if messages and isinstance(value, (Msg, Name)):
        return message_to_data(value)
    if isinstance(value, Square):
        return [value.col, value.row]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: encode(getattr(value, f.name), messages=messages)
            for f in dataclasses.fields(value)
            if f.metadata.get("encode", True)
        }
    if isinstance(value, Mapping):
        return {str(k): encode(v, messages=messages) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v, messages=messages) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((encode(v, messages=messages) for v in value), key=repr)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def decode(kind: Any, data: Any) -> Any:
    """Rebuild a value of a type hint from the output of `encode`."""
    if is_message_data(data):
        return message_from_data(data)
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if data is None:
        return data
    if kind is Any:
        return _any(data)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return decode(options[0], data) if len(options) == 1 else data
    if kind is Square:
        return Square(int(data[0]), int(data[1]))
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        values = {f.name: decode(hints[f.name], data[f.name]) for f in dataclasses.fields(kind) if f.name in data}
        return kind(**values)
    if origin in (dict, Mapping, typing.Mapping):
        return {k if args[0] is str else int(k): decode(args[1], v) for k, v in data.items()}
    if origin is list:
        return [decode(args[0], v) for v in data]
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in data)
        return tuple(decode(a, v) for a, v in zip(args, data, strict=True))
    if origin in (set, frozenset):
        return origin(decode(args[0], v) for v in data)
    return data


def _any(data: Any) -> Any:
    """Rebuild untyped data (notes, event data): only the messages inside it need it."""
    if isinstance(data, dict):
        return message_from_data(data) if is_message_data(data) else {k: _any(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_any(v) for v in data]
    return data


# Every mode's state is the fold of its log and keeps that log in `state.log`: replaying it and
# snapshotting it are the same for every mode.

S = TypeVar("S")


def log_state_to_dict(
    state: Any, *, log: bool = True, messages: bool = False, leave_out: frozenset[str] = frozenset()
) -> JSON:
    """Return a state dataclass holding its `log` of events as JSON-able data; `log=False` leaves it out.

    `leave_out`: fields the caller encodes itself (or not at all).
    """
    data: JSON = {
        f.name: encode(getattr(state, f.name), messages=messages)
        for f in dataclasses.fields(state)
        if f.metadata.get("encode", True) and f.name != "log" and f.name not in leave_out
    }
    if log:
        data["log"] = [e.to_dict() for e in state.log]
    return data


def log_state_from_dict(kind: type[S], data: Mapping[str, Any]) -> S:
    """Rebuild a state dataclass of `kind` from `log_state_to_dict` output."""
    body = dict(data)
    log = tuple(Event.from_dict(e) for e in body.pop("log"))
    state: S = decode(kind, {**body, "log": []})
    state.log = log  # type: ignore[attr-defined]
    return state
