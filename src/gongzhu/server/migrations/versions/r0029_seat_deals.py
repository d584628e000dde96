"""Each person's part of a match keeps, for each seat, how many of its deals they were dealt there
and their total there (``match_players.seat_deals``, ``{"E": [9, -833], "N": [1, 50]}``): the pig
of a match is whoever brought the pig's seat lowest (highest, for 双猪's top seat) — a person, or
the computer that played it when nobody sat there — not whoever was dealt its final deal: standing
up, or moving to another seat, before the last deal no longer hands one's pig to a stand-in or a
computer (docs/web-protocol.md, Scores). Rows kept before have none (null): all their deals and
their total count at the seat of their last deal.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("match_players") as batch:
        batch.add_column(sa.Column("seat_deals", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_players") as batch:
        batch.drop_column("seat_deals")
