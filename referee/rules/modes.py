"""The one surface every game mode offers, and the registry the rest of the app finds modes in.

A mode is a module (or any object) with these names; `referee/rules/__init__.py` registers the
modes the app plays, as python-chess lists its variants. The store, the web layer and the
command line reach a mode only through `find_mode`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .errors import MalformedAction, Msg
from .events import JSON, Event, Role


class GameMode(Protocol):
    """What every game mode offers: its rules as an event fold, its views, its clock."""

    MODE: str
    """The mode's name, as rulesets (`ruleset.mode`) and stored games name it."""
    CHANCE: frozenset[str]
    """The kinds of action (and `create_game`) that take a seed the server draws."""
    State: type[Any]
    """The class of the mode's state."""
    ACTION_SCHEMAS: dict[str, dict[str, Any]]
    """A JSON Schema of each kind of action, by kind, for the API's document."""

    def read_ruleset(self, data: Mapping[str, Any], source: str = "<ruleset>") -> Any:
        """Build this mode's ruleset from parsed ruleset data; raise RulesetError with every problem."""

    def create(
        self, action: Mapping[str, Any], *, at: float, by: str = "referee", seed: int | None = None
    ) -> tuple[Any, list[Event]]:
        """Start a game from a create_game action; return the state and its first event."""

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
        """Check an action by a role at a time; return the new state and the events it adds."""

    def fold(self, state: Any, event: Event) -> Any:
        """Apply a stored event and return the new state."""

    def replay(self, events: Sequence[Event]) -> Any:
        """Rebuild a game from its whole log."""

    def state_to_dict(self, state: Any) -> JSON:
        """Return the whole state as JSON-able data (for snapshots)."""

    def state_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Rebuild a state from `state_to_dict` output."""

    # Optional: `snapshot_to_dict(state)`, the state without its `log`, which the store keeps as
    # events; the store then snapshots that and puts the log back from the events on loading.
    # Optional: `SLOW_KINDS`, the kinds of action whose `apply` grows with the game (a void):
    # the server runs them off its event loop.

    def legal_actions(self, state: Any, role: Role) -> list[JSON]:
        """List the actions a role may take now."""

    def view_for(self, state: Any, role: Role, now: float) -> JSON:
        """Return what one role may see; every secret is stripped here."""

    def outcome(self, state: Any) -> Any:
        """Return how the game ended, or None while it goes on."""

    def audiences(self, state: Any) -> list[Role]:
        """Return the roles whose screens hear a push after a change."""

    def next_deadline(self, state: Any) -> float | None:
        """Return when the clock must next act on the game (seconds since the epoch), or None."""

    def due_action(self, state: Any, now: float) -> tuple[str, JSON] | None:
        """Return the action the clock must take now, and as whom (its deadline has come), or None."""

    def automatic(self, state: Any) -> tuple[str, JSON] | None:
        """Return the action a player the computer plays must take now, and as whom, or None."""


MODES: dict[str, GameMode] = {}
"""Every registered mode by name, in the order registered."""


def register(mode: GameMode) -> GameMode:
    """Add a mode to the registry (a second mode of the same name replaces the first)."""
    MODES[mode.MODE] = mode
    return mode


def mode_of(state: object) -> GameMode:
    """Return the registered mode a state belongs to."""
    for mode in MODES.values():
        if isinstance(state, mode.State):
            return mode
    raise MalformedAction(Msg("no game mode plays a {kind}", kind=type(state).__name__))


def find_mode(name: object) -> GameMode:
    """Return the registered mode of a name; refuse an unknown one."""
    if not isinstance(name, str) or name not in MODES:
        raise MalformedAction(Msg("unknown game mode {name!r} (known: {known})", name=name, known=", ".join(MODES)))
    return MODES[name]
