"""Sign-ins guarded account by account (docs/web-protocol.md, Who you are): each account counts its
failed sign-ins from browsers it does not know, from every address and on every server
(``users.sign_in_failures``, ``users.sign_in_failed``), and the browsers it was signed in from
are remembered (``known_devices``: a digest of the browser's device cookie), so that its owner
signs in from them while strangers wait.  Accounts kept before start with no failure and no
browser known.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("sign_in_failures", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("sign_in_failed", sa.String(40), nullable=True))
    op.create_table(
        "known_devices",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("device", sa.String(64), primary_key=True),
        sa.Column("last_seen", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("known_devices")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("sign_in_failed")
        batch.drop_column("sign_in_failures")
