"""The what-if board of a finished deal on the server: ``POST
/api/matches/{id}/deals/{k}/whatif`` with ``{"seat": "S", "line": ["2C", …]}`` answers the
position after the line and the expert's answers for the other seats, and the value of each
legal play of the seat (:mod:`gongzhu.review.whatif`; docs/review.md, What if;
docs/web-protocol.md, What if).

The answer shows every hand, so it follows the access rule of the deal's record
(``GET /api/matches/{id}/deals/{k}``): only a finished deal, and a challenge's board only to whom
it is open.  The work runs in a thread of its own, off the event loop (the solver and the
playouts release the interpreter's lock); a few run at once, a bounded line waits, each
person has one at a time and each client address a few (so that a new guest for each request
is no way around the person's one).  Every refusal is a catalog message and changes nothing (an
answered request makes its caller a person, as every ``POST`` does; a refused one does not).

Imports :mod:`gongzhu.review.whatif` (on the first request: the server starts without the
search), the bodies, the wire, the identity, the store's match summary, the challenges, the
reviews' daemon threads, :mod:`gongzhu.messages`, :mod:`gongzhu.jsontext` and the rules core's seats.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.rules.cards import Seat
from gongzhu.server.bodies import BodyError, json_body
from gongzhu.server.challenges import Challenges
from gongzhu.server.identity import GuestsRefused, Identity
from gongzhu.server.policy import MAX_BODY_BYTES, counted_address
from gongzhu.server.reviews import in_daemon_thread
from gongzhu.server.store import MatchInfo, Store
from gongzhu.server.wire import personal_answer, refused_answer

if TYPE_CHECKING:
    from gongzhu.review.whatif import WhatIfBudget

__all__ = ["AT_ONCE", "PATH", "PER_ADDRESS", "WAITING", "WhatIfRefused", "WhatIfRoute", "WhatIfs", "routes"]

log = logging.getLogger("gongzhu.server")

#: The route's path.
PATH = "/api/matches/{match_id}/deals/{k}/whatif"
#: What-ifs worked out at the same time, for everyone together.
AT_ONCE = 2
#: What-ifs waiting for their turn, at most; past that a new one is refused until some finish.
WAITING = 16
#: What-ifs asked from one client address (:func:`~gongzhu.server.policy.counted_address`) and not
#: yet answered, at most: a few people behind one address each have theirs, and one client making
#: a new guest for each request holds no more than these of the line.
PER_ADDRESS = 4
#: The seats a what-if may be of, by their letters.
SEATS = ("N", "E", "S", "W")
#: A deal number in a URL, as the deal record's route reads it.
_DEAL_NUMBER = re.compile(r"[0-9]{1,6}")


class WhatIfRefused(Exception):
    """A what-if refused: the HTTP status, the catalog message, and the rules' own refusal of
    an illegal play in the line (if that was it)."""

    def __init__(self, status: int, text: Text, reason: Text | None = None) -> None:
        super().__init__(text.render("en"))
        self.status = status
        self.text = text
        self.reason = reason


#: A body refused by :func:`json_body`, by its status (else ``whatif.bad_body``).
_BODY_REFUSALS = {
    413: Text.of("whatif.body_too_large", limit=MAX_BODY_BYTES),
    415: Text.of("whatif.body_type"),
}


def parse_body(body: object) -> tuple[Seat, list[Any]]:
    """The seat and the line of a body ``{"seat": "S", "line": [...]}`` (no other key); the
    line's plays are read by :func:`gongzhu.review.whatif.parse_line`."""
    if not isinstance(body, dict) or set(body) != {"seat", "line"}:
        raise WhatIfRefused(400, Text.of("whatif.bad_body"))
    seat = body["seat"]
    if not (isinstance(seat, str) and seat in SEATS):
        raise WhatIfRefused(400, Text.of("whatif.bad_seat", seat=show(seat)))
    line = body["line"]
    if not isinstance(line, list):
        raise WhatIfRefused(400, Text.of("whatif.bad_body"))
    return Seat[seat], line


