"""Rule options (R10) and presets (R9).

:class:`Options` is a frozen value holding every key of R10.  Presets are named instances
(:data:`PRESETS`); any key can be overridden on top of one with :meth:`Options.replace` or
:func:`resolve_options`.  A combination the rule book does not define is refused with an
:class:`~gongzhu.rules.errors.OptionError` when the object is built, so no other module ever has
to wonder whether its options make sense.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from gongzhu.rules.cards import EXPOSABLE, JD, Card, parse_card
from gongzhu.rules.errors import OptionError, excerpt

__all__ = [
    "EXPOSURE_KINDS",
    "INTEGER_LIMITS",
    "INTEGER_OPTIONS",
    "MAX_MATCH_DEALS",
    "OPTION_CHOICES",
    "OPTION_KEYS",
    "PRESETS",
    "Decks",
    "Direction",
    "DiscardColor",
    "ExposureRule",
    "FirstLead",
    "HeartValues",
    "Options",
    "Scoring",
    "parse_option_assignment",
    "resolve_options",
]

# The values of each enumerated option key of R10, as the types of the fields of Options.
Decks = Literal[1, 2]
Direction = Literal["ccw", "cw"]
HeartValues = Literal["standard", "book"]
ExposureRule = Literal["standard", "first_card", "hidden", "sell_x4_x2", "all_but_sheep", "all", "none"]
FirstLead = Literal["club2_must", "club2_any", "spade3_any"]
DiscardColor = Literal["off", "enforce", "penalty"]
Scoring = Literal["raw", "zero_sum", "partners", "pig_sheep"]

#: The values each enumerated option key of R10 may take; INTEGER_OPTIONS are positive integers.
OPTION_CHOICES: dict[str, tuple[Any, ...]] = {
    "decks": get_args(Decks),
    "direction": get_args(Direction),
    "heart_values": get_args(HeartValues),
    "exposure": get_args(ExposureRule),
    "auto_expose_fourth": (True, False),
    "exposed_discard_before_suit_led": (True, False),
    "first_lead": get_args(FirstLead),
    "discard_color": get_args(DiscardColor),
    "self_catch": (True, False),
    "scoring": get_args(Scoring),
    "double_pig": (True, False),
}
INTEGER_OPTIONS = ("one_deck_factor", "match_limit")
#: The largest value each integer option may take (R10 gives 12 and 1000; these bounds keep every
#: score well inside a 64-bit integer), and the most deals of ``match_end=deals:N``.
INTEGER_LIMITS: dict[str, int] = {"one_deck_factor": 100, "match_limit": 1_000_000}
MAX_MATCH_DEALS = 1000

#: Per-card exposure kinds as they appear in records (R10).
EXPOSURE_KINDS = ("shown", "first", "hidden", "auto")
_C2 = parse_card("2C")
_S3 = parse_card("3S")
_DECLARABLE: dict[ExposureRule, tuple[str, ...]] = {
    "standard": ("shown",),
    "first_card": ("shown", "first"),
    "hidden": ("hidden",),
    "sell_x4_x2": ("shown", "hidden"),
    "all_but_sheep": (),
    "all": (),
    "none": (),
}


@dataclass(frozen=True, slots=True)
class Options:
    """Every option key of R10.  The defaults are the base of R9 (= the ``online`` preset)."""

    decks: Decks = 1
    direction: Direction = "ccw"
    heart_values: HeartValues = "standard"
    exposure: ExposureRule = "standard"
    auto_expose_fourth: bool = True
    exposed_discard_before_suit_led: bool = False
    first_lead: FirstLead = "club2_must"
    discard_color: DiscardColor = "off"
    self_catch: bool = False
    scoring: Scoring = "zero_sum"
    one_deck_factor: int = 12
    match_limit: int = 1000
    match_end: str = "loser"
    double_pig: bool = False

    def __post_init__(self) -> None:
        for key, choices in OPTION_CHOICES.items():
            value = getattr(self, key)
            # bool is an int subclass: keep True from passing as decks=1 and 1 as True.
            if value not in choices or type(value) is not type(choices[0]):
                shown = ", ".join(_text(c) for c in choices)
                raise OptionError("refusal.option_choice", key=key, value=_text(value), choices=shown)
        for key in INTEGER_OPTIONS:
            value = getattr(self, key)
            if type(value) is not int or not 1 <= value <= INTEGER_LIMITS[key]:
                raise OptionError("refusal.option_integer", key=key, limit=INTEGER_LIMITS[key], value=_text(value))
        if self.match_end not in ("loser", "either"):
            end = self.match_end if isinstance(self.match_end, str) else ""
            n = end.removeprefix("deals:")
            if not (end.startswith("deals:") and n.isascii() and n.isdigit() and len(n) <= 4
                    and 1 <= int(n) <= MAX_MATCH_DEALS):
                raise OptionError("refusal.option_match_end", value=_text(self.match_end), limit=MAX_MATCH_DEALS)
            # Kept as N is counted: "deals:01" is the match of one deal, and is kept as "deals:1".
            object.__setattr__(self, "match_end", f"deals:{int(n)}")
        self._check_combination()

    def _check_combination(self) -> None:
        """Refuse what the rule book does not define (R10), naming the rule that is missing."""
        if self.decks == 2:
            if self.exposure == "first_card":
                raise OptionError("refusal.option_first_card_two_decks")
            if self.exposure == "sell_x4_x2":
                raise OptionError("refusal.option_sell_two_decks")
            if self.self_catch:
                raise OptionError("refusal.option_self_catch_two_decks")
            if self.pig_sheep:
                raise OptionError("refusal.option_pig_sheep_two_decks")
        if self.pig_sheep and self.exposure != "none":
            raise OptionError("refusal.option_pig_sheep_exposure")

    # --- derived facts the engine asks about -------------------------------------------------

    @property
    def clockwise(self) -> bool:
        """Whether dealing and play go clockwise (``direction=cw``, R1)."""
        return self.direction == "cw"

    @property
    def book_hearts(self) -> bool:
        """Whether the hearts take the book's table of values (``heart_values=book``, R2)."""
        return self.heart_values == "book"

    @property
    def first_lead_card(self) -> Card:
        """The card whose holder leads the first trick of the match (R5.1): ♠3 under
        ``first_lead=spade3_any``, else ♣2."""
        return _S3 if self.first_lead == "spade3_any" else _C2

    @property
    def must_lead_club2(self) -> bool:
        """Whether the first lead of the match must be (with two decks: contain) ♣2
        (``first_lead=club2_must``, R5.1)."""
        return self.first_lead == "club2_must"

    @property
    def first_lead_code(self) -> int:
        """``first_lead`` as the C fast path takes it (R5.1): 0 ``club2_must``, 1 ``club2_any``,
        2 ``spade3_any`` — its place in ``OPTION_CHOICES``."""
        return OPTION_CHOICES["first_lead"].index(self.first_lead)

    @property
    def discard_enforced(self) -> bool:
        """Whether an off-colour discard is illegal (``discard_color=enforce``, R5.2)."""
        return self.discard_color == "enforce"

    @property
    def discard_penalty(self) -> bool:
        """Whether an off-colour discard makes its player take the trick's point cards
        (``discard_color=penalty``, R5.2)."""
        return self.discard_color == "penalty"

    @property
    def partnership(self) -> bool:
        """Whether opposite seats play as partners and score as a team (``scoring=partners``,
        R7.3)."""
        return self.scoring == "partners"

    @property
    def pig_sheep(self) -> bool:
        """Whether the pig's and the sheep's takers form a team (猪羊一家, ``scoring=pig_sheep``,
        R7.4)."""
        return self.scoring == "pig_sheep"

    @property
    def shown_x4(self) -> bool:
        """Whether a shown exposure (明卖) multiplies its card's value by 4 rather than 2
        (``exposure=sell_x4_x2``, R4.4)."""
        return self.exposure == "sell_x4_x2"

    @property
    def auto_fourth_applies(self) -> bool:
        """逼明: the automatic fourth exposure applies to one deck, under the exposure kinds that
        leave players a choice (R4.4); elsewhere ``auto_expose_fourth`` has no effect."""
        return (
            self.auto_expose_fourth
            and self.decks == 1
            and self.players_declare
        )

    def auto_fourth(self, exposed: Iterable[Card]) -> Card | None:
        """逼明 (R4.4): the card exposed automatically once every seat has declared — the fourth
        exposable card when the declarations exposed exactly the three others and the rule
        applies (:attr:`auto_fourth_applies`); else None.  The deal and the scorekeeper ask this."""
        if not self.auto_fourth_applies:
            return None
        shown = set(exposed)
        if len(shown) != 3:
            return None
        missing = [c for c in EXPOSABLE if c not in shown]
        return missing[0] if len(missing) == 1 else None

    @property
    def deals_limit(self) -> int | None:
        """The fixed number of deals of ``match_end=deals:N``, else None (R8)."""
        return int(self.match_end[6:]) if self.match_end.startswith("deals:") else None

    @property
    def declarable_kinds(self) -> tuple[str, ...]:
        """The exposure kinds a player chooses from under this ``exposure`` (R4.4): ``first``
        only for the player's first dealt card; nothing where no one chooses (``all``,
        ``all_but_sheep``: the engine applies them; ``none``)."""
        return _DECLARABLE[self.exposure]

    def exposure_kinds(self, c: Card, first_dealt: Card | None) -> tuple[str, ...]:
        """The kinds in which a player whose first dealt card was ``first_dealt`` may declare
        ``c`` (R4.4): none for a card that is not exposable (R4.1), 首明 (``first``) only for the
        first dealt card.  ``Deal`` and a player's ``Observation`` both ask this."""
        if c not in EXPOSABLE:
            return ()
        kinds = self.declarable_kinds
        if "first" in kinds and first_dealt != c:
            kinds = tuple(k for k in kinds if k != "first")
        return kinds

    @property
    def discard_color_code(self) -> int:
        """``discard_color`` as the C fast paths take it (R5.2): 0 ``off``, 1 ``enforce``,
        2 ``penalty`` — its place in ``OPTION_CHOICES``."""
        return OPTION_CHOICES["discard_color"].index(self.discard_color)

    @property
    def players_declare(self) -> bool:
        """Whether the players choose what to expose (R4.4): not under ``none``, ``all`` or
        ``all_but_sheep``, where there is no declaration and play starts at once."""
        return bool(_DECLARABLE[self.exposure])

    @property
    def mandatory_cards(self) -> tuple[Card, ...]:
        """The cards the engine exposes itself, every copy (R4.4): every exposable card under
        ``all`` (分牌全明), every one but the sheep under ``all_but_sheep`` (除羊全明); none
        otherwise."""
        if self.exposure == "all":
            return EXPOSABLE
        if self.exposure == "all_but_sheep":
            return tuple(c for c in EXPOSABLE if c != JD)
        return ()

    @property
    def mandatory_exposure(self) -> bool:
        """Whether the engine exposes the cards itself (R4.4, :attr:`mandatory_cards`)."""
        return bool(self.mandatory_cards)

    @property
    def usual_kind(self) -> str:
        """The kind of a declared card given without one (R4.4): ``hidden`` under
        ``exposure=hidden``, else ``shown``."""
        return "hidden" if self.exposure == "hidden" else "shown"

    @property
    def recorded_kinds(self) -> tuple[str, ...]:
        """The kinds that can appear in a record of a deal under these options (R10, R11):
        the declarable ones, ``shown`` for the mandatory exposures, ``auto`` for 逼明."""
        kinds = _DECLARABLE[self.exposure] or (("shown",) if self.mandatory_exposure else ())
        return (*kinds, "auto") if self.auto_fourth_applies else kinds

    def exposure_factor(self, kind: str) -> int:
        """Value factor f of one exposed card of this kind, one deck (R10)."""
        if kind == "first":
            return 4
        if kind in ("shown", "auto"):
            return 4 if self.shown_x4 else 2
        if kind == "hidden":
            return 2
        raise OptionError(f"unknown exposure kind {excerpt(kind)}: expected one of {EXPOSURE_KINDS}")

    @staticmethod
    def restricted_kind(kind: str) -> bool:
        """Whether an exposed card of this kind is bound by the play restriction of R4.3
        (首明 and 暗卖 cards are exempt, R4.4)."""
        return kind in ("shown", "auto")

    # --- conversions -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every key of R10 with its resolved value, as written in records (R11)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self, **changes: Any) -> Options:
        """A copy with some keys changed; unknown keys and bad values are refused."""
        unknown = sorted(set(changes) - set(OPTION_KEYS))
        if unknown:
            raise OptionError("refusal.option_unknown", key=excerpt(unknown[0]), keys=", ".join(OPTION_KEYS))
        return dataclasses.replace(self, **{k: _coerce(k, v) for k, v in changes.items()})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        return cls().replace(**dict(data))


