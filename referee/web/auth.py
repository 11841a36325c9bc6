"""Capability tokens: issue, look up, revoke; cookie exchange; role guards; pilot slips.

A token is `secrets.token_urlsafe(24)` (192 bits). Only its sha256 hex is stored; a lookup
hashes the presented token, finds the row by hash and confirms with hmac.compare_digest.

Token kinds (column `tokens.role`):
  referee       per server, game_id NULL: referee of every game here (printed by `referee serve`)
  game_referee  referee of one game
  team_join     join link of one team (subject = team); re-issuing revokes the old link only
  seat_join     single-use join link of one seat (a Battleship friend's): spent by the first phone
  device        one joined phone (subject = team); a `devices` row points at it
  projector     read-only public view of one game

A token in the URL (`?t=...`, or `?token=...` from the terminal link) is exchanged on a GET
for an HttpOnly cookie and the browser is redirected (303) to the same URL without it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast
from urllib.parse import urlencode

from flask import Flask, abort, current_app, g, redirect, request, session
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Connection, Engine, Table, and_, insert, select, update
from werkzeug.wrappers import Response

from referee.store import new_id, reading, retry_busy
from referee.store.models import Device, Game, Token
from referee.web.extensions import db
from referee.web.security import same_text

tokens_t = cast(Table, Token.__table__)
devices_t = cast(Table, Device.__table__)
games_t = cast(Table, Game.__table__)


TOKEN_BYTES = 24
TOUCH_EVERY = 60.0  # seconds between last_seen_at updates of one token
SERVER_REFEREE_COOKIE = "referee"
URL_TOKEN_PARAMS = ("t", "token")


class Access(StrEnum):
    """What a browser may do in one game (its cookies' grant; the rules' `Role` is who acts in a game)."""

    REFEREE = "referee"
    TEAM = "team"
    PROJECTOR = "projector"


class TokenKind(StrEnum):
    """The kind of a stored token (column `tokens.role`)."""

    REFEREE = "referee"
    GAME_REFEREE = "game_referee"
    TEAM_JOIN = "team_join"
    SEAT_JOIN = "seat_join"
    DEVICE = "device"
    PROJECTOR = "projector"


# The kinds of join link: exchanged for a device token of their subject.
JOIN_KINDS = frozenset({TokenKind.TEAM_JOIN, TokenKind.SEAT_JOIN})


class JoinSpent(Exception):
    """A single-use join link that another phone has already used."""


# Per-game cookie name prefixes; the server referee cookie is SERVER_REFEREE_COOKIE.
_COOKIE_PREFIX = {TokenKind.GAME_REFEREE: "rg", TokenKind.DEVICE: "dv", TokenKind.PROJECTOR: "pj"}


@dataclass(frozen=True)
class Issued:
    """A freshly issued token: its row id and the raw token (shown once, never stored)."""

    id: int
    token: str


@dataclass(frozen=True)
class TokenInfo:
    """An active (not revoked) token row."""

    id: int
    kind: TokenKind
    game_id: str | None
    subject: str | None
    label: str
    last_seen_at: float | None
    digest: str = ""
    """The token's hash: what names it across databases (tests run several), never the token."""


# ---------------------------------------------------------------------------------------
# Storage (no Flask needed)


def hash_token(raw: str) -> str:
    """Return the sha256 hex of a raw token."""
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def issue_token(
    engine: Engine,
    kind: TokenKind,
    *,
    game_id: str | None = None,
    subject: str | None = None,
    label: str = "",
) -> Issued:
    """Create and store (hashed) a new token; return it raw, once."""
    raw = secrets.token_urlsafe(TOKEN_BYTES)

    def run() -> Issued:
        with engine.begin() as conn:
            new = conn.execute(
                insert(tokens_t).values(
                    game_id=game_id,
                    role=str(kind),
                    subject=subject,
                    token_hash=hash_token(raw),
                    label=label,
                    created_at=time.time(),
                )
            ).inserted_primary_key
            assert new is not None
            return Issued(int(new[0]), raw)

    return retry_busy(run)


