"""Pushes: after every change each room (a role in a language) gets what changed in its view.

A room is sent the change set from the view this process sent it last (`changes`), else the whole
view; a role's view is made once before translation and only the change is translated. The sender's
answer reuses the views made (`Made`). Referees' sockets also hear whether the server's writes succeed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from flask import current_app
from flask_babel import force_locale  # type: ignore[import-untyped]

from referee.push import changes, senders
from referee.push.sockets import registry_lock, room_of, rooms_here
from referee.rules.errors import RulesError
from referee.rules.events import Role
from referee.store import WriteHealth
from referee.web import modes
from referee.web.extensions import socketio
from referee.web.i18n import said


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
    with registry_lock:
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


def push_mark(game_id: str) -> tuple[int | None, int]:
    """Return what moves whenever this process pushes a newer version of a game: (that version, games forgotten)."""
    with registry_lock:
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
    with registry_lock:
        # Pilots whose order was just removed or voided are no longer in the state: this
        # process's own sockets still know them, so their pages hear that the order is gone.
        here = set(rooms_here.get(game_id, ()))
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


def joined_view(game_id: str, state: Any, role: Role, lang: str) -> dict[str, Any]:
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
    with registry_lock:
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
