"""Boards of duplicate play (复式, R8.1): numbered deals that give every table the same hands and
the same first leader, made verifiably from a seed.

Board ``n`` (第n副牌, the board numbered n) is dealt counter-clockwise — the tournament
convention, whatever direction the boards are played in — first to ``Seat((n - 1) % 4)``, so the
dealer rotates N, E, S, W.  Its hands come from ``(seed, n, decks)`` alone: the first 63 bits of
SHA-256 of ``"gongzhu-board:{seed}:{decks}:{n}"`` seed :func:`~gongzhu.rules.dealing.deal_hands`
(R3).  They do not depend on the options the board is played under nor on any other board, and
neither does its first leader: the holder of ♣2 (two decks: the first ♣2 received in the board's
own dealing order), as in the first deal of a match (R5.1).

A :class:`BoardSet` is the boards of one event with their definition, a JSON object (the format,
the number of decks, the first board number, the count, the event, the preset and every option the
boards are played under), and its commitment: the SHA-256 of the canonical JSON of the seed and
the definition.  An organiser publishes the definition and the commitment before play and the seed
after it; :func:`verify_board_set` checks that the seed and the definition give the commitment and
deals every board again.  A fresh seed is 128 random bits, so the commitment tells nothing of the
hands before the seed is revealed.

Pure computation; imports the rules core only.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from gongzhu.rules.cards import Card, Seat, hand_size, parse_card, too_many_copies
from gongzhu.rules.deal import Deal
from gongzhu.rules.dealing import canonical_json, deal_hands, dealing_order
from gongzhu.rules.errors import BoardError, CommitmentError, GongzhuError, OptionError, excerpt
from gongzhu.rules.options import OPTION_KEYS, Options

__all__ = [
    "BOARDS_FORMAT",
    "DEFINITION_KEYS",
    "MAX_BOARDS",
    "Board",
    "BoardSet",
    "board_dealer",
    "board_seed",
    "commitment_of",
    "deal_board",
    "make_board_set",
    "verify_board_set",
]

#: The format tag of a board set's definition.
BOARDS_FORMAT: Final = "gongzhu-boards/1"
#: The most boards one set holds (four 盘 of 16).
MAX_BOARDS: Final = 64
#: The keys of a definition, every one required (``event`` and ``preset`` may be null).
DEFINITION_KEYS: Final = ("format", "decks", "first", "count", "event", "preset", "options")
#: The longest event id and preset note a definition holds, in characters.
MAX_EVENT_CHARS: Final = 200
MAX_PRESET_CHARS: Final = 64

_SEED = re.compile(r"[0-9A-Za-z._-]{1,128}")
_COMMITMENT = re.compile(r"[0-9a-f]{64}")
_C2 = parse_card("2C")

Hands = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


def board_dealer(number: int) -> Seat:
    """Who receives the first card of board ``number``: N, E, S, W in turn from board 1 (R8.1)."""
    _check_number(number)
    return Seat((number - 1) % 4)


def _check_number(number: object) -> None:
    if type(number) is not int or number < 1:
        raise BoardError(
            f"a board number is a whole number from 1 (第1副牌 is the board numbered 1), not {excerpt(number)} (R8.1)"
        )


def _check_decks(decks: object) -> None:
    if type(decks) is not int or decks not in (1, 2):
        raise BoardError(f"boards are dealt with 1 or 2 decks, not {excerpt(decks)} (R1)")


def _check_seed(seed: object) -> None:
    if not isinstance(seed, str) or not _SEED.fullmatch(seed):
        raise BoardError(f"a board seed is 1 to 128 characters among A-Z a-z 0-9 . _ -, not {excerpt(seed)}")


def board_seed(seed: str, number: int, decks: int) -> int:
    """The 63-bit seed board ``number`` is dealt from: the first 63 bits of SHA-256 of
    ``"gongzhu-board:{seed}:{decks}:{number}"`` (R8.1)."""
    _check_seed(seed)
    _check_number(number)
    _check_decks(decks)
    digest = hashlib.sha256(f"gongzhu-board:{seed}:{decks}:{number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _first_received(hands: Hands, first_receiver: Seat, card: Card) -> Seat:
    """Who received the first copy of ``card`` when the hands were dealt counter-clockwise from
    ``first_receiver`` (one deck: its holder)."""
    order = dealing_order(first_receiver, False)
    for j in range(len(hands[0])):
        for seat in order:
            if hands[seat][j] == card:
                return seat
    raise AssertionError("every card is dealt")


@dataclass(frozen=True, slots=True)
class Board:
    """One board (副牌) of duplicate play: ``hands`` (N, E, S, W), each in the order its cards
    were received when the board was dealt counter-clockwise from ``first_receiver``, which is
    ``Seat((number - 1) % 4)``; ``decks`` 1 or 2; ``seed`` the 63-bit seed that deals these hands
    (:func:`board_seed`), or None for hands from elsewhere.  Checked when built: a board that is
    not one raises :class:`~gongzhu.rules.errors.BoardError`."""

    number: int
    hands: Hands
    first_receiver: Seat
    decks: int
    seed: int | None = None

    def __post_init__(self) -> None:
        dealer = board_dealer(self.number)
        _check_decks(self.decks)
        if self.first_receiver != dealer:
            raise BoardError(
                f"board {self.number} is dealt first to {dealer.english}, not "
                f"{excerpt(self.first_receiver)}: the dealer rotates N, E, S, W (R8.1)"
            )
        object.__setattr__(self, "first_receiver", dealer)
        object.__setattr__(self, "hands", self._checked_hands(self.hands))
        if self.seed is not None:
            if type(self.seed) is not int or not 0 <= self.seed < 1 << 63:
                raise BoardError(f"a board's seed is an integer 0 … 2**63 − 1, not {excerpt(self.seed)}")
            dealt = deal_hands(self.seed, self.decks, dealer, clockwise=False)
            if any(tuple(dealt[s]) != self.hands[s] for s in range(4)):
                raise BoardError(
                    f"board {self.number}: these are not the hands seed {self.seed} deals "
                    f"counter-clockwise from {dealer.english} (R8.1)"
                )

    def _checked_hands(self, hands: Sequence[Sequence[Card | str]]) -> Hands:
        if isinstance(hands, (str, bytes)) or len(hands) != 4:
            raise BoardError(f"board {self.number}: a board has four hands (N, E, S, W)")
        try:
            parsed = [tuple(parse_card(c) for c in hand) for hand in hands]
        except GongzhuError as e:
            raise BoardError(f"board {self.number}: {e}") from None
        size = hand_size(self.decks)
        for seat, hand in zip(Seat, parsed, strict=True):
            if len(hand) != size:
                raise BoardError(
                    f"board {self.number}: {seat.english}'s hand has {len(hand)} cards, "
                    f"but each hand has {size} with {self.decks} deck(s) (R1)"
                )
        extra = too_many_copies(((c, seat) for seat, hand in zip(Seat, parsed, strict=True) for c in hand), self.decks)
        if extra is not None:
            raise BoardError(
                f"board {self.number}: {extra[0].code} is dealt {len(extra[1])} times, but "
                f"every card is dealt exactly {'once' if self.decks == 1 else 'twice'} (R1)"
            )
        return (parsed[0], parsed[1], parsed[2], parsed[3])

    @property
    def leader(self) -> Seat:
        """Who leads the board's first trick: the holder of ♣2 (two decks: the first ♣2 received
        in the board's counter-clockwise dealing order), R8.1 and R5.1."""
        return _first_received(self.hands, self.first_receiver, _C2)

    def first_leader(self, options: Options) -> Seat:
        """Who leads the board's first trick under ``options``: the holder (two decks: the first
        receiver) of the option's first-lead card (R5.1 ``first_lead``: ♣2 under every preset)."""
        self._check_options(options)
        return _first_received(self.hands, self.first_receiver, options.first_lead_card)

    def _check_options(self, options: Options) -> None:
        if not isinstance(options, Options):
            raise BoardError(f"a board is played under Options, not {excerpt(options)}")
        if options.decks != self.decks:
            raise BoardError(
                f"board {self.number} is dealt with {self.decks} deck(s), but the options "
                f"play with {options.decks} (R1)"
            )

    def deal(self, options: Options) -> Deal:
        """A fresh deal of this board under ``options``: no previous pig-taker, ``deal_index``
        ``number - 1``, dealt counter-clockwise whatever the play direction, so its first leader is
        :meth:`first_leader` at every table (R8.1)."""
        self._check_options(options)
        return Deal(
            options,
            self.hands,
            first_receiver=self.first_receiver,
            deal_index=self.number - 1,
            previous_pig_taker=None,
            seed=self.seed,
            dealt_clockwise=False,
        )


