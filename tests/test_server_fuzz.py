"""Bad input never breaks the browser game's server (docs/web-protocol.md, Limits and the origin
policy), through its two entry points: the HTTP API and the WebSocket of a table.

For every refused input:

- **HTTP**: a 4xx answer whose body is JSON ``{"error": "..."}``, short and without a Python
  traceback (an unknown path or method may get the router's own plain ``Not Found`` /
  ``Method Not Allowed``); never a 5xx.  A refused ``POST /api/matches`` creates no match (the
  store's matches, every person's, are unchanged) and ``GET /api/config`` still answers.
- **WebSocket**: an ``{"type": "error", "message": ...}`` reply of fewer than
  :data:`MAX_ERROR_CHARS` characters (a short excerpt of the input at most; never "the server
  failed"); the same connection then takes a valid message; the table's view is unchanged, and
  the next connection's first ``state`` message equals the one before.

Inputs: every file of the corpus ``tests/data/fuzz/http/`` (requests) and ``tests/data/fuzz/ws/``
(messages), inputs that once failed or that sit on a limit, each file name saying what it holds;
generated oversized inputs (10 MB, 100,000 ``[``); systematic malformed variants of valid
bodies and messages (``malformed.py``); and hypothesis-generated JSON values, text, byte strings,
paths and header values.  Computer players are paced at 0 s.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_from_bytes

import httpx2
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient, WebSocketDenialResponse, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from gongzhu.formats.web import MAX_CHAT
from gongzhu.jsontext import JSONTextError, loads_strict
from gongzhu.messages import has
from gongzhu.rules import PRESETS, Seat
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import OPTION_KEYS
from gongzhu.server import create_app
from gongzhu.server.app import match_summary
from gongzhu.server.bodies import SPEEDS
from gongzhu.server.policy import MAX_BODY_BYTES, MAX_MESSAGE_BYTES
from gongzhu.server.registry import Tables
from gongzhu.server.store import Store
from gongzhu.server.table import Table
from helpers.client import LOCAL, deal_of, local_client
from malformed import HOSTILE, byte_variants, json_variants, paths, replaced

pytestmark = pytest.mark.slow

Message = dict[str, Any]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "fuzz"
#: The longest error text an answer may carry: a short excerpt of the input at most.
MAX_ERROR_CHARS = 300
#: Fast computer players for the tables (docs/web-protocol.md: levels).
QUICK = {"N": "random", "E": "random", "W": "random"}
#: What the router itself answers for a path or method no route takes (plain text).
ROUTER_ANSWERS = {404: "Not Found", 405: "Method Not Allowed"}
TEN_MB = 10 * 1024 * 1024
JSON_HEADERS = {"Content-Type": "application/json"}
#: A character repeated 50 times: the corpus's long inputs are such runs, and an answer may quote
#: a short excerpt of them only.
LONG_RUN = re.compile(r"(.)\1{49}", re.DOTALL)
#: A quick chat phrase's key as a message may name it (``gongzhu.formats.web.ChatMessage``).
QUICK_PHRASE = re.compile(r"chat[.]quick[.][a-z_]{1,32}")


def corpus(kind: str) -> list[Path]:
    return sorted(p for p in (CORPUS / kind).iterdir() if not p.name.startswith(".") and p.name != "README.md")


def make_client(tmp: Path) -> TestClient:
    app = create_app(f"sqlite:///{tmp / 'gongzhu.db'}", pace=0, hint_think=0.05, static_dir=tmp / "no-static")
    return local_client(app)


def _tables(client: TestClient) -> Tables:
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    return tables


# ---------------------------------------------------------------------------------- HTTP checks


def assert_http_error(response: httpx2.Response, *, routed: bool = True) -> str:
    """A 4xx answer with a short JSON ``{"error": ...}`` body (a catalog refusal also with
    ``message_zh``, ``code`` and ``params``; or, where no route takes the
    request and ``routed`` is false, the router's own plain answer or its redirect to the path
    without a trailing slash); returns the error text."""
    status = response.status_code
    if not routed and status == 307:  # the router drops a trailing slash (%2F at the end of a path)
        assert response.headers["location"].startswith(LOCAL + "/api/"), response.headers
        return ""
    assert 400 <= status < 500, (status, response.text[:500])
    assert "Traceback" not in response.text
    if not routed and response.headers.get("content-type", "").startswith("text/plain"):
        assert response.text == ROUTER_ANSWERS[status], response.text[:500]
        return response.text
    assert response.headers.get("content-type") == "application/json", response.headers
    body = response.json()
    # {"error": English}; a refusal of the message catalog also carries it in Chinese, its code
    # and its parameters.
    assert isinstance(body, dict) and set(body) in ({"error"}, {"error", "message_zh", "code", "params"}), body
    error = body["error"]
    assert isinstance(error, str), body
    size = len(error)
    assert 0 < size < MAX_ERROR_CHARS, f"an error of {size} characters: {error[:200]}"
    error.encode("utf-8")
    return error


def listing(client: TestClient) -> list[Message]:
    """Every match in the store, whoever made it, as ``GET /api/matches`` lists a person's own
    (which the route still answers)."""
    response = client.get("/api/matches")
    assert response.status_code == 200 and isinstance(response.json(), list)
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return [match_summary(m) for m in store.matches()]


def assert_alive(client: TestClient) -> None:
    response = client.get("/api/config")
    assert response.status_code == 200 and response.json()["seat"] == "S"


def send_request(client: TestClient, method: str, target: str, headers: dict[str, Any], body: Any) -> httpx2.Response:
    return client.request(method, target, headers=headers, content=body, follow_redirects=False)


def refused_request(client: TestClient, method: str, target: str, headers: dict[str, Any] | None = None,
                    body: Any = b"", *, routed: bool = True) -> tuple[int, str]:
    """Send a request that must be refused: the refusal, no match created, the server answering."""
    before = listing(client)
    response = send_request(client, method, target, headers or {}, body)
    error = assert_http_error(response, routed=routed)
    assert listing(client) == before
    assert_alive(client)
    return response.status_code, error


def any_new_match(client: TestClient, body: bytes, headers: dict[str, Any] | None = None) -> int:
    """``POST /api/matches`` with any body: either a 201 that creates exactly one match whose table
    opens, or a refusal that creates none.  Returns the status."""
    before = listing(client)
    response = send_request(client, "POST", "/api/matches", JSON_HEADERS if headers is None else headers, body)
    after = listing(client)
    if response.status_code == 201:
        match_id = response.json()["match_id"]
        assert len(after) == len(before) + 1
        assert {m["match_id"]: m for m in after if m["match_id"] != match_id} == {m["match_id"]: m for m in before}
        tables = _tables(client)
        table = tables.get(match_id)
        assert table is not None and table.view()["phase"] in ("expose", "play")
        tables.release(table)
    else:
        assert_http_error(response)
        assert after == before
    assert_alive(client)
    return response.status_code


# ---------------------------------------------------------------------------------- HTTP corpus


@dataclass(frozen=True)
class Request:
    """A corpus file: the request line ``METHOD TARGET``, header lines ``Name: value``, an empty
    line, then the body, byte for byte (``{match}`` in the target: an existing match)."""

    method: str
    target: str
    headers: dict[str, bytes]
    body: bytes

    @classmethod
    def read(cls, path: Path) -> Request:
        head, _, body = path.read_bytes().partition(b"\n\n")
        first, *lines = head.split(b"\n")
        method, target = first.decode("ascii").split(" ", 1)
        headers: dict[str, bytes] = {}
        for line in lines:
            name, _, value = line.partition(b":")
            headers[name.decode("ascii").strip()] = value.strip()
        return cls(method, target, headers, body)


#: Corpus requests answered with a particular status (the others: any 4xx).
HTTP_STATUS = {
    "body_over_8_kib.http": 413, "body_over_8_kib_valid_json.http": 413, "content_type_text_plain.http": 415,
    "content_type_missing.http": 415, "content_type_form.http": 415, "content_type_json_misspelt.http": 415,
    "content_type_latin1_junk.http": 415, "method_put_matches.http": 405, "method_delete_matches.http": 405,
    "method_delete_deal.http": 405,
    "method_patch_matches.http": 405, "method_post_config.http": 405, "path_unknown.http": 404,
    "path_unknown_api.http": 404, "headers_over_8_kib.http": 431, "header_origin_of_another_site.http": 403,
    "header_origin_null.http": 403, "header_host_of_another_site.http": 400, "header_host_with_junk_port.http": 400,
}


@pytest.fixture(scope="module")
def http_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(tmp_path_factory.mktemp("http")) as client:
        yield client


@pytest.fixture(scope="module")
def existing_match(http_client: TestClient) -> str:
    response = http_client.post("/api/matches", json={"levels": QUICK, "seed": 11})
    assert response.status_code == 201
    match_id: str = response.json()["match_id"]
    return match_id


@pytest.mark.parametrize("path", corpus("http"), ids=lambda p: p.name)
def test_http_corpus(http_client: TestClient, existing_match: str, path: Path) -> None:
    request = Request.read(path)
    target = request.target.replace("{match}", existing_match)
    routed = not path.name.startswith(("path_unknown", "path_api_only", "method_", "path_match_encoded_slash"))
    status, error = refused_request(http_client, request.method, target, request.headers, request.body,
                                    routed=routed)
    assert status == HTTP_STATUS.get(path.name, status), (status, error)
    assert not LONG_RUN.search(error), error  # a short excerpt of the input at most
    if path.name.startswith(("body_invalid_utf8", "body_latin1", "body_utf16")):
        assert "not valid UTF-8: byte 0x" in error
    if path.name.startswith("path_deal_"):
        assert status == 404


@pytest.mark.parametrize("chunked", [False, True], ids=["content_length", "chunked"])
@pytest.mark.parametrize("body", ["ten_mb_invalid_card", "ten_mb_of_zeros", "nesting_100000_arrays"])
def test_http_oversized_bodies(http_client: TestClient, body: str, chunked: bool) -> None:
    data = {
        "ten_mb_invalid_card": b'{"levels": {"N": "' + b"X" * TEN_MB + b'"}}',
        "ten_mb_of_zeros": b"\x00" * TEN_MB,
        "nesting_100000_arrays": b"[" * 100_000,
    }[body]
    content: Any = iter([data[i:i + 65536] for i in range(0, len(data), 65536)]) if chunked else data
    status, error = refused_request(http_client, "POST", "/api/matches", JSON_HEADERS, content)
    assert status == 413 and f"at most {MAX_BODY_BYTES} bytes" in error


@pytest.mark.parametrize("name", [name for name, _ in HOSTILE])
def test_http_hostile_bodies(http_client: TestClient, name: str) -> None:
    text = dict(HOSTILE)[name]
    status = any_new_match(http_client, text.encode())
    assert (status == 201) if not text.strip() else (status in (400, 413))  # a blank body: the defaults


#: A valid new-match body of every key (docs/web-protocol.md, HTTP).
NEW_MATCH: Message = {"preset": "online", "options": {"decks": 1, "match_end": "deals:3", "one_deck_factor": 2,
                                                      "match_limit": 500},
                      "levels": {"N": "random", "E": "beginner", "W": "expert"}, "speed": "fast", "seed": 7}


def test_http_malformed_bodies(http_client: TestClient) -> None:
    """Every value of a valid body replaced by a value of each wrong kind, every key removed,
    unknown keys, truncations: each is refused, or (a value the body allows, e.g. a null seed)
    creates exactly one match."""
    seen = created = 0
    for _name, text in json_variants(NEW_MATCH, cuts=30):
        created += any_new_match(http_client, text.encode("utf-8", "surrogatepass")) == 201
        seen += 1
    assert seen > 300 and created < seen // 4


def test_http_body_bytes(http_client: TestClient) -> None:
    for name, data in byte_variants(json.dumps(NEW_MATCH, indent=1)):
        status = any_new_match(http_client, data)
        if name not in ("crlf", "cr_only"):
            assert status != 201, name


def test_http_empty_body_is_the_defaults(http_client: TestClient) -> None:
    assert any_new_match(http_client, b"") == 201
    assert any_new_match(http_client, b" \n") == 201


# ---------------------------------------------------------------------------------- HTTP hypothesis




def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value




json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(10**45), max_value=10**45)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
                | st.sampled_from(["online", "classic", "expert", "random", "fast", "N", "S", "deals:3", "deals:²",
                                   "loser", "QS", "shown", "play", "hint", "next", "expose", "settings"]))
body_keys = st.sampled_from(["preset", "options", "levels", "speed", "seed", "type", "cards", "kinds",
                             "N", "E", "S", "W", *OPTION_KEYS]) | st.text(max_size=4)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(body_keys, inner, max_size=5), max_leaves=25)
#: Strings long enough that an answer quoting them whole would be too long (and short enough to
#: fit a body of 8 KiB or a message of 4 KiB).
long_text = st.text(min_size=300, max_size=900)
option_values = (json_scalars | st.integers() | st.sampled_from([1, 2, True, False, "standard", "none", "cw", "ccw",
                                                                 "raw", "partners", "pig_sheep", "either"])
                 | st.text(max_size=6).map(lambda s: "deals:" + s))
near_valid_bodies = st.fixed_dictionaries({}, optional={
    "preset": st.sampled_from([*PRESETS, None, "", "poker"]) | json_scalars,
    "options": st.dictionaries(st.sampled_from(OPTION_KEYS) | st.text(max_size=4), option_values, max_size=4)
    | json_values,
    "levels": st.dictionaries(st.sampled_from(["N", "E", "W", "S", "n", ""]),
                              st.sampled_from(["random", "beginner", "intermediate", "expert", "flatmc"])
                              | json_scalars, max_size=4) | json_values,
    "speed": st.sampled_from([*SPEEDS, None]) | json_scalars,
    "seed": st.integers() | json_scalars,
})


def _json_text(value: Any, ascii_only: bool) -> bytes:
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@settings(max_examples=150, deadline=None)
@given(value=json_values, ascii_only=st.booleans())
def test_http_any_json_body(http_client: TestClient, value: Any, ascii_only: bool) -> None:
    any_new_match(http_client, _json_text(value, ascii_only))


NEW_MATCH_PATHS = list(paths(NEW_MATCH))


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(NEW_MATCH_PATHS), value=json_values | long_text, data=st.data())
def test_http_any_value_anywhere(http_client: TestClient, path: tuple[Any, ...], value: Any,
                                 data: st.DataObject) -> None:
    """A valid body with any value (long strings too) at any place, and maybe a key added to
    one of its objects (an unknown key: refused, saying which, in a few words)."""
    body = replaced(NEW_MATCH, path, value)
    objects = [p for p in paths(body) if isinstance(_at(body, p), dict)]
    add: bool = data.draw(st.booleans(), label="add a key")
    if objects and add:
        where = data.draw(st.sampled_from(objects), label="object")
        _at(body, where)[data.draw(body_keys | long_text, label="key")] = data.draw(json_values, label="its value")
    any_new_match(http_client, _json_text(body, ascii_only=False))


@settings(max_examples=150, deadline=None)
@given(body=near_valid_bodies, ascii_only=st.booleans())
def test_http_near_valid_bodies(http_client: TestClient, body: Message, ascii_only: bool) -> None:
    any_new_match(http_client, _json_text(body, ascii_only))


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=300))
def test_http_any_bytes_body(http_client: TestClient, data: bytes) -> None:
    any_new_match(http_client, data)


segments = (st.text(min_size=1, max_size=40).filter(lambda s: s not in (".", "..")).map(lambda s: quote(s, safe=""))
            | st.binary(min_size=1, max_size=40).filter(lambda b: b not in (b".", b".."))
            .map(lambda b: quote_from_bytes(b, safe="")))


@settings(max_examples=150, deadline=None)
@given(segment=segments, route=st.sampled_from(["match", "deal", "records", "deal_of"]),
       method=st.sampled_from(["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]))
def test_http_any_path(http_client: TestClient, existing_match: str, segment: str, route: str, method: str) -> None:
    target = {"match": f"/api/matches/{segment}", "deal": f"/api/matches/{existing_match}/deals/{segment}",
              "records": f"/api/matches/{segment}/records.jsonl",
              "deal_of": f"/api/matches/{segment}/deals/0"}[route]
    routed = method in ("GET", "HEAD") and "%2F" not in segment
    if method == "HEAD":  # no body to read
        status = send_request(http_client, method, target, {}, b"").status_code
        assert 400 <= status < 500 or (status == 307 and not routed), status
        assert_alive(http_client)
        return
    refused_request(http_client, method, target, JSON_HEADERS if method != "GET" else {}, b"{}", routed=routed)


header_values = st.binary(max_size=60).filter(lambda b: b"\r" not in b and b"\n" not in b) | st.sampled_from([
    b"application/json", b"application/json; charset=utf-8", b"APPLICATION/JSON", b"0", b"-1", b"99999999999999",
    b"null", b"http://127.0.0.1", b"http://evil.example", b"127.0.0.1", b"[::1]", b"[::1", b"127.0.0.1:x",
    b"localhost:80", b"\xb2", b"", b" "])


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(["content-type", "content-length", "origin", "host", "x-forwarded-host"]),
       value=header_values)
def test_http_any_header_value(http_client: TestClient, name: str, value: bytes) -> None:
    headers: dict[str, Any] = {"content-type": b"application/json", name: value}
    any_new_match(http_client, json.dumps({"levels": QUICK}).encode(), headers)


# ---------------------------------------------------------------------------------- WebSocket


@dataclass(repr=False)
class TableAt:
    """A table waiting for South, kept open by an observer connection (South's): ``before`` is
    South's view."""

    name: str
    client: TestClient
    match_id: str
    table: Table
    before: Message
    observer: WebSocketTestSession

    def __repr__(self) -> str:
        return f"<table {self.name}: {self.match_id}>"

    def check(self) -> None:
        table = _tables(self.client).get(self.match_id)
        assert table is self.table and not table.broken
        assert south_view(table) == self.before


def south_view(table: Table) -> Message:
    """The table as South's connections see it (South's is the only person at the table)."""
    return table.view(next(c for c in table.connections if table.seat_of(c.person.id) is Seat.S))


def _settled(state: Message) -> bool:
    """Whether the table waits for South: nothing more comes unasked (the computer players have
    declared, in secret, and South has not; or it is South's turn)."""
    if state["phase"] in ("deal-over", "match-over"):
        return True
    return bool((state["phase"] == "expose" and state["undeclared"] == ["S"]) or state["turn"] == "S")


@pytest.fixture(scope="module")
def ws_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(tmp_path_factory.mktemp("ws")) as client:
        yield client


#: The tables the WebSocket tests send to: a new-match body, and the phase South waits in.
TABLES: dict[str, tuple[Message, str]] = {
    "expose": ({}, "expose"),
    "play": ({}, "play"),
    "expose_two_decks": ({"preset": "online2"}, "expose"),
    "play_two_decks": ({"preset": "online2"}, "play"),
    "expose_sell_x4_x2": ({"options": {"exposure": "sell_x4_x2"}}, "expose"),
    "expose_first_card": ({"preset": "tournament"}, "expose"),
    "deal_over": ({}, "deal-over"),
}


@contextmanager
def _open_table(client: TestClient, name: str, body: Message, phase: str) -> Iterator[TableAt]:
    response = client.post("/api/matches", json={**body, "levels": QUICK, "seed": 5})
    assert response.status_code == 201
    match_id = response.json()["match_id"]
    with client.websocket_connect(f"/ws/{match_id}") as observer:

        def settle() -> Message:
            while not ((message := observer.receive_json())["type"] == "state" and _settled(message["state"])):
                pass
            state: Message = message["state"]
            return state

        state = settle()
        while state["phase"] != phase:  # South declares nothing, then plays its first legal play
            move = {"type": "play", "cards": state["legal"][0]} if state["phase"] == "play" else \
                {"type": "expose", "cards": []}
            observer.send_text(json.dumps(move))
            state = settle()
        assert _settled(state)
        assert phase != "expose" or state["exposable"], "the fixed seed deals South an exposable card"
        table = _tables(client).get(match_id)
        assert table is not None
        yield TableAt(name, client, match_id, table, south_view(table), observer)


@pytest.fixture(scope="module")
def tables_at(ws_client: TestClient) -> Iterator[dict[str, TableAt]]:
    with ExitStack() as stack:
        tables = {name: stack.enter_context(_open_table(ws_client, name, body, phase))
                  for name, (body, phase) in TABLES.items()}
        for at in tables.values():  # a finished deal changed the lifetime score every table shows
            at.before = south_view(at.table)
        yield tables


def accepted(table: Table, text: str) -> bool:
    """Whether a message is valid (docs/web-protocol.md, Browser → server) for this table:
    such a message is not sent by the fuzz tests, which must see every one refused."""
    try:
        message = loads_strict(text)
    except JSONTextError:
        return False
    fields = {"expose": ({"cards"}, {"kinds"}), "play": ({"cards"}, set()), "hint": (set(), {"quick"}),
              "next": (set(), set()), "settings": ({"speed"}, set()), "sit": ({"seat"}, set()),
              "stand": (set(), set()), "start": (set(), set()), "takeback": (set(), set()), "auto": (set(), set()),
              "chat": (set(), {"text", "quick"})}
    if not isinstance(message, dict) or not isinstance(message.get("type"), str) or message["type"] not in fields:
        return False
    kind = message["type"]
    required, optional = fields[kind]
    if not required <= set(message) or not set(message) <= {"type", *required, *optional}:
        return False
    if kind in ("stand", "takeback", "auto"):
        return True  # South sits at every table: it may stand, and ask for 托管 or play again (a no-op)
    if kind in ("sit", "start"):
        return False  # South sits already; every table started when it was made
    if kind == "chat":
        return _chat_accepted(message)
    for name in ("cards", "kinds"):
        if name in message and not (isinstance(message[name], list) and all(isinstance(v, str) for v in message[name])):
            return False
    deal = deal_of(table)
    try:
        if kind == "play":
            if not 1 <= len(message["cards"]) <= 2:
                return False
            deal.verify_play(message["cards"], Seat.S)
        elif kind == "expose":
            kinds = message.get("kinds")
            if kinds is not None and len(kinds) != len(message["cards"]):
                return False
            deal.verify_declare(Seat.S, list(message["cards"]) if kinds is None
                                else list(zip(message["cards"], kinds, strict=True)))
    except (GongzhuError, ValueError):
        return False
    if kind == "settings":
        return isinstance(message["speed"], str) and message["speed"] in SPEEDS
    if kind == "hint":
        return isinstance(message.get("quick", False), bool) and deal.turn == Seat.S
    if kind == "next":
        return table.match.current is None
    return True


def _chat_accepted(message: Message) -> bool:
    """Whether a chat message is a line the table shows: a quick phrase of the catalog, or a text
    of 1 to 120 characters with something left once control characters and outer spaces go."""
    quick, text = message.get("quick"), message.get("text")
    if "quick" in message:
        if "text" in message and not (isinstance(text, str) and 1 <= len(text) <= MAX_CHAT):
            return False
        return isinstance(quick, str) and QUICK_PHRASE.fullmatch(quick) is not None and has(quick)
    if not isinstance(text, str) or not 1 <= len(text) <= MAX_CHAT:
        return False
    return any(unicodedata.category(ch)[0] != "C" and not ch.isspace() for ch in text)


def assert_ws_error(reply: Message) -> str:
    assert reply.get("type") == "error" and set(reply) <= {"type", "message", "message_zh", "code", "params"}, reply
    for key in ("message", "message_zh"):
        if key in reply:
            text = reply[key]
            assert isinstance(text, str), reply
            size = len(text)
            assert 0 < size < MAX_ERROR_CHARS, f"an error of {size} characters: {text[:200]}"
            assert "the server failed" not in text and "Traceback" not in text, reply
    message: str = reply["message"]
    return message


def probe(ws: WebSocketTestSession, at: TableAt) -> None:
    """The connection still takes a valid message: at South's turn a hint (answered); in the
    exposure phase or after the deal, the current speed (nothing to answer), then a hint
    (refused, answered)."""
    if at.before["phase"] == "play":
        ws.send_text('{"type": "hint"}')
        reply = ws.receive_json()
        assert reply["type"] == "hint" and reply["hints"], reply
    else:
        ws.send_text(json.dumps({"type": "settings", "speed": at.before["speed"]}))
        ws.send_text('{"type": "hint"}')
        reply = ws.receive_json()
        if at.before["phase"] == "expose":
            assert "your turn" in assert_ws_error(reply)
        else:  # between deals there is no deal to hint at
            assert assert_ws_error(reply) and reply["code"] == "server.deal_over", reply


def refused_message(at: TableAt, frame: str | bytes) -> str:
    """Send one frame (bytes: a binary frame) on a new connection; it must be refused and change
    nothing, and the connection must go on.  Returns the error message."""
    with at.client.websocket_connect(f"/ws/{at.match_id}") as ws:
        assert ws.receive_json() == {"type": "state", "v": at.before["v"], "state": at.before}
        if isinstance(frame, bytes):
            ws.send_bytes(frame)
        else:
            ws.send_text(frame)
        message = assert_ws_error(ws.receive_json())
        at.check()
        probe(ws, at)
    at.check()
    return message


def ws_frame(path: Path) -> str | bytes:
    """A corpus file as a frame: ``.bin`` files are binary frames; other files are text frames,
    their bytes that are not UTF-8 passed on as lone surrogates (``surrogateescape``; a real
    WebSocket server refuses such a frame itself)."""
    data = path.read_bytes()
    return data if path.suffix == ".bin" else data.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("path", corpus("ws"), ids=lambda p: p.name)
def test_ws_corpus(tables_at: dict[str, TableAt], path: Path, name: str) -> None:
    at = tables_at[name]
    frame = ws_frame(path)
    assert isinstance(frame, bytes) or not accepted(at.table, frame)
    message = refused_message(at, frame)
    assert not LONG_RUN.search(message), message
    size = len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        assert message == f"the message is too large ({size} bytes): at most {MAX_MESSAGE_BYTES}"
    elif isinstance(frame, bytes):
        assert "binary" in message


@pytest.mark.parametrize("name", ["expose", "play"])
def test_ws_oversized_messages(tables_at: dict[str, TableAt], name: str) -> None:
    at = tables_at[name]
    frames: list[str | bytes] = [
        '{"type": "play", "cards": ["' + "X" * TEN_MB + '"]}',
        b'{"type": "play", "cards": ["' + b"X" * TEN_MB + b'"]}',
        "[" * 100_000,
        "{" * (MAX_MESSAGE_BYTES + 1),
        '{"type": "hint", "pad": "' + "x" * (MAX_MESSAGE_BYTES - 26) + '"}',  # 4097 bytes
        '{"type": "hint", "pad": "' + "北" * 1357 + '"}',  # 1384 characters, 4098 bytes
    ]
    for frame in frames:
        assert "too large" in refused_message(at, frame)
    exact = '{"type": "hint", "pad": "' + "x" * (MAX_MESSAGE_BYTES - 27) + '"}'
    assert len(exact) == MAX_MESSAGE_BYTES
    assert refused_message(at, exact) == "$: unknown field 'pad': expected 'quick'"


@pytest.mark.parametrize("name", [name for name, _ in HOSTILE])
def test_ws_hostile_text(tables_at: dict[str, TableAt], name: str) -> None:
    refused_message(tables_at["play"], dict(HOSTILE)[name])


#: A valid message of each kind (the play: South's first legal play, filled in by the test).
TEMPLATES: dict[str, Message] = {
    "expose": {"type": "expose", "cards": ["QS", "AH"], "kinds": ["shown", "shown"]},
    "play": {"type": "play", "cards": ["PLAY"]},
    "hint": {"type": "hint"},
    "next": {"type": "next"},
    "settings": {"type": "settings", "speed": "fast"},
    "sit": {"type": "sit", "seat": "N"},
    "start": {"type": "start"},
    "chat": {"type": "chat", "text": "加油"},
    "quick": {"type": "chat", "quick": "chat.quick.good_game"},
}


def _template(at: TableAt, kind: str) -> Message:
    if kind == "play":
        return {"type": "play", "cards": at.before["legal"][0]} if at.before["legal"] else {"type": "play",
                                                                                             "cards": ["2C"]}
    if kind == "expose" and at.before["exposable"]:
        item = at.before["exposable"][0]
        return {"type": "expose", "cards": [item["card"]], "kinds": [item["kinds"][0]]}
    return TEMPLATES[kind]


#: (message kind, table) pairs of the systematic variants: every kind in the exposure phase and at
#: South's turn; on the other tables, the kinds whose checks depend on them.
MALFORMED = [*((kind, name) for name in ("expose", "play") for kind in TEMPLATES),
             ("expose", "expose_two_decks"), ("expose", "expose_sell_x4_x2"), ("expose", "expose_first_card"),
             ("play", "play_two_decks"), ("next", "deal_over"), ("play", "deal_over")]


@pytest.mark.parametrize(("kind", "name"), MALFORMED)
def test_ws_malformed_messages(tables_at: dict[str, TableAt], kind: str, name: str) -> None:
    """Every value of a valid message replaced by a value of each wrong kind, every key removed,
    an unknown key, truncations: each one the table does not accept is refused."""
    at = tables_at[name]
    sent = 0
    for _name, text in json_variants(_template(at, kind), cuts=20):
        if accepted(at.table, text):
            continue
        refused_message(at, text)
        sent += 1
    assert sent > 40, (kind, name, sent)


@pytest.mark.parametrize("name", ["expose", "play", "deal_over"])
def test_ws_message_bytes(tables_at: dict[str, TableAt], name: str) -> None:
    at = tables_at[name]
    for kind in TEMPLATES:
        for _name, data in byte_variants(json.dumps(_template(at, kind))):
            refused_message(at, data)  # a binary frame
            text = data.decode("utf-8", "surrogateescape")
            if not accepted(at.table, text):
                refused_message(at, text)


def test_ws_unknown_matches(ws_client: TestClient) -> None:
    for match_id in ("nope", "%00", "%ED%A0%80", "%FF", "m" * 3000, "%20", "m-000000000000"):
        assert_unknown_match(ws_client, match_id)


def assert_unknown_match(client: TestClient, segment: str) -> None:
    with client.websocket_connect(f"/ws/{segment}") as ws:
        reply = ws.receive_json()
        assert reply["message"].startswith("unknown match ")
        assert_ws_error(reply)
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404
    assert_alive(client)


# ---------------------------------------------------------------------------------- WebSocket hypothesis

ws_keys = st.sampled_from(["type", "cards", "kinds", "speed", "seat", "card", "text", "quick"]) | st.text(max_size=4)
ws_scalars = json_scalars | st.sampled_from(["2C", "3C", "QS", "AH", "JD", "TC", "10C", "♠Q", "first", "hidden",
                                             "sideways", "slow", "normal", "instant", "sit", "stand", "start",
                                             "takeback", "auto", "chat", "chat.quick.hello", "chat.quick.nope",
                                             "E", "X"])
ws_values = st.recursive(ws_scalars, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(ws_keys, inner, max_size=4), max_leaves=20) | long_text
table_names = st.sampled_from(list(TABLES))
WS_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@WS_SETTINGS
@given(name=table_names, value=ws_values, kind=st.sampled_from([*TEMPLATES, None]), ascii_only=st.booleans())
def test_ws_any_message(tables_at: dict[str, TableAt], name: str, value: Any, kind: str | None,
                        ascii_only: bool) -> None:
    at = tables_at[name]
    message = {"type": kind, **value} if isinstance(value, dict) and kind else value
    text = json.dumps(message, ensure_ascii=ascii_only)
    assume(not accepted(at.table, text))
    refused_message(at, text)


@WS_SETTINGS
@given(name=table_names, kind=st.sampled_from(list(TEMPLATES)), data=st.data())
def test_ws_any_value_anywhere(tables_at: dict[str, TableAt], name: str, kind: str, data: st.DataObject) -> None:
    at = tables_at[name]
    template = _template(at, kind)
    path = data.draw(st.sampled_from(list(paths(template))), label="path")
    value = data.draw(ws_values, label="value")
    message = replaced(template, path, value)
    if data.draw(st.booleans(), label="extra key") and isinstance(message, dict):
        message[data.draw(ws_keys | long_text, label="key")] = data.draw(ws_values, label="extra value")
    text = json.dumps(message)
    assume(not accepted(at.table, text))
    refused_message(at, text)


@WS_SETTINGS
@given(name=table_names, text=st.text(max_size=200))
def test_ws_any_text(tables_at: dict[str, TableAt], name: str, text: str) -> None:
    at = tables_at[name]
    assume(not accepted(at.table, text))
    refused_message(at, text)


@WS_SETTINGS
@given(name=table_names, data=st.binary(max_size=300), as_text=st.booleans())
def test_ws_any_bytes(tables_at: dict[str, TableAt], name: str, data: bytes, as_text: bool) -> None:
    at = tables_at[name]
    if not as_text:
        refused_message(at, data)
        return
    text = data.decode("utf-8", "surrogateescape")
    assume(not accepted(at.table, text))
    refused_message(at, text)


@settings(max_examples=100, deadline=None)
@given(segment=segments)
def test_ws_any_match_id(ws_client: TestClient, segment: str) -> None:
    assume("%2F" not in segment and not segment.startswith("m-"))
    assert_unknown_match(ws_client, segment)


handshake_values = header_values | st.sampled_from([b"http://127.0.0.1", b"ws://127.0.0.1", b"http://127.0.0.1:80",
                                                    b"https://127.0.0.1", b"http://localhost", b"file://"])


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(["origin", "host"]), value=handshake_values)
def test_ws_any_handshake_header(tables_at: dict[str, TableAt], name: str, value: bytes) -> None:
    """A WebSocket opened with any Origin or Host: either it is let in (and gets the table), or
    the handshake is denied with a 4xx JSON error; the table does not change either way."""
    at = tables_at["play"]
    try:
        with at.client.websocket_connect(f"/ws/{at.match_id}", headers={name: value}) as ws:
            assert ws.receive_json() == {"type": "state", "v": at.before["v"], "state": at.before}
            probe(ws, at)
    except WebSocketDenialResponse as denied:
        assert_http_error(denied)
    at.check()
