"""A person's accuracy across many reviewed deals (``docs/review.md``, Across many deals), on the
store's table ``reviews``.

When a review (:mod:`gongzhu.server.reviews`) of a seat finishes, whoever asked for it, and an
account played that seat, the review is kept for that account — once per account and deal: per
kind of decision (:func:`decision_kind`: a lead, a play following the led suit, a discard, the
declaration of exposures) the decisions with a choice, the sum of their losses, the marks ??, ?
and ?! and how many were uncertain, the deal's result, luck and skill, and the review itself,
which the review routes then answer again after the server has let it go or restarted.

- ``GET /api/profile/accuracy``: the caller's accuracy — reviewed deals, per kind the mean loss
  per decision and the share of ?? and ?, the same over groups of deals oldest first (the
  profile's graph), and the progress of the reviews they asked for below;
- ``POST /api/profile/accuracy/review-last`` ``{"count": N}`` (N of :data:`COUNTS`): the newest N
  finished deals of the caller not reviewed yet are queued for review in the reviews' own line,
  as many as it has room for (:data:`~gongzhu.server.reviews.WAITING` waiting at most) and the
  person's (and their address's) share of it.  A body that is not ``{"count": N}`` is refused
  with a catalog message, after the session is checked.

Accuracy is the account's own: only the person signed in to it reads it (a guest, who keeps no
name, is refused with a catalog message).  Which seat of a deal a person played is read from the
deal's record (the name each seat was dealt to, R11 ``players``) against the match's people and
the names they had; where the record's name is not one of theirs (a guest who signed up since),
from the seat of their last deal there; in a single-player match, South is its person.  The
progress of the asked reviews is kept in memory (per server).

Imports the catalog, :mod:`gongzhu.jsontext`, the rules core's seats, :mod:`gongzhu.review` (for
its format, on the first review read back) and, of the server, the bodies, the policy (the body's
bound, client addresses), the wire, the store, the identity and the reviews; SQLAlchemy and
Starlette.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, and_, insert, select
from sqlalchemy.exc import DBAPIError, IntegrityError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.rules.cards import Seat
from gongzhu.server.bodies import PERSON, BodyError, json_body
from gongzhu.server.identity import AccountError, Identity, User
from gongzhu.server.policy import MAX_BODY_BYTES, counted_address
from gongzhu.server.reviews import PER_PERSON, Asker, Key, ReviewJob, ReviewRefused, Reviews
from gongzhu.server.store import MATCH_PLAYERS, REVIEW_COUNTS, REVIEW_KINDS, REVIEWS, USERS, MatchInfo, Store
from gongzhu.server.wire import personal_answer

__all__ = ["COUNTS", "GROUP", "MARK_COUNTS", "MOST_POINTS", "Accuracy", "Player", "aggregate", "decision_kind",
           "routes", "seats_of", "summary"]

log = logging.getLogger("gongzhu.server")

#: How many of the newest deals ``review-last`` may be asked to review.
COUNTS = (5, 10, 20)
#: The fewest reviewed deals a point of the profile's graph stands for …
GROUP = 5
#: … and the most points the graph has (past ``GROUP * MOST_POINTS`` deals, each point stands for more).
MOST_POINTS = 24
#: The column of each mark's count.
MARK_COUNTS = {"??": "blunders", "?": "mistakes", "?!": "inaccuracies"}
#: The people whose asked reviews' progress is kept, at most (the least recently asking go first).
MOST_ASKING = 1000


# ---------------------------------------------------------------------- one review


def decision_kind(decision: Mapping[str, Any], record: Mapping[str, Any]) -> str:
    """The kind of one decision of a review (``gongzhu-review/2``) of the deal ``record`` (R11):
    ``exposure`` (the declaration), ``lead`` (a play that begins its trick), ``follow`` (every
    card of the play is of the led suit) or ``discard`` (a card of another suit: the seat had no
    more of the led suit)."""
    if decision["kind"] == "expose":
        return "exposure"
    if decision["order"] == 0:
        return "lead"
    led = record["tricks"][decision["trick"] - 1]["plays"][0]["cards"][0][-1]  # the suit: a code's last letter
    return "follow" if all(card[-1] == led for card in decision["cards"]) else "discard"


def summary(review: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of ``reviews`` that a review of the deal ``record`` fills (but who, which deal
    and when): per kind, its decisions with a choice (not forced), their losses, marks and
    uncertain marks; the review's format, result, luck and skill."""
    row: dict[str, Any] = {f"{kind}_{count}": 0.0 if count == "loss" else 0
                           for kind in REVIEW_KINDS for count in REVIEW_COUNTS}
    for decision in review["decisions"]:
        if decision["forced"]:
            continue
        kind = decision_kind(decision, record)
        row[f"{kind}_decisions"] += 1
        row[f"{kind}_loss"] += decision["loss"]
        mark = decision["mark"]
        if mark in MARK_COUNTS:
            row[f"{kind}_{MARK_COUNTS[mark]}"] += 1
            row[f"{kind}_uncertain"] += 1 if decision["uncertain"] else 0
    for kind in REVIEW_KINDS:
        row[f"{kind}_loss"] = round(row[f"{kind}_loss"], 1)
    return {**row, "format": review["format"], "result": review["result"], "luck": review["luck"],
            "skill": review["skill"]}


