"""The first schema: users, programs, game tables and their seats.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Make the four tables."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(40), nullable=False, unique=True),
        sa.Column("key", sa.String(40), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("is_admin", sa.Boolean, nullable=False),
        sa.Column("is_guest", sa.Boolean, nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_table(
        "programs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(80), nullable=False, unique=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("command", sa.JSON, nullable=False),
        sa.Column("owner_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_table(
        "game_tables",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("clocks", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("pinch_hit", sa.Boolean, nullable=False),
        sa.Column("reveal", sa.String(16), nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("started_at", WHEN, nullable=True),
        sa.Column("finished_at", WHEN, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("record", sa.String(1024), nullable=True),
    )
    op.create_table(
        "table_seats",
        sa.Column("table_id", sa.String(16),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("index", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("bot", sa.String(80), nullable=True),
        sa.Column("token", sa.String(64), nullable=True),
        sa.Column("name", sa.String(80), nullable=True),
    )


def downgrade() -> None:
    """Drop the four tables."""
    op.drop_table("table_seats")
    op.drop_table("game_tables")
    op.drop_table("programs")
    op.drop_table("users")
