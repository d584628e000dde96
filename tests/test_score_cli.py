"""``gongzhu score``, the table scorekeeper (cli/score.py, docs/score.md).

Every worked scoring example of docs/rules.md (R4.5, R6, R7.2, R7.3) is built here as a full score
input; then one test per option that changes a score, and one per refusal (exit status 2).
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

from gongzhu.cli import score
from gongzhu.cli.score import ScoreInputError, score_input
from gongzhu.rules.cards import ALL_CARDS

HEARTS = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"
NOT_ALL_HEARTS = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H"  # −200 without 满红
SEATS = ("N", "E", "S", "W")


def cap(**seats: str) -> dict[str, list[str]]:
    """Captured cards per seat, written as text: ``cap(N="QS AH", E="JD")``."""
    return {seat: text.split() for seat, text in seats.items()}


def hands_with(**fixed: str) -> dict[str, list[str]]:
    """A valid one-deck deal: each seat's given cards first (in that order: the first dealt card
    comes first), then the unused cards dealt round-robin to the seats still short of 13."""
    hands = {s: fixed.get(s, "").split() for s in SEATS}
    used = {c for h in hands.values() for c in h}
    spare = [c.code for c in ALL_CARDS if c.code not in used]
    seat = 0
    for c in spare:
        while len(hands[SEATS[seat]]) >= 13:
            seat = (seat + 1) % 4
        hands[SEATS[seat]].append(c)
        seat = (seat + 1) % 4
    return hands


def seats(*values: int) -> dict[str, int]:
    return dict(zip(SEATS, values, strict=True))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gongzhu")
    score.register(p.add_subparsers(dest="command"))
    return p


def cli(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    stdin: str | None = None,
) -> tuple[int, str, str]:
    """Run ``gongzhu score ARGV`` through the sub-command's own parser; (status, out, err)."""
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    args = parser().parse_args(["score", *argv])
    code: int = args.run(args)
    out, err = capsys.readouterr()
    return code, out, err


def refused(data: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            *words: str) -> str:
    """The input is refused on stderr with exit status 2, the message containing ``words``."""
    text = data if isinstance(data, str) else json.dumps(data)
    code, out, err = cli([], capsys, monkeypatch, stdin=text)
    assert code == 2
    assert out == ""
    assert err.startswith("gongzhu score: error: ")
    for w in words:
        assert w in err, (w, err)
    if not isinstance(data, str):
        with pytest.raises(ScoreInputError):
            score_input(data)
    return err


# A plain online deal: nothing exposed, every point card taken by someone.
PLAIN = cap(N="QS", E="JD", S="TC AH", W="KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H")


# ---------------------------------------------------------------- worked examples of docs/rules.md


def test_r6_first_example_pig_hearts_with_exposed_heart_ace() -> None:
    """R6: ♠Q, ♥6 8 10 J with ♥A exposed by someone, ♣10 not exposed:
    (−100 + (−20 × 3) + (−40)) × 2 = −400."""
    data = {
        "captured": cap(N="QS 6H 8H TH JH TC", E="AH KH QH 9H 7H", S="JD 5H 4H", W="3H 2H"),
        "exposures": [{"seat": "E", "card": "AH", "kind": "shown"}],
    }
    out = score_input(data)
    assert out["raw"]["N"] == -400
    assert out["raw"] == seats(-400, -2 * (50 + 40 + 30 + 10 + 10), 100 - 20, 0)


def test_r6_second_example_grand_slam_with_self_caught_sheep() -> None:
    """R6 / R6.1: grand slam, ♠Q and ♥A exposed, ♦J self-caught, ♣10 not exposed:
    (200 + 400 + 200) × 2 = +1600."""
    data = {
        "preset": "tournament",  # self_catch=true, scoring=raw (R9)
        "captured": cap(S="QS JD TC " + HEARTS),
        "exposures": [{"seat": "N", "card": "QS"}, {"seat": "E", "card": "AH"}],
        "hands": hands_with(N="QS", E="AH", S="JD", W="TC"),
    }
    out = score_input(data)
    assert out["raw"] == seats(0, 0, 1600, 0)
    assert out["result"] == out["final"] == out["raw"]  # R7.1 raw scoring
    events = {(e["seat"], e["event"]) for e in out["events"]}
    assert events == {("S", "self_catch:JD"), ("S", "all_hearts"), ("S", "grand_slam")}


