"""A challenge keeps who entered it (docs/tournaments.md, The daily challenge):
``challenge_entries``, each entrant with their match and whether they entered as a guest, so that
once it closes everyone who entered is ranked over every board — a board left unfinished counts
as a last place — and an entry begun as a guest stays a guest's even when its person signs up
before finishing a board.  Entries made before are taken from the challenges' matches: a guest's
if its person is a guest now or finished a board as one.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    entries = op.create_table(
        "challenge_entries",
        sa.Column("challenge_id", sa.String(64), sa.ForeignKey("challenges.id"), primary_key=True),
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True, index=True),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("guest", sa.Boolean, nullable=False),
        sa.Column("entered", sa.String(40), nullable=False),
    )
    assert entries is not None
    matches = sa.table("matches", sa.column("id", sa.String), sa.column("host", sa.String),
                       sa.column("challenge", sa.String), sa.column("created", sa.String))
    challenges = sa.table("challenges", sa.column("id", sa.String))
    users = sa.table("users", sa.column("id", sa.String), sa.column("guest", sa.Boolean))
    results = sa.table("challenge_results", sa.column("challenge_id", sa.String), sa.column("user_id", sa.String),
                       sa.column("guest", sa.Boolean))
    bind = op.get_bind()
    as_guest = {(r.challenge_id, r.user_id) for r in bind.execute(
        sa.select(results.c.challenge_id, results.c.user_id).where(results.c.guest.is_(True)))}
    rows: dict[tuple[str, str], dict[str, object]] = {}
    query = (sa.select(matches.c.id, matches.c.host, matches.c.challenge, matches.c.created, users.c.guest)
             .join(challenges, challenges.c.id == matches.c.challenge).join(users, users.c.id == matches.c.host)
             .order_by(matches.c.created))
    for match_id, host, challenge_id, created, guest in bind.execute(query):
        rows.setdefault((challenge_id, host), {  # the first match of each entrant: their entry
            "challenge_id": challenge_id, "user_id": host, "match_id": match_id, "entered": created,
            "guest": bool(guest) or (challenge_id, host) in as_guest})
    if rows:
        op.bulk_insert(entries, list(rows.values()))


def downgrade() -> None:
    op.drop_table("challenge_entries")
