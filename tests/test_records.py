"""Deal records ``gongzhu-deal/1`` (R11): writing, reading, strict checking and replay.

The golden file ``tests/data/golden.jsonl`` is made by :func:`golden_lines` (random legal play
from fixed seeds); regenerate it with ``python tests/test_records.py`` after a deliberate change
of the format or the rules, and say why in the commit.
"""

from __future__ import annotations

import copy
import io
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from gongzhu.records import (
    FORMAT,
    CheckedDeal,
    DealRecord,
    RecordError,
    check_file,
    check_records,
    deal_to_record,
    dump_record,
    load_records,
    parse_record,
    read_records,
    replay,
    replay_states,
)
from gongzhu.rules import PRESETS, Deal, Match, Options, Seat, parse_card, resolve_options
from gongzhu.rules.cards import hand_size, too_many_copies
from gongzhu.rules.dealing import deal_seed
from gongzhu.rules.errors import IllegalPlayError, OptionError

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "golden.jsonl"

# ----------------------------------------------------------------------------- making records


def random_play(deal: Deal, rng: random.Random) -> None:
    """Finish ``deal`` with random exposures (each card with probability 1/2, R4.4) and random
    legal plays (R5)."""
    for seat in list(deal.undeclared):
        chosen: list[tuple[Any, str]] = []
        for c in deal.exposable(seat):
            if rng.random() < 0.5:
                kinds = [k for k in deal.exposure_kinds(seat, c)
                         if not (k == "first" and any(x == "first" for _, x in chosen))]
                chosen.append((c, rng.choice(kinds)))
        deal.declare(seat, chosen)
    while not deal.is_over:
        deal.play(rng.choice(deal.legal_plays()))


def match_records(
    preset: str, overrides: dict[str, Any], match_id: str, seed: int, deals: int
) -> list[dict[str, Any]]:
    """Up to ``deals`` deals of one match (fewer if it ends first, R8), as records."""
    options = resolve_options(preset, overrides)
    rng = random.Random(f"{match_id}:{seed}")
    match = Match(options, seed=seed, match_id=match_id)
    out: list[dict[str, Any]] = []
    while len(out) < deals and not match.is_over:
        deal = match.new_deal()
        random_play(deal, rng)
        match.finish_deal()
        out.append(deal_to_record(deal, match_id=match_id, preset=preset))
    return out


GOLDEN_SPECS: list[tuple[str, dict[str, Any], str, int, int]] = [
    ("online", {}, "golden-online", 20, 3),  # deal 2 has an automatic fourth exposure (逼明)
    ("online2", {"discard_color": "penalty"}, "golden-online2", 20, 1),  # pairs, takers
    ("tournament", {}, "golden-tournament", 20, 1),  # a 首明 exposure
    ("pig_sheep", {}, "golden-pig-sheep", 20, 1),
    ("classic", {"exposure": "all"}, "golden-classic-all", 20, 1),
]


def golden_lines() -> list[str]:
    return [dump_record(r) for spec in GOLDEN_SPECS for r in match_records(*spec)]


def golden() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def engine_play_error(index: int, trick: int, play: int, cards: list[str]) -> str:
    """The engine's own reason (IllegalPlayError) for playing ``cards`` at that point of
    golden record ``index`` (one deck): replay records quote it verbatim."""
    for deal in replay_states(golden()[index]):
        if deal.phase.value == "play" and len(deal.tricks) == trick and len(deal.current_trick) == play:
            with pytest.raises(IllegalPlayError) as info:
                deal.verify_play(cards)
            return str(info.value)
    raise AssertionError("no such play")


def error_of(record: dict[str, Any]) -> str:
    with pytest.raises(RecordError) as info:
        replay(record)
    return str(info.value)


def file_error(records: list[dict[str, Any]]) -> str:
    text = "\n".join(dump_record(r) for r in records) + "\n"
    with pytest.raises(RecordError) as info:
        check_file(text)
    return str(info.value)


# ----------------------------------------------------------------------------- round trips

VARIANTS: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in PRESETS] + [
    ("online", {"discard_color": "penalty"}),
    ("online", {"discard_color": "enforce"}),
    ("online", {"exposure": "hidden"}),
    ("online", {"exposure": "sell_x4_x2"}),
    ("online", {"exposure": "all_but_sheep", "heart_values": "book"}),
    ("online", {"first_lead": "spade3_any", "direction": "cw"}),
    ("online2", {"discard_color": "penalty", "exposure": "all"}),
    ("partners2", {"first_lead": "club2_any", "direction": "cw"}),
    ("tournament", {"discard_color": "penalty"}),
]


