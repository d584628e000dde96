"""``gongzhu play``: a match in the terminal, you against three computer players.

Everything the rules decide comes from :mod:`gongzhu.rules` (legality and its explanation, trick
winners, scores, the end of the match); this module only shows the table and reads what you type.
Input is read with :func:`input`, so a script or a test can drive a game through stdin; end of
input quits cleanly.  Words come from :mod:`gongzhu.cli.text`, further phrases from the
``term.play.*`` entries of the message catalog (:mod:`gongzhu.messages`), both in Chinese and English.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from typing import Any

from gongzhu.cli.text import LANGS, card_text, cards_text, event_text, kind_text, seat_text, t
from gongzhu.messages import render
from gongzhu.players.base import Player
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.hints import hints
from gongzhu.players.observation import observe
from gongzhu.players.registry import LEVELS, make_player
from gongzhu.rules.cards import Card, Seat, Suit, parse_card, parse_cards
from gongzhu.rules.deal import Deal
from gongzhu.rules.errors import GongzhuError, message
from gongzhu.rules.match import Match
from gongzhu.rules.model import Play
from gongzhu.rules.options import EXPOSURE_KINDS, Options, parse_option_assignment, resolve_options

__all__ = ["TerminalGame", "phrase", "register", "run"]

_KIND_WORDS: dict[str, str] = {
    **{k: k for k in EXPOSURE_KINDS},
    "明": "shown", "首明": "first", "暗卖": "hidden", "暗": "hidden", "show": "shown",
}
_QUIT = ("quit", "exit", "q", "退出")
_HELP = ("help", "h", "?", "帮助")
_HAND = ("hand", "手牌")
_HINT = ("hint", "提示")


def phrase(key: str, lang: str, **fields: object) -> str:
    """The catalog's phrase ``term.play.<key>`` in ``lang`` with ``{fields}`` filled in."""
    return render(f"term.play.{key}", lang, fields)


class _Quit(Exception):
    """The person quit (``quit`` or end of input)."""


