"""The sockets of this process: the room each listens in, who acts on it, its phone and token, its rate.

Everything a socket settles at `resync` is noted here, under one lock, and forgotten when it goes
away. The round clock looks here for sockets whose phone or token was revoked on another process
(`disconnect_revoked`) and marks the tokens of sockets that acted as seen (`mark_seen`).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, cast

from flask import Flask
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Table, bindparam, or_, select

from referee.rules.events import PUBLIC, Role
from referee.store import reading
from referee.store.models import Device, Token
from referee.web.access import TOUCH_EVERY, TokenInfo, touch_token
from referee.web.extensions import db, engine_of, socketio, store_of

devices_t = cast(Table, Device.__table__)
tokens_t = cast(Table, Token.__table__)

# sid -> (game id, role, language): the room a socket listens in, settled at resync.
listening: dict[str, tuple[str, Role, str]] = {}
# game id -> {(role, language): sockets}: the rooms of a game with a socket here, kept with
# listening, so a push does not look through every socket of the process.
rooms_here: dict[str, dict[tuple[Role, str], int]] = {}
# sid -> the joined phone (device id) behind a team socket, so revoking the phone cuts it off.
devices: dict[str, str] = {}
# sid -> who may act on it: (game id, slip, role), from the resync's cookies or slip, for as long
# as the socket lives. The role a projector window asked to see (`as: public`) is not this one:
# its browser's is.
acting: dict[str, tuple[str, str | None, Role]] = {}
# sid -> the token that gave it that role (a referee's link, a phone's token), while it may act,
# with its database's key (`database_key`): token ids are one database's, and tests run several.
# The round clock looks for revoked ones (`disconnect_revoked`), so an entry reads nothing.
credentials: dict[str, tuple[int, TokenInfo]] = {}
# Sockets that acted since the round clock last looked: their tokens are marked as seen.
acted: set[str] = set()
# (database, token id) -> when this process last marked it as seen (`touch_token`).
touched: dict[tuple[int, int], float] = {}
# game id -> the sockets watching it as the public (projectors) that say their sound at 0:00 is on.
sound_on: dict[str, set[str]] = {}
# Phones revoked on this process: their sockets may not act even before the disconnect lands.
revoked_here: set[str] = set()
# How many sockets were noted (a token or phone settled at resync) since the process began.
_noted = 0
# database key -> (revocations counted, sockets noted) when the clock last looked for revoked ones.
looked: dict[int, tuple[int, int]] = {}
registry_lock = threading.Lock()

# A token bucket per socket: a phone's burst of queued entries passes, a flood does not.
RATE_PER_SECOND = 10.0
RATE_BURST = 40.0
buckets: dict[str, tuple[float, float]] = {}


def allowed(sid: str, now: float | None = None) -> bool:
    """Take one token from a socket's bucket; False when it is empty."""
    now = time.monotonic() if now is None else now
    with registry_lock:
        tokens, last = buckets.get(sid, (RATE_BURST, now))
        tokens = min(RATE_BURST, tokens + (now - last) * RATE_PER_SECOND)
        if tokens < 1.0:
            buckets[sid] = (tokens, now)
            return False
        buckets[sid] = (tokens - 1.0, now)
        return True


TOO_FAST = {"ok": False, "error": "rate_limited", "message": "Too many messages from this page; wait a moment."}


def _wait(sid: str) -> float:
    """Return the seconds until a socket's empty bucket holds a whole token again."""
    with registry_lock:
        tokens, _last = buckets.get(sid, (RATE_BURST, 0.0))
    return max(0.0, 1.0 - tokens) / RATE_PER_SECOND


def rate_limited(sid: str) -> dict[str, Any] | None:
    """Take one token from a socket's bucket: None if it had one, else the `rate_limited` refusal.

    The refusal says when to try again (`retry_after`, seconds), like the HTTP 429's Retry-After.
    """
    if allowed(sid):
        return None
    return refused_too_fast(sid)


def refused_too_fast(sid: str) -> dict[str, Any]:
    """The `rate_limited` refusal of a socket whose bucket is empty, in the request's language."""
    return {
        **TOO_FAST,
        "message": _("Too many messages from this page; wait a moment."),
        "retry_after": round(max(_wait(sid), 0.01), 3),
    }