@pytest.mark.parametrize(("preset", "overrides"), VARIANTS)
def test_round_trip(preset: str, overrides: dict[str, Any]) -> None:
    """record → dump → load → replay → record gives the same line, for every preset (R9/R11)."""
    lines: list[str] = []
    for seed in range(3):
        for record in match_records(preset, overrides, f"rt-{preset}-{seed}", seed, 3):
            line = dump_record(record)
            ((number, loaded),) = list(load_records(line))
            assert number == 1
            assert loaded == record
            deal = replay(loaded)
            again = deal_to_record(deal, match_id=record["match"], preset=preset)
            assert dump_record(again) == line
            lines.append(line)
    checked = check_file("\n".join(lines) + "\n")
    assert [c.line for c in checked] == list(range(1, len(lines) + 1))
    if resolve_options(preset, overrides).decks == 2:  # two-deck pair tricks are recorded (R5.3)
        assert any(len(p["cards"]) == 2 for line in lines
                   for t in json.loads(line)["tricks"] for p in t["plays"])


def test_round_trip_sees_every_exposure_kind_and_taker() -> None:
    kinds: set[str] = set()
    takers = 0
    for preset, overrides in VARIANTS:
        for record in [r for seed in range(8) for r in match_records(preset, overrides, "k", seed, 2)]:
            kinds.update(e["kind"] for e in record["exposures"])
            takers += sum("taker" in t for t in record["tricks"])
    assert kinds == {"shown", "first", "hidden", "auto"}
    assert takers > 0


def test_golden_file_is_what_the_engine_writes() -> None:
    """The golden records are exactly what this engine writes from their seeds: any change of
    the format, the dealing or the rules shows up here (regenerate deliberately)."""
    assert GOLDEN.read_text(encoding="utf-8") == "\n".join(golden_lines()) + "\n"


def test_golden_file_checks_out_and_replays_identically() -> None:
    checked = check_file(GOLDEN)
    assert len(checked) == 7
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    for c, line in zip(checked, lines, strict=True):
        assert dump_record(deal_to_record(c.deal, match_id=c.record.match,
                                          preset=c.record.preset)) == line
    first = checked[0]
    assert first.record.match == "golden-online"
    assert first.record.raw == (40, -240, -800, 0)
    assert first.record.final == (4644, 156, -8796, 3996)
    # R3/R5.1: deal 1 is dealt first to and led by deal 0's pig-taker (South), deal 2 by North's.
    assert first.deal.pig_taker == Seat.S
    assert checked[1].record.first_receiver == Seat.S
    assert checked[1].record.tricks[0].leader == Seat.S
    assert checked[2].record.first_receiver == checked[1].deal.pig_taker == Seat.N
    assert [e.kind for e in checked[1].record.exposures] == ["shown", "shown", "shown", "auto"]
    assert any(t.taker != t.winner for t in checked[3].record.tricks)
    assert any(e.kind == "first" for e in checked[4].record.exposures)


# ----------------------------------------------------------------------------- writing


def test_dump_record_is_one_deterministic_line() -> None:
    record = golden()[0]
    shuffled = dict(reversed(list(record.items())))
    shuffled["options"] = dict(reversed(list(record["options"].items())))
    shuffled["hands"] = dict(reversed(list(record["hands"].items())))
    line = dump_record(shuffled)
    assert line == dump_record(record)
    assert "\n" not in line and not line.endswith(" ")
    assert line.startswith('{"format":"gongzhu-deal/1","match":"golden-online","deal_index":0,')
    assert list(json.loads(line)) == [
        "format", "match", "deal_index", "preset", "options", "seed", "first_receiver",
        "hands", "exposures", "tricks", "raw", "final",
    ]
    record["match"] = "北京-1"
    assert '"match":"北京-1"' in dump_record(record)  # ensure_ascii=False


def test_deal_to_record_fields() -> None:
    options = PRESETS["online"]
    deal = Deal.new(options, 42)
    random_play(deal, random.Random(0))
    record = deal_to_record(deal, match_id="m", preset=None)
    assert record["format"] == FORMAT == "gongzhu-deal/1"
    assert record["preset"] is None
    assert record["seed"] == 42
    assert record["options"] == options.to_dict()
    assert record["hands"]["N"] == [c.code for c in deal.dealt[Seat.N]]
    assert len(record["tricks"]) == 13
    assert all("taker" not in t for t in record["tricks"])  # discard_color=off: taker = winner
    assert record["raw"] == dict(zip("NESW", deal.score.raw, strict=True))
    assert record["final"] == dict(zip("NESW", deal.score.final, strict=True))


