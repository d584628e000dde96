"""Reviews kept for their people (docs/review.md, Across many deals): ``reviews``, one row per
account and deal whose seat that account played and that somebody reviewed — the seat, when the
deal's match began, when it was reviewed, the review's format, per kind of decision (lead,
follow, discard, exposure) the decisions with a choice, the sum of their losses, the marks ??, ?
and ?! and how many were uncertain, the deal's result, luck and skill, and the review itself
(JSON text).  No earlier review was kept: the table starts empty.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None

#: The kinds and the counts of each, as this revision made them (the columns ``{kind}_{count}``).
KINDS = ("lead", "follow", "discard", "exposure")
COUNTS = ("decisions", "loss", "blunders", "mistakes", "inaccuracies", "uncertain")


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("deal_index", sa.Integer, primary_key=True),
        sa.Column("seat", sa.String(1), nullable=False),
        sa.Column("played", sa.String(40), nullable=False),
        sa.Column("reviewed", sa.String(40), nullable=False),
        sa.Column("format", sa.String(32), nullable=False),
        *(sa.Column(f"{kind}_{count}", sa.Float if count == "loss" else sa.Integer, nullable=False)
          for kind in KINDS for count in COUNTS),
        sa.Column("result", sa.Float, nullable=False),
        sa.Column("luck", sa.Float, nullable=False),
        sa.Column("skill", sa.Float, nullable=False),
        sa.Column("review", sa.Text, nullable=False),
    )
    op.create_index("ix_reviews_deal", "reviews", ["match_id", "deal_index"])


def downgrade() -> None:
    op.drop_index("ix_reviews_deal", table_name="reviews")
    op.drop_table("reviews")
