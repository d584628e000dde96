"""Persistence of the browser game with SQLAlchemy 2.x (a SQLite file by default, any SQLAlchemy
URL otherwise).

The tables of the database (``matches``, with the table around each match, :class:`Seating`;
``deals``, ``actions``, ``users``, ``match_players``, ``settings``, ``sessions``) and every
statement on them.  :class:`Store` is the repository: it hands out plain :class:`MatchInfo`
values, each of its methods is one transaction, and it brings a database to the newest Alembic
revision of :mod:`gongzhu.server.migrations` when it opens it.  It uses SQLAlchemy Core without
the ORM, whose import alone would cost about 0.3 s of the start.  What each table holds, and the
little that is ever deleted: ``docs/web-protocol.md``, Persistence.  Imports SQLAlchemy and
:mod:`gongzhu.server.migrations`.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import re
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Row,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    cast,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.pool import StaticPool

from gongzhu.ratings import Skill, rate_deal
from gongzhu.rules.cards import Seat
from gongzhu.server import migrations

__all__ = ["AUDIT_LOG", "BLOCKS", "CHALLENGES", "CHALLENGE_DEVICES", "CHALLENGE_ENTRIES", "CHALLENGE_RESULTS",
           "EVENTS", "EVENT_ID", "EVENT_LOG", "EVENT_TABLES", "FRIENDS", "INVITATIONS", "KNOWN_DEVICES",
           "LIFETIME_WON", "MATCHES", "MATCH_PLAYERS",
           "METADATA", "NETWORK_KEPT", "POSTGRES_CONNECT", "POSTGRES_LOCK_TIMEOUT", "POSTGRES_STATEMENT_TIMEOUT",
           "RATINGS", "RATING_HISTORY", "REPORTS", "REVIEWS", "REVIEW_COUNTS", "REVIEW_KINDS", "SANCTIONS",
           "SESSIONS", "SETTINGS", "SETTLED_AGE", "SETTLED_DEALS", "USERS", "USER_NETWORKS", "WON_FROM_ONE",
           "WON_WITHIN", "Charge", "Counted", "DeletedSitter", "MatchInfo", "Rated",
           "SeatedElsewhere", "Seating", "StaleTable", "Store",
           "friends_among", "hold", "is_event", "playing_elsewhere", "seated_rows", "why_kept"]


#: The tables; every change to them is a revision in :mod:`gongzhu.server.migrations`.
METADATA = MetaData()

MATCHES = Table(
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
    # The table around the match (docs/web-protocol.md, Persistence).
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
    # Who of them were accounts when the deal in progress was dealt, and how many people apart
    # (revision 0027): a table loaded again rates the deal as it was dealt, whatever changed since.
    Column("dealt_accounts", JSON, nullable=True),
    Column("dealt_people", Integer, nullable=True),
    # Which of them were settled here then (revision 0030): the lifetime score counts their shares
    # of the others' finals (docs/ratings.md, Won from one person) — a deletion since changes nothing.
    Column("dealt_settled", JSON, nullable=True),
    # Whom the host had leave a seat before the start: they never sit there again (revision 0020).
    Column("removed", JSON, nullable=True),
    # One person against three computer players (POST /api/matches), not a table for people.
    Column("solo", Boolean, nullable=False, server_default="0"),
    # A table for people whose deal was set in advance: its host chose the seed (never ranked).
    Column("seeded", Boolean, nullable=False, server_default="0"),
    # The challenge a single-player match plays (its deals are the challenge's boards).
    Column("challenge", String(64), nullable=True, index=True),
    # Only accounts may sit at it (a ranked table of "Play now", docs/ratings.md).
    Column("accounts_only", Boolean, nullable=False, server_default=false()),
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
    # Practice: the finals and the count of the deals played alone against computer players
    # outside a challenge; the lifetime score and ``deals`` count the rest (docs/ratings.md).
    Column("practice", BigInteger, nullable=False, server_default="0"),
    Column("practice_deals", Integer, nullable=False, server_default="0"),
    Column("last_seen", String(40), nullable=True),  # when the person was last there (friends see who is online)
    # An account's name as it looks (gongzhu.server.names.name_skeleton); null for guests.
    Column("name_skeleton", String(128), nullable=True, index=True),
    # "operator" for the site's operators (gongzhu admin grant, docs/moderation.md); null otherwise.
    Column("role", String(16), nullable=True),
    # Account care (docs/accounts.md): when the name last changed, the names held before (a JSON
    # list, oldest first), and when the account was deleted (its row then keeps no personal data).
    Column("renamed", String(40), nullable=True),
    Column("former_names", JSON, nullable=True),
    Column("deleted", String(40), nullable=True),
    # Failed sign-ins of the account from browsers it does not know, from every address and server,
    # and when the last one was counted (gongzhu.server.accounts.AccountGuard).
    Column("sign_in_failures", Integer, nullable=False, server_default="0"),
    Column("sign_in_failed", String(40), nullable=True),
)

SETTINGS = Table(
    "settings", METADATA,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

SESSIONS = Table(
    "sessions", METADATA,
    Column("id", String(64), primary_key=True),  # SHA-256 of the token in the session's cookie, hex
    Column("user_id", ForeignKey("users.id"), nullable=False, index=True),
    Column("created", String(40), nullable=False),
)

#: The browsers an account was signed in from (the SHA-256 of their device cookie, hex), each with
#: when it last signed in, and whether it is trusted still: a trusted one signs in while strangers'
#: failures make others wait (gongzhu.server.accounts.AccountGuard); one signed out by the
#: account's owner (ending the other sessions, a new password) is not, but stays known — a link to
#: the other accounts signed in there (a challenge, a rated table, the operators' card).
KNOWN_DEVICES = Table(
    "known_devices", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("device", String(64), primary_key=True, index=True),
    Column("last_seen", String(40), nullable=False),
    Column("trusted", Boolean, nullable=False, server_default=true()),
    # Since when it links the account: its first sign-in there (revision 0028; null: before).
    Column("since", String(40), nullable=True),
)

#: How long the network a person's table page came from is kept (``user_networks``), and within
#: what time two people's pages from one network link them at a rated table (:meth:`Store.linked`).
NETWORK_KEPT = timedelta(days=1)
#: The networks each person's table pages came from (a keyed digest of the client's network: an
#: IPv4 address, an IPv6 /64; only addresses on the internet), with when last: kept a day
#: (NETWORK_KEPT), so that a rated table seats one player per network.
USER_NETWORKS = Table(
    "user_networks", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("network", String(64), primary_key=True, index=True),
    Column("last_seen", String(40), nullable=False),
)

#: What the lifetime score counts of a deal at a table with people (docs/ratings.md, Won from one
#: person): a final is shared out equally among the other people dealt the deal; a share counts
#: only between two accounts settled here — :data:`SETTLED_DEALS` deals counted, first come
#: :data:`SETTLED_AGE` ago — and then but for a win beyond :data:`WON_FROM_ONE` won from that
#: account, net, within :data:`WON_WITHIN`.
SETTLED_DEALS = 50
SETTLED_AGE = timedelta(days=7)
WON_FROM_ONE = 10_000
WON_WITHIN = timedelta(days=7)
#: The shares each person's lifetime score counted with each other person, net, a day (UTC,
#: ``YYYY-MM-DD``): read back over :data:`WON_WITHIN`, and days older than that deleted as a deal
#: counted between people ends.
LIFETIME_WON = Table(
    "lifetime_won", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("other_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("day", String(10), primary_key=True, index=True),
    Column("won", BigInteger, nullable=False),
)

#: Duplicate challenges (gongzhu.server.challenges): the board set (its definition and commitment,
#: the seed kept until the challenge closes), and the computers' par on each board.
CHALLENGES = Table(
    "challenges", METADATA,
    Column("id", String(64), primary_key=True),
    Column("kind", String(8), nullable=False),  # "daily" or "private"
    Column("title", String(64), nullable=False),
    Column("created", String(40), nullable=False, index=True),
    Column("closes", String(40), nullable=False),
    Column("host", String(40), nullable=True),
    Column("preset", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("level", String(16), nullable=False),
    Column("seed", String(64), nullable=False),
    Column("definition", JSON, nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("par", JSON, nullable=True),  # the computers' result on each board, in board order
    # A closed daily challenge whose boards have moved its entrants' ratings (docs/ratings.md).
    Column("rated", Boolean, nullable=False, server_default=false()),
)

#: Each entrant's result on each board of a challenge they finished.
CHALLENGE_RESULTS = Table(
    "challenge_results", METADATA,
    Column("challenge_id", ForeignKey("challenges.id"), primary_key=True),
    Column("board", Integer, primary_key=True),
    Column("user_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("match_id", String(64), nullable=False),
    Column("deal_index", Integer, nullable=False),
    Column("result", BigInteger, nullable=False),
    Column("finished", String(40), nullable=False),
    # the entrant was a guest when they played it: compared, never ranked (revision 0018)
    Column("guest", Boolean, nullable=False, server_default=false()),
)

#: Who entered each challenge, with their match and whether they entered it as a guest (an entry
#: begun as a guest stays a guest's: compared, never ranked nor rated).  Once the challenge has
#: closed every entrant is ranked over every board, a board they did not finish counting as a last
#: place (gongzhu.server.challenges; revision 0026).
CHALLENGE_ENTRIES = Table(
    "challenge_entries", METADATA,
    Column("challenge_id", ForeignKey("challenges.id"), primary_key=True),
    Column("user_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("match_id", String(64), nullable=False),
    Column("guest", Boolean, nullable=False),
    Column("entered", String(40), nullable=False),
)

#: The browsers each challenge was entered from (the SHA-256 of their device cookie, hex), with who
#: entered from each: a browser enters a challenge as one person only (gongzhu.server.challenges).
CHALLENGE_DEVICES = Table(
    "challenge_devices", METADATA,
    Column("challenge_id", ForeignKey("challenges.id"), primary_key=True),
    Column("device", String(64), primary_key=True),
    Column("user_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("entered", String(40), nullable=False),
)

#: Each person's skill rating in each family of presets they were rated in (gongzhu.ratings).
RATINGS = Table(
    "ratings", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("family", String(16), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", String(40), nullable=False),
)
Index("ix_ratings_family_mu", RATINGS.c.family, RATINGS.c.mu)

#: Friendship: a request (``asked``, from ``user_id`` to ``other_id``), or once accepted a row each
#: way (``friends``) (gongzhu.server.people).
FRIENDS = Table(
    "friends", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("other_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("state", String(8), nullable=False),
    Column("created", String(40), nullable=False),
)

#: Whom each person blocked: the two never share a table.
BLOCKS = Table(
    "blocks", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("blocked_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("created", String(40), nullable=False),
)

#: People reported to the operator.
REPORTS = Table(
    "reports", METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter", ForeignKey("users.id"), nullable=False),
    Column("reported", ForeignKey("users.id"), nullable=False, index=True),
    Column("match_id", String(64), nullable=True),
    Column("reason", Text, nullable=False),
    Column("created", String(40), nullable=False),
    # When and by which operator the report was dealt with (null: open; docs/moderation.md).
    Column("handled", String(40), nullable=True),
    Column("handled_by", String(40), nullable=True),
)

#: A friend asked to a table: shown in their lobby until dismissed.
INVITATIONS = Table(
    "invitations", METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("to_user", ForeignKey("users.id"), nullable=False, index=True),
    Column("from_user", ForeignKey("users.id"), nullable=False, index=True),
    Column("match_id", String(64), nullable=False),
    Column("url", String(200), nullable=False),
    Column("created", String(40), nullable=False),
    # when the person asked dismissed it: it shows no more, nor comes again (revision 0019)
    Column("dismissed", String(40)),
)

#: A warning, mute, suspension or ban of a person by an operator (gongzhu.server.moderation):
#: ``ends`` null is for good, ``lifted`` when an operator lifted it, ``seen`` when the person
#: dismissed a warning.
SANCTIONS = Table(
    "sanctions", METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", ForeignKey("users.id"), nullable=False, index=True),
    Column("kind", String(8), nullable=False),  # warn, mute, suspend or ban
    Column("reason", Text, nullable=False),
    Column("starts", String(40), nullable=False),
    Column("ends", String(40), nullable=True),
    Column("operator", ForeignKey("users.id"), nullable=False),
    Column("lifted", String(40), nullable=True),
    Column("seen", String(40), nullable=True),
)

#: Every operator's action (docs/moderation.md, The audit log); ``operator`` null: the command line.
AUDIT_LOG = Table(
    "audit_log", METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", String(40), nullable=False, index=True),
    Column("operator", String(40), nullable=True),
    Column("action", String(16), nullable=False),
    Column("target_user", String(40), nullable=True, index=True),
    Column("target_match", String(64), nullable=True),
    Column("reason", Text, nullable=True),
    Column("details", JSON, nullable=True),
)

#: A person's rating after each rated deal (the profile's graph): ``games`` counts them.
RATING_HISTORY = Table(
    "rating_history", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("family", String(16), primary_key=True),
    Column("games", Integer, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", String(40), nullable=False),
    Column("match_id", String(64), nullable=False),
    Column("deal_index", Integer, nullable=False),
)

MATCH_PLAYERS = Table(
    "match_players", METADATA,
    Column("match_id", ForeignKey("matches.id"), primary_key=True),
    Column("user_id", ForeignKey("users.id"), primary_key=True, index=True),
    Column("deals", Integer, nullable=False),
    Column("total", BigInteger, nullable=False),
    Column("pig", Boolean, nullable=False),
    Column("last", String(40), nullable=False),
    Column("seat", String(1), nullable=True),  # N, E, S or W: where the person played their last deal
    # Their deals and total at each seat, {"E": [9, -833], "N": [1, 50]} (revision 0029; null:
    # before, all of them at ``seat``): the pig of the match is whoever brought its seat lowest.
    Column("seat_deals", JSON, nullable=True),
)

#: The kinds of a reviewed decision (docs/review.md, Across many deals): a lead (the first play of a
#: trick), a play that follows the led suit, a discard (a play not all of the led suit: the seat
#: had none left), and the declaration of exposures (亮牌).
REVIEW_KINDS = ("lead", "follow", "discard", "exposure")
#: What ``reviews`` counts of each kind: its decisions with a choice, the sum of their losses, the
#: decisions marked ??, ? and ?! (blunders, mistakes, inaccuracies), and how many marks were uncertain.
REVIEW_COUNTS = ("decisions", "loss", "blunders", "mistakes", "inaccuracies", "uncertain")

#: A finished review of a seat an account played (gongzhu.server.accuracy): one row per person and
#: deal, whoever asked for it — what the person's accuracy on the profile adds up — with the review
#: itself (JSON text), which opens again from here.  ``played``: when the deal's match began.
REVIEWS = Table(
    "reviews", METADATA,
    Column("user_id", ForeignKey("users.id"), primary_key=True),
    Column("match_id", ForeignKey("matches.id"), primary_key=True),
    Column("deal_index", Integer, primary_key=True),
    Column("seat", String(1), nullable=False),
    Column("played", String(40), nullable=False),
    Column("reviewed", String(40), nullable=False),
    Column("format", String(32), nullable=False),
    *(Column(f"{kind}_{count}", Float if count == "loss" else Integer, nullable=False)
      for kind in REVIEW_KINDS for count in REVIEW_COUNTS),
    Column("result", Float, nullable=False),
    Column("luck", Float, nullable=False),
    Column("skill", Float, nullable=False),
    Column("review", Text, nullable=False),
)
Index("ix_reviews_deal", REVIEWS.c.match_id, REVIEWS.c.deal_index)

#: Live events (gongzhu.server.events; docs/tournaments.md, Events on the server): a team match
#: (计副制), a Swiss of teams, a pairs or an individual movement the server runs for people — its
#: organiser, its form and settings, the entrants (each a name and its players' user ids and names,
#: a JSON list) and its board set (definition and commitment; the seed kept until every board has
#: been played at every table); ``published`` when the organiser published the results (null:
#: provisional).
EVENTS = Table(
    "events", METADATA,
    Column("id", String(64), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("created", String(40), nullable=False, index=True),
    Column("organiser", ForeignKey("users.id"), nullable=False, index=True),
    Column("preset", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("form", String(16), nullable=False, server_default="teams"),
    Column("boards", Integer, nullable=False),  # boards a round (a team match's: a session)
    Column("rounds", Integer, nullable=False, server_default="1"),
    Column("sessions", Integer, nullable=False),
    Column("turn_seconds", Integer, nullable=False),
    Column("grace_seconds", Integer, nullable=False),
    Column("starts_at", Float, nullable=True),  # starts by itself then (seconds since the epoch)
    Column("stage", Integer, nullable=False, server_default="0"),  # the stages begun
    Column("entry", String(8), nullable=False, server_default="list"),  # list | open | invite
    Column("invite", String(32), nullable=True),  # the token of an entry by invitation
    Column("referees", JSON, nullable=True),  # [[user id, name]]: referees the organiser named
    Column("par", JSON, nullable=True),  # each board's par (N–S, four experts), once computed
    Column("entrants", JSON, nullable=False),
    Column("seed", String(64), nullable=False),
    Column("definition", JSON, nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("published", String(40), nullable=True),
)

#: The tables of each stage (a round's session) of an event: the match played there (its
#: ``challenge`` column names the event), when the stage started (the events' clock), whether the
#: absent were seen to and who has come.
EVENT_TABLES = Table(
    "event_tables", METADATA,
    Column("event_id", ForeignKey("events.id"), primary_key=True),
    Column("stage", Integer, primary_key=True),  # a round's session, counted through the event
    Column("table_no", Integer, primary_key=True),
    Column("match_id", ForeignKey("matches.id"), nullable=False, unique=True),
    Column("started", Float, nullable=False),
    Column("graced", Boolean, nullable=False, server_default=false()),
    Column("present", JSON, nullable=True),  # who has come to the table (user ids)
)

#: The referee's desk of each event, in order: stages started, Swiss pairings, stand-ins (托管) for the absent,
#: penalties and score corrections with their reasons, the publication of the results.
EVENT_LOG = Table(
    "event_log", METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("event_id", ForeignKey("events.id"), nullable=False, index=True),
    Column("at", String(40), nullable=False),
    Column("actor", String(40), nullable=True),  # the user who acted; null: the server
    Column("action", String(16), nullable=False),
    Column("details", JSON, nullable=True),
    Column("reason", Text, nullable=True),
)


#: The writes of every play and every change of a table, built once and executed with their values:
#: building a statement with ``.values(...)`` on each call (coercing every value, making its cache
#: key) cost about twice the write itself (docs/benchmarks.md, Online tables).
_INSERT_ACTION = insert(_ACTIONS)
_UPDATE_MATCH = update(MATCHES).where(MATCHES.c.id == bindparam("match_key"))
_UPDATE_FENCED = update(MATCHES).where(MATCHES.c.id == bindparam("match_key"),
                                        MATCHES.c.version == bindparam("stored_version"))


@dataclass(frozen=True, slots=True)
class Seating:
    """The table around a match: who sits where and how the table runs.

    ``seats`` are N, E, S, W: the user id and name of the person sitting there, or None for a
    seat that a computer player plays (at the seat's ``levels`` level); ``auto`` marks the
    persons' seats in 托管 and ``timeouts`` counts each seat's timeouts in a row; ``dealt_to``
    are the persons who were dealt the deal in progress (whom its result counts for);
    ``deadline`` the running timer's end (seconds since the epoch, the server's clock);
    ``removed`` the persons the host had leave a seat before the start (they never sit there
    again); ``awaited`` the persons seated for them at a table waiting to start (its host when it
    was made, the people 再来一局 seated) who have not come to it yet: the start deals them not
    in (kept with their seats, ``"awaited": true``); ``dealt_accounts`` and ``dealt_people``
    who of ``dealt_to`` were accounts when the deal was dealt, and how many people apart they
    were then, and ``dealt_settled`` which of them were settled here then (:meth:`Store.settled`;
    None: not known, a deal dealt before they were kept)."""

    host: str | None
    seats: tuple[tuple[str, str] | None, ...]
    levels: dict[str, str]
    visibility: str  # "public" or "private"
    invite: str | None
    turn_seconds: int | None
    expose_seconds: int | None
    status: str  # "waiting", "playing" or "over"
    version: int
    auto: tuple[bool, ...]
    timeouts: tuple[int, ...]
    deadline: float | None
    dealt_to: tuple[str | None, ...]
    removed: tuple[str, ...] = ()
    awaited: tuple[str, ...] = ()
    dealt_accounts: tuple[str, ...] | None = None
    dealt_people: int | None = None
    dealt_settled: tuple[str, ...] | None = None

    def columns(self) -> dict[str, Any]:
        """The row's columns for this seating."""
        return {
            "host": self.host,
            "seats": [({"user": s[0], "name": s[1], "awaited": True} if s[0] in self.awaited
                       else {"user": s[0], "name": s[1]}) if s is not None else {"user": None, "name": None}
                      for s in self.seats],
            "levels": dict(self.levels), "visibility": self.visibility, "invite": self.invite,
            "turn_seconds": self.turn_seconds, "expose_seconds": self.expose_seconds, "status": self.status,
            "version": self.version, "auto": list(self.auto), "timeouts": list(self.timeouts),
            "deadline": self.deadline, "dealt_to": list(self.dealt_to), "removed": list(self.removed),
            "dealt_accounts": list(self.dealt_accounts) if self.dealt_accounts is not None else None,
            "dealt_people": self.dealt_people,
            "dealt_settled": list(self.dealt_settled) if self.dealt_settled is not None else None,
        }


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """A match as stored (docs/web-protocol.md, Persistence)."""

    match_id: str
    created: str
    preset: str
    options: dict[str, Any]
    speed: str
    seed: int
    totals: list[int]
    deals: int
    in_deal: bool
    over: bool
    winners: list[str]
    pigs: list[str]
    seating: Seating
    solo: bool = False  # a single-player match (docs/web-protocol.md, Persistence)
    seeded: bool = False  # its host chose the seed (docs/web-protocol.md, Tables, Chosen seeds)
    challenge: str | None = None  # the challenge whose boards it plays (docs/tournaments.md)
    accounts_only: bool = False  # only accounts may sit at it (a ranked table, docs/ratings.md)

    @property
    def levels(self) -> dict[str, str]:
        return self.seating.levels


