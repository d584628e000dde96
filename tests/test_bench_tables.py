"""``benchmarks/tables.py`` keeps working: run in a tiny configuration against its own ``gongzhu
serve``, it seats four scripted people at each table (docs/web-protocol.md, Online tables), their
plays reach every seat, reconnects get their seat's view, and the server logs nothing.  No
timing is asserted: the script reports numbers (docs/benchmarks.md, Online tables)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "tables.py"


def run(*args: str, timeout: float = 120) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(SCRIPT), "--json", *args], capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def assert_clean(result: dict[str, Any], step: dict[str, Any]) -> None:
    """The people's plays all reached every seat, nothing was refused, the server logged nothing."""
    assert result["failures"] == [] and result["first_errors"] == []
    assert result["server_log"] == []
    assert step["plays"] > 0 and step["latency_ms"]["n"] == step["plays"]
    assert step["unfinished"] == 0
    assert step["errors"] == 0 and step["mismatched"] == 0


def test_two_tables_of_people_play_and_reconnect() -> None:
    report = run("--scenarios", "concurrent", "--tables", "2", "--warmup", "1", "--window", "2", "--delay", "0.1",
                 "--reconnect-rate", "10")
    result = report["scenarios"]["concurrent"]
    [step] = result["steps"]
    assert_clean(result, step)
    assert step["tables"] == 2 and step["connections"] == 8
    assert step["reconnect_ms"]["n"] > 0 and step["reconnect_failures"] == 0
    assert step["reconnect_since_ms"]["n"] > 0  # half of them said the version they had seen
    assert result["largest_under_target"] in (None, 2)


@pytest.mark.slow
def test_saturation_and_expert_players_beside() -> None:
    # A window of 4 s: the expert thinks at least 0.5 s a searched decision (thinking.SEARCH_FLOOR),
    # so on a loaded machine a 2 s window could close before its table had played at all.
    report = run("--scenarios", "saturation,interference", "--saturation-tables", "2", "--beside", "2",
                 "--warmup", "1", "--window", "4", "--delay", "0.1", timeout=240)
    saturation = report["scenarios"]["saturation"]
    [step] = saturation["steps"]
    assert_clean(saturation, step)
    beside = report["scenarios"]["interference"]
    for key in ("without", "with_experts", "without_again"):
        assert_clean(beside, beside[key])
    assert beside["expert_failures"] == []
    assert beside["expert_plays_per_s"] > 0  # the expert table played while the people's tables did


def _services() -> None:
    """The machine's PostgreSQL and Redis, as the cluster tests find them (``helpers.database``;
    skipped without, failed under CI)."""
    import psycopg
    import redis
    from sqlalchemy.engine import make_url

    from helpers.database import REDIS
    from helpers.database import SHARED_PG as PG
    from helpers.database import service_missing as _missing

    url = make_url(PG)
    try:
        psycopg.connect(host=url.host or "127.0.0.1", port=url.port or 5432, user=url.username or "postgres",
                        dbname=url.database or "postgres", connect_timeout=3).close()
    except psycopg.OperationalError as e:
        _missing(f"PostgreSQL at {PG} cannot be reached: {e}")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except redis.RedisError as e:
        _missing(f"Redis at {REDIS} cannot be reached: {e}")


@pytest.mark.postgres
def test_people_spread_over_two_processes() -> None:
    _services()
    report = run("--scenarios", "concurrent", "--processes", "2", "--tables", "2", "--warmup", "1", "--window", "2",
                 "--delay", "0.1", "--reconnect-rate", "4", timeout=180)
    result = report["scenarios"]["concurrent"]
    [step] = result["steps"]
    # Every play reaches every seat.  A forwarded message that meets its table's owner busy
    # changing hands may be refused with "reconnecting" (server.cluster_unavailable), as the
    # protocol allows, and is sent again: the only refusal allowed.
    transient = [e for e in result["first_errors"] if "cannot be reached just now" not in e]
    assert_clean({**result, "first_errors": transient}, step)
    assert step["processes"] == 2
    assert step["crossings"] == step["plays"]  # every table has seats on both processes
    assert step["server_cpu_ms_per_crossing"] is not None
    assert step["reconnect_failures"] == 0


@pytest.mark.postgres
def test_a_killed_owner_is_replaced_and_the_table_goes_on() -> None:
    _services()
    report = run("--scenarios", "failover", "--failover-tables", "2", "--kills", "1", "--warmup", "1",
                 "--delay", "0.1", timeout=240)
    result = report["scenarios"]["failover"]
    assert result["failures"] == []
    assert result["kills"] == 1 and result["not_recovered"] == 0
    assert result["recovered_ms"]["n"] == 1
