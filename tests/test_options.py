"""R9 presets and R10 option keys: values, overrides, refused combinations, conversions."""

from __future__ import annotations

import itertools
import typing
from typing import Any

import pytest

from gongzhu.rules import (
    OPTION_KEYS,
    PRESETS,
    OptionError,
    Options,
    parse_option_assignment,
    resolve_options,
)
from gongzhu.rules.errors import message
from gongzhu.rules.options import OPTION_CHOICES, ExposureRule, FirstLead
from helpers.deals import R10_VALUES

# R9 "The base (= online)", transcribed from the rule book, not from the engine.
BASE: dict[str, Any] = {
    "decks": 1,
    "direction": "ccw",
    "heart_values": "standard",
    "exposure": "standard",
    "auto_expose_fourth": True,
    "exposed_discard_before_suit_led": False,
    "first_lead": "club2_must",
    "discard_color": "off",
    "self_catch": False,
    "scoring": "zero_sum",
    "one_deck_factor": 12,
    "match_limit": 1000,
    "match_end": "loser",
    "double_pig": False,
}

# R9 table: options that differ from the base.
PRESET_TABLE: dict[str, dict[str, Any]] = {
    "online": {},
    "online2": {"decks": 2, "auto_expose_fourth": False},
    "partners": {"scoring": "partners"},
    "partners2": {"decks": 2, "auto_expose_fourth": False, "scoring": "partners"},
    "pig_sheep": {"exposure": "none", "auto_expose_fourth": False, "scoring": "pig_sheep"},
    "tournament": {
        "exposure": "first_card",
        "auto_expose_fourth": False,
        "exposed_discard_before_suit_led": True,
        "self_catch": True,
        "scoring": "raw",
        "match_end": "either",
    },
    "classic": {"direction": "cw", "auto_expose_fourth": False, "scoring": "raw"},
}

BAD_VALUES: list[tuple[str, Any]] = [
    ("decks", 0), ("decks", 3), ("decks", "two"), ("decks", True), ("decks", 1.0),
    ("direction", "left"), ("direction", 1),
    ("heart_values", "bk"),
    ("exposure", "shown"), ("exposure", "first"), ("exposure", ""),
    ("auto_expose_fourth", "maybe"), ("auto_expose_fourth", 2),
    ("exposed_discard_before_suit_led", "sometimes"),
    ("first_lead", "club3"), ("first_lead", "spade2_any"),
    ("discard_color", "on"), ("discard_color", True),
    ("self_catch", "perhaps"),
    ("scoring", "team"),
    ("one_deck_factor", 0), ("one_deck_factor", -12), ("one_deck_factor", "x"),
    ("one_deck_factor", 1.5), ("one_deck_factor", True),
    ("match_limit", 0), ("match_limit", -1000), ("match_limit", "lots"),
    ("match_end", "never"), ("match_end", "deals:0"), ("match_end", "deals:"),
    ("match_end", "deals:x"), ("match_end", "deals:-3"), ("match_end", "Loser"),
    ("match_end", "deals:+5"), ("match_end", "deals: 5"),
    ("double_pig", "both"),
]


def defined(opts: dict[str, Any]) -> bool:
    """The combinations R4.4, R4.5, R6.1, R7.4 and R10 leave undefined."""
    if opts["decks"] == 2 and (
        opts["exposure"] in ("first_card", "sell_x4_x2")
        or opts["self_catch"]
        or opts["scoring"] == "pig_sheep"
    ):
        return False
    return not (opts["scoring"] == "pig_sheep" and opts["exposure"] != "none")


def test_option_keys_are_r10() -> None:
    """R10: the engine uses exactly these keys."""
    assert set(OPTION_KEYS) == set(R10_VALUES)
    assert set(OPTION_KEYS) == set(BASE)


def test_default_is_the_base() -> None:
    """R9: the base is the online preset, and Options() is the base."""
    assert Options().to_dict() == BASE
    assert resolve_options().to_dict() == BASE
    assert resolve_options(None).to_dict() == BASE


def test_preset_names() -> None:
    """R9: the seven presets."""
    assert set(PRESETS) == set(PRESET_TABLE)


@pytest.mark.parametrize("name", sorted(PRESET_TABLE))
def test_preset_equals_r9_table(name: str) -> None:
    """R9: every key of every preset, exactly."""
    expected = BASE | PRESET_TABLE[name]
    got = PRESETS[name].to_dict()
    for key in BASE:
        assert got[key] == expected[key], (name, key)
        assert type(got[key]) is type(expected[key]), (name, key)
    assert got == expected
    assert resolve_options(name) == PRESETS[name]


def _override_cases() -> list[tuple[str, str, Any]]:
    return [
        (name, key, value)
        for name in sorted(PRESET_TABLE)
        for key, values in R10_VALUES.items()
        for value in values
    ]


