"""Games of every mode over Socket.IO: each socket gets the view of its one role, after every change.

Who sends what:
- a page sends `resync {game, seq, slip?}` on every (re)connect and gets its fresh view back
  (with `reset: true` when the page holds a newer version than the log: one a power cut lost);
- a page sends `action {game, client_id, action, slip?}` and gets `{ok, seq, events}` or a refusal
  (the sender's socket got the change of its view just before, in its room's push);
- after every change the server pushes to each room (a role in a language) what changed in its
  view since the last push: `changes {from, seq, changes}` (`web/changes.py`), or the whole
  `view {seq, view}` when it knows no view that room holds, or the change would be no smaller;
- when the server's writes begin to fail (a full disk) and when they succeed again, every
  referee's socket gets `store {ok, since}` (and a referee's resync answer carries `store` while
  they fail); an entry that could not be stored is answered `busy` with `retry_after` seconds.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

from flask import Flask, current_app, request
from flask_babel import force_locale  # type: ignore[import-untyped]
from flask_babel import gettext as _
from flask_socketio import join_room, leave_room  # type: ignore[import-untyped]
from sqlalchemy import Table, bindparam, or_, select
from werkzeug.exceptions import HTTPException

from referee.models import Device, Token
from referee.rules.errors import MalformedAction, RulesError
from referee.rules.events import PUBLIC, Role
from referee.store import GameNotFound, StoreBusy, StoreError, WriteHealth, reading
from referee.web import changes, modes, playing, senders
from referee.web.auth import TOUCH_EVERY, TokenInfo, credential, current_device_id, touch_token
from referee.web.extensions import MALFORMED_EVENT, db, engine_of, socketio, store_of
from referee.web.i18n import current_lang, said, say

log = logging.getLogger(__name__)
devices_t = cast(Table, Device.__table__)
tokens_t = cast(Table, Token.__table__)

# sid -> (game id, role, language): the room a socket listens in, settled at resync.
_sockets: dict[str, tuple[str, Role, str]] = {}
# game id -> {(role, language): sockets}: the rooms of a game with a socket here, kept with
# _sockets, so a push does not look through every socket of the process.
_rooms: dict[str, dict[tuple[Role, str], int]] = {}
# sid -> the joined phone (device id) behind a team socket, so revoking the phone cuts it off.
_devices: dict[str, str] = {}
# sid -> who may act on it: (game id, slip, role), from the resync's cookies or slip, for as long
# as the socket lives. The role a projector window asked to see (`as: public`) is not this one:
# its browser's is.
_acting: dict[str, tuple[str, str | None, Role]] = {}
# sid -> the token that gave it that role (a referee's link, a phone's token), while it may act,
# with its database's key (`_database`): token ids are one database's, and tests run several.
# The round clock looks for revoked ones (`disconnect_revoked`), so an entry reads nothing.
_credentials: dict[str, tuple[int, TokenInfo]] = {}
# Sockets that acted since the round clock last looked: their tokens are marked as seen.
_acted: set[str] = set()
# (database, token id) -> when this process last marked it as seen (`touch_token`).
_touched: dict[tuple[int, int], float] = {}
# Phones revoked on this process: their sockets may not act even before the disconnect lands.
_revoked: set[str] = set()
# How many sockets were noted (a token or phone settled at resync) since the process began.
_noted = 0
# database key -> (revocations counted, sockets noted) when the clock last looked for revoked ones.
_looked: dict[int, tuple[int, int]] = {}
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
    return _too_fast(sid)


def _too_fast(sid: str) -> dict[str, Any]:
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


@dataclass
class _Pushed:
    """One game's pushes from this process: the newest version, and the view each room was last sent.

    `held`: by room, (version, view, bytes of the whole view when last weighed, or None).
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    version: int = 0
    held: dict[tuple[Role, str], tuple[int, Any, int | None]] = field(default_factory=dict)
    unsaid: dict[Role, tuple[int, Any]] = field(default_factory=dict)
    """By role, for modes whose views translate after the fact: (version, the view before translation)."""


Room = tuple[Role, str]
"""A role's sockets in one language: what one push is encoded for."""

# The games whose rooms' last views are kept (a change set needs them), newest push last.
HELD_GAMES = 256


