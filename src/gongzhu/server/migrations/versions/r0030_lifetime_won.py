"""What the lifetime score counts of a deal at a table with people is shared out equally among the
other people dealt it: the share of an account not settled here (fifty deals counted, a week since
it came) does not count, and the share of a settled one counts but for a win beyond 10,000 won from
that account, net, within seven days (docs/ratings.md, Won from one person). ``lifetime_won``
keeps the net of the shares each person counted with each other person, a day, and a table keeps
with the deal in progress which of its accounts were settled when it was dealt
(``matches.dealt_settled``: an account deleted since counts as it was; null for deals dealt
before, worked out again as their table is loaded).  Nothing before is counted again.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "lifetime_won",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("other_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True, index=True),
        sa.Column("day", sa.String(10), primary_key=True, index=True),
        sa.Column("won", sa.BigInteger, nullable=False),
    )
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("dealt_settled", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("dealt_settled")
    op.drop_table("lifetime_won")