@dataclass(frozen=True, slots=True)
class Charge:
    """A finished deal's result for the person it counts for: ``final`` (with the one-deck
    factor) for the lifetime score, ``result`` (without it) for their total of the match, the
    unit of the match's totals (R8); ``seat``, where they played it; ``others``, the other people
    dealt the deal, among whom the lifetime score shares ``final`` out (:meth:`Store._withheld`)."""

    user: str
    final: int
    result: int = field(kw_only=True)
    seat: str | None = field(default=None, kw_only=True)
    others: tuple[str, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True, slots=True)
class Counted:
    """What a finished deal did to its people's lifetime scores (:meth:`Store.finish_deal`): each
    charged person's new ``lifetimes``, and what was ``withheld`` of their final (docs/ratings.md,
    Won from one person), for those it withheld anything of."""

    lifetimes: dict[str, int]
    withheld: dict[str, int]


@dataclass(frozen=True, slots=True)
class Rated:
    """A finished deal that moves its people's ratings (a rated table, docs/ratings.md): the
    family of presets it is rated in, and its sides — each its people and its R7 result."""

    family: str
    sides: tuple[tuple[tuple[str, ...], int], ...]


def _seat_deals(played: Any) -> dict[str, tuple[int, int]]:
    """A person's part of a match (``match_players``: ``deals``, ``total``, ``seat``,
    ``seat_deals``): the deals they were dealt at each seat and their total there; a part kept
    before that was kept, all at its seat."""
    if played.seat_deals is not None:
        return {str(seat): (int(n), int(t)) for seat, (n, t) in dict(played.seat_deals).items()}
    return {played.seat: (int(played.deals), int(played.total))} if played.seat is not None else {}


