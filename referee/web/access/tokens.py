"""Capability tokens: issue, look up, revoke; the join links of teams and seats; the server's referee link.

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

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

from flask import current_app
from sqlalchemy import Connection, Engine, Table, and_, insert, select, update

from referee.store import new_id, reading, retry_busy
from referee.store.models import Device, Game, Token

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
COOKIE_PREFIX = {TokenKind.GAME_REFEREE: "rg", TokenKind.DEVICE: "dv", TokenKind.PROJECTOR: "pj"}


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