def _pushed_of(game_id: str) -> _Pushed:
    global _forgotten
    with _lock:
        games: OrderedDict[str, _Pushed] = current_app.extensions.setdefault("referee.pushed", OrderedDict())
        game = games.get(game_id)
        if game is None:
            game = games[game_id] = _Pushed()
        games.move_to_end(game_id)
        while len(games) > HELD_GAMES:
            # A game nobody has pushed to for long is forgotten: its next push sends whole views.
            games.popitem(last=False)
            _forgotten += 1
    return game


# Games whose pushes this process has forgotten so far (HELD_GAMES): a push's mark that moved.
_forgotten = 0


def _pushed_if_any(game_id: str) -> _Pushed | None:
    """Return a game's pushes from this process, if it keeps any (not made here: a look does not evict)."""
    games: OrderedDict[str, _Pushed] | None = current_app.extensions.get("referee.pushed")
    return games.get(game_id) if games is not None else None


def _push_mark(game_id: str) -> tuple[int | None, int]:
    """Return what moves whenever this process pushes a newer version of a game: (that version, games forgotten)."""
    with _lock:
        game = _pushed_if_any(game_id)
        return (None if game is None else game.version), _forgotten


def push_views(
    game_id: str, state: Any, *, local: bool = False, since: int | None = None, device_id: str | None = None
) -> Mapping[tuple[Role, str], Any]:
    """Send every role's fresh view to the sockets of that role (through the message queue if any).

    Each room gets what changed since the view it was last sent (`changes`), else the whole view.
    `since`: the version before this change (None: unknown, so every room gets its whole view);
    `device_id`: the phone that sent it (the referee's log names it without a database read).
    `local`: only to this process's own sockets, not through the message queue. A push that a
    newer version of the game has already overtaken is dropped. Return the views made, by
    (role, language), so the sender's answer can reuse its own instead of making it again.
    """
    if since is not None:
        senders.note(game_id, range(since + 1, state.version + 1), device_id)
    game = _pushed_of(game_id)
    with game.lock:
        # Two entries stored one after the other can reach this point in the other order (two
        # request threads): the older view would then be the last every screen gets, and stay.
        if state.version < game.version:
            return {}
        game.version = state.version
        try:
            return _push_views_now(game_id, state, game, local=local, since=since)
        except BaseException:
            # Some rooms may have been sent this version, others not: none is known to hold
            # anything now, so the next push sends each its whole view.
            game.held, game.unsaid = {}, {}
            raise


class SocketPublisher:
    """The play service's Publisher: every audience's room gets its view (`push_views`)."""

    def publish(
        self, game_id: str, state: Any, since: int | None = None, device_id: str | None = None
    ) -> Mapping[tuple[Role, str], Any]:
        """Push every role's fresh view of a game; return the views made, by (role, language)."""
        return push_views(game_id, state, since=since, device_id=device_id)