class TerminalGame:
    """A match between a person at ``seat`` and three computer players.

    ``read`` is called with a prompt and returns a line (``input`` by default, looked up when
    called); ``write`` prints one line.  ``players`` replaces some of the computer players
    (random ones by default, seeded from ``seed``).  ``match`` and ``deal`` are the engine
    objects, for whoever drives the game.
    """

    def __init__(
        self,
        options: Options,
        *,
        seed: int,
        seat: Seat = Seat.S,
        lang: str = "en",
        rules: str = "online",
        read: Callable[[str], str] | None = None,
        write: Callable[[str], None] | None = None,
        players: dict[Seat, Player] | None = None,
        level: str = "random",
    ) -> None:
        self.options = options
        self.seed = seed
        self.seat = Seat(seat)
        self.lang = lang
        self.rules = rules
        self._read = read
        self._write = write
        rng = random.Random(seed)
        self.players: dict[Seat, Player] = {
            s: make_player(level, seed=rng.getrandbits(63)) for s in Seat if s != self.seat
        }
        self.players.update((s, p) for s, p in (players or {}).items() if s != self.seat)
        self.match = Match(options, seed=seed, match_id=f"play-{seed}")
        self.deal: Deal | None = None

    # ------------------------------------------------------------------ input and output

    def say(self, text: str = "") -> None:
        if self._write is not None:
            self._write(text)
        else:
            print(text, flush=True)

    def ask(self, prompt: str) -> str:
        """One line of input; ``help`` and ``hand`` are answered here, ``quit`` and the end of
        input end the game."""
        while True:
            try:
                line = self._read(prompt) if self._read is not None else input(prompt)
            except EOFError:
                self.say()
                raise _Quit("eof") from None
            except KeyboardInterrupt:
                self.say()
                raise _Quit("quit") from None
            word = line.strip()
            if word.lower() in _QUIT:
                raise _Quit("quit")
            if word.lower() in _HELP:
                self.say(phrase("help", self.lang))
            elif word.lower() in _HAND:
                self.show_position()
            else:
                return word

    # ------------------------------------------------------------------ words

    def label(self, text: str) -> str:
        """``text`` followed by a colon in the person's language."""
        return text + ("：" if self.lang == "zh" else ": ")

    def who(self, seat: Seat) -> str:
        name = seat_text(seat, self.lang)
        return phrase("you", self.lang, seat=name) if seat == self.seat else name

    def play_text(self, play: Play | list[Card]) -> str:
        return cards_text(tuple(play), self.lang)

    def hand_text(self, cards: list[Card]) -> str:
        """A hand grouped by suit ♠ ♥ ♣ ♦, high cards first."""
        groups = []
        for suit in Suit:
            of_suit = sorted((c for c in cards if c.suit == suit), key=lambda c: -c.rank)
            if of_suit:
                groups.append(" ".join(card_text(c, self.lang) for c in of_suit))
        return "  |  ".join(groups) or "—"

    def exposures_text(self, deal: Deal, *, everything: bool = False) -> str:
        """Exposures as the person may know them: others' hidden ones (暗卖) only as a count,
        except copies already played (R4.4).  ``everything`` shows all (at the deal's end)."""
        if not deal.exposures:
            return t("no_exposures", self.lang)
        parts = []
        for seat in Seat:
            mine = [e for e in deal.exposures if e.seat == seat]
            if not mine:
                continue
            known: list[str] = []
            hidden = 0
            played = _played_by(deal, seat)
            for e in mine:
                if e.kind == "hidden" and seat != self.seat and not everything:
                    if e.card in played:
                        played.remove(e.card)
                    else:
                        hidden += 1
                        continue
                known.append(f"{card_text(e.card, self.lang)}({kind_text(e.kind, self.lang)})")
            if hidden:
                known.append(phrase("hidden_count", self.lang, n=hidden))
            parts.append(f"{self.who(seat)} {' '.join(known)}")
        return "; ".join(parts)

    # ------------------------------------------------------------------ showing the table

    def show_position(self) -> None:
        deal = self.deal
        if deal is None:
            return
        lang = self.lang
        if deal.exposures:
            self.say(self.label(t("exposures", lang)) + self.exposures_text(deal))
        taken = [f"{self.who(s)} {self.play_text(deal.captured(s))}"
                 for s in Seat if deal.captured(s)]
        if taken:
            self.say(f"{self.label(phrase('points_so_far', lang))}{'; '.join(taken)}")
        if deal.turn is not None:
            trick = deal.current_trick
            if trick:
                shown = ", ".join(f"{self.who(s)} {self.play_text(p)}" for s, p in trick)
                self.say(f"{self.label(phrase('table', lang))}{shown}")
            elif deal.turn == self.seat:
                self.say(phrase("table_empty", lang))
        self.say(f"{self.label(t('hand', lang))}{self.hand_text(deal.hand(self.seat))}")
        if deal.turn == self.seat:
            self.say(f"{self.label(t('legal', lang))}{self.legal_text(deal)}")

    def legal_text(self, deal: Deal) -> str:
        plays = deal.legal_plays()
        if all(len(p) == 1 for p in plays):
            return " ".join(card_text(p[0], self.lang) for p in plays)
        # a pair as it is typed: its two cards apart (``♠J ♠J``), the plays apart by commas
        return ", ".join(" ".join(card_text(c, self.lang) for c in p) for p in plays)

    # ------------------------------------------------------------------ the game

    def run(self) -> int:
        try:
            self.play_match()
        except _Quit as q:
            self.say(phrase("eof", self.lang) if q.args == ("eof",) else phrase("bye", self.lang))
        return 0

    def play_match(self) -> None:
        lang = self.lang
        self.say(phrase("intro", lang, rules=self.rules, seat=seat_text(self.seat, lang),
                        seed=self.seed))
        while not self.match.is_over:
            self.play_deal()
        outcome = self.match.outcome()
        self.say()
        self.say(f"== {t('match_over', lang)} ==")
        self.say(f"{self.label(t('total', lang))}{self.scores_text(outcome.totals)}")
        winners = " ".join(self.who(s) for s in outcome.winners)
        self.say(self.label(t("winner", lang)) + winners)
        self.say(self.label(t("pig", lang)) + " ".join(self.who(s) for s in outcome.pigs))

    def play_deal(self) -> None:
        lang = self.lang
        deal = self.deal = self.match.new_deal()
        self.say()
        self.say(f"== {t('deal', lang, n=deal.deal_index + 1)} ==")
        self.say(f"{self.label(t('hand', lang))}{self.hand_text(deal.hand(self.seat))}")
        self.expose(deal)
        self.say(f"{self.label(t('exposures', lang))}{self.exposures_text(deal)}")
        while (seat := deal.turn) is not None:
            if not deal.current_trick:
                self.say()
                trick_no = t("trick", lang, n=len(deal.tricks) + 1)
                self.say(self.label(trick_no) + t("leads", lang, seat=self.who(seat)))
            play = (self.ask_play(deal) if seat == self.seat
                    else safe_play(self.players[seat], observe(deal, seat),
                                   where=f"gongzhu play {self.match.match_id}"))
            tricks = len(deal.tricks)
            deal.play(play, seat)
            self.say(phrase("plays", lang, seat=self.who(seat), cards=self.play_text(play)))
            if len(deal.tricks) > tricks:
                trick = deal.tricks[-1]
                self.say(t("wins", lang, seat=self.who(trick.winner)))
                if trick.taker != trick.winner:
                    self.say(t("takes", lang, seat=self.who(trick.taker)))
        self.match.finish_deal()
        self.show_deal_end(deal)

    def expose(self, deal: Deal) -> None:
        """The exposure phase (R4): you first, then the computer players."""
        lang = self.lang
        if self.seat in deal.undeclared:
            offer = deal.exposable(self.seat)
            if not offer:
                deal.declare(self.seat, [])
            else:
                seen: list[Card] = []
                listed = []
                for c in offer:
                    # each kind as it is typed after the card: ``QS:first``, ``QS:首明``
                    kinds = "/".join(kind_text(k, lang) if lang == "zh" else k
                                     for k in deal.exposure_kinds(self.seat, c))
                    listed.append(f"{card_text(c, lang)}[{kinds}]")
                    seen.append(c)
                self.say(f"{self.label(phrase('may_expose', lang))}{' '.join(listed)}")
                while True:
                    line = self.ask(phrase("expose_prompt", lang))
                    try:
                        items = self.parse_exposures(line)
                        deal.declare(self.seat, items)
                        break
                    except GongzhuError as e:
                        self.say(phrase("refused", lang, why=message(e, lang)))
        for seat in deal.undeclared:
            deal.declare(seat, safe_exposures(self.players[seat], observe(deal, seat),
                                              where=f"gongzhu play {self.match.match_id}"))

    def parse_exposures(self, line: str) -> list[tuple[Card, str] | Card]:
        """``QS AH:first`` → cards, with a kind where one is given (R10 kinds or 明/首明/暗卖)."""
        items: list[tuple[Card, str] | Card] = []
        for token in line.replace(",", " ").split():
            code, sep, kind = token.partition(":")
            c = parse_card(code)
            if not sep:
                items.append(c)
                continue
            word = _KIND_WORDS.get(kind.strip().lower(), _KIND_WORDS.get(kind.strip()))
            if word is None:
                raise _KindError(phrase("unknown_kind", self.lang, kind=kind,
                                        kinds=", ".join(EXPOSURE_KINDS[:3])))
            items.append((c, word))
        return items

    def ask_play(self, deal: Deal) -> Play:
        """Ask until the person types a legal play; a refusal is explained by the engine."""
        self.show_position()
        while True:
            line = self.ask(phrase("play_prompt", self.lang))
            if not line:
                continue
            if line.lower() in _HINT:
                self.show_hints(deal)
                continue
            try:
                return deal.verify_play(parse_cards(line), self.seat)
            except GongzhuError as e:
                self.say(phrase("refused", self.lang, why=message(e, self.lang)))
                if self.options.decks == 2:
                    self.say(phrase("pair_hint", self.lang))

    def show_hints(self, deal: Deal) -> None:
        """The expert's ranking of the person's legal plays, with its reasons."""
        self.say(phrase("hint_head", self.lang))
        for h in hints(observe(deal, self.seat))[:5]:
            self.say(phrase("hint_line", self.lang, cards=self.play_text(h.play), expected=h.expected,
                            reason=h.reason(self.lang)))

    def scores_text(self, values: tuple[int, ...] | list[int]) -> str:
        return "  ".join(f"{self.who(s)} {values[s]}" for s in Seat)

    def show_deal_end(self, deal: Deal) -> None:
        lang = self.lang
        score = deal.score
        self.say()
        self.say(f"-- {t('deal', lang, n=deal.deal_index + 1)} --")
        self.say(f"{self.label(t('exposures', lang))}{self.exposures_text(deal, everything=True)}")
        self.say(self.label(t("captured", lang)).rstrip())
        for s in Seat:
            self.say("  " + self.label(self.who(s)) + self.play_text(deal.captured(s)))
        self.say(f"{self.label(t('raw', lang))}{self.scores_text(score.raw)}")
        self.say(f"{self.label(t('result', lang))}{self.scores_text(score.result)}")
        self.say(f"{self.label(t('final', lang))}{self.scores_text(score.final)}")
        events = ", ".join(f"{self.who(s)} {event_text(e, lang)}" for s, e in score.events)
        self.say(f"{self.label(phrase('events', lang))}{events or phrase('none', lang)}")
        self.say(f"{self.label(t('total', lang))}{self.scores_text(self.match.totals)}")