def test_deal_to_record_without_seed_writes_null_and_replays() -> None:
    dealt = Deal.new(PRESETS["online"], 7)
    deal = Deal(PRESETS["online"], dealt.dealt)
    random_play(deal, random.Random(1))
    record = deal_to_record(deal, match_id="m", preset="online")
    assert record["seed"] is None
    assert replay(record).score == deal.score


def test_deal_to_record_refuses_unfinished_and_inconsistent_deals() -> None:
    deal = Deal.new(PRESETS["online"], 1)
    with pytest.raises(RecordError, match=r"^the deal is not over \(0 tricks played\)"):
        deal_to_record(deal, match_id="m", preset="online")
    later = Deal.new(PRESETS["online"], 1, first_receiver=Seat.E, deal_index=1,
                     previous_pig_taker=Seat.W)
    random_play(later, random.Random(0))
    with pytest.raises(RecordError, match=r"dealt first to the previous pig-taker \(R3\)"):
        deal_to_record(later, match_id="m", preset="online")
    first = Deal.new(PRESETS["online"], 1, first_receiver=Seat.E)
    random_play(first, random.Random(0))
    with pytest.raises(RecordError, match=r"dealt first to North \(R3\)"):
        deal_to_record(first, match_id="m", preset="online")


# ----------------------------------------------------------------------------- reading


def test_load_records_from_path_text_and_stream(tmp_path: Path) -> None:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    text = lines[0] + "\n\n   \n" + lines[1] + "\n"
    path = tmp_path / "two.jsonl"
    path.write_text(text, encoding="utf-8")
    for source in (path, str(path), text, io.StringIO(text)):
        got = list(load_records(source))
        assert [n for n, _ in got] == [1, 4]  # blank lines skipped, numbers kept
        assert got[1][1] == json.loads(lines[1])
    assert list(load_records("")) == []
    assert next(iter(load_records(lines[0])))[0] == 1  # one record, no newline: text


def test_read_records_types_a_record() -> None:
    ((line, rec),) = list(read_records(GOLDEN.read_text(encoding="utf-8").splitlines()[1]))
    assert line == 1
    assert isinstance(rec, DealRecord)
    assert rec.deal_index == 1 and rec.options == PRESETS["online"]
    assert rec.exposures[-1].kind == "auto"
    assert len(rec.hands[Seat.W]) == 13


@pytest.mark.parametrize(("text", "message"), [
    ('{"format": "gongzhu-deal/1",}',
     "line 2: not valid JSON: Expecting property name enclosed in double quotes (column 29)"),
    ("[1, 2]", "line 2: a record is a JSON object, not an array"),
    ('"text"', "line 2: a record is a JSON object, not a string"),
    ('{"format": "gongzhu-deal/1", "format": "x"}',
     "line 2: not valid JSON: duplicate key 'format'"),
    ('{"seed": NaN}', "line 2: not valid JSON: NaN is not a JSON number"),
])
def test_bad_json_names_the_line(text: str, message: str) -> None:
    source = "\n" + text + "\n"
    with pytest.raises(RecordError) as info:
        list(load_records(source))
    assert str(info.value) == message
    assert info.value.line == 2


def corrupt(mutate: Any, index: int = 0) -> dict[str, Any]:
    record = copy.deepcopy(golden()[index])
    mutate(record)
    return record


def _set(path: str, value: Any) -> Any:
    """A mutation setting ``path`` (dotted, with [i]) to ``value``; ``...`` deletes it."""
    parts = [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]

    def mutate(record: dict[str, Any]) -> None:
        obj: Any = record
        for p in parts[:-1]:
            obj = obj[p]
        if value is ...:
            del obj[parts[-1]]
        else:
            obj[parts[-1]] = value
    return mutate


