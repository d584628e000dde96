"""Every form of live event (docs/tournaments.md, Events on the server): an event is a team
match, a Swiss of teams, a pairs movement (Mitchell, Howell) or an individual movement.
``events`` gains its ``form``, its ``rounds``, the time it starts by itself (``starts_at``,
seconds since the epoch; null: the organiser starts each stage), the stages begun so far
(``stage``: the guard that lets one server alone begin the next), how entrants come in
(``entry``: ``list``, the organiser's list; ``open``, any account enters itself; ``invite``, those
holding the ``invite`` token) the referees the organiser named (``referees``) and each board's par (``par``); ``teams``
becomes ``entrants`` (teams of four, pairs of two, single players).  ``event_tables.session``
becomes ``stage`` (a round's session counted through the event: a team match's sessions as
before), and each table keeps who has come to it (``present``), so that a restart does not forget them.  The events of
revision 0016 were team matches of one round: they keep their rows.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.alter_column("teams", new_column_name="entrants", existing_type=sa.JSON, existing_nullable=False)
        batch.add_column(sa.Column("form", sa.String(16), nullable=False, server_default="teams"))
        batch.add_column(sa.Column("rounds", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("starts_at", sa.Float, nullable=True))
        batch.add_column(sa.Column("stage", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("entry", sa.String(8), nullable=False, server_default="list"))
        batch.add_column(sa.Column("invite", sa.String(32), nullable=True))
        batch.add_column(sa.Column("referees", sa.JSON, nullable=True))
        batch.add_column(sa.Column("par", sa.JSON, nullable=True))
    op.execute("UPDATE events SET stage = (SELECT COALESCE(MAX(event_tables.session), 0) FROM event_tables "
               "WHERE event_tables.event_id = events.id)")
    with op.batch_alter_table("event_tables") as batch:
        batch.alter_column("session", new_column_name="stage", existing_type=sa.Integer, existing_nullable=False)
        batch.add_column(sa.Column("present", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("event_tables") as batch:
        batch.drop_column("present")
        batch.alter_column("stage", new_column_name="session", existing_type=sa.Integer, existing_nullable=False)
    with op.batch_alter_table("events") as batch:
        batch.drop_column("par")
        batch.drop_column("referees")
        batch.drop_column("invite")
        batch.drop_column("entry")
        batch.drop_column("stage")
        batch.drop_column("starts_at")
        batch.drop_column("rounds")
        batch.drop_column("form")
        batch.alter_column("entrants", new_column_name="teams", existing_type=sa.JSON, existing_nullable=False)