def deal_board(seed: str, number: int, decks: int) -> Board:
    """Board ``number`` of the boards made from ``seed`` with ``decks`` deck(s) (R8.1)."""
    own = board_seed(seed, number, decks)
    dealer = board_dealer(number)
    hands = deal_hands(own, decks, dealer, clockwise=False)
    return Board(number, (tuple(hands[0]), tuple(hands[1]), tuple(hands[2]), tuple(hands[3])), dealer, decks, own)


def commitment_of(seed: str, definition: Mapping[str, Any]) -> str:
    """The commitment to a board set: SHA-256 (hexadecimal) of the canonical JSON (keys sorted,
    no spaces, UTF-8 text as is) of ``{"seed": seed, "definition": definition}``."""
    return hashlib.sha256(canonical_json({"seed": seed, "definition": dict(definition)})).hexdigest()


def _text(name: str, value: object, limit: int) -> str | None:
    """An optional note of a definition: null, or 1 … ``limit`` characters with no control
    character or lone surrogate."""
    if value is None:
        return None
    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= limit
        or any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value)
    ):
        raise BoardError(
            f"the definition's {name!r} is null or 1 to {limit} characters of text without control "
            f"characters, not {excerpt(value)}"
        )
    return value


def _definition(definition: object) -> dict[str, Any]:
    """``definition`` checked and in canonical form; raises :class:`BoardError` saying what is wrong."""
    if not isinstance(definition, Mapping):
        raise BoardError(f"a board set's definition is a JSON object, not {excerpt(definition)}")
    keys = ", ".join(DEFINITION_KEYS)
    for key in definition:
        if key not in DEFINITION_KEYS:
            raise BoardError(f"unknown key {excerpt(key)} in the definition: it holds {keys}")
    for key in DEFINITION_KEYS:
        if key not in definition:
            raise BoardError(f"the definition has no {key!r}: it holds {keys}")
    if definition["format"] != BOARDS_FORMAT:
        raise BoardError(f"the definition's format is {BOARDS_FORMAT!r}, not {excerpt(definition['format'])}")
    decks, first, count = definition["decks"], definition["first"], definition["count"]
    _check_decks(decks)
    if type(first) is not int or first < 1:
        raise BoardError(f"the first board number is a whole number from 1, not {excerpt(first)} (R8.1)")
    if type(count) is not int or not 1 <= count <= MAX_BOARDS:
        raise BoardError(f"a board set holds 1 to {MAX_BOARDS} boards, not {excerpt(count)}")
    options = definition["options"]
    if not isinstance(options, Mapping):
        raise BoardError(f"the definition's options are an object of every key of R10, not {excerpt(options)}")
    missing = [k for k in OPTION_KEYS if k not in options]
    if missing:
        raise BoardError(f"the definition's options lack {', '.join(missing)}: they hold every key of R10")
    try:
        resolved = Options.from_dict(options)
    except OptionError as e:
        raise BoardError(f"the definition's options: {e}") from None
    written = resolved.to_dict()
    for key in OPTION_KEYS:
        if options[key] != written[key] or type(options[key]) is not type(written[key]):
            raise BoardError(
                f"the definition's option {key} is written {excerpt(options[key])}: write {json.dumps(written[key])}"
            )
    if resolved.decks != decks:
        raise BoardError(f"the definition deals {decks} deck(s) but its options play with {resolved.decks} (R1)")
    return {
        "format": BOARDS_FORMAT,
        "decks": decks,
        "first": first,
        "count": count,
        "event": _text("event", definition["event"], MAX_EVENT_CHARS),
        "preset": _text("preset", definition["preset"], MAX_PRESET_CHARS),
        "options": written,
    }


