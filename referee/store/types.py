"""What the store answers and raises, and what it needs of a game mode."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from referee.rules import modes as rules_modes

log = logging.getLogger(__name__)

T = TypeVar("T")


class Look(NamedTuple):
    """What the round clock reads every few seconds (`Store.look`)."""

    deadline: float | None
    """The soonest stored deadline of any game; None when no clock runs anywhere."""
    revocations: int
    """How many tokens and phones were ever revoked, by any process: when it moves, look up which."""


# The status the store gives a game nobody played for too long (see Store.expire_idle). It is the
# store's own, not the mode's: such a game takes no more actions.
ABANDONED = "abandoned"


Mode = rules_modes.GameMode
"""What the store needs of a game mode is the mode's one definition: create, apply, fold and
replay, its chance and slow kinds, its deadline, and how its state and snapshots are written."""


# The rules core fills it (name -> mode); some tests add fake modes of their own.
MODES: dict[str, Mode] = rules_modes.MODES
"""The modes a Store plays unless told otherwise: the rules core's registry (referee/rules/__init__.py)."""


class StoreError(Exception):
    """A store failure that is not a rules refusal."""


class GameNotFound(StoreError):
    """No game with that id."""


class StoreBusy(StoreError):
    """The database could not take a write now (locked through every retry, full, gone); the caller may try again.

    Nothing was stored. `retry_after`: the seconds after which a retry is worth making.
    """

    retry_after = 2.0


class WriteHealth:
    """Whether this store's writes succeed: the first failure and the next success are told to watchers.

    A disk that is full, a database that stays locked or read-only, a PostgreSQL that went away:
    every write fails alike until someone acts, and the referee's dashboard says so meanwhile.
    """

    def __init__(self) -> None:
        self.failing_since: float | None = None
        """When writes began to fail (seconds since the epoch); None while they succeed."""
        self.reason = ""
        self._watchers: list[Callable[[WriteHealth], None]] = []

    def watch(self, watcher: Callable[[WriteHealth], None]) -> None:
        """Call `watcher(health)` whenever writes begin to fail or succeed again."""
        self._watchers.append(watcher)

    def failed(self, reason: str) -> None:
        """Note a write that could not be stored."""
        self.reason = reason[:200]
        if self.failing_since is None:
            self.failing_since = time.time()
            log.error("writes are failing: %s", self.reason)
            self._tell()

    def succeeded(self) -> None:
        """Note a write that was stored."""
        if self.failing_since is not None:
            log.warning("writes succeed again (they failed for %.0f s)", time.time() - self.failing_since)
            self.failing_since = None
            self.reason = ""
            self._tell()

    def _tell(self) -> None:
        for watcher in list(self._watchers):
            try:
                watcher(self)
            except Exception:  # a watcher's failure must not turn a write's answer into another
                log.exception("a write-health watcher failed")


class BrokenMode(StoreError):
    """A mode returned events whose seq numbers do not follow the state's version."""


@dataclass(frozen=True)
class Result:
    """What `execute`/`create_game` return.

    `events` are the events the action wrote (on a duplicate client_id: the events the
    original request wrote). `state`/`version` are the latest state after the call.
    """

    game_id: str
    events: list[Any]
    state: Any
    version: int
    duplicate: bool = False
    mode: str = ""
    """The game's mode, by name (as registered)."""
    snapshot_due: bool = False
    """A snapshot is due and was left to the caller (`execute(defer_snapshot=True)`)."""
