"""Duplicate challenges: ``challenges`` holds each challenge (a set of boards everyone plays in
the same seat against the same computer players: its board set's definition and commitment, the
seed kept secret until it closes, the computers' par per board once computed), and
``challenge_results`` each entrant's result on each board they finished; ``matches`` gains
``challenge``, the challenge a single-player match plays (null for every other match).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("title", sa.String(64), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
        sa.Column("closes", sa.String(40), nullable=False),
        sa.Column("host", sa.String(40), nullable=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("definition", sa.JSON, nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("par", sa.JSON, nullable=True),
    )
    op.create_index("ix_challenges_created", "challenges", ["created"])
    op.create_table(
        "challenge_results",
        sa.Column("challenge_id", sa.String(64), sa.ForeignKey("challenges.id"), primary_key=True),
        sa.Column("board", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("deal_index", sa.Integer, nullable=False),
        sa.Column("result", sa.BigInteger, nullable=False),
        sa.Column("finished", sa.String(40), nullable=False),
    )
    op.create_index("ix_challenge_results_user_id", "challenge_results", ["user_id"])
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("challenge", sa.String(64), nullable=True))
    op.create_index("ix_matches_challenge", "matches", ["challenge"])


def downgrade() -> None:
    op.drop_index("ix_matches_challenge", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("challenge")
    op.drop_index("ix_challenge_results_user_id", table_name="challenge_results")
    op.drop_table("challenge_results")
    op.drop_index("ix_challenges_created", table_name="challenges")
    op.drop_table("challenges")