@dataclass(frozen=True, slots=True)
class BoardSet:
    """The boards of one event (R8.1): ``seed``, ``definition`` (JSON: ``format``
    ``"gongzhu-boards/1"``, ``decks``, ``first`` board number, ``count``, ``event``, ``preset``
    and every ``options`` key of R10 they are played under) and ``boards``, numbered ``first`` …
    ``first + count - 1``, dealt from them when the set is built.  ``BoardSet(seed, definition)``
    checks both and raises :class:`~gongzhu.rules.errors.BoardError` saying what is wrong."""

    seed: str
    definition: dict[str, Any]
    boards: tuple[Board, ...] = field(init=False)

    def __post_init__(self) -> None:
        _check_seed(self.seed)
        canonical = _definition(self.definition)
        object.__setattr__(self, "definition", canonical)
        first, count, decks = canonical["first"], canonical["count"], canonical["decks"]
        object.__setattr__(self, "boards", tuple(deal_board(self.seed, n, decks) for n in range(first, first + count)))

    def __hash__(self) -> int:
        return hash(self.commitment)

    @property
    def commitment(self) -> str:
        """SHA-256 (hexadecimal) of the canonical JSON of the seed and the definition
        (:func:`commitment_of`): what is published before play."""
        return commitment_of(self.seed, self.definition)

    @property
    def options(self) -> Options:
        """The options the boards are played under (the definition's ``options``)."""
        return Options.from_dict(self.definition["options"])

    @property
    def event(self) -> str | None:
        event: str | None = self.definition["event"]
        return event

    def board(self, number: int) -> Board:
        """The board numbered ``number`` (第n副牌)."""
        for board in self.boards:
            if board.number == number:
                return board
        numbers = f"{self.boards[0].number} … {self.boards[-1].number}"
        raise BoardError(f"this set holds the boards numbered {numbers}, not {excerpt(number)}")