@pytest.mark.parametrize(("path", "value", "message"), [
    ("tricks", ..., "$: missing field 'tricks'"),
    ("final", ..., "$: missing field 'final'"),
    ("format", ..., "missing field 'format' (expected 'gongzhu-deal/1' or 'gongzhu-deal/2'): not a deal record"),
    ("format", "gongzhu-deal/3",
     "$.format: unknown format version 'gongzhu-deal/3': this reader knows 'gongzhu-deal/1' or 'gongzhu-deal/2'"),
    ("format", "pbn", "$.format: 'pbn' is not a deal record format: expected 'gongzhu-deal/1' or 'gongzhu-deal/2'"),
    ("match", 7, '$.match: must be a non-empty string, not an integer (7)'),
    ("match", "", '$.match: must be a non-empty string, not ""'),
    ("deal_index", "0", '$.deal_index: must be a deal number 0, 1, 2 ... (deals count from 0), not a string ("0")'),
    ("deal_index", 0.0,
     '$.deal_index: must be a deal number 0, 1, 2 ... (deals count from 0), not a number with a fraction (0.0)'),
    ("deal_index", -1, '$.deal_index: must be a deal number 0, 1, 2 ... (deals count from 0), not -1'),
    ("preset", 3, '$.preset: must be a string or null, not an integer (3)'),
    ("seed", True, '$.seed: must be an integer or null, not a boolean (true)'),
    ("options.colour", "red",
     "$.options: unknown field 'colour': expected 'decks', 'direction', 'heart_values', 'exposure', "
     "'auto_expose_fourth', 'exposed_discard_before_suit_led', 'first_lead', 'discard_color', "
     "'self_catch', 'scoring', 'one_deck_factor', 'match_limit', 'match_end', 'double_pig'"),
    ("options.double_pig", ...,
     "$.options: missing field 'double_pig'"),
    ("options.decks", 3, '$.options.decks: must be one of 1, 2, not 3'),
    ("options.decks", "2", '$.options.decks: must be one of 1, 2, not a string ("2")'),
    ("options.self_catch", "true", '$.options.self_catch: must be true or false, not a string ("true")'),
    ("options.exposure", "some",
     '$.options.exposure: must be one of standard, first_card, hidden, sell_x4_x2, all_but_sheep, all, none, '
     'not "some"'),
    ("options.scoring", "pig_sheep",
     '$.options: scoring=pig_sheep (猪羊一家) does not allow exposure (R7.4): set exposure=none'),
    ("first_receiver", "X", '$.first_receiver: must be a seat: N, E, S or W, not "X"'),
    ("first_receiver", "E",
     '$.first_receiver: E, but the first deal of a match (deal_index 0) is dealt first to N (R3)'),
    ("hands.X", [], "$.hands: unknown field 'X': expected 'N', 'E', 'S', 'W'"),
    ("hands.W", ..., "$.hands: missing field 'W'"),
    ("hands.N", "7S 2S", '$.hands.N: must be an array, not a string ("7S 2S")'),
    ("hands.N.0", "XS",
     '$.hands.N[0]: must be a card code: rank 23456789TJQKA then suit SHCD, e.g. "QS", "TC", not "XS"'),
    ("hands.N.0", "♠7",
     '$.hands.N[0]: must be a card code: rank 23456789TJQKA then suit SHCD, e.g. "QS", "TC", not "♠7"'),
    ("hands.N.0", "7s",
     '$.hands.N[0]: must be a card code: rank 23456789TJQKA then suit SHCD, e.g. "QS", "TC", not "7s"'),
    ("hands.N.0", 7,
     '$.hands.N[0]: must be a card code: rank 23456789TJQKA then suit SHCD, e.g. "QS", "TC", not an integer (7)'),
    ("hands.N.0", ..., '$.hands.N: 12 cards, but each hand has 13 with 1 deck(s) (R1)'),
    ("exposures.0.card", "AS", '$.exposures[0].card: AS cannot be exposed: only QS, JD, TC and AH can (R4.1)'),
    ("exposures.0.kind", "sold",
     '$.exposures[0].kind: must be an exposure kind: shown, first, hidden or auto (R10), not "sold"'),
    ("exposures.0.seat", "n", '$.exposures[0].seat: must be a seat: N, E, S or W, not "n"'),
    ("exposures.0.note", "x",
     "$.exposures[0]: unknown field 'note': expected 'seat', 'card', 'kind'"),
    ("tricks.0.winner", ..., "$.tricks[0]: missing field 'winner'"),
    ("tricks.0.plays.3", ...,
     '$.tricks[0].plays: must be 4 plays: every player plays once to a trick (R5.2), not an array '
     'of 3 ([{"seat": "S", "cards": ["2C"]}, {"se...)'),
    ("tricks.0.plays.1.cards", ["KC", "7C"],
     '$.tricks[0].plays[1].cards: 2 cards, but a play is one card with one deck (R5.3)'),
    ("tricks.0.plays.1.cards", [],
     '$.tricks[0].plays[1].cards: must be one card, or two in a two-deck pair trick (R5.3), not an array of 0 ([])'),
    ("tricks.0.leader", "E", "$.tricks[0].plays[0].seat: S, but the trick's leader E plays first"),
    ("raw.N", "40", '$.raw.N: must be an integer, not a string ("40")'),
    ("final", [], '$.final: must be an object, not an array ([])'),
])
def test_malformed_field(path: str, value: Any, message: str) -> None:
    record = corrupt(_set(path, value))
    if message.startswith("$.options: option ") or "pig_sheep" in message:
        # The reason is the rules' own OptionError, quoted verbatim (R10); the literal above is
        # today's wording of it.
        with pytest.raises(OptionError) as why:
            Options.from_dict(record["options"])
        message = f"$.options: {why.value}"
    with pytest.raises(RecordError) as info:
        parse_record(record)
    assert str(info.value) == message
    assert error_of(record) == message  # replay checks the structure first


