"""Who a browser is: its tokens, exchanged from a link for HttpOnly cookies; its roles in a game; the guards."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import cast
from urllib.parse import urlencode

from blinker import Namespace
from flask import Flask, abort, current_app, g, redirect, request, session
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Table, select
from werkzeug.wrappers import Response

from referee.store import reading
from referee.store.models import Device, Game, Token
from referee.web.access.limits import FailureLimiter, client_key_of_request, limiter
from referee.web.access.tokens import (
    COOKIE_PREFIX,
    JOIN_KINDS,
    SERVER_REFEREE_COOKIE,
    URL_TOKEN_PARAMS,
    Access,
    JoinSpent,
    TokenInfo,
    TokenKind,
    find_token,
    join_team,
    token_max_idle,
    touch_token,
)
from referee.web.extensions import db

tokens_t = cast(Table, Token.__table__)
devices_t = cast(Table, Device.__table__)
games_t = cast(Table, Game.__table__)


seat_joined = Namespace().signal("seat-joined")
"""Sent (game_id=, seat=), in the request, when a phone takes a seat by its link: the host's page stops inviting."""


# ---------------------------------------------------------------------------------------
# Request side: cookies, roles, guards


def cookie_name(kind: TokenKind, game_id: str | None) -> str:
    """Return the cookie that holds a token of `kind` (for a game)."""
    if kind is TokenKind.REFEREE:
        return SERVER_REFEREE_COOKIE
    if kind in JOIN_KINDS:
        kind = TokenKind.DEVICE  # a join link is exchanged for a device token
    return f"{COOKIE_PREFIX[kind]}_{game_id}"


def _cookie_token(name: str, kind: TokenKind, game_id: str | None) -> TokenInfo | None:
    """Resolve a token cookie once per request; a bad one counts as a failure and is cleared."""
    cache: dict[str, TokenInfo | None] = g.setdefault("referee_tokens", {})
    if name in cache:
        return cache[name]
    raw = request.cookies.get(name)
    info: TokenInfo | None = None
    if raw and not limiter().blocked(client_key_of_request()):
        info = find_token(db.engine, raw, max_idle=token_max_idle())
        if info is None or info.kind is not kind or info.game_id != game_id:
            info = None
            limiter().fail(client_key_of_request())
            g.setdefault("referee_clear_cookies", set()).add(name)
        else:
            touch_token(db.engine, info)
    cache[name] = info
    return info


def is_server_referee() -> bool:
    """Tell whether this browser holds the server referee cookie."""
    return _cookie_token(SERVER_REFEREE_COOKIE, TokenKind.REFEREE, None) is not None


def current_roles(game_id: str) -> set[Access]:
    """Return the roles this browser's cookies grant in one game."""
    roles: set[Access] = set()
    if is_server_referee() or _cookie_token(
        cookie_name(TokenKind.GAME_REFEREE, game_id), TokenKind.GAME_REFEREE, game_id
    ):
        roles |= {Access.REFEREE, Access.PROJECTOR}
    if _cookie_token(cookie_name(TokenKind.PROJECTOR, game_id), TokenKind.PROJECTOR, game_id):
        roles.add(Access.PROJECTOR)
    if current_team(game_id) is not None:
        roles.add(Access.TEAM)
    return roles


def current_team(game_id: str) -> str | None:
    """Return the team this browser's device joined in a game, or None."""
    info = _cookie_token(cookie_name(TokenKind.DEVICE, game_id), TokenKind.DEVICE, game_id)
    return info.subject if info is not None else None


def credential(game_id: str, role_kind: str) -> TokenInfo | None:
    """Return the token that gives this browser a role in a game, read as the role was; None for no token.

    A referee's is the server referee token, else the game's referee link; a team's or a
    player's is its phone's. A pilot's slip and a watcher hold none. Revoking it takes the
    role away (referee.web.live looks for revoked ones every few seconds).
    """
    if role_kind == "referee":
        return _cookie_token(SERVER_REFEREE_COOKIE, TokenKind.REFEREE, None) or _cookie_token(
            cookie_name(TokenKind.GAME_REFEREE, game_id), TokenKind.GAME_REFEREE, game_id
        )
    if role_kind in ("team", "player"):
        return _cookie_token(cookie_name(TokenKind.DEVICE, game_id), TokenKind.DEVICE, game_id)
    return None


# A token's hash -> the device joined with that token: made together and never changed, so kept
# (a page's every load, and a storm of reconnects after a restart, read it).
_device_of_token: OrderedDict[str, str] = OrderedDict()
DEVICES_KEPT = 20_000
_devices_lock = threading.Lock()


def current_device_id(game_id: str) -> str | None:
    """Return the id of this browser's joined device in a game, or None.

    Only a token that is still good gets this far (a revoked one is no token), so a kept id
    never outlives its phone's standing.
    """
    info = _cookie_token(cookie_name(TokenKind.DEVICE, game_id), TokenKind.DEVICE, game_id)
    if info is None:
        return None
    key = info.digest
    with _devices_lock:
        known = _device_of_token.get(key) if key else None
    if known is not None:
        return known
    with reading(db.engine) as conn:
        device = conn.execute(select(devices_t.c.id).where(devices_t.c.token_id == info.id)).scalar()
    if device is None:
        return None
    if key:
        with _devices_lock:
            _device_of_token[key] = str(device)
            while len(_device_of_token) > DEVICES_KEPT:
                _device_of_token.popitem(last=False)
    return str(device)


