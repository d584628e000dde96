"""Each browser an account was signed in from, and each network its table pages came from, keeps
since when it links the account (``known_devices.since``, ``user_networks.since``: a network's
since its page came from it after a day away, a browser's since its first sign-in): of two
accounts linked during a rated deal, the one whose mark came later made the link and is placed
last (docs/ratings.md).  Rows kept before have none (null): older than every row that has one.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    for table in ("known_devices", "user_networks"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("since", sa.String(40), nullable=True))


def downgrade() -> None:
    for table in ("user_networks", "known_devices"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("since")
