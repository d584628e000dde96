"""Shared helpers of the tests: the rules core (docs/rules.md R1–R10) and the server.

Hands are written as text, one string per seat, so a test reads like the rule book: ``"QS 3S AH"``.
:func:`make_deal` builds a :class:`~gongzhu.rules.Deal` from such hands (completing any seat left
short with the unused cards, in card order), declares the wanted exposures and starts play.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

from gongzhu.rules import ALL_CARDS, PRESETS, Card, Deal, OptionError, Options, Phase, Seat, parse_cards

__all__ = [
    "LOCAL",
    "codes",
    "complete_hands",
    "declare_random_exposures",
    "legal",
    "local_client",
    "make_deal",
    "one_deck_option_sets",
    "phase",
    "play_codes",
    "play_first_legal",
    "play_seq",
    "snapshot",
]

ExposureItem = str | tuple[str, str]


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


def play_codes(play: Sequence[Card]) -> str:
    """A play as text: ``"QS"``, or ``"QS QS"`` / ``"3S 4S"`` for a two-card play."""
    return " ".join(c.code for c in play)


def legal(deal: Deal) -> set[str]:
    """The legal plays of the player to move, as text."""
    return {play_codes(p) for p in deal.legal_plays()}


def complete_hands(
    partial: Mapping[str, str], decks: int = 1, keep_out: str = "", dump: str = "N"
) -> list[list[Card]]:
    """Four hands (N, E, S, W) from text; seats given fewer than ``13 * decks`` cards (or none)
    are topped up, in seat order N, E, S, W, with the cards nobody holds yet, lowest first.

    With ``keep_out`` (suit letters, e.g. ``"S"``) the seats other than ``dump`` are topped up
    without those suits, and ``dump`` gets what is left."""
    size = 13 * decks
    hands: list[list[Card]] = [[], [], [], []]
    for key, text in partial.items():
        hands[Seat.parse(key)] = parse_cards(text)
    used = Counter(c for h in hands for c in h)
    spare = [c for c in ALL_CARDS for _ in range(decks - used[c])]
    dump_seat = Seat.parse(dump)
    if keep_out:
        for seat in Seat:
            if seat != dump_seat:
                h = hands[seat]
                for c in [c for c in spare if c.suit.letter not in keep_out]:
                    if len(h) >= size:
                        break
                    h.append(c)
                    spare.remove(c)
    for h in hands:
        while len(h) < size and spare:
            h.append(spare.pop(0))
    return hands


def make_deal(
    options: Options,
    hands: Mapping[str, str],
    *,
    previous_pig_taker: Seat | None = None,
    first_receiver: Seat = Seat.N,
    exposures: Mapping[str, Sequence[ExposureItem]] | None = None,
    declare: bool = True,
    keep_out: str = "",
    dump: str = "N",
) -> Deal:
    """A deal from explicit hands (completed by :func:`complete_hands`); with ``declare`` every
    seat declares its ``exposures`` (none by default) so the deal is in the play phase."""
    deal = Deal(
        options,
        complete_hands(hands, options.decks, keep_out, dump),
        first_receiver=first_receiver,
        previous_pig_taker=previous_pig_taker,
    )
    if declare and deal.phase == Phase.EXPOSE:
        wanted = {Seat.parse(k): list(v) for k, v in (exposures or {}).items()}
        for seat in Seat:
            deal.declare(seat, wanted.get(seat, []))
    return deal


def phase(deal: Deal) -> Phase:
    """The deal's phase (a call, so that mypy does not narrow it across actions)."""
    return deal.phase


def play_seq(deal: Deal, plays: str) -> None:
    """Play a sequence written as ``"2C 3C 4C 5C / AS KS"``: plays separated by spaces, two-card
    plays joined with ``+`` (``"4S+4S"``); ``/`` is ignored and only helps the reader."""
    for token in plays.replace("/", " ").split():
        deal.play(token.split("+"))


def play_first_legal(deal: Deal, n: int) -> None:
    """Play the first legal play ``n`` times (a deterministic filler)."""
    for _ in range(n):
        deal.play(deal.legal_plays()[0])


def snapshot(deal: Deal) -> tuple[Any, ...]:
    """Everything a refused action must leave exactly as it was."""
    return (
        deal.phase,
        deal.turn,
        deal.leader,
        tuple(tuple(deal.hand(s)) for s in Seat),
        tuple(deal.current_trick),
        tuple(deal.tricks),
        tuple(deal.exposures),
        tuple(deal.undeclared),
        tuple(tuple(deal.captured(s)) for s in Seat),
        tuple(deal.legal_plays()),
        tuple(deal.suits_led),
        deal.pig_taker,
        tuple(deal.restricted_copies(s, c) for s in Seat for c in ALL_CARDS),
        tuple(tuple(deal.exposable(s)) for s in Seat),
    )


def declare_random_exposures(deal: Deal, rng: random.Random, p: float = 0.5) -> None:
    """The exposure phase (R4) with random choices: the seats declare in a random order, each
    exposing each card it may with probability ``p``, in a random allowed kind."""
    seats = list(deal.undeclared)
    rng.shuffle(seats)
    for seat in seats:
        chosen = [(c, rng.choice(deal.exposure_kinds(seat, c))) for c in deal.exposable(seat) if rng.random() < p]
        deal.declare(seat, chosen)


def one_deck_option_sets(overrides: Sequence[Mapping[str, Any]]) -> list[tuple[str, Options]]:
    """Every one-deck preset (R9) with each set of overrides on top (R10)."""
    return preset_option_sets(overrides, decks=1)


def preset_option_sets(overrides: Sequence[Mapping[str, Any]], decks: int) -> list[tuple[str, Options]]:
    """Every preset (R9) with ``decks`` decks, with each set of overrides on top (R10), labelled
    ``preset,key=value…``; combinations the options refuse (e.g. exposure on pig_sheep, R7.4)
    are left out."""
    out: list[tuple[str, Options]] = []
    for name, preset in PRESETS.items():
        if preset.decks != decks:
            continue
        for over in overrides:
            try:
                opts = preset.replace(**over)
            except OptionError:
                continue
            out.append((name + "".join(f",{k}={v}" for k, v in over.items()), opts))
    return out


#: The address the server tests reach the application at: one of the host names it answers to.
LOCAL = "http://127.0.0.1"


class LocalClient(TestClient):
    """Starlette's test client reaching the application at :data:`LOCAL`, WebSockets included
    (the plain one always says ``Host: testserver`` for them)."""

    def websocket_connect(self, url: str, subprotocols: Sequence[str] | None = None,
                          **kwargs: Any) -> WebSocketTestSession:
        if url.startswith("/"):
            url = "ws://127.0.0.1" + url
        return super().websocket_connect(url, subprotocols, **kwargs)


def local_client(app: Starlette) -> TestClient:
    """A test client for the browser game's application, reaching it at :data:`LOCAL`."""
    return LocalClient(app, base_url=LOCAL)
