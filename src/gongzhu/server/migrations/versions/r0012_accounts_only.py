"""Ranked tables of "Play now": ``matches`` gains ``accounts_only``, a table at which only
accounts may sit (a guest would make its deals unrated, docs/ratings.md). Every earlier table
takes anyone.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # A plain ADD COLUMN (SQLite too): a batch would copy ``matches``, which the other tables'
    # foreign keys point at.
    op.add_column("matches", sa.Column("accounts_only", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("accounts_only")
