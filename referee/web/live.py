"""Games of every mode over Socket.IO: each socket gets the view of its one role, after every change.

Who sends what:
- a page sends `resync {game, seq, slip?}` on every (re)connect and gets its fresh view back;
- a page sends `action {game, client_id, action, slip?}` and gets `{ok, seq, view}` or a refusal;
- the server pushes `view {seq, view}` to every socket of the game, each with its own role's view.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, cast

from flask import Flask, current_app, request
from flask_babel import force_locale  # type: ignore[import-untyped]
from flask_babel import gettext as _
from flask_socketio import join_room, leave_room  # type: ignore[import-untyped]
from sqlalchemy import Table, or_, select
from werkzeug.exceptions import HTTPException

from referee.models import Device, Token
from referee.rules.errors import RulesError
from referee.rules.events import PUBLIC, Role
from referee.store import GameNotFound, StoreError, reading
from referee.web import modes, playing
from referee.web.auth import current_device_id
from referee.web.extensions import MALFORMED_EVENT, db, socketio
from referee.web.i18n import current_lang, say

log = logging.getLogger(__name__)
devices_t = cast(Table, Device.__table__)
tokens_t = cast(Table, Token.__table__)

# sid -> (game id, role): the role is settled once, at resync, from cookies or the slip.
_sockets: dict[str, tuple[str, Role, str]] = {}
# sid -> the joined phone (device id) behind a team socket, so revoking the phone cuts it off.
_devices: dict[str, str] = {}
_lock = threading.Lock()

# A token bucket per socket: a phone's burst of queued entries passes, a flood does not.
RATE_PER_SECOND = 10.0
RATE_BURST = 40.0
_buckets: dict[str, tuple[float, float]] = {}


def _allowed(sid: str, now: float | None = None) -> bool:
    """Take one token from a socket's bucket; False when it is empty."""
    now = time.monotonic() if now is None else now
    with _lock:
        tokens, last = _buckets.get(sid, (RATE_BURST, now))
        tokens = min(RATE_BURST, tokens + (now - last) * RATE_PER_SECOND)
        if tokens < 1.0:
            _buckets[sid] = (tokens, now)
            return False
        _buckets[sid] = (tokens - 1.0, now)
        return True


TOO_FAST = {"ok": False, "error": "rate_limited", "message": "Too many messages from this page; wait a moment."}


def _wait(sid: str) -> float:
    """Return the seconds until a socket's empty bucket holds a whole token again."""
    with _lock:
        tokens, _last = _buckets.get(sid, (RATE_BURST, 0.0))
    return max(0.0, 1.0 - tokens) / RATE_PER_SECOND


def rate_limited(sid: str) -> dict[str, Any] | None:
    """Take one token from a socket's bucket: None if it had one, else the `rate_limited` refusal.

    The refusal says when to try again (`retry_after`, seconds), like the HTTP 429's Retry-After.
    """
    if _allowed(sid):
        return None
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


def push_views(game_id: str, state: Any, *, local: bool = False) -> dict[tuple[Role, str], Any]:
    """Send every role's fresh view to the sockets of that role (through the message queue if any).

    `local`: only to this process's own sockets, not through the message queue. A push that a newer
    version of the game has already overtaken is dropped. Return the views made, by (role, language),
    so the sender's answer can reuse its own instead of making it again.
    """
    with _lock:
        pushed: dict[str, list[Any]] = current_app.extensions.setdefault("referee.pushed", {})
        game = pushed.setdefault(game_id, [threading.Lock(), 0])  # [lock, newest version pushed]
    with game[0]:
        # Two entries stored one after the other can reach this point in the other order (two
        # request threads): the older view would then be the last every screen gets, and stay.
        if state.version < game[1]:
            return {}
        game[1] = state.version
        return _push_views_now(game_id, state, local=local)


class SocketPublisher:
    """The play service's Publisher: every audience's room gets its view (`push_views`)."""

    def publish(self, game_id: str, state: Any) -> dict[tuple[Role, str], Any]:
        """Push every role's fresh view of a game; return the views made, by (role, language)."""
        return push_views(game_id, state)


def _push_views_now(game_id: str, state: Any, *, local: bool) -> dict[tuple[Role, str], Any]:
    roles = modes.of(state).push_roles(state)
    with _lock:
        # Pilots whose order was just removed or voided are no longer in the state: this
        # process's own sockets still know them, so their pages hear that the order is gone.
        roles.extend(r for g, r, _lang in _sockets.values() if g == game_id and r not in roles)
        # Without a message queue every socket is this process's own: a view nobody here reads
        # is not made (making and sending the views is most of a push's time).
        in_use = (
            None
            if current_app.config.get("REDIS_URL")
            else {(r, lang) for g, r, lang in _sockets.values() if g == game_id}
        )
    made: dict[tuple[Role, str], Any] = {}
    for lang in current_app.config["LANGUAGES"]:
        # Each screen reads its own language: the views are made once per language in use.
        with force_locale(lang):
            for role in dict.fromkeys(roles):
                if in_use is not None and (role, lang) not in in_use:
                    continue
                try:
                    view: dict[str, Any] | None = playing.view_of(state, role, game_id)
                except RulesError:
                    view = None
                made[(role, lang)] = view
                socketio.emit(
                    "view", {"seq": state.version, "view": view}, to=room_of(game_id, role, lang), ignore_queue=local
                )
    return made


