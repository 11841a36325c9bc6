"""Database tables: typed SQLAlchemy 2 models (the schema itself lives in referee/store/migrations)."""

from __future__ import annotations

from sqlalchemy import (
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names, so migrations can refer to them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base of every referee table."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Game(Base):
    """One game: its mode, and the seq of its last stored event."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    mode: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[float] = mapped_column(Float)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(32), default="active")
    # When the round clock must next look at the game (a running round's end); NULL: never, so
    # the clock's query skips every game without a timer (Battleship, a paused round).
    deadline: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    # Time of the last action, so a game nobody plays any more can be expired.
    updated_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    # When the referee took the game off the list of games (NULL: listed); its log is untouched.
    archived_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class EventRow(Base):
    """One stored event of a game's append-only log."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "client_id"),)

    game_id: Mapped[str] = mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    data: Mapped[str] = mapped_column(Text)  # JSON text
    at: Mapped[float] = mapped_column(Float)
    by: Mapped[str] = mapped_column(String(64))
    # seq of the first event written by the same action: groups one action's events,
    # so a retried client_id returns every event of the original batch.
    batch_seq: Mapped[int] = mapped_column(Integer)
    device_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # Set on the first event of a batch only (unique per game).
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)


class Snapshot(Base):
    """The folded state of a game at one seq, as JSON text."""

    __tablename__ = "snapshots"

    game_id: Mapped[str] = mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    state: Mapped[str] = mapped_column(Text)


class Token(Base):
    """A capability token, kept only as the sha256 hex of the raw token."""

    __tablename__ = "tokens"
    __table_args__ = (Index("ix_tokens_game_role", "game_id", "role"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # NULL for the per-server referee token.
    game_id: Mapped[str | None] = mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"), nullable=True)
    role: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[float] = mapped_column(Float)
    revoked_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_seen_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class Revocations(Base):
    """One row: how many tokens and phones were ever revoked, counted by triggers (migration 0003)."""

    __tablename__ = "revocations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class Device(Base):
    """A phone that joined a team; its cookie holds a token of role "device"."""

    __tablename__ = "devices"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"), index=True)
    token_id: Mapped[int] = mapped_column(Integer, ForeignKey("tokens.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[float] = mapped_column(Float)
    revoked_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_seen_at: Mapped[float | None] = mapped_column(Float, nullable=True)
