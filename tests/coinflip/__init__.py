"""A tiny third game mode, for the tests only: the referee calls heads or tails, the server's coin falls.

It is one package and one registry line (`referee.rules.register(coinflip)`): everything else, the
store, the play service, the JSON API and Socket.IO, plays it through the mode surface.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.rules.engine import SEED, Engine, Fields, Rules, chance
from referee.rules.errors import Msg, NotYourTurn
from referee.rules.events import JSON, Event, Role, encode, log_state_from_dict, log_state_to_dict

MODE = "coinflip"
CHANCE: frozenset[str] = frozenset({"flip"})
SIDES = ("heads", "tails")
ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "flip": {
        "type": "object",
        "properties": {"type": {"const": "flip"}, "call": {"enum": list(SIDES)}},
        "required": ["type", "call"],
        "additionalProperties": False,
    }
}


@dataclass
class Outcome:
    """How the calls went: the caller won (more right than wrong) or lost."""

    winner: str | None
    reason: str
    detail: str


@dataclass
class State:
    """A few flips of a coin, each called before it falls."""

    flips: int
    calls: list[str] = field(default_factory=list)
    falls: list[str] = field(default_factory=list)
    phase: str = "playing"
    outcome: Outcome | None = None
    version: int = 0
    log: tuple[Event, ...] = ()
    skipped: dict[int, str] = field(default_factory=dict)

    @property
    def over(self) -> str | None:
        """Return how the game ended, in words, once it has."""
        return self.outcome.detail if self.outcome else None


def _setup(event: Event) -> State:
    if Role.from_str(event.by).kind != "referee":
        raise NotYourTurn(Msg("only the referee creates a game"))
    flips = Fields(event.data, ("flips",)).integer("flips", low=1, high=9)
    assert flips is not None
    return State(flips)


def _flip(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("call", SEED))
    if role.kind != "referee":
        raise NotYourTurn(Msg("only the referee may do this"))
    call = f.choice("call", SIDES)
    assert call is not None
    state.calls.append(call)
    state.falls.append(chance(event).choice(SIDES))
    if len(state.falls) == state.flips:
        right = sum(c == f for c, f in zip(state.calls, state.falls, strict=True))
        won = 2 * right > state.flips
        state.phase = "over"
        state.outcome = Outcome("caller" if won else None, "flips", f"{right} of {state.flips} called right")


def _clone(state: State) -> State:
    return dataclasses.replace(state, calls=list(state.calls), falls=list(state.falls), skipped=dict(state.skipped))


ENGINE = Engine(Rules(mode=MODE, setup=_setup, handlers={"flip": _flip}, clone=_clone, chance=CHANCE))


def read_ruleset(data: Mapping[str, Any], source: str = "<ruleset>") -> dict[str, Any]:
    """Return the ruleset: this game has none worth the name."""
    del source
    return dict(data)


def create(
    action: Mapping[str, Any], *, at: float, by: str = "referee", seed: int | None = None
) -> tuple[State, list[Event]]:
    """Start a game."""
    return ENGINE.create(action, at=at, by=by, seed=seed)


def apply(
    state: State, action: Mapping[str, Any], *, at: float, by: str, version: int | None = None, seed: int | None = None
) -> tuple[State, list[Event]]:
    """Take one flip."""
    return ENGINE.apply(state, action, at=at, by=by, version=version, seed=seed)


def fold(state: State, event: Event) -> State:
    """Apply a stored event."""
    return ENGINE.fold(state, event)


def replay(events: Sequence[Event]) -> State:
    """Rebuild a game from its log."""
    return ENGINE.replay(events)


def state_to_dict(state: State) -> JSON:
    """Return the state as JSON-able data."""
    return log_state_to_dict(state)


def state_from_dict(data: Mapping[str, Any]) -> State:
    """Rebuild a state."""
    return log_state_from_dict(State, data)


def legal_actions(state: State, role: Role) -> list[JSON]:
    """The referee flips while flips are left."""
    return [{"type": "flip", "options": list(SIDES)}] if role.kind == "referee" and state.outcome is None else []


def view_for(state: State, role: Role, now: float) -> JSON:
    """Everyone sees every call and fall: a coin hides nothing."""
    del now
    return {
        "mode": MODE,
        "version": state.version,
        "phase": state.phase,
        "role": role.to_str(),
        "calls": list(state.calls),
        "falls": list(state.falls),
        "outcome": encode(state.outcome) if state.outcome else None,
        "legal": legal_actions(state, role),
    }


def outcome(state: State) -> Outcome | None:
    """Return how the game ended."""
    return state.outcome


def audiences(state: State) -> list[Role]:
    """The referee and the watchers."""
    del state
    return [Role("referee"), Role("public")]


def next_deadline(state: State) -> float | None:
    """No clock."""
    del state
    return None


def due_action(state: State, now: float) -> tuple[str, JSON] | None:
    """No clock."""
    del state, now
    return None


def automatic(state: State) -> tuple[str, JSON] | None:
    """No computer."""
    del state
    return None
