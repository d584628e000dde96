"""One deal (一副) from the dealt hands to the last trick: exposure (R4), play (R5), scoring (R6/R7).

:class:`Deal` is mutable: actions change it in place (``verify_x``, ``can_x``, ``x``), a refused
action raises :class:`~gongzhu.rules.errors.IllegalPlayError` and leaves it as it was, and
:meth:`Deal.undo` takes back plays for search.  The rules of play are written once here, in
:meth:`Deal._cascade` and :meth:`Deal._apply` / :meth:`Deal._finish_trick`; a one-deck deal's
state is a C board (``_fastplay.Board``) transcribing them, unless :data:`C_BOARD` is False.  This
module imports the rest of the rules core and the message catalog.  The representation, the C
board and the public API: docs/architecture.md, One state per deal.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Final

if TYPE_CHECKING:
    from gongzhu.rules._fastplay import Board
from gongzhu.messages import Text
from gongzhu.rules.cards import (
    ALL_CARDS,
    EXPOSABLE,
    JD,
    QS,
    SUIT_MASKS,
    Card,
    Seat,
    Suit,
    cards_in,
    hand_masks,
    hand_size,
    parse_card,
    too_many_copies,
)
from gongzhu.rules.dealing import deal_hands, dealing_order
from gongzhu.rules.errors import DealError, IllegalPlayError, excerpt
from gongzhu.rules.legal import (
    SeatView,
    Stage,
    bits,
    bound_after,
    cascade,
    offends,
    restricted_context,
)
from gongzhu.rules.model import (
    Action,
    CardPlay,
    Declaration,
    Exposure,
    LegalPlays,
    Play,
    Position,
    Trick,
    trick_of,
)
from gongzhu.rules.options import EXPOSURE_KINDS, Options
from gongzhu.rules.scoring import DealScore, is_point_card, score_deal

__all__ = ["C_BOARD", "Deal", "Phase", "check_declaration", "two_card_class", "winner_of_trick"]


def _board_class() -> type[Board] | None:
    try:
        from gongzhu.rules._fastplay import Board
    except ImportError:
        return None
    return Board


_BOARD = _board_class()
#: Whether one-deck deals play on the C board (the C extension ``gongzhu.rules._fastplay`` is
#: built).  Without it they play on the Python rules: the same deals, records and scores, only
#: slower, and the search fast path (:mod:`gongzhu.search`) and the expert player are unavailable.
C_BOARD: Final = _BOARD is not None
if not C_BOARD:
    warnings.warn(
        "gongzhu: the C extension gongzhu.rules._fastplay is not built, so one-deck deals play on "
        "the pure-Python rules (several times slower) and the expert player's search is unavailable; "
        "install gongzhu where a C compiler is present (e.g. pip install --force-reinstall "
        "--no-binary gongzhu gongzhu) to get them",
        RuntimeWarning,
        stacklevel=2,
    )

_QS = QS.index
_POINT = [is_point_card(c) for c in ALL_CARDS]
_SUIT_OF = [i // 13 for i in range(52)]
_SINGLE: list[tuple[int, ...]] = [(i,) for i in range(52)]
_SINGLE_PLAYS: list[Play] = [(c,) for c in ALL_CARDS]
_SEATS = tuple(Seat)
#: The record of a declaration that exposed nothing and set off no 逼明, one per seat (immutable).
_NOTHING_EXPOSED = tuple(Declaration(seat, ()) for seat in _SEATS)
# A play that does not complete a trick, as a record: one shared instance per seat and card.
_PLAIN: list[CardPlay] = [CardPlay(seat, _SINGLE_PLAYS[i]) for seat in _SEATS for i in range(52)]
_NO_PLAYS = LegalPlays()
_packed = CardPlay._packed
_new_record = object.__new__
# One deck: the plays of a legal set, cached per suit block as they are met.  A set within one
# suit (most of them: following suit) is looked up whole in _PLAYS_OF_MASK.
_PLAYS_OF_MASK: dict[int, LegalPlays] = {}
_PLAYS_OF_BLOCK: list[dict[int, LegalPlays]] = [{}, {}, {}, {}]


def _plays_of_mask(mask: int) -> LegalPlays:
    plays: tuple[Play, ...] = ()
    for suit in range(4):
        block = mask >> 13 * suit & 0x1FFF
        if block:
            known = _PLAYS_OF_BLOCK[suit].get(block)
            if known is None:
                known = LegalPlays(_SINGLE_PLAYS[13 * suit + i] for i in range(13) if block >> i & 1)
                _PLAYS_OF_BLOCK[suit][block] = known
                _PLAYS_OF_MASK[block << 13 * suit] = known
            plays += known
    return LegalPlays(plays)


def _cards_of(play: Sequence[int]) -> Play:
    """A play of card indices as cards (one card, or two)."""
    return _SINGLE_PLAYS[play[0]] if len(play) == 1 else (ALL_CARDS[play[0]], ALL_CARDS[play[1]])


def _four(values: Sequence[int]) -> tuple[int, int, int, int]:
    return (values[0], values[1], values[2], values[3])


class Phase(StrEnum):
    """Where a deal stands: exposing (亮牌), playing, or over."""

    EXPOSE = "expose"
    PLAY = "play"
    OVER = "over"


# Members as module constants: reading one off the enum class costs several times more, and
# playouts through the public API ask ``is_over`` once a play.
_PLAY = Phase.PLAY
_OVER = Phase.OVER


def _plays_text(plays: Iterable[Sequence[int]]) -> str:
    return ", ".join("".join(ALL_CARDS[c].pretty for c in p) for p in plays)


def two_card_class(is_pair: bool, led: int) -> int:
    """R5.3: the class of a two-card play wholly in the led suit — 1 ranks above 0 whatever the
    cards.  In ♠ ♥ ♣ two non-pair cards beat any pair; in ♦ any pair beats two non-pair cards.
    Within a class the higher card decides, then the lower (every player's estimate, the bot
    protocol and the C fast path rank by this)."""
    return 1 if is_pair == (led == Suit.DIAMONDS) else 0


def _two_card_key(p: tuple[int, ...], led: int) -> tuple[int, int, int]:
    return (two_card_class(p[0] == p[1], led), max(p), min(p))


def winner_of_trick(plays: Sequence[tuple[int, tuple[int, ...]]]) -> int:
    """Who wins a finished trick of ``(seat, card indices)`` plays (R5.2, R5.3): the highest card
    of the led suit, the first played of identical copies; after a pair lead the best two-card
    play wholly in the led suit (:func:`two_card_class`), the earlier of equals."""
    best_seat, best = plays[0]
    led = _SUIT_OF[best[0]]
    if len(best) == 1:
        hi = best[0]
        for seat, p in plays[1:]:
            c = p[0]
            if c > hi and _SUIT_OF[c] == led:  # identical copies: the first played wins
                hi, best_seat = c, seat
        return best_seat
    key = _two_card_key(best, led)
    for seat, p in plays[1:]:
        if _SUIT_OF[p[0]] == led and _SUIT_OF[p[1]] == led:
            k = _two_card_key(p, led)
            if k > key:
                key, best_seat = k, seat
    return best_seat


def check_declaration(
    options: Options, seat: Seat, exposures: Iterable[Card | str | tuple[Card | str, str]],
    copies_held: Callable[[Card], int], first_dealt: Card | None,
) -> list[tuple[Card, str]]:
    """Check one seat's exposure declaration (R4.1, R4.4) — the one place these rules are
    written: ``Deal.verify_declare`` asks it with the dealt hand, a player's guard with what
    the seat sees.  ``copies_held(c)`` is how many copies of ``c`` the seat holds,
    ``first_dealt`` its first dealt card (首明).  Items are cards (the option's usual kind:
    ``hidden`` under ``hidden``, else ``shown``) or ``(card, kind)`` pairs; returns them as
    pairs, or raises :class:`IllegalPlayError` (:class:`CardError` for text that is no card)
    saying why."""
    default = options.usual_kind
    out: list[tuple[Card, str]] = []
    for item in exposures:
        if isinstance(item, tuple):
            c, kind = parse_card(item[0]), item[1]
        else:
            c, kind = parse_card(item), default
        if c not in EXPOSABLE:
            raise IllegalPlayError("refusal.not_exposable", card=c.pretty)
        already = sum(1 for d, _ in out if d == c)
        if copies_held(c) <= already:
            code = "refusal.expose_not_held" if already == 0 else "refusal.expose_not_held_another"
            raise IllegalPlayError(code, seat=seat, card=c.pretty)
        kinds = options.exposure_kinds(c, first_dealt)
        if kind not in kinds:
            if not kinds:
                raise IllegalPlayError("refusal.no_choice", exposure=options.exposure)
            if kind == "first" and options.exposure == "first_card":
                raise IllegalPlayError("refusal.not_first_dealt", card=c.pretty, seat=seat)
            known = isinstance(kind, str) and kind in EXPOSURE_KINDS
            raise IllegalPlayError("refusal.kind_not_allowed", kind=excerpt(kind), name=kind if known else "?",
                                   exposure=options.exposure, kinds=list(kinds))
        if kind == "first" and any(k == "first" for d, k in out):
            raise IllegalPlayError("refusal.one_first")
        out.append((c, kind))
    return out


class Deal:
    """A deal in progress.

    ``hands`` are the four hands as dealt (N, E, S, W), each in the order its cards were
    received.  ``previous_pig_taker`` is None for the first deal of a match, whose first lead
    follows ``first_lead`` (R5.1); otherwise that player leads.  ``dealt_clockwise`` is the
    direction the hands were dealt in (None: the play direction of ``options``, R3); a board of
    duplicate play is dealt counter-clockwise whatever the play direction (R8.1), and with two
    decks the first ♣2 received in that order decides the first lead.
    """

    __slots__ = (
        "_board",
        "_captured",
        "_cw",
        "_decks",
        "_declarations",
        "_declared",
        "_h1",
        "_h2",
        "_leader",
        "_led",
        "_must_lead_c2",
        "_offender",
        "_pair",
        "_pig_taker",
        "_r1",
        "_r2",
        "_raw_tricks",
        "_score",
        "_suits_led",
        "_synced",
        "_trick",
        "_trick_objects",
        "_turn",
        "_undo",
        "_unled_cards",
        "deal_index",
        "dealt",
        "dealt_clockwise",
        "exposures",
        "first_receiver",
        "options",
        "phase",
        "previous_pig_taker",
        "seed",
    )

    #: One-deck play runs on the C board (when :data:`C_BOARD`); a subclass with False plays on
    #: the Python rules alone (the tests use that to hold the two to each other).
    use_c_board: ClassVar[bool] = True

    def __init__(
        self,
        options: Options,
        hands: Sequence[Sequence[Card | str]],
        *,
        first_receiver: Seat = Seat.N,
        deal_index: int = 0,
        previous_pig_taker: Seat | None = None,
        seed: int | None = None,
        dealt_clockwise: bool | None = None,
    ) -> None:
        self.options = options
        self.dealt: tuple[tuple[Card, ...], ...] = self._check_hands(options, hands)
        self.first_receiver = Seat(first_receiver)
        self.deal_index = deal_index
        self.previous_pig_taker = None if previous_pig_taker is None else Seat(previous_pig_taker)
        self.seed = seed
        self._cw = options.clockwise
        self.dealt_clockwise = options.clockwise if dealt_clockwise is None else bool(dealt_clockwise)
        self._decks = options.decks
        masks = [hand_masks(hand) for hand in self.dealt]
        self._h1 = [m[0] for m in masks]  # cards held at least once
        self._h2 = [m[1] for m in masks]  # cards held twice (two decks)
        self._r1 = [0, 0, 0, 0]  # exposed copies in hand still bound by R4.3 (at least one)
        self._r2 = [0, 0, 0, 0]  # ... two of them
        self.exposures: list[Exposure] = []
        self._declared = [False, False, False, False]
        self._declarations: list[Declaration] = []
        self.phase = Phase.EXPOSE
        self._turn = -1
        self._leader = -1
        self._led = -1
        self._pair = False
        self._trick: tuple[tuple[int, tuple[int, ...]], ...] = ()
        self._offender = -1
        self._suits_led = 0
        self._unled_cards = (1 << 52) - 1  # cards of suits not led in a finished trick
        self._must_lead_c2 = False
        # Finished tricks as (leader, plays, winner, taker) ints; Trick objects are built on demand.
        self._raw_tricks: list[tuple[int, tuple[tuple[int, tuple[int, ...]], ...], int, int]] = []
        self._trick_objects: list[Trick] = []
        self._captured: list[list[Card]] = [[], [], [], []]
        self._pig_taker = -1
        self._undo: list[tuple[Any, ...]] = []
        # One deck: the play phase runs on the C core (a Board); the fields above are pulled
        # from it by _sync() when a slower path reads them.
        self._board: Board | None = None
        self._synced = 0
        self._score: DealScore | None = None
        if not options.players_declare:
            # No choice is left to anyone: apply the mandatory exposures (R4.4) and play.
            for s in range(4):
                for c in self.required_exposures(Seat(s)):
                    self._apply_exposure(s, c, "shown")
            self._start_play()

    @classmethod
    def new(
        cls,
        options: Options,
        seed: int,
        *,
        first_receiver: Seat = Seat.N,
        deal_index: int = 0,
        previous_pig_taker: Seat | None = None,
    ) -> Deal:
        """Shuffle and deal from ``seed`` (R3), then start the exposure phase."""
        hands = deal_hands(seed, options.decks, first_receiver, options.clockwise)
        return cls(options, hands, first_receiver=first_receiver, deal_index=deal_index,
                   previous_pig_taker=previous_pig_taker, seed=seed)

    @staticmethod
    def _check_hands(options: Options, hands: Sequence[Sequence[Card | str]]) -> tuple[tuple[Card, ...], ...]:
        if len(hands) != 4:
            raise DealError(f"a deal has four hands (N, E, S, W), not {len(hands)}")
        parsed = tuple(tuple(c if type(c) is Card else parse_card(c) for c in h) for h in hands)
        size = hand_size(options.decks)
        for seat, h in zip(Seat, parsed, strict=True):
            if len(h) != size:
                raise DealError(f"{seat.english}'s hand has {len(h)} cards: each hand has {size}")
        if options.decks == 1 and len({c.index for h in parsed for c in h}) == 52:
            return parsed  # 52 cards, all different: each card exactly once
        extra = too_many_copies(((c, seat) for seat, h in zip(Seat, parsed, strict=True) for c in h), options.decks)
        if extra is not None:
            c, places = extra
            raise DealError(
                f"{c.code} is dealt {len(places)} times: every card is dealt exactly "
                f"{'once' if options.decks == 1 else 'twice'} with {options.decks} deck(s)"
            )
        return parsed  # the sizes and no card too often: every card exactly once per deck

    # ------------------------------------------------------------------ reading the position

    @property
    def turn(self) -> Seat | None:
        """Who plays next (None outside the play phase)."""
        if self.phase is not _PLAY:
            return None
        return _SEATS[self._board.turn if self._board is not None else self._turn]

    @property
    def leader(self) -> Seat | None:
        """Who led (or leads) the current trick."""
        self._sync()
        return Seat(self._leader) if self._leader >= 0 else None

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def tricks(self) -> list[Trick]:
        """The finished tricks, in order."""
        return list(self._built_tricks())

    def _built_tricks(self) -> list[Trick]:
        self._sync()
        built = self._trick_objects
        del built[len(self._raw_tricks):]
        for leader, plays, winner, taker in self._raw_tricks[len(built):]:
            built.append(trick_of((leader, plays, winner, taker)))
        return built

    @property
    def actions(self) -> list[Action]:
        """Every action so far, in order: the seats' exposure declarations, then the plays (the
        records :meth:`declare` and :meth:`play` returned; :meth:`undo` takes plays back).
        Exposures nobody chose (``exposure=none/all/all_but_sheep``) are in :attr:`exposures`."""
        out: list[Action] = list(self._declarations)
        for trick in self._built_tricks():
            *first, (seat, cards) = trick.plays
            out += [CardPlay(s, p) for s, p in first]
            out.append(CardPlay(seat, cards, trick))
        out += [CardPlay(_SEATS[s], tuple(ALL_CARDS[c] for c in p)) for s, p in self._trick]
        return out

    def position(self) -> Position:
        """A frozen snapshot of the play state (see :class:`~gongzhu.rules.model.Position`)."""
        self._sync()
        return Position(
            self._decks, _four(self._h1), _four(self._h2), _four(self._r1), _four(self._r2),
            (tuple(self._captured[0]), tuple(self._captured[1]), tuple(self._captured[2]),
             tuple(self._captured[3])),
            self._trick, self._leader, self._turn, self._led if self._trick else -1, self._offender,
            self._suits_led, self._must_lead_c2 and not self._raw_tricks and not self._trick,
            self._pig_taker,
        )

    def copy(self) -> Deal:
        """An independent deal at the same position, with the same actions: playing or undoing on
        either leaves the other as it is."""
        new = object.__new__(type(self))
        for name in Deal.__slots__:
            setattr(new, name, getattr(self, name))
        if hasattr(self, "__dict__"):
            new.__dict__.update(self.__dict__)
        new._board = None if self._board is None else self._board.copy()
        new._captured = [list(c) for c in self._captured]
        for name in ("_declarations", "_declared", "_h1", "_h2", "_r1", "_r2", "_raw_tricks",
                     "_trick_objects", "_undo", "exposures"):
            setattr(new, name, list(getattr(self, name)))
        return new

    @property
    def current_trick(self) -> list[tuple[Seat, Play]]:
        self._sync()
        return [(Seat(s), tuple(ALL_CARDS[c] for c in p)) for s, p in self._trick]

    @property
    def pig_taker(self) -> Seat | None:
        """Who took the (first captured, two decks) pig so far: the next deal's first receiver
        and leader (R3, R5.1)."""
        self._sync()
        return Seat(self._pig_taker) if self._pig_taker >= 0 else None

    @property
    def suits_led(self) -> list[Suit]:
        """Suits led in finished tricks."""
        self._sync()
        return [s for s in Suit if self._suits_led >> s & 1]

    def hand(self, seat: Seat) -> list[Card]:
        """The cards ``seat`` still holds, sorted by suit then rank (two decks: copies twice)."""
        self._sync()
        out = [ALL_CARDS[i] for i in bits(self._h1[seat])] + [ALL_CARDS[i] for i in bits(self._h2[seat])]
        return sorted(out, key=lambda c: c.index)

    def captured(self, seat: Seat) -> list[Card]:
        """Point cards ``seat`` has taken so far (R6)."""
        self._sync()
        return list(self._captured[seat])

    def copies_held(self, seat: Seat, c: Card) -> int:
        self._sync()
        return (self._h1[seat] >> c.index & 1) + (self._h2[seat] >> c.index & 1)

    def restricted_copies(self, seat: Seat, c: Card) -> int:
        """Exposed copies of ``c`` in ``seat``'s hand still bound by the play restriction (R4.3)."""
        self._sync()
        return (self._r1[seat] >> c.index & 1) + (self._r2[seat] >> c.index & 1)

    # ------------------------------------------------------------------ exposure (R4)

    def exposure_kinds(self, seat: Seat, c: Card) -> tuple[str, ...]:
        """The kinds in which ``seat`` may declare ``c`` now (R4.4, :meth:`Options.exposure_kinds`)."""
        return self.options.exposure_kinds(c, self.dealt[seat][0])

    def exposable(self, seat: Seat) -> list[Card]:
        """The cards ``seat`` may choose to expose (copies twice with two decks)."""
        if self.phase != Phase.EXPOSE or self._declared[seat]:
            return []
        return [c for c in self.hand(seat) if self.exposure_kinds(seat, c)]

    def required_exposures(self, seat: Seat) -> list[Card]:
        """Cards that ``seat`` must expose under ``all`` / ``all_but_sheep`` (R4.4)."""
        wanted = self.options.mandatory_cards
        return [c for c in self.dealt[seat] if c in wanted]

    @property
    def undeclared(self) -> list[Seat]:
        """Seats that have not yet declared their exposures."""
        if self.phase != Phase.EXPOSE:
            return []
        return [Seat(s) for s in range(4) if not self._declared[s]]

    def verify_declare(
        self, seat: Seat, exposures: Iterable[Card | str | tuple[Card | str, str]]
    ) -> list[tuple[Card, str]]:
        """Check ``seat``'s exposure declaration; return it as ``(card, kind)`` pairs.

        Items are cards (the option's usual kind: ``hidden`` under ``hidden``, else ``shown``)
        or ``(card, kind)`` pairs.
        """
        seat = Seat(seat)
        if self.phase != Phase.EXPOSE:
            raise IllegalPlayError("refusal.exposure_over")
        if self._declared[seat]:
            raise IllegalPlayError("refusal.already_declared", seat=seat)
        if exposures == ():  # nothing exposed (the usual case): nothing to check
            return []
        return check_declaration(self.options, seat, exposures, lambda c: self.copies_held(seat, c),
                                 self.dealt[seat][0])

    def can_declare(self, seat: Seat, exposures: Iterable[Card | str | tuple[Card | str, str]]) -> bool:
        try:
            self.verify_declare(seat, exposures)
        except IllegalPlayError:
            return False
        return True

    def declare(self, seat: Seat, exposures: Iterable[Card | str | tuple[Card | str, str]] = ()) -> Declaration:
        """``seat`` declares the cards it exposes (possibly none).  Each seat declares once, in
        any order; after the fourth declaration the automatic fourth exposure (逼明, R4.4) is
        applied and play starts.  Returns the declaration as applied."""
        items = self.verify_declare(seat, exposures)
        seat = _SEATS[seat]
        before = len(self.exposures)
        for c, kind in items:
            self._apply_exposure(seat, c, kind)
        mine = len(self.exposures)
        self._declared[seat] = True
        if all(self._declared):
            fourth = self.options.auto_fourth(e.card for e in self.exposures)
            if fourth is not None:
                holder = next(s for s in range(4) if self._h1[s] >> fourth.index & 1)
                self._apply_exposure(holder, fourth, "auto")
            self._start_play()
        if before == len(self.exposures):  # nothing exposed: the seat's shared empty record
            record = _NOTHING_EXPOSED[seat]
        else:
            record = Declaration(seat, tuple(self.exposures[before:mine]), tuple(self.exposures[mine:]))
        self._declarations.append(record)
        return record

    def _apply_exposure(self, seat: int, c: Card, kind: str) -> None:
        self.exposures.append(Exposure(Seat(seat), c, kind))
        if Options.restricted_kind(kind):
            bit = 1 << c.index
            if self._r1[seat] & bit:
                self._r2[seat] |= bit
            else:
                self._r1[seat] |= bit

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        if self.previous_pig_taker is not None:
            leader = int(self.previous_pig_taker)
        else:
            target = self.options.first_lead_card.index
            leader = self._first_receiver_of(target)
            self._must_lead_c2 = self.options.must_lead_club2
        self._leader = self._turn = leader
        if self._decks == 1 and self.use_c_board and _BOARD is not None:
            o = self.options
            self._board = _BOARD(
                self._h1, self._r1, leader, self._must_lead_c2, o.clockwise,
                o.exposed_discard_before_suit_led, o.discard_color_code,
            )
            self._synced = self._board.version

    def _first_receiver_of(self, index: int) -> int:
        """Who received the first copy of a card in dealing order (R5.1)."""
        if self._decks == 1:  # one copy: its holder
            return next(s for s in range(4) if self._h1[s] >> index & 1)
        order = dealing_order(self.first_receiver, self.dealt_clockwise)
        for j in range(13 * self._decks):
            for seat in order:
                if self.dealt[seat][j].index == index:
                    return int(seat)
        raise AssertionError("every card is dealt")

    # ------------------------------------------------------------------ legal plays (R4.3, R5)

    def legal_plays(self) -> LegalPlays:
        """Every legal play of the player to move: single cards, and pairs in two-deck play.
        ``in`` also takes a play written another way: ``"QS" in deal.legal_plays()``, a
        :class:`Card`, ``("QS", "QS")`` or ``"QS QS"`` (see :class:`~gongzhu.rules.model.LegalPlays`)."""
        board = self._board
        if board is not None:
            m = board.legal_mask()
            plays = _PLAYS_OF_MASK.get(m)
            return plays if plays is not None else _plays_of_mask(m)
        if self.phase is not Phase.PLAY:
            return _NO_PLAYS
        return LegalPlays([_cards_of(p) for p in self._cascade()[-1][1]])

    def legal_mask(self) -> int:
        """One deck: the legal cards as a 52-bit set (the fast form of :meth:`legal_plays`)."""
        if self._decks != 1:
            raise ValueError("legal_mask is for one-deck deals: use legal_plays")
        return self._board.legal_mask() if self._board is not None else 0

    def _view(self) -> SeatView:
        """What decides the legality of the mover's plays (see :mod:`gongzhu.rules.legal`)."""
        s = self._turn
        return SeatView(self.options, self._h1[s], self._h2[s], self._r1[s], self._r2[s], self._trick,
                        self._suits_led, self._must_lead_c2 and not self._raw_tricks and not self._trick)

    def _cascade(self) -> list[Stage]:
        return cascade(self._view())

    # ------------------------------------------------------------------ playing

    def _normalize(self, cards: Card | str | Iterable[Card | str]) -> tuple[int, ...]:
        if isinstance(cards, Card):
            return (cards.index,)
        if isinstance(cards, str):
            parts = cards.replace(",", " ").split()
            return tuple(sorted(parse_card(p).index for p in parts)) if parts else ()
        return tuple(sorted(parse_card(c).index for c in cards))

    def verify_play(self, cards: Card | str | Iterable[Card | str], seat: Seat | None = None) -> Play:
        """Check a play by the player to move (or by ``seat``, which must be that player);
        raise :class:`IllegalPlayError` saying why it is refused, else return it as cards."""
        self._sync()
        play = self._normalize(cards)
        as_cards = tuple(ALL_CARDS[c] for c in play)
        if self.phase == Phase.EXPOSE:
            raise IllegalPlayError("refusal.exposure_not_over", waiting=self.undeclared)
        if self.phase == Phase.OVER:
            raise IllegalPlayError("refusal.deal_over")
        s = self._turn
        if seat is not None and Seat(seat) != s:
            raise IllegalPlayError("refusal.not_your_turn", turn=Seat(s), seat=Seat(seat))
        if self._board is not None and len(play) == 1 and self._board.legal_mask() >> play[0] & 1:
            return as_cards
        if self._board is None and play in self._cascade()[-1][1]:
            return as_cards
        why = self._explain(s, play)
        raise IllegalPlayError(why.key, **why.params)

    def can_play(self, cards: Card | str | Iterable[Card | str], seat: Seat | None = None) -> bool:
        try:
            self.verify_play(cards, seat)
        except (IllegalPlayError, ValueError):
            return False
        return True

    def play(self, cards: Card | str | Iterable[Card | str], seat: Seat | None = None) -> CardPlay:
        """Play a card (or a two-deck pair / two-card answer) for the player to move; returns
        the play as a record, with the trick it completed, if it did."""
        board = self._board
        if board is not None and seat is None:
            # The hot path of playouts: a play as returned by legal_plays(), or a Card.
            c = cards[0] if type(cards) is tuple and len(cards) == 1 else cards
            if type(c) is Card:
                i = c.index
                done = board.play_packed(i)  # the seat, or the trick it finished (packed)
                if done >= 4:
                    if done >> 32 & 1:
                        self.phase = _OVER
                    # CardPlay._packed, inlined: a call costs as much as the record
                    record = _new_record(CardPlay)
                    record._seat = _SEATS[done >> 33]
                    record._cards = _SINGLE_PLAYS[i]
                    record._trick = done
                    return record
                if done >= 0:
                    return _PLAIN[52 * done + i]
        self.verify_play(cards, seat)  # raises, saying why
        play = self._normalize(cards)
        if board is not None:
            done = board.play_packed(play[0])
            if done < 4:
                return _PLAIN[52 * done + play[0]]
            if done >> 32 & 1:
                self.phase = Phase.OVER
            return _packed(_SEATS[done >> 33], _SINGLE_PLAYS[play[0]], done)
        s = self._turn
        n_tricks = len(self._raw_tricks)
        self._apply(play)
        if len(self._raw_tricks) > n_tricks:
            return _packed(_SEATS[s], _cards_of(play), self._raw_tricks[-1])
        return _PLAIN[52 * s + play[0]] if len(play) == 1 else CardPlay(_SEATS[s], _cards_of(play))

    def _sync(self) -> None:
        """One deck: bring the Python fields up to the C board's position."""
        board = self._board
        if board is None or self._synced == board.version:
            return
        self._synced = board.version
        self._h1 = list(board.hands())
        self._r1 = list(board.restricted())
        self._trick = tuple((s, _SINGLE[c]) for s, c in board.trick())
        self._led = board.led
        self._offender = board.offender
        self._suits_led = board.suits_led
        self._unled_cards = sum(SUIT_MASKS[u] for u in range(4) if not self._suits_led >> u & 1)
        self._turn = board.turn
        self._leader = board.leader
        self._pig_taker = board.pig_taker
        self._raw_tricks = [
            (leader, tuple((s, _SINGLE[c]) for s, c in plays), winner, taker)
            for leader, plays, winner, taker in board.history()
        ]
        self._trick_objects = []
        self._captured = [[], [], [], []]
        for _, plays, _, taker in self._raw_tricks:
            self._captured[taker] += [ALL_CARDS[p[0]] for _, p in plays if _POINT[p[0]]]
        self.phase = Phase.OVER if board.over else Phase.PLAY

    def _explain(self, s: int, play: tuple[int, ...]) -> Text:
        """Why ``play`` by ``s`` is refused: a refusal of the message catalog."""
        who = Seat(s)
        text = _plays_text([play]) or "none"  # {cards:play}: "none" reads 不出牌 / nothing
        if self._trick:  # following: the lead fixes how many cards (R5.2, R5.3)
            need = 2 if self._pair else 1
            if len(play) != need:
                return Text.of("refusal.pair_led" if need == 2 else "refusal.single_led", seat=who, cards=text)
        elif not play or len(play) > self._decks:
            return Text.of("refusal.lead_one_or_pair" if self._decks == 2 else "refusal.lead_one", cards=text)
        for c in set(play):
            held = (self._h1[s] >> c & 1) + (self._h2[s] >> c & 1)
            if play.count(c) > held:
                return Text.of("refusal.not_held_two" if held else "refusal.not_held", seat=who,
                               card=ALL_CARDS[c].pretty)
        if len(play) == 2 and not self._trick and play[0] != play[1]:
            return Text.of("refusal.not_a_pair", cards=text)
        stages = self._cascade()
        for (_, before), (name, after) in itertools.pairwise(stages):
            if play in before and play not in after:
                return self._stage_reason(name, s, play, after, stages[-1][1])
        return Text.of("refusal.not_legal", cards=text)

    def _stage_reason(
        self, stage: str, s: int, play: tuple[int, ...], after: list[tuple[int, ...]], legal: list[tuple[int, ...]]
    ) -> Text:
        """Why ``play`` fails the rule ``stage`` of the cascade: a refusal of the message catalog.
        ``after`` holds the plays left by that stage, ``legal`` the legal plays (which the message
        lists: a later stage, e.g. R4.3, may remove some of ``after``)."""
        view = self._view()
        suit = Suit(self._led).letter if self._led >= 0 else ""
        if stage == "first_lead":
            return Text.of("refusal.first_lead_is" if self._decks == 1 else "refusal.first_lead_contains")
        if stage == "follow":
            if not self._pair:
                return Text.of("refusal.follow_suit", suit=suit, legal=_plays_text(legal))
            if any(p[0] == p[1] for p in after):
                return Text.of("refusal.follow_pair_with_pair", suit=suit, legal=_plays_text(legal))
            return Text.of("refusal.follow_pair", suit=suit, legal=_plays_text(legal))
        if stage == "exposure":
            bad = next(c for c in play if restricted_context(view, c))
            code = ("refusal.exposed_first_trick" if not self._trick or _SUIT_OF[bad] == self._led
                    else "refusal.exposed_discard")
            return Text.of(code, card=ALL_CARDS[bad].pretty, suit=Suit(_SUIT_OF[bad]).letter)
        if stage == "color":
            return Text.of("refusal.discard_color", colour="red" if Suit(self._led).is_red else "black",
                           legal=_plays_text(legal[:4]))
        return Text.of("refusal.not_legal", cards=_plays_text([play]))

    def _apply(self, play: tuple[int, ...]) -> None:
        """Play ``play`` (already checked legal) on the Python rules (two decks, or no C board)."""
        s = self._turn
        view = self._view()
        offender = self._offender
        if offender < 0 and offends(view, play):
            offender = s  # the first to offend takes the point cards (R5.2 penalty)
        self._undo.append((
            s, self._h1[s], self._h2[s], self._r1[s], self._r2[s], self._trick, self._led,
            self._pair, self._offender, self._suits_led, self._unled_cards, self._pig_taker,
            self._leader, len(self._raw_tricks), self.phase,
        ))
        self._offender = offender
        if not self._trick:
            self._led = _SUIT_OF[play[0]]
            self._pair = len(play) == 2
        h1, h2, r1, r2 = self._h1[s], self._h2[s], self._r1[s], self._r2[s]
        for c in set(play):
            bit = 1 << c
            k = play.count(c)
            held = (h1 >> c & 1) + (h2 >> c & 1) - k
            bound = (r1 >> c & 1) + (r2 >> c & 1)
            bound = bound_after(view, c, bound, held, k)  # R4.5: which copy leaves
            h1 = h1 | bit if held >= 1 else h1 & ~bit
            h2 = h2 | bit if held >= 2 else h2 & ~bit
            r1 = r1 | bit if bound >= 1 else r1 & ~bit
            r2 = r2 | bit if bound >= 2 else r2 & ~bit
        self._h1[s], self._h2[s], self._r1[s], self._r2[s] = h1, h2, r1, r2
        self._trick = (*self._trick, (s, play))
        if len(self._trick) < 4:
            self._turn = (s + 1) % 4 if self._cw else (s + 3) % 4
        else:
            self._finish_trick()

    def _finish_trick(self) -> None:
        led = self._led
        trick = self._trick
        best_seat = winner_of_trick(trick)
        taker = self._offender if self._offender >= 0 else best_seat
        taken = self._captured[taker]
        for _, p in trick:
            for c in p:
                if _POINT[c]:
                    taken.append(ALL_CARDS[c])
                    if c == _QS and self._pig_taker < 0:
                        self._pig_taker = taker
        self._raw_tricks.append((self._leader, trick, best_seat, taker))
        self._suits_led |= 1 << led
        self._unled_cards &= ~SUIT_MASKS[led]
        self._trick = ()
        self._leader = self._turn = best_seat
        self._led = -1
        self._pair = False
        self._offender = -1
        if not self._h1[best_seat]:
            self.phase = Phase.OVER

    def undo(self) -> None:
        """Take back the last play (for search); exposures cannot be taken back."""
        self._score = None
        if self._board is not None:
            if not self._board.undo():
                raise IllegalPlayError("refusal.no_undo")
            self.phase = Phase.PLAY
            return
        if not self._undo:
            raise IllegalPlayError("refusal.no_undo")
        (s, self._h1[s], self._h2[s], self._r1[s], self._r2[s], self._trick, self._led,
         self._pair, self._offender, self._suits_led, self._unled_cards, self._pig_taker,
         self._leader, n_tricks, self.phase) = self._undo.pop()
        if len(self._raw_tricks) > n_tricks:
            _, plays, _, taker = self._raw_tricks.pop()
            points = sum(1 for _, p in plays for c in p if _POINT[c])
            if points:
                del self._captured[taker][-points:]
            del self._trick_objects[n_tricks:]
        self._turn = s

    # ------------------------------------------------------------------ the end (R6, R7)

    @property
    def score(self) -> DealScore:
        """Raw scores (R6), results and finals (R7) once the deal is over."""
        if self.phase != Phase.OVER:
            raise IllegalPlayError("refusal.no_score")
        if self._score is None:
            # Scoring needs only who took which point cards: read them off the board directly.
            captured = self._captured if self._board is None else [cards_in(m) for m in self._board.captured()]
            self._score = score_deal(self.options, captured, self.exposures, self.dealt)
        return self._score

    @property
    def sheep_taker(self) -> Seat | None:
        self._sync()
        return next((Seat(s) for s in range(4) if JD in self._captured[s]), None)

    def __repr__(self) -> str:
        return (f"<Deal {self.phase.value} deal_index={self.deal_index} tricks={len(self.tricks)} "
                f"turn={self.turn.name if self.turn is not None else '-'}>")
