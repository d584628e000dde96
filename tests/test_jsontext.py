"""gongzhu.jsontext: strict JSON for records (R11), score inputs and bot requests.

Whatever the text, ``loads_strict`` either returns a value or raises ``JSONTextError`` with a
message; nothing from inside the decoder (RecursionError, Python's digit limit, surrogates that
cannot be written out again) gets out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.jsontext import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    SHOW_CHARS,
    JSONTextError,
    decode_utf8,
    describe,
    loads_strict,
    show,
)
from helpers.volume import scaled


def refused(text: str) -> str:
    with pytest.raises(JSONTextError) as info:
        loads_strict(text)
    return str(info.value)


# ------------------------------------------------------------------------- what still works


def test_plain_json_is_read() -> None:
    assert loads_strict('{"a": [1, -2, 3.5, "x", true, null]}') == {"a": [1, -2, 3.5, "x", True, None]}
    assert loads_strict('"\\ud83d\\ude00"') == "\U0001f600"  # a surrogate pair is one character
    assert loads_strict('"\\\\ud800"') == "\\ud800"  # an escaped backslash, not an escape


def test_duplicate_keys_and_constants_are_refused() -> None:
    assert refused('{"a": 1, "a": 2}') == "duplicate key 'a'"
    assert refused("[NaN]") == "NaN is not a JSON number"
    assert refused("-Infinity") == "-Infinity is not a JSON number"


def test_position_of_a_syntax_error() -> None:
    assert refused('{"a": }') == "Expecting value (column 7)"
    assert refused('[1,\n2,') == "Expecting value (line 2, column 3)"
    with pytest.raises(JSONTextError, match=r"line 1, column 4"):
        loads_strict("[1,", with_line=True)


# ------------------------------------------------------------------------- nesting


def test_nesting_up_to_the_limit_is_read() -> None:
    deepest = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads_strict(deepest) is not None
    objects = '{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH
    assert loads_strict(objects) is not None


def test_nesting_beyond_the_limit_is_refused_at_its_bracket() -> None:
    assert refused("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)) == (
        f"arrays and objects nested more than {MAX_DEPTH} deep (column {MAX_DEPTH + 1})"
    )
    assert "nested more than" in refused('{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1))


def test_very_deep_nesting_is_refused_not_a_recursion_error() -> None:
    for text in ["[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"a":' * 100_000, "[{" * 50_000]:
        assert "nested more than 64 deep" in refused(text)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps(["[" * 1000, "{" * 1000, '\\"[[[' * 100])
    assert loads_strict(text) == ["[" * 1000, "{" * 1000, '\\"[[[' * 100]
    # an unterminated string is reported as such, whatever it holds
    assert "Unterminated string" in refused('"' + "[" * 1000)


# ------------------------------------------------------------------------- numbers


def test_integers_up_to_the_digit_limit_are_read() -> None:
    assert loads_strict("9" * MAX_INT_DIGITS) == int("9" * MAX_INT_DIGITS)
    assert loads_strict("-" + "9" * MAX_INT_DIGITS) == -int("9" * MAX_INT_DIGITS)


@pytest.mark.parametrize("digits", [MAX_INT_DIGITS + 1, 4300, 4301, 100_000])
def test_longer_integers_are_refused(digits: int) -> None:
    message = refused("[" + "7" * digits + "]")
    assert message.startswith(f"an integer of {digits} digits") and len(message) < 100
    assert f"an integer of {digits} digits" in refused('{"n": -' + "1" * digits + "}")


def test_numbers_too_large_for_a_double_are_refused() -> None:
    assert refused("1e400") == "the number 1e400 is too large for a double"
    assert "too large" in refused("[-1.5e99999]")
    assert loads_strict("1e300") == 1e300


# ------------------------------------------------------------------------- surrogates


@pytest.mark.parametrize("text", [
    '"\\ud800"', '"ab\\udfffcd"', '{"\\ud800": 1}', '{"id": "\\ud800", "type": "info"}',
    '["QS", ["\\uDC00"]]', '"\\ude00\\ud83d"', '{"a": {"b": ["x\\udbff"]}}',
])
def test_lone_surrogate_escapes_are_refused(text: str) -> None:
    message = refused(text)
    assert "lone surrogate" in message
    message.encode("utf-8")  # the message itself can be written out


def test_a_lone_surrogate_in_the_text_itself_is_refused() -> None:
    assert refused('{"a": "x\ud800"}') == "the lone surrogate \\ud800 is not a character (column 9)"


# ------------------------------------------------------------------------- bytes


def test_decode_utf8_names_the_offset() -> None:
    assert decode_utf8("北 QS".encode()) == "北 QS"
    with pytest.raises(JSONTextError, match=r"^not valid UTF-8: byte 0xff at offset 3 \(invalid start byte\)$"):
        decode_utf8(b'{"a\xff": 1}')
    with pytest.raises(JSONTextError, match=r"byte 0xe5 at offset 1 \(unexpected end of data\)"):
        decode_utf8(b"x\xe5\x8c")
    with pytest.raises(JSONTextError, match="offset 0"):
        decode_utf8(b"\xed\xa0\x80")  # a surrogate encoded in UTF-8 is not UTF-8 either


# ------------------------------------------------------------------------- messages


def test_describe() -> None:
    values: list[Any] = [None, True, 1, 1.5, "x", [], {}]
    assert [describe(v) for v in values] == [
        "null", "a boolean", "an integer", "a number with a fraction", "a string", "an array", "an object"
    ]


def test_show_is_short_and_encodable() -> None:
    assert show("QX") == '"QX"'
    assert show("\ud800") == '"\\ud800"'
    assert len(show("x" * 10_000)) == SHOW_CHARS
    assert show(10**5000) == "an integer of about 5001 digits"
    assert show("北" * 100).startswith('"北北')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=scaled(150), deadline=None)
@given(json_values)
def test_show_of_any_value_is_short_and_encodable(value: Any) -> None:
    text = show(value)
    assert len(text) <= SHOW_CHARS
    text.encode("utf-8")


@settings(max_examples=scaled(150), deadline=None)
@given(json_values)
def test_written_values_read_back(value: Any) -> None:
    text = json.dumps(value)
    try:
        back = loads_strict(text)
    except JSONTextError as e:  # only the documented limits refuse a written value
        assert "digits" in str(e) or "lone surrogate" in str(e)
    else:
        assert back == value


@settings(max_examples=scaled(200), deadline=None)
@given(st.text(alphabet=st.sampled_from(list('[]{}",:\\0123456789-.eE tnaflsru\ud800\udc00')), max_size=200))
def test_any_text_is_read_or_refused_with_a_message(text: str) -> None:
    try:
        loads_strict(text)
    except JSONTextError as e:
        str(e).encode("utf-8")


@settings(max_examples=scaled(200), deadline=None)
@given(st.binary(max_size=100))
def test_any_bytes_decode_or_are_refused_with_a_message(data: bytes) -> None:
    try:
        text = decode_utf8(data)
    except JSONTextError as e:
        assert str(e).startswith("not valid UTF-8: byte 0x")
    else:
        assert text.encode("utf-8") == data