def test_not_an_object() -> None:
    with pytest.raises(RecordError, match=r"^a record is a JSON object, not an array$"):
        parse_record([])


def test_duplicated_card() -> None:
    record = golden()[0]
    dup = record["hands"]["N"][0]
    where = record["hands"]["S"].index("QS")
    record["hands"]["S"][where] = dup
    assert error_of(record) == (
        f"$.hands: {dup} is dealt 2 times ($.hands.N[0], $.hands.S[{where}]), but every card is dealt "
        "exactly once with 1 deck(s) (R1)"
    )


@pytest.mark.parametrize("index", [0, 3], ids=["one deck", "two decks"])
def test_card_counts_are_refused_as_the_rules_core_counts(index: int) -> None:
    """R1: whichever card of a record's hands is put in another's place, the record is refused
    where the rules core's count (``too_many_copies``) finds a card too often, naming that card
    and each of its places; a hand one card short is refused with the core's hand size."""
    record = golden()[index]
    decks = record["options"]["decks"]
    once = "once" if decks == 1 else "twice"
    rng = random.Random(index)
    for _ in range(20):
        bad = copy.deepcopy(record)
        a, b = rng.sample("NESW", 2)
        i, j = rng.randrange(hand_size(decks)), rng.randrange(hand_size(decks))
        if bad["hands"][b][j] == bad["hands"][a][i]:
            continue  # two decks: the other copy already
        bad["hands"][b][j] = bad["hands"][a][i]
        placed = [(parse_card(c), f"$.hands.{s}[{k}]") for s in "NESW" for k, c in enumerate(bad["hands"][s])]
        found = too_many_copies(placed, decks)
        assert found is not None
        c, places = found
        assert error_of(bad) == (f"$.hands: {c.code} is dealt {len(places)} times ({', '.join(places)}), but "
                                 f"every card is dealt exactly {once} with {decks} deck(s) (R1)")
    short = copy.deepcopy(record)
    short["hands"]["E"].pop()
    assert error_of(short) == (f"$.hands.E: {hand_size(decks) - 1} cards, but each hand has {hand_size(decks)} "
                               f"with {decks} deck(s) (R1)")


def test_extra_top_level_fields_are_carried() -> None:
    record = golden()[0]
    record["comment"] = "annotated"
    assert parse_record(record).extra == (("comment", "annotated"),)
    assert replay(record).score.raw == (40, -240, -800, 0)
    assert dump_record(record).endswith(',"comment":"annotated"}')


# ----------------------------------------------------------------------------- replay errors


def test_wrong_winner() -> None:
    record = corrupt(_set("tricks.0.winner", "S"))
    assert error_of(record) == "$.tricks[0].winner: recorded S, but E wins the trick with ♣K (R5.2)"


def test_wrong_winner_two_decks_pair() -> None:
    record = golden()[3]
    i = next(i for i, t in enumerate(record["tricks"])
             if len(t["plays"][0]["cards"]) == 2 and "taker" not in t)
    trick = record["tricks"][i]
    right = trick["winner"]
    cards = next(p["cards"] for p in trick["plays"] if p["seat"] == right)
    shown = "".join(parse_card(c).pretty for c in cards)
    wrong = trick["winner"] = next(s for s in "NESW" if s != right)
    assert error_of(record) == (
        f"$.tricks[{i}].winner: recorded {wrong}, but {right} wins the trick with {shown} (R5.3)"
    )


def test_illegal_play_must_follow_suit() -> None:
    record = corrupt(_set("tricks.0.plays.1.cards", ["JS"]))
    reason = engine_play_error(0, 0, 1, ["JS"])
    assert "follow suit" in reason and "(R5.2)" in reason
    assert error_of(record) == f"$.tricks[0].plays[1].cards: E cannot play ♠J: {reason}"


