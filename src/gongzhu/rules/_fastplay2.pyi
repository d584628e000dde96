"""Type stubs of the C extension ``gongzhu.rules._fastplay2`` (source: ``_fastplay2.c``).

A position is an opaque 224-byte ``bytes`` blob made by :func:`encode`; card masks are 52-bit
ints (card index = suit * 13 + rank - 2, suits S H C D = 0 1 2 3); seats N E S W = 0 1 2 3;
a play is a sorted tuple of one or two card indices.
"""

from collections.abc import Sequence
from typing import Final

_Four = tuple[int, int, int, int]
_Masks = Sequence[int]
_Play = tuple[int, ...]
_Policy = int | tuple[int, int, int, int]  # one policy id, or one per seat (N, E, S, W)

POLICY_UNIFORM: Final[int]
POLICY_HEURISTIC: Final[int]
N_POLICIES: Final[int]
POSITION_SIZE: Final[int]

def encode(
    h1: _Masks,
    h2: _Masks,
    r1: _Masks,
    r2: _Masks,
    c1: _Masks,
    c2: _Masks,
    exposed: Sequence[int],
    trick: Sequence[Sequence[int]],
    leader: int,
    turn: int,
    offender: int,
    suits_led: int,
    must_c2: bool,
    clockwise: bool,
    edbsl: bool,
    discard_color: int,
    heart_book: bool,
    /,
) -> bytes: ...
def legal_plays(pos: bytes, /) -> tuple[_Play, ...]: ...
def play(pos: bytes, play: Sequence[int], /) -> bytes: ...
def raw_scores(pos: bytes, /) -> _Four: ...
def turn(pos: bytes, /) -> tuple[int, int]: ...
def playout_sums(pos: bytes, n: int, seed: int, policy: _Policy = 0, /) -> _Four: ...
def playout_trace(pos: bytes, seed: int, policy: _Policy = 0, /) -> tuple[tuple[_Play, ...], _Four]: ...
