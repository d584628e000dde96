"""Shuffling and dealing (R3).

The deck is shuffled by Fisher–Yates (:func:`shuffle`, unbiased and reproducible from a seed)
and dealt one card at a time in play direction, starting with ``first_receiver``; each hand keeps
the order its cards were received in.

The same seed deals the same hands on every Python: the shuffle is written here rather than taken
from ``random.Random.shuffle`` (whose sequence Python does not promise to keep), and draws only
``getrandbits`` of the Mersenne Twister seeded by ``random.Random(seed)``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from functools import cache
from typing import Any

from gongzhu.rules.cards import ALL_CARDS, Card, Seat

__all__ = ["canonical_json", "deal_hands", "deal_seed", "dealing_order", "match_commitment", "next_seat", "shuffle"]


def next_seat(seat: int, clockwise: bool) -> Seat:
    """The next player in play direction (R1): cw N→E→S→W, ccw N→W→S→E."""
    return Seat((seat + (1 if clockwise else -1)) % 4)


@cache
def dealing_order(first_receiver: Seat, clockwise: bool) -> tuple[Seat, Seat, Seat, Seat]:
    """The four seats in the order they receive cards."""
    order = [Seat(first_receiver)]
    for _ in range(3):
        order.append(next_seat(order[-1], clockwise))
    return (order[0], order[1], order[2], order[3])


def _below(rng: random.Random, n: int) -> int:
    """A uniform integer 0 … n − 1: ``n.bit_length()`` random bits, drawn again while too large."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(cards: list[Card], rng: random.Random) -> None:
    """Fisher–Yates, in place: from the last position down, swap it with a uniform position at or
    below it (the sequence of ``random.Random.shuffle`` in CPython 3.11, fixed here)."""
    for i in range(len(cards) - 1, 0, -1):
        j = _below(rng, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def deal_hands(
    seed: int | random.Random, decks: int = 1, first_receiver: Seat = Seat.N, clockwise: bool = False
) -> list[list[Card]]:
    """Shuffle ``decks`` decks and deal them; returns the four hands (N, E, S, W), each in the
    order its cards were received (R3, R11 ``hands``)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    deck = list(ALL_CARDS) * decks
    shuffle(deck, rng)
    hands: list[list[Card]] = [[], [], [], []]
    for k, seat in enumerate(dealing_order(first_receiver, clockwise)):
        hands[seat] = deck[k::4]  # the k-th receiver gets cards k, k+4, k+8 ...
    return hands


def canonical_json(value: Any) -> bytes:
    """``value`` as the canonical JSON a commitment hashes: keys sorted, no spaces, UTF-8 text as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def match_commitment(seed: int, options: Mapping[str, Any]) -> str:
    """The commitment to a match's cards, published when it starts: SHA-256 (hexadecimal) of the
    canonical JSON of ``{"seed": seed, "options": options}`` (``options``: every R10 key, as
    ``Options.to_dict`` gives them).  Every deal of the match is dealt from ``seed``
    (:func:`deal_seed`), so once the seed is revealed anyone can check the hands were the ones
    committed to."""
    return hashlib.sha256(canonical_json({"seed": seed, "options": dict(options)})).hexdigest()


def deal_seed(match_seed: int, deal_index: int) -> int:
    """A 63-bit seed for one deal of a seeded match, so every deal can be re-dealt on its own."""
    digest = hashlib.sha256(f"gongzhu:{match_seed}:{deal_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
