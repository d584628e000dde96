"""An invitation to a table remembers when the person asked dismissed it (docs/people.md):
``invitations.dismissed``.  A dismissed invitation no longer shows, and the same table is not
offered to them again by the same person while it would have shown; before, dismissing deleted it
and the next invitation brought it straight back.  Invitations kept before are not dismissed.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-13
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("invitations") as batch:
        batch.add_column(sa.Column("dismissed", sa.String(40), nullable=True))
    op.create_index("ix_invitations_from_user", "invitations", ["from_user"])


def downgrade() -> None:
    op.drop_index("ix_invitations_from_user", "invitations")
    with op.batch_alter_table("invitations") as batch:
        batch.drop_column("dismissed")