def test_illegal_play_card_not_held() -> None:
    record = corrupt(_set("tricks.0.plays.0.cards", ["3C"]))
    reason = engine_play_error(0, 0, 0, ["3C"])
    assert "does not hold ♣3" in reason
    assert error_of(record) == f"$.tricks[0].plays[0].cards: S cannot play ♣3: {reason}"


def test_illegal_play_first_lead_must_be_club2() -> None:
    record = corrupt(_set("tricks.0.plays.0.cards", ["4C"]))
    reason = engine_play_error(0, 0, 0, ["4C"])
    assert "♣2" in reason and "(R5.1)" in reason
    assert error_of(record) == f"$.tricks[0].plays[0].cards: S cannot play ♣4: {reason}"


def test_play_out_of_turn() -> None:
    def swap(record: dict[str, Any]) -> None:
        plays = record["tricks"][0]["plays"]
        plays[1], plays[2] = plays[2], plays[1]
    assert error_of(corrupt(swap)) == (
        "$.tricks[0].plays[1].seat: recorded N, but it is E's turn (direction ccw: N → W → S → E, R1)"
    )


def test_wrong_leader_of_a_later_trick() -> None:
    def lead(record: dict[str, Any]) -> None:
        trick = record["tricks"][1]
        trick["leader"] = trick["plays"][0]["seat"] = "N"
    assert error_of(corrupt(lead)) == (
        "$.tricks[1].leader: recorded N, but E leads: the winner of tricks[0] leads the next trick (R5.2)"
    )


def test_wrong_first_leader_of_the_first_deal() -> None:
    def lead(record: dict[str, Any]) -> None:
        trick = record["tricks"][0]
        trick["leader"] = trick["plays"][0]["seat"] = "N"
    assert error_of(corrupt(lead)) == (
        "$.tricks[0].leader: recorded N, but S leads: S holds ♣2 and leads the first trick of the "
        "match (R5.1 first_lead=club2_must)"
    )


def test_wrong_leader_in_deal_2_single_record() -> None:
    def lead(record: dict[str, Any]) -> None:
        trick = record["tricks"][0]
        trick["leader"] = trick["plays"][0]["seat"] = "E"
    assert error_of(corrupt(lead, 1)) == (
        "$.tricks[0].leader: recorded E, but S leads: in a later deal the previous deal's "
        "pig-taker, who is also the first_receiver, leads (R3, R5.1)"
    )


def test_wrong_score() -> None:
    assert error_of(corrupt(_set("raw.N", 50))) == "$.raw.N: recorded 50, but N scores 40 (R6)"
    assert error_of(corrupt(_set("final.W", 0))) == (
        "$.final.W: recorded 0, but W scores 3996 (R7, scoring=zero_sum)"
    )


def test_record_cut_short_or_too_long() -> None:
    def cut(record: dict[str, Any]) -> None:
        del record["tricks"][-1]

    def extend(record: dict[str, Any]) -> None:
        record["tricks"].append(copy.deepcopy(record["tricks"][-1]))
    assert error_of(corrupt(cut)) == (
        "$.tricks: the record ends after 12 tricks, but the deal is not over: 4 cards are still in hand"
    )
    assert error_of(corrupt(extend)) == (
        "$.tricks[13]: the deal is already over after 13 tricks: every card has been played"
    )


def test_seed_must_deal_the_hands() -> None:
    record = corrupt(_set("seed", 21))
    replay(record)  # by default a seed is information: another program's shuffle is not ours
    with pytest.raises(RecordError) as info:
        replay(record, check_seed=True)
    assert re.fullmatch(
        r"\$\.hands: not the hands that seed 21 deals \(R3, first card to N, direction ccw\): "
        r"hands\.N\[\d+\] is [2-9TJQKA][SHCD], the seed deals [2-9TJQKA][SHCD]",
        str(info.value),
    )


def test_wrong_taker() -> None:
    record = golden()[3]
    i = next(i for i, t in enumerate(record["tricks"]) if "taker" in t)
    trick = record["tricks"][i]
    taker, winner = trick.pop("taker"), trick["winner"]
    assert error_of(record) == (
        f"$.tricks[{i}]: no taker recorded, but {taker} broke the discard colour rule first and "
        "takes the point cards (R5.2 discard_color=penalty)"
    )
    other = next(s for s in "NESW" if s not in (taker, winner))
    trick["taker"] = other
    assert error_of(record) == (
        f"$.tricks[{i}].taker: recorded {other}, but {taker} broke the discard colour rule first "
        "and takes the point cards (R5.2 discard_color=penalty)"
    )
    honest = record["tricks"][0]
    assert "taker" not in honest
    honest["taker"] = next(s for s in "NESW" if s != honest["winner"])
    del trick["taker"]
    trick["taker"] = taker
    assert error_of(record) == (
        f"$.tricks[0].taker: recorded {honest['taker']}, but nobody broke the discard colour rule: "
        f"the winner {honest['winner']} takes the point cards (R5.2)"
    )


