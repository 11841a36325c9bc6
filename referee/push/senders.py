"""Which phone sent each event of a game, and the phone's name, kept in memory.

The referee's log names the phone behind each row, on every push: read from the database once,
not per push. An event's phone never changes, so it is kept for good (this process notes the
phone of each change it stores, so a new row costs no read); a phone's name may change, so the
names are read again when one is renamed here (`renamed`), when an unknown phone shows up
(one that just joined) and, when other processes serve the same games (a message queue), at
most NAMES_TTL seconds after the last read (renamed elsewhere). A process alone renames every
phone itself: it reads names only when told to.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

from flask import current_app
from sqlalchemy import Table, select

from referee.store import reading
from referee.store.models import Device, EventRow
from referee.web.extensions import db

devices_t = cast(Table, Device.__table__)
events_t = cast(Table, EventRow.__table__)

NAMES_TTL = 5.0
"""Seconds a game's phone names are trusted before they are read again (a rename on another process)."""

GAMES = 256
"""Games whose senders are kept (the newest looked at)."""


@dataclass
class _Game:
    phone_of: dict[int, str | None] = field(default_factory=dict)  # event seq -> device id (None: no phone)
    name_of: dict[str, str | None] = field(default_factory=dict)  # device id -> its name (None: unnamed)
    names_read: float = float("-inf")  # time.monotonic() of the last read of the names
    generation: int = 0  # counts the times the names were read again or forgotten


_games: OrderedDict[tuple[int, str], _Game] = OrderedDict()
_lock = threading.Lock()


def _game(game_id: str) -> _Game:
    # Keyed by the database too: tests (and a CLI) run several apps in one process.
    key = (id(db.engine), game_id)
    with _lock:
        game = _games.get(key)
        if game is None:
            game = _games[key] = _Game()
            while len(_games) > GAMES:
                _games.popitem(last=False)
        _games.move_to_end(key)
        return game


def note(game_id: str, seqs: Iterable[int], device_id: str | None) -> None:
    """Remember that these events of a game were sent by this phone (None: by no phone)."""
    game = _game(game_id)
    with _lock:
        for seq in seqs:
            game.phone_of[seq] = device_id
        _trim(game)


# Events remembered per game: the referee's log shows the last fifty rows.
KEEP_EVENTS = 512


def _trim(game: _Game) -> None:
    if len(game.phone_of) > 2 * KEEP_EVENTS:
        for seq in sorted(game.phone_of)[:-KEEP_EVENTS]:
            del game.phone_of[seq]


def renamed(game_id: str) -> None:
    """Forget a game's phone names: one was renamed (or revoked) here."""
    game = _game(game_id)
    with _lock:
        game.name_of = {}  # no phone's name is known: the next look with a phone in it reads them all
        game.generation += 1


def generation(game_id: str) -> int:
    """Return a number that changes whenever a game's phone names are read again or forgotten."""
    game = _game(game_id)
    with _lock:
        return game.generation


def of_events(game_id: str, seqs: list[int]) -> dict[int, tuple[str, str | None]]:
    """Map each of these events sent by a phone to (device id, name); the rest are left out."""
    game = _game(game_id)
    now = time.monotonic()
    shared = bool(current_app.config.get("REDIS_URL"))  # other processes may rename phones
    with _lock:
        unknown = [s for s in seqs if s not in game.phone_of]
        phones = {game.phone_of[s] for s in seqs if s in game.phone_of} - {None}
        stale = (shared and now - game.names_read > NAMES_TTL) or not phones <= game.name_of.keys()
    if unknown or (stale and phones):
        with reading(db.engine) as conn:
            found: dict[int, str | None] = dict.fromkeys(unknown)
            if unknown:
                rows = conn.execute(
                    select(events_t.c.seq, events_t.c.device_id).where(
                        events_t.c.game_id == game_id, events_t.c.seq.in_(unknown)
                    )
                )
                found.update({int(r.seq): r.device_id for r in rows})
            names = None
            if stale or not {d for d in found.values() if d} <= game.name_of.keys():
                rows = conn.execute(select(devices_t.c.id, devices_t.c.name).where(devices_t.c.game_id == game_id))
                names = {str(r.id): r.name for r in rows}
        with _lock:
            game.phone_of.update(found)
            _trim(game)
            if names is not None:
                game.name_of, game.names_read = names, now
                game.generation += 1
    with _lock:
        out: dict[int, tuple[str, str | None]] = {}
        for seq in seqs:
            phone = game.phone_of.get(seq)
            if phone is not None:
                out[seq] = (phone, game.name_of.get(phone))
        return out
