"""The deployed set (docs/deploy.md, One command): gongzhu's container image built from the
repository's files, and ``deploy/compose.yaml`` — PostgreSQL, Redis, the migrations run once,
two ``gongzhu serve`` processes and Caddy in front with TLS — brought up on loopback ports,
played through the proxy and taken down again.

The images of PostgreSQL, Redis, Caddy and Python are local stand-ins built from Debian's
packages (``deploy/stand-ins/``, on a Debian root file system made with ``debootstrap``, kept
between runs: ``helpers.containers``), so nothing comes from an image registry.  gongzhu's image is
built from a copy of the working tree's files as a clean clone holds them, and removed at the end.
Without a container engine, compose or a way to make the Debian base the tests skip saying why;
under ``CI`` they fail instead (``.ci/run`` installs and starts what they need).
"""

from __future__ import annotations

import json
import os
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from gongzhu.records import check_file
from helpers import containers
from helpers.live import Live, Someone

pytestmark = [pytest.mark.slow, pytest.mark.container]


def _missing(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the container tests cannot run: {why}; .ci/run installs docker.io, docker-compose and "
                    "debootstrap and starts dockerd")
    pytest.skip(f"the container tests cannot run: {why}")


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The stand-in images and gongzhu's image (``app``), built from a copy of the working tree's
    files on the Python stand-in; gongzhu's image is removed afterwards."""
    why = containers.missing()
    if why is not None:
        _missing(why)
    started = time.monotonic()
    built = containers.stand_ins()
    print(f"stand-in images ready after {time.monotonic() - started:.0f} s")
    tree = containers.tree_copy(tmp_path_factory.mktemp("clone"))
    app = f"gongzhu-test/app:{secrets.token_hex(4)}"
    untagged = containers.untagged_images()
    try:
        containers.build_image(tree, app, PYTHON_IMAGE=built["python"])
        print(f"gongzhu's image built after {time.monotonic() - started:.0f} s")
        yield {**built, "app": app}
    finally:  # the image and its builder stage (left untagged by the build)
        containers.docker("rmi", "--force", app, *(containers.untagged_images() - untagged), check=False)


def test_the_image_has_no_compiler_runs_as_nobody_special_and_serves(images: dict[str, str]) -> None:
    """The final stage holds the runtime only (no gcc, cc, make, ld), runs as an unprivileged
    user, has the C fast paths compiled in the builder, and by default serves on 0.0.0.0:8000,
    which its health check finds."""
    app = images["app"]
    config = json.loads(containers.docker("image", "inspect", app).stdout)[0]["Config"]
    assert config["Entrypoint"] == ["gongzhu"] and config["Cmd"] == ["serve"]
    assert config["User"] not in ("", "0", "root")
    tools = containers.docker("run", "--rm", "--entrypoint", "python", app, "-c",
                              "import os, shutil; print(os.getuid(), [t for t in ('gcc', 'cc', 'c99', 'make', 'ld', "
                              "'as', 'x86_64-linux-gnu-gcc-12') if shutil.which(t)])").stdout.split(maxsplit=1)
    assert tools[0] != "0" and tools[1].strip() == "[]", tools
    helped = containers.docker("run", "--rm", app, "--help").stdout
    assert "serve" in helped and "selfplay" in helped
    assert "GONGZHU_ALLOWED_ORIGIN" in containers.docker("run", "--rm", app, "serve", "--help").stdout
    assert "C fast paths built" in containers.docker("run", "--rm", app, "--version").stdout
    port = containers.free_port()
    name = f"gongzhu-test-{secrets.token_hex(4)}"
    containers.docker("run", "-d", "--name", name, "-p", f"127.0.0.1:{port}:8000", app)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=5) as answer:
                    assert "online" in json.load(answer)["presets"]
                    break
            except (urllib.error.URLError, OSError):
                logs = containers.docker("logs", name, check=False)
                assert time.monotonic() < deadline, logs.stdout + logs.stderr
                time.sleep(0.5)
        out = containers.docker("logs", name).stdout
        assert "http://0.0.0.0:8000/" in out, out
        while (health := _health(name)) != "healthy":  # the image's HEALTHCHECK
            assert health == "starting" and time.monotonic() < deadline, health
            time.sleep(0.5)
    finally:
        containers.docker("rm", "--force", name, check=False)


def _health(container: str) -> str:
    return containers.docker("inspect", "-f", "{{.State.Health.Status}}", container).stdout.strip()


def _wait(what: str, check: Any, timeout: float, compose: containers.ComposeSet) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = check()
            if found:
                return found
        except Exception as e:  # not yet: try again until the deadline
            last: object = e
        else:
            last = found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen in {timeout:.0f} s (last: {last!r}):\n{compose.logs()}")
        time.sleep(0.5)


def _act(lives: dict[str, Live], acted: dict[str, int]) -> None:
    """Each person exposes nothing and plays their first legal card whenever the table waits for
    them (once a version)."""
    for seat, live in lives.items():
        state = live.state
        if not state or acted.get(seat, -1) >= state["v"]:
            continue
        if state["phase"] == "expose" and seat in state["undeclared"]:
            live.send({"type": "expose", "cards": []})
        elif state["phase"] == "play" and state["turn"] == seat and state["legal"]:
            live.send({"type": "play", "cards": list(state["legal"][0])})
        else:
            continue
        acted[seat] = state["v"]