def _push_views_now(game_id: str, state: Any, game: _Pushed, *, local: bool, since: int | None) -> Made:
    mode = modes.of(state)
    roles = mode.push_roles(state)
    queued = bool(current_app.config.get("REDIS_URL"))
    with _lock:
        # Pilots whose order was just removed or voided are no longer in the state: this
        # process's own sockets still know them, so their pages hear that the order is gone.
        here = set(_rooms.get(game_id, ()))
        roles.extend(r for r in dict.fromkeys(r for r, _lang in here) if r not in roles)
        # Without a message queue every socket is this process's own: a view nobody here reads
        # is not made (making and sending the views is most of a push's time).
        in_use = None if queued else here
    made = Made()
    # Straight to Socket.IO's manager (the one path every emit takes, through the message queue
    # if any): Flask-SocketIO's and the server's emit only sort their arguments and log, and a
    # push makes one emit a role.
    emit = socketio.server.manager.emit
    held: dict[tuple[Role, str], tuple[int, Any, int | None]] = {}
    unsaid: dict[Role, tuple[int, Any]] = {}
    languages = current_app.config["LANGUAGES"]
    for role in dict.fromkeys(roles):
        rooms = [lang for lang in languages if in_use is None or (role, lang) in in_use]
        if not rooms:
            continue
        if mode.seen_by is None:
            for lang in rooms:
                with force_locale(lang):
                    view = _view_or_none(mode.view_of, state, role, game_id)
                    made.rooms[(role, lang)] = view
                    event, message, size = _message(game.held.get((role, lang)), state.version, view, since, queued)
                    emit(event, message, "/", room=room_of(game_id, role, lang), ignore_queue=local)
                    made.sent.append((role, lang))
                    held[(role, lang)] = (state.version, view, size)
            continue
        # The role's view before translation is the same in every language: it is made and
        # compared with the last one once, and only what changed is translated per language.
        raw = _view_or_none(mode.seen_by, state, role, game_id)
        unsaid[role] = (state.version, raw)
        made.raw[role] = raw
        change = _raw_change(game.unsaid.get(role), state.version, raw, since, queued)
        # A change that holds no message reads the same in every language: one message, encoded
        # once, to every room of the role that holds the view it starts from.
        shared: dict[str, tuple[str, dict[str, Any], int | None]] = {}
        sends: dict[int, tuple[str, dict[str, Any], list[str]]] = {}
        for lang in rooms:
            room = (role, lang)
            event, message, size = _said_message(game.held.get(room), change, state.version, made, room, shared)
            sends.setdefault(id(message), (event, message, []))[2].append(room_of(game_id, role, lang))
            made.sent.append(room)
            held[room] = (state.version, None, size)
        for event, message, to in sends.values():
            emit(event, message, "/", room=to[0] if len(to) == 1 else to, ignore_queue=local)
    # A room not sent this push may hold anything by the next: it gets its whole view then.
    game.held = held
    game.unsaid = unsaid
    return made


def _view_or_none(make: Any, state: Any, role: Role, game_id: str) -> dict[str, Any] | None:
    try:
        view: dict[str, Any] = make(state, role, game_id)
    except RulesError:
        return None
    return view


class Made(Mapping[tuple[Role, str], Any]):
    """The views a push made, by room (role, language); a role's view is translated when asked for."""

    def __init__(self) -> None:
        self.rooms: dict[tuple[Role, str], Any] = {}
        self.raw: dict[Role, Any] = {}
        self.sent: list[tuple[Role, str]] = []

    def __getitem__(self, room: tuple[Role, str]) -> Any:
        if room not in self.rooms:
            role, lang = room
            if role not in self.raw:
                raise KeyError(room)
            raw = self.raw[role]
            self.rooms[room] = None if raw is None else said(raw, lang)
        return self.rooms[room]

    def __iter__(self) -> Iterator[tuple[Role, str]]:
        """The rooms pushed (a role's view in another language can still be asked for)."""
        return iter(self.sent)

    def __len__(self) -> int:
        return len(self.sent)


def _raw_change(
    unsaid: tuple[int, Any] | None, version: int, raw: dict[str, Any] | None, since: int | None, queued: bool
) -> tuple[int, Any] | None:
    """Return (the version it starts from, the change) from the role's last view to this one, if known."""
    if unsaid is None or raw is None or since is None:
        return None
    base_version, base = unsaid
    # Through a message queue other processes push too: the view this one sent last is what the
    # room holds only if it was the version just before this change.
    if base is None or base_version >= version or (queued and base_version != since):
        return None
    return base_version, changes.diff(base, raw)


def _said_message(
    held: tuple[int, Any, int | None] | None,
    change: tuple[int, Any] | None,
    version: int,
    made: Made,
    room: Room,
    shared: dict[str, tuple[str, dict[str, Any], int | None]],
) -> tuple[str, dict[str, Any], int | None]:
    """Return the push for one room of a role whose change was made before translation (in this language).

    `shared` keeps the role's change set when it holds no message: the same for every language,
    so the push sends it to all their rooms at once.
    """
    if held is None or change is None or held[0] != change[0]:
        return "view", {"seq": version, "view": made[room]}, None
    known = shared.get("changes")
    if known is not None:
        return known
    base_version, untranslated = change
    words = said(untranslated, room[1])
    answer = _weighed(words, base_version, version, held[2], partial(made.__getitem__, room))
    if words is untranslated and answer[0] == "changes":
        shared["changes"] = answer  # no message in it: every language's room reads the same
    return answer