def malformed(message: str) -> dict[str, Any]:
    """The refusal of a packet or payload that is not of the expected form."""
    return {"ok": False, "error": "malformed", "message": message}


def room_of(game_id: str, role: Role, lang: str) -> str:
    """Return the room of every socket that sees a game as one role, in one language."""
    return f"game:{game_id}:as:{role}:{lang}"


def settle(
    sid: str,
    listens: tuple[str, Role, str],
    acts: tuple[str, str | None, Role],
    token: TokenInfo | None,
    device: str | None,
) -> tuple[str, Role, str] | None:
    """Note a socket's room (game, role, language), who acts on it, its token and phone; return its old room."""
    global _noted
    game_id, role, lang = listens
    with registry_lock:
        old = listening.get(sid)
        listening[sid] = (game_id, role, lang)
        if old != (game_id, role, lang):
            leave(old, sid)
            rooms = rooms_here.setdefault(game_id, {})
            rooms[(role, lang)] = rooms.get((role, lang), 0) + 1
        acting[sid] = acts
        _noted += 1  # the clock's next look checks this socket's token and phone, whatever the count
        if token is not None:
            credentials[sid] = (database_key(), token)
        else:
            credentials.pop(sid, None)
        if device:
            devices[sid] = device
        else:
            devices.pop(sid, None)
    return old


def settled_actor(sid: str, game_id: str, slip: str | None) -> tuple[Role, str | None] | None:
    """Return who acts on a socket, and its phone, as settled at resync; None when it must be read again."""
    with registry_lock:
        settled = acting.get(sid)
        device = devices.get(sid)
        revoked = device is not None and device in revoked_here
        if settled is not None and sid in credentials:
            acted.add(sid)
    if revoked:
        # Revoked here a moment ago: the disconnect may not have landed yet.
        return PUBLIC, None
    if settled is not None and settled[0] == game_id and settled[1] == slip:
        return settled[2], device
    return None


def forget(sid: str) -> None:
    """Forget all this process noted of a socket: its room, rate bucket, phone, role and token."""
    with registry_lock:
        leave(listening.pop(sid, None), sid)
        buckets.pop(sid, None)
        devices.pop(sid, None)
        acting.pop(sid, None)
        credentials.pop(sid, None)
        acted.discard(sid)


def note_sound(sid: str, on: bool) -> str | None:
    """Note whether a projector's sound is on; return its game (None: the socket watches no game as the public)."""
    with registry_lock:
        settled = listening.get(sid)
        if settled is None or settled[1] != PUBLIC:
            return None
        game_id = settled[0]
        if on:
            sound_on.setdefault(game_id, set()).add(sid)
        else:
            _sound_off(game_id, sid)
        return game_id


def _sound_off(game_id: str, sid: str) -> None:
    on = sound_on.get(game_id)
    if on is not None:
        on.discard(sid)
        if not on:
            sound_on.pop(game_id, None)


def screens_of(game_id: str) -> dict[str, int]:
    """The `screens` a game's referee is told: its projectors here, and how many have their sound on.

    A projector that has not said (an older page) counts as one whose sound is off.
    """
    with registry_lock:
        rooms = rooms_here.get(game_id, {})
        projectors = sum(n for (role, _lang), n in rooms.items() if role == PUBLIC)
        return {"projectors": projectors, "sound_on": len(sound_on.get(game_id, ()))}


def leave(settled: tuple[str, Role, str] | None, sid: str | None = None) -> None:
    """Count a socket out of the room it listened in (under registry_lock)."""
    if settled is None:
        return
    game_id, role, lang = settled
    if sid is not None and role == PUBLIC:
        _sound_off(game_id, sid)
    rooms = rooms_here.get(game_id, {})
    left = rooms.get((role, lang), 0) - 1
    if left > 0:
        rooms[(role, lang)] = left
    else:
        rooms.pop((role, lang), None)
        if not rooms:
            rooms_here.pop(game_id, None)


def disconnect_device(device_id: str) -> int:
    """Close this process's sockets of a revoked phone; return how many were closed.

    From now on they may not act, even if an action of theirs is already being handled.
    """
    with registry_lock:
        revoked_here.add(device_id)
        sids = [sid for sid, dev in devices.items() if dev == device_id]
    for sid in sids:
        socketio.server.disconnect(sid, namespace="/")
    return len(sids)


