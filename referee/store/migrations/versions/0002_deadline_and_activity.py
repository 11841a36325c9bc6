"""Games get their next deadline (for the round clock) and the time of their last action (for expiry).

Revision ID: 0002
Revises: 0001
Create Date: 2025-06-01

Games already running are marked for the clock with deadline 0 ("look now"): the migration cannot
fold their logs, and the clock writes the real deadline once it has loaded one. Join links of
Battleship games made before single-use invites existed are revoked: they let any number of phones
become player B. A player A whose friend has not joined yet gets a fresh single-use invite on the
next reload.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add games.deadline (indexed) and games.updated_at, fill them, revoke old Battleship join links."""
    op.add_column("games", sa.Column("deadline", sa.Float(), nullable=True))
    op.add_column("games", sa.Column("updated_at", sa.Float(), nullable=True))
    op.create_index("ix_games_deadline", "games", ["deadline"])
    op.execute(
        "UPDATE games SET updated_at = COALESCE("
        "(SELECT MAX(events.at) FROM events WHERE events.game_id = games.id), games.created_at)"
    )
    op.execute("UPDATE games SET deadline = 0 WHERE mode = 'airraid' AND status = 'playing'")
    op.get_bind().execute(
        sa.text(
            "UPDATE tokens SET revoked_at = :now WHERE role = 'team_join' AND revoked_at IS NULL"
            " AND game_id IN (SELECT id FROM games WHERE mode = 'battleship')"
        ),
        {"now": time.time()},
    )


def downgrade() -> None:
    """Drop the two columns (revoked links stay revoked)."""
    op.drop_index("ix_games_deadline", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("updated_at")
        batch.drop_column("deadline")