def _seat_json(at: Mapping[str, tuple[int, int]]) -> dict[str, list[int]]:
    return {seat: [n, t] for seat, (n, t) in sorted(at.items())}


def why_kept(info: MatchInfo, user: str) -> str | None:
    """Why ``user`` may not delete the match ``info`` (None: they may): ``"not_yours"``,
    ``"table"`` (a table for people), ``"challenge"`` (a challenge's entry: deleted, it would let
    its person enter again and play its first board once more, knowing the hands) or ``"deals"``
    (it has finished deals); see :meth:`Store.delete_match`."""
    if info.seating.host != user:
        return "not_yours"
    if not info.solo:
        return "table"
    if info.challenge is not None:
        return "challenge"
    if info.deals or info.over:
        return "deals"
    return None


def _seed_column(seed: int) -> int:
    """A 64-bit seed (0 … 2^64 − 1) as the signed 64-bit integer the ``seed`` column holds
    (two's complement: seeds below 2^63 are stored as they are)."""
    return seed - (1 << 64) if seed >= 1 << 63 else seed


def _seed_value(column: int) -> int:
    return column + (1 << 64) if column < 0 else column


#: An event's id (gongzhu.server.events): what a match's ``challenge`` column holds for an event's
#: table, where a challenge's id would be.
EVENT_ID = re.compile(r"e-[0-9a-f]{12}")


def is_event(challenge: str | None) -> bool:
    """Whether a match's ``challenge`` column names an event (its table), not a challenge."""
    return challenge is not None and EVENT_ID.fullmatch(challenge) is not None


def hold(c: Connection, what: str, writer: str) -> None:
    """Hold ``what`` (a name of something to read and then write, one transaction at a time) until
    ``c``'s transaction ends, so that transactions holding the same ``what`` — on one server or on
    several — run one after another.  PostgreSQL: a transaction's advisory lock keyed by ``what``
    (no row lock, which a deal's end, locking its players' rows, could wait on the other way
    round); SQLite: the file's write lock (one writer at a time), taken by a write of the user
    ``writer``'s row that changes nothing."""
    if c.dialect.name == "postgresql":
        key = int.from_bytes(hashlib.blake2b(what.encode(), digest_size=8).digest(), "big", signed=True)
        c.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
    else:
        c.execute(update(USERS).where(USERS.c.id == writer).values(name_skeleton=USERS.c.name_skeleton))


def seated_rows(c: Connection, user_id: str, *, open_tables: bool) -> list[Row[Any, Any, Any]]:
    """The matches whose stored seats hold ``user_id`` (with ``open_tables``: only tables for
    people that are not over), read in ``c``: their ``id``, ``seats`` and ``status``."""
    query = select(MATCHES.c.id, MATCHES.c.seats, MATCHES.c.status).where(
        cast(MATCHES.c.seats, String).contains(f'"{user_id}"', autoescape=True))
    if open_tables:  # (the states named, not "not over": the status's index then finds them)
        query = query.where(MATCHES.c.solo.is_(False), MATCHES.c.status.in_(("waiting", "playing")))
    return [r for r in c.execute(query) if any(s and s.get("user") == user_id for s in r.seats or [])]


def playing_elsewhere(c: Connection, user_id: str, match_id: str) -> str | None:
    """A table for people but ``match_id`` whose match is under way (started, not over) at which
    ``user_id`` sits, read in ``c`` (None: none) — a single-player match's, a challenge's, is none:
    nobody else is ever dealt in there (docs/web-protocol.md, Tables: one table at a time)."""
    found = sorted(r.id for r in seated_rows(c, user_id, open_tables=True)
                   if r.status == "playing" and r.id != match_id)
    return str(found[0]) if found else None


#: The most block relations of one person :meth:`Store.blocks_of` reads: a person blocks at most
#: 500 (gongzhu.server.people.MOST), and few are blocked by more.
BLOCKS_READ = 2000


def friends_among(c: Connection, user: str, others: Sequence[str]) -> set[str]:
    """Which of ``others`` are ``user``'s friends (a request accepted: a row each way), read in
    ``c``'s transaction."""
    return set(c.scalars(select(FRIENDS.c.other_id).where(
        FRIENDS.c.user_id == user, FRIENDS.c.state == "friends", FRIENDS.c.other_id.in_(list(others)))))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _seating(m: Any) -> Seating:
    raw_seats = m["seats"] or [{"user": None, "name": None}] * 4
    seats = tuple((s["user"], s["name"]) if s.get("user") else None for s in raw_seats)
    levels = dict(m["levels"])
    return Seating(
        host=m["host"], seats=seats, levels={s: levels.get(s, "intermediate") for s in "NESW"},
        visibility=m["visibility"], invite=m["invite"], turn_seconds=m["turn_seconds"],
        expose_seconds=m["expose_seconds"], status=m["status"], version=int(m["version"]),
        auto=tuple(bool(a) for a in (m["auto"] or [False] * 4)),
        timeouts=tuple(int(t) for t in (m["timeouts"] or [0] * 4)), deadline=m["deadline"],
        dealt_to=tuple(m["dealt_to"] or [None] * 4), removed=tuple(m["removed"] or ()),
        awaited=tuple(s["user"] for s in raw_seats if s.get("user") and s.get("awaited")),
        dealt_accounts=tuple(m["dealt_accounts"]) if m["dealt_accounts"] is not None else None,
        dealt_people=m["dealt_people"],
        dealt_settled=tuple(m["dealt_settled"]) if m["dealt_settled"] is not None else None,
    )


