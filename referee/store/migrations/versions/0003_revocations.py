"""A count of revocations, kept by the database itself, so the round clock can tell when none was made.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-04

Every two seconds the round clock looked up whether a token or phone held by one of its sockets
had been revoked by another process (a `referee tokens revoke`, another worker): a read with two
joins over every held token, most of the CPU an idle server spent. Now triggers count every
revocation, whoever makes it, even by hand in a SQL shell, and the clock reads one number: only
when it moved does it look up which.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("tokens", "devices")


def upgrade() -> None:
    """Create the one-row revocations table and the triggers on tokens and devices that count."""
    op.create_table(
        "revocations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_revocations"),
    )
    op.execute("INSERT INTO revocations (id, count) VALUES (1, 0)")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION referee_count_revocation() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN UPDATE revocations SET count = count + 1 WHERE id = 1; RETURN NULL; END $$"
        )
        for table in TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_revoked AFTER UPDATE OF revoked_at ON {table} FOR EACH ROW "
                "WHEN (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at) EXECUTE FUNCTION referee_count_revocation()"
            )
        return
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER {table}_revoked AFTER UPDATE OF revoked_at ON {table} FOR EACH ROW "
            "WHEN NEW.revoked_at IS NOT OLD.revoked_at "
            "BEGIN UPDATE revocations SET count = count + 1 WHERE id = 1; END"
        )


def downgrade() -> None:
    """Drop the triggers and the table."""
    postgresql = op.get_bind().dialect.name == "postgresql"
    for table in TABLES:
        op.execute(f"DROP TRIGGER {table}_revoked" + (f" ON {table}" if postgresql else ""))
    if postgresql:
        op.execute("DROP FUNCTION referee_count_revocation()")
    op.drop_table("revocations")
