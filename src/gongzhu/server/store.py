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

:class:`Store` is the repository; it hands out plain :class:`MatchInfo` values, never ORM
objects, and each method is one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    func,
    select,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.pool import StaticPool

__all__ = ["MatchInfo", "Profile", "Store"]

_LOCAL = "local"


class _Base(DeclarativeBase):
    pass


class _MatchRow(_Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created: Mapped[str] = mapped_column(String(40), index=True)
    preset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    levels: Mapped[dict[str, str]] = mapped_column(JSON)
    speed: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(BigInteger)
    totals: Mapped[list[int]] = mapped_column(JSON)
    deals: Mapped[int] = mapped_column(Integer, default=0)
    in_deal: Mapped[bool] = mapped_column(Boolean, default=True)
    over: Mapped[bool] = mapped_column(Boolean, default=False)
    winners: Mapped[list[str]] = mapped_column(JSON)
    pigs: Mapped[list[str]] = mapped_column(JSON)


class _DealRow(_Base):
    __tablename__ = "deals"
    __table_args__ = (UniqueConstraint("match_id", "deal_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    deal_index: Mapped[int] = mapped_column(Integer)
    record: Mapped[str] = mapped_column(Text)  # the R11 record, one JSON line
    south_final: Mapped[int] = mapped_column(BigInteger)


class _ActionRow(_Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("match_id", "deal_index", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    deal_index: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)  # JSON object: {"seat", "type", ...}


class _ProfileRow(_Base):
    __tablename__ = "profile"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    lifetime: Mapped[int] = mapped_column(BigInteger, default=0)


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


def _info(row: _MatchRow) -> MatchInfo:
    return MatchInfo(
        match_id=row.id, created=row.created, preset=row.preset, options=dict(row.options),
        levels=dict(row.levels), speed=row.speed, seed=row.seed, totals=list(row.totals),
        deals=row.deals, in_deal=row.in_deal, over=row.over, winners=list(row.winners),
        pigs=list(row.pigs),
    )


def _engine(db_url: str) -> Engine:
    url = make_url(db_url)
    if url.get_backend_name() != "sqlite":
        return create_engine(url)
    memory = url.database in (None, "", ":memory:")
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False},
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
        self.engine = _engine(db_url)
        _Base.metadata.create_all(self.engine)
        self._session = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ matches

    def create_match(self, *, match_id: str, preset: str, options: Mapping[str, Any],
                     levels: Mapping[str, str], speed: str, seed: int) -> MatchInfo:
        row = _MatchRow(
            id=match_id, created=datetime.now(UTC).isoformat(timespec="microseconds"),
            preset=preset, options=dict(options), levels=dict(levels), speed=speed, seed=seed,
            totals=[0, 0, 0, 0], deals=0, in_deal=True, over=False, winners=[], pigs=[],
        )
        with self._session.begin() as s:
            s.add(row)
        return _info(row)

    def match(self, match_id: str) -> MatchInfo | None:
        with self._session() as s:
            row = s.get(_MatchRow, match_id)
            return _info(row) if row is not None else None

    def matches(self) -> list[MatchInfo]:
        """Every match, newest first."""
        with self._session() as s:
            rows = s.scalars(select(_MatchRow).order_by(_MatchRow.created.desc(), _MatchRow.id.desc()))
            return [_info(r) for r in rows]

    def set_speed(self, match_id: str, speed: str) -> None:
        with self._session.begin() as s:
            row = s.get(_MatchRow, match_id)
            if row is not None:
                row.speed = speed

    def start_deal(self, match_id: str) -> None:
        """The next deal of the match has been dealt (its actions follow)."""
        with self._session.begin() as s:
            row = s.get(_MatchRow, match_id)
            if row is not None:
                row.in_deal = True

    # ------------------------------------------------------------------ the deal in progress

    def add_action(self, match_id: str, deal_index: int, seq: int, action: Mapping[str, Any]) -> None:
        with self._session.begin() as s:
            s.add(_ActionRow(match_id=match_id, deal_index=deal_index, seq=seq,
                             action=json.dumps(action, separators=(",", ":"))))

    def actions(self, match_id: str, deal_index: int) -> list[dict[str, Any]]:
        with self._session() as s:
            rows = s.scalars(
                select(_ActionRow.action)
                .where(_ActionRow.match_id == match_id, _ActionRow.deal_index == deal_index)
                .order_by(_ActionRow.seq)
            )
            return [json.loads(a) for a in rows]

    def finish_deal(self, match_id: str, deal_index: int, *, record_line: str, south_final: int,
                    totals: list[int], over: bool, winners: list[str], pigs: list[str]) -> int:
        """Store a finished deal's R11 record and the match's new totals, drop the deal's actions
        and add South's final to the lifetime score, in one transaction.  Returns the new
        lifetime score."""
        with self._session.begin() as s:
            s.add(_DealRow(match_id=match_id, deal_index=deal_index, record=record_line,
                           south_final=south_final))
            row = s.get(_MatchRow, match_id)
            if row is not None:
                row.totals = list(totals)
                row.deals = deal_index + 1
                row.in_deal = False
                row.over = over
                row.winners = list(winners)
                row.pigs = list(pigs)
            s.execute(delete(_ActionRow).where(_ActionRow.match_id == match_id,
                                               _ActionRow.deal_index == deal_index))
            profile = self._profile_row(s)
            profile.lifetime += south_final
            return profile.lifetime

    # ------------------------------------------------------------------ finished deals

    def records(self, match_id: str) -> list[str]:
        """The match's finished deals as R11 JSON lines, in deal order."""
        with self._session() as s:
            rows = s.scalars(select(_DealRow.record).where(_DealRow.match_id == match_id)
                             .order_by(_DealRow.deal_index))
            return list(rows)

    def record(self, match_id: str, deal_index: int) -> str | None:
        with self._session() as s:
            return s.scalars(select(_DealRow.record).where(
                _DealRow.match_id == match_id, _DealRow.deal_index == deal_index)).first()

    # ------------------------------------------------------------------ the local player

    @staticmethod
    def _profile_row(s: Session) -> _ProfileRow:
        row = s.get(_ProfileRow, _LOCAL)
        if row is None:
            row = _ProfileRow(id=_LOCAL, lifetime=0)
            s.add(row)
            s.flush()
        return row

    def profile(self) -> Profile:
        with self._session() as s:
            row = s.get(_ProfileRow, _LOCAL)
            matches = s.scalar(select(func.count()).select_from(_MatchRow)) or 0
            deals = s.scalar(select(func.count()).select_from(_DealRow)) or 0
            return Profile(row.lifetime if row is not None else 0, matches, deals)