def _refusal(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, RulesError):
        return {"ok": False, "error": exc.code, "message": say(exc.message)}
    if isinstance(exc, GameNotFound):
        return {"ok": False, "error": "not_found", "message": "There is no such game."}
    if isinstance(exc, HTTPException):
        error = {403: "forbidden", 404: "not_found"}.get(exc.code or 0, "refused")
        return {"ok": False, "error": error, "message": exc.description or ""}
    if isinstance(exc, StoreError):
        return {"ok": False, "error": "busy", "message": "The server is busy; your entry will be sent again."}
    log.exception("unexpected error in a socket handler")
    return {"ok": False, "error": "server", "message": "Something went wrong on the server; nothing was changed."}


def _game_and_slip(data: Any) -> tuple[str, str | None]:
    if not isinstance(data, dict):
        raise RulesErrorMalformed("send an object with the game's id")
    game = data.get("game")
    slip = data.get("slip")
    if not isinstance(game, str) or not 1 <= len(game) <= 32:
        raise RulesErrorMalformed("game must be the game's id")
    if slip is not None and (not isinstance(slip, str) or len(slip) > 200):
        raise RulesErrorMalformed("slip must be the slip's code")
    return game, slip


class RulesErrorMalformed(RulesError):
    """A socket payload that is not of the expected form."""

    code = "malformed"


@socketio.on("resync")  # type: ignore[untyped-decorator]
def on_resync(data: Any = None) -> dict[str, Any]:
    """From any page: settle this socket's role, join its room, and answer with a fresh view."""
    sid = request.sid  # type: ignore[attr-defined]
    too_fast = rate_limited(sid)
    if too_fast:
        return too_fast
    try:
        game_id, slip = _game_and_slip(data)
        state = playing.load_any_state(game_id)
        role = playing.role_of(game_id, slip, state)
        if data.get("as") == "public":
            # A projector window in the referee's own browser asks to see only what the room may.
            role = PUBLIC
        lang = current_lang()
        with _lock:
            old = _sockets.get(sid)
            _sockets[sid] = (game_id, role, lang)
            device = current_device_id(game_id) if role.kind in ("team", "player") else None
            if device:
                _devices[sid] = device
            else:
                _devices.pop(sid, None)
        if old and old != (game_id, role, lang):
            leave_room(room_of(*old))
        join_room(room_of(game_id, role, lang))
        return {"ok": True, "seq": state.version, "view": playing.view_of(state, role, game_id)}
    except Exception as exc:  # noqa: BLE001 - every refusal is an answer, never a dropped socket
        return _refusal(exc)


@socketio.on("action")  # type: ignore[untyped-decorator]
def on_action(data: Any = None) -> dict[str, Any]:
    """From a team, pilot or referee page: apply one entry; the ack answers, every screen gets its view."""
    too_fast = rate_limited(request.sid)  # type: ignore[attr-defined]
    if too_fast:
        return too_fast
    try:
        game_id, slip = _game_and_slip(data)
        role = playing.role_of(game_id, slip, playing.load_any_state(game_id))
        if role == PUBLIC:
            return {"ok": False, "error": "forbidden", "message": "Watchers cannot act. Join a team or open your slip."}
        return playing.run_action(
            game_id, role, data.get("action"), client_id=data.get("client_id"), version=data.get("version")
        )
    except Exception as exc:  # noqa: BLE001 - every refusal is an answer, never a dropped socket
        return _refusal(exc)


@socketio.on(MALFORMED_EVENT)  # type: ignore[untyped-decorator]
def on_malformed(problem: Any = None) -> dict[str, Any]:
    """A packet realtime.TextPacket could not take as an event: answer it, log one line."""
    too_fast = rate_limited(request.sid)  # type: ignore[attr-defined]
    if too_fast:
        return too_fast  # a flood of junk is not logged line by line
    log.warning("malformed Socket.IO packet from %s: %s", request.remote_addr, str(problem)[:200])
    return {**malformed(_("This message could not be read.")), "detail": str(problem)[:200]}


