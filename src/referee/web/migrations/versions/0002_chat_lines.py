"""The second schema: a chat line per table (``chat_lines``).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Make the table of chat lines, indexed by table (its lines in order)."""
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(16),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("text", sa.String(300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_chat_lines_table_id", "chat_lines", ["table_id", "id"])


def downgrade() -> None:
    """Drop the chat lines (the tables of the first schema keep their rows)."""
    op.drop_index("ix_chat_lines_table_id", table_name="chat_lines")
    op.drop_table("chat_lines")