@dataclass(frozen=True, slots=True)
class Player:
    """A person who played in a match: their id, the names they had (now and before), the seat of
    their last deal there (None where an older server did not keep it) and whether they are an
    account (not deleted)."""

    id: str
    names: frozenset[str]
    seat: str | None
    account: bool


def seats_of(record: Mapping[str, Any], info: MatchInfo, players: Sequence[Player]) -> dict[str, str]:
    """Which person played each seat of the deal ``record`` of the match ``info``: seat letter →
    user id, for the seats a person was dealt.  In a single-player match, South is its person;
    otherwise a seat goes to the one player of the match who had the name the record gives it,
    else to the one player left whose last deal there was at that seat."""
    dealt = record.get("players") or {}
    people = {s: p.get("name") for s, p in dealt.items() if isinstance(p, Mapping) and p.get("computer") is None}
    if info.solo:
        host = info.seating.host
        south = PERSON.name
        return {south: host} if host is not None and (not dealt or south in people) else {}
    found: dict[str, str] = {}
    for seat, name in people.items():
        named = [p for p in players if name in p.names]
        if len(named) > 1:
            named = [p for p in named if p.seat == seat]
        if len(named) == 1:
            found[seat] = named[0].id
    for seat in people.keys() - found.keys():
        left = [p for p in players if p.seat == seat and p.id not in found.values()]
        if len(left) == 1:
            found[seat] = left[0].id
    return found


# ---------------------------------------------------------------------- many reviews


def _counts(rows: Iterable[Mapping[str, Any]], kinds: Sequence[str]) -> dict[str, Any]:
    """The counts of ``kinds`` summed over ``rows``: decisions, loss, marks, uncertain, with the
    mean loss per decision and the share of ?? and ? (None without a decision)."""
    sums = {count: 0.0 if count == "loss" else 0 for count in REVIEW_COUNTS}
    for row in rows:
        for kind in kinds:
            for count in REVIEW_COUNTS:
                sums[count] += row[f"{kind}_{count}"]
    n = int(sums["decisions"])
    errors = int(sums["blunders"]) + int(sums["mistakes"])
    return {"decisions": n, "loss": round(sums["loss"], 1),
            "mean_loss": round(sums["loss"] / n, 2) if n else None,
            "error_share": round(errors / n, 4) if n else None,
            **{mark: int(sums[count]) for mark, count in MARK_COUNTS.items()},
            "uncertain": int(sums["uncertain"])}