class WhatIfs:
    """The what-ifs of one server: at most ``at_once`` worked out together, ``waiting`` more in
    line, one per person and ``per_address`` per client address; ``budget`` is how hard each
    looks (by default :data:`gongzhu.review.whatif.DEFAULT_WHATIF_BUDGET`)."""

    def __init__(self, *, budget: WhatIfBudget | None = None, at_once: int = AT_ONCE, waiting: int = WAITING,
                 per_address: int = PER_ADDRESS) -> None:
        if at_once < 1 or waiting < 0 or per_address < 1:
            raise ValueError("what-ifs need at_once >= 1, waiting >= 0 and per_address >= 1")
        self.budget = budget
        self.at_once = at_once
        self.waiting = waiting
        self.per_address = per_address
        self._people: set[str] = set()  # who has one asked and not yet answered
        self._addresses: dict[str, int] = {}  # the what-ifs asked from each address, not yet answered
        self._slots: asyncio.Semaphore | None = None

    @property
    def asked(self) -> int:
        """What-ifs asked and not yet answered (working or waiting)."""
        return len(self._people)

    @contextlib.contextmanager
    def hold(self, person: str, address: str | None = None) -> Iterator[None]:
        """``person``'s one what-if at a time, asked from the client ``address``: refused (429)
        while they have one or while the address has ``per_address``, and (503) while as many
        wait as may."""
        if person in self._people:
            raise WhatIfRefused(429, Text.of("whatif.running"))
        if address is not None and self._addresses.get(address, 0) >= self.per_address:
            raise WhatIfRefused(429, Text.of("whatif.address_busy", most=self.per_address))
        if len(self._people) >= self.at_once + self.waiting:
            raise WhatIfRefused(503, Text.of("whatif.busy"))
        self._people.add(person)
        if address is not None:
            self._addresses[address] = self._addresses.get(address, 0) + 1
        try:
            yield
        finally:
            self._people.discard(person)
            if address is not None:
                left = self._addresses.pop(address, 1) - 1
                if left:
                    self._addresses[address] = left

    async def work(self, record_line: str, seat: Seat, line: list[Any]) -> dict[str, Any]:
        """The what-if, worked out in a thread of its own once a slot is free (raises
        :class:`WhatIfRefused` for a line that cannot be played or without the C search)."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.at_once)
        async with self._slots:
            answer: dict[str, Any] = await in_daemon_thread(self._work, record_line, seat, line, name="gongzhu-whatif")
        return answer

    def _work(self, record_line: str, seat: Seat, line: list[Any]) -> dict[str, Any]:
        from gongzhu.review.whatif import DEFAULT_WHATIF_BUDGET, WhatIfError, what_if

        try:
            return what_if(json.loads(record_line), seat, line,
                           budget=self.budget if self.budget is not None else DEFAULT_WHATIF_BUDGET)
        except WhatIfError as e:
            raise WhatIfRefused(400, e.text, e.reason) from None

    def check_line(self, line: list[Any]) -> None:
        """Refuse a line whose plays are not written as plays, before anything is looked up."""
        from gongzhu.review.whatif import WhatIfError, parse_line

        try:
            parse_line(line)
        except WhatIfError as e:
            raise WhatIfRefused(400, e.text) from None


def _refused(e: WhatIfRefused) -> Response:
    """A refusal as the page reads it; with the rules' own refusal of an illegal play (a catalog
    message as well) in ``reason``."""
    response = refused_answer(e.status, e.text)
    if e.reason is not None:
        response = JSONResponse({"error": e.text.render("en"), "message_zh": e.text.render("zh"), **e.text.json,
                                 "reason": e.reason.json}, status_code=e.status, headers={"Cache-Control": "no-store"})
    if e.status in (429, 503):
        response.headers["Retry-After"] = "1" if e.status == 429 else "5"
    return response


class WhatIfRoute:
    """``POST /api/matches/{id}/deals/{k}/whatif`` on ``whatifs``; ``known`` finds a match by its
    id (None for an unknown one or a malformed id), as the deal record's route does."""

    def __init__(self, whatifs: WhatIfs, known: Callable[[str], MatchInfo | None], store: Store,
                 challenges: Challenges, identity: Identity) -> None:
        self.whatifs = whatifs
        self.known = known
        self.store = store
        self.challenges = challenges
        self.identity = identity

    def finished_record(self, request: Request) -> str:
        """The record of the URL's finished deal, if the caller may read it (as ``get_deal``)."""
        match_id, k = request.path_params["match_id"], request.path_params["k"]
        info = self.known(match_id)
        if info is None:
            raise WhatIfRefused(404, Text.of("whatif.unknown_match", match=show(match_id)))
        if not _DEAL_NUMBER.fullmatch(k):  # named as sent
            raise WhatIfRefused(404, Text.of("whatif.no_deal", match=show(match_id), deal=show(k), number=show(k)))
        deal = int(k)
        user = self.identity.user_for(request)
        if not self.challenges.may_read(info, deal, user.id if user is not None else None):
            raise WhatIfRefused(403, self.challenges.hidden_text(info, deal))
        line = self.store.record(info.match_id, deal)
        if line is not None:
            return line
        if deal == info.deals and not info.over and info.seating.status != "waiting":
            raise WhatIfRefused(409, Text.of("whatif.not_finished", match=show(match_id), deal=deal, number=deal + 1))
        raise WhatIfRefused(404, Text.of("whatif.no_deal", match=show(match_id), deal=deal, number=deal + 1))

    async def post(self, request: Request) -> Response:
        try:
            body = await json_body(request)
        except BodyError as e:
            return _refused(WhatIfRefused(e.status, _BODY_REFUSALS.get(e.status, Text.of("whatif.bad_body"))))
        try:
            seat, line = parse_body(body)
            self.whatifs.check_line(line)
            record = self.finished_record(request)
            # One at a time for each person (a caller with no session yet, by its address), and a
            # few for each address, whoever the caller says it is.
            user = self.identity.user_for(request)
            address = counted_address(request)
            with self.whatifs.hold(user.id if user is not None else f"address {address}", address):
                try:
                    answer = await self.whatifs.work(record, seat, line)
                except WhatIfRefused:
                    raise
                except Exception as e:
                    # gongzhu.search's SearchUnavailableError, known by its name: the server does
                    # not import the search layer itself.
                    if any(c.__name__ == "SearchUnavailableError" for c in type(e).__mro__):
                        log.warning("what-ifs are unavailable: %s", e)
                        raise WhatIfRefused(503, Text.of("whatif.unavailable")) from None
                    log.error("a what-if of %s deal %s failed", show(request.path_params["match_id"]),
                              show(request.path_params["k"]), exc_info=e)
                    raise WhatIfRefused(500, Text.of("whatif.failed")) from None
        except WhatIfRefused as e:
            return _refused(e)
        try:
            _, cookie = self.identity.ensure(request)  # an answered POST makes its caller a person, as every other does
        except GuestsRefused:  # (its address made guests enough: answered all the same, as a page is)
            cookie = None
        return personal_answer(answer, cookie)


def routes(whatifs: WhatIfs, known: Callable[[str], MatchInfo | None], store: Store, challenges: Challenges,
           identity: Identity) -> list[Route]:
    """The what-if route on ``whatifs`` (:class:`WhatIfRoute`; its ``post`` is the endpoint)."""
    return [Route(PATH, WhatIfRoute(whatifs, known, store, challenges, identity).post, methods=["POST"])]