TWO_DECK_EXPOSURES = [
    {"seat": s, "card": c} for c in ("TC", "AH", "QS") for s in ("N", "E")
]


def test_r45_two_decks_heart_ace_and_two_transformers() -> None:
    """R4.5: both ♣10, both ♥A, both ♠Q exposed; ♥A ♣10 ♣10 scores (−50 × 4) × 16 = −3200."""
    data = {
        "preset": "online2",
        "captured": cap(
            N="AH TC TC",
            E="AH " + " ".join(HEARTS.split()[1:] * 2),  # 25 hearts: not 满红
            S="QS QS",
            W="JD JD",
        ),
        "exposures": TWO_DECK_EXPOSURES,
    }
    out = score_input(data)
    assert out["raw"]["N"] == -3200
    assert out["raw"]["S"] == -800  # each ♠Q −400 with both exposed
    assert out["raw"]["W"] == 200  # ♦J not exposed: +100 each
    assert out["final"] == out["result"]  # the one-deck factor is for one deck only (R7.2)


def test_r45_two_decks_two_pigs_and_two_transformers() -> None:
    """R4.5: a player who took ♠Q ♠Q ♣10 ♣10 scores (−400 × 2) × 16 = −12800."""
    data = {
        "preset": "online2",
        "captured": cap(N="QS QS TC TC", E=HEARTS, S=HEARTS, W="JD JD"),
        "exposures": TWO_DECK_EXPOSURES,
    }
    assert score_input(data)["raw"]["N"] == -12800


def test_r72_zero_sum_example() -> None:
    """R7.2: raws −120, −280, 0, 160 → −80, −293, 80, 293 → × 12 → −960, −3516, 960, 3516."""
    data = {
        "captured": cap(N="AH KH QH", E="QS TC JH TH 9H", S="4H 3H 2H", W="JD 8H 7H 6H 5H"),
        "exposures": [{"seat": "W", "card": "JD"}],
    }
    out = score_input(data)
    assert out["raw"] == seats(-120, -280, 0, 160)
    assert out["result"] == seats(-80, -293, 80, 293)
    assert out["final"] == seats(-960, -3516, 960, 3516)


def test_r73_partnership_example() -> None:
    """R7.3: raws −190, 50, −10, 0 → N–S −125, E–W 125 → × 12 → −1500, 1500, −1500, 1500."""
    data = {
        "preset": "partners",
        "captured": cap(N="QS AH KH", E="TC", S="TH", W="JD QH JH 9H 8H 7H 6H 5H 4H 3H 2H"),
    }
    out = score_input(data)
    assert out["raw"] == seats(-190, 50, -10, 0)
    assert out["result"] == seats(-125, 125, -125, 125)
    assert out["final"] == seats(-1500, 1500, -1500, 1500)
    assert out["events"] == [{"seat": "E", "event": "transformer_alone"}]


def test_r73_second_example_split_hearts_are_not_all_hearts() -> None:
    """R7.3: East ♥A 6 9 7 10 (−90), West ♥2 3 4 5 8 J Q K and ♣10 (−220): the team scores
    −310, not 满红 (each player is scored on their own cards)."""
    data = {
        "preset": "partners",
        "captured": cap(N="QS", E="AH 6H 9H 7H TH", S="JD", W="2H 3H 4H 5H 8H JH QH KH TC"),
    }
    out = score_input(data)
    assert out["raw"] == seats(-100, -90, 100, -220)
    assert out["raw"]["E"] + out["raw"]["W"] == -310
    assert not any(e["event"] == "all_hearts" for e in out["events"])
    assert out["result"] == seats(155, -155, 155, -155)
    assert out["final"] == seats(1860, -1860, 1860, -1860)


# ---------------------------------------------------------------- options


