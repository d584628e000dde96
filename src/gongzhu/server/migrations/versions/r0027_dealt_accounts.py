"""A table keeps, with the deal in progress, who of the people it was dealt to were accounts and
how many people apart they were when it was dealt (``matches.dealt_accounts``,
``matches.dealt_people``; docs/ratings.md): a table loaded again — its people gone and back, a
restart, another server — rates the deal as it was dealt, not as a guest's sign-up or a link
made since would have it.  Deals in progress before are worked out again as they were.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("dealt_accounts", sa.JSON, nullable=True))
        batch.add_column(sa.Column("dealt_people", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("dealt_people")
        batch.drop_column("dealt_accounts")