@pytest.mark.parametrize(("name", "key", "value"), _override_cases())
def test_every_key_settable_on_every_preset(name: str, key: str, value: Any) -> None:
    """R9 "Every option of R10 must be settable on its own on top of a preset"; R10 refuses the
    combinations the rules do not define, never guessing."""
    expected = BASE | PRESET_TABLE[name] | {key: value}
    if defined(expected):
        opts = resolve_options(name, {key: value})
        assert opts.to_dict() == expected
        assert PRESETS[name].replace(**{key: value}) == opts
        # The same override given as command-line text.
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        k, v = parse_option_assignment(f"{key}={text}")
        assert resolve_options(name, {k: v}) == opts
    else:
        with pytest.raises(OptionError):
            resolve_options(name, {key: value})


def test_every_defined_combination_of_choice_keys_builds() -> None:
    """R10: the refused combinations are exactly the undefined ones, over the whole product of the
    choice keys that interact (decks, exposure, self_catch, scoring, auto_expose_fourth)."""
    keys = ("decks", "exposure", "self_catch", "scoring", "auto_expose_fourth")
    built = refused = 0
    for values in itertools.product(*(R10_VALUES[k] for k in keys)):
        wanted = BASE | dict(zip(keys, values, strict=True))
        if defined(wanted):
            assert Options(**wanted).to_dict() == wanted
            built += 1
        else:
            with pytest.raises(OptionError):
                Options(**wanted)
            refused += 1
    # one deck 112 - 24 pig_sheep with exposure; two decks 5 exposures x 3 scorings x 2
    assert (built, refused) == (88 + 30, 224 - 118)


@pytest.mark.parametrize(("key", "value"), BAD_VALUES)
def test_bad_values_are_refused_naming_the_key(key: str, value: Any) -> None:
    """R10: a bad value is refused with a message that names the key."""
    with pytest.raises(OptionError, match=key):
        Options().replace(**{key: value})
    with pytest.raises(OptionError, match=key):
        resolve_options("online", {key: value})


@pytest.mark.parametrize("value", [5, None, ["loser"], 16.0])
def test_non_string_match_end_is_refused_naming_the_key(value: Any) -> None:
    """R10: a bad value is refused with a clear error (an OptionError naming the key), also when
    it is not a string (e.g. read from a JSON record)."""
    with pytest.raises(OptionError, match="match_end"):
        Options.from_dict({"match_end": value})
    with pytest.raises(OptionError, match="match_end"):
        Options(match_end=value)


def test_bad_value_message_lists_the_choices() -> None:
    """R10: the refusal names the key, the value and the choices."""
    with pytest.raises(OptionError) as info:
        resolve_options("online", {"exposure": "shown"})
    message = str(info.value)
    assert "exposure" in message and "'shown'" in message
    for choice in R10_VALUES["exposure"]:
        assert choice in message


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"decks": 2, "exposure": "first_card"}, ["first_card", "decks=2"]),
        ({"decks": 2, "exposure": "sell_x4_x2"}, ["sell_x4_x2", "decks=2"]),
        ({"decks": 2, "self_catch": True}, ["self_catch", "decks=2"]),
        ({"decks": 2, "scoring": "pig_sheep", "exposure": "none"}, ["pig_sheep", "one deck"]),
        ({"scoring": "pig_sheep"}, ["pig_sheep", "exposure=none"]),
        ({"scoring": "pig_sheep", "exposure": "all"}, ["pig_sheep", "exposure=none"]),
        ({"scoring": "pig_sheep", "exposure": "first_card"}, ["pig_sheep", "exposure=none"]),
    ],
)
def test_refused_combinations(overrides: dict[str, Any], words: list[str]) -> None:
    """R10: undefined combinations (R4.4 first_card and sell_x4_x2 one deck, R6.1 self_catch one
    deck, R7.4 pig_sheep one deck and no exposure) raise OptionError saying why."""
    with pytest.raises(OptionError) as info:
        Options(**overrides)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(
    "exposure", ["standard", "first_card", "hidden", "sell_x4_x2", "all_but_sheep", "all"]
)
def test_pig_sheep_refuses_every_exposure_but_none(exposure: str) -> None:
    """R7.4: exposure is not allowed with 猪羊一家."""
    with pytest.raises(OptionError, match="pig_sheep"):
        resolve_options("pig_sheep", {"exposure": exposure})
    assert resolve_options("pig_sheep", {"exposure": "none"}) == PRESETS["pig_sheep"]


