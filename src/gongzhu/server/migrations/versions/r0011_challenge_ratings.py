"""Ratings from daily challenges (docs/ratings.md): ``challenges`` gains ``rated``, set once the
boards of a closed daily challenge have moved its entrants' ratings (each board once, comparing
everyone who played it). Challenges closed before are left unrated: nobody played them as rated.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.execute(sa.text("UPDATE challenges SET rated = :yes").bindparams(yes=True))


def downgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.drop_column("rated")