def test_taker_equal_to_winner_is_accepted() -> None:
    record = golden()[0]
    record["tricks"][0]["taker"] = record["tricks"][0]["winner"]
    assert replay(record).score.raw == (40, -240, -800, 0)


# ----------------------------------------------------------------------------- exposures


def test_exposure_of_a_card_not_held() -> None:
    # golden()[0]: E exposes AH and JD, S exposes QS and TC.
    record = corrupt(_set("exposures.0.seat", "N"))
    fresh = Deal.new(PRESETS["online"], record["seed"])
    with pytest.raises(IllegalPlayError) as info:
        fresh.verify_declare(Seat.N, [("AH", "shown")])
    assert "does not hold ♥A" in str(info.value)
    assert error_of(record) == f"$.exposures[0]: {info.value}"


def test_exposure_kind_not_allowed() -> None:
    record = corrupt(_set("exposures.1.kind", "hidden"))
    message = error_of(record)
    assert message.startswith("$.exposures[1]: exposure kind 'hidden'")
    assert message.endswith("is not allowed under exposure=standard: use shown (R4.4, R10)")


def test_missing_automatic_exposure() -> None:
    def drop(record: dict[str, Any]) -> None:
        del record["exposures"][-1]
    assert error_of(corrupt(drop, 1)) == (
        "$.exposures: three of the four cards are exposed, so the engine exposes AH for N "
        "automatically (逼明, R4.4), but the record has no 'auto' exposure"
    )


def test_automatic_exposure_that_the_engine_does_not_make() -> None:
    record = corrupt(_set("exposures.0.kind", "auto"), 2)  # S's QS, the only exposure
    assert error_of(record) == (
        "$.exposures[0]: automatic exposure of QS by S, but the engine applies none: only when "
        "three of the four cards are exposed, with one deck and auto_expose_fourth=true (逼明, R4.4)"
    )
    wrong = corrupt(_set("exposures.3.card", "JD"), 1)
    assert error_of(wrong) == (
        "$.exposures[3]: recorded JD by N, but the engine exposes AH for N automatically (逼明, R4.4)"
    )


def test_mandatory_exposures_must_be_listed() -> None:
    record = golden()[6]  # exposure=all: the engine exposes every special card (R4.4)
    engine = list(record["exposures"])
    record["exposures"] = engine[:-1]
    message = error_of(record)
    assert message.startswith("$.exposures: under exposure=all the engine exposes ")
    assert "(R4.4), but the record has " in message
    none = golden()[5]  # pig_sheep: exposure=none
    none["exposures"] = [{"seat": "N", "card": "QS", "kind": "shown"}]
    assert error_of(none) == (
        "$.exposures: under exposure=none the engine exposes none (R4.4), but the record has "
        "N QS shown"
    )
    record["exposures"] = list(reversed(engine))  # any order is the same set
    replay(record)


# ----------------------------------------------------------------------------- replay_states


def test_replay_states_steps_through_the_deal() -> None:
    record = golden()[0]
    states = []
    for deal in replay_states(record):
        states.append((deal.phase.value, len(deal.tricks), len(deal.current_trick)))
        last = deal
    assert states[0] == ("expose", 0, 0)
    assert states[1] == ("play", 0, 0)
    assert states[2] == ("play", 0, 1)
    assert states[5] == ("play", 1, 0)
    assert states[-1] == ("over", 13, 0)
    assert len(states) == 2 + 52
    assert last.score.raw == (40, -240, -800, 0)
    # exposure=all: the engine exposes at construction, no exposure phase.
    assert len(list(replay_states(golden()[6]))) == 1 + 52


def test_replay_accepts_a_parsed_record() -> None:
    rec = parse_record(golden()[4])
    assert replay(rec).score.raw == rec.raw


# ----------------------------------------------------------------------------- sequences


def test_wrong_first_receiver_in_deal_2() -> None:
    records = golden()[:3]
    records[1]["first_receiver"] = "E"
    assert file_error(records) == (
        "line 2, match 'golden-online', deal_index 1: $.first_receiver: recorded E, but S took the "
        "pig in deal_index 0 of this match (line 1): a later deal is dealt first to the previous "
        "pig-taker (R3), who leads (R5.1)"
    )


