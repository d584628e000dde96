"""Moderation of a public site (docs/moderation.md), on a live server: operators given and taken
from the command line; the operators' API refused to everyone else with a catalog message; a
warning told at once to the person's open table; a mute that refuses their chat until its end (an
injected clock, never a wait); a suspension and a ban that end every session at once — the open
table is told why and closed — and refuse signing in with the reason and the end; lifting;
reports filed by players listed for the operator and marked handled; a table closed with its
people told why; an audit entry for every action; and new accounts limited per client address
behind a trusted proxy."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, select, update
from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed

from gongzhu.cli.main import main as gongzhu_main
from gongzhu.server.accounts import SIGNUPS_PER_ADDRESS
from gongzhu.server.app import create_app
from gongzhu.server.moderation import MUTE_CACHE_SECONDS, grant
from gongzhu.server.store import AUDIT_LOG, USERS, Store
from helpers.client import LOCAL
from helpers.clock import SetClock
from helpers.database import STORES
from helpers.live import PASSWORD, Live, Someone, account, random_moves
from helpers.servers import LiveServer
from test_tables import new_table

DAY = 24 * 3600.0


@pytest.fixture
def clock() -> SetClock:
    return SetClock(1_800_000_000.0)  # 2027-01-15


@pytest.fixture
def server(db_url: str, tmp_path: Path, clock: SetClock) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static", now=clock) as s:
        yield s


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["error"] and body["message_zh"], body
    return body


def operator(server: LiveServer, name: str = "Op") -> Someone:
    person = account(server, name)
    assert grant(server.app.state.store, name) == (name, True)
    return person


def audit(op: Someone) -> list[dict[str, Any]]:
    """The audit log, newest first, less the command line's grants (those of :func:`operator`)."""
    r = op.http.get("/api/admin/audit")
    assert r.status_code == 200, r.text
    entries: list[dict[str, Any]] = r.json()["entries"]
    assert all(e["action"] == "grant" for e in entries if e["operator"] is None)
    return [e for e in entries if e["operator"] is not None]


def sanction(op: Someone, name: str, kind: str, reason: str = "rude", ends: str | None = None) -> dict[str, Any]:
    r = op.http.post(f"/api/admin/people/{name}/sanctions", json={"kind": kind, "reason": reason, "ends": ends})
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


def at_a_table(person: Someone) -> Live:
    """``person`` hosting a table of their own, connected to it."""
    live = person.connect(new_table(person)["table_id"])
    live.until(lambda s: s["phase"] == "waiting")
    return live


def closed_with(live: Live, code: int) -> list[dict[str, Any]]:
    """Read until the server closes ``live``: the close code must be ``code``; what came before."""
    got: list[dict[str, Any]] = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            got.append(live.receive(10))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == code, closed.value
    return got


def sign_in(person: Someone, name: str) -> Any:
    return person.http.post("/api/login", json={"name": name, "password": PASSWORD})


# ---------------------------------------------------------------------- the command line


def test_the_command_line_grants_revokes_and_lists_operators(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'site.db'}"
    app = create_app(url, pace=0, static_dir=tmp_path / "no-static")
    with TestClient(app, base_url=LOCAL, client=("198.51.100.7", 5000)) as ann:
        ann.get("/api/me")
        assert ann.post("/api/account", json={"name": "Ann", "password": PASSWORD}).status_code == 200
    with TestClient(app, base_url=LOCAL, client=("198.51.100.8", 5000)) as guest:
        guest_name = guest.get("/api/me").json()["name"]
    assert gongzhu_main(["admin", "list", "--db", url]) == 0
    assert "no operators yet" in capsys.readouterr().out
    assert gongzhu_main(["admin", "grant", "ann", "--db", url]) == 0
    assert capsys.readouterr().out == "Ann is an operator now\n"
    assert gongzhu_main(["admin", "grant", "Ann", "--db", url]) == 0
    assert capsys.readouterr().out == "Ann is an operator already\n"
    assert gongzhu_main(["admin", "list", "--db", url]) == 0
    assert capsys.readouterr().out.startswith("Ann\t")
    assert gongzhu_main(["admin", "grant", "Nobody", "--db", url]) == 1
    assert "no player with an account named" in capsys.readouterr().err
    assert gongzhu_main(["admin", "grant", guest_name, "--db", url, "--lang", "zh"]) == 1
    assert "是游客" in capsys.readouterr().err
    assert gongzhu_main(["admin", "grant", "--db", url]) == 2
    capsys.readouterr()
    assert gongzhu_main(["admin", "revoke", "Ann", "--db", url]) == 0
    assert capsys.readouterr().out == "Ann is an operator no longer\n"
    assert gongzhu_main(["admin", "revoke", "Ann", "--db", url]) == 0
    assert capsys.readouterr().out == "Ann was not an operator\n"
    store = Store(url)
    try:
        from sqlalchemy import select

        from gongzhu.server.store import AUDIT_LOG
        with store.engine.connect() as c:
            rows = c.execute(select(AUDIT_LOG.c.action, AUDIT_LOG.c.operator).order_by(AUDIT_LOG.c.id)).all()
    finally:
        store.close()
    assert [tuple(r) for r in rows] == [("grant", None), ("revoke", None)]


