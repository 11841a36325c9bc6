"""Who a browser is in an air-raid game and what it is shown: each role's view, the referee's log naming the phones.

A push makes a role's view once before translation (`airraid_unsaid`, the web side's `seen_by`)
and translates only what changed, per language; a page translates the whole view
(`airraid_view_of`). The referee's log rows name the phone that sent each event, and a push names
only the rows new since the last one (`_named_log`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from operator import is_
from typing import Any

from flask import abort, current_app, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.push import senders
from referee.rules import airraid
from referee.rules.errors import Msg
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.web.access import Access, current_roles, current_team, read_slip
from referee.web.api.acting import load_any_state
from referee.web.extensions import db
from referee.web.i18n import say_all


def role_in(game_id: str, slip: str | None = None) -> Role:
    """Return the rules role of this browser in a game: referee, team:X, pilot:ORDER or public."""
    if slip:
        found = read_slip(slip)
        if found is None or found[0] != game_id:
            abort(403, description=_("This slip is not genuine, or belongs to another game."))
        return Role("pilot", found[1])
    roles = current_roles(game_id)
    if Access.REFEREE in roles:
        return REFEREE
    team = current_team(game_id)
    if team is not None:
        return Role("team", team)
    return PUBLIC


def load_state(game_id: str) -> airraid.State:
    """Return an air-raid game's current state, or 404 (also for a game of another mode)."""
    state = load_any_state(game_id)
    if not isinstance(state, airraid.State):
        abort(404, description=_("There is no such game."))
    return state


def airraid_unsaid(state: airraid.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view before translation, the referee's log rows naming the device that sent each event."""
    view: dict[str, Any] = airraid.view_for(state, Role.from_str(role), now=time.time())
    if role == REFEREE:
        view["log"] = _named_log(game_id, view.get("log", []))
    return view


@dataclass
class _NamedLog:
    """The referee's log rows as a push of one game last named them."""

    generation: int  # senders.generation when they were named
    rows: list[Any]  # the core's rows
    named: list[dict[str, Any]]


# By (database, game): the log last named, for the games pushed to most recently.
_named_logs: OrderedDict[tuple[int, str], _NamedLog] = OrderedDict()
NAMED_LOGS = 256


def _named_log(game_id: str, log: list[Any]) -> list[dict[str, Any]]:
    """Return the log's rows naming the phone behind each: only rows new since the game's last push are named.

    The core keeps a log row the same object while it is unchanged, and a push adds a row or
    two at the end of the window: the rows it kept keep their names, unless a phone's name
    has been read again since (senders.generation). With a message queue, names read on
    other processes age (senders.NAMES_TTL): every row is looked up on every push, as before.
    """
    generation = senders.generation(game_id)
    key = (id(db.engine), game_id)
    known = _named_logs.get(key)
    shared = bool(current_app.config.get("REDIS_URL"))
    if known is not None and known.generation == generation and not shared:
        start = _kept_from(known.rows, log)
        if start is not None:
            fresh = log[len(known.rows) - start :]
            named = known.named[start:]
            if fresh:
                names = device_names(game_id, [row["seq"] for row in fresh])
                named = named + [_named_row(game_id, row, names.get(row["seq"])) for row in fresh]
            if senders.generation(game_id) == generation:  # no name was read again meanwhile
                _remember_log(key, _NamedLog(generation, log, named))
                return named
    names = device_names(game_id, [row["seq"] for row in log])
    named = [_named_row(game_id, row, names.get(row["seq"])) for row in log]
    _remember_log(key, _NamedLog(generation, log, named))
    return named


# How far the log's window may have moved on between two pushes for its rows to be kept.
MAX_SHIFT = 64


def _kept_from(old: list[Any], new: list[Any]) -> int | None:
    """Return where in `old` the rows `new` starts with begin (the very same objects), or None if they do not."""
    if not old:
        return 0
    if not new:
        return None
    first = new[0]
    for start in range(min(len(old), MAX_SHIFT)):
        if old[start] is first:
            kept = old[start:]
            return start if len(kept) <= len(new) and all(map(is_, kept, new)) else None
    return None


def _remember_log(key: tuple[int, str], named: _NamedLog) -> None:
    _named_logs[key] = named
    _named_logs.move_to_end(key)
    while len(_named_logs) > NAMED_LOGS:
        _named_logs.popitem(last=False)


# (game, seq) -> (the core's row, the device's name, the row naming it), the newest last.
_named_rows: OrderedDict[tuple[str, int], tuple[Any, str | None, dict[str, Any]]] = OrderedDict()
NAMED_ROWS = 20_000


def _named_row(game_id: str, row: dict[str, Any], name: str | None) -> dict[str, Any]:
    """Return the row with its device's name: a new row, never the core's, the same object while both are.

    The core reuses its row objects while they are unchanged; so does this, so that the push's
    change set sees an unchanged row at a glance.
    """
    key = (game_id, row["seq"])
    known = _named_rows.get(key)
    if known is not None and known[0] is row and type(known[1]) is type(name) and known[1] == name:
        return known[2]
    named = dict(row, device=name)
    _named_rows[key] = (row, name, named)
    if len(_named_rows) > NAMED_ROWS:
        _named_rows.popitem(last=False)
    return named


def airraid_view_of(state: airraid.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view of an air-raid game, translated for the request."""
    view: dict[str, Any] = say_all(airraid_unsaid(state, role, game_id))
    return view


def device_names(game_id: str, seqs: list[int]) -> dict[int, str]:
    """Map each of these event seqs to the name of the device that sent it (kept in memory: `senders`).

    An unnamed device is a message (translated with the view), so the names are the same in every language.
    """
    found = senders.of_events(game_id, seqs)
    return {seq: name or Msg("device {id}", id=dev[:4]) for seq, (dev, name) in found.items()}


def listing(game_id: str, state: airraid.State) -> dict[str, str]:
    """Return a game's line in the referee's list: the teams, where the game stands, its dashboard."""
    teams = state.teams
    title = " – ".join(teams[t].name for t in airraid.TEAMS)
    if state.practice:
        title = f"{_('Practice game')}: {title}"
    rnd = state.round
    if state.phase == "setup":
        where = _("Setting up: teams place their ships")
    elif state.phase == "over":
        winner = state.outcome.winner if state.outcome else None
        ended = _("{team} won").replace("{team}", teams[winner].name) if winner in teams else _("A draw")
        where = f"{_('Game over')} · {ended}"
    elif rnd is not None and rnd.phase == "airborne":
        where = f"{_('Round %(n)s', n=rnd.number)} · {_('In the air')}"
    else:
        where = f"{_('Round %(n)s', n=rnd.number if rnd else 1)} · {_('Planning: defenders and orders')}"
    return {"title": title, "state": where, "url": url_for("games.referee_page", game_id=game_id)}
