"""Games can be archived: kept, but no longer on the referee's list of games.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-07

A camp's referee rehearses with practice games and tries a ruleset or two before the players
come: the list of games then begins with games nobody will play again. Archiving sets the time
it was done; restoring clears it. Nothing of the game itself changes (its log is its own).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add games.archived_at (NULL: on the list)."""
    op.add_column("games", sa.Column("archived_at", sa.Float(), nullable=True))


def downgrade() -> None:
    """Drop games.archived_at (every game is listed again)."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("archived_at")
