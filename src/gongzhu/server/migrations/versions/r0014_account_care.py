"""Account care (docs/accounts.md): ``users.renamed`` (when the account last changed its name;
null: never), ``users.former_names`` (the names it had before, a JSON list, oldest first; null:
none) and ``users.deleted`` (when the account was deleted; null for everyone else).  Every
earlier account has never been renamed nor deleted.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Plain ADD COLUMNs (SQLite too): a batch would copy ``users``, which other tables' foreign
    # keys point at.
    op.add_column("users", sa.Column("renamed", sa.String(40), nullable=True))
    op.add_column("users", sa.Column("former_names", sa.JSON, nullable=True))
    op.add_column("users", sa.Column("deleted", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("deleted")
        batch.drop_column("former_names")
        batch.drop_column("renamed")