@pytest.mark.parametrize(("table", "north"), [("standard", 0), ("book", -10)])
def test_heart_values_book_makes_heart_four_minus_ten(table: str, north: int) -> None:
    """R2 ``heart_values``: ♥4 is 0 in the standard table, −10 in the book table."""
    data = {
        "options": {"heart_values": table, "scoring": "raw"},
        "captured": cap(N="4H", E="AH KH QH JH TH 9H 8H 7H 6H 5H 3H 2H", S="QS", W="JD TC"),
    }
    assert score_input(data)["raw"]["N"] == north


@pytest.mark.parametrize(
    ("taker", "raw", "events"),
    [("N", -200, [{"seat": "N", "event": "self_catch:QS"}]), ("E", -100, [])],
)
def test_self_catch_doubles_own_pig(taker: str, raw: int, events: list[dict[str, str]]) -> None:
    """R6.1 自得: the pig dealt to North and taken back by North counts twice."""
    captured = {"N": [], "E": [], "S": ["JD", "TC", "2H"], "W": NOT_ALL_HEARTS.split()}
    captured[taker] = ["QS"]
    data = {"preset": "tournament", "captured": captured, "hands": hands_with(N="QS AH JD TC")}
    out = score_input(data)
    assert out["raw"][taker] == raw
    assert [e for e in out["events"] if e["event"].startswith("self_catch")] == events


def test_self_catch_with_first_exposure_and_transformer_alone() -> None:
    """R4.4 首明 ×4 and R6.1 ×2 stack: −100 × 4 × 2; a self-caught ♣10 alone is 50 × 2."""
    data = {
        "preset": "tournament",
        "captured": cap(N="QS", E="TC", S="JD 2H", W=NOT_ALL_HEARTS),
        "exposures": [{"seat": "N", "card": "QS", "kind": "first"}],
        "hands": hands_with(N="QS AH", E="TC", W="JD"),
    }
    out = score_input(data)
    assert out["raw"] == seats(-800, 100, 100, -200)


@pytest.mark.parametrize(
    ("kind", "pig", "transformer"), [("shown", -400, 200), ("hidden", -200, 100)]
)
def test_sell_x4_x2_factors(kind: str, pig: int, transformer: int) -> None:
    """R4.4 ``sell_x4_x2``: 明卖 (shown) ×4, 暗卖 (hidden) ×2 (R10 factors)."""
    data = {
        "options": {"exposure": "sell_x4_x2", "scoring": "raw"},
        "captured": cap(N="QS", E="TC", S="JD 2H", W=NOT_ALL_HEARTS),
        "exposures": [{"seat": "N", "card": "QS", "kind": kind},
                      {"seat": "S", "card": "TC", "kind": kind}],
    }
    out = score_input(data)
    assert out["raw"] == seats(pig, transformer, 100, -200)


@pytest.mark.parametrize(
    ("card", "captured", "north"),
    [
        ("QS", "QS", -400),  # ♠Q ×4
        ("AH", "AH KH", -360),  # every heart ×4
        ("TC", "TC", 200),  # transformer alone 50 × 4
        ("TC", "TC KH", -320),  # multiplier 2 × 4 = 8
    ],
)
def test_first_card_exposure_is_times_four(card: str, captured: str, north: int) -> None:
    """R4.4 首明 (``first``): factor 4 instead of 2."""
    rest = [c for c in ["QS", "JD", "TC", *HEARTS.split()] if c not in captured.split()]
    data = {
        "options": {"exposure": "first_card", "scoring": "raw"},
        "captured": {"N": captured.split(), "E": rest},
        "exposures": [{"seat": "N", "card": card, "kind": "first"}],
        "hands": hands_with(N=card),
    }
    assert score_input(data)["raw"]["N"] == north


def test_hidden_exposure_is_times_two_and_the_default_kind() -> None:
    """R4.4 暗卖 under ``exposure=hidden``: ×2, and ``kind`` defaults to ``hidden``."""
    data = {
        "options": {"exposure": "hidden", "scoring": "raw"},
        "captured": PLAIN,
        "exposures": [{"seat": "N", "card": "QS"}, {"seat": "E", "card": "JD", "kind": "hidden"}],
    }
    out = score_input(data)
    assert out["raw"] == seats(-200, 200, -100, -150)
    assert [e["kind"] for e in out["exposures"]] == ["hidden", "hidden"]


