"""One game mode's whole definition, filled in with defaults, and the registry every layer finds modes in.

A mode is one `GameMode`: its name, its state's class, its rules (the shared `Engine` it runs
on), what a role may see and do, and, where it has them, its clock, its computer and how its
snapshots grow. Whatever a mode leaves out gets the default a mode without it needs (no clock,
no computer, the referee and the public hear its pushes), as boardgame.io fills in a game. The
store, the play service, the web layer and the command line reach a mode only through
`find_mode` or `mode_of`; `referee/rules/__init__.py` registers the modes the app plays, one line
each, as python-chess lists its variants. Other layers keep what they add to a mode (its web
pages) in its `sides`, so that a mode is found in one registry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .engine import Engine
from .errors import MalformedAction, Msg
from .events import JSON, PUBLIC, REFEREE, Event, Role, log_state_from_dict, log_state_to_dict

Step = tuple[str, JSON]
"""An action the server takes by itself: (the role it acts as, the action)."""


def _heard_by_referee_and_public(state: Any) -> list[Role]:
    del state
    return [REFEREE, PUBLIC]


def _no_clock(state: Any) -> float | None:
    del state
    return None


def _nothing_due(state: Any, now: float) -> Step | None:
    del state, now
    return None


def _no_computer(state: Any) -> Step | None:
    del state
    return None


def _outcome_field(state: Any) -> Any:
    return getattr(state, "outcome", None)


def _ruleset_as_given(data: Mapping[str, Any], source: str = "<ruleset>") -> Any:
    del source
    return dict(data)


def _by_state_type(data: Mapping[str, Any]) -> Any:
    raise AssertionError("replaced by GameMode.__post_init__")  # pragma: no cover


def _no_base(state: Any, last: int) -> int:
    del state, last
    return 0


@dataclass(eq=False, kw_only=True)
class GameMode:
    """What one game mode is: its rules as an event fold, its views, its clock, each with a default.

    `create`, `apply`, `fold` and `replay` run the mode's `engine`; a mode that folds its own way
    (a test's fake) subclasses and overrides those four.
    """

    name: str
    """The mode's name, as rulesets (`ruleset.mode`) and stored games name it."""
    state_type: type[Any]
    """The class of the mode's state."""
    engine: Engine[Any] | None
    """The shared engine, given this mode's `Rules`: setup, one handler per kind, chance, voids."""
    view_for: Callable[[Any, Role, float], JSON]
    """What one role may see at a moment; every secret is stripped here and nowhere else."""
    legal_actions: Callable[[Any, Role], list[JSON]]
    """The actions a role may take now, from the same checks the handlers make."""
    read_ruleset: Callable[[Mapping[str, Any], str], Any] = _ruleset_as_given
    """Build the mode's ruleset from parsed ruleset data; raise RulesetError with every problem."""
    action_schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """A JSON Schema of each kind of action, by kind, for the API's document."""
    outcome: Callable[[Any], Any] = _outcome_field
    """How the game ended, or None while it goes on (default: the state's `outcome`)."""
    audiences: Callable[[Any], list[Role]] = _heard_by_referee_and_public
    """The roles whose screens hear a push after a change."""
    next_deadline: Callable[[Any], float | None] = _no_clock
    """When the clock must next act on the game (seconds since the epoch), or None: never."""
    due_action: Callable[[Any, float], Step | None] = _nothing_due
    """The action the clock must take now (its deadline has come), and as whom, or None."""
    automatic: Callable[[Any], Step | None] = _no_computer
    """The action a player the computer plays must take now, and as whom, or None."""
    sea_draft: Callable[[Any, Role, object], Any] | None = None
    """A side's sea to place a fleet on (`placement.Draft`), for that side or the referee; None in
    a mode whose sides place no fleet."""
    slow_kinds: frozenset[str] = frozenset()
    """The kinds of action whose `apply` grows with the game (a void, the computer's thinking):
    the server runs them off its event loop."""
    state_to_dict: Callable[[Any], JSON] = log_state_to_dict
    """The whole state as JSON-able data, its log included."""
    state_from_dict: Callable[[Mapping[str, Any]], Any] = _by_state_type
    """Rebuild a state from `state_to_dict` output (default: decode `state_type`)."""
    snapshot_to_dict: Callable[..., JSON] | None = None
    """The state without its `log`, which the store keeps as events (`(state, after=seq)` when
    `snapshot_grows`); None: the store snapshots `state_to_dict` whole."""
    snapshot_grows: str | None = None
    """The field of the state that grows with the log, by event seq: a snapshot may hold only its
    entries after an earlier snapshot's seq (`snapshot_to_dict(state, after=...)`)."""
    snapshot_base: Callable[[Any, int], int] = _no_base
    """The seq of the snapshot a new one may take its earlier `snapshot_grows` entries from, or 0."""
    event_from_dict: Callable[[Mapping[str, Any]], Any] = Event.from_dict
    """Rebuild a stored event."""
    effects: Callable[[Any, Any], JSON] | None = None
    """What the events from one state to a later one did, as JSON (`referee play` prints it, a
    play file's `expect` checks it): the dice and their results, say; None: the mode tells nothing."""
    sides: dict[str, Any] = field(default_factory=dict)
    """What other layers add to the mode, by layer (the web layer's pages under "web")."""

    def __post_init__(self) -> None:
        if self.state_from_dict is _by_state_type:
            self.state_from_dict = functools.partial(log_state_from_dict, self.state_type)

    @property
    def chance(self) -> frozenset[str]:
        """The kinds of action (and `create_game`) that take a seed the server draws."""
        return self.engine.rules.chance if self.engine is not None else frozenset()

    def _engine(self) -> Engine[Any]:
        if self.engine is None:
            raise NotImplementedError(f"the {self.name} mode has no engine: it must override this")
        return self.engine

    def create(
        self, action: Mapping[str, Any], *, at: float, by: str = "referee", seed: int | None = None
    ) -> tuple[Any, list[Event]]:
        """Start a game from a create_game action; return the state and its first event."""
        return self._engine().create(action, at=at, by=by, seed=seed)

    def apply(
        self,
        state: Any,
        action: Mapping[str, Any],
        *,
        at: float,
        by: str,
        version: int | None = None,
        seed: int | None = None,
    ) -> tuple[Any, list[Event]]:
        """Check an action by a role at a time; return the new state and the events it adds.

        `version` (also accepted inside the action) is the state version the actor saw: an action
        based on an older one is refused with StaleVersion, so a double tap cannot act twice.
        """
        return self._engine().apply(state, action, at=at, by=by, version=version, seed=seed)

    def fold(self, state: Any, event: Any) -> Any:
        """Apply a stored event and return the new state (the input is not changed)."""
        return self._engine().fold(state, event)

    def replay(self, events: Sequence[Any]) -> Any:
        """Rebuild a game from its whole log."""
        return self._engine().replay(events)


MODES: dict[str, GameMode] = {}
"""Every registered mode by name, in the order registered."""


def register(mode: GameMode) -> GameMode:
    """Add a mode to the registry (a second mode of the same name replaces the first)."""
    MODES[mode.name] = mode
    return mode


def mode_of(state: object) -> GameMode:
    """Return the registered mode a state belongs to."""
    for mode in MODES.values():
        if isinstance(state, mode.state_type):
            return mode
    raise MalformedAction(Msg("no game mode plays a {kind}", kind=type(state).__name__))


def find_mode(name: object) -> GameMode:
    """Return the registered mode of a name; refuse an unknown one."""
    if not isinstance(name, str) or name not in MODES:
        raise MalformedAction(Msg("unknown game mode {name!r} (known: {known})", name=name, known=", ".join(MODES)))
    return MODES[name]