def _message(
    held: tuple[int, Any, int | None] | None,
    version: int,
    view: dict[str, Any] | None,
    since: int | None,
    queued: bool,
) -> tuple[str, dict[str, Any], int | None]:
    """Return the push for one room (its change set from the view it holds, or its whole view).

    And the bytes of the whole view when known: weighed now, or carried from the last weighing.
    """
    whole: tuple[str, dict[str, Any], int | None] = ("view", {"seq": version, "view": view}, None)
    if held is None or view is None or since is None:
        return whole
    base_version, base, known = held
    # Through a message queue other processes push too: the view this one sent last is what the
    # room holds only if it was the version just before this change.
    if base is None or base_version >= version or (queued and base_version != since):
        return whole
    return _weighed(changes.diff(base, view), base_version, version, known, lambda: view)


def _weighed(
    change: Any, base_version: int, version: int, known: int | None, whole: Callable[[], Any]
) -> tuple[str, dict[str, Any], int | None]:
    """Return the change set, or the whole view when the change would be no smaller."""
    text = changes.compact(change)
    size = len(text)
    message = changes.Encoded(
        {"from": base_version, "seq": version, "changes": change},
        f'{{"from":{base_version},"seq":{version},"changes":{text}}}',
    )
    # A small change set is smaller than any view; a larger one is weighed against its view, or
    # against the view's size last weighed while it is under half of that (views change slowly).
    if size <= SMALL_CHANGE or (known is not None and 2 * size < known):
        return "changes", message, known
    view = whole()
    full = len(changes.compact(view))
    if size >= full:
        return "view", {"seq": version, "view": view}, full
    return "changes", message, full


# Bytes under which a change set goes out without weighing the whole view against it.
SMALL_CHANGE = 1024


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
    global _noted
    sid = request.sid  # type: ignore[attr-defined]
    too_fast = rate_limited(sid)
    if too_fast:
        return too_fast
    try:
        game_id, slip = _game_and_slip(data)
        mark = _push_mark(game_id)
        state = playing.load_any_state(game_id)
        role = playing.role_of(game_id, slip, state)
        acting = role
        if data.get("as") == "public":
            # A projector window in the referee's own browser asks to see only what the room may.
            role = PUBLIC
        lang = current_lang()
        device = current_device_id(game_id) if acting.kind in ("team", "player") else None
        token = None if slip else credential(game_id, acting.kind)
        if not socketio.server.manager.is_connected(sid, "/"):
            # It went away while its role was read (a page closed, a phone out of reach): noting
            # it now would keep a socket nobody will ever forget, its phone shown as connected.
            return malformed("This connection is not open.")
        with _lock:
            old = _sockets.get(sid)
            _sockets[sid] = (game_id, role, lang)
            if old != (game_id, role, lang):
                _leave(old)
                rooms = _rooms.setdefault(game_id, {})
                rooms[(role, lang)] = rooms.get((role, lang), 0) + 1
            _acting[sid] = (game_id, slip, acting)
            _noted += 1  # the clock's next look checks this socket's token and phone, whatever the count
            if token is not None:
                _credentials[sid] = (_database(), token)
            else:
                _credentials.pop(sid, None)
            if device:
                _devices[sid] = device
            else:
                _devices.pop(sid, None)
        if old and old != (game_id, role, lang):
            leave_room(room_of(*old))
        try:
            join_room(room_of(game_id, role, lang))
            if role.kind == "referee":
                join_room(REFEREES)
        except KeyError:  # gone after all (a threaded server's disconnect ran in between)
            _forget(sid)
            return malformed("This connection is not open.")
        # A push made between the first look and the join never reached this socket: then the
        # view it gets is of the state as it is now, after the join. Without a message queue
        # every push to it is this process's own, so one that did not happen needs no reread
        # (a storm of reconnects after a restart reads each game row once a socket, not twice).
        if current_app.config.get("REDIS_URL") or _push_mark(game_id) != mark:
            state = playing.load_any_state(game_id)
        answer = {"ok": True, "seq": state.version, "view": _joined_view(game_id, state, role, lang)}
        if role.kind == "referee" and store_of(current_app).health.failing_since is not None:
            answer["store"] = write_health(store_of(current_app).health)
        held = data.get("seq")
        if type(held) is int and held > state.version:
            # The page holds a version the log no longer has (the database was put back from a
            # copy, or its disk lied about a sync): the server's word wins, and the page's view goes.
            answer["reset"] = True
        return answer
    except Exception as exc:  # noqa: BLE001 - every refusal is an answer, never a dropped socket
        return _refusal(exc)