def require_referee(game_id: str | None = None) -> None:
    """Abort with 403 unless this browser is the server referee or the referee of `game_id`."""
    if is_server_referee():
        return
    if game_id is not None and Access.REFEREE in current_roles(game_id):
        return
    abort(403, description=_("Only the referee may do this."))


def require_team(game_id: str) -> str:
    """Return the team of this browser's device in a game; abort with 403 if it joined none."""
    team = current_team(game_id)
    if team is None:
        abort(403, description=_("This phone has not joined a team of this game."))
    return team


def set_token_cookie(response: Response, name: str, raw: str) -> None:
    """Set a capability cookie: HttpOnly, SameSite=Lax, Path=/, Secure on https."""
    response.set_cookie(
        name,
        raw,
        max_age=int(current_app.config["TOKEN_COOKIE_MAX_AGE"]),
        path="/",
        secure=request.is_secure,
        httponly=True,
        samesite="Lax",
    )


def _url_without_token() -> str:
    args = [(k, v) for k, v in request.args.items(multi=True) if k not in URL_TOKEN_PARAMS]
    return request.path + ("?" + urlencode(args) if args else "")


def exchange_url_token() -> Response | None:
    """before_request: swap a `?t=`/`?token=` for a cookie and redirect (303) without it."""
    if request.method not in ("GET", "HEAD"):
        return None
    raw = next((request.args[p] for p in URL_TOKEN_PARAMS if request.args.get(p)), None)
    if raw is None:
        return None
    key = client_key_of_request()
    if limiter().blocked(key):
        return _refuse_link(429)
    info = find_token(db.engine, raw, max_idle=token_max_idle())
    if info is None:
        limiter().fail(key)
        return _refuse_link(403)
    response = redirect(_url_without_token(), code=303)
    response.headers["Cache-Control"] = "no-store"
    if info.kind in JOIN_KINDS:
        assert info.game_id is not None
        held = current_team(info.game_id)
        # A seat's link is spent by a GET only (a HEAD is no phone taking the seat), and never by
        # a browser that holds a seat of the game already (the host tapping their own invite
        # would lose that seat and spend the friend's link).
        seat_kept = info.kind is TokenKind.SEAT_JOIN and (held is not None or request.method != "GET")
        if held != info.subject and not seat_kept:
            try:
                _device_id, device = join_team(db.engine, info)
            except JoinSpent:
                limiter().fail(key)
                return _refuse_link(403)
            set_token_cookie(response, cookie_name(TokenKind.DEVICE, info.game_id), device.token)
            if info.kind is TokenKind.SEAT_JOIN:
                seat_joined.send(None, game_id=info.game_id, seat=info.subject)
        return response
    touch_token(db.engine, info, force=True)
    set_token_cookie(response, cookie_name(info.kind, info.game_id), raw)
    return response


LINK_REFUSED = "link_refused"


def _refuse_link(code: int) -> Response:
    """Redirect a refused link to the same URL without its token; the refusal shows there.

    A refused token must not stay in the address bar (nor in the page's links, a bookmark or a
    screenshot) any more than an accepted one.
    """
    session[LINK_REFUSED] = [code, request.path]
    response = redirect(_url_without_token(), code=303)
    response.headers["Cache-Control"] = "no-store"
    return response


def show_link_refusal() -> None:
    """before_request: answer the URL a refused link was redirected to with that refusal, once."""
    refused = session.pop(LINK_REFUSED, None) if LINK_REFUSED in session else None
    if not isinstance(refused, list) or len(refused) != 2 or refused[1] != request.path:
        return
    if refused[0] == 429:
        wait = math.ceil(limiter().retry_in(client_key_of_request())) or 1
        abort(
            429, description=_("Too many wrong links from this device. Wait a minute and try again."), retry_after=wait
        )
    abort(
        403,
        description=_(
            "This link is not valid any more: it was used, or a newer one replaced it."
            " Ask whoever gave it to you for a new one."
        ),
    )


def clear_bad_cookies(response: Response) -> Response:
    """after_request: delete the token cookies that failed to resolve in this request."""
    for name in g.get("referee_clear_cookies", ()):
        response.delete_cookie(name, path="/", secure=request.is_secure, httponly=True, samesite="Lax")
    return response


def init_app(app: Flask) -> None:
    """Install the limiter and the token exchange hooks on an app."""
    app.extensions["referee.limiter"] = FailureLimiter(limit=int(app.config["TOKEN_FAILURES_PER_MINUTE"]), window=60.0)
    app.before_request(exchange_url_token)
    app.before_request(show_link_refusal)
    app.after_request(clear_bad_cookies)
