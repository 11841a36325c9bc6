"""Games of two seats that anyone at the club may start (Battleship, Vestorsjø).

The creator's browser gets its seat's device at once; the other seat is a single-use invite
(a link and its QR code) until a phone takes it, and the creator may cut that phone off with a
new invite. A client address may start only so many games a minute. Each mode's blueprint
keeps its own pages and says which of its routes a seat's link opens.
"""

from __future__ import annotations

import secrets
from typing import cast

from flask import Flask, current_app, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.exceptions import TooManyRequests
from werkzeug.wrappers import Response

from referee.push import sockets
from referee.store import StoreError
from referee.web import modes
from referee.web.access import (
    FailureLimiter,
    TokenKind,
    client_key,
    cookie_name,
    find_token,
    issue_seat_link,
    issue_token,
    join_team,
    link_nonce,
    reopen_seat,
    seat_taken,
    set_token_cookie,
)
from referee.web.access.cookies import seat_joined
from referee.web.extensions import db, socketio
from referee.web.links import join_token


def limit_creations(app: Flask, mode: str) -> None:
    """Set up a mode's limit of new games per client address (BATTLESHIP_GAMES_PER_MINUTE, each mode its own)."""
    app.extensions[_creations(mode)] = FailureLimiter(limit=int(app.config["BATTLESHIP_GAMES_PER_MINUTE"]), window=60.0)


def _creations(mode: str) -> str:
    return f"referee.creations.{mode}"


def check_creation_limit(mode: str) -> None:
    """Count one game of a mode started by this client address; 429 with Retry-After when it has none left.

    Counted before any work: a refused request costs a dictionary lookup.
    """
    wait = cast(FailureLimiter, current_app.extensions[_creations(mode)]).take(client_key())
    if wait > 0:
        raise TooManyRequests(
            _("Too many new games from this device. Wait %(seconds)s seconds and try again.", seconds=int(wait) + 1),
            retry_after=int(wait) + 1,
        )


def device_token(game_id: str, subject: str) -> str:
    """Issue a device token for a seat (or both seats) of a game, by a single-use join spent at once.

    The join spends every other link to the same seat too, so the seat is this browser's.
    """
    join = issue_token(db.engine, TokenKind.SEAT_JOIN, game_id=game_id, subject=subject, label="creator")
    info = find_token(db.engine, join.token)
    assert info is not None
    _device, device = join_team(db.engine, info, name=subject)
    return device.token


def join_link(endpoint: str, game_id: str, seat: str) -> str | None:
    """Return the single-use link (for the QR code) to a seat no phone holds yet; None once one does.

    The raw token is derived from the secret key and a nonce kept in its label (as the air-raid
    team links are), so the creator's page shows the same link again after a reload.
    """
    if seat_taken(db.engine, game_id, seat):
        return None
    nonce = link_nonce(db.engine, game_id, TokenKind.SEAT_JOIN, seat)
    if nonce is None:
        nonce = secrets.token_urlsafe(12)
        if not issue_seat_link(db.engine, game_id, seat, raw=join_token(game_id, seat, nonce), label=f"nonce:{nonce}"):
            return None  # a phone took the seat meanwhile
    return url_for(endpoint, game_id=game_id, t=join_token(game_id, seat, nonce), _external=True)


def new_invite(game_id: str, seat: str) -> list[str]:
    """Cut a seat's phones off and make a fresh link to it; return the device ids cut off."""
    nonce = secrets.token_urlsafe(12)
    revoked = reopen_seat(db.engine, game_id, seat, raw=join_token(game_id, seat, nonce), label=f"nonce:{nonce}")
    for device_id in revoked:
        sockets.disconnect_device(device_id)  # other processes cut theirs within REVOKED_EVERY
    return revoked


def with_device_cookies(response: Response, game_id: str, devices: dict[str, str]) -> Response:
    """Set the device cookie a creator's browser gets."""
    for raw in devices.values():
        set_token_cookie(response, cookie_name(TokenKind.DEVICE, game_id), raw)
    return response


@seat_joined.connect
def tell_seat_taken(_sender: object, *, game_id: str, seat: str) -> None:
    """To every screen of the game (through the message queue, if any): a phone took this seat (`seats`).

    The host's page then stops showing the invite to it. Languages do not matter: it holds no words.
    """
    try:
        state, _version = db.store.load(game_id)
    except StoreError:
        return  # the seat is taken all the same; the host's page says so after a reload
    for role in modes.of(state).push_roles(state):
        for lang in current_app.config["LANGUAGES"]:
            socketio.emit("seats", {"taken": seat}, to=sockets.room_of(game_id, role, lang))
