"""The play service: the one authoritative path from an action to the log and back, for every mode.

It stands between the transports (HTTP routes, Socket.IO handlers, the round clock) and the rules,
as boardgame.io's master does: the store runs the action (one state load, one write transaction,
the server's seed when the action takes chance), a `Publisher` that the web layer implements
sends every audience its fresh view, and then whatever happens by itself follows (the computer's
turn, by the mode's `automatic`). The clock's `tick` ends what each mode's `due_action` says is
due. Nothing here imports Flask.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from referee import offload
from referee.rules import find_mode
from referee.rules.errors import MalformedAction, Msg, RulesError
from referee.rules.events import Role
from referee.rules.sea import Draft, Ship
from referee.store import Result, Store, StoreError

log = logging.getLogger(__name__)

# A whole Battleship game is at most 100 shots a side: more automatic moves than this in a row is a bug.
MAX_AUTOMATIC = 500


class Publisher(Protocol):
    """How the play service tells the screens: the web layer's pushes."""

    def publish(
        self, game_id: str, state: Any, since: int | None = None, device_id: str | None = None
    ) -> Mapping[tuple[Role, str], Any]:
        """Send every audience of a game its fresh view; return the views made, by (role, language).

        `since` is the version the change started from (its first event's seq less one), so an
        audience can be sent what changed since then; None when unknown (a duplicate's answer).
        `device_id` is the phone that sent the change, if one did.
        """


@dataclass
class Acted:
    """What an action did: the store's result, the newest state (after any automatic moves), the views pushed."""

    result: Result
    state: Any
    pushed: Mapping[tuple[Role, str], Any]


class Play:
    """Create, act and tick, for every registered mode."""

    def __init__(self, store: Store, publisher: Publisher, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.publisher = publisher
        self.clock = clock

    def create(self, mode_name: str, action: Mapping[str, Any], *, by: str, game_id: str | None = None) -> Acted:
        """Start a game of a mode, then play what follows by itself (the computer places its fleet)."""
        result = self.store.create_game(mode_name, dict(action), at=self.clock(), by=by, game_id=game_id)
        return Acted(result, self.follow(result.game_id, mode_name, result.state), {})

    def act(
        self,
        game_id: str,
        role: Role,
        action: Any,
        *,
        client_id: Any = None,
        version: Any = None,
        device_id: str | None = None,
    ) -> Acted:
        """Apply one action for a role: store it, push its change, play what follows; answer what was stored."""
        if not isinstance(action, dict):
            raise MalformedAction(Msg("action must be a JSON object with a type"))
        if client_id is not None and (not isinstance(client_id, str) or not 1 <= len(client_id) <= 64):
            raise MalformedAction(Msg("client_id must be text of 1 to 64 characters"))
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            raise MalformedAction(Msg("version must be a whole number"))
        if action.get("type") == "create_game":
            raise MalformedAction(Msg("create a game with POST /api/games"))
        result = self.store.execute(
            game_id,
            action,
            at=self.clock(),
            by=role,
            device_id=device_id,
            client_id=client_id,
            version=version,
            defer_snapshot=True,
        )
        # Stored, on the disk: from here on the answer says so, whatever the push or the computer's reply does.
        # A screen a failed push missed catches up at its next resync.
        state = result.state
        pushed: Mapping[tuple[Role, str], Any] = {}
        try:
            # The screens first: encoding a snapshot is the slowest part of the fiftieth report.
            pushed = self._publish(game_id, result.state, since=_since(result), device_id=device_id)
            self.store.write_snapshot(result)
            if not result.duplicate:
                state = self.follow(game_id, result.mode, result.state)
        except Exception:  # the action is stored: its answer must say so, not "nothing changed"
            log.exception("after action %s in game %s was stored", action.get("type"), game_id)
        return Acted(result, state, pushed)

    def _publish(
        self, game_id: str, state: Any, since: int | None, device_id: str | None = None
    ) -> Mapping[tuple[Role, str], Any]:
        """Push a stored change to every audience; a push that fails is logged, never raised.

        The change is stored whatever happens here: its screens get it at their next resync.
        """
        try:
            return self.publisher.publish(game_id, state, since=since, device_id=device_id)
        except Exception:  # a push is a courtesy to the screens; the store holds the truth
            log.exception("the push of game %s at version %s failed", game_id, getattr(state, "version", "?"))
            return {}

    def random_sea(self, draft: Draft) -> list[Ship]:
        """Place a draft's fleet at random, by the server's chance: a proposal, never stored."""
        return offload.run(draft.random, secrets.randbits(63))

    def follow(self, game_id: str, mode_name: str, state: Any) -> Any:
        """Play the moves that happen by themselves (the computer's), pushing each; return the newest state."""
        mode = find_mode(mode_name)
        for _move in range(MAX_AUTOMATIC):
            step = mode.automatic(state)  # (whose move, not the move: the mode's SLOW_KINDS think off the loop)
            if step is None:
                break
            by, action = step
            try:
                result = self.store.execute(game_id, dict(action), at=self.clock(), by=by)
            except RulesError:
                log.exception("the automatic move %s was refused in game %s", action.get("type"), game_id)
                break
            self._publish(game_id, result.state, since=_since(result))
            state = result.state
        return state

    def tick(self, now: float | None = None) -> list[str]:
        """Take every action a clock must take now (a round at 0:00); return the games it acted in.

        Only games whose stored deadline has come are loaded, so games without a clock cost
        nothing. Every process ticks; the state version makes each action happen once: a second
        attempt finds nothing due and is refused.
        """
        now = self.clock() if now is None else now
        acted: list[str] = []
        for game_id in self.store.due_game_ids(now):
            try:
                state, _version = self.store.load(game_id)
                step = find_mode(self.store.mode_of(game_id)).due_action(state, now)
                if step is None:
                    # The stored deadline was only a mark (or has just moved): keep the real one.
                    self.store.refresh_deadline(game_id)
                    continue
                by, action = step
                result = self.store.execute(game_id, dict(action), at=now, by=by)
            except (StoreError, RulesError):
                continue  # gone, busy, or another process acted first
            self._publish(game_id, result.state, since=_since(result))
            acted.append(game_id)
        return acted


def _since(result: Result) -> int | None:
    """Return the version a stored change started from, or None (a duplicate, or nothing stored)."""
    if result.duplicate or not result.events:
        return None
    return int(result.events[0].seq) - 1