def test_deal_index_gap() -> None:
    records = golden()[:3]
    records[2]["deal_index"] = 3
    assert file_error(records) == (
        "line 3, match 'golden-online', deal_index 3: $.deal_index: expected 2 after deal_index 1 "
        "of this match (line 2), got 3: the deals of a match count up by 1 (R11)"
    )
    repeated = [golden()[0], golden()[0]]
    assert file_error(repeated).startswith(
        "line 2, match 'golden-online', deal_index 0: $.deal_index: expected 1 after deal_index 0"
    )


def test_options_change_within_a_match() -> None:
    records = golden()[:2]
    records[1]["options"]["match_limit"] = 800
    assert file_error(records) == (
        "line 2, match 'golden-online', deal_index 1: $.options: differ from the match's earlier "
        "deals (line 1): match_limit 800 vs 1000; one match is played under one set of options (R8)"
    )


def test_error_in_a_later_line_is_located() -> None:
    records = golden()
    records[4]["tricks"][2]["winner"] = "N" if records[4]["tricks"][2]["winner"] != "N" else "E"
    assert file_error(records).startswith(
        "line 5, match 'golden-tournament', deal_index 0: $.tricks[2].winner: recorded "
    )


def test_bad_json_in_a_file() -> None:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][:-1]  # drop the closing brace
    with pytest.raises(RecordError) as info:
        check_file("\n".join(lines) + "\n")
    assert str(info.value) == (
        f"line 3: not valid JSON: Expecting ',' delimiter (column {len(lines[2]) + 1})"
    )


def test_fragment_and_interleaved_matches() -> None:
    g = golden()
    # A file may start in the middle of a match (a fragment): deal_index 1 is accepted, led by
    # its own first_receiver; matches may be interleaved.
    checked = list(check_records(enumerate([g[1], g[3], g[2], g[4]], start=1)))
    assert [(c.record.match, c.record.deal_index) for c in checked] == [
        ("golden-online", 1), ("golden-online2", 0), ("golden-online", 2), ("golden-tournament", 0),
    ]
    assert all(isinstance(c, CheckedDeal) for c in checked)
    interleaved = [g[0], g[3], g[1], g[4], g[2]]
    assert len(list(check_records(enumerate(interleaved, start=1)))) == 5
    assert [c.line for c in check_records(interleaved)] == [1, 2, 3, 4, 5]  # bare objects


def test_no_deal_after_the_match_is_over() -> None:
    options = PRESETS["online"]
    for seed in range(100):
        records = match_records("online", {}, "short", seed, 5)
        if len(records) < 5:
            break
    else:  # pragma: no cover
        pytest.fail("no short match found")
    match = Match(options, seed=seed)
    totals = [0, 0, 0, 0]
    for r in records:
        totals = [t + x for t, x in zip(totals, replay(r).score.result, strict=True)]
    n = len(records)
    pig = replay(records[-1]).pig_taker
    assert pig is not None
    extra = Deal.new(options, deal_seed(match.seed, n), first_receiver=pig, deal_index=n,
                     previous_pig_taker=pig)
    random_play(extra, random.Random(0))
    records.append(deal_to_record(extra, match_id="short", preset="online"))
    shown = ", ".join(f"{s} {t}" for s, t in zip("NESW", totals, strict=True))
    assert file_error(records) == (
        f"line {n + 1}, match 'short', deal_index {n}: $.deal_index: the match was already over "
        f"after deal_index {n - 1} (totals {shown}; R8 match_end=loser, match_limit=1000): no "
        "further deal belongs to it"
    )
    assert len(check_file("\n".join(dump_record(r) for r in records[1:]))) == n  # a fragment


def test_options_are_authoritative_preset_is_a_note() -> None:
    record = golden()[0]
    record["preset"] = "classic"  # informational only: the options say online
    assert replay(record).options == PRESETS["online"]
    assert parse_record(record).options == Options()


def test_docs_example_is_the_first_golden_record() -> None:
    """docs/records.md shows a record written by the engine: keep it in step."""
    doc = (Path(__file__).parent.parent / "docs" / "records.md").read_text(encoding="utf-8")
    example = re.search(r"```json\n(.*?)\n```", doc, re.S)
    assert example is not None
    assert json.loads(example.group(1)) == golden()[0]


if __name__ == "__main__":  # regenerate the golden file
    DATA.mkdir(exist_ok=True)
    GOLDEN.write_text("\n".join(golden_lines()) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}", file=sys.stderr)
