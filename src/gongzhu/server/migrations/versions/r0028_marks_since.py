"""Each browser an account was signed in from keeps since when it links the account
(``known_devices.since``: its first sign-in there): of two accounts linked by a browser during a
rated deal, the one signed in there later made the link and is placed last (docs/ratings.md).
Rows kept before have none (null): older than every row that has one.

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
    with op.batch_alter_table("known_devices") as batch:
        batch.add_column(sa.Column("since", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("known_devices") as batch:
        batch.drop_column("since")
