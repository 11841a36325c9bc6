"""Games of every mode over Socket.IO: each socket gets the view of its one role, after every change.

Who sends what:
- a page sends `resync {game, seq, slip?}` on every (re)connect and gets its fresh view back
  (with `reset: true` when the page holds a newer version than the log: one a power cut lost);
- a page sends `action {game, client_id, action, slip?}` and gets `{ok, seq, events}` or a refusal
  (the sender's socket got the change of its view just before, in its room's push);
- after every change the server pushes to each room (a role in a language) what changed in its
  view since the last push: `changes {from, seq, changes}` (`push/changes.py`), or the whole
  `view {seq, view}` when it knows no view that room holds, or the change would be no smaller;
- a projector sends `sound {game, on}` whenever its sound at 0:00 is turned on or off, and after
  each resync; the game's referees get `screens {projectors, sound_on}` then, and when a
  projector goes away (a referee's resync answer carries `screens` too);
- when the server's writes begin to fail (a full disk) and when they succeed again, every
  referee's socket gets `store {ok, since}` (and a referee's resync answer carries `store` while
  they fail); an entry that could not be stored is answered `busy` with `retry_after` seconds.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, current_app, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from flask_socketio import join_room, leave_room  # type: ignore[import-untyped]
from werkzeug.exceptions import HTTPException

from referee.push.clock import start_round_clock
from referee.push.sockets import (
    allowed,
    forget,
    listening,
    malformed,
    note_sound,
    rate_limited,
    refused_too_fast,
    registry_lock,
    room_of,
    screens_of,
    settle,
    settled_actor,
)
from referee.push.views import REFEREES, SocketPublisher, joined_view, push_mark, tell_referees, write_health
from referee.rules.errors import MalformedAction, RulesError
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.store import GameNotFound, StoreBusy
from referee.web.access import credential, current_device_id
from referee.web.api import acting
from referee.web.extensions import MALFORMED_EVENT, socketio, store_of
from referee.web.i18n import current_lang, say

log = logging.getLogger(__name__)


def _refusal(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, RulesError):
        return {"ok": False, "error": exc.code, "message": say(exc.message)}
    if isinstance(exc, GameNotFound):
        return {"ok": False, "error": "not_found", "message": _("There is no such game.")}
    if isinstance(exc, HTTPException):
        error = {403: "forbidden", 404: "not_found"}.get(exc.code or 0, "refused")
        return {"ok": False, "error": error, "message": exc.description or ""}
    if isinstance(exc, StoreBusy):
        return {
            "ok": False,
            "error": "busy",
            "message": _("The referee's computer could not save this yet; it will be sent again."),
            "retry_after": exc.retry_after,
        }
    log.exception("unexpected error in a socket handler")
    return {"ok": False, "error": "server", "message": _("Something went wrong on the server; nothing was changed.")}


def _game_and_slip(data: Any) -> tuple[str, str | None]:
    if not isinstance(data, dict):
        raise MalformedAction("send an object with the game's id")
    game = data.get("game")
    slip = data.get("slip")
    if not isinstance(game, str) or not 1 <= len(game) <= 32:
        raise MalformedAction("game must be the game's id")
    if slip is not None and (not isinstance(slip, str) or len(slip) > 200):
        raise MalformedAction("slip must be the slip's code")
    return game, slip


@socketio.on("resync")  # type: ignore[untyped-decorator]
def on_resync(data: Any = None) -> dict[str, Any]:
    """From any page: settle this socket's role, join its room, and answer with a fresh view."""
    sid = request.sid  # type: ignore[attr-defined]
    too_fast = rate_limited(sid)
    if too_fast:
        return too_fast
    try:
        game_id, slip = _game_and_slip(data)
        mark = push_mark(game_id)
        state = acting.load_any_state(game_id)
        role = acting.role_of(game_id, slip, state)
        actor = role
        if data.get("as") == "public":
            # A projector window in the referee's own browser asks to see only what the room may.
            role = PUBLIC
        lang = current_lang()
        device = current_device_id(game_id) if actor.kind in ("team", "player") else None
        token = None if slip else credential(game_id, actor.kind)
        if not socketio.server.manager.is_connected(sid, "/"):
            # It went away while its role was read (a page closed, a phone out of reach): noting
            # it now would keep a socket nobody will ever forget, its phone shown as connected.
            return malformed("This connection is not open.")
        old = settle(sid, (game_id, role, lang), (game_id, slip, actor), token, device)
        if old and old != (game_id, role, lang):
            leave_room(room_of(*old))
        try:
            join_room(room_of(game_id, role, lang))
            if role.kind == "referee":
                join_room(REFEREES)
        except KeyError:  # gone after all (a threaded server's disconnect ran in between)
            forget(sid)
            return malformed("This connection is not open.")
        # A push made between the first look and the join never reached this socket: then the
        # view it gets is of the state as it is now, after the join. Without a message queue
        # every push to it is this process's own, so one that did not happen needs no reread
        # (a storm of reconnects after a restart reads each game row once a socket, not twice).
        if current_app.config.get("REDIS_URL") or push_mark(game_id) != mark:
            state = acting.load_any_state(game_id)
        answer = {"ok": True, "seq": state.version, "view": joined_view(game_id, state, role, lang)}
        if role.kind == "referee":
            answer["screens"] = screens_of(game_id)
            if store_of(current_app).health.failing_since is not None:
                answer["store"] = write_health(store_of(current_app).health)
        held = data.get("seq")
        if type(held) is int and held > state.version:
            # The page holds a version the log no longer has (the database was put back from a
            # copy, or its disk lied about a sync): the server's word wins, and the page's view goes.
            answer["reset"] = True
        return answer
    except Exception as exc:  # noqa: BLE001 - every refusal is an answer, never a dropped socket
        return _refusal(exc)


