"""A tiny third game mode, for the tests only: the referee calls heads or tails, the server's coin falls.

It is one package and one registry line (`referee.rules.register(coinflip.GAME)`): everything
else, the store, the play service, the JSON API and Socket.IO, plays it through its definition.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from referee.rules.engine import SEED, Engine, Fields, Rules, chance
from referee.rules.errors import Msg, NotYourTurn
from referee.rules.events import JSON, Event, Role, encode
from referee.rules.modes import GameMode

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


# Everything left out takes the default: no ruleset worth the name, no clock, no computer, the
# referee and the watchers hear the pushes, the state is written as it is.
GAME = GameMode(
    name=MODE,
    state_type=State,
    engine=Engine(Rules(mode=MODE, setup=_setup, handlers={"flip": _flip}, clone=_clone, chance=CHANCE)),
    view_for=view_for,
    legal_actions=legal_actions,
    action_schemas=ACTION_SCHEMAS,
)
replay, state_to_dict = GAME.replay, GAME.state_to_dict