def _joined_view(game_id: str, state: Any, role: Role, lang: str) -> dict[str, Any]:
    """Return the view a socket that has joined its room gets; a room's first becomes what the room holds.

    A room this process had not pushed to since its first socket joined got its whole view with
    the next push: once a game had gathered, its first report sent every room its whole view, in
    every language at once (at 5,000 sockets, 100 games starting together kept the event loop
    busy for a second, and the screens' p99 went to 0.2-0.9 s). When the state answered is the one
    this process pushed last, every socket of the room holds it (one that joined before read it,
    or was pushed it): the room holds it from now on, and the next push sends the change. Two
    views of one version differ only in what moves with the clock (an air raid's `left`), which
    every push of a running clock sends again. Without a message queue only: with one, other
    processes push to the room too.
    """
    mode = modes.of(state)
    room = (role, lang)
    with _lock:
        game = _pushed_if_any(game_id)
    if game is None or current_app.config.get("REDIS_URL"):
        return mode.view_of(state, role, game_id)
    with game.lock:
        if state.version != game.version or room in game.held:
            return mode.view_of(state, role, game_id)
        if mode.seen_by is None:
            view = mode.view_of(state, role, game_id)
            game.held[room] = (state.version, view, None)
            return view
        unsaid = game.unsaid.get(role)
        raw = mode.seen_by(state, role, game_id)
        if unsaid is None:
            game.unsaid[role] = unsaid = (state.version, raw)
        if unsaid[0] == state.version:
            game.held[room] = (state.version, None, None)
        said_view: dict[str, Any] = said(raw, lang)
        return said_view


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
    with _lock:
        _running += 1
    try:
        # The token first, whatever the payload: a flood of junk is slowed down like any other.
        if not _allowed(sid):
            return _too_fast(sid)
        try:
            game_id, slip = _game_and_slip(data)
            actor = _settled_actor(sid, game_id, slip) or _actor(sid, game_id, slip)
            return _act(game_id, *actor, data)
        except Exception as exc:  # noqa: BLE001 - every refusal is an answer, never a dropped socket
            return _refusal(exc)
    finally:
        with _lock:
            _running -= 1


# Entries being run now in this process: the cycle collector waits for none (referee.web.server).
_running = 0


def entries_running() -> bool:
    """Tell whether an entry is being run (its push may be under way): no time to collect cycles."""
    return _running > 0


def _act(game_id: str, role: Role, device: str | None, data: dict[str, Any]) -> dict[str, Any]:
    if role == PUBLIC:
        return WATCHERS_CANNOT_ACT
    return playing.run_action(
        game_id,
        role,
        data.get("action"),
        client_id=data.get("client_id"),
        version=data.get("version"),
        device_id=device,
        with_view=False,
    )


def _settled_actor(sid: str, game_id: str, slip: str | None) -> tuple[Role, str | None] | None:
    """Return who acts on a socket, and its phone, as settled at resync; None when it must be read again."""
    with _lock:
        settled = _acting.get(sid)
        device = _devices.get(sid)
        revoked = device is not None and device in _revoked
        if settled is not None and sid in _credentials:
            _acted.add(sid)
    if revoked:
        # Revoked here a moment ago: the disconnect may not have landed yet.
        return PUBLIC, None
    if settled is not None and settled[0] == game_id and settled[1] == slip:
        return settled[2], device
    return None


def _actor(sid: str, game_id: str, slip: str | None) -> tuple[Role, str | None]:
    """Return who acts on a socket, and its phone: as settled at resync, else read again (in a request context).

    The settled role is used for the game and slip it was settled for, for as long as the
    socket lives: a token revoked anywhere cuts the socket off within REVOKED_EVERY seconds
    (`disconnect_revoked`), one revoked here at once. An entry for another game or slip is
    read again from the cookies.
    """
    known = _settled_actor(sid, game_id, slip)
    if known is not None:
        return known
    # Not the game or slip this socket listens to (or it was cut off a moment ago): read per entry.
    role = playing.role_of(game_id, slip, playing.load_any_state(game_id))
    device = current_device_id(game_id) if role.kind in ("team", "player") else None
    return role, device


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
    _forget(request.sid)  # type: ignore[attr-defined]