WATCHERS_CANNOT_ACT = {
    "ok": False,
    "error": "forbidden",
    "message": "Watchers cannot act. Join a team or open your slip.",
}


@socketio.on("action")  # type: ignore[untyped-decorator]
def on_action(data: Any = None) -> dict[str, Any]:
    """From a team, pilot or referee page: apply one entry; the ack answers, every screen gets its change."""
    global _running
    sid: str = request.sid  # type: ignore[attr-defined]
    with registry_lock:
        _running += 1
    try:
        # The token first, whatever the payload: a flood of junk is slowed down like any other.
        if not allowed(sid):
            return refused_too_fast(sid)
        try:
            game_id, slip = _game_and_slip(data)
            actor = settled_actor(sid, game_id, slip) or _actor(sid, game_id, slip)
            return _act(game_id, *actor, data)
        except Exception as exc:  # noqa: BLE001 - every refusal is an answer, never a dropped socket
            return _refusal(exc)
    finally:
        with registry_lock:
            _running -= 1


# Entries being run now in this process: the cycle collector waits for none (referee.realtime.server).
_running = 0


def entries_running() -> bool:
    """Tell whether an entry is being run (its push may be under way): no time to collect cycles."""
    return _running > 0


def _act(game_id: str, role: Role, device: str | None, data: dict[str, Any]) -> dict[str, Any]:
    if role == PUBLIC:
        return WATCHERS_CANNOT_ACT
    return acting.run_action(
        game_id,
        role,
        data.get("action"),
        client_id=data.get("client_id"),
        version=data.get("version"),
        device_id=device,
        with_view=False,
    )


def _actor(sid: str, game_id: str, slip: str | None) -> tuple[Role, str | None]:
    """Return who acts on a socket, and its phone: as settled at resync, else read again (in a request context).

    The settled role is used for the game and slip it was settled for, for as long as the
    socket lives: a token revoked anywhere cuts the socket off within REVOKED_EVERY seconds
    (`disconnect_revoked`), one revoked here at once. An entry for another game or slip is
    read again from the cookies.
    """
    known = settled_actor(sid, game_id, slip)
    if known is not None:
        return known
    # Not the game or slip this socket listens to (or it was cut off a moment ago): read per entry.
    role = acting.role_of(game_id, slip, acting.load_any_state(game_id))
    device = current_device_id(game_id) if role.kind in ("team", "player") else None
    return role, device


@socketio.on("sound")  # type: ignore[untyped-decorator]
def on_sound(data: Any = None) -> dict[str, Any]:
    """From a projector: whether its sound at 0:00 is on; to the game's referees: `screens`."""
    sid: str = request.sid  # type: ignore[attr-defined]
    too_fast = rate_limited(sid)
    if too_fast:
        return too_fast
    if not isinstance(data, dict) or type(data.get("on")) is not bool:
        return malformed(_("Send whether the sound is on: on, true or false."))
    game_id = note_sound(sid, data["on"])
    if game_id is None:
        return malformed(_("Only a projector that watches a game says whether its sound is on."))
    _tell_screens(game_id)
    return {"ok": True}


def _tell_screens(game_id: str) -> None:
    """To a game's referees, in every language's room: its projectors and whether their sound is on."""
    rooms = [room_of(game_id, REFEREE, lang) for lang in current_app.config["LANGUAGES"]]
    socketio.emit("screens", screens_of(game_id), to=rooms)


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
    """Forget a socket that went away; a projector's referees hear that it went."""
    sid: str = request.sid  # type: ignore[attr-defined]
    with registry_lock:
        settled = listening.get(sid)
    forget(sid)
    if settled is not None and settled[1] == PUBLIC:
        _tell_screens(settled[0])


def init_app(app: Flask) -> None:
    """Start the round clock unless testing (tests call end_rounds_on_time themselves).

    ROUND_CLOCK = False leaves it to the caller: `referee serve` under gunicorn starts it in the
    worker after the fork, since a thread started before it would run in the master, whose
    pushes reach no socket (and, with a message queue, not even its own worker's).
    """
    app.extensions[acting.PUBLISHER] = SocketPublisher()
    store_of(app).health.watch(tell_referees)
    if not app.config.get("TESTING") and app.config.get("ROUND_CLOCK", True):
        start_round_clock(app)
