"""A challenge's results remember whether their entrant was a guest when they played
(docs/tournaments.md, The daily challenge): ``challenge_results.guest``.  A guest who signs up
keeps the results played as a guest, compared but not ranked or rated, so that nobody plays a
challenge as many guests and makes the best of them an account.  Results kept before are read as
their entrant is now (the flag false; an entrant who is a guest now counts as one).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-12
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("challenge_results") as batch:
        batch.add_column(sa.Column("guest", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("challenge_results") as batch:
        batch.drop_column("guest")