def test_pig_sheep_one_against_three() -> None:
    """R7.4: North took pig and sheep: North gets T1 − T2, the others (T2 − T1) / 3 rounded."""
    data = {
        "preset": "pig_sheep",
        "captured": cap(N="QS JD", E="AH KH QH JH TH", S="9H 8H 7H 6H 5H 4H 3H", W="2H TC"),
    }
    out = score_input(data)
    assert out["raw"] == seats(0, -150, -50, 0)
    assert out["result"] == seats(200, -67, -67, -67)  # −200 / 3 rounds to −67 (R10)
    assert out["final"] == seats(2400, -804, -804, -804)


def test_pig_sheep_two_against_two() -> None:
    """R7.4: pig with North, sheep with East: N–E against S–W, scored as R7.3."""
    data = {
        "preset": "pig_sheep",
        "captured": cap(N="QS AH", E="JD", S="KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", W="TC"),
    }
    out = score_input(data)
    assert out["raw"] == seats(-150, 100, -150, 50)
    assert out["result"] == seats(25, 25, -25, -25)
    assert out["final"] == seats(300, 300, -300, -300)


def test_raw_scoring_keeps_raw_scores() -> None:
    """R7.1: result and final are the raw scores (no one-deck factor)."""
    out = score_input({"options": {"scoring": "raw"}, "captured": PLAIN})
    assert out["raw"] == out["result"] == out["final"] == seats(-100, 100, -100, -150)


def test_one_deck_factor_one() -> None:
    """R7.2 / R10 ``one_deck_factor=1`` turns the × 12 off."""
    out = score_input({"options": {"one_deck_factor": 1}, "captured": PLAIN})
    assert out["final"] == out["result"] == seats(-50, 217, -50, -117)
    factor12 = score_input({"captured": PLAIN})["final"]
    assert factor12 == {s: 12 * v for s, v in out["result"].items()}


def test_non_point_cards_are_ignored_but_accepted() -> None:
    """Captured lists may hold the whole tricks; only point cards score (R6)."""
    with_all = {s: list(v) for s, v in PLAIN.items()}
    with_all["N"] += ["AS", "KS", "2C", "3D"]
    assert score_input({"captured": with_all})["raw"] == score_input({"captured": PLAIN})["raw"]


def test_card_forms_of_r1_are_read() -> None:
    """R1: ``10C``, suit-first ``SQ``, ``♠Q`` and lower case are all cards."""
    data = {"captured": {"N": ["♠Q"], "E": ["dj"], "S": ["10C", "HA"],
                         "W": "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"}}
    assert score_input(data)["raw"] == score_input({"captured": PLAIN})["raw"]


def test_a_seat_left_out_took_nothing() -> None:
    data = {"captured": cap(N="QS JD TC " + HEARTS)}
    out = score_input(data)
    assert out["raw"] == seats(800, 0, 0, 0)  # 满贯 (R6 step 5)
    assert out["captured"]["E"] == []


# ---------------------------------------------------------------- the automatic fourth (逼明)


THREE_SHOWN = [
    {"seat": "N", "card": "QS"}, {"seat": "E", "card": "JD"}, {"seat": "S", "card": "TC"}
]


def test_auto_fourth_is_added_when_three_are_exposed() -> None:
    """R4.4: with three of the four exposed, the fourth (♥A) is exposed automatically: the
    scorekeeper adds it (seat unknown without hands) and the hearts count double."""
    data = {"options": {"scoring": "raw"}, "captured": PLAIN, "exposures": THREE_SHOWN}
    out = score_input(data)
    assert out["exposures"][-1] == {"seat": None, "card": "AH", "kind": "auto"}
    assert out["raw"] == seats(-200, 200, -100 * 4, -300)


