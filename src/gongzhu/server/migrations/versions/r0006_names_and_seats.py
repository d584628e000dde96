"""Names that look alike, and who played where: ``users`` gains ``name_skeleton``, the key an
account's name shares with every name that looks like it (:func:`gongzhu.server.names.name_skeleton`,
after UTS #39's confusable skeleton), so that a new account cannot take the look of another's
name; ``match_players`` gains ``seat``, the seat of the person's last deal of the match (the
history names it), and its ``total`` is now in the unit of the match's totals (R8: without the
one-deck factor), as the table and the history show them.

Earlier rows: every person with a name of their own (not a guest) gets the key of their name; a
person's seat is the one they sit at, else the one they were dealt the deal in progress at, else
South for a single-player match (its person always sat there), else unknown (null); each total,
which added the deals' finals, is divided by the match's one-deck factor (R7, R10: a deal's final
is its result times that factor).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import Options
from gongzhu.rules.scoring import lifetime_factor
from gongzhu.server.names import name_skeleton

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(128), nullable=True))
    op.create_index("ix_users_name_skeleton", "users", ["name_skeleton"])
    with op.batch_alter_table("match_players") as batch:
        batch.add_column(sa.Column("seat", sa.String(1), nullable=True))
    bind = op.get_bind()
    named = bind.execute(sa.text("SELECT id, name FROM users WHERE guest = :guest"), {"guest": False}).all()
    for user_id, name in named:
        bind.execute(sa.text("UPDATE users SET name_skeleton = :look WHERE id = :id"),
                     {"look": name_skeleton(name), "id": user_id})
    matches = {row[0]: row[1:]
               for row in bind.execute(sa.text("SELECT id, options, seats, dealt_to, solo FROM matches"))}
    played = bind.execute(sa.text("SELECT match_id, user_id, total FROM match_players")).all()
    for match_id, user_id, total in played:
        options, seats, dealt_to, solo = matches[match_id]
        factor = _factor(_json(options))
        bind.execute(sa.text("UPDATE match_players SET seat = :seat, total = :total "
                             "WHERE match_id = :match AND user_id = :user"),
                     {"seat": _seat(user_id, _json(seats), _json(dealt_to), bool(solo)),
                      "total": int(total) // factor if int(total) % factor == 0 else int(total),
                      "match": match_id, "user": user_id})


def _factor(options: Any) -> int:
    """The one-deck factor of a match's stored options (1 where they cannot be read)."""
    try:
        return lifetime_factor(Options.from_dict(options or {}))
    except (GongzhuError, TypeError, ValueError):
        return 1


def _seat(user_id: str, seats: Any, dealt_to: Any, solo: bool) -> str | None:
    for s, seat in zip("NESW", seats or [], strict=False):
        if isinstance(seat, dict) and seat.get("user") == user_id:
            return s
    for s, dealt in zip("NESW", dealt_to or [], strict=False):
        if dealt == user_id:
            return s
    return "S" if solo else None


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def downgrade() -> None:
    bind = op.get_bind()
    matches = {row[0]: row[1] for row in bind.execute(sa.text("SELECT id, options FROM matches"))}
    for match_id, user_id, total in bind.execute(sa.text("SELECT match_id, user_id, total FROM match_players")).all():
        bind.execute(sa.text("UPDATE match_players SET total = :total WHERE match_id = :match AND user_id = :user"),
                     {"total": int(total) * _factor(_json(matches[match_id])), "match": match_id, "user": user_id})
    with op.batch_alter_table("match_players") as batch:
        batch.drop_column("seat")
    op.drop_index("ix_users_name_skeleton", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("name_skeleton")
