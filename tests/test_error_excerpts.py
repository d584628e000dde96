"""A refusal quotes at most a short excerpt of what it refuses (R1, R9, R10 messages): text from
a record, a score input or a bot request may be megabytes long."""

from __future__ import annotations

import pytest

from gongzhu.rules import Options, Seat, parse_card, resolve_options
from gongzhu.rules.errors import GongzhuError, excerpt
from gongzhu.rules.options import parse_option_assignment

LONG = "QS" * 50_000


def test_excerpt() -> None:
    assert excerpt("QX") == "'QX'"
    assert excerpt(LONG) == "'" + "QS" * 18 + "..."
    assert len(excerpt(list(range(10_000)))) == 40
    assert excerpt(10**5000) == f"an integer of {(10**5000).bit_length()} bits"
    assert excerpt(12) == "12"


@pytest.mark.parametrize("refuse", [
    lambda: parse_card(LONG),
    lambda: parse_card([LONG]),  # type: ignore[arg-type]
    lambda: Seat.parse(LONG),
    lambda: resolve_options(LONG),
    lambda: Options().replace(**{LONG: 1}),
    lambda: Options().replace(exposure=LONG),
    lambda: Options().replace(decks=[LONG]),
    lambda: parse_option_assignment(LONG),
    lambda: parse_option_assignment(LONG + "=1"),
])
def test_messages_quote_a_short_excerpt(refuse: object) -> None:
    with pytest.raises(GongzhuError) as info:
        refuse()  # type: ignore[operator]
    message = str(info.value)
    assert "QS" * 20 not in message and len(message) < 300