def connected_devices() -> set[str]:
    """Return the joined phones with a live socket on this process (the referee's devices list says so)."""
    with registry_lock:
        return set(devices.values())


# The phones among some that were revoked: built once (the clock asks every REVOKED_EVERY
# seconds, and a statement built per call leaves objects in cycles for the collector).
_REVOKED_AMONG = (
    select(devices_t.c.id)
    .join(tokens_t, tokens_t.c.id == devices_t.c.token_id)
    .where(
        devices_t.c.id.in_(bindparam("devices", expanding=True)),
        or_(tokens_t.c.revoked_at.is_not(None), devices_t.c.revoked_at.is_not(None)),
    )
)


# The tokens among some that were revoked (a referee link by `referee tokens revoke`, say).
_REVOKED_TOKENS = select(tokens_t.c.id).where(
    tokens_t.c.id.in_(bindparam("tokens", expanding=True)), tokens_t.c.revoked_at.is_not(None)
)


def disconnect_revoked(app: Flask, counted: int | None = None) -> int:
    """Close this process's sockets whose phone or token was revoked anywhere; return how many were closed.

    Revoking a phone closes its sockets on the process that took the request at once; a token
    revoked by another process (`referee tokens revoke`, or another server process) is found
    here: the round clock calls this every REVOKED_EVERY seconds, so an entry never reads its
    role again. A socket cut off listened in the room of a role it no longer has.

    Most looks read one number: the revocations the database counted. Only when it moved since
    the last look, or a socket was noted since (its token may have been revoked between its
    check and its note), are this process's tokens and phones looked up.
    """
    key = id(engine_of(app))  # database_key(), without an app context
    with registry_lock:
        phone_ids = sorted(set(devices.values()))
        held = {sid: info.id for sid, (database, info) in credentials.items() if database == key}
        noted = _noted
    tokens = sorted(set(held.values()))
    if not phone_ids and not tokens:
        return 0
    if counted is None:  # read before the look up: a revocation made after it moves it for the next look
        counted = store_of(app).revocations()
    if looked.get(key) == (counted, noted):
        return 0
    with app.app_context(), reading(db.engine) as conn:
        revoked = conn.execute(_REVOKED_AMONG, {"devices": phone_ids}).scalars().all() if phone_ids else []
        gone = set(conn.execute(_REVOKED_TOKENS, {"tokens": tokens}).scalars().all()) if tokens else set()
    looked[key] = (counted, noted)
    with registry_lock:
        # A phone's own token revoked: its sockets are closed with the phone, and counted once.
        phones = {sid for sid, device in devices.items() if device in revoked}
    closed = sum(disconnect_device(str(d)) for d in revoked)
    # Only sockets of this server: a test's app may leave its sockets' notes behind.
    sids = [sid for sid, token in held.items() if token in gone and sid not in phones and connected(sid)]
    with registry_lock:
        for sid in sids:
            acting.pop(sid, None)  # its next entry reads its role again, and finds none
            credentials.pop(sid, None)
    for sid in sids:
        socketio.server.disconnect(sid, namespace="/")
    return closed + len(sids)


def connected(sid: str) -> bool:
    return bool(socketio.server.manager.is_connected(sid, "/"))


def database_key() -> int:
    """Return the key of the current app's database."""
    return id(db.engine)


def mark_seen(app: Flask, now: float | None = None) -> int:
    """Mark the tokens of sockets that acted since the last call as seen; return how many were written.

    Each token at most once every TOUCH_EVERY seconds, as a page's request does: the referee's
    list of phones says when a phone was last seen once it is gone.
    """
    now = time.time() if now is None else now
    with app.app_context():
        key = database_key()
    with registry_lock:
        who = [sid for sid in acted if credentials.get(sid, (None,))[0] == key]
        acted.difference_update(who)
        who = [sid for sid in who if connected(sid)]
        due = {(key, info.id): info for _key, info in (credentials[sid] for sid in who)}
        held = {(database, info.id) for database, info in credentials.values()}
        for gone in [t for t in touched if t not in held]:
            del touched[gone]  # no socket holds it now
    written = 0
    for token, info in due.items():
        last = touched.get(token, info.last_seen_at if info.last_seen_at is not None else -math.inf)
        if now - last < TOUCH_EVERY:
            continue
        with app.app_context():
            touch_token(db.engine, info, force=True)
        touched[token] = now
        written += 1
    return written
