"""Whom the host had leave a seat is kept with the table (docs/people.md, docs/web-protocol.md):
``matches.removed``, the user ids of the people the host removed before the start, who may watch
on but never sit at that table again — also once it is loaded again, after a restart or on
another server.  Tables kept before remember nobody removed (null).

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("removed", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("removed")