def _info(row: Row[Any]) -> MatchInfo:
    m = row._mapping
    return MatchInfo(
        match_id=m["id"], created=m["created"], preset=m["preset"], options=dict(m["options"]),
        speed=m["speed"], seed=_seed_value(m["seed"]), totals=list(m["totals"]),
        deals=m["deals"], in_deal=bool(m["in_deal"]), over=bool(m["over"]), winners=list(m["winners"]),
        pigs=list(m["pigs"]), seating=_seating(m), solo=bool(m["solo"]), seeded=bool(m["seeded"]),
        challenge=m["challenge"], accounts_only=bool(m["accounts_only"]),
    )


#: How long (ms) a PostgreSQL statement of the server waits for a lock another connection holds
#: (an operator's open transaction, a stuck client) before it fails, and how long one statement
#: may run at all: the server's one event loop waits for its statements, so neither is unbounded.
#: A migration lifts both for its own transaction (it waits for the other servers' and may be long).
POSTGRES_LOCK_TIMEOUT, POSTGRES_STATEMENT_TIMEOUT = 5_000, 30_000

#: libpq's connection settings for PostgreSQL unless the database URL gives its own: a connection
#: attempt ends after 3 s; an open connection whose server went away is dropped within about
#: 15 s (TCP keepalives from 10 s of quiet, and data unacknowledged for 15 s); a statement waits
#: for a lock at most 5 s and runs at most 30 s (the session's ``lock_timeout`` and
#: ``statement_timeout``).
POSTGRES_CONNECT: dict[str, Any] = {
    "connect_timeout": 3, "keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
    "tcp_user_timeout": 15_000,
    "options": f"-c lock_timeout={POSTGRES_LOCK_TIMEOUT} -c statement_timeout={POSTGRES_STATEMENT_TIMEOUT}"}


