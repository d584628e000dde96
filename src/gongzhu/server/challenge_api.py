"""The routes of the challenges (``docs/web-protocol.md``, Challenges; docs/tournaments.md), on a
:class:`~gongzhu.server.challenges.Challenges`:

- ``GET /challenges``: the page of today's challenge and the past ones; ``GET /challenge/{id}``:
  one challenge's page (its boards, the live ranking, the travellers);
- ``GET /api/challenges``: today's challenge (made by the first request of the day) and the
  newest others — every daily one, and the private ones the person made or entered;
- ``GET /api/me/challenges``: the challenges the person played, with their places (today's is
  not made by it);
- ``POST /api/challenges`` ``{"preset", "boards"}``: a private challenge, made on demand (at most
  :data:`MADE_AN_HOUR` an hour from one address, and by one person);
- ``GET /api/challenges/{id}``: the challenge, its standings and the person's progress;
- ``POST /api/challenges/{id}/play``: enter it (an account once: the same match again after
  that; not from a browser that entered it as someone else) and get the table's address;
- ``GET /api/challenges/{id}/boards/{n}``: board n's traveller, once the person finished it.

Every refusal a player reads is a catalog message, ``{"error", "message_zh", "code", "params"}``;
answers about a person are never cached.  Imports the challenges, the registry (to open an
entrant's match), the identity, the accounts' limits, the bodies and the rules core's presets.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gongzhu.formats.web import EnterChallengeBody, NewChallengeBody
from gongzhu.rules.options import Options
from gongzhu.server.accounts import attempt, too_many
from gongzhu.server.bodies import PERSON, BodyError, NewTable, typed_body
from gongzhu.server.challenges import SEAT, Challenge, ChallengeRefused, Challenges
from gongzhu.server.identity import Identity
from gongzhu.server.policy import Attempts, counted_address
from gongzhu.server.registry import Tables
from gongzhu.server.rooms import Person
from gongzhu.server.wire import personal_answer, plain_error, refused_answer

__all__ = ["MADE_AN_HOUR", "routes"]

#: Private challenges one client address (and one person) may make in any hour: each deals its
#: boards and has their par computed by the experts in the background.
MADE_AN_HOUR = 10


def routes(challenges: Challenges, tables: Tables, identity: Identity,
           page: Callable[[Request, Path, str], Response], static: Path) -> list[Route]:
    """The challenge routes, on ``challenges``; ``page`` answers a page of ``static`` (with the
    browser's session)."""

    made_by_address = Attempts(MADE_AN_HOUR, 3600.0)
    made_by_person = Attempts(MADE_AN_HOUR, 3600.0)

    def viewer(request: Request) -> str | None:
        user = identity.user_for(request)
        return user.id if user is not None else None

    async def list_page(request: Request) -> Response:
        return page(request, static / "challenges.html", "challenges")

    async def one_page(request: Request) -> Response:
        return page(request, static / "challenge.html", "challenge")

    async def listing(request: Request) -> Response:
        today = challenges.daily()
        user = viewer(request)
        return personal_answer({"today": challenges.summary(today.id, user), "challenges": challenges.listing(user),
                        "played": challenges.played_by(user) if user is not None else []})

    async def played(request: Request) -> Response:
        user = viewer(request)
        return personal_answer({"played": challenges.played_by(user) if user is not None else []})

    async def create(request: Request) -> Response:
        try:
            body = await typed_body(request, NewChallengeBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        user, cookie = identity.ensure(request)
        try:
            challenges.check_new(body.preset, body.boards)  # a refused body counts for nothing
        except ChallengeRefused as e:
            return refused_answer(e.status, e.text)
        wait = attempt((made_by_address, counted_address(request)), (made_by_person, user.id))
        if wait:
            return too_many(wait, "server.challenge_too_many")
        try:
            made = challenges.create(user.id, preset=body.preset, boards=body.boards)
        except ChallengeRefused as e:
            return refused_answer(e.status, e.text)
        return personal_answer({"id": made.id, "url": f"/challenge/{made.id}"}, cookie, status=201)

    async def summary(request: Request) -> Response:
        try:
            return personal_answer(challenges.summary(request.path_params["challenge_id"], viewer(request)))
        except ChallengeRefused as e:
            return refused_answer(e.status, e.text)

    async def play(request: Request) -> Response:
        try:
            await typed_body(request, EnterChallengeBody)  # {} or nothing: a body is read as every route reads one
        except BodyError as e:
            return plain_error(e.status, str(e))
        user, cookie = identity.ensure(request)
        device, device_cookie = identity.device(request)
        try:
            challenge = challenges.get(request.path_params["challenge_id"])
            match_id = challenges.entry(challenge.id, user.id)
            if match_id is None:
                challenges.check_open(challenge)
                browsers = identity.browsers(user.id, device)  # this one first
                challenges.check_one_person(challenge, user.id, browsers)
                match_id = tables.create(_entry(challenge), Person(user.id, user.name)).match_id
                challenges.entered(challenge, user.id, match_id, browsers)
        except ChallengeRefused as e:
            return refused_answer(e.status, e.text)
        return personal_answer({"match_id": match_id, "url": f"/table/{match_id}"}, cookie, device_cookie)

    async def traveller(request: Request) -> Response:
        number = request.path_params["number"]
        try:
            if not number.isdigit() or len(number) > 3:  # no board number: of a challenge that exists?
                challenge = challenges.get(request.path_params["challenge_id"])
                raise ChallengeRefused(404, "server.challenge_no_board", challenge=challenge.id, board=number[:8],
                                       boards=challenge.count)
            board = challenges.traveller(request.path_params["challenge_id"], int(number), viewer(request))
            return personal_answer(board)
        except ChallengeRefused as e:
            return refused_answer(e.status, e.text)

    return [
        Route("/challenges", list_page),
        Route("/challenge/{challenge_id}", one_page),
        Route("/api/challenges", listing),
        Route("/api/me/challenges", played),
        Route("/api/challenges", create, methods=["POST"]),
        Route("/api/challenges/{challenge_id}", summary),
        Route("/api/challenges/{challenge_id}/play", play, methods=["POST"]),
        Route("/api/challenges/{challenge_id}/boards/{number}", traveller),
    ]


def _entry(challenge: Challenge) -> NewTable:
    """An entrant's match: South against three computers of the challenge's level, its deals the
    boards (its own seed deals nothing: the boards are the challenge's)."""
    levels = {s: challenge.level for s in "NESW"}
    assert SEAT == PERSON
    return NewTable(challenge.preset, Options.from_dict(challenge.options), levels, "normal", secrets.randbits(64),
                    challenge=challenge.id)