class _KindError(GongzhuError):
    """An exposure kind the person typed that is not one of R10."""


def _played_by(deal: Deal, seat: Seat) -> list[Card]:
    """Cards ``seat`` has played so far in this deal."""
    out = [c for trick in deal.tricks for s, p in trick.plays if s == seat for c in p]
    return out + [c for s, p in deal.current_trick if s == seat for c in p]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "play",
        help="play a match in the terminal against three computer players",
        description="Play a match of Gongzhu (拱猪) in the terminal against three computer players.",
    )
    p.add_argument("--preset", default="online", help="rule preset (R9), default online")
    p.add_argument("--set", dest="set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one option of R10 on top of the preset (repeatable)")
    p.add_argument("--seed", type=int, default=None, help="seed of the match (default: random)")
    p.add_argument("--lang", choices=LANGS, default="en", help="language: zh or en (default en)")
    p.add_argument("--seat", default="S", help="your seat: N, E, S or W (default S)")
    p.add_argument("--level", default="intermediate",
                   help="the computer players' level: random, beginner, intermediate (default), flatmc, "
                   "learned or expert")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        options = resolve_options(args.preset, dict(parse_option_assignment(s) for s in args.set))
        seat = Seat.parse(args.seat)
        if args.level not in LEVELS:
            raise GongzhuError(f"unknown level {args.level!r}: choose one of {', '.join(LEVELS)}")
    except GongzhuError as e:
        print(f"gongzhu play: {e}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    rules = " ".join([args.preset or "online", *args.set])
    return TerminalGame(options, seed=seed, seat=seat, lang=args.lang, rules=rules, level=args.level).run()
