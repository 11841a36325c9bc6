"""Initial schema: games, events, snapshots, tokens, devices.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("by", sa.String(64), nullable=False),
        sa.Column("batch_seq", sa.Integer(), nullable=False),
        sa.Column("device_id", sa.String(32), nullable=True),
        sa.Column("client_id", sa.String(64), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_events_game_id_games", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_events"),
        sa.UniqueConstraint("game_id", "client_id", name="uq_events_game_id_client_id"),
    )
    op.create_table(
        "snapshots",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_snapshots_game_id_games", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_snapshots"),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(64), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("label", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("revoked_at", sa.Float(), nullable=True),
        sa.Column("last_seen_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_tokens_game_id_games", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_tokens"),
        sa.UniqueConstraint("token_hash", name="uq_tokens_token_hash"),
    )
    op.create_index("ix_tokens_game_role", "tokens", ["game_id", "role"])
    op.create_table(
        "devices",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("revoked_at", sa.Float(), nullable=True),
        sa.Column("last_seen_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_devices_game_id_games", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["token_id"], ["tokens.id"], name="fk_devices_token_id_tokens", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_devices"),
    )
    op.create_index("ix_devices_game_id", "devices", ["game_id"])


def downgrade() -> None:
    """Drop every table."""
    op.drop_index("ix_devices_game_id", table_name="devices")
    op.drop_table("devices")
    op.drop_index("ix_tokens_game_role", table_name="tokens")
    op.drop_table("tokens")
    op.drop_table("snapshots")
    op.drop_table("events")
    op.drop_table("games")
