"""Practice apart: ``users`` gains ``practice`` and ``practice_deals``, the finals and the count of
the deals a person played alone against computer players outside a challenge (practice, where
hints may be asked). The lifetime score and its titles (R8) count only the deals played with
people and the challenges' boards (played without hints).

Existing scores are re-split from the stored deals: each deal of a single-player match that plays
no challenge moves its final (``deals.south_final``: the person plays South there) from the
lifetime score and the deal count to practice. What the stored deals cannot say stays where it
was: the ``matches`` and ``pigs`` counts are not split (a match's end as a pig is not kept per
deal), and a deal whose match is gone is not there to move (a match with finished deals cannot be
deleted, so none is).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None

_PRACTICE = """
    FROM deals JOIN matches ON matches.id = deals.match_id
    WHERE matches.solo = {true} AND matches.challenge IS NULL AND matches.host = users.id
"""


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("practice", sa.BigInteger, nullable=False, server_default="0"))
        batch.add_column(sa.Column("practice_deals", sa.Integer, nullable=False, server_default="0"))
    true = "TRUE" if op.get_bind().dialect.name == "postgresql" else "1"
    where = _PRACTICE.format(true=true)
    op.execute(f"UPDATE users SET practice = (SELECT COALESCE(SUM(deals.south_final), 0) {where}), "
               f"practice_deals = (SELECT COUNT(*) {where})")
    op.execute("UPDATE users SET lifetime = lifetime - practice, deals = deals - practice_deals")


def downgrade() -> None:
    op.execute("UPDATE users SET lifetime = lifetime + practice, deals = deals + practice_deals")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("practice_deals")
        batch.drop_column("practice")
