"""R8.1 duplicate play: numbered boards that give every table the same hands and first leader,
made verifiably from a seed; their records (R11, ``gongzhu-deal/2``) and ``gongzhu boards``."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.cli.main import main
from gongzhu.records import (
    BOARD_FORMAT,
    FORMAT,
    RecordedBoard,
    RecordError,
    check_records,
    deal_to_record,
    dump_record,
    load_records,
    parse_record,
    replay,
)
from gongzhu.rules import (
    PRESETS,
    Board,
    BoardError,
    BoardSet,
    CommitmentError,
    Deal,
    Options,
    Seat,
    deal_board,
    deal_hands,
    make_board_set,
    parse_card,
    verify_board_set,
)
from gongzhu.rules.boards import BOARDS_FORMAT, board_seed, commitment_of
from helpers.deals import declare_random_exposures
from helpers.volume import scaled

GOLDEN = Path(__file__).parent / "data" / "golden.jsonl"
C2 = parse_card("2C")
CARD_TEXT = re.compile(r"\b(?:[2-9TJQKA][SHCD]|[SHCD](?:10|[2-9TJQKA]))\b|[♠♥♣♦]")
seeds = st.text(alphabet="0123456789abcdefXYZ._-", min_size=1, max_size=40)


def presets_with(decks: int) -> list[tuple[str, Options]]:
    return [(name, o) for name, o in PRESETS.items() if o.decks == decks]


def first_leader_of(deal: Deal) -> Seat:
    """Who leads the first trick of ``deal``: every seat declares nothing, then the turn."""
    for seat in deal.undeclared:
        deal.declare(seat)
    assert deal.turn is not None
    return deal.turn


def first_c2_received(board: Board, clockwise: bool) -> Seat:
    """Who received the first ♣2 when the board's hands are dealt again one card at a time from
    its first receiver in the given direction: the dealt deck rebuilt, then its first ♣2."""
    step = 1 if clockwise else -1
    order = [Seat((board.first_receiver + step * k) % 4) for k in range(4)]
    deck = [board.hands[order[k]][j] for j in range(len(board.hands[0])) for k in range(4)]
    return order[deck.index(C2) % 4]


def play_out(deal: Deal, rng: random.Random) -> Deal:
    """Random exposures and random legal plays to the end of the deal."""
    declare_random_exposures(deal, rng)
    while not deal.is_over:
        deal.play(rng.choice(list(deal.legal_plays())))
    return deal


# ---------------------------------------------------------------------------------- the boards


@settings(max_examples=scaled(40), deadline=None)
@given(seed=seeds, number=st.integers(1, 200), decks=st.sampled_from([1, 2]))
def test_a_board_is_the_same_under_every_preset_of_its_deck_count(seed: str, number: int, decks: int) -> None:
    """R8.1: board n's hands and first leader come from (seed, n, decks) alone — every preset with
    that many decks (and either play direction) gives the same board, whichever set holds it."""
    expected = deal_board(seed, number, decks)
    for name, options in presets_with(decks):
        for opts in (options, options.replace(direction="cw" if options.direction == "ccw" else "ccw")):
            held = make_board_set(opts, 3, seed=seed, first=max(1, number - 1), preset=name).board(number)
            assert held == expected, name
            deal = held.deal(opts)
            assert deal.dealt == expected.hands
            assert first_leader_of(deal) == expected.leader == expected.first_leader(opts), name


def test_boards_of_other_numbers_decks_or_seeds_have_other_hands() -> None:
    """R8.1: each board of a set is a deal of its own."""
    boards = make_board_set(Options(), 64, seed="spring").boards
    assert [b.number for b in boards] == list(range(1, 65))
    assert len({b.hands for b in boards}) == 64
    assert len({b.seed for b in boards}) == 64
    assert deal_board("spring", 5, 1).hands != deal_board("spring", 5, 2).hands
    assert deal_board("spring", 5, 1).hands != deal_board("springs", 5, 1).hands
    assert board_seed("spring", 5, 1) != board_seed("spring", 6, 1)


def test_the_dealer_rotates_and_boards_are_dealt_counter_clockwise() -> None:
    """R8.1: board n is dealt first to N, E, S, W in turn from board 1, counter-clockwise (R3)."""
    for decks in (1, 2):
        for board in make_board_set(PRESETS["online" if decks == 1 else "online2"], 12, seed="rot").boards:
            assert board.first_receiver == [Seat.N, Seat.E, Seat.S, Seat.W][(board.number - 1) % 4]
            assert board.seed is not None
            dealt = deal_hands(board.seed, decks, board.first_receiver, clockwise=False)
            assert tuple(tuple(h) for h in dealt) == board.hands
    with pytest.raises(BoardError, match=r"board 2 is dealt first to East, not .*the dealer rotates N, E, S, W"):
        Board(2, deal_board("rot", 1, 1).hands, Seat.N, 1)


def test_the_first_leader_holds_club_2_also_under_a_clockwise_preset() -> None:
    """R8.1, R5.1: every board is led by the holder of ♣2; with two decks by the player who
    received the first ♣2 in the board's own counter-clockwise dealing order, even when the
    boards are played clockwise (which would deal the first ♣2 to someone else on some boards)."""
    for board in make_board_set(Options(), 16, seed="lead").boards:
        assert C2 in board.hands[board.leader]
        assert first_leader_of(board.deal(PRESETS["classic"])) == board.leader
    clockwise = PRESETS["online2"].replace(direction="cw")
    differs = 0
    for board in make_board_set(clockwise, 32, seed="lead").boards:
        assert board.leader == first_c2_received(board, clockwise=False)
        for opts in (clockwise, PRESETS["online2"], PRESETS["partners2"].replace(direction="cw")):
            deal = board.deal(opts)
            assert deal.dealt_clockwise is False
            assert first_leader_of(deal) == board.leader
        # The same hands as an ordinary deal of a clockwise match: the first ♣2 in clockwise order.
        plain = Deal(clockwise, board.hands, first_receiver=board.first_receiver)
        assert first_leader_of(plain) == first_c2_received(board, clockwise=True)
        differs += first_c2_received(board, clockwise=True) != board.leader
    assert differs > 0  # the dealing direction decides the two-deck lead on some boards


def test_a_board_deal_copies_and_refuses_other_decks() -> None:
    """R8.1: a board's deal is a fresh first deal (no previous pig-taker, deal_index n − 1); its
    copy keeps the board's dealing direction; a board is played with its own number of decks."""
    board = deal_board("copy", 6, 2)
    deal = board.deal(PRESETS["online2"].replace(direction="cw"))
    assert (deal.deal_index, deal.previous_pig_taker, deal.first_receiver, deal.seed) == (5, None, Seat.E, board.seed)
    twin = deal.copy()
    assert twin.dealt_clockwise is False
    assert first_leader_of(twin) == board.leader and deal.turn is None
    with pytest.raises(BoardError, match="board 6 is dealt with 2 deck"):
        board.deal(Options())
    with pytest.raises(BoardError, match="not the hands seed"):
        Board(6, deal_board("copy", 2, 2).hands, Seat.E, 2, board.seed)


