"""The schema as it was before it was versioned: matches, deals, actions, profile.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("created", sa.String(40), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("levels", sa.JSON, nullable=False),
        sa.Column("speed", sa.String(16), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("totals", sa.JSON, nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("in_deal", sa.Boolean, nullable=False),
        sa.Column("over", sa.Boolean, nullable=False),
        sa.Column("winners", sa.JSON, nullable=False),
        sa.Column("pigs", sa.JSON, nullable=False),
    )
    op.create_index("ix_matches_created", "matches", ["created"])
    op.create_table(
        "deals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("deal_index", sa.Integer, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("south_final", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("match_id", "deal_index"),
    )
    op.create_index("ix_deals_match_id", "deals", ["match_id"])
    op.create_table(
        "actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("deal_index", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.UniqueConstraint("match_id", "deal_index", "seq"),
    )
    op.create_index("ix_actions_match_id", "actions", ["match_id"])
    op.create_table(
        "profile",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("lifetime", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("profile")
    op.drop_index("ix_actions_match_id", "actions")
    op.drop_table("actions")
    op.drop_index("ix_deals_match_id", "deals")
    op.drop_table("deals")
    op.drop_index("ix_matches_created", "matches")
    op.drop_table("matches")
