"""Online tables: players (guests and accounts), seats, timers, who played which match.

- ``users``: every person who has used the server — a guest (generated nickname) or an account
  (nickname and password hash) — with their lifetime score (R8), deals, matches and pig count;
- ``settings``: values the server keeps for itself (the key that signs session cookies);
- ``matches`` gains the table around the match: host, the four seats, public or private (and
  the invite of a private one), turn and exposure timers, status, the event version, which
  seats are in 托管 and their timeouts in a row, the running timer's deadline, and who was dealt
  the deal in progress;
- ``match_players``: who played a match (deals, total, whether they ended as a pig).

A database of the earlier single-player server keeps everything: its person (South of every
match, the one ``profile`` row) becomes the user ``local`` with that lifetime score, and the
first browser on the server's own machine continues as that user (``docs/web-protocol.md``).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

#: The user that the single-player server's person becomes, and the name it is shown with.
LOCAL_USER = "local"
LOCAL_NAME = "本机玩家"


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("guest", sa.Boolean, nullable=False),
        sa.Column("created", sa.String(40), nullable=False),
        sa.Column("lifetime", sa.BigInteger, nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("pigs", sa.Integer, nullable=False),
        sa.Column("session_epoch", sa.Integer, nullable=False),
    )
    op.create_index("ix_users_lifetime", "users", ["lifetime"])
    op.create_table(
        "settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "match_players",
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("user_id", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("total", sa.BigInteger, nullable=False),
        sa.Column("pig", sa.Boolean, nullable=False),
        sa.Column("last", sa.String(40), nullable=False),
    )
    op.create_index("ix_match_players_user_id", "match_players", ["user_id"])
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("host", sa.String(40), nullable=True))
        batch.add_column(sa.Column("seats", sa.JSON, nullable=True))
        batch.add_column(sa.Column("visibility", sa.String(8), nullable=False, server_default="private"))
        batch.add_column(sa.Column("invite", sa.String(64), nullable=True))
        batch.add_column(sa.Column("turn_seconds", sa.Integer, nullable=True))
        batch.add_column(sa.Column("expose_seconds", sa.Integer, nullable=True))
        batch.add_column(sa.Column("status", sa.String(8), nullable=False, server_default="playing"))
        batch.add_column(sa.Column("version", sa.BigInteger, nullable=False, server_default="0"))
        batch.add_column(sa.Column("auto", sa.JSON, nullable=True))
        batch.add_column(sa.Column("timeouts", sa.JSON, nullable=True))
        batch.add_column(sa.Column("deadline", sa.Float, nullable=True))
        batch.add_column(sa.Column("dealt_to", sa.JSON, nullable=True))
    op.create_index("ix_matches_status", "matches", ["status"])
    _carry_over()
    op.drop_table("profile")


def _carry_over() -> None:
    """The single-player server's matches become tables of the user ``local``."""
    bind = op.get_bind()
    matches = bind.execute(sa.text("SELECT id, levels, over, deals, pigs, created FROM matches")).all()
    lifetime = bind.execute(sa.text("SELECT lifetime FROM profile WHERE id = 'local'")).scalar()
    if not matches and lifetime is None:
        return
    deals = bind.execute(sa.text("SELECT COUNT(*) FROM deals")).scalar() or 0
    pigs = 0
    now = datetime.now(UTC).isoformat(timespec="microseconds")
    bind.execute(sa.text(
        "INSERT INTO users (id, name, name_key, password_hash, guest, created, lifetime, deals, matches, pigs, "
        "session_epoch) VALUES (:id, :name, :key, NULL, :guest, :created, :lifetime, :deals, :matches, 0, 0)"),
        {"id": LOCAL_USER, "name": LOCAL_NAME, "key": LOCAL_NAME, "guest": False, "created": now,
         "lifetime": int(lifetime or 0), "deals": int(deals), "matches": len(matches)})
    for match_id, levels, over, played, pig_seats, created in matches:
        levels = dict(_json(levels))
        pig = "S" in list(_json(pig_seats))
        pigs += pig
        seats = [{"user": LOCAL_USER, "name": LOCAL_NAME} if s == "S" else {"user": None, "name": None}
                 for s in "NESW"]
        total = bind.execute(sa.text("SELECT COALESCE(SUM(south_final), 0) FROM deals WHERE match_id = :m"),
                             {"m": match_id}).scalar() or 0
        bind.execute(sa.text(
            "UPDATE matches SET host = :host, seats = :seats, status = :status, auto = :auto, timeouts = :timeouts, "
            "dealt_to = :dealt, levels = :levels WHERE id = :id"),
            {"host": LOCAL_USER, "seats": json.dumps(seats), "status": "over" if over else "playing",
             "auto": json.dumps([False] * 4), "timeouts": json.dumps([0] * 4),
             "dealt": json.dumps([s["user"] for s in seats]),
             "levels": json.dumps({s: levels.get(s, "intermediate") for s in "NESW"}), "id": match_id})
        bind.execute(sa.text(
            "INSERT INTO match_players (match_id, user_id, deals, total, pig, last) "
            "VALUES (:m, :u, :deals, :total, :pig, :last)"),
            {"m": match_id, "u": LOCAL_USER, "deals": int(played), "total": int(total), "pig": pig,
             "last": created})
    bind.execute(sa.text("UPDATE users SET pigs = :pigs WHERE id = :id"), {"pigs": pigs, "id": LOCAL_USER})


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def downgrade() -> None:
    op.create_table(
        "profile",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("lifetime", sa.BigInteger, nullable=False),
    )
    bind = op.get_bind()
    lifetime = bind.execute(sa.text("SELECT lifetime FROM users WHERE id = :id"), {"id": LOCAL_USER}).scalar()
    if lifetime is not None:
        bind.execute(sa.text("INSERT INTO profile (id, lifetime) VALUES ('local', :l)"), {"l": int(lifetime)})
    op.drop_index("ix_matches_status", "matches")
    with op.batch_alter_table("matches") as batch:
        for name in ("dealt_to", "deadline", "timeouts", "auto", "version", "status", "expose_seconds",
                     "turn_seconds", "invite", "visibility", "seats", "host"):
            batch.drop_column(name)
    op.drop_index("ix_match_players_user_id", "match_players")
    op.drop_table("match_players")
    op.drop_table("settings")
    op.drop_index("ix_users_lifetime", "users")
    op.drop_table("users")