def test_overrides_applied_together() -> None:
    """R10: two keys that only make sense together can be set at once."""
    opts = resolve_options("online", {"scoring": "pig_sheep", "exposure": "none"})
    assert (opts.scoring, opts.exposure) == ("pig_sheep", "none")
    opts = resolve_options("tournament", {"decks": 2, "exposure": "standard", "self_catch": False})
    assert (opts.decks, opts.exposure, opts.self_catch) == (2, "standard", False)


def test_unknown_key_and_preset() -> None:
    """R9/R10: unknown keys and presets are refused by name."""
    with pytest.raises(OptionError, match="unknown option 'deck'"):
        resolve_options("online", {"deck": 2})
    with pytest.raises(OptionError, match="unknown preset 'hearts'"):
        resolve_options("hearts")
    with pytest.raises(OptionError, match="unknown option"):
        Options.from_dict({"colour": "red"})


@pytest.mark.parametrize(
    ("text", "limit"), [("deals:16", 16), ("deals:1", 1), ("deals:200", 200), ("loser", None),
                        ("either", None)]
)
def test_match_end_deals_n(text: str, limit: int | None) -> None:
    """R8/R10: match_end deals:N."""
    assert Options(match_end=text).deals_limit == limit


@pytest.mark.parametrize(("text", "kept"),
                         [("deals:01", "deals:1"), ("deals:0016", "deals:16"), ("deals:16", "deals:16")])
def test_match_end_deals_n_is_kept_as_n_is_counted(text: str, kept: str) -> None:
    """A leading zero does not change the number of deals, and is not kept to be shown."""
    opts = Options(match_end=text)
    assert opts.match_end == kept and opts.to_dict()["match_end"] == kept
    assert Options.from_dict(opts.to_dict()) == opts


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("decks=2", ("decks", 2)),
        (" decks = 1 ", ("decks", 1)),
        ("direction=cw", ("direction", "cw")),
        ("self_catch=true", ("self_catch", True)),
        ("self_catch=True", ("self_catch", True)),
        ("self_catch=yes", ("self_catch", True)),
        ("self_catch=1", ("self_catch", True)),
        ("double_pig=false", ("double_pig", False)),
        ("double_pig=off", ("double_pig", False)),
        ("auto_expose_fourth=0", ("auto_expose_fourth", False)),
        ("one_deck_factor=1", ("one_deck_factor", 1)),
        ("match_limit=800", ("match_limit", 800)),
        ("match_end=deals:16", ("match_end", "deals:16")),
        ("scoring=pig_sheep", ("scoring", "pig_sheep")),
    ],
)
def test_parse_option_assignment(text: str, pair: tuple[str, Any]) -> None:
    """R10: ``key=value`` as on a command line, with the value in the key's type."""
    key, value = parse_option_assignment(text)
    assert (key, value) == pair
    assert type(value) is type(pair[1])


@pytest.mark.parametrize(
    ("text", "message"),
    [("decks", "key=value"), ("", "key=value"), ("deck=2", "unknown option 'deck'"),
     ("=2", "unknown option")],
)
def test_parse_option_assignment_refuses(text: str, message: str) -> None:
    """R10: malformed key=value text is refused."""
    with pytest.raises(OptionError, match=message):
        parse_option_assignment(text)


def test_parsed_bad_value_is_refused_when_applied() -> None:
    """R10: a parsed bad value is refused when it is applied."""
    key, value = parse_option_assignment("decks=three")
    with pytest.raises(OptionError, match="decks"):
        resolve_options("online", {key: value})


@pytest.mark.parametrize("name", sorted(PRESET_TABLE))
def test_to_dict_from_dict_round_trip(name: str) -> None:
    """R11 records hold every key of R10, resolved; reading them back gives the same options."""
    opts = PRESETS[name]
    data = opts.to_dict()
    assert list(data) == list(OPTION_KEYS)
    assert Options.from_dict(data) == opts
    # JSON-ish text values read back too.
    text = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in data.items()}
    assert Options.from_dict(text) == opts


def test_options_are_frozen_and_hashable() -> None:
    """R9/R10: options are values; online + decks=2 + auto off = online2."""
    opts = PRESETS["online"]
    with pytest.raises(AttributeError):
        opts.decks = 2  # type: ignore[misc]
    assert hash(opts) == hash(Options())
    assert opts.replace(decks=2, auto_expose_fourth=False) == PRESETS["online2"]


@pytest.mark.parametrize(
    ("overrides", "applies"),
    [
        ({}, True),
        ({"exposure": "first_card"}, True),
        ({"exposure": "hidden"}, True),
        ({"exposure": "sell_x4_x2"}, True),
        ({"exposure": "all_but_sheep"}, False),
        ({"exposure": "all"}, False),
        ({"exposure": "none"}, False),
        ({"auto_expose_fourth": False}, False),
        ({"decks": 2}, False),
    ],
)
def test_auto_fourth_applies(overrides: dict[str, Any], applies: bool) -> None:
    """R4.4/R4.5: 逼明 under standard, first_card, hidden, sell_x4_x2, one deck only."""
    assert Options(**overrides).auto_fourth_applies is applies