def find_token(
    engine: Engine, raw: str, *, max_idle: float | None = None, now: float | None = None
) -> TokenInfo | None:
    """Return the active token whose hash matches `raw`, or None.

    With `max_idle` (seconds), a token unused for longer than that is refused too: a phone or
    referee link found weeks later in a drawer must not still open the game.
    """
    if not raw or len(raw) > 200:
        return None
    wanted = hash_token(raw)
    with reading(engine) as conn:
        row = conn.execute(
            select(tokens_t).where(tokens_t.c.token_hash == wanted, tokens_t.c.revoked_at.is_(None))
        ).one_or_none()
    if row is None or not hmac.compare_digest(row.token_hash, wanted):
        return None
    if max_idle is not None:
        used = row.last_seen_at if row.last_seen_at is not None else row.created_at
        if used < (time.time() if now is None else now) - max_idle:
            return None
    try:
        kind = TokenKind(row.role)
    except ValueError:
        return None
    return TokenInfo(row.id, kind, row.game_id, row.subject, row.label, row.last_seen_at, wanted)


def token_max_idle() -> float | None:
    """Return the current app's idle limit of a token in seconds, or None for no limit."""
    days = current_app.config.get("TOKEN_IDLE_DAYS")
    return float(days) * 86400.0 if days else None


@dataclass(frozen=True)
class TokenRow:
    """One stored token as the `referee tokens` command lists it (never the token itself)."""

    id: int
    kind: str
    game_id: str | None
    subject: str | None
    label: str
    created_at: float
    last_seen_at: float | None
    revoked_at: float | None


def list_tokens(
    engine: Engine, *, kinds: tuple[TokenKind, ...] = (TokenKind.REFEREE,), revoked: bool = False
) -> list[TokenRow]:
    """Return the stored tokens of some kinds, oldest first; revoked ones only if asked."""
    query = select(tokens_t).where(tokens_t.c.role.in_([str(k) for k in kinds])).order_by(tokens_t.c.id)
    if not revoked:
        query = query.where(tokens_t.c.revoked_at.is_(None))
    with reading(engine) as conn:
        rows = conn.execute(query).all()
    return [
        TokenRow(r.id, r.role, r.game_id, r.subject, r.label or "", r.created_at, r.last_seen_at, r.revoked_at)
        for r in rows
    ]


def touch_token(engine: Engine, info: TokenInfo, *, force: bool = False) -> None:
    """Record that a token (and its device) was just used; at most once a minute unless forced."""
    now = time.time()
    if not force and info.last_seen_at is not None and now - info.last_seen_at < TOUCH_EVERY:
        return

    def run() -> None:
        with engine.begin() as conn:
            conn.execute(update(tokens_t).where(tokens_t.c.id == info.id).values(last_seen_at=now))
            if info.kind is TokenKind.DEVICE:
                conn.execute(update(devices_t).where(devices_t.c.token_id == info.id).values(last_seen_at=now))

    retry_busy(run)