OPTION_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Options))

#: The presets of R9, as named option sets.
PRESETS: dict[str, Options] = {
    "online": Options(),
    "online2": Options(decks=2, auto_expose_fourth=False),
    "partners": Options(scoring="partners"),
    "partners2": Options(decks=2, auto_expose_fourth=False, scoring="partners"),
    "pig_sheep": Options(exposure="none", auto_expose_fourth=False, scoring="pig_sheep"),
    "tournament": Options(
        exposure="first_card",
        auto_expose_fourth=False,
        exposed_discard_before_suit_led=True,
        self_catch=True,
        scoring="raw",
        match_end="either",
    ),
    "classic": Options(direction="cw", auto_expose_fourth=False, scoring="raw"),
}


def resolve_options(preset: str | None = "online", overrides: Mapping[str, Any] | None = None) -> Options:
    """A preset (R9) with any keys of R10 overridden on top of it."""
    name = preset or "online"
    if name not in PRESETS:
        raise OptionError("refusal.option_unknown_preset", name=excerpt(name), presets=", ".join(PRESETS))
    # Overrides are applied together, so two keys that only make sense side by side can be set.
    return PRESETS[name].replace(**dict(overrides or {}))


def parse_option_assignment(text: str) -> tuple[str, Any]:
    """Read ``key=value`` as written on a command line, e.g. ``decks=2``, ``self_catch=true``."""
    if "=" not in text:
        raise OptionError("refusal.option_assignment", text=excerpt(text))
    key, _, value = text.partition("=")
    key = key.strip()
    if key not in OPTION_KEYS:
        raise OptionError("refusal.option_unknown", key=excerpt(key), keys=", ".join(OPTION_KEYS))
    return key, _coerce(key, value.strip())


def _coerce(key: str, value: Any) -> Any:
    """Turn text (from a command line or JSON) into the option's type, leaving bad values for the
    validator to explain."""
    if not isinstance(value, str):
        return value
    if key in ("decks", *INTEGER_OPTIONS):
        digits = value.strip().lstrip("-")
        return int(value) if digits.isascii() and digits.isdigit() and len(digits) <= 18 else value
    if key in ("auto_expose_fourth", "exposed_discard_before_suit_led", "self_catch", "double_pig"):
        low = value.strip().lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
    return value


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return excerpt(value)