def make_board_set(
    options: Options,
    count: int,
    *,
    seed: str | None = None,
    first: int = 1,
    event: str | None = None,
    preset: str | None = None,
) -> BoardSet:
    """``count`` boards numbered from ``first``, to be played under ``options``, dealt from
    ``seed`` (None: a fresh one of 128 random bits, ``secrets.token_hex(16)``).  ``event`` names
    the event, ``preset`` notes the preset the options came from; both go into the definition."""
    if not isinstance(options, Options):
        raise BoardError(f"boards are made for Options, not {excerpt(options)}")
    definition = {
        "format": BOARDS_FORMAT,
        "decks": options.decks,
        "first": first,
        "count": count,
        "event": event,
        "preset": preset,
        "options": options.to_dict(),
    }
    return BoardSet(secrets.token_hex(16) if seed is None else seed, definition)


def verify_board_set(seed: str, definition: Mapping[str, Any], commitment: str) -> BoardSet:
    """The board set of ``seed`` and ``definition`` when they give ``commitment``.  Raises
    :class:`~gongzhu.rules.errors.CommitmentError` when they do not, and
    :class:`~gongzhu.rules.errors.BoardError` for a malformed seed, definition or commitment."""
    if not isinstance(commitment, str) or not _COMMITMENT.fullmatch(commitment):
        raise BoardError(f"a commitment is 64 lowercase hexadecimal digits (SHA-256), not {excerpt(commitment)}")
    if not isinstance(definition, Mapping):
        raise BoardError(f"a board set's definition is a JSON object, not {excerpt(definition)}")
    boards = BoardSet(seed, dict(definition))
    computed = boards.commitment
    if computed != commitment:
        raise CommitmentError(
            f"the commitment does not match: this seed and definition give {computed}, not {commitment}; "
            "the seed, the definition or the commitment is not the one published"
        )
    return boards
