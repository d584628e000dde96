"""Words the command line shows, in Chinese (``zh``) and English (``en``), using the Chinese
terms of the rule book."""

from __future__ import annotations

from gongzhu.rules.cards import Card, Seat, parse_card

__all__ = ["LANGS", "card_text", "cards_text", "event_text", "kind_text", "seat_text", "t"]

LANGS = ("zh", "en")

_WORDS: dict[str, tuple[str, str]] = {
    "deal": ("第{n}副", "Deal {n}"),
    "trick": ("第{n}圈", "Trick {n}"),
    "leads": ("{seat}出牌", "{seat} leads"),
    "wins": ("{seat}赢得本圈", "{seat} wins the trick"),
    "takes": ("{seat}收分（罚）", "{seat} takes the point cards (penalty)"),
    "exposures": ("亮牌", "Exposures"),
    "no_exposures": ("无人亮牌", "no exposures"),
    "hand": ("手牌", "Hand"),
    "legal": ("可出", "Legal"),
    "your_turn": ("轮到你出牌", "Your turn"),
    "raw": ("原始分", "Raw"),
    "result": ("本副结果", "Result"),
    "final": ("最终", "Final"),
    "total": ("累计", "Total"),
    "captured": ("收到的分牌", "Point cards taken"),
    "winner": ("赢家", "Winner"),
    "pig": ("当猪", "Pig"),
    "match_over": ("本局结束", "Match over"),
    "ok": ("全部记录核对无误", "all records check out"),
}

_EVENTS: dict[str, tuple[str, str]] = {
    "all_hearts": ("满红", "all hearts"),
    "grand_slam": ("满贯", "grand slam"),
    "transformer_alone": ("变压器单独", "transformer alone"),
    "self_catch": ("自得", "self-catch"),
}

_KINDS: dict[str, tuple[str, str]] = {
    "shown": ("明", "shown"),
    "first": ("首明", "first card"),
    "hidden": ("暗卖", "hidden"),
    "auto": ("逼明", "automatic"),
}


def _pick(pair: tuple[str, str], lang: str) -> str:
    return pair[0] if lang == "zh" else pair[1]


def t(key: str, lang: str, **fields: object) -> str:
    """A phrase in ``lang`` with ``{fields}`` filled in."""
    return _pick(_WORDS[key], lang).format(**fields)


def seat_text(seat: Seat, lang: str) -> str:
    return seat.zh if lang == "zh" else seat.english


def card_text(c: Card, lang: str) -> str:
    """♠Q in both languages: the suit symbols read the same to everyone."""
    return c.pretty


def cards_text(cards: list[Card] | tuple[Card, ...], lang: str) -> str:
    return " ".join(card_text(c, lang) for c in cards) or "—"


def event_text(event: str, lang: str) -> str:
    """``all_hearts`` → 满红; ``self_catch:QS`` → 自得 ♠Q."""
    name, _, code = event.partition(":")
    word = _pick(_EVENTS[name], lang) if name in _EVENTS else name
    if code:
        word += " " + parse_card(code).pretty
    return word


def kind_text(kind: str, lang: str) -> str:
    return _pick(_KINDS[kind], lang) if kind in _KINDS else kind
