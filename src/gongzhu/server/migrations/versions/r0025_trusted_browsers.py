"""A browser an account was signed in from stays known after it is signed out (docs/web-protocol.md,
Limits): ``known_devices.trusted`` says whether it still signs in while strangers' failures make
others wait — ending the other sessions or a new password no longer trusts them, but the account
still knows them, so that neither erases a link to another account (a challenge entered, a rated
table, the operators' card).  ``known_devices.device`` is indexed: it is looked up by itself.
Browsers known before are trusted.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("known_devices") as batch:
        batch.add_column(sa.Column("trusted", sa.Boolean, nullable=False, server_default=sa.true()))
    op.create_index("ix_known_devices_device", "known_devices", ["device"])


def downgrade() -> None:
    op.drop_index("ix_known_devices_device", "known_devices")
    with op.batch_alter_table("known_devices") as batch:
        batch.drop_column("trusted")
