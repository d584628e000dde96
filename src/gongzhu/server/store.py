"""Persistence of the browser game with SQLAlchemy 2.x (a SQLite file by default, any SQLAlchemy
URL otherwise).

What is stored (``docs/web-protocol.md``, Persistence):

- ``matches``: one row per match — preset, resolved options (R10), the computer players' levels,
  speed, seed, the running totals (R8, without the one-deck factor), how many deals are finished,
  whether a deal is in progress, and at the end the winners and pigs;
- ``deals``: every finished deal as its R11 record (one JSON line, as ``gongzhu replay`` reads);
- ``actions``: the actions of the deal in progress (every seat's declaration and play, in order),
  so that a restarted server re-deals it from the seed, replays them and resumes where it was;
- ``profile``: the local player's lifetime score (R8: deal finals *with* the one-deck factor).

:class:`Store` is the repository; it hands out plain :class:`MatchInfo` values and each method is
one transaction.  It uses SQLAlchemy Core (tables and statements) without the ORM: the ORM's
import alone cost about 0.3 s of the start command's one-second budget (docs/benchmarks.md).
The schema is versioned by the Alembic revisions of :mod:`gongzhu.server.migrations`, which
:class:`Store` applies when it opens a database.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    Row,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.pool import StaticPool

from gongzhu.server import migrations

__all__ = ["METADATA", "MatchInfo", "Profile", "Store"]

_LOCAL = "local"

#: The tables; every change to them is a revision in :mod:`gongzhu.server.migrations`.
METADATA = MetaData()

_MATCHES = Table(
    "matches", METADATA,
    Column("id", String(64), primary_key=True),
    Column("created", String(40), index=True, nullable=False),
    Column("preset", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("levels", JSON, nullable=False),
    Column("speed", String(16), nullable=False),
    Column("seed", BigInteger, nullable=False),  # 64 bits, stored as signed (see _seed_column)
    Column("totals", JSON, nullable=False),
    Column("deals", Integer, nullable=False, default=0),
    Column("in_deal", Boolean, nullable=False, default=True),
    Column("over", Boolean, nullable=False, default=False),
    Column("winners", JSON, nullable=False),
    Column("pigs", JSON, nullable=False),
    # The table around the match (see the module docstring).
    Column("host", String(40), nullable=True),
    Column("seats", JSON, nullable=True),
    Column("visibility", String(8), nullable=False, server_default="private"),
    Column("invite", String(64), nullable=True),
    Column("turn_seconds", Integer, nullable=True),
    Column("expose_seconds", Integer, nullable=True),
    Column("status", String(8), index=True, nullable=False, server_default="playing"),
    Column("version", BigInteger, nullable=False, server_default="0"),
    Column("auto", JSON, nullable=True),
    Column("timeouts", JSON, nullable=True),
    Column("deadline", Float, nullable=True),
    Column("dealt_to", JSON, nullable=True),
)

_DEALS = Table(
    "deals", METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("match_id", ForeignKey("matches.id"), index=True, nullable=False),
    Column("deal_index", Integer, nullable=False),
    Column("record", Text, nullable=False),  # the R11 record, one JSON line
    Column("south_final", BigInteger, nullable=False),
    UniqueConstraint("match_id", "deal_index"),
)

_ACTIONS = Table(
    "actions", METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("match_id", ForeignKey("matches.id"), index=True, nullable=False),
    Column("deal_index", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("action", Text, nullable=False),  # JSON object: {"seat", "type", ...}
    UniqueConstraint("match_id", "deal_index", "seq"),
)

USERS = Table(
    "users", METADATA,
    Column("id", String(40), primary_key=True),
    Column("name", String(32), nullable=False),
    Column("name_key", String(64), nullable=False, unique=True),  # the name as compared (NFKC, casefolded)
    Column("password_hash", Text, nullable=True),  # argon2id; null for guests
    Column("guest", Boolean, nullable=False),
    Column("created", String(40), nullable=False),
    Column("lifetime", BigInteger, index=True, nullable=False),
    Column("deals", Integer, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("pigs", Integer, nullable=False),
    Column("session_epoch", Integer, nullable=False),  # raised to sign every session out
)

SETTINGS = Table(
    "settings", METADATA,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

MATCH_PLAYERS = Table(
    "match_players", METADATA,
    Column("match_id", ForeignKey("matches.id"), primary_key=True),
    Column("user_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("deals", Integer, nullable=False),
    Column("total", BigInteger, nullable=False),
    Column("pig", Boolean, nullable=False),
    Column("last", String(40), nullable=False),
)


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """A match as stored (see the module docstring)."""

    match_id: str
    created: str
    preset: str
    options: dict[str, Any]
    levels: dict[str, str]
    speed: str
    seed: int
    totals: list[int]
    deals: int
    in_deal: bool
    over: bool
    winners: list[str]
    pigs: list[str]


@dataclass(frozen=True, slots=True)
class Profile:
    """The local player: lifetime score (R8, with the one-deck factor), matches, finished deals."""

    lifetime: int
    matches: int
    deals: int


def _seed_column(seed: int) -> int:
    """A 64-bit seed (0 … 2^64 − 1) as the signed 64-bit integer the ``seed`` column holds
    (two's complement: seeds below 2^63 are stored as they are)."""
    return seed - (1 << 64) if seed >= 1 << 63 else seed


def _seed_value(column: int) -> int:
    return column + (1 << 64) if column < 0 else column


def _info(row: Row[Any]) -> MatchInfo:
    m = row._mapping
    return MatchInfo(
        match_id=m["id"], created=m["created"], preset=m["preset"], options=dict(m["options"]),
        levels=dict(m["levels"]), speed=m["speed"], seed=_seed_value(m["seed"]), totals=list(m["totals"]),
        deals=m["deals"], in_deal=bool(m["in_deal"]), over=bool(m["over"]), winners=list(m["winners"]),
        pigs=list(m["pigs"]),
    )


def _engine(db_url: str) -> Engine:
    url = make_url(db_url)
    if url.get_backend_name() != "sqlite":
        return create_engine(url)
    memory = url.database in (None, "", ":memory:")
    engine = create_engine(
        url,
        # A busy file (another server migrating or writing) is waited for up to 30 s, not 5.
        connect_args={"check_same_thread": False, "timeout": 30.0},
        poolclass=StaticPool if memory else None,
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        # WAL and synchronous=NORMAL: a commit per action costs well under a millisecond, and a
        # crash loses at most the last actions, never the file's consistency.
        cursor = dbapi_connection.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


class Store:
    """The repository of matches, deals, actions and the local profile."""

    def __init__(self, db_url: str) -> None:
        """Open the database ``db_url``, brought to the newest schema (:func:`migrations.upgrade`;
        :class:`~gongzhu.server.migrations.SchemaError` for a database of a newer gongzhu)."""
        self.engine = _engine(db_url)
        try:
            migrations.upgrade(self.engine)
        except BaseException:
            self.engine.dispose()
            raise

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ matches

    def create_match(self, *, match_id: str, preset: str, options: Mapping[str, Any],
                     levels: Mapping[str, str], speed: str, seed: int) -> MatchInfo:
        info = MatchInfo(
            match_id=match_id, created=datetime.now(UTC).isoformat(timespec="microseconds"),
            preset=preset, options=dict(options), levels=dict(levels), speed=speed, seed=seed,
            totals=[0, 0, 0, 0], deals=0, in_deal=True, over=False, winners=[], pigs=[],
        )
        row = asdict(info)
        row["id"] = row.pop("match_id")
        row["seed"] = _seed_column(seed)
        with self.engine.begin() as c:
            c.execute(insert(_MATCHES).values(**row))
        return info

    def match(self, match_id: str) -> MatchInfo | None:
        with self.engine.connect() as c:
            row = c.execute(select(_MATCHES).where(_MATCHES.c.id == match_id)).first()
            return _info(row) if row is not None else None

    def matches(self) -> list[MatchInfo]:
        """Every match, newest first."""
        with self.engine.connect() as c:
            rows = c.execute(select(_MATCHES).order_by(_MATCHES.c.created.desc(), _MATCHES.c.id.desc()))
            return [_info(r) for r in rows]

    def set_speed(self, match_id: str, speed: str) -> None:
        with self.engine.begin() as c:
            c.execute(update(_MATCHES).where(_MATCHES.c.id == match_id).values(speed=speed))

    def start_deal(self, match_id: str) -> None:
        """The next deal of the match has been dealt (its actions follow)."""
        with self.engine.begin() as c:
            c.execute(update(_MATCHES).where(_MATCHES.c.id == match_id).values(in_deal=True))

    # ------------------------------------------------------------------ the deal in progress

    def add_action(self, match_id: str, deal_index: int, seq: int, action: Mapping[str, Any]) -> None:
        with self.engine.begin() as c:
            c.execute(insert(_ACTIONS).values(match_id=match_id, deal_index=deal_index, seq=seq,
                                              action=json.dumps(action, separators=(",", ":"))))

    def actions(self, match_id: str, deal_index: int) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = c.scalars(
                select(_ACTIONS.c.action)
                .where(_ACTIONS.c.match_id == match_id, _ACTIONS.c.deal_index == deal_index)
                .order_by(_ACTIONS.c.seq)
            )
            return [json.loads(a) for a in rows]

    def finish_deal(self, match_id: str, deal_index: int, *, record_line: str, south_final: int,
                    totals: list[int], over: bool, winners: list[str], pigs: list[str]) -> int:
        """Store a finished deal's R11 record and the match's new totals, drop the deal's actions
        and add South's final to the lifetime score, in one transaction.  Returns the new
        lifetime score."""
        with self.engine.begin() as c:
            c.execute(insert(_DEALS).values(match_id=match_id, deal_index=deal_index, record=record_line,
                                            south_final=south_final))
            c.execute(update(_MATCHES).where(_MATCHES.c.id == match_id).values(
                totals=list(totals), deals=deal_index + 1, in_deal=False, over=over, winners=list(winners),
                pigs=list(pigs)))
            c.execute(delete(_ACTIONS).where(_ACTIONS.c.match_id == match_id,
                                             _ACTIONS.c.deal_index == deal_index))
            lifetime = self._lifetime(c) + south_final
            c.execute(update(_PROFILE).where(_PROFILE.c.id == _LOCAL).values(lifetime=lifetime))
            return lifetime

    # ------------------------------------------------------------------ finished deals

    def records(self, match_id: str) -> list[str]:
        """The match's finished deals as R11 JSON lines, in deal order."""
        with self.engine.connect() as c:
            return list(c.scalars(select(_DEALS.c.record).where(_DEALS.c.match_id == match_id)
                                  .order_by(_DEALS.c.deal_index)))

    def record(self, match_id: str, deal_index: int) -> str | None:
        with self.engine.connect() as c:
            line: str | None = c.scalars(select(_DEALS.c.record).where(
                _DEALS.c.match_id == match_id, _DEALS.c.deal_index == deal_index)).first()
            return line

    # ------------------------------------------------------------------ the local player

    @staticmethod
    def _lifetime(c: Connection) -> int:
        """The local player's lifetime score, its row created (at 0) if missing."""
        value = c.scalar(select(_PROFILE.c.lifetime).where(_PROFILE.c.id == _LOCAL))
        if value is None:
            c.execute(insert(_PROFILE).values(id=_LOCAL, lifetime=0))
            return 0
        return int(value)

    def profile(self) -> Profile:
        with self.engine.connect() as c:
            lifetime = c.scalar(select(_PROFILE.c.lifetime).where(_PROFILE.c.id == _LOCAL))
            matches = c.scalar(select(func.count()).select_from(_MATCHES)) or 0
            deals = c.scalar(select(func.count()).select_from(_DEALS)) or 0
            return Profile(int(lifetime) if lifetime is not None else 0, matches, deals)