def _engine(db_url: str, manual_checkpoints: dict[str, bool]) -> Engine:
    url = make_url(db_url)
    # hide_parameters: an error's text never holds the values of its statement — an action's
    # cards, a password's hash — so logging a failed write gives away nothing (docs/operations.md).
    if url.get_backend_name() != "sqlite":
        # pool_pre_ping: a pooled connection the database dropped (a restart, a failover) is
        # found out and replaced before use, not failed on by the first write after it
        connect_args: dict[str, Any] = {}
        if url.get_backend_name() == "postgresql":
            # a database that cannot be reached is given up after 3 s (POSTGRES_CONNECT), not the
            # system's minutes, and one that vanishes under an open connection is found out by
            # TCP (keepalives; data unacknowledged for 15 s): a request fails with 503, it does
            # not hang; nor does a statement that waits on another connection's lock
            # (docs/operations.md).  The URL's own settings win.
            connect_args = {k: v for k, v in POSTGRES_CONNECT.items() if k not in url.query}
        return create_engine(url, hide_parameters=True, pool_pre_ping=True, connect_args=connect_args)
    memory = url.database in (None, "", ":memory:")
    engine = create_engine(
        url,
        hide_parameters=True,
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
            if manual_checkpoints["on"]:  # a thread of the store's own checkpoints (Checkpoints)
                cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


class _Kept(Exception):
    """Rolls back a deletion whose match changed meanwhile (:meth:`Store.delete_match`)."""


class StaleTable(RuntimeError):
    """A table's change was refused: the table's stored version is not the one its writer
    started from — another server runs the table now (or ran it meanwhile)."""


class DeletedSitter(RuntimeError):
    """A table's change was refused: it seats a person whose account was deleted
    (:meth:`Store.save_table`): a connection of theirs, not closed yet, sat down as the account
    was deleted; nothing was stored."""


class SeatedElsewhere(RuntimeError):
    """A table's change was refused: it deals in (seats at a table under way, or starts one with)
    a person who sits at another table under way, ``match_id`` (:meth:`Store.save_table`); nothing
    was stored."""

    def __init__(self, match_id: str, user_id: str) -> None:
        super().__init__(f"{user_id} sits at table {match_id}, under way")
        self.match_id = match_id
        self.user_id = user_id


def _fenced(c: Connection, match_id: str, expected: int | None, values: Mapping[str, Any]) -> None:
    """Update a table's row; with ``expected``, only while its stored version is that one
    (:class:`StaleTable` otherwise): two servers that both believe they run a table can never
    both store a change, so no action is applied twice."""
    if expected is None:
        c.execute(_UPDATE_MATCH, {"match_key": match_id, **values})
        return
    done = c.execute(_UPDATE_FENCED, {"match_key": match_id, "stored_version": expected, **values})
    if done.rowcount != 1:
        raise StaleTable(f"table {match_id} is no longer at version {expected}: another server runs it")


class Checkpoints:
    """A thread that checkpoints a SQLite file's write-ahead log every :attr:`every` seconds, on
    a connection of its own (``PRAGMA wal_checkpoint(PASSIVE)``: it copies what no reader still
    needs, and neither waits for nor blocks the server's writes)."""

    every = 1.0

    def __init__(self, path: str) -> None:
        import threading

        self._path = path
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gongzhu-sqlite-checkpoints", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import logging
        import sqlite3

        connection = sqlite3.connect(self._path, timeout=30, check_same_thread=False)
        try:
            while not self._stopping.wait(self.every):
                try:
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as e:  # tried again a second later
                    logging.getLogger("gongzhu.server").warning("SQLite checkpoint failed: %s", e)
        finally:
            connection.close()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(10)


#: How long a server keeps opening a SQLite file that other servers opening it at once keep locked.
_OPEN_BUSY_SECONDS = 30.0


def _upgrade(engine: Engine) -> None:
    """:func:`migrations.upgrade`, tried again for up to :data:`_OPEN_BUSY_SECONDS` where a SQLite
    file is reported locked: with servers opening one new file at once, some of SQLite's lock
    conflicts (the switch to WAL, a read that must become a write) are reported at once, not
    waited for as a busy file is.  The migration rolled back; its connections are closed first."""
    give_up = time.monotonic() + _OPEN_BUSY_SECONDS
    for attempt in itertools.count():
        try:
            migrations.upgrade(engine)
            return
        except OperationalError as e:
            locked = engine.url.get_backend_name() == "sqlite" and "database is locked" in str(e)
            if not locked or time.monotonic() >= give_up:
                raise
            engine.dispose()
            time.sleep(min(0.02 * 2 ** attempt, 0.5))


class Store:
    """The repository of matches, deals, actions, users and settings."""

    def __init__(self, db_url: str, *, migrate: bool = True) -> None:
        """Open the database ``db_url``, brought to the newest schema (:func:`migrations.upgrade`;
        :class:`~gongzhu.server.migrations.SchemaError` for a database of a newer gongzhu).  With
        ``migrate`` false (a command that only reads or changes a row) it must be at the newest
        schema already, else :class:`~gongzhu.server.migrations.SchemaError`, nothing changed."""
        self._manual_checkpoints = {"on": False}
        self._checkpoints: Checkpoints | None = None
        self.engine = _engine(db_url, self._manual_checkpoints)
        try:
            if migrate:
                _upgrade(self.engine)
            else:
                with self.engine.connect() as c:
                    where = migrations.not_at_head(c)
                if where is not None:
                    raise migrations.SchemaError(
                        f"the database is {where}: "
                        "start gongzhu serve on it first, or python -m gongzhu.server.migrations upgrade head")
        except BaseException:
            self.engine.dispose()
            raise

    @property
    def in_memory(self) -> bool:
        """A SQLite database in memory: one connection that every user shares, so it is used
        from the event loop only (a thread's read would share the loop's open transaction)."""
        url = self.engine.url
        return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")

    def checkpoint_in_background(self) -> None:
        """For a SQLite file: move the write-ahead log into the database from a thread of its own
        (:class:`Checkpoints`) rather than in the commit that fills it, which would hold the
        server's event loop for the checkpoint's disk flush.  Stopped by :meth:`close`."""
        url = self.engine.url
        if url.get_backend_name() != "sqlite" or self.in_memory or self._checkpoints:
            return
        self._manual_checkpoints["on"] = True
        self.engine.dispose()  # the pool's connections are opened again, without automatic checkpoints
        self._checkpoints = Checkpoints(str(url.database))

    def close(self) -> None:
        if self._checkpoints is not None:
            self._checkpoints.stop()
            self._checkpoints = None
        self.engine.dispose()

    # ------------------------------------------------------------------ matches

    def create_match(self, *, match_id: str, preset: str, options: Mapping[str, Any], speed: str, seed: int,
                     seating: Seating, seeded: bool = False, challenge: str | None = None,
                     accounts_only: bool = False, connection: Connection | None = None) -> MatchInfo:
        """Store a new table and its match.  A table that starts at once with one person seated is
        a single-player match (``solo``): a table for people waits for its host to start it.
        ``seeded``: its host chose the seed; ``challenge``: the challenge whose boards it plays;
        ``accounts_only``: only accounts may sit at it; ``connection``: stored in its transaction
        (else in one of its own)."""
        solo = seating.status == "playing" and sum(s is not None for s in seating.seats) == 1
        info = MatchInfo(
            match_id=match_id, created=_now(), preset=preset, options=dict(options), speed=speed, seed=seed,
            totals=[0, 0, 0, 0], deals=0, in_deal=seating.status != "waiting", over=False, winners=[], pigs=[],
            seating=seating, solo=solo, seeded=seeded, challenge=challenge, accounts_only=accounts_only,
        )
        row = {"id": match_id, "created": info.created, "preset": preset, "options": dict(options),
               "speed": speed, "seed": _seed_column(seed), "totals": [0, 0, 0, 0], "deals": 0,
               "in_deal": info.in_deal, "over": False, "winners": [], "pigs": [], "solo": solo,
               "seeded": seeded, "challenge": challenge, "accounts_only": accounts_only, **seating.columns()}
        if connection is not None:
            connection.execute(insert(MATCHES).values(**row))
            return info
        with self.engine.begin() as c:
            c.execute(insert(MATCHES).values(**row))
        return info

    def match(self, match_id: str) -> MatchInfo | None:
        with self.engine.connect() as c:
            row = c.execute(select(MATCHES).where(MATCHES.c.id == match_id)).first()
            return _info(row) if row is not None else None

    def matches(self, user: str | None = None) -> list[MatchInfo]:
        """Every match, newest first; with ``user``, the matches that person played or sits at."""
        query = select(MATCHES).order_by(MATCHES.c.created.desc(), MATCHES.c.id.desc())
        if user is not None:
            played = select(MATCH_PLAYERS.c.match_id).where(MATCH_PLAYERS.c.user_id == user)
            query = query.where((MATCHES.c.id.in_(played)) | (MATCHES.c.host == user))
        with self.engine.connect() as c:
            return [_info(r) for r in c.execute(query)]

    def newest_solo(self, user: str) -> str | None:
        """The id of the newest single-player match of ``user`` (the one the table page goes on
        with; every older one without a finished deal was left), or None."""
        with self.engine.connect() as c:
            found: str | None = c.scalars(
                select(MATCHES.c.id).where(MATCHES.c.host == user, MATCHES.c.solo.is_(True))
                .order_by(MATCHES.c.created.desc(), MATCHES.c.id.desc()).limit(1)).first()
            return found

    def delete_match(self, match_id: str, user: str) -> str | None:
        """Delete a single-player match of ``user`` that has no finished deal, with its rows in
        every other table (the actions of its deal in progress; it has no deals and no
        ``match_players`` rows), in one transaction.  Returns None once it is deleted, else why
        nothing was: ``"unknown"`` (no such match), ``"not_yours"`` (``user`` is not its person),
        ``"table"`` (a table for people), ``"challenge"`` (a challenge's entry), ``"deals"`` (it
        has finished deals); the checks and the
        deletion are one transaction, so a deal finished meanwhile keeps the match."""
        key = MATCHES.c.id == match_id
        try:
            with self.engine.begin() as c:
                row = c.execute(select(MATCHES).where(key).with_for_update()).first()
                if row is None:
                    return "unknown"
                why = why_kept(_info(row), user)
                if why is not None:
                    return why
                if c.scalar(select(func.count()).select_from(_DEALS).where(_DEALS.c.match_id == match_id)):
                    return "deals"
                for table in (_ACTIONS, _DEALS, MATCH_PLAYERS):
                    c.execute(delete(table).where(table.c.match_id == match_id))
                done = c.execute(delete(MATCHES).where(key, MATCHES.c.host == user, MATCHES.c.solo.is_(True),
                                                        MATCHES.c.deals == 0))
                if done.rowcount != 1:  # changed meanwhile: everything above is rolled back
                    raise _Kept
        except _Kept:
            return "deals"
        return None

    def seated_at(self, user_id: str) -> str | None:
        """A table for people, not over, at which ``user_id`` sits (None: none)."""
        with self.engine.connect() as c:
            rows = seated_rows(c, user_id, open_tables=True)
        return str(rows[0].id) if rows else None

    def playing_at(self, user_id: str, *, besides: str) -> str | None:
        """A table for people but ``besides`` whose match is under way at which ``user_id`` sits
        (None: none; see :func:`playing_elsewhere`)."""
        with self.engine.connect() as c:
            return playing_elsewhere(c, user_id, besides)

    def listed(self) -> list[MatchInfo]:
        """The public tables not over (the lobby), oldest first."""
        with self.engine.connect() as c:
            rows = c.execute(select(MATCHES).where(MATCHES.c.visibility == "public", MATCHES.c.status != "over")
                             .order_by(MATCHES.c.created, MATCHES.c.id))
            return [_info(r) for r in rows]

    def save_table(self, match_id: str, seating: Seating, *, expected: int | None = None, **match: Any) -> None:
        """Store a table's seating (and ``speed``/``in_deal`` when given).  A seating that seats
        anew a person whose account is deleted is refused (:class:`DeletedSitter`): a connection
        of theirs, not closed yet, sat down as the account was deleted (docs/accounts.md).  So is
        one that deals a person in — seats them anew at a table for people under way, or starts
        the table they sit at — while they sit at another table under way
        (:class:`SeatedElsewhere`; docs/web-protocol.md, Tables: one table at a time): checked
        with their rows locked, so two servers seating one person at two tables at once seat them
        at one."""
        seated = {s[0] for s in seating.seats if s is not None}
        people: set[str] = set()
        dealt_in: set[str] = set()
        with self.engine.begin() as c:
            if seated:
                stored = c.execute(select(MATCHES.c.seats, MATCHES.c.status, MATCHES.c.solo)
                                   .where(MATCHES.c.id == match_id)).first()
                before = stored.seats if stored is not None else None
                people = seated - {s.get("user") for s in before or () if s}
                if stored is not None and not stored.solo and seating.status == "playing":
                    dealt_in = seated if stored.status == "waiting" else people
            _fenced(c, match_id, expected, {**seating.columns(), **match})
            if people or dealt_in:
                # Their rows read after the write, locked: a deletion meanwhile waits, or is seen;
                # and a second table dealing one of them in meanwhile (on another server) waits
                # for this one, then finds them here.
                rows = c.execute(select(USERS.c.id, USERS.c.deleted).where(USERS.c.id.in_(sorted(people | dealt_in)))
                                 .with_for_update(read=not dealt_in)).all()
                if any(r.deleted is not None and r.id in people for r in rows):
                    raise DeletedSitter(f"table {match_id}: a person whose account is deleted sat down")
                for user in sorted(dealt_in):
                    elsewhere = playing_elsewhere(c, user, match_id)
                    if elsewhere is not None:
                        raise SeatedElsewhere(elsewhere, user)

    def set_version(self, match_id: str, version: int, *, expected: int | None = None) -> None:
        """Store a table's event version after a change stored no other way (presence, chat)."""
        with self.engine.begin() as c:
            _fenced(c, match_id, expected, {"version": version})

    # ------------------------------------------------------------------ the deal in progress

    def add_action(self, match_id: str, deal_index: int, seq: int, action: Mapping[str, Any],
                   seating: Seating | None = None, *, expected: int | None = None) -> None:
        """Store an action of the deal in progress (and the table's seating, in the same
        transaction)."""
        with self.engine.begin() as c:
            c.execute(_INSERT_ACTION, {"match_id": match_id, "deal_index": deal_index, "seq": seq,
                                       "action": json.dumps(action, separators=(",", ":"))})
            if seating is not None:
                _fenced(c, match_id, expected, seating.columns())

    def actions(self, match_id: str, deal_index: int) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = c.scalars(
                select(_ACTIONS.c.action)
                .where(_ACTIONS.c.match_id == match_id, _ACTIONS.c.deal_index == deal_index)
                .order_by(_ACTIONS.c.seq)
            )
            return [json.loads(a) for a in rows]

    def finish_deal(self, match_id: str, deal_index: int, *, record_line: str, south_final: int,
                    totals: list[int], over: bool, winners: list[str], pigs: list[str],
                    charges: Sequence[Charge] = (), seating: Seating | None = None,
                    expected: int | None = None, ranked: bool = True, rated: Rated | None = None,
                    practice: bool = False, deals: int | None = None,
                    settled: Collection[str] | None = None) -> Counted:
        """Store a finished deal's R11 record and the match's new totals, drop the deal's actions, and
        add each charged person's result to their total of the match (their history) and, when
        the deal is ``ranked``, their final to their lifetime score and deals — to their
        practice score and deals instead for a ``practice`` deal (docs/ratings.md, Practice
        apart) — and their matches; a match ``over`` counts its ``pigs`` (seats) for whoever
        brought those seats lowest, 双猪's top seat highest (:meth:`_charge_pigs`); a ``rated``
        deal moves its people's ratings — all in one transaction.  Returns the charged persons'
        new lifetime scores (none when not ranked: a table whose deal was set in advance; nor
        for practice), and what of their finals they did not count (:meth:`_withheld`) — with
        ``settled``, those settled when the deal was dealt (else those settled now)."""
        now = _now()
        lifetimes: dict[str, int] = {}
        withheld: dict[str, int] = {}
        with self.engine.begin() as c:
            c.execute(insert(_DEALS).values(match_id=match_id, deal_index=deal_index, record=record_line,
                                            south_final=south_final))
            finished = deals if deals is not None else deal_index + 1  # a board's deal_index is its number − 1
            values: dict[str, Any] = {"totals": list(totals), "deals": finished, "in_deal": False,
                                      "over": over, "winners": list(winners), "pigs": list(pigs)}
            if seating is not None:
                values.update(seating.columns())
            _fenced(c, match_id, expected, values)
            c.execute(delete(_ACTIONS).where(_ACTIONS.c.match_id == match_id,
                                             _ACTIONS.c.deal_index == deal_index))
            # A person who deleted their account after leaving the deal keeps their part of the
            # match's history, but no lifetime score, count or rating (their row locked here: a
            # deletion meanwhile waits for this deal).
            people = sorted({ch.user for ch in charges}
                            | ({p for members, _ in rated.sides for p in members} if rated is not None else set()))
            gone = {r.id for r in c.execute(select(USERS.c.id, USERS.c.deleted).where(USERS.c.id.in_(people))
                                            .with_for_update()) if r.deleted is not None} if people else set()
            # Who is settled, and the week's nets, read before any of the deal's counts move: they
            # do not hang on the order of the charges.
            sharing = {p for ch in charges for p in ch.others} if ranked and not practice else set()
            week: dict[tuple[str, str], int] = {}
            written: set[tuple[str, str]] = set()
            counted_today: dict[tuple[str, str], int] = {}
            if sharing:
                settled = settled if settled is not None else self._settled(c, sharing, now)
                week, written = self._week(c, {ch.user for ch in charges}, sharing, now)
            for charge in charges:
                key = (MATCH_PLAYERS.c.match_id == match_id) & (MATCH_PLAYERS.c.user_id == charge.user)
                played = c.execute(select(MATCH_PLAYERS.c.deals, MATCH_PLAYERS.c.total, MATCH_PLAYERS.c.seat,
                                          MATCH_PLAYERS.c.seat_deals).where(key)).first()
                at = _seat_deals(played) if played is not None else {}
                if charge.seat is not None:
                    deals_there, total_there = at.get(charge.seat, (0, 0))
                    at[charge.seat] = (deals_there + 1, total_there + charge.result)
                if played is None:
                    c.execute(insert(MATCH_PLAYERS).values(match_id=match_id, user_id=charge.user, deals=1,
                                                           total=charge.result, pig=False, last=now,
                                                           seat=charge.seat, seat_deals=_seat_json(at)))
                else:
                    c.execute(update(MATCH_PLAYERS).where(key).values(
                        deals=MATCH_PLAYERS.c.deals + 1, total=MATCH_PLAYERS.c.total + charge.result,
                        last=now, seat=charge.seat, seat_deals=_seat_json(at)))
                if not ranked or charge.user in gone:
                    continue
                counts = {"matches": USERS.c.matches + (1 if played is None else 0)}
                if practice:
                    c.execute(update(USERS).where(USERS.c.id == charge.user).values(
                        practice=USERS.c.practice + charge.final, practice_deals=USERS.c.practice_deals + 1,
                        **counts))
                    continue
                kept_back = self._withheld(charge, settled or (), week, counted_today)
                if kept_back:
                    withheld[charge.user] = kept_back
                c.execute(update(USERS).where(USERS.c.id == charge.user).values(
                    lifetime=USERS.c.lifetime + charge.final - kept_back, deals=USERS.c.deals + 1, **counts))
                lifetime = c.scalar(select(USERS.c.lifetime).where(USERS.c.id == charge.user))
                if lifetime is not None:
                    lifetimes[charge.user] = int(lifetime)
            # (a pair with an account deleted since the deal was dealt: counted, and nothing kept)
            counted_today = {pair: n for pair, n in counted_today.items() if pair[1] not in gone}
            if counted_today:
                self._count_week(c, counted_today, written, now)
            if over and pigs:
                self._charge_pigs(c, match_id, pigs, totals, finished, ranked=ranked)
            if rated is not None:
                self._rate(c, rated, match_id, deal_index, now, gone)
        return Counted(lifetimes, withheld)

    def settled(self, users: Collection[str]) -> set[str]:
        """Those of ``users`` settled here now (:meth:`_settled`)."""
        with self.engine.connect() as c:
            return self._settled(c, set(users), _now())

    @staticmethod
    def _settled(c: Connection, users: set[str], now: str) -> set[str]:
        """Those of ``users`` settled here, between whom shares of finals count toward the lifetime
        score (:meth:`_withheld`): accounts with :data:`SETTLED_DEALS` deals counted there, that
        first came :data:`SETTLED_AGE` before ``now`` (as a guest or an account), not deleted."""
        if not users:
            return set()
        came = (datetime.fromisoformat(now) - SETTLED_AGE).isoformat(timespec="microseconds")
        return set(c.scalars(select(USERS.c.id).where(
            USERS.c.id.in_(sorted(users)), USERS.c.guest.is_(False), USERS.c.deleted.is_(None),
            USERS.c.deals >= SETTLED_DEALS, USERS.c.created <= came)))

    @staticmethod
    def _week(c: Connection, users: set[str], others: set[str],
              now: str) -> tuple[dict[tuple[str, str], int], set[tuple[str, str]]]:
        """Forget the days of ``lifetime_won`` older than :data:`WON_WITHIN`, then read what each of
        ``users`` counted with each of ``others`` within it, net (by the pair), and which pairs
        have a row today."""
        w = LIFETIME_WON.c
        c.execute(delete(LIFETIME_WON).where(w.day <= (datetime.fromisoformat(now) - WON_WITHIN).date().isoformat()))
        week: dict[tuple[str, str], int] = {}
        today: set[tuple[str, str]] = set()
        for r in c.execute(select(w.user_id, w.other_id, w.day, w.won)
                           .where(w.user_id.in_(sorted(users)), w.other_id.in_(sorted(others)))):
            pair = (r.user_id, r.other_id)
            week[pair] = week.get(pair, 0) + int(r.won)
            if r.day == now[:10]:
                today.add(pair)
        return week, today

    @staticmethod
    def _withheld(charge: Charge, settled: Collection[str], week: Mapping[tuple[str, str], int],
                  counted: dict[tuple[str, str], int]) -> int:
        """How much of ``charge.final`` its lifetime score does not count (a loss not counted is
        negative).  The final is shared out equally among ``charge.others`` (the remainder of the
        division a point each to the first of them); a share counts only between two accounts both
        ``settled`` — win or loss, else nothing — and then but for a win beyond what keeps the net
        counted with the other within :data:`WON_WITHIN` (``week``, by the pair) at most
        :data:`WON_FROM_ONE`.  What it counts with each is added to ``counted``, by the pair."""
        others = sorted(set(charge.others) - {charge.user})
        if not others:
            return 0
        base, extra = divmod(abs(charge.final), len(others))
        sign = 1 if charge.final >= 0 else -1
        withheld = 0
        for i, other in enumerate(others):
            share = sign * (base + (1 if i < extra else 0))
            if other not in settled or charge.user not in settled:
                withheld += share
                continue
            pair = (charge.user, other)
            counts = min(share, max(0, WON_FROM_ONE - week.get(pair, 0))) if share > 0 else share
            withheld += share - counts
            if counts:
                counted[pair] = counted.get(pair, 0) + counts
        return withheld

    @staticmethod
    def _count_week(c: Connection, counted: Mapping[tuple[str, str], int], written: set[tuple[str, str]],
                    now: str) -> None:
        """Add what each pair counted to its row of today in ``lifetime_won`` (``written``: the
        pairs that have one)."""
        w = LIFETIME_WON.c
        today = now[:10]
        rows = [{"u": u, "o": o, "d": today, "n": n} for (u, o), n in sorted(counted.items())]
        kept = [r for r in rows if (r["u"], r["o"]) in written]
        if kept:
            c.execute(update(LIFETIME_WON).where(w.user_id == bindparam("u"), w.other_id == bindparam("o"),
                                                 w.day == bindparam("d")).values(won=w.won + bindparam("n")), kept)
        new = [{"user_id": r["u"], "other_id": r["o"], "day": today, "won": r["n"]} for r in rows
               if (r["u"], r["o"]) not in written]
        if new:
            c.execute(insert(LIFETIME_WON), new)

    @staticmethod
    def _charge_pigs(c: Connection, match_id: str, pigs: Sequence[str], totals: Sequence[int], deals: int, *,
                     ranked: bool) -> None:
        """The match over ended with the seats ``pigs`` as its pigs (``totals`` the seats' totals
        after ``deals`` deals): each is charged to whoever brought that seat lowest — the person
        whose results there add up to the least of all who played it, the computer that played
        it when nobody sat there counting as one of them (itself charged to nobody; each of them
        on a tie) — not to whoever was dealt the last deal, which standing up or moving to
        another seat before it would hand to a stand-in or a computer; nor to someone who
        played it once, the computer the rest.  A pig for the highest total (R8, ``double_pig``) is
        whoever brought its seat highest.  In their part of the match and, ``ranked``, their pig
        count (an account deleted since keeps none)."""
        played = {r.user_id: _seat_deals(r) for r in c.execute(
            select(MATCH_PLAYERS.c.user_id, MATCH_PLAYERS.c.deals, MATCH_PLAYERS.c.total, MATCH_PLAYERS.c.seat,
                   MATCH_PLAYERS.c.seat_deals).where(MATCH_PLAYERS.c.match_id == match_id))}
        charged: set[str] = set()
        for seat in pigs:
            people = {user: at[seat] for user, at in played.items() if at.get(seat, (0, 0))[0] > 0}
            computer = (deals - sum(n for n, _ in people.values()),
                        totals[Seat[seat]] - sum(t for _, t in people.values()))
            sums = [t for _, t in people.values()] + ([computer[1]] if computer[0] > 0 else [])
            highest = totals[Seat[seat]] == max(totals) != min(totals)  # a double pig's top seat
            mark = (max if highest else min)(sums, default=None)
            charged |= {user for user, (_, total) in people.items() if total == mark}
        if not charged:
            return
        c.execute(update(MATCH_PLAYERS).where(MATCH_PLAYERS.c.match_id == match_id,
                                              MATCH_PLAYERS.c.user_id.in_(sorted(charged))).values(pig=True))
        if ranked:
            c.execute(update(USERS).where(USERS.c.id.in_(sorted(charged)), USERS.c.deleted.is_(None))
                      .values(pigs=USERS.c.pigs + 1))

    # ------------------------------------------------------------------ ratings

    @staticmethod
    def _rate(c: Connection, rated: Rated, match_id: str, deal_index: int, now: str,
              gone: Collection[str] = ()) -> None:
        """Move the ratings of a rated deal's people (their rows locked for the transaction on
        PostgreSQL: a person finishing deals at two tables at once is rated after both); of the
        ``gone`` (accounts deleted) nothing is written."""
        people = [p for members, _ in rated.sides for p in members]
        # The people's own rows first: two transactions rating a person never rated before both
        # find no rating row to lock, and would both insert one.
        c.execute(select(USERS.c.id).where(USERS.c.id.in_(people)).with_for_update()).all()
        rows = c.execute(select(RATINGS).where(RATINGS.c.family == rated.family, RATINGS.c.user_id.in_(people))
                         .with_for_update()).all()
        before = {r.user_id: Skill(r.mu, r.sigma, r.games) for r in rows}
        after = rate_deal(before, [(list(members), result) for members, result in rated.sides])
        for person, skill in after.items():
            if person in gone:
                continue
            values = {"mu": skill.mu, "sigma": skill.sigma, "games": skill.games, "updated": now}
            if person in before:
                c.execute(update(RATINGS).where(RATINGS.c.user_id == person, RATINGS.c.family == rated.family)
                          .values(**values))
            else:
                c.execute(insert(RATINGS).values(user_id=person, family=rated.family, **values))
            c.execute(insert(RATING_HISTORY).values(user_id=person, family=rated.family, games=skill.games,
                                                    mu=skill.mu, sigma=skill.sigma, at=now, match_id=match_id,
                                                    deal_index=deal_index))

    def ratings(self, people: Sequence[str], family: str | None = None) -> dict[str, dict[str, Skill]]:
        """The ratings of ``people``: person → family → skill (only the families they were rated
        in; with ``family``, that one alone)."""
        if not people:
            return {}
        query = select(RATINGS).where(RATINGS.c.user_id.in_(list(people)))
        if family is not None:
            query = query.where(RATINGS.c.family == family)
        out: dict[str, dict[str, Skill]] = {}
        with self.engine.connect() as c:
            for r in c.execute(query):
                out.setdefault(r.user_id, {})[r.family] = Skill(r.mu, r.sigma, r.games)
        return out

    def rating_history(self, user_id: str, limit: int = 500) -> dict[str, list[tuple[str, Skill]]]:
        """A person's rating after each of their newest ``limit`` rated deals, per family, oldest
        first: (when, skill)."""
        query = (select(RATING_HISTORY).where(RATING_HISTORY.c.user_id == user_id)
                 .order_by(RATING_HISTORY.c.family, RATING_HISTORY.c.games.desc()))
        out: dict[str, list[tuple[str, Skill]]] = {}
        with self.engine.connect() as c:
            for r in c.execute(query):
                points = out.setdefault(r.family, [])
                if len(points) < limit:
                    points.append((r.at, Skill(r.mu, r.sigma, r.games)))
        return {family: points[::-1] for family, points in out.items()}

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

    # ------------------------------------------------------------------ challenges

    def create_challenge(self, row: Mapping[str, Any]) -> bool:
        """Store a new challenge (the columns of ``challenges``); False when one of that id exists
        already (another server made today's first)."""
        with self.engine.begin() as c:
            if c.execute(select(CHALLENGES.c.id).where(CHALLENGES.c.id == row["id"])).first() is not None:
                return False
            c.execute(insert(CHALLENGES).values(**row))
        return True

    def challenge(self, challenge_id: str) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            row = c.execute(select(CHALLENGES).where(CHALLENGES.c.id == challenge_id)).first()
            return dict(row._mapping) if row is not None else None

    def challenges(self, *, limit: int = 60, user: str | None = None) -> list[dict[str, Any]]:
        """The newest challenges first: every daily one and, with ``user``, the private ones they
        made or entered."""
        query = select(CHALLENGES).order_by(CHALLENGES.c.created.desc()).limit(limit)
        entered = select(MATCHES.c.challenge).where(MATCHES.c.host == user, MATCHES.c.challenge.is_not(None))
        query = query.where((CHALLENGES.c.kind == "daily") | (CHALLENGES.c.host == user)
                            | CHALLENGES.c.id.in_(entered))
        with self.engine.connect() as c:
            return [dict(r._mapping) for r in c.execute(query)]

    def challenges_to_rate(self, now: str) -> list[str]:
        """The daily challenges closed by ``now`` whose boards have not moved ratings yet."""
        with self.engine.connect() as c:
            return list(c.scalars(select(CHALLENGES.c.id).where(
                CHALLENGES.c.kind == "daily", CHALLENGES.c.closes <= now, CHALLENGES.c.rated.is_(False))
                .order_by(CHALLENGES.c.closes)))

    def rate_challenge(self, challenge_id: str, boards: Mapping[int, Rated]) -> bool:
        """Move the ratings of a closed challenge's entrants, board by board (``boards``: board
        number → its entrants and their results), and mark it rated, in one transaction; False
        (nothing done) when it was rated already."""
        now = _now()
        with self.engine.begin() as c:
            done = c.execute(update(CHALLENGES).where(CHALLENGES.c.id == challenge_id, CHALLENGES.c.rated.is_(False))
                             .values(rated=True)).rowcount
            if not done:
                return False
            for number in sorted(boards):
                self._rate(c, boards[number], challenge_id, number - 1, now)
        return True

    def set_par(self, challenge_id: str, par: Sequence[float | None]) -> None:
        with self.engine.begin() as c:
            c.execute(update(CHALLENGES).where(CHALLENGES.c.id == challenge_id).values(par=list(par)))

    def challenge_match(self, challenge_id: str, user: str) -> str | None:
        """The match in which ``user`` plays the challenge (None: not entered)."""
        with self.engine.connect() as c:
            found: str | None = c.scalars(select(MATCHES.c.id).where(
                MATCHES.c.challenge == challenge_id, MATCHES.c.host == user)
                .order_by(MATCHES.c.created).limit(1)).first()
            return found

    def linked(self, user: str, others: Collection[str]) -> bool:
        """Whether ``user`` is linked to one of ``others`` (:meth:`linked_to`)."""
        return bool(self.linked_to(user, others))

    def linked_to(self, user: str, others: Collection[str]) -> set[str]:
        """Those of ``others`` that ``user`` is linked to: sharing a mark with them
        (:meth:`_marks`) — a second account of one person, or two people of one household, who
        could see each other's cards."""
        if not others:
            return set()
        marks = self._marks([user, *others])
        mine = marks.get(user, {}).keys()
        return {other for other in others if other != user and marks.get(other, {}).keys() & mine}

    def people_apart(self, users: Sequence[str]) -> int:
        """How many people ``users`` are, those linked to one another (:meth:`linked_to`, and so
        on along the links) counted as one: two reads, whatever their number."""
        return len(self.people_of(users))

    def people_of(self, users: Sequence[str], *, networks: bool = True) -> list[set[str]]:
        """``users`` grouped into people: those linked to one another (:meth:`linked_to`, and so
        on along the links) in one group, each other alone (:meth:`people_apart` counts them);
        without ``networks``, by the browsers they share alone."""
        if len(users) < 2:
            return [{u} for u in set(users)]
        group = {u: u for u in users}

        def root(u: str) -> str:
            while group[u] != u:
                u = group[u]
            return u

        first: dict[str, str] = {}  # each browser or network: the first of them seen with it
        for user, marks in self._marks(users, networks=networks).items():
            for mark in marks:
                if mark in first:
                    group[root(user)] = root(first[mark])
                else:
                    first[mark] = user
        people: dict[str, set[str]] = {}
        for u in users:
            people.setdefault(root(u), set()).add(u)
        return list(people.values())

    def link_makers(self, users: Sequence[str]) -> set[str]:
        """Of ``users``, those who made a link by a browser to another of them: signed in from a
        browser another of them was signed in from before (:meth:`_marks`, without networks —
        a network is anyone's to reach, whoever came to it first).  Of sign-ins of one moment,
        or from before that was kept, none is later: nobody made the link."""
        holders: dict[str, dict[str, str]] = {}
        for user, marks in self._marks(users, networks=False).items():
            for mark, since in marks.items():
                holders.setdefault(mark, {})[user] = since
        return {user for held in holders.values() if len(held) > 1
                for user, since in held.items() if since > min(held.values())}

    def _marks(self, users: Sequence[str], *, networks: bool = True) -> dict[str, dict[str, str]]:
        """What links each of ``users`` to others, in two reads: the browsers they were signed in
        from (``known_devices``), each with since when it links them ("": from before that was
        kept), and (with ``networks``) the networks their table pages came from within
        :data:`NETWORK_KEPT` (``user_networks``, marked apart from browsers; since: "")."""
        wanted = sorted(set(users))
        kept = (datetime.now(UTC) - NETWORK_KEPT).isoformat(timespec="microseconds")
        marks: dict[str, dict[str, str]] = {}
        with self.engine.connect() as c:
            for user, device, since in c.execute(
                    select(KNOWN_DEVICES.c.user_id, KNOWN_DEVICES.c.device, KNOWN_DEVICES.c.since)
                    .where(KNOWN_DEVICES.c.user_id.in_(wanted))):
                marks.setdefault(user, {})[device] = since or ""
            if not networks:
                return marks
            for user, network in c.execute(select(USER_NETWORKS.c.user_id, USER_NETWORKS.c.network).where(
                    USER_NETWORKS.c.user_id.in_(wanted), USER_NETWORKS.c.last_seen >= kept)):
                marks.setdefault(user, {})["n:" + network] = ""
        return marks

    def entered_as_others(self, challenge_id: str, devices: Sequence[str], user: str) -> bool:
        """Whether any of the browsers ``devices`` (digests) entered the challenge as someone other
        than ``user``, or is a browser an account that entered it as someone other was signed in
        from (before its entry or since)."""
        wanted = list(devices)
        with self.engine.connect() as c:
            if c.scalar(select(CHALLENGE_DEVICES.c.user_id).where(
                    CHALLENGE_DEVICES.c.challenge_id == challenge_id, CHALLENGE_DEVICES.c.device.in_(wanted),
                    CHALLENGE_DEVICES.c.user_id != user).limit(1)) is not None:
                return True
            others = select(CHALLENGE_ENTRIES.c.user_id).where(CHALLENGE_ENTRIES.c.challenge_id == challenge_id,
                                                               CHALLENGE_ENTRIES.c.user_id != user)
            return c.scalar(select(KNOWN_DEVICES.c.user_id).where(
                KNOWN_DEVICES.c.device.in_(wanted), KNOWN_DEVICES.c.user_id.in_(others)).limit(1)) is not None

    def entered_from(self, challenge_id: str, devices: Sequence[str], user: str) -> None:
        """``user`` entered the challenge from the first of the browsers ``devices`` (digests),
        the others those the account was signed in from: each is kept as one that entered it as
        ``user`` (deleting the account later does not free them)."""
        for device in dict.fromkeys(devices):
            try:
                with self.engine.begin() as c:
                    if c.scalar(select(CHALLENGE_DEVICES.c.entered).where(
                            CHALLENGE_DEVICES.c.challenge_id == challenge_id, CHALLENGE_DEVICES.c.device == device,
                            CHALLENGE_DEVICES.c.user_id == user)) is None:
                        c.execute(insert(CHALLENGE_DEVICES).values(challenge_id=challenge_id, device=device,
                                                                   user_id=user, entered=_now()))
            except IntegrityError:  # kept by another request of theirs at that moment
                pass

    def add_entry(self, challenge_id: str, user: str, match_id: str) -> None:
        """``user`` entered the challenge, playing it in the match ``match_id``: a guest's entry if
        they are a guest now (the first entry only; entering again comes back to it)."""
        with contextlib.suppress(IntegrityError), self.engine.begin() as c:  # (kept by another request of theirs)
            e = CHALLENGE_ENTRIES.c
            if c.scalar(select(e.match_id).where(e.challenge_id == challenge_id, e.user_id == user)) is None:
                guest = c.scalar(select(USERS.c.guest).where(USERS.c.id == user))
                c.execute(insert(CHALLENGE_ENTRIES).values(challenge_id=challenge_id, user_id=user, match_id=match_id,
                                                           guest=bool(guest), entered=_now()))

    def entries(self, challenge_id: str) -> list[tuple[str, str, bool, str, int]]:
        """Every entrant of a challenge, as (user id, name, guest, match id, boards dealt): whether
        they entered it as a guest, and how many of its boards their match dealt them (finished,
        or in progress)."""
        e = CHALLENGE_ENTRIES.c
        query = (select(e.user_id, USERS.c.name, e.guest, e.match_id, MATCHES.c.deals, MATCHES.c.in_deal)
                 .join(USERS, USERS.c.id == e.user_id).join(MATCHES, MATCHES.c.id == e.match_id, isouter=True)
                 .where(e.challenge_id == challenge_id).order_by(e.entered, e.user_id))
        with self.engine.connect() as c:
            return [(user, name, bool(guest), match_id, int(deals or 0) + (1 if in_deal else 0))
                    for user, name, guest, match_id, deals, in_deal in c.execute(query)]

    def add_result(self, challenge_id: str, board: int, user: str, *, match_id: str, deal_index: int,
                   result: int) -> None:
        """Keep an entrant's result on a board (the first one only: a board is played once)."""
        with self.engine.begin() as c:
            key = ((CHALLENGE_RESULTS.c.challenge_id == challenge_id) & (CHALLENGE_RESULTS.c.board == board)
                   & (CHALLENGE_RESULTS.c.user_id == user))
            if c.execute(select(CHALLENGE_RESULTS.c.result).where(key)).first() is None:
                guest = c.scalar(select(USERS.c.guest).where(USERS.c.id == user))
                c.execute(insert(CHALLENGE_RESULTS).values(
                    challenge_id=challenge_id, board=board, user_id=user, match_id=match_id,
                    deal_index=deal_index, result=result, finished=_now(), guest=bool(guest)))

    def results(self, challenge_id: str, *, board: int | None = None) -> list[tuple[Any, ...]]:
        """Every result of a challenge (of one board with ``board``), as (board, user id, result,
        match id, deal index, name, guest): its entrant's name and whether they are a guest, or
        played it as one."""
        r = CHALLENGE_RESULTS.c
        query = (select(r.board, r.user_id, r.result, r.match_id, r.deal_index, USERS.c.name,
                        or_(USERS.c.guest, r.guest))
                 .join(USERS, USERS.c.id == CHALLENGE_RESULTS.c.user_id)
                 .where(CHALLENGE_RESULTS.c.challenge_id == challenge_id)
                 .order_by(CHALLENGE_RESULTS.c.board, CHALLENGE_RESULTS.c.finished))
        if board is not None:
            query = query.where(CHALLENGE_RESULTS.c.board == board)
        with self.engine.connect() as c:
            return [tuple(row) for row in c.execute(query)]

    def result_count(self, challenge_id: str) -> int:
        """How many results a challenge has (they are only ever added)."""
        with self.engine.connect() as c:
            return int(c.scalar(select(func.count()).select_from(CHALLENGE_RESULTS)
                                .where(CHALLENGE_RESULTS.c.challenge_id == challenge_id)) or 0)

    def entrant_counts(self, challenge_ids: Sequence[str]) -> dict[str, int]:
        """How many people (guests too) finished a board of each of these challenges."""
        if not challenge_ids:
            return {}
        r = CHALLENGE_RESULTS.c
        with self.engine.connect() as c:
            rows = c.execute(select(r.challenge_id, func.count(func.distinct(r.user_id)))
                             .where(r.challenge_id.in_(list(challenge_ids))).group_by(r.challenge_id))
            return {row[0]: int(row[1]) for row in rows}

    def boards_finished(self, challenge_id: str, user: str) -> set[int]:
        """The boards of a challenge ``user`` finished."""
        with self.engine.connect() as c:
            return set(c.scalars(select(CHALLENGE_RESULTS.c.board).where(
                CHALLENGE_RESULTS.c.challenge_id == challenge_id, CHALLENGE_RESULTS.c.user_id == user)))

    def challenges_played(self, user: str) -> list[tuple[str, int]]:
        """The challenges ``user`` finished a board of, with how many boards."""
        with self.engine.connect() as c:
            rows = c.execute(select(CHALLENGE_RESULTS.c.challenge_id, func.count())
                             .where(CHALLENGE_RESULTS.c.user_id == user)
                             .group_by(CHALLENGE_RESULTS.c.challenge_id))
            return [(r[0], int(r[1])) for r in rows]

    # ------------------------------------------------------------------ people

    def people(self, ids: list[str]) -> dict[str, tuple[str, int]]:
        """The name and lifetime score of each of these users that exists."""
        if not ids:
            return {}
        with self.engine.connect() as c:
            rows = c.execute(select(USERS.c.id, USERS.c.name, USERS.c.lifetime).where(USERS.c.id.in_(ids)))
            return {r.id: (r.name, int(r.lifetime)) for r in rows}

    def blocks_of(self, user: str) -> set[str]:
        """Everyone ``user`` blocked, and everyone who blocked ``user`` (at most :data:`BLOCKS_READ`
        of them)."""
        with self.engine.connect() as c:
            rows = c.execute(select(BLOCKS.c.user_id, BLOCKS.c.blocked_id).where(
                (BLOCKS.c.user_id == user) | (BLOCKS.c.blocked_id == user)).limit(BLOCKS_READ)).all()
        return {other for row in rows for other in row if other != user}

    def blocked_among(self, user: str, others: Sequence[str]) -> bool:
        """Whether ``user`` blocked any of ``others``, or any of them blocked ``user``."""
        others = [o for o in others if o != user]
        if not others:
            return False
        with self.engine.connect() as c:
            found = c.execute(select(BLOCKS.c.user_id).where(
                ((BLOCKS.c.user_id == user) & BLOCKS.c.blocked_id.in_(others))
                | ((BLOCKS.c.blocked_id == user) & BLOCKS.c.user_id.in_(others))).limit(1)).first()
        return found is not None

    def accounts(self, ids: Sequence[str], *, deleted: bool = False) -> set[str]:
        """Which of these users are accounts (have a password; not guests); with ``deleted``, an
        account deleted since counts as the account it was (a deal dealt to it before)."""
        if not ids:
            return set()
        account = USERS.c.password_hash.is_not(None)
        known = or_(account, USERS.c.deleted.is_not(None)) if deleted else account
        with self.engine.connect() as c:
            return set(c.scalars(select(USERS.c.id).where(USERS.c.id.in_(list(ids)), known)))

    def players(self, match_ids: Sequence[str]) -> dict[str, list[tuple[str, str, str | None]]]:
        """Who played each of these matches (a finished deal counted for them): their user id,
        name and the seat of their last deal there (None where an older server did not know it),
        the person whose last deal came first listed first."""
        found: dict[str, list[tuple[str, str, str | None]]] = {}
        ids = list(match_ids)
        with self.engine.connect() as c:
            for start in range(0, len(ids), 500):  # a bounded number of bound values a query
                rows = c.execute(
                    select(MATCH_PLAYERS.c.match_id, MATCH_PLAYERS.c.user_id, USERS.c.name, MATCH_PLAYERS.c.seat)
                    .join(USERS, USERS.c.id == MATCH_PLAYERS.c.user_id)
                    .where(MATCH_PLAYERS.c.match_id.in_(ids[start:start + 500]))
                    .order_by(MATCH_PLAYERS.c.last, MATCH_PLAYERS.c.user_id))
                for r in rows:
                    found.setdefault(r.match_id, []).append((r.user_id, r.name, r.seat))
        return found
