"""Without the C extensions (a machine with no C compiler): gongzhu still imports, plays every
deal on the Python rules with exactly the same records, says which path it runs on, and the
players that search refuse to start with a clear error.

Each case runs in a fresh interpreter; ``without`` blocks ``gongzhu.rules._fastplay`` and
``_fastplay2`` before gongzhu is imported, as an installation whose build skipped them."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from gongzhu.rules.deal import C_BOARD

SCRIPT = r"""
import json, random, sys
if sys.argv[1] == "without":
    sys.modules["gongzhu.rules._fastplay"] = None
    sys.modules["gongzhu.rules._fastplay2"] = None
from gongzhu import search
from gongzhu.cli.main import version_text
from gongzhu.players import make_player
from gongzhu.records.format import deal_to_record
from gongzhu.rules import C_BOARD, Deal, Options

records = []
for options in (Options(discard_color="penalty"), Options(decks=2, discard_color="penalty")):
    for seed in (1, 2):
        rng = random.Random(seed)
        deal = Deal.new(options, seed)
        for seat in deal.undeclared:
            deal.declare(seat, [c for c in deal.exposable(seat) if rng.random() < 0.5])
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_plays()))
        records.append(deal_to_record(deal, match_id="m", preset=None))
try:
    make_player("expert", seed=1)
    refused = None
except search.SearchUnavailableError as e:
    refused = str(e)
print(json.dumps({"c_board": C_BOARD, "search": search.AVAILABLE, "version": version_text(),
                  "expert_refused": refused, "records": records}))
"""


def run(mode: str) -> tuple[dict[str, Any], str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True)
    out: dict[str, Any] = json.loads(done.stdout)
    return out, done.stderr


@pytest.mark.skipif(not C_BOARD, reason="this installation has no C extensions to compare with")
def test_same_records_without_the_c_extensions() -> None:
    with_c, with_c_err = run("with")
    without, without_err = run("without")
    assert (with_c["c_board"], with_c["search"], with_c["expert_refused"]) == (True, True, None)
    assert (without["c_board"], without["search"]) == (False, False)
    assert [r["options"]["decks"] for r in without["records"]] == [1, 1, 2, 2]
    assert without["records"] == with_c["records"]
    # says once what is slower and how to get the C path
    assert "RuntimeWarning" not in with_c_err
    assert without_err.count("RuntimeWarning") == 1 and "C compiler" in without_err
    assert "not built" in without["version"] and "not built" not in with_c["version"]
    assert "expert player needs gongzhu's C search extensions" in without["expert_refused"]