def revoke_token(engine: Engine, token_id: int) -> bool:
    """Revoke one token (and the device it belongs to); return whether it was active."""

    def run() -> bool:
        now = time.time()
        with engine.begin() as conn:
            done = conn.execute(
                update(tokens_t)
                .where(tokens_t.c.id == token_id, tokens_t.c.revoked_at.is_(None))
                .values(revoked_at=now)
            ).rowcount
            conn.execute(
                update(devices_t)
                .where(devices_t.c.token_id == token_id, devices_t.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            return bool(done)

    return retry_busy(run)


def reissue_join_token(engine: Engine, game_id: str, team: str, *, label: str = "", raw: str | None = None) -> Issued:
    """Issue a new join link for a team, revoking its old join links; joined devices stay."""
    raw = raw or secrets.token_urlsafe(TOKEN_BYTES)

    def run() -> Issued:
        now = time.time()
        with engine.begin() as conn:
            revoke_links(conn, game_id, TokenKind.TEAM_JOIN, team, now)
            new = conn.execute(
                insert(tokens_t).values(
                    game_id=game_id,
                    role=str(TokenKind.TEAM_JOIN),
                    subject=team,
                    token_hash=hash_token(raw),
                    label=label,
                    created_at=now,
                )
            ).inserted_primary_key
            assert new is not None
            return Issued(int(new[0]), raw)

    return retry_busy(run)


def join_team(engine: Engine, join: TokenInfo, *, name: str = "") -> tuple[str, Issued]:
    """Register a phone that used a team's join link; return (device id, its device token).

    A seat's link is spent in the same transaction that makes the device, so of two phones using
    it at once exactly one gets the seat; the other gets JoinSpent.
    """
    if join.kind not in JOIN_KINDS or join.game_id is None:
        raise ValueError("not a join token")
    game_id = join.game_id
    raw = secrets.token_urlsafe(TOKEN_BYTES)
    device_id = new_id()

    def run() -> Issued:
        now = time.time()
        with engine.begin() as conn:
            if join.kind is TokenKind.SEAT_JOIN:
                _lock_seats(conn, game_id)
                spent = conn.execute(
                    update(tokens_t)
                    .where(tokens_t.c.id == join.id, tokens_t.c.revoked_at.is_(None))
                    .values(revoked_at=now)
                ).rowcount
                if not spent:
                    raise JoinSpent(join.id)
                revoke_links(conn, game_id, TokenKind.SEAT_JOIN, join.subject, now)  # a seat has one phone
            new = conn.execute(
                insert(tokens_t).values(
                    game_id=join.game_id,
                    role=str(TokenKind.DEVICE),
                    subject=join.subject,
                    token_hash=hash_token(raw),
                    label=name,
                    created_at=now,
                    last_seen_at=now,
                )
            ).inserted_primary_key
            assert new is not None
            conn.execute(
                insert(devices_t).values(
                    id=device_id,
                    game_id=join.game_id,
                    token_id=int(new[0]),
                    name=name,
                    created_at=now,
                    last_seen_at=now,
                )
            )
            conn.execute(update(tokens_t).where(tokens_t.c.id == join.id).values(last_seen_at=now))
            return Issued(int(new[0]), raw)

    return device_id, retry_busy(run)


# Seats (a Battleship friend's side): at most one of "a phone holds the seat" and "an unspent
# link to it exists" is true at any commit. Every change of a seat runs in a write transaction
# that first locks the game's row (SQLite's BEGIN IMMEDIATE already serializes writers; on
# PostgreSQL the row lock does), so two of them never decide on the same picture.


def _lock_seats(conn: Connection, game_id: str) -> None:
    conn.execute(select(games_t.c.id).where(games_t.c.id == game_id).with_for_update())


def revoke_links(conn: Connection, game_id: str, kind: TokenKind, subject: str | None, now: float) -> None:
    """Revoke a game's unspent links of one kind for one team or seat (a new link replaces them)."""
    conn.execute(
        update(tokens_t)
        .where(
            tokens_t.c.game_id == game_id,
            tokens_t.c.role == str(kind),
            tokens_t.c.subject == subject,
            tokens_t.c.revoked_at.is_(None),
        )
        .values(revoked_at=now)
    )


def link_nonce(engine: Engine, game_id: str, kind: TokenKind, subject: str) -> str | None:
    """Return the nonce of a team's or seat's active link of one kind, if it has one."""
    with reading(engine) as conn:
        label = conn.execute(
            select(tokens_t.c.label)
            .where(
                tokens_t.c.game_id == game_id,
                tokens_t.c.role == str(kind),
                tokens_t.c.subject == subject,
                tokens_t.c.revoked_at.is_(None),
            )
            .order_by(tokens_t.c.id.desc())
        ).scalar()
    if isinstance(label, str) and label.startswith("nonce:"):
        return label[len("nonce:") :]
    return None


def _seat_devices(conn: Connection, game_id: str, seat: str) -> list[Any]:
    return list(
        conn.execute(
            select(devices_t.c.id, devices_t.c.token_id)
            .join(tokens_t, tokens_t.c.id == devices_t.c.token_id)
            .where(
                tokens_t.c.game_id == game_id,
                tokens_t.c.role == str(TokenKind.DEVICE),
                tokens_t.c.subject == seat,
                tokens_t.c.revoked_at.is_(None),
            )
        ).all()
    )


def seat_taken(engine: Engine, game_id: str, seat: str) -> bool:
    """Tell whether a phone (not revoked) holds a seat of a game."""
    with reading(engine) as conn:
        return bool(_seat_devices(conn, game_id, seat))


def _new_seat_link(conn: Connection, game_id: str, seat: str, raw: str, label: str, now: float) -> None:
    """Store a seat's new single-use link in place of its older ones."""
    revoke_links(conn, game_id, TokenKind.SEAT_JOIN, seat, now)
    conn.execute(
        insert(tokens_t).values(
            game_id=game_id,
            role=str(TokenKind.SEAT_JOIN),
            subject=seat,
            token_hash=hash_token(raw),
            label=label,
            created_at=now,
        )
    )


def issue_seat_link(engine: Engine, game_id: str, seat: str, *, raw: str, label: str = "") -> bool:
    """Store a single-use link to a free seat (revoking its older links); False if a phone holds it."""

    def run() -> bool:
        now = time.time()
        with engine.begin() as conn:
            _lock_seats(conn, game_id)
            if _seat_devices(conn, game_id, seat):
                return False
            _new_seat_link(conn, game_id, seat, raw, label, now)
            return True

    return retry_busy(run)


def reopen_seat(engine: Engine, game_id: str, seat: str, *, raw: str, label: str = "") -> list[str]:
    """Revoke the phones holding a seat and store a new single-use link to it; return those phones' ids."""

    def run() -> list[str]:
        now = time.time()
        with engine.begin() as conn:
            _lock_seats(conn, game_id)
            rows = _seat_devices(conn, game_id, seat)
            if rows:
                conn.execute(
                    update(tokens_t).where(tokens_t.c.id.in_([r.token_id for r in rows])).values(revoked_at=now)
                )
                conn.execute(
                    update(devices_t)
                    .where(devices_t.c.id.in_([r.id for r in rows]), devices_t.c.revoked_at.is_(None))
                    .values(revoked_at=now)
                )
            _new_seat_link(conn, game_id, seat, raw, label, now)
            return [str(r.id) for r in rows]

    return retry_busy(run)


def revoke_device(engine: Engine, device_id: str) -> bool:
    """Revoke one joined phone (its device token); return whether it was active."""
    with reading(engine) as conn:
        token_id = conn.execute(select(devices_t.c.token_id).where(devices_t.c.id == device_id)).scalar()
    return token_id is not None and revoke_token(engine, int(token_id))


def issue_server_referee_token(engine: Engine, *, label: str = "terminal") -> str:
    """Issue the server referee token for the terminal link.

    Like Jupyter, each `referee serve` prints a fresh link. Earlier terminal tokens that were
    never used are revoked; ones already exchanged for a cookie stay valid, so a restart
    does not lock the referee's browser out.
    """
    raw = secrets.token_urlsafe(TOKEN_BYTES)

    def run() -> None:
        now = time.time()
        with engine.begin() as conn:
            conn.execute(
                update(tokens_t)
                .where(
                    and_(
                        tokens_t.c.role == str(TokenKind.REFEREE),
                        tokens_t.c.revoked_at.is_(None),
                        tokens_t.c.last_seen_at.is_(None),
                    )
                )
                .values(revoked_at=now)
            )
            conn.execute(
                insert(tokens_t).values(
                    game_id=None,
                    role=str(TokenKind.REFEREE),
                    subject=None,
                    token_hash=hash_token(raw),
                    label=label,
                    created_at=now,
                )
            )

    retry_busy(run)
    return raw


# ---------------------------------------------------------------------------------------
# Pilot slips: signed, not secret


SLIP_SIGNATURE_CHARS = 16  # 96 bits: forging one is hopeless, and the printed link stays short


def _slip_signature(value: str) -> str:
    key = current_app.secret_key
    raw_key = key.encode() if isinstance(key, str) else bytes(key or b"")
    digest = hmac.new(raw_key, b"slip:" + value.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:SLIP_SIGNATURE_CHARS]


def make_slip(game_id: str, order_id: str) -> str:
    """Return a pilot's order slip code: game, order and a signature (nothing secret)."""
    value = f"{game_id}.{order_id}"
    return f"{value}.{_slip_signature(value)}"


def read_slip(slip: str) -> tuple[str, str] | None:
    """Return (game_id, order_id) of a genuine slip, or None."""
    if not isinstance(slip, str) or len(slip) > 100:
        return None
    parts = slip.split(".")
    if len(parts) != 3 or not all(parts):
        return None
    game_id, order_id, signature = parts
    if not same_text(signature, _slip_signature(f"{game_id}.{order_id}")):
        return None
    return game_id, order_id


# ---------------------------------------------------------------------------------------
# Rate limit of failed token lookups


class FailureLimiter:
    """At most `limit` failures per key in a sliding `window` of seconds (in-process)."""

    def __init__(self, limit: int = 20, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        """Set the limit, the window and the clock (injectable for tests)."""
        self.limit = limit
        self.window = window
        self.clock = clock
        self._fails: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        fails = self._fails.setdefault(key, deque())
        while fails and now - fails[0] >= self.window:
            fails.popleft()
        return fails

    def blocked(self, key: str) -> bool:
        """Tell whether `key` has used up its failures."""
        with self._lock:
            blocked = len(self._recent(key, self.clock())) >= self.limit
            if not self._fails[key]:
                del self._fails[key]
            return blocked

    def fail(self, key: str) -> None:
        """Count one failure of `key`."""
        with self._lock:
            now = self.clock()
            self._recent(key, now).append(now)
            self._forget_idle(now)

    def take(self, key: str) -> float:
        """Count one use of `key` if it has one left and return 0; else the seconds until it has one."""
        with self._lock:
            now = self.clock()
            recent = self._recent(key, now)
            if len(recent) >= self.limit:
                return max(0.001, self.window - (now - recent[-self.limit])) if self.limit > 0 else self.window
            recent.append(now)
            self._forget_idle(now)
            return 0.0

    def retry_in(self, key: str) -> float:
        """Return the seconds until `key` may fail once more (0 if it may now)."""
        with self._lock:
            now = self.clock()
            recent = self._recent(key, now)
            if len(recent) < self.limit:
                return 0.0
            return max(0.001, self.window - (now - recent[-self.limit]))

    def _forget_idle(self, now: float) -> None:
        if len(self._fails) > 10_000:  # forget idle keys so memory stays bounded
            for k in [k for k, d in self._fails.items() if not d or now - d[-1] >= self.window]:
                del self._fails[k]


def limiter() -> FailureLimiter:
    """The current app's failure limiter."""
    return cast(FailureLimiter, current_app.extensions["referee.limiter"])


def client_key() -> str:
    """The client's address, the key of per-client limits (behind nginx: see PROXY_FIX)."""
    return _client_key()


def _client_key() -> str:
    return request.remote_addr or "?"


# ---------------------------------------------------------------------------------------
# Request side: cookies, roles, guards


def cookie_name(kind: TokenKind, game_id: str | None) -> str:
    """Return the cookie that holds a token of `kind` (for a game)."""
    if kind is TokenKind.REFEREE:
        return SERVER_REFEREE_COOKIE
    if kind in JOIN_KINDS:
        kind = TokenKind.DEVICE  # a join link is exchanged for a device token
    return f"{_COOKIE_PREFIX[kind]}_{game_id}"


def _cookie_token(name: str, kind: TokenKind, game_id: str | None) -> TokenInfo | None:
    """Resolve a token cookie once per request; a bad one counts as a failure and is cleared."""
    cache: dict[str, TokenInfo | None] = g.setdefault("referee_tokens", {})
    if name in cache:
        return cache[name]
    raw = request.cookies.get(name)
    info: TokenInfo | None = None
    if raw and not limiter().blocked(_client_key()):
        info = find_token(db.engine, raw, max_idle=token_max_idle())
        if info is None or info.kind is not kind or info.game_id != game_id:
            info = None
            limiter().fail(_client_key())
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
    key = _client_key()
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
        wait = math.ceil(limiter().retry_in(_client_key())) or 1
        abort(
            429, description=_("Too many wrong links from this device. Wait a minute and try again."), retry_after=wait
        )
    abort(403, description=_("This link is not valid any more. Ask the referee for a new one."))


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
