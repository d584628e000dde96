"""The people one plays with (docs/people.md): ``friends`` (a request from ``user_id`` to
``other_id``, ``state`` ``asked``; once accepted a row each way, ``friends``), ``blocks`` (whom a
person blocked: they never share a table), ``reports`` (a person reported to the operator, with
the match and the reason), ``invitations`` (a friend asked to a table, shown in their lobby) and
``users.last_seen`` (when a person was last there: friends see who is online).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("last_seen", sa.String(40), nullable=True))
    op.create_table(
        "friends",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("other_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
    )
    op.create_index("ix_friends_other_id", "friends", ["other_id"])
    op.create_table(
        "blocks",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("blocked_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("created", sa.String(40), nullable=False),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("reported", sa.String(40), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("match_id", sa.String(64), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
    )
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("to_user", sa.String(40), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("from_user", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("url", sa.String(200), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("invitations")
    op.drop_table("reports")
    op.drop_index("ix_blocks_blocked_id", table_name="blocks")
    op.drop_table("blocks")
    op.drop_index("ix_friends_other_id", table_name="friends")
    op.drop_table("friends")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("last_seen")
