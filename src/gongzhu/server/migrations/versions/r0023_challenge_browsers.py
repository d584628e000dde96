"""A challenge remembers the browsers it was entered from (docs/tournaments.md, The daily
challenge): ``challenge_devices``, each entry's browser (a digest of its device cookie) with the
person who entered from it, so that a browser that entered a challenge as one person — a guest,
say, to see the boards — does not enter it again as another.  Entries kept before remember no
browser.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "challenge_devices",
        sa.Column("challenge_id", sa.String(64), sa.ForeignKey("challenges.id"), primary_key=True),
        sa.Column("device", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True, index=True),
        sa.Column("entered", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("challenge_devices")