def _forget(sid: str) -> None:
    """Forget all this process noted of a socket: its room, rate bucket, phone, role and token."""
    with _lock:
        _leave(_sockets.pop(sid, None))
        _buckets.pop(sid, None)
        _devices.pop(sid, None)
        _acting.pop(sid, None)
        _credentials.pop(sid, None)
        _acted.discard(sid)


def _leave(settled: tuple[str, Role, str] | None) -> None:
    """Count a socket out of the room it listened in (under _lock)."""
    if settled is None:
        return
    game_id, role, lang = settled
    rooms = _rooms.get(game_id, {})
    left = rooms.get((role, lang), 0) - 1
    if left > 0:
        rooms[(role, lang)] = left
    else:
        rooms.pop((role, lang), None)
        if not rooms:
            _rooms.pop(game_id, None)


def disconnect_device(device_id: str) -> int:
    """Close this process's sockets of a revoked phone; return how many were closed.

    From now on they may not act, even if an action of theirs is already being handled.
    """
    with _lock:
        _revoked.add(device_id)
        sids = [sid for sid, dev in _devices.items() if dev == device_id]
    for sid in sids:
        socketio.server.disconnect(sid, namespace="/")
    return len(sids)


def connected_devices() -> set[str]:
    """Return the joined phones with a live socket on this process (the referee's devices list says so)."""
    with _lock:
        return set(_devices.values())


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
    key = id(engine_of(app))  # _database(), without an app context
    with _lock:
        devices = sorted(set(_devices.values()))
        held = {sid: info.id for sid, (database, info) in _credentials.items() if database == key}
        noted = _noted
    tokens = sorted(set(held.values()))
    if not devices and not tokens:
        return 0
    if counted is None:  # read before the look up: a revocation made after it moves it for the next look
        counted = store_of(app).revocations()
    if _looked.get(key) == (counted, noted):
        return 0
    with app.app_context(), reading(db.engine) as conn:
        revoked = conn.execute(_REVOKED_AMONG, {"devices": devices}).scalars().all() if devices else []
        gone = set(conn.execute(_REVOKED_TOKENS, {"tokens": tokens}).scalars().all()) if tokens else set()
    _looked[key] = (counted, noted)
    with _lock:
        # A phone's own token revoked: its sockets are closed with the phone, and counted once.
        phones = {sid for sid, device in _devices.items() if device in revoked}
    closed = sum(disconnect_device(str(d)) for d in revoked)
    # Only sockets of this server: a test's app may leave its sockets' notes behind.
    sids = [sid for sid, token in held.items() if token in gone and sid not in phones and _connected(sid)]
    with _lock:
        for sid in sids:
            _acting.pop(sid, None)  # its next entry reads its role again, and finds none
            _credentials.pop(sid, None)
    for sid in sids:
        socketio.server.disconnect(sid, namespace="/")
    return closed + len(sids)


def _connected(sid: str) -> bool:
    return bool(socketio.server.manager.is_connected(sid, "/"))


def _database() -> int:
    """Return the key of the current app's database."""
    return id(db.engine)


def mark_seen(app: Flask, now: float | None = None) -> int:
    """Mark the tokens of sockets that acted since the last call as seen; return how many were written.

    Each token at most once every TOUCH_EVERY seconds, as a page's request does: the referee's
    list of phones says when a phone was last seen once it is gone.
    """
    now = time.time() if now is None else now
    with app.app_context():
        key = _database()
    with _lock:
        acted = [sid for sid in _acted if _credentials.get(sid, (None,))[0] == key]
        _acted.difference_update(acted)
        acted = [sid for sid in acted if _connected(sid)]
        due = {(key, info.id): info for _key, info in (_credentials[sid] for sid in acted)}
        held = {(database, info.id) for database, info in _credentials.values()}
        for gone in [t for t in _touched if t not in held]:
            del _touched[gone]  # no socket holds it now
    written = 0
    for token, info in due.items():
        last = _touched.get(token, info.last_seen_at if info.last_seen_at is not None else -math.inf)
        if now - last < TOUCH_EVERY:
            continue
        with app.app_context():
            touch_token(db.engine, info, force=True)
        _touched[token] = now
        written += 1
    return written


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