def test_the_command_line_reads_the_servers_variable_and_migrates_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``gongzhu admin`` takes its database from ``GONGZHU_DB`` as ``gongzhu serve`` does (in a
    container that is where the server's is); a database it cannot open, or not at this
    gongzhu's schema, ends it with one line — nothing made, nothing migrated, no traceback."""
    url = f"sqlite:///{tmp_path / 'site.db'}"
    Store(url).close()  # a server's database, at the newest schema
    monkeypatch.setenv("GONGZHU_DB", url)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # where the default would be
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert gongzhu_main(["admin", "list"]) == 0
    assert "no operators yet" in capsys.readouterr().out
    assert not (tmp_path / "data").exists() and not (tmp_path / "home").exists()  # no default file made
    empty = tmp_path / "empty.db"
    empty.touch()  # an empty SQLite database (a file that is not there is said so: test_operator_commands.py)
    assert gongzhu_main(["admin", "list", "--db", f"sqlite:///{empty}"]) == 2
    err = capsys.readouterr().err
    assert "at revision none" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    engine = create_engine(f"sqlite:///{empty}")
    try:
        with engine.connect() as c:
            assert inspect(c).get_table_names() == []  # nothing migrated
    finally:
        engine.dispose()
    assert gongzhu_main(["admin", "list", "--db", "postgresql+psycopg://ops:Hunter2@127.0.0.1:1/site"]) == 2
    err = capsys.readouterr().err
    assert "Hunter2" not in err and "ops:***@" in err and "Traceback" not in err


# ---------------------------------------------------------------------- who may


def test_only_operators_may_moderate(server: LiveServer) -> None:
    guest, ann = Someone(server), account(server, "Ann")
    op = operator(server)
    table_id = new_table(ann)["table_id"]
    calls = [("get", "/api/admin/people?q=a", None), ("get", "/api/admin/people/Ann", None),
             ("post", "/api/admin/people/Ann/sanctions", {"kind": "ban", "reason": "x"}),
             ("post", "/api/admin/sanctions/1/lift", {}), ("get", "/api/admin/reports", None),
             ("post", "/api/admin/reports/1/handled", {}), ("get", "/api/admin/audit", None),
             ("post", f"/api/admin/tables/{table_id}/close", {"reason": "x"})]
    for person in (guest, ann):
        for method, path, body in calls:
            r = person.http.post(path, json=body) if method == "post" else person.http.get(path)
            refused(r, 403, "moderation.operators_only")
    assert ann.http.post("/api/login", json={"name": "Ann", "password": PASSWORD}).status_code == 200
    assert op.http.get("/api/admin/people?q=an").json()["people"][0]["name"] == "Ann"
    assert audit(op) == []  # refusals change nothing


# ---------------------------------------------------------------------- sanctions


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_banned_person_is_closed_out_at_once_and_may_not_sign_in(server: LiveServer) -> None:
    op, bo = operator(server), account(server, "Bo")
    other_device = Someone(server)
    assert sign_in(other_device, "Bo").status_code == 200
    live = at_a_table(bo)
    made = sanction(op, "bo", "ban", "cheating with a second account")
    assert (made["name"], made["kind"], made["ends"]) == ("Bo", "ban", None)
    said = closed_with(live, 4403)
    assert any(m.get("code") == "moderation.banned" and m["params"]["reason"] == "cheating with a second account"
               for m in said), said
    for device in (bo, other_device):  # every session ended
        assert device.http.get("/api/me").json()["guest"] is True
    body = refused(sign_in(Someone(server), "Bo"), 403, "moderation.banned")
    assert body["params"] == {"reason": "cheating with a second account"}
    [entry] = audit(op)
    assert {k: entry[k] for k in ("operator", "action", "target", "reason")} == {
        "operator": "Op", "action": "ban", "target": "Bo", "reason": "cheating with a second account"}
    # Lifted, Bo signs in again.
    card = op.http.get("/api/admin/people/Bo").json()
    assert [(s["kind"], s["active"], s["by"]) for s in card["sanctions"]] == [("ban", True, "Op")]
    assert card["sanctioned"] == ["ban"]
    r = op.http.post(f"/api/admin/sanctions/{made['id']}/lift", json={"reason": "appeal heard"})
    assert r.status_code == 200, r.text
    refused(op.http.post(f"/api/admin/sanctions/{made['id']}/lift", json={}), 409, "moderation.already_lifted")
    assert sign_in(Someone(server), "Bo").status_code == 200
    assert [(e["action"], e["target"], e["reason"]) for e in audit(op)] == [
        ("lift", "Bo", "appeal heard"), ("ban", "Bo", "cheating with a second account")]


def play_a_deal(host: Someone, other: Someone) -> None:
    """``host``'s one-deal table, ``other`` at North and computers East and West, played to its end
    by random legal moves."""
    table_id = new_table(host, options={"match_end": "deals:1"})["table_id"]
    lives = {"S": host.connect(table_id), "N": other.connect(table_id)}
    lives["N"].send({"type": "sit", "seat": "N"})
    lives["S"].until(lambda s: s["table"]["seats"]["N"]["name"] is not None)
    lives["S"].send({"type": "start"})
    acted: dict[str, int] = {}
    rng = random.Random(7)
    for _ in range(2000):
        for live in lives.values():
            live.drain(0.01)
        if lives["S"].state.get("phase") == "match-over":
            break
        random_moves(lives, acted, rng)
    assert lives["S"].state.get("phase") == "match-over", lives["S"].state.get("phase")
    for live in lives.values():
        live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_barred_persons_browser_makes_no_account_and_shows_their_other_accounts(server: LiveServer) -> None:
    """The browsers an account was signed in from link it to the other accounts signed in there
    (a second account of the same person, a household's): the operator's card lists them, with the
    matches they played together and their sanctions; while an account is suspended or banned, a
    browser it was signed in from makes no new account (another browser does, and so does that
    one once the sanction is lifted)."""
    op, bo, cy = operator(server), account(server, "Bo"), account(server, "Cy")
    play_a_deal(bo, cy)
    card = op.http.get("/api/admin/people/Bo").json()
    assert card["linked"] == []  # a table shared, no browser
    assert bo.http.post("/api/logout", json={}).status_code == 200
    assert sign_in(bo, "Cy").status_code == 200  # Bo's browser, signed in as Cy
    card = op.http.get("/api/admin/people/Bo").json()
    assert card["linked"] == [{"name": "Cy", "browsers": 1, "matches_together": 1, "sanctioned": []}]
    made = sanction(op, "Bo", "ban", "a second account at his tables")
    assert op.http.get("/api/admin/people/Cy").json()["linked"] == [
        {"name": "Bo", "browsers": 1, "matches_together": 1, "sanctioned": ["ban"]}]
    assert bo.http.post("/api/logout", json={}).status_code == 200  # a guest in Bo's browser
    body = {"name": "Bo2", "password": PASSWORD}
    refused(bo.http.post("/api/account", json=body), 403, "server.account_browser_barred")
    assert sign_in(bo, "Cy").status_code == 200  # the household's other account still signs in there
    assert account(server, "Dee").name == "Dee"  # another browser makes one
    assert op.http.post(f"/api/admin/sanctions/{made['id']}/lift", json={}).status_code == 200
    assert bo.http.post("/api/logout", json={}).status_code == 200
    assert bo.http.post("/api/account", json=body).status_code == 200


def test_a_suspension_ends_on_its_date(server: LiveServer, clock: SetClock) -> None:
    op, bo = operator(server), account(server, "Bo")
    ends = "2027-01-20T12:00:00+00:00"
    sanction(op, "Bo", "suspend", "spam", ends)
    assert bo.http.get("/api/me").json()["guest"] is True
    body = refused(sign_in(Someone(server), "Bo"), 403, "moderation.suspended")
    assert body["params"] == {"until": "2027-01-20 12:00 UTC", "reason": "spam"}
    clock.t += 6 * DAY  # 2027-01-21
    assert sign_in(Someone(server), "Bo").status_code == 200


def test_a_mute_refuses_chat_until_its_end(server: LiveServer, clock: SetClock) -> None:
    op, bo = operator(server), account(server, "Bo")
    live = at_a_table(bo)
    live.send({"type": "chat", "text": "hello"})
    assert live.receive()["type"] == "chat"
    sanction(op, "Bo", "mute", "insults", "2027-01-16T00:00:00Z")
    told = live.receive()
    assert told["code"] == "moderation.muted" and told["params"]["until"] == "2027-01-16 00:00 UTC"
    reply = live.refused({"type": "chat", "text": "hello again"})
    assert reply["code"] == "moderation.muted" and reply["params"]["reason"] == "insults"
    assert live.refused({"type": "chat", "quick": "chat.quick.hello"})["code"] == "moderation.muted"
    assert bo.http.get("/api/me/notices").json()["mute"]["reason"] == "insults"
    clock.t += DAY  # past its end: chat again (the cached check knows the end)
    assert clock.t - 1_800_000_000.0 > MUTE_CACHE_SECONDS
    live.send({"type": "chat", "text": "sorry"})
    assert live.receive()["type"] == "chat"
    assert bo.http.get("/api/me/notices").json()["mute"] is None
    live.close()


def test_a_mute_holds_the_browser_as_a_guest_and_as_a_new_account(server: LiveServer, clock: SetClock) -> None:
    """Bo, muted, signs out and chats as a guest, then signs up anew: refused both times from that
    browser, without whose mute or why; Cy, in a browser of her own, chats as ever; after its end
    the browser chats again."""
    op, bo, cy = operator(server), account(server, "Bo"), account(server, "Cy")
    sanction(op, "Bo", "mute", "insults", "2027-01-16T00:00:00Z")
    assert bo.http.post("/api/logout").status_code == 200
    assert bo.http.get("/api/me").json()["guest"] is True  # a guest now, in the same browser
    live = at_a_table(bo)
    reply = live.refused({"type": "chat", "text": "it was not me"})
    assert reply["code"] == "moderation.muted_browser", reply
    assert reply["params"] == {"until": "2027-01-16 00:00 UTC"}  # neither Bo's name nor the reason
    assert "insults" not in str(reply) and "Bo" not in str(reply)
    live.close()
    assert bo.http.post("/api/account", json={"name": "Bob2", "password": PASSWORD}).status_code == 200
    live = at_a_table(bo)
    assert live.refused({"type": "chat", "quick": "chat.quick.hello"})["code"] == "moderation.muted_browser"
    watching = at_a_table(cy)
    watching.send({"type": "chat", "text": "hello"})
    assert watching.receive()["type"] == "chat"  # another browser: nothing holds it
    watching.close()
    clock.t += DAY
    live.send({"type": "chat", "text": "hello again"})
    assert live.receive()["type"] == "chat"
    live.close()


def test_a_warning_is_told_at_once_or_at_the_next_table(server: LiveServer) -> None:
    op, bo, cy = operator(server), account(server, "Bo"), account(server, "Cy")
    live = at_a_table(bo)
    sanction(op, "Bo", "warn", "mind your language")
    told = live.receive()
    assert told["type"] == "error" and told["code"] == "moderation.warned"
    assert told["params"] == {"reason": "mind your language"}
    # Cy is at no table: told when they next open one, once.
    sanction(op, "Cy", "warn", "no stalling")
    assert cy.http.get("/api/me/notices").json()["warnings"][0]["reason"] == "no stalling"
    table_id = new_table(cy)["table_id"]
    first = cy.connect(table_id)
    got = [first.receive(), first.receive()]
    assert any(m.get("code") == "moderation.warned" for m in got), got
    first.close()
    second = cy.connect(table_id)
    second.receive()
    with pytest.raises(TimeoutError):
        second.receive(0.5)  # (not told twice)
    second.close()
    live.close()
    cards = [s["seen"] is not None for s in op.http.get("/api/admin/people/Cy").json()["sanctions"]]
    assert cards == [True]
    assert [e["action"] for e in audit(op)] == ["warn", "warn"]


def test_sanctions_are_refused_without_what_they_need(server: LiveServer) -> None:
    op = operator(server)
    account(server, "Bo")
    operator(server, "Al")
    path = "/api/admin/people/Bo/sanctions"
    refused(op.http.post(path, json={"kind": "ban", "reason": " "}), 400, "moderation.reason_needed")
    refused(op.http.post(path, json={"kind": "ban", "reason": "x" * 501}), 400, "moderation.reason_too_long")
    refused(op.http.post(path, json={"kind": "shout", "reason": "x"}), 400, "moderation.kind_unknown")
    refused(op.http.post(path, json={"kind": "mute", "reason": "x"}), 400, "moderation.ends_needed")
    refused(op.http.post(path, json={"kind": "suspend", "reason": "x", "ends": "soon"}), 400, "moderation.ends_bad")
    refused(op.http.post(path, json={"kind": "suspend", "reason": "x", "ends": "9999-12-31T23:00:00-05:00"}), 400,
            "moderation.ends_bad")  # past what UTC can write
    refused(op.http.post(path, json={"kind": "warn", "reason": "x", "ends": "2999-01-01T00:00:00+00:00"}), 400,
            "moderation.warn_has_no_end")
    refused(op.http.post(path, json={"kind": "suspend", "reason": "x", "ends": "2020-01-01"}), 400,
            "moderation.ends_past")
    refused(op.http.post(path, json={"kind": "ban", "reason": "x", "ends": "2030-01-01"}), 400,
            "moderation.ban_has_no_end")
    refused(op.http.post("/api/admin/people/Op/sanctions", json={"kind": "warn", "reason": "x"}), 400,
            "moderation.not_yourself")
    refused(op.http.post("/api/admin/people/Al/sanctions", json={"kind": "ban", "reason": "x"}), 409,
            "moderation.target_operator")
    refused(op.http.post("/api/admin/people/Nobody/sanctions", json={"kind": "warn", "reason": "x"}), 404,
            "server.account_unknown")
    assert op.http.post(path, json=[1]).status_code == 400
    assert audit(op) == []


# ---------------------------------------------------------------------- reports and tables


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_reports_filed_by_players_reach_the_operator(server: LiveServer) -> None:
    op, ann, cy = operator(server), account(server, "Ann"), account(server, "Cy")
    account(server, "Bo")
    table_id = new_table(ann)["table_id"]
    assert ann.http.post("/api/people/Bo/report", json={"reason": "rude", "match_id": table_id}).status_code == 201
    assert cy.http.post("/api/people/Bo/report", json={"reason": "stalls"}).status_code == 201
    listed = op.http.get("/api/admin/reports").json()["reports"]
    assert [(r["reporter"], r["reported"], r["reason"], r["match_url"]) for r in listed] == [
        ("Cy", "Bo", "stalls", None), ("Ann", "Bo", "rude", f"/table/{table_id}")]
    card = op.http.get("/api/admin/people/bo").json()
    assert [r["reporter"] for r in card["reports"]] == ["Cy", "Ann"] and card["reports_made"] == 0
    newest = listed[0]["id"]
    assert op.http.post(f"/api/admin/reports/{newest}/handled", json={}).status_code == 200
    assert [r["reporter"] for r in op.http.get("/api/admin/reports").json()["reports"]] == ["Ann"]
    assert len(op.http.get("/api/admin/reports?all=1").json()["reports"]) == 2
    refused(op.http.post("/api/admin/reports/999/handled", json={}), 404, "moderation.unknown_report")
    [entry] = audit(op)
    assert (entry["action"], entry["target"], entry["details"]) == ("handle", "Bo", {"report": newest})


def test_an_operator_closes_a_table(server: LiveServer) -> None:
    op, ann, bo = operator(server), account(server, "Ann"), account(server, "Bo")
    table_id = new_table(ann, seat="S")["table_id"]
    host, guest = ann.connect(table_id), bo.connect(table_id)
    guest.send({"type": "sit", "seat": "N"})
    host.until(lambda s: s["table"]["seats"]["N"]["name"] == "Bo")
    host.send({"type": "start"})
    host.until(lambda s: s["phase"] in ("expose", "play"))
    refused(op.http.post(f"/api/admin/tables/{table_id}/close", json={"reason": ""}), 400,
            "moderation.reason_needed")
    r = op.http.post(f"/api/admin/tables/{table_id}/close", json={"reason": "abusive table name"})
    assert r.status_code == 200, r.text
    for live in (host, guest):
        said = closed_with(live, 4404)
        assert any(m.get("code") == "moderation.table_closed" and m["params"]["reason"] == "abusive table name"
                   for m in said), said
    # The table is over where it stood: no deal goes on, nobody sits, no 再来一局.
    again = ann.connect(table_id)
    state = again.until(lambda s: True)
    assert state["table"]["status"] == "over"
    assert state["table"]["seed"] is None  # (it would show the hands of the deal left unfinished)
    assert again.refused({"type": "next"})["type"] == "error"
    assert again.refused({"type": "again"})["code"] == "server.not_over"
    again.close()
    assert table_id not in [t["id"] for t in ann.http.get("/api/tables").json()]
    # nor may its host invite a friend to it
    cy = account(server, "Cy")
    ann.http.post("/api/people/Cy/friend")
    assert cy.http.post("/api/people/Ann/friend").json()["state"] == "friends"
    refused(ann.http.post(f"/api/tables/{table_id}/invite", json={"name": "Cy"}), 409, "server.people_not_your_table")
    refused(op.http.post(f"/api/admin/tables/{table_id}/close", json={"reason": "again"}), 409,
            "moderation.table_over")
    refused(op.http.post("/api/admin/tables/m-none/close", json={"reason": "x"}), 404, "server.unknown_table")
    [entry] = audit(op)
    assert (entry["action"], entry["table"], entry["details"]["people"]) == ("close", table_id, ["Bo", "Ann"])
    # Kept by id, shown by today's name: a person renamed later is shown so, and no name stays behind.
    store: Store = server.app.state.store
    with store.engine.begin() as c:
        assert c.scalar(select(AUDIT_LOG.c.details).where(AUDIT_LOG.c.action == "close")) == {"people": [bo.id, ann.id]}
        c.execute(update(USERS).where(USERS.c.id == bo.id).values(name="Bob"))
    assert audit(op)[0]["details"]["people"] == ["Bob", "Ann"]


# ---------------------------------------------------------------------- new accounts behind a proxy


def test_new_accounts_are_limited_per_client_behind_a_trusted_proxy(tmp_path: Path) -> None:
    """Behind a trusted proxy, the forwarded client's address is what counts: one client runs out,
    another behind the same proxy is heard."""
    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, static_dir=tmp_path / "no-static",
                     trusted_proxies=["127.0.0.1"])

    def sign_up(name: str, client: str) -> Any:
        with TestClient(app, base_url=LOCAL, client=("127.0.0.1", 5000)) as c:
            headers = {"x-forwarded-for": client}
            c.get("/api/me", headers=headers)
            return c.post("/api/account", json={"name": name, "password": PASSWORD}, headers=headers)

    for n in range(SIGNUPS_PER_ADDRESS):
        assert sign_up(f"p{n}", "203.0.113.5").status_code == 200
    refused(sign_up("one_more", "203.0.113.5"), 429, "server.account_too_many_attempts")
    assert sign_up("one_more", "203.0.113.6").status_code == 200