# ---------------------------------------------------------------------------------- the set


def test_a_board_set_is_verified_by_its_commitment() -> None:
    """R8.1: seed and definition give the commitment, SHA-256 of their canonical JSON; verifying
    deals the same boards again."""
    made = make_board_set(PRESETS["tournament"], 16, seed="cup-2024", event="春季赛", preset="tournament")
    assert made.definition == {
        "format": BOARDS_FORMAT,
        "decks": 1,
        "first": 1,
        "count": 16,
        "event": "春季赛",
        "preset": "tournament",
        "options": PRESETS["tournament"].to_dict(),
    }
    pair = {"seed": "cup-2024", "definition": made.definition}
    text = json.dumps(pair, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert made.commitment == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert made.commitment == commitment_of("cup-2024", made.definition)
    again = verify_board_set("cup-2024", json.loads(json.dumps(made.definition)), made.commitment)
    assert again == made and again.boards == made.boards and again.options == PRESETS["tournament"]
    assert isinstance(again, BoardSet) and again.event == "春季赛"


def _one_character_changed(text: str, at: int) -> str:
    i = at % len(text)
    return text[:i] + ("0" if text[i] != "0" else "1") + text[i + 1 :]


@settings(max_examples=scaled(40), deadline=None)
@given(seed=seeds, at=st.integers(0, 10_000))
def test_a_seed_or_commitment_changed_by_one_character_fails(seed: str, at: int) -> None:
    """R8.1: a seed or a commitment that differs in one character does not verify."""
    made = make_board_set(Options(), 2, seed=seed)
    with pytest.raises(CommitmentError, match="the commitment does not match: this seed and definition give"):
        verify_board_set(_one_character_changed(seed, at), made.definition, made.commitment)
    with pytest.raises(CommitmentError, match="the seed, the definition or the commitment is not the one published"):
        verify_board_set(seed, made.definition, _one_character_changed(made.commitment, at))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("event", "cuq"),
        ("count", 5),
        ("first", 2),
        ("preset", "onlinf"),
        ("options", {**PRESETS["online"].to_dict(), "match_limit": 1001}),
    ],
)
def test_a_definition_changed_by_one_character_fails(key: str, value: Any) -> None:
    """R8.1: the definition is part of what is committed to, the options included."""
    made = make_board_set(Options(), 4, seed="s1", event="cup", preset="online")
    changed = {**made.definition, key: value}
    assert len(json.dumps(changed)) == len(json.dumps(made.definition))  # one character
    with pytest.raises(CommitmentError, match="does not match"):
        verify_board_set("s1", changed, made.commitment)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda d: d.pop("count"),
            "the definition has no 'count': it holds format, decks, first, count, event, preset",
        ),
        (lambda d: d.update(extra=1), "unknown key 'extra' in the definition"),
        (lambda d: d.update(format="gongzhu-boards/2"), "the definition's format is 'gongzhu-boards/1', not"),
        (lambda d: d.update(count=65), "a board set holds 1 to 64 boards, not 65"),
        (lambda d: d.update(count=True), "a board set holds 1 to 64 boards, not True"),
        (lambda d: d.update(first=0), "the first board number is a whole number from 1, not 0"),
        (lambda d: d.update(decks=3), "boards are dealt with 1 or 2 decks, not 3"),
        (lambda d: d.update(decks=2), "the definition deals 2 deck.s. but its options play with 1"),
        (lambda d: d["options"].update(decks="1"), "the definition's option decks is written '1': write 1"),
        (lambda d: d["options"].pop("scoring"), "the definition's options lack scoring"),
        (lambda d: d["options"].update(scoring="golf"), "the definition's options: "),
        (lambda d: d.update(event=""), "the definition's 'event' is null or 1 to 200 characters"),
        (lambda d: d.update(event="a\nb"), "without control characters"),
    ],
)
def test_a_malformed_definition_is_refused_saying_why(edit: Any, message: str) -> None:
    """R8.1: a definition the rules do not define is refused with a clear reason, not as a mismatch."""
    made = make_board_set(Options(), 4, seed="s1")
    definition = json.loads(json.dumps(made.definition))
    edit(definition)
    with pytest.raises(BoardError, match=message) as info:
        verify_board_set("s1", definition, made.commitment)
    assert not isinstance(info.value, CommitmentError)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: make_board_set(Options(), 0), "a board set holds 1 to 64 boards, not 0"),
        (lambda: make_board_set(Options(), 65), "a board set holds 1 to 64 boards, not 65"),
        (lambda: make_board_set(Options(), 4, first=0), "the first board number is a whole number from 1"),
        (lambda: make_board_set(Options(), 4, seed=""), "a board seed is 1 to 128 characters"),
        (lambda: make_board_set(Options(), 4, seed="a b"), "a board seed is 1 to 128 characters"),
        (lambda: make_board_set(Options(), 4, seed="x" * 129), "a board seed is 1 to 128 characters"),
        (lambda: make_board_set(Options(), 4, event="e" * 201), "1 to 200 characters"),
        (lambda: make_board_set("online", 4), "boards are made for Options"),  # type: ignore[arg-type]
        (lambda: deal_board("s", 0, 1), "a board number is a whole number from 1 .第1副牌 is the board numbered 1."),
        (lambda: verify_board_set("s1", {}, "AB" * 32), "a commitment is 64 lowercase hexadecimal digits"),
        (lambda: verify_board_set("s1", {}, "ab" * 31), "a commitment is 64 lowercase hexadecimal digits"),
        (lambda: verify_board_set("s1", [], "ab" * 32), "a board set's definition is a JSON object"),  # type: ignore[arg-type]
    ],
)
def test_bad_inputs_are_refused_with_a_clear_error(call: Any, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        call()


def test_nothing_published_reveals_the_hands() -> None:
    """R8.1: the definition holds no card and no seed; the commitment hides the seed (128 fresh
    bits by default), so two seeds with the same definition give different commitments."""
    a, b = make_board_set(Options(), 16), make_board_set(Options(), 16)
    assert re.fullmatch(r"[0-9a-f]{32}", a.seed) and a.seed != b.seed
    assert a.definition == b.definition and a.commitment != b.commitment and a.boards != b.boards
    published = json.dumps(a.definition, ensure_ascii=False) + a.commitment
    assert CARD_TEXT.search(json.dumps(a.definition, ensure_ascii=False)) is None
    assert a.seed not in published
    assert make_board_set(Options(), 16, seed="x").commitment != make_board_set(Options(), 16, seed="y").commitment


# ---------------------------------------------------------------------------------- records


@pytest.mark.parametrize("preset", ["online", "classic", "online2", "partners2"])
def test_a_board_is_played_to_the_end_and_its_record_replays(preset: str) -> None:
    """R8.1, R11: a board's deal is written as gongzhu-deal/2 with its board, read back and
    replayed (its seed deals its hands counter-clockwise), under a clockwise preset too."""
    options = PRESETS[preset]
    if options.decks == 2:
        options = options.replace(direction="cw")
    rng = random.Random(preset)
    boards = make_board_set(options, 3, seed="rec", first=6, event="cup")
    lines = []
    for board in boards.boards:
        deal = play_out(board.deal(options), rng)
        record = deal_to_record(deal, match_id="cup-table-1", preset=preset, board=board, event="cup")
        assert record["format"] == BOARD_FORMAT == "gongzhu-deal/2"
        assert list(record)[:4] == ["format", "match", "deal_index", "board"]
        assert record["board"] == {"number": board.number, "event": "cup", "dealt": "ccw"}
        line = dump_record(record)
        ((_, obj),) = load_records(line)
        rec = parse_record(obj)
        assert rec.board == RecordedBoard(board.number, "cup") and rec.deal_index == board.number - 1
        again = replay(rec, check_seed=True)
        assert again.score == deal.score and again.tricks[0].leader == board.leader
        rebuilt = deal_to_record(again, match_id="cup-table-1", preset=preset, board=board.number, event="cup")
        assert dump_record(rebuilt) == line
        lines.append(line)
    # One table's boards, in any order, check out as one match; a board twice does not.
    order = [lines[2], lines[0], lines[1]]
    numbers = [c.record.board and c.record.board.number for c in check_records(list(load_records("\n".join(order))))]
    assert numbers == [8, 6, 7]
    with pytest.raises(RecordError, match=r"line 2, .*\$\.board\.number: board 6 was already played in this match"):
        list(check_records(list(load_records("\n".join([lines[0], lines[0]])))))


def test_a_board_record_must_keep_its_board_facts() -> None:
    """R8.1, R11: a board's first receiver and deal_index follow from its number; a record that
    says otherwise, or a board played as a deal of a match, is refused."""
    board = deal_board("facts", 3, 1)
    deal = play_out(board.deal(Options()), random.Random(3))
    record = deal_to_record(deal, match_id="m", preset="online", board=board, event=None)
    assert record["board"]["event"] is None
    with pytest.raises(RecordError, match=r"\$\.first_receiver: E, but board 3 is dealt first to S"):
        parse_record({**record, "first_receiver": "E"})
    with pytest.raises(RecordError, match=r"\$\.deal_index: 3, but board 3 is deal_index 2"):
        parse_record({**record, "deal_index": 3})
    with pytest.raises(RecordError, match=r"\$\.board\.dealt: must be"):
        parse_record({**record, "board": {**record["board"], "dealt": "cw"}})
    with pytest.raises(RecordError, match="board 4 is dealt first to W"):
        deal_to_record(deal, match_id="m", preset="online", board=4)
    with pytest.raises(RecordError, match="give board= too"):
        deal_to_record(deal, match_id="m", preset="online", event="cup")
    with pytest.raises(RecordError, match="a later deal is dealt first to the previous pig-taker"):
        deal_to_record(deal, match_id="m", preset="online")
    ordinary = play_out(Deal.new(Options(), 5), random.Random(5))
    with pytest.raises(RecordError, match="not the hands of board 1"):
        deal_to_record(ordinary, match_id="m", preset="online", board=deal_board("facts", 1, 1))
    mixed = [dump_record(deal_to_record(ordinary, match_id="m", preset="online")), dump_record(record)]
    with pytest.raises(RecordError, match=r"a board, but the match's earlier records .* are deals that follow"):
        list(check_records(list(load_records("\n".join(mixed)))))


def test_old_records_still_read_and_replay() -> None:
    """R11: gongzhu-deal/1 records read and replay as before; a ``board`` key in one is a field
    version 1 does not know, carried and not read as a board."""
    records = [obj for _, obj in load_records(GOLDEN)]
    assert records and all(r["format"] == FORMAT == "gongzhu-deal/1" for r in records)
    checked = list(check_records(records))
    assert len(checked) == len(records) and all(c.record.board is None for c in checked)
    first = records[0]
    carried = parse_record({**first, "board": {"number": 9}})
    assert carried.board is None and ("board", {"number": 9}) in carried.extra
    rewritten = deal_to_record(replay(first), match_id=first["match"], preset=first["preset"])
    assert dump_record(rewritten) == dump_record(first)


# ---------------------------------------------------------------------------------- gongzhu boards


def _make(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["boards", "make", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _verify(seed: str, commitment: str, *args: str) -> int:
    return main(["boards", "verify", "--seed", seed, "--commitment", commitment, *args])


def test_boards_make_and_verify_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """R8.1: make prints the definition and commitment (not the seed); verify checks them with
    the revealed seed and prints every board's hands and first leader."""
    code, out, err = _make(["--preset", "online2", "--count", "4", "--seed", "s-9", "--event", "cup", "--json"], capsys)
    assert code == 0 and err == ""
    made = json.loads(out)
    assert set(made) == {"definition", "commitment"} and "s-9" not in out
    expected = make_board_set(PRESETS["online2"], 4, seed="s-9", event="cup", preset="online2")
    assert made == {"definition": expected.definition, "commitment": expected.commitment}
    path = tmp_path / "set.json"
    path.write_text(out, encoding="utf-8")  # make --json's output reads as the definition
    assert _verify("s-9", made["commitment"], "--definition", str(path)) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith(f"The commitment matches: {made['commitment']}\n")
    assert "event cup, boards 1–4, two decks, preset online2" in out
    for board in expected.boards:
        how = f"{board.leader.english} received the first ♣2 and leads"
        head = (
            f"Board {board.number} (第{board.number}副牌): dealt counter-clockwise from {board.first_receiver.english}"
        )
        assert f"{head}; {how}" in out
    assert out.count("\n  N  ") == 4 and "♠" in out
    definition = json.dumps(made["definition"])
    assert _verify("s-9", made["commitment"], "--definition-json", definition, "--json", "--ascii") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["match"] is True and shown["seed"] == "s-9"
    assert [(b["number"], b["first_receiver"], b["leader"]) for b in shown["boards"]] == [
        (b.number, b.first_receiver.name, b.leader.name) for b in expected.boards
    ]
    assert shown["boards"][0]["hands"]["N"] == [c.code for c in expected.boards[0].hands[Seat.N]]
    assert _verify("s-9", made["commitment"], "--definition-json", definition, "--ascii") == 0
    ascii_out = capsys.readouterr().out
    assert "♠" not in ascii_out and "♣" not in ascii_out and " 2C and leads" in ascii_out


def test_boards_verify_exit_statuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``gongzhu boards verify``: 1 when the commitment does not match, 2 on malformed input."""
    made = make_board_set(Options(), 2, seed="k1")
    definition = json.dumps(made.definition)
    assert _verify("k2", made.commitment, "--definition-json", definition) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("gongzhu boards verify: the commitment does not match")
    assert _verify("k1", "x" * 64, "--definition-json", definition) == 2
    assert "a commitment is 64 lowercase hexadecimal digits" in capsys.readouterr().err
    assert _verify("k1", made.commitment, "--definition-json", '{"format": "gongzhu-boards/1",}') == 2
    assert "--definition-json is not valid JSON" in capsys.readouterr().err
    assert _verify("k1", made.commitment, "--definition-json", definition.replace('"count": 2', '"count": 0')) == 2
    assert "a board set holds 1 to 64 boards, not 0" in capsys.readouterr().err
    assert _verify("k1", made.commitment, "--definition", str(tmp_path / "missing.json")) == 2
    assert "cannot read" in capsys.readouterr().err
    assert _verify("k 1", made.commitment, "--definition-json", definition) == 2
    assert "a board seed is 1 to 128 characters" in capsys.readouterr().err


def test_boards_make_keeps_the_seed_secret_unless_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``gongzhu boards make``: the seed is printed only with --reveal, saying what publishing it
    does; a fresh one goes into a new file only its owner reads with --seed-out; without either
    it would be lost, so make refuses (2), as it refuses an unknown preset or a bad count."""
    code, out, _ = _make(["--preset", "online", "--count", "2", "--seed", "abc"], capsys)
    assert code == 0 and "abc" not in out and "commitment: " in out and "definition: {" in out
    code, out, _ = _make(["--count", "2", "--reveal"], capsys)
    seed = re.search(r"^seed: ([0-9a-f]{32})$", out, re.M)
    assert code == 0 and seed is not None and "Publishing the seed reveals every board's hands" in out
    commitment = re.search(r"^commitment: ([0-9a-f]{64})$", out, re.M)
    assert commitment is not None
    definition = make_board_set(Options(), 2, seed="z").definition | {"preset": "online"}
    assert verify_board_set(seed.group(1), definition, commitment.group(1)).seed == seed.group(1)
    kept = tmp_path / "seed.txt"
    code, out, _ = _make(["--count", "2", "--seed-out", str(kept), "--json"], capsys)
    assert code == 0 and stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    fresh = kept.read_text(encoding="utf-8").strip()
    assert fresh not in out
    assert verify_board_set(fresh, json.loads(out)["definition"], json.loads(out)["commitment"]).seed == fresh
    assert _make(["--count", "2", "--seed-out", str(kept)], capsys)[0] == 2
    code, _, err = _make(["--count", "2"], capsys)
    assert code == 2 and "a fresh seed must be kept" in err
    code, _, err = _make(["--preset", "nope", "--seed", "a"], capsys)
    assert code == 2 and "nope" in err
    code, _, err = _make(["--count", "65", "--seed", "a"], capsys)
    assert code == 2 and "a board set holds 1 to 64 boards, not 65" in err
    code, _, err = _make(["--count", "0"], capsys)  # what is wrong first, whatever else is missing
    assert code == 2 and "a board set holds 1 to 64 boards, not 0" in err
    with pytest.raises(SystemExit) as info:
        main(["boards"])
    assert info.value.code == 2