@socketio.on("*")  # type: ignore[untyped-decorator]
def on_unknown_event(event: Any, *_args: Any) -> dict[str, Any]:
    """Any event this server has no handler for: refused as malformed (an answer, never silence)."""
    too_fast = rate_limited(request.sid)  # type: ignore[attr-defined]
    if too_fast:
        return too_fast
    return malformed(_("There is no such event."))


@socketio.on("disconnect")  # type: ignore[untyped-decorator]
def on_disconnect(*_args: Any) -> None:
    """Forget a socket that went away."""
    with _lock:
        _sockets.pop(request.sid, None)  # type: ignore[attr-defined]
        _buckets.pop(request.sid, None)  # type: ignore[attr-defined]
        _devices.pop(request.sid, None)  # type: ignore[attr-defined]


def disconnect_device(device_id: str) -> int:
    """Close this process's sockets of a revoked phone; return how many were closed."""
    with _lock:
        sids = [sid for sid, dev in _devices.items() if dev == device_id]
    for sid in sids:
        socketio.server.disconnect(sid, namespace="/")
    return len(sids)


def connected_devices() -> set[str]:
    """Return the joined phones with a live socket on this process (the referee's devices list says so)."""
    with _lock:
        return set(_devices.values())


def disconnect_revoked(app: Flask) -> int:
    """Close this process's sockets of phones revoked anywhere; return how many were closed.

    Revoking a phone closes its sockets on the process that took the request at once; with
    several processes, each one finds its own sockets of revoked phones here (the round clock
    calls it every few seconds).
    """
    with _lock:
        devices = sorted(set(_devices.values()))
    if not devices:
        return 0
    with app.app_context(), reading(db.engine) as conn:
        revoked = (
            conn.execute(
                select(devices_t.c.id)
                .join(tokens_t, tokens_t.c.id == devices_t.c.token_id)
                .where(
                    devices_t.c.id.in_(devices),
                    or_(tokens_t.c.revoked_at.is_not(None), devices_t.c.revoked_at.is_not(None)),
                )
            )
            .scalars()
            .all()
        )
    return sum(disconnect_device(str(d)) for d in revoked)


def end_rounds_on_time(app: Flask, now: float | None = None) -> list[str]:
    """Take every action a clock must take now (a round at 0:00, in every mode); return those games.

    The play service's `tick`: only games whose stored deadline has come are loaded.
    """
    with app.app_context():
        return playing.play().tick(now)


def resend_views(app: Flask) -> list[str]:
    """Send this process's sockets a fresh view of their games; return those games.

    Runs when the message queue is subscribed again after an outage: views other processes
    published meanwhile never reached these sockets. Each process resends to its own sockets
    only, from the database, so every screen catches up without waiting for the next entry.
    """
    with _lock:
        games = sorted({g for g, _role, _lang in _sockets.values()})
    sent: list[str] = []
    with app.app_context():
        for game_id in games:
            try:
                state, _version = db.store.load(game_id)
            except StoreError:
                continue
            push_views(game_id, state, local=True)
            sent.append(game_id)
    if sent:
        log.warning("message queue back: resent the views of %d game(s)", len(sent))
    return sent


def expire_idle_games(app: Flask, now: float | None = None) -> list[str]:
    """Run every mode's sweep of forgotten games (Battleship's: abandon idle ones); return their ids."""
    now = time.time() if now is None else now
    expired: list[str] = []
    for mode in modes.registered():
        if mode.sweep is not None:
            expired += mode.sweep(app, now)
    return expired


# Seconds between two looks for sockets of phones revoked on another process.
REVOKED_EVERY = 2.0
# Seconds between two sweeps for idle Battleship games.
EXPIRE_EVERY = 60.0


def start_round_clock(app: Flask, every: float = 0.25) -> None:
    """Run the deadline check in the background for as long as the server runs."""

    def loop() -> None:
        ticks = 0
        while True:
            socketio.sleep(every)
            ticks += 1
            try:
                end_rounds_on_time(app)
                if ticks % max(1, round(REVOKED_EVERY / every)) == 0:
                    disconnect_revoked(app)
                if ticks % max(1, round(EXPIRE_EVERY / every)) == 0:
                    expire_idle_games(app)
            except Exception:  # the clock must keep ticking whatever one game does
                log.exception("round clock")

    socketio.start_background_task(loop)


def init_app(app: Flask) -> None:
    """Start the round clock unless testing (tests call end_rounds_on_time themselves).

    ROUND_CLOCK = False leaves it to the caller: `referee serve` under gunicorn starts it in the
    worker after the fork, since a thread started before it would run in the master, whose
    pushes reach no socket (and, with a message queue, not even its own worker's).
    """
    app.extensions[playing.PUBLISHER] = SocketPublisher()
    if not app.config.get("TESTING") and app.config.get("ROUND_CLOCK", True):
        start_round_clock(app)