def _play(lives: dict[str, Live], people: dict[str, Someone], table_id: str, done: Any, timeout: float) -> int:
    """Play until ``done(South's state)``; a connection the server closed (a process restarted)
    connects again through the proxy with the last version it saw, as the page does; a person
    whose action changed nothing for 3 s acts again (a play sent to a process that went away).
    How many times a connection came back."""
    acted: dict[str, int] = {}
    returns = 0
    end = time.monotonic() + timeout
    changed_at, last = time.monotonic(), None
    while not done(lives["S"].state):
        assert time.monotonic() < end, {s: (x.state.get("phase"), x.state.get("turn")) for s, x in lives.items()}
        for seat, live in list(lives.items()):
            try:
                live.drain(0.01)
            except (ConnectionClosed, OSError):
                lives[seat] = _come_back(people[seat], table_id, live.state.get("v"))
                returns += 1
        versions = {s: x.state.get("v") for s, x in lives.items()}
        if versions != last:
            changed_at, last = time.monotonic(), versions
        elif time.monotonic() - changed_at > 3:
            acted.clear()
            changed_at = time.monotonic()
        try:
            _act(lives, acted)
        except (ConnectionClosed, OSError):
            continue  # read again: the closed connection comes back above
    return returns


def _come_back(person: Someone, table_id: str, since: int | None, timeout: float = 60) -> Live:
    end = time.monotonic() + timeout
    while True:
        try:
            live = person.connect(table_id, since=since)
            live.until(lambda s: True, timeout=10)
            return live
        except (ConnectionClosed, OSError, AssertionError, TimeoutError):
            assert time.monotonic() < end, "the table did not come back"
            time.sleep(0.5)


def test_the_compose_set_serves_a_table_from_two_processes_through_the_proxy(
        images: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``deploy/compose.yaml`` up: the migration runs once before the serve processes start; two
    people at one table through Caddy (HTTPS, its internal CA trusted) hold connections on the two
    serve processes (both subscribed to the table's Redis channel); the process that runs the
    table is restarted mid-deal and the deal goes on to its end; its record replays; the backup
    command of docs/deploy.md makes a dump."""
    compose = containers.ComposeSet(images["app"], images)
    started = time.monotonic()
    try:
        compose.up()
        monkeypatch.setenv("SSL_CERT_FILE", str(compose.root_certificate(tmp_path / "root.crt")))
        # Both serve processes answer through the proxy (round robin over them).
        serving = compose.containers("serve")
        assert len(serving) == 2
        nodes: dict[str, str] = _wait("both serve processes answering",
                                      lambda: {compose.node_of(c): c for c in serving}, 90, compose)

        def answering() -> bool:
            seen = set()
            for _ in range(6):
                with urllib.request.urlopen(compose.base + "/api/node", timeout=5) as answer:
                    seen.add(json.load(answer)["node"])
            return seen == set(nodes)

        _wait("both serve processes answering through the proxy", answering, 90, compose)
        migrate = compose.run("ps", "-a", "migrate").stdout
        assert "Exit 0" in migrate or "exited (0)" in migrate.lower(), migrate
        print(f"the set answered through the proxy after {time.monotonic() - started:.0f} s")

        site = type("Site", (), {"base": compose.base, "ws_base": compose.ws_base})()
        host, guest = Someone(site), Someone(site)
        answer = host.http.post("/api/tables", json={
            "turn_seconds": None, "expose_seconds": None, "speed": "instant", "options": {"match_end": "deals:1"},
            "levels": {"N": "random", "W": "random"}})
        assert answer.status_code == 201, answer.text
        table_id = answer.json()["table_id"]
        people = {"S": host, "E": guest}
        lives = {"S": host.connect(table_id)}
        lives["S"].until(lambda s: s["phase"] == "waiting")
        lives["E"] = guest.connect(table_id)

        def two_processes() -> bool:
            """Both serve processes hold a connection to the table: both listen on its channel."""
            return compose.redis("PUBSUB", "NUMSUB", f"gz:t:{table_id}").split()[-1] == "2"

        tries = 0
        while not two_processes():  # round robin: the next connection goes to the other process
            tries += 1
            assert tries <= 6, "the proxy never put the two people on two processes"
            lives["E"].close()
            lives["E"] = guest.connect(table_id)
            time.sleep(0.3)
        lives["E"].send({"type": "sit", "seat": "E"})
        lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == guest.name)
        lives["S"].send({"type": "start"})
        _play(lives, people, table_id, lambda s: s.get("tricks_played", 0) >= 4, 60)

        owner = compose.redis("GET", f"gz:owner:{table_id}")
        assert owner in nodes, (owner, nodes)
        restarted = time.monotonic()
        containers.docker("restart", "--time", "5", nodes[owner])
        # the person whose connection was on that process comes back (through the proxy)
        assert _play(lives, people, table_id, lambda s: s.get("phase") == "match-over", 120) >= 1
        print(f"the deal ended {time.monotonic() - restarted:.1f} s after the restart of the table's process")
        assert compose.redis("GET", f"gz:owner:{table_id}") in ("", *nodes)
        text = host.http.get(f"/api/matches/{table_id}/records.jsonl").text
        check_file(text)  # every record replays: no play lost, none applied twice
        assert len(text.splitlines()) == 1
        # (a guest's deal is practice: charged once, to the practice score)
        assert guest.http.get("/api/me").json()["practice"]["score"] == json.loads(text)["final"]["E"]
        assert compose.containers("serve") == serving  # the same two containers, both running again
        assert compose.node_of(nodes[owner]) != owner  # a new process in the restarted one
        # docs/deploy.md's backup: pg_dump of the db service (PostgreSQL's custom format)
        assert compose.exec("db", "pg_dump", "-U", "gongzhu", "-Fc", "gongzhu").startswith("PGDMP")
    except BaseException:
        print(compose.logs(200))
        raise
    finally:
        compose.down()
        print(f"the compose set's test took {time.monotonic() - started:.0f} s")