def test_auto_fourth_with_hands_names_its_holder_and_may_be_listed() -> None:
    hands = hands_with(N="QS", E="JD", S="TC", W="AH")
    base = {"options": {"scoring": "raw"}, "captured": PLAIN, "hands": hands}
    added = score_input({**base, "exposures": THREE_SHOWN})
    assert added["exposures"][-1] == {"seat": "W", "card": "AH", "kind": "auto"}
    listed = score_input({**base, "exposures": [*THREE_SHOWN,
                                                {"seat": "W", "card": "AH", "kind": "auto"}]})
    assert listed == added


@pytest.mark.parametrize("options", [{"auto_expose_fourth": False}, {"exposure": "all_but_sheep"}])
def test_no_auto_fourth_where_it_does_not_apply(options: dict[str, Any]) -> None:
    exposures = THREE_SHOWN if "exposure" not in options else [
        {"seat": "N", "card": "QS"}, {"seat": "S", "card": "TC"}, {"seat": "W", "card": "AH"}]
    out = score_input({"options": options, "captured": PLAIN, "exposures": exposures})
    assert all(e["kind"] != "auto" for e in out["exposures"])
    assert len(out["exposures"]) == 3


def test_auto_fourth_applies_under_first_card_when_switched_on() -> None:
    data = {"preset": "tournament", "options": {"auto_expose_fourth": True, "self_catch": False},
            "captured": PLAIN, "exposures": [{**THREE_SHOWN[0], "kind": "first"}, *THREE_SHOWN[1:]]}
    assert score_input(data)["exposures"][-1]["kind"] == "auto"


# ---------------------------------------------------------------- exposure variants all / none


def test_all_exposed_is_accepted() -> None:
    data = {"options": {"exposure": "all", "scoring": "raw"}, "captured": PLAIN,
            "exposures": [*THREE_SHOWN, {"seat": "W", "card": "AH"}]}
    assert score_input(data)["raw"] == seats(-200, 200, -50 * 2 * 4, -300)


