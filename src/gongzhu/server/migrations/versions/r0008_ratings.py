"""Skill ratings (docs/ratings.md): ``ratings`` holds each person's rating in each family of
presets they were rated in (the model's mean and uncertainty, and how many deals it rests on), and
``rating_history`` the rating after each rated deal (the profile's graph).  Nobody had a rating
before: every person starts unrated (1500, provisional); deals played before are not rated again,
since they were not played as rated deals (their tables were not marked ranked).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("family", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.String(40), nullable=False),
    )
    op.create_index("ix_ratings_family_mu", "ratings", ["family", "mu"])
    op.create_table(
        "rating_history",
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("family", sa.String(16), primary_key=True),
        sa.Column("games", sa.Integer, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("deal_index", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_family_mu", table_name="ratings")
    op.drop_table("ratings")
