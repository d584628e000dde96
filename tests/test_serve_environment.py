"""``gongzhu serve``'s settings from environment variables (``GONGZHU_<OPTION>``), as a container
or a service manager gives them (docs/deploy.md, Settings): every option has its variable, the
command line wins, repeatable options take lists, a bad value ends the command with one line
naming the variable, and a real server process started with variables alone uses them."""

from __future__ import annotations

import argparse
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from gongzhu.cli import main as cli_main
from gongzhu.cli import serve
from helpers.servers import ServeProcess


def _serve_parser() -> argparse.ArgumentParser:
    """The ``serve`` sub-command's own parser, as ``gongzhu`` builds it."""
    parser = cli_main.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = subparsers.choices["serve"]
    return found


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]


def test_every_serve_option_has_its_variable() -> None:
    options = _options(_serve_parser())
    names = {serve.environment_variable(a) for a in options}
    assert {"GONGZHU_HOST", "GONGZHU_PORT", "GONGZHU_DB", "GONGZHU_REDIS", "GONGZHU_ALLOWED_ORIGIN",
            "GONGZHU_ALLOWED_HOST", "GONGZHU_REVIEW_WORKERS", "GONGZHU_TRUSTED_PROXY",
            "GONGZHU_FORWARDED_HEADER", "GONGZHU_WEBSOCKETS_PER_ADDRESS"} <= names
    assert None not in names and len(names) == len(options)  # one variable each, none shared
    assert "GONGZHU_SECRET_KEY" not in names  # the signing key's own variable is no option
    assert serve.environment_variable(next(a for a in _serve_parser()._actions if "-h" in a.option_strings)) is None


def test_the_defaults_the_command_states_are_the_servers() -> None:
    """``gongzhu serve`` states its bounds without importing the server: they are the server's."""
    from gongzhu.server.identity import GUESTS_PER_ADDRESS
    from gongzhu.server.policy import WEBSOCKETS_PER_ADDRESS

    assert (serve.GUESTS_PER_ADDRESS, serve.WEBSOCKETS_PER_ADDRESS) == (GUESTS_PER_ADDRESS, WEBSOCKETS_PER_ADDRESS)


def test_help_says_the_variables_exist() -> None:
    text = _serve_parser().format_help()
    assert "environment variable" in text and "GONGZHU_ALLOWED_ORIGIN" in text