def test_all_two_decks_needs_every_copy(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    captured = cap(N="QS QS", E="JD JD", S="TC TC", W=HEARTS + " " + HEARTS)
    exposures = [{"seat": s, "card": c} for c in ("QS", "JD", "TC", "AH") for s in ("N", "S")]
    ok = score_input({"preset": "online2", "options": {"exposure": "all"},
                      "captured": captured, "exposures": exposures})
    assert ok["raw"]["N"] == -800
    refused({"preset": "online2", "options": {"exposure": "all"}, "captured": captured,
             "exposures": exposures[1:]}, capsys, monkeypatch,
            "exposure=all", "QS must be exposed", "exposed 1 time")


# ---------------------------------------------------------------- refusals (exit status 2)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"captured": PLAIN, "exposure": []},
         ["$: unknown field 'exposure': expected 'captured', 'preset', 'options', 'exposures', 'hands'"]),
        ({"preset": "home", "captured": PLAIN}, ["$.preset: must be a preset of R9: online, ", 'not "home"']),
        ({"options": {"deck": 2}, "captured": PLAIN}, ["unknown option 'deck'"]),
        ({"options": {"scoring": "sum"}, "captured": PLAIN}, ["scoring cannot be 'sum'"]),
        ({"options": {"decks": 2, "exposure": "first_card"}, "captured": PLAIN},
         ["first_card", "one deck only"]),
        ({"options": [], "captured": PLAIN}, ["$.options: must be an object, not an array ([])"]),
        ({"preset": 1, "captured": PLAIN}, ["$.preset: must be a preset of R9", "not an integer (1)"]),
        ({}, ["$: missing field 'captured'"]),
        ({"captured": []}, ["$.captured: must be an object, not an array ([])"]),
        ({"captured": {**PLAIN, "N": ["QS", "XY"]}}, ["captured.N", "cannot read 'XY'"]),
        ({"captured": {**PLAIN, "N": 5}}, ["$.captured.N: must be a string or an array, not an integer (5)"]),
        ({"captured": {**PLAIN, "X": []}}, ["unknown seat 'X'", "N, E, S, W"]),
        ({"captured": {**PLAIN, "north": []}}, ["seat N is given twice"]),
        ({"captured": {**PLAIN, "E": ["JD", "QS"]}}, ["QS is captured 2 times (by N, E)", "once"]),
        ({"captured": {**PLAIN, "N": []}}, ["point cards missing from captured: QS", "all 16"]),
        ({"captured": {**PLAIN, "W": ["2H"]}}, ["missing", "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H"]),
        ({"captured": PLAIN, "exposures": {}}, ["$.exposures: must be an array, not an object ({})"]),
        ({"captured": PLAIN, "exposures": ["QS"]}, ['$.exposures[0]: must be an object, not a string ("QS")']),
        ({"captured": PLAIN, "exposures": [{"seat": "N"}]}, ["$.exposures[0]: missing field 'card'"]),
        ({"captured": PLAIN, "exposures": [{"seat": "N", "card": "QS", "by": 1}]},
         ["unknown field 'by'"]),
        ({"captured": PLAIN, "exposures": [{"seat": "Z", "card": "QS"}]},
         ["$.exposures[0].seat: unknown seat 'Z'"]),
        ({"captured": PLAIN, "exposures": [{"seat": "N", "card": "QS QH"}]},
         ["must be one card"]),
        ({"captured": PLAIN, "exposures": [{"seat": "N", "card": "KS"}]},
         ["$.exposures[0]: ♠K cannot be exposed", "R4.1"]),
        ({"captured": PLAIN, "exposures": [{"seat": "N", "card": "QS", "kind": "sold"}]},
         ['$.exposures[0].kind: must be an exposure kind: shown, first, hidden or auto (R10), not "sold"']),
        ({"captured": PLAIN, "exposures": [{"seat": "N", "card": "QS", "kind": "first"}]},
         ["$.exposures[0]: exposure kind 'first'", "exposure=standard", "use shown"]),
        ({"captured": PLAIN, "exposures": [{"seat": "N", "card": "QS", "kind": "hidden"}]},
         ["kind 'hidden'", "exposure=standard"]),
        ({"options": {"exposure": "hidden"}, "captured": PLAIN,
          "exposures": [{"seat": "N", "card": "QS", "kind": "shown"}]},
         ["kind 'shown'", "exposure=hidden"]),
        ({"preset": "pig_sheep", "captured": PLAIN, "exposures": [{"seat": "N", "card": "QS"}]},
         ["exposure=none", "R7.4"]),
        ({"options": {"exposure": "none"}, "captured": PLAIN,
          "exposures": [{"seat": "N", "card": "QS"}]}, ["exposure=none"]),
        ({"options": {"exposure": "all"}, "captured": PLAIN, "exposures": THREE_SHOWN},
         ["exposure=all", "AH must be exposed"]),
        ({"options": {"exposure": "all_but_sheep"}, "captured": PLAIN,
          "exposures": [*THREE_SHOWN, {"seat": "W", "card": "AH"}]},
         ["all_but_sheep", "JD must not be exposed"]),
        ({"options": {"exposure": "all_but_sheep"}, "captured": PLAIN,
          "exposures": [{"seat": "N", "card": "QS"}, {"seat": "W", "card": "AH"}]},
         ["all_but_sheep", "TC must be exposed"]),
        ({"captured": PLAIN,
          "exposures": [{"seat": "N", "card": "QS"}, {"seat": "E", "card": "SQ"}]},
         ["QS is exposed 2 times", "one deck"]),
        ({"captured": PLAIN,
          "exposures": [{"seat": "N", "card": "QS"}, {"seat": "N", "card": "SQ"}]},
         ["$.exposures[1]: North does not hold another ♠Q"]),
        ({"preset": "online2", "captured": cap(N="QS QS", E="JD JD", S="TC TC",
                                               W=HEARTS + " " + HEARTS),
          "exposures": [*[{"seat": "N", "card": "QS"}] * 2, {"seat": "E", "card": "QS"}]},
         ["QS is exposed 3 times", "two decks"]),
        ({"options": {"exposure": "first_card"}, "captured": PLAIN,
          "exposures": [{"seat": "N", "card": "QS", "kind": "first"},
                        {"seat": "N", "card": "AH", "kind": "first"}]},
         ["$.exposures[1]: ♥A was not North's first dealt card", "R4.4"]),
        ({"captured": PLAIN,
          "exposures": [*THREE_SHOWN, *[{"seat": "N", "card": "AH", "kind": "auto"}] * 2]},
         ["AH is exposed 2 times"]),
        ({"captured": PLAIN, "exposures": [*THREE_SHOWN[:2], {"seat": "W", "card": "AH",
                                                              "kind": "auto"}]},
         ["kind 'auto'", "only the fourth card", "2 were"]),
        ({"options": {"auto_expose_fourth": False}, "captured": PLAIN,
          "exposures": [*THREE_SHOWN, {"seat": "W", "card": "AH", "kind": "auto"}]},
         ["kind 'auto'", "does not apply", "auto_expose_fourth=false"]),
        ({"preset": "online2", "captured": cap(N="QS QS", E="JD JD", S="TC TC",
                                               W=HEARTS + " " + HEARTS),
          "exposures": [*THREE_SHOWN, {"seat": "W", "card": "AH", "kind": "auto"}]},
         ["does not apply", "decks=2"]),
        ({"preset": "tournament", "captured": PLAIN}, ["self_catch", "needs the hands"]),
        ({"captured": PLAIN, "hands": hands_with() | {"N": hands_with()["N"][:12]}},
         ["hands.N has 12 cards", "each hand has 13"]),
        ({"captured": PLAIN, "hands": {s: h for s, h in hands_with().items() if s != "W"}},
         ["hands: missing seat(s) W"]),
        ({"captured": PLAIN, "hands": hands_with() | {"N": ["2S", *hands_with()["N"][1:]],
                                                      "E": ["2S", *hands_with()["E"][1:]]}},
         ["hands: ", "dealt 2 times", "exactly once"]),
        ({"captured": PLAIN, "hands": hands_with(E="QS"),
          "exposures": [{"seat": "N", "card": "QS"}]},
         ["$.exposures[0]: North does not hold ♠Q", "only your own cards"]),
        ({"options": {"exposure": "first_card"}, "captured": PLAIN,
          "hands": hands_with(N="2C QS"),
          "exposures": [{"seat": "N", "card": "QS", "kind": "first"}]},
         ["$.exposures[0]: ♠Q was not North's first dealt card", "R4.4"]),
        ({"captured": cap(N=HEARTS, E="QS", S="JD", W="TC"),
          "hands": hands_with(E=HEARTS)},  # 13 tricks for N's hearts, one more for E's pig
         ["not consistent with hands", "N at least 13", "E at least 1"]),
    ],
)
def test_refusals(data: dict[str, Any], words: list[str], capsys: pytest.CaptureFixture[str],
                  monkeypatch: pytest.MonkeyPatch) -> None:
    refused(data, capsys, monkeypatch, *words)


