"""Live events (docs/tournaments.md, Team matches on the server): ``events`` holds each team match
the server runs for people (its organiser, settings, teams and board set: definition and
commitment, the seed kept until every board has been played), ``event_tables`` the tables of each
session (the match played at each, when the session started, whether the absent were seen to),
and ``event_log`` the referee's desk of each event in order (sessions started, stand-ins,
penalties, corrections, the publication).  No event existed before: the tables start empty.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-09
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
        sa.Column("organiser", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("boards", sa.Integer, nullable=False),
        sa.Column("sessions", sa.Integer, nullable=False),
        sa.Column("turn_seconds", sa.Integer, nullable=False),
        sa.Column("grace_seconds", sa.Integer, nullable=False),
        sa.Column("teams", sa.JSON, nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("definition", sa.JSON, nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("published", sa.String(40), nullable=True),
    )
    op.create_index("ix_events_created", "events", ["created"])
    op.create_index("ix_events_organiser", "events", ["organiser"])
    op.create_table(
        "event_tables",
        sa.Column("event_id", sa.String(64), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("session", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), nullable=False, unique=True),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("graced", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "event_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(64), sa.ForeignKey("events.id"), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("actor", sa.String(40), nullable=True),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("details", sa.JSON, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
    )
    op.create_index("ix_event_log_event_id", "event_log", ["event_id"])


def downgrade() -> None:
    op.drop_index("ix_event_log_event_id", table_name="event_log")
    op.drop_table("event_log")
    op.drop_table("event_tables")
    op.drop_index("ix_events_organiser", table_name="events")
    op.drop_index("ix_events_created", table_name="events")
    op.drop_table("events")