# Seconds between two looks for sockets whose phone or token was revoked on another process.
REVOKED_EVERY = 2.0
# Seconds between two sweeps for idle Battleship games.
EXPIRE_EVERY = 60.0
# Seconds early the clock does what is due (a timer may fire that much before its time).
EARLY = 0.01


def start_round_clock(app: Flask, longest: float = REVOKED_EVERY, stop: threading.Event | None = None) -> None:
    """Run the round clock in the background for as long as the server runs.

    It sleeps until the soonest deadline of any game, or until a write of this process moves
    one, and at most `longest` seconds (deadlines another process stored, revoked phones):
    fifty games in the air cost it a query every two seconds, not four loads a second. It
    stops once `stop` is set (tests; a server's clock runs until the process ends).
    """

    def loop() -> None:
        store = store_of(app)
        now = time.time()
        next_revoked, next_expire = now + REVOKED_EVERY, now + EXPIRE_EVERY
        while stop is None or not stop.is_set():
            try:
                # While it looks, a deadline stored only wakes it if sooner than the wake it then
                # plans (the look may have read before that write): once asleep, only a sooner one.
                # Not any deadline: at fifty reports a second some write always lands in a look.
                store.clock_wakes_at = -math.inf
                store.soonest_stored = math.inf
                store.deadlines_moved.clear()
                look = store.look()
                now = time.time()
                # A timer may fire a moment early: what is due within EARLY is done now, not
                # after another sleep of a few milliseconds and another look.
                if now >= next_revoked - EARLY:
                    # With the count just read: a revocation made after it moves the next one.
                    disconnect_revoked(app, counted=look.revocations)
                    mark_seen(app, now)
                    next_revoked = now + REVOKED_EVERY
                if now >= next_expire - EARLY:
                    expire_idle_games(app, now)
                    next_expire = now + EXPIRE_EVERY
                due = look.deadline
                now = time.time()
                wake = min(next_revoked, next_expire, now + longest, due if due is not None else now + longest)
                store.clock_wakes_at = wake
                if store.soonest_stored < wake:
                    store.deadlines_moved.set()
                # A deadline already past was not cleared by the last tick (busy, refused):
                # look again a quarter of a second later, not in a busy loop.
                moved = store.deadlines_moved.wait(wake - now if wake > now else 0.25)
                if moved:
                    socketio.sleep(0)  # let the write that moved a deadline finish its pushes first
                now = time.time()
                # Woken for the revoked phones with no deadline come: nothing to tick. A deadline
                # another process stored meanwhile is found by the next look, a moment later.
                if moved or (due is not None and due <= now):
                    end_rounds_on_time(app, now)
            except Exception:  # the clock must keep ticking whatever one game does
                log.exception("round clock")
                socketio.sleep(1.0)

    socketio.start_background_task(loop)


REFEREES = "referees"
"""The room of every referee's socket, whatever its game: what concerns the whole server (its writes)."""


def write_health(health: WriteHealth) -> dict[str, Any]:
    """The `store` event's payload: whether the server's writes succeed, and since when they fail."""
    return {"ok": health.failing_since is None, "since": health.failing_since}


def tell_referees(health: WriteHealth) -> None:
    """To every referee's socket: the server's writes began to fail, or succeed again (`store`).

    While they fail, no entry is stored: phones keep theirs and send them again, and the
    referee's dashboard says why nothing moves.
    """
    socketio.emit("store", write_health(health), to=REFEREES)


def init_app(app: Flask) -> None:
    """Start the round clock unless testing (tests call end_rounds_on_time themselves).

    ROUND_CLOCK = False leaves it to the caller: `referee serve` under gunicorn starts it in the
    worker after the fork, since a thread started before it would run in the master, whose
    pushes reach no socket (and, with a message queue, not even its own worker's).
    """
    app.extensions[playing.PUBLISHER] = SocketPublisher()
    store_of(app).health.watch(tell_referees)
    if not app.config.get("TESTING") and app.config.get("ROUND_CLOCK", True):
        start_round_clock(app)
