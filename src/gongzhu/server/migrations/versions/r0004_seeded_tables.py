"""Tables whose deal was set in advance: ``matches`` gains ``seeded``, true for a match whose host
chose the seed (``"seed"`` in ``POST /api/tables`` or ``POST /api/matches``).  Only a private table
for people takes a chosen seed; everyone at it sees that the deal was set in advance, and its deals
count toward no lifetime score; a single-player match on a chosen seed seats nobody else.  Earlier
rows are false: the server could not tell a chosen seed from a drawn one.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("seeded", sa.Boolean, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("seeded")
