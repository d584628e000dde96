"""The networks people's table pages come from (docs/ratings.md, Which deals are rated):
``user_networks``, a keyed digest of each person's client network (an IPv4 address, an IPv6 /64)
with when a table page of theirs last came from it, kept a day — so that a rated table seats one
player per network, as it seats one per browser (``known_devices``).

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "user_networks",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("network", sa.String(64), primary_key=True, index=True),
        sa.Column("last_seen", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("user_networks")