@pytest.mark.parametrize(
    ("exposure", "kind", "factor"),
    [
        ("standard", "shown", 2), ("standard", "auto", 2), ("standard", "first", 4),
        ("standard", "hidden", 2),
        ("sell_x4_x2", "shown", 4), ("sell_x4_x2", "hidden", 2), ("sell_x4_x2", "auto", 4),
        ("first_card", "first", 4), ("first_card", "shown", 2),
        ("hidden", "hidden", 2),
    ],
)
def test_exposure_factor(exposure: ExposureRule, kind: str, factor: int) -> None:
    """R10 per-card exposure kinds: shown 2, first 4, hidden 2, sell_x4_x2 shown 4 / hidden 2,
    auto as shown."""
    assert Options(exposure=exposure).exposure_factor(kind) == factor


def test_exposure_factor_unknown_kind() -> None:
    """R10: only the four exposure kinds exist."""
    with pytest.raises(OptionError, match="unknown exposure kind 'open'"):
        Options().exposure_factor("open")


def test_restricted_kinds() -> None:
    """R4.3/R4.4: shown and auto are restricted in play; first and hidden are not."""
    assert [Options.restricted_kind(k) for k in ("shown", "auto", "first", "hidden")] == [
        True, True, False, False,
    ]


def test_choice_fields_are_typed_with_their_choices() -> None:
    """R10: each enumerated key's field type admits exactly the values OPTION_CHOICES allows, so a
    misspelt value in code is a type error."""
    hints = typing.get_type_hints(Options)
    for key, choices in OPTION_CHOICES.items():
        assert choices == tuple(R10_VALUES[key])
        kind = hints[key]
        assert (typing.get_args(kind) if kind is not bool else (True, False)) == choices, key


# Each predicate with the values of its key that make it true, transcribed from the rule book.
PREDICATES: dict[str, tuple[str, set[Any]]] = {
    "clockwise": ("direction", {"cw"}),  # R1
    "book_hearts": ("heart_values", {"book"}),  # R2
    "players_declare": ("exposure", {"standard", "first_card", "hidden", "sell_x4_x2"}),  # R4.4
    "mandatory_exposure": ("exposure", {"all", "all_but_sheep"}),  # R4.4
    "shown_x4": ("exposure", {"sell_x4_x2"}),  # R4.4
    "must_lead_club2": ("first_lead", {"club2_must"}),  # R5.1
    "discard_enforced": ("discard_color", {"enforce"}),  # R5.2
    "discard_penalty": ("discard_color", {"penalty"}),  # R5.2
    "partnership": ("scoring", {"partners"}),  # R7.3
    "pig_sheep": ("scoring", {"pig_sheep"}),  # R7.4
}


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_predicates(name: str) -> None:
    """R1–R7: each named condition holds for exactly the values of its key the rule names."""
    key, true_for = PREDICATES[name]
    for value in R10_VALUES[key]:
        extra = {"exposure": "none"} if key == "scoring" and value == "pig_sheep" else {}
        assert getattr(Options().replace(**{key: value}, **extra), name) is (value in true_for), (key, value)


@pytest.mark.parametrize(
    ("first_lead", "card", "code"),
    [("club2_must", "2C", 0), ("club2_any", "2C", 1), ("spade3_any", "3S", 2)],
)
def test_first_lead_card_and_code(first_lead: FirstLead, card: str, code: int) -> None:
    """R5.1: the holder of ♣2 leads, or of ♠3 under spade3_any; the C fast path numbers the
    choices 0, 1, 2."""
    opts = Options().replace(first_lead=first_lead)
    assert (opts.first_lead_card.code, opts.first_lead_code) == (card, code)


def test_option_refusals_speak_both_languages() -> None:
    """R10: a refused option set is a catalog refusal: English text, a code, and the Chinese."""
    with pytest.raises(OptionError) as caught:
        Options(decks=2, exposure="first_card")
    assert caught.value.code == "refusal.option_first_card_two_decks"
    assert str(caught.value).startswith("exposure=first_card (首明) is defined for one deck only (R4.4)")
    assert message(caught.value, "zh").startswith("exposure=first_card（首明）只适用于一副牌")
    with pytest.raises(OptionError) as caught:
        resolve_options("nope", {})
    assert caught.value.params == {"name": "'nope'", "presets": ", ".join(PRESETS)}
    assert message(caught.value, "zh") == f"没有预设 'nope'：请从 {', '.join(PRESETS)} 中选一个"
