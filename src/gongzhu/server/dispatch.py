"""Dispatch: the browser messages a table takes (``docs/web-protocol.md``, Messages), each checked
— who may send it, and the rules core's own check of an action — before it becomes one of the
table's changes.

A message that is malformed, not this person's to send, or illegal is answered with an error
(:func:`~gongzhu.server.wire.refusal`) and changes nothing; after any other, the table's
computer players are woken.

Imports the table, the wire and the rules core.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from gongzhu.formats.web import (
    CLAIM_SCORE_LIMIT,
    AgainMessage,
    AutoMessage,
    BrowserMessage,
    ChatMessage,
    ClaimAnswerMessage,
    ClaimMessage,
    ExposeMessage,
    HintMessage,
    NextMessage,
    RemoveMessage,
    SettingsMessage,
    SitMessage,
    StandMessage,
    StartMessage,
    TakeBackMessage,
)
from gongzhu.jsontext import show
from gongzhu.messages import Text, has
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.errors import GongzhuError
from gongzhu.server.rooms import Presence
from gongzhu.server.table import StoreError, Table
from gongzhu.server.wire import MessageError, Refused, chat_line, codes, read_message, refusal

__all__ = ["receive"]


async def receive(table: Table, connection: Presence, text: str | None,
                  reply: Callable[[dict[str, Any]], None]) -> None:
    """Handle one browser message of ``connection`` at ``table`` (``text`` None for a binary
    frame).  A refused message is answered with an error by ``reply`` and changes nothing; a
    change is published to every connection of the table."""
    person = connection.person
    try:
        message = _read(text)
        if isinstance(message, HintMessage):
            seat = table.seated(person)
            table.thinking.ask_hint(table.current(), seat, reply, quick=message.quick)
            return
        if isinstance(message, ClaimMessage):
            await table.claims.claim(table.seated(person), message.kind, message.value)
            table.kick()
            return
        if isinstance(message, ClaimAnswerMessage):
            table.claims.answer(table.seated(person), message.accept)
        elif isinstance(message, ChatMessage):
            _chat(table, connection, message)
        elif isinstance(message, SitMessage):
            table.sit(person, Seat.parse(message.seat))
        elif isinstance(message, StandMessage):
            table.stand(person)
        elif isinstance(message, RemoveMessage):
            table.remove(person, Seat.parse(message.seat))
        elif isinstance(message, StartMessage):
            table.start(person)
        elif isinstance(message, TakeBackMessage | AutoMessage):
            table.set_auto(person, isinstance(message, AutoMessage))
        elif isinstance(message, SettingsMessage):
            if person.id != table.host:
                raise Refused("server.host_only")
            table.set_speed(message.speed)
        elif isinstance(message, NextMessage):
            table.seated(person)
            table.deal_next()
        elif isinstance(message, AgainMessage):
            table.again_for(person, table.seated(person))
        elif isinstance(message, ExposeMessage):
            kinds = None if isinstance(message.kinds, msgspec.UnsetType) else message.kinds
            _expose(table, table.seated(person), message.cards, kinds)
        else:
            _play(table, table.seated(person), message.cards)
    except Refused as e:
        reply(refusal(e.text))
        return
    except StoreError:
        reply(refusal(Text.of("server.store_failed")))
        return
    except (MessageError, GongzhuError) as e:
        reply(refusal(e.text if isinstance(e, GongzhuError) and e.text is not None else str(e)))
        return
    table.kick()


def _read(text: str | None) -> BrowserMessage:
    """A browser message (:func:`~gongzhu.server.wire.read_message`); a claimed score out of its
    bounds — a number typed in the claim menu — is :class:`Refused` in the player's words."""
    try:
        return read_message(text)
    except MessageError as e:
        # Only a claim has a "value": its path leads the reader's "path: reason".
        if str(e).startswith("$.value: "):
            raise Refused("server.claim_bad_score", min=-CLAIM_SCORE_LIMIT, max=CLAIM_SCORE_LIMIT) from None
        raise


def _expose(table: Table, seat: Seat, cards: list[str], kinds: Sequence[str] | None) -> None:
    """A seat's exposure declaration (R4), possibly empty; kept secret until every seat has
    declared."""
    deal = table.current()
    items: list[Card | str | tuple[Card | str, str]]
    if kinds is None:
        items = list(cards)
    else:
        if len(kinds) != len(cards):
            raise MessageError(f"\"kinds\" has {len(kinds)} entries for {len(cards)} cards: one kind per card")
        items = list(zip(cards, kinds, strict=True))
    if seat in table.pending:
        raise GongzhuError("refusal.already_declared", seat=seat)
    if table.auto[seat]:
        raise Refused("server.in_auto")
    checked = deal.verify_declare(seat, items)  # raises, saying why
    table.act(seat, {"type": "declare", "items": [[c.code, k] for c, k in checked]})


def _play(table: Table, seat: Seat, cards: list[str]) -> None:
    deal = table.current()
    if table.auto[seat] and deal.turn == seat:
        raise Refused("server.in_auto")
    play = deal.verify_play(cards, seat)  # raises, saying why
    table.act(seat, {"type": "play", "cards": codes(play)})


def _chat(table: Table, connection: Presence, message: ChatMessage) -> None:
    if isinstance(message.quick, str) and isinstance(message.text, str):  # neither is dropped unsaid
        raise MessageError("a chat message has a \"text\" or a \"quick\" phrase, not both")
    if isinstance(message.quick, str):
        if not has(message.quick):
            raise MessageError(f"$.quick: {show(message.quick)} is not a quick phrase")
        body: dict[str, Any] = {"quick": message.quick}
    elif isinstance(message.text, str):
        text = chat_line(message.text)
        if not text:  # nothing that shows: spaces, control or zero-width characters
            raise Refused("server.chat_empty")
        body = {"text": text}
    else:
        raise MessageError("a chat message has a \"text\" or a \"quick\" phrase")
    person = connection.person
    muted = table.hub.muted(person.id)  # (a cached check: gongzhu.server.moderation)
    if muted is not None:
        raise Refused(muted.key, **muted.params)
    # A mute holds the browser too: a guest or another account there says nothing meanwhile
    # (whose mute, and why, is not told: the browser may be a household's).
    for other in person.same_browser:
        muted = table.hub.muted(other)
        if muted is not None:
            raise Refused("moderation.muted_browser", until=muted.params["until"])
    now = time.monotonic()
    if not table.chat_budgets.allow(person.id, now):
        raise Refused("server.chat_too_fast")
    seat = table.seat_of(person.id)
    # Nobody hears a person they blocked, or who blocked them: watchers of one table are kept
    # apart by nothing else (docs/people.md); the line is kept from them when replayed too.
    table.event({"type": "chat", "from": {"name": person.name,
                                          "seat": seat.name if seat is not None else None}, **body},
                not_to=table.chat_blocks.of(person.id, now, table.hub.store.blocks_of))
