"""The web side of playing a game: a browser's role, a role's view, and one action run through the play service.

The HTTP routes (`routes.py`, every mode's pages in `web/modes/`) and the Socket.IO handlers (`web/live.py`) all come
here; this module reaches a mode through `web.modes` (its web side) and the rules registry, and
hands every action to `referee.play.Play`, whose `Publisher` `live.py` implements.
"""

from __future__ import annotations

from typing import Any

from flask import abort, current_app
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.play import Play, Publisher
from referee.rules.events import Role
from referee.store import GameNotFound
from referee.web import modes
from referee.web.access import current_device_id
from referee.web.extensions import db
from referee.web.i18n import current_lang

PUBLISHER = "referee.publisher"
"""The app's extension key of its Publisher (`live.init_app` sets it)."""
PLAY = "referee.play"
"""The app's extension key of its play service, made by the first `play()`."""


def load_any_state(game_id: str) -> Any:
    """Return a game's current state, whatever its mode, or 404."""
    try:
        state, _version = db.store.load(game_id)
    except GameNotFound:
        abort(404, description=_("There is no such game."))
    return state


def role_of(game_id: str, slip: str | None, state: Any) -> Role:
    """Return this browser's role in a game of any mode."""
    return modes.of(state).role_in(game_id, slip, state)


def view_of(state: Any, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view of a game of any mode, translated for this request."""
    return modes.of(state).view_of(state, role, game_id)


def play() -> Play:
    """Return the play service of this app: its store, and the pushes of `live.py`."""
    found: Play | None = current_app.extensions.get(PLAY)
    if found is None:
        publisher: Publisher = current_app.extensions[PUBLISHER]
        found = current_app.extensions[PLAY] = Play(db.store, publisher)
    return found


LOOK_UP = "look up"
"""run_action's `device_id` when the caller has not settled it: read from this request's cookies."""


def run_action(
    game_id: str,
    role: Role,
    action: Any,
    *,
    client_id: Any = None,
    version: Any = None,
    device_id: str | None = LOOK_UP,
    with_view: bool = True,
) -> dict[str, Any]:
    """Apply one action for a role through the play service; return the JSON answer.

    `with_view`: the answer carries the sender's fresh view (HTTP). A socket's answer does not:
    its room's push, just before the answer on the same socket, brought the change already.
    """
    if device_id == LOOK_UP:
        device_id = current_device_id(game_id) if role.kind in ("team", "player") else None
    acted = play().act(game_id, role, action, client_id=client_id, version=version, device_id=device_id)
    result = acted.result
    answer: dict[str, Any] = {
        "ok": True,
        "duplicate": result.duplicate,
        "seq": result.version,
        "events": [e.to_dict() for e in result.events],
    }
    if with_view:
        # The sender's own screen usually got this very view in the push: made once, not twice.
        view = acted.pushed.get((role, current_lang())) if acted.state is result.state else None
        answer["view"] = view if view is not None else view_of(acted.state, role, game_id)
    order = answered_order(result.events)
    if order is not None:
        answer["order"] = order
    return answer


# The order an action made or matched, for a script to use next without diffing views: a new
# order's id (the caller's own), the bomber an announcement by square matched (waiting at the
# caller's base, so in its view). Both are the event's own bound data, already in `events`.
ORDER_FIELD = {"add_order": "id", "announce_bombing": "order"}


def answered_order(events: list[Any]) -> str | None:
    """Return the order id the first of an action's events made or matched, if it is of such a kind."""
    if not events:
        return None
    field = ORDER_FIELD.get(events[0].kind)
    value = events[0].data.get(field) if field else None
    return value if isinstance(value, str) else None