def test_each_option_is_taken_from_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every option of ``gongzhu serve``, set by its variable alone, parses to the value its
    flag gives (a value each option accepts, taken from its own type)."""
    samples = {"GONGZHU_HOST": "0.0.0.0", "GONGZHU_PORT": "8123", "GONGZHU_DB": "postgresql+psycopg://u@db/g",
               "GONGZHU_REDIS": "redis://redis:6379/0", "GONGZHU_ALLOWED_ORIGIN": "https://gongzhu.example.org",
               "GONGZHU_ALLOWED_HOST": "gongzhu.example.org", "GONGZHU_REVIEW_WORKERS": "0",
               "GONGZHU_TRUSTED_PROXY": "10.0.0.0/8", "GONGZHU_FORWARDED_HEADER": "forwarded",
               "GONGZHU_WEBSOCKETS_PER_ADDRESS": "7",
               "GONGZHU_METRICS_ALLOW": "10.0.0.0/8", "GONGZHU_LOG_FORMAT": "json"}
    parser = _serve_parser()
    for action in _options(parser):
        variable = serve.environment_variable(action)
        assert variable is not None
        text = samples.get(variable)
        if text is None:  # an option of which this test knows nothing: a value of its own kind
            text = "1" if action.nargs == 0 else str(next(iter(action.choices))) if action.choices else None
        if text is None:
            continue
        flag = [action.option_strings[-1]] + ([] if action.nargs == 0 else [text])
        monkeypatch.setenv(variable, text)
        from_environment = getattr(cli_main.build_parser().parse_args(["serve"]), action.dest)
        monkeypatch.delenv(variable)
        assert from_environment == getattr(cli_main.build_parser().parse_args(["serve", *flag]), action.dest), variable
        assert from_environment != action.default, variable


def test_the_command_line_wins_and_lists_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GONGZHU_PORT", "8123")
    monkeypatch.setenv("GONGZHU_HOST", "0.0.0.0")
    monkeypatch.setenv("GONGZHU_ALLOWED_ORIGIN", "https://a.example, https://b.example  https://c.example")
    monkeypatch.setenv("GONGZHU_TRUSTED_PROXY", "10.0.0.0/8,127.0.0.1")
    monkeypatch.setenv("GONGZHU_REDIS", "")  # empty: as if not set
    args = cli_main.build_parser().parse_args(["serve", "--port", "9000", "--trusted-proxy", "192.168.0.0/16"])
    assert (args.host, args.port, args.redis) == ("0.0.0.0", 9000, None)
    assert args.allowed_origin == ["https://a.example", "https://b.example", "https://c.example"]
    assert args.trusted_proxy == ["192.168.0.0/16"]  # the command line's values replace the variable's


@pytest.mark.parametrize(("variable", "value", "says"), [
    ("GONGZHU_PORT", "eighty", "GONGZHU_PORT='eighty'"),
    ("GONGZHU_REVIEW_WORKERS", "65", "not a number of worker processes"),
    ("GONGZHU_TRUSTED_PROXY", "10.0.0.0/8, proxy.example", "GONGZHU_TRUSTED_PROXY='proxy.example'"),
    ("GONGZHU_WEBSOCKETS_PER_ADDRESS", "-1", "GONGZHU_WEBSOCKETS_PER_ADDRESS='-1'"),
    ("GONGZHU_GUESTS_PER_ADDRESS", "many", "GONGZHU_GUESTS_PER_ADDRESS='many'"),
    ("GONGZHU_FORWARDED_HEADER", "x-real-ip", "x-forwarded-for or forwarded"),
])
def test_a_bad_value_names_its_variable(variable: str, value: str, says: str, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as ended:
        cli_main.main(["serve"])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gongzhu serve: ") and says in err and variable in err


def test_the_forwarded_header_is_one_of_two(capsys: pytest.CaptureFixture[str]) -> None:
    """``--forwarded-header``: ``x-forwarded-for`` by default, ``forwarded`` in any case; any other
    value ends the command with one line saying which two there are."""
    parse = cli_main.build_parser().parse_args
    assert parse(["serve"]).forwarded_header == "x-forwarded-for"
    assert parse(["serve", "--forwarded-header", "Forwarded"]).forwarded_header == "forwarded"
    with pytest.raises(SystemExit) as ended:
        parse(["serve", "--forwarded-header", "x-real-ip"])
    assert ended.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--forwarded-header" in last and "'x-real-ip'" in last and "x-forwarded-for or forwarded" in last


def test_a_bad_variable_of_serve_does_not_stop_other_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GONGZHU_PORT", "eighty")
    assert cli_main.build_parser().parse_args(["rules"]).command == "rules"


def test_options_added_later_get_their_variable(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The mechanism reads the parser's options when it parses, so an option added after it was
    installed has its variable too: flags, choices and typed values."""
    parser = argparse.ArgumentParser(prog="gongzhu serve")
    serve.settings_from_environment(parser)
    parser.add_argument("--log-format", choices=["text", "json"], default="text")
    parser.add_argument("--quiet-start", action="store_true")
    parser.add_argument("--metrics-allow", action="append", default=[], type=serve._network)
    assert parser.parse_args([]) == argparse.Namespace(log_format="text", quiet_start=False, metrics_allow=[])
    monkeypatch.setenv("GONGZHU_LOG_FORMAT", "json")
    monkeypatch.setenv("GONGZHU_QUIET_START", "yes")
    monkeypatch.setenv("GONGZHU_METRICS_ALLOW", "127.0.0.1 10.0.0.0/8")
    assert parser.parse_args([]) == argparse.Namespace(log_format="json", quiet_start=True,
                                                       metrics_allow=["127.0.0.1", "10.0.0.0/8"])
    monkeypatch.setenv("GONGZHU_QUIET_START", "off")
    assert parser.parse_args(["--log-format", "text"]).quiet_start is False
    for variable, value in (("GONGZHU_LOG_FORMAT", "xml"), ("GONGZHU_QUIET_START", "maybe")):
        monkeypatch.setenv(variable, value)
        with pytest.raises(SystemExit):
            parser.parse_args([])
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{variable}={value!r}" in err
        monkeypatch.delenv(variable)


def test_a_server_started_with_variables_uses_them(tmp_path: Path) -> None:
    """A real ``gongzhu serve`` process whose allowed origin comes from the environment only: that
    origin is let in, another is not."""
    server = ServeProcess(tmp_path, env={"GONGZHU_ALLOWED_ORIGIN": "https://gongzhu.example.org"})
    try:
        def status(origin: str) -> int:
            request = urllib.request.Request(server.url + "api/matches", data=b'{"seed": 5}', method="POST",
                                             headers={"Content-Type": "application/json", "Origin": origin})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    return int(response.status)
            except urllib.error.HTTPError as e:
                return e.code

        assert status("https://gongzhu.example.org") == 201
        assert status("https://other.example.org") == 403
    finally:
        server.stop()


def test_a_server_reads_only_the_forwarding_header_it_is_told(tmp_path: Path) -> None:
    """A real ``gongzhu serve --trusted-proxy 127.0.0.1`` told by ``GONGZHU_FORWARDED_HEADER``
    that its proxy writes ``Forwarded``: the client is that header's, and an ``X-Forwarded-For``
    saying ``127.0.0.1`` does not open the loopback-only ``/metrics`` to a public client."""
    server = ServeProcess(tmp_path, "--trusted-proxy", "127.0.0.1", env={"GONGZHU_FORWARDED_HEADER": "forwarded"})
    try:
        def status(headers: dict[str, str]) -> int:
            try:
                with urllib.request.urlopen(urllib.request.Request(server.url + "metrics", headers=headers),
                                            timeout=5) as response:
                    return int(response.status)
            except urllib.error.HTTPError as e:
                return e.code

        assert status({"X-Forwarded-For": "127.0.0.1", "Forwarded": "for=203.0.113.5"}) == 404
        assert status({"X-Forwarded-For": "203.0.113.5", "Forwarded": "for=127.0.0.1"}) == 200
    finally:
        server.stop()