def _view(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Every kind apart and all together."""
    return {"all": _counts(rows, REVIEW_KINDS), "kinds": {kind: _counts(rows, (kind,)) for kind in REVIEW_KINDS}}


def aggregate(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The accuracy of a person's stored reviews ``rows`` (oldest first): how many, per kind and
    all together, the totals of result, luck and skill, and the groups of the graph — consecutive
    deals, :data:`GROUP` a group or more so that there are at most :data:`MOST_POINTS`, the last
    group the newest (and possibly smaller)."""
    size = max(GROUP, math.ceil(len(rows) / MOST_POINTS))
    groups = [rows[i:i + size] for i in range(0, len(rows), size)]
    return {
        "deals": len(rows),
        **_view(rows),
        "result": round(sum(r["result"] for r in rows), 1),
        "luck": round(sum(r["luck"] for r in rows), 1),
        "skill": round(sum(r["skill"] for r in rows), 1),
        "group": size,
        "groups": [{"first": g[0]["played"], "last": g[-1]["played"], "deals": len(g), **_view(g)} for g in groups],
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Accuracy:
    """The reviews kept for their people, and the reviews they asked for, on ``store`` and the
    server's ``reviews`` (whose :attr:`~Reviews.finished` and :attr:`~Reviews.kept` it takes)."""

    def __init__(self, store: Store, reviews: Reviews) -> None:
        self.store = store
        self.reviews = reviews
        #: Each person's reviews asked for by their last ``review-last``, the latest asking last.
        self.asked: OrderedDict[str, list[Key]] = OrderedDict()
        reviews.finished = self.finished
        reviews.kept = self.kept

    # ------------------------------------------------------------------ keeping

    def players(self, match_id: str) -> list[Player]:
        """The people a finished deal of the match counted for."""
        query = (select(MATCH_PLAYERS.c.user_id, MATCH_PLAYERS.c.seat, USERS.c.name, USERS.c.former_names,
                        USERS.c.password_hash.is_not(None).label("account"), USERS.c.deleted)
                 .join(USERS, USERS.c.id == MATCH_PLAYERS.c.user_id).where(MATCH_PLAYERS.c.match_id == match_id))
        with self.store.engine.connect() as c:
            rows = c.execute(query).all()
        return [Player(r.user_id, frozenset([r.name, *(r.former_names or [])]), r.seat,
                       bool(r.account) and r.deleted is None) for r in rows]

    def finished(self, job: ReviewJob) -> None:
        """A review finished (:attr:`Reviews.finished`): kept for the account that played its seat.
        Never raises: a review is done whether or not it could be kept."""
        try:
            if job.review is not None:
                self.keep(job.match_id, job.deal, job.seat, job.review)
        except Exception:  # the database is away, or a defect: the review itself is done
            log.exception("the review of %s deal %d seat %s was not kept", job.match_id, job.deal, job.seat.name)

    def keep(self, match_id: str, deal: int, seat: Seat, review: Mapping[str, Any]) -> str | None:
        """Keep ``review`` of ``seat`` in the finished deal for the account that played it, unless
        it is kept already; the account's id (None: no account played the seat)."""
        info = self.store.match(match_id)
        line = self.store.record(match_id, deal)
        if info is None or line is None:
            return None
        record = json.loads(line)
        players = self.players(match_id)
        user = seats_of(record, info, players).get(seat.name)
        if user is None or not any(p.id == user and p.account for p in players):
            return None
        key = and_(REVIEWS.c.user_id == user, REVIEWS.c.match_id == match_id, REVIEWS.c.deal_index == deal)
        try:
            with self.store.engine.begin() as c:
                if c.execute(select(REVIEWS.c.seat).where(key)).first() is None:
                    c.execute(insert(REVIEWS).values(
                        user_id=user, match_id=match_id, deal_index=deal, seat=seat.name, played=info.created,
                        reviewed=_now(), review=json.dumps(review, ensure_ascii=False, separators=(",", ":")),
                        **summary(review, record)))
        except IntegrityError:  # kept by another server meanwhile
            pass
        return user

    def kept(self, match_id: str, deal: int, seat: Seat) -> dict[str, Any] | None:
        """The review kept of that seat and deal, in the review format of this server
        (:attr:`Reviews.kept`); None where there is none, or the database is away."""
        from gongzhu.review import REVIEW_FORMAT

        query = (select(REVIEWS.c.review).where(REVIEWS.c.match_id == match_id, REVIEWS.c.deal_index == deal,
                                                REVIEWS.c.seat == seat.name, REVIEWS.c.format == REVIEW_FORMAT)
                 .limit(1))
        try:
            with self.store.engine.connect() as c:
                text = c.scalar(query)
        except DBAPIError as e:
            log.warning("the kept reviews cannot be read: %s", e.__class__.__name__)
            return None
        found: dict[str, Any] | None = json.loads(text) if text is not None else None
        return found

    # ------------------------------------------------------------------ reading

    def rows(self, user_id: str) -> list[Row[Any]]:
        """The person's kept reviews but the reviews themselves, oldest deal first."""
        columns = [c for c in REVIEWS.c if c.name != "review"]
        query = (select(*columns).where(REVIEWS.c.user_id == user_id)
                 .order_by(REVIEWS.c.played, REVIEWS.c.match_id, REVIEWS.c.deal_index))
        with self.store.engine.connect() as c:
            return list(c.execute(query).all())

    def accuracy(self, user_id: str) -> dict[str, Any]:
        """``GET /api/profile/accuracy``: :func:`aggregate` of the person's kept reviews, the
        choices of ``review-last`` and the progress of the reviews they asked for."""
        rows = [dict(r._mapping) for r in self.rows(user_id)]
        return {**aggregate(rows), "counts": list(COUNTS), "reviewing": self.progress(user_id)}

    def progress(self, user_id: str) -> dict[str, Any] | None:
        """How the reviews the person asked for last stand (None: they asked for none here):
        ``asked``, ``done``, ``failed``, ``queued`` and ``running`` (the running one's tasks done
        of its total, or None)."""
        keys = self.asked.get(user_id)
        if keys is None:
            return None
        counts = {"done": 0, "failed": 0, "queued": 0}
        running: dict[str, int | None] | None = None
        for key in keys:
            job = self.reviews.find(*key)
            if job is None or job.status == "failed":  # failed, or let go unfinished (the server stopped)
                counts["failed"] += 1
            elif job.status in ("done", "queued"):
                counts[job.status] += 1
            else:
                running = {"done": job.done, "total": job.total}
        return {"asked": len(keys), **counts, "running": running}

    # ------------------------------------------------------------------ asking

    def unreviewed(self, user_id: str, count: int) -> list[tuple[str, int, Seat, str]]:
        """The person's ``count`` newest finished deals that keep no review for them, newest
        first: match, deal, the seat they played and the deal's record."""
        with self.store.engine.connect() as c:
            kept = {(r.match_id, r.deal_index) for r in c.execute(
                select(REVIEWS.c.match_id, REVIEWS.c.deal_index).where(REVIEWS.c.user_id == user_id))}
        found: list[tuple[str, int, Seat, str]] = []
        for info in self.store.matches(user_id):  # newest first
            if len(found) >= count:
                break
            lines = self.store.records(info.match_id)
            players = self.players(info.match_id) if lines else []
            for line in reversed(lines):
                if len(found) >= count:
                    break
                record = json.loads(line)
                deal = int(record["deal_index"])
                if (info.match_id, deal) in kept:
                    continue
                seat = next((s for s, u in seats_of(record, info, players).items() if u == user_id), None)
                if seat is not None:
                    found.append((info.match_id, deal, Seat[seat], line))
        return found

    def review_last(self, user_id: str, wanted: list[tuple[str, int, Seat, str]],
                    address: str | None = None) -> dict[str, Any]:
        """Queue the reviews of ``wanted``, the person's newest deals not reviewed yet
        (:meth:`unreviewed`), as many as the person's share of the reviews' line
        (:data:`PER_PERSON`), their client ``address``'s share and the line have room for (one
        under way already is followed, not queued again, and one finished while nobody kept it is
        kept now): ``{"queued", "under_way", "left", "code", "params"}`` with the catalog message
        that says how many are in line, and how many did not fit.  Raises :class:`ReviewRefused`
        when the line (or the person's or address's share of it) is full, or the server stopping,
        and nothing could be queued."""
        queued: list[Key] = []
        under_way: list[Key] = []
        kept: list[Key] = []
        refused: ReviewRefused | None = None
        full = False  # the person's share of the line is taken: the rest waits for another press
        share = PER_PERSON
        for match_id, deal, seat, line in wanted:
            job = self.reviews.find(match_id, deal, seat)
            if job is not None and job.status == "done" and job.review is not None:
                self.keep(match_id, deal, seat, job.review)  # reviewed while the person was no account
                kept.append(job.key)
            elif job is not None and job.status in ("queued", "running"):
                under_way.append(job.key)
            elif len(queued) + len(under_way) >= share:
                full = True
                break
            else:
                try:
                    queued.append(self.reviews.start(match_id, deal, seat, line,
                                                     asker=Asker(user_id, address)).key)
                except ReviewRefused as e:
                    refused = e
                    break
        in_line = len(queued) + len(under_way)
        if refused is not None and not in_line:
            raise refused
        if in_line or kept:  # else the progress of the reviews asked before stays
            self.asked[user_id] = queued + under_way + kept
            self.asked.move_to_end(user_id)
            while len(self.asked) > MOST_ASKING:
                self.asked.popitem(last=False)
        left = len(wanted) - in_line - len(kept) if refused is not None or full else 0
        if not in_line:
            text = Text.of("accuracy.nothing_new")
        elif left:
            text = Text.of("accuracy.queued_some", queued=in_line, left=left)
        else:
            text = Text.of("accuracy.queued", queued=in_line)
        return {"queued": len(queued), "under_way": len(under_way), "left": left,
                "message": text.render("en"), "message_zh": text.render("zh"), **text.json}


#: A ``review-last`` body that is no JSON object naming a count (empty, not JSON), and one refused
#: by :func:`json_body` for its size or type: catalog messages, as the other review routes answer.
_BAD_BODY = Text.of("accuracy.bad_body", choices=", ".join(map(str, COUNTS)))
_BODY_REFUSALS = {
    413: Text.of("server.review_body_too_large", limit=MAX_BODY_BYTES),
    415: Text.of("server.review_body_type"),
}


def routes(store: Store, identity: Identity, reviews: Reviews) -> list[Route]:
    """The accuracy routes, on the server's ``store``, ``identity`` and ``reviews`` (whose
    finished reviews are kept from now on)."""
    accuracy = Accuracy(store, reviews)

    def account_of(request: Request) -> User:
        user = identity.user_for(request)
        if user is None or not user.account:
            raise AccountError(403, Text.of("accuracy.accounts_only"))
        return user

    async def get_accuracy(request: Request) -> Response:
        try:
            user = account_of(request)
        except AccountError as e:
            return personal_answer(e.json, status=e.status)
        return personal_answer(accuracy.accuracy(user.id))

    async def review_last(request: Request) -> Response:
        try:
            user = account_of(request)  # who asks first: a guest is refused whatever the body
            try:
                body = await json_body(request)
            except BodyError as e:
                raise AccountError(e.status, _BODY_REFUSALS.get(e.status, _BAD_BODY)) from None
            if body == {}:  # an empty body, or nothing in it
                raise AccountError(400, _BAD_BODY)
            alone = isinstance(body, dict) and set(body) == {"count"}
            count = body["count"] if alone else None
            if type(count) is not int or count not in COUNTS:  # what was sent is named as sent
                raise AccountError(400, Text.of("accuracy.bad_count", count=show(count if alone else body),
                                                choices=", ".join(map(str, COUNTS))))
            # Finding them reads every match of the person's: off the event loop.
            wanted = await asyncio.to_thread(accuracy.unreviewed, user.id, count)
            answer = accuracy.review_last(user.id, wanted, counted_address(request))
        except AccountError as e:
            return personal_answer(e.json, status=e.status)
        except ReviewRefused as e:
            refusal = personal_answer(AccountError(e.status, e.text).json, status=e.status)
            refusal.headers["Retry-After"] = "5"
            return refusal
        return personal_answer({**answer, "reviewing": accuracy.progress(user.id)},
                               status=202 if answer["queued"] or answer["under_way"] else 200)

    return [
        Route("/api/profile/accuracy", get_accuracy),
        Route("/api/profile/accuracy/review-last", review_last, methods=["POST"]),
    ]
