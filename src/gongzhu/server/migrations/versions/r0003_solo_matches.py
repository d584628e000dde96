"""Single-player matches: ``matches`` gains ``solo``, true for a match of one person against three
computer players (``POST /api/matches``), false for a table for people.

The server now knows which is which: the history page offers a single-player match left before
any deal was finished for deletion rather than to continue (``docs/web-protocol.md``), and a
table for people is never deleted.  Earlier rows are told apart by what such a match always
was: a private table without timers, started, whose only person — seated, dealt the deal in
progress or charged a deal — is its host.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-08
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("solo", sa.Boolean, nullable=False, server_default="0"))
    bind = op.get_bind()
    matches = bind.execute(sa.text(
        "SELECT id, host, seats, dealt_to FROM matches WHERE visibility = 'private' AND status <> 'waiting' "
        "AND turn_seconds IS NULL AND expose_seconds IS NULL AND host IS NOT NULL")).all()
    charged: dict[str, set[str]] = {}
    for match_id, user_id in bind.execute(sa.text("SELECT match_id, user_id FROM match_players")):
        charged.setdefault(match_id, set()).add(user_id)
    for match_id, host, seats, dealt_to in matches:
        seated = {s.get("user") for s in _json(seats) or [] if isinstance(s, dict)}
        people = (seated | set(_json(dealt_to) or []) | charged.get(match_id, set())) - {None}
        if people == {host}:
            bind.execute(sa.text("UPDATE matches SET solo = :solo WHERE id = :id"), {"solo": True, "id": match_id})


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("solo")
