"""The tables as SQLAlchemy Core sees them, the statements of an action, rows to and from events and snapshots."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar, cast

from sqlalchemy import (
    Connection,
    Table,
    bindparam,
    func,
    insert,
    literal_column,
    select,
    update,
)

from referee import offload
from referee.store.models import EventRow, Game, Revocations, Snapshot
from referee.store.types import GameNotFound, Mode

log = logging.getLogger(__name__)

T = TypeVar("T")

games_t = cast(Table, Game.__table__)
events_t = cast(Table, EventRow.__table__)
revocations_t = cast(Table, Revocations.__table__)
snapshots_t = cast(Table, Snapshot.__table__)

# The statements every action runs, built once: building and keying a statement costs about what
# running it on SQLite does.
GAME = select(games_t).where(games_t.c.id == bindparam("game_id"))
GAME_LOCKED = GAME.with_for_update()  # row lock on PostgreSQL; no-op SQL on SQLite
ADD_EVENTS = insert(events_t)
MOVE_GAME = (
    update(games_t)
    .where(games_t.c.id == bindparam("game_id"))
    .values(
        seq=bindparam("new_seq"),
        status=bindparam("new_status"),
        deadline=bindparam("new_deadline"),
        updated_at=bindparam("new_updated_at"),
    )
)
# The round clock's two looks, every few seconds: built once, as a statement built per call
# leaves objects in reference cycles for the cycle collector, whose pauses stop every socket.
DUE_GAMES = (
    select(games_t.c.id)
    .where(games_t.c.deadline.is_not(None), games_t.c.deadline <= bindparam("now"))
    .order_by(games_t.c.deadline)
)
EARLIEST_DEADLINE = select(func.min(games_t.c.deadline))
# The round clock's look: the soonest deadline, and every revocation ever made by any process
# (counted by the database's triggers, migration 0003), in one statement.
LOOK = select(
    EARLIEST_DEADLINE.scalar_subquery(),
    select(revocations_t.c.count).where(revocations_t.c.id == literal_column("1")).scalar_subquery(),
)
# The batch that used a client_id before (unique in a game, so at most one). Read after the game's
# row is locked: on PostgreSQL a statement that waited for the lock still reads from before it.
USED_BY_BATCH = select(events_t.c.batch_seq).where(
    events_t.c.game_id == bindparam("game_id"), events_t.c.client_id == bindparam("client_id")
)


def new_id(nbytes: int = 9) -> str:
    """Return an opaque random URL-safe id (12 characters for 9 bytes)."""
    return secrets.token_urlsafe(nbytes)


# An event's data and a snapshot's state, as stored: compact, and not escaped to ASCII.
dumps = partial(json.dumps, ensure_ascii=False, separators=(",", ":"))


# A snapshot's marker that its state's `log` was left out: the events table holds it already,
# and a snapshot that carried it would grow with the square of the game's length.
LOG_IN_EVENTS = "_log_in_events"
# A snapshot's marker that its growing part holds only the entries after this earlier snapshot's seq.
GROWN_SINCE = "_grown_since"


def snapshot_text(mode: Mode, state: Any, base: int = 0) -> str:
    """Encode a state for the snapshots table, without the log the events table holds.

    `base`: the seq of an earlier snapshot that holds the state's growing part up to there
    (the mode's `snapshot_grows`, the air-raid notes): this one then holds only the entries after it.
    """
    log_free = mode.snapshot_to_dict
    if log_free is None:
        return dumps(mode.state_to_dict(state))
    if base:
        return dumps({**log_free(state, after=base), LOG_IN_EVENTS: True, GROWN_SINCE: base})
    return dumps({**log_free(state), LOG_IN_EVENTS: True})


# Rows under which loading a game is computed where it is: the thread hop costs more than they do.
IN_PLACE_ROWS = 32


def computed(work: int, fn: Callable[..., T], *args: Any) -> T:
    """Return fn(*args): in a thread of `offload` when `work` (rows to decode and fold) is more than a few."""
    return fn(*args) if work <= IN_PLACE_ROWS else offload.run(fn, *args)


def folded(mode: Mode, state: Any, rows: Sequence[Any]) -> Any:
    """Return the state after folding the events of these rows (pure: run in a thread)."""
    for row in rows:
        state = mode.fold(state, mode.event_from_dict(row_dict(row)))
    return state


def replayed(mode: Mode, rows: Sequence[Any]) -> Any:
    """Return the state of a whole log's rows (pure: run in a thread)."""
    return mode.replay([mode.event_from_dict(row_dict(r)) for r in rows])


def from_snapshot(
    mode: Mode,
    body: str,
    log_rows: Sequence[Any] | None,
    older: Mapping[int, str],
    after: Sequence[Any],
) -> Any:
    """Return the state of a snapshot's body and the events after it; None if it points back to one that is gone.

    (Pure: run in a thread.) A snapshot that left its log to the events table gets it back from
    `log_rows`, unfolded; one that holds only the newest entries of its growing part gets the
    earlier ones from the snapshots it points back to (`older`), oldest entries first.
    """
    data = json.loads(body)
    if data.pop(LOG_IN_EVENTS, False):
        data["log"] = [row_dict(r) for r in log_rows or ()]
    since = data.pop(GROWN_SINCE, 0)
    if since:
        grows = mode.snapshot_grows
        if grows is None:
            return None
        pieces = [data.get(grows, {})]
        while since:
            if since not in older:
                return None
            earlier = json.loads(older[since])
            pieces.append(earlier.get(grows, {}))
            since = earlier.get(GROWN_SINCE, 0)
        data[grows] = {k: v for piece in reversed(pieces) for k, v in piece.items()}
    return folded(mode, mode.state_from_dict(data), after)


def row_dict(row: Any) -> dict[str, Any]:
    """Return an events-table row as the dict its Event was made from."""
    return {"seq": row.seq, "kind": row.kind, "data": json.loads(row.data), "at": row.at, "by": row.by}


def event_row(game_id: str, ev: Any, batch_seq: int, device_id: str | None, client_id: str | None) -> dict[str, Any]:
    """Return the events-table row of one event."""
    return {
        "game_id": game_id,
        "seq": ev.seq,
        "kind": ev.kind,
        "data": dumps(dict(ev.data)),
        "at": float(ev.at),
        "by": ev.by,
        "batch_seq": batch_seq,
        "device_id": device_id,
        "client_id": client_id,
    }


def random_seed() -> int:
    """A seed for an action's chance, drawn by the server (the players never choose it)."""
    return secrets.randbits(63)


def deadline_of(mode: Mode, state: Any) -> float | None:
    """When the round clock must next look at a game, from the mode's `next_deadline`; None: never."""
    value = mode.next_deadline(state)
    return None if value is None else float(value)


def status_text(state: Any) -> str:
    """The game's status for the games table: the state's `status` (or `phase`) if it is a string."""
    for attr in ("status", "phase"):
        value = getattr(state, attr, None)
        if isinstance(value, str) and value:
            return value[:32]
    return "active"


def game_row(conn: Connection, game_id: str, *, lock: bool) -> Any:
    """Return a game's row (locked for the write transaction when `lock`); GameNotFound if none."""
    row = conn.execute(GAME_LOCKED if lock else GAME, {"game_id": game_id}).one_or_none()
    if row is None:
        raise GameNotFound(game_id)
    return row


def event_rows(conn: Connection, game_id: str, after: int, upto: int | None = None) -> list[Any]:
    """Return a game's event rows with after < seq <= upto, in order."""
    stmt = select(events_t).where(events_t.c.game_id == game_id, events_t.c.seq > after)
    if upto is not None:
        stmt = stmt.where(events_t.c.seq <= upto)
    return list(conn.execute(stmt.order_by(events_t.c.seq)))