def test_two_deck_hands_check_copies_held(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """R4.5: each copy is exposed on its own, by the player who holds it."""
    cards = [c.code for c in ALL_CARDS] * 2
    hands = {s: cards[26 * i: 26 * (i + 1)] for i, s in enumerate(SEATS)}  # N holds one QS
    data = {"preset": "online2", "hands": hands,
            "captured": cap(N="QS QS", E="JD JD", S="TC TC", W=HEARTS + " " + HEARTS),
            "exposures": [{"seat": "N", "card": "QS"}, {"seat": "N", "card": "QS"}]}
    refused(data, capsys, monkeypatch, "North does not hold another ♠Q")
    data["exposures"] = [{"seat": "N", "card": "QS"}, {"seat": "S", "card": "QS"}]
    assert score_input(data)["raw"]["N"] == -800


def test_consistent_hands_are_accepted() -> None:
    """One player may take every point card, wherever they were dealt (R5.2)."""
    data = {"captured": cap(E="QS JD TC " + HEARTS), "hands": hands_with(N=HEARTS)}
    assert score_input(data)["raw"] == seats(0, 800, 0, 0)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", ["no input on stdin"]),
        ("{not json", ["stdin is not valid JSON", "line 1"]),
        ("[1, 2]", ["$: must be an object, not an array ([1, 2])"]),
        ('{"captured": {}, "captured": {}}', ["duplicate key 'captured'"]),
    ],
)
def test_unreadable_input(text: str, words: list[str], capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    refused(text, capsys, monkeypatch, *words)


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                      monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = cli(["--file", str(tmp_path / "nope.json")], capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert "cannot read" in err and "nope.json" in err


# ---------------------------------------------------------------- input and output


R72 = {
    "captured": cap(N="AH KH QH", E="QS TC JH TH 9H", S="4H 3H 2H", W="JD 8H 7H 6H 5H"),
    "exposures": [{"seat": "W", "card": "JD"}],
}


def test_json_from_stdin_and_file_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(R72), encoding="utf-8")
    code, from_file, err = cli(["--file", str(path), "--json"], capsys, monkeypatch)
    assert (code, err) == (0, "")
    code, from_stdin, err = cli(["--json"], capsys, monkeypatch, stdin=json.dumps(R72))
    assert (code, err) == (0, "")
    code, from_dash, _ = cli(["--json", "--file", "-"], capsys, monkeypatch, stdin=json.dumps(R72))
    assert from_file == from_stdin == from_dash
    out = json.loads(from_file)
    assert list(out)[:5] == ["raw", "final", "result", "events", "options"]
    assert out["raw"] == seats(-120, -280, 0, 160)
    assert out["final"] == seats(-960, -3516, 960, 3516)
    assert out["result"] == seats(-80, -293, 80, 293)
    assert out["events"] == []
    assert out["options"]["scoring"] == "zero_sum" and out["options"]["one_deck_factor"] == 12
    assert set(out["options"]) >= {"decks", "exposure", "auto_expose_fourth", "self_catch"}
    assert out == score_input(R72)


SLAM = {"captured": cap(N="QS JD TC " + HEARTS), "exposures": [{"seat": "E", "card": "AH"}]}


def test_text_table_english(capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = cli([], capsys, monkeypatch, stdin=json.dumps(SLAM))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("Rules: online")
    assert lines[1] == "Exposures: East ♥A shown"
    assert lines[2].split() == ["Seat", "Raw", "Result", "Final", "Events", "Point", "cards",
                                "taken"]
    north = lines[3]
    # 满贯 with ♥A exposed: (400 + 100 + 100) × 2 = 1200; zero-sum 1200 − 0 / 3; × 12
    assert north.split()[:4] == ["North", "1200", "1200", "14400"]
    assert "all hearts, grand slam" in north and "♠Q ♦J ♣10 ♥A ♥K" in north
    assert lines[4].split() == ["East", "0", "-400", "-4800", "—", "—"]


def test_text_table_chinese(capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = cli(["--lang", "zh"], capsys, monkeypatch, stdin=json.dumps(SLAM))
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "亮牌: 东 ♥A 明"
    assert lines[2].split() == ["座位", "原始分", "本副结果", "最终", "事件", "收到的分牌"]
    assert lines[3].split()[:4] == ["北", "1200", "1200", "14400"]
    assert "满红、满贯" in lines[3]


def test_text_table_auto_and_self_catch_in_chinese(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    data = {"options": {"self_catch": True}, "captured": PLAIN, "exposures": THREE_SHOWN,
            "hands": hands_with(N="QS", E="JD", S="TC", W="AH")}
    code, out, _ = cli(["--lang", "zh"], capsys, monkeypatch, stdin=json.dumps(data))
    assert code == 0
    assert "西 ♥A 逼明" in out.splitlines()[1]
    assert "自得 ♠Q" in out and "自得 ♦J" in out


def test_no_exposures_line(capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    _, out, _ = cli([], capsys, monkeypatch, stdin=json.dumps({"captured": PLAIN}))
    assert out.splitlines()[1] == "no exposures"


def test_through_main(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The real entry point: ``gongzhu score`` through cli/main.py."""
    from gongzhu.cli.main import main

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(R72)))
    assert main(["score", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["final"] == seats(-960, -3516, 960, 3516)
    monkeypatch.setattr("sys.stdin", io.StringIO("{}"))
    assert main(["score"]) == 2
    assert "$: missing field 'captured'" in capsys.readouterr().err
