"""Moderation (docs/moderation.md): ``users.role`` (``operator`` for the site's operators, given
from the command line; null for everyone else), ``sanctions`` (a warning, a mute, a suspension
or a ban of a person, with its reason, its start, its end — null: none — the operator who gave
it, and when it was lifted), ``audit_log`` (every operator's action: when, who, what, on whom or
which table, why, and its details) and ``reports.handled``/``handled_by`` (when and by whom a
report was dealt with).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Plain ADD COLUMNs (SQLite too): a batch would copy ``users`` and ``reports``, which other
    # tables' foreign keys point at.
    op.add_column("users", sa.Column("role", sa.String(16), nullable=True))
    op.add_column("reports", sa.Column("handled", sa.String(40), nullable=True))
    op.add_column("reports", sa.Column("handled_by", sa.String(40), nullable=True))
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("starts", sa.String(40), nullable=False),
        sa.Column("ends", sa.String(40), nullable=True),
        sa.Column("operator", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("lifted", sa.String(40), nullable=True),
        sa.Column("seen", sa.String(40), nullable=True),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.String(40), nullable=False, index=True),
        sa.Column("operator", sa.String(40), nullable=True),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("target_user", sa.String(40), nullable=True, index=True),
        sa.Column("target_match", sa.String(64), nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("details", sa.JSON, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("audit_log")
    op.drop_table("sanctions")
    with op.batch_alter_table("reports") as batch:
        batch.drop_column("handled_by")
        batch.drop_column("handled")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("role")
