"""Challenges: comparing 1,000 entrants' results on a board, and serving a challenge's page.

    python benchmarks/challenge.py [--entrants N] [--repeat R] [--json] [--before SCORING_PY]

Target: a board's 1,000 results ranked (matchpoints and the 拱猪 scale) in well under a millisecond
per entrant, and a challenge's page (``GET /api/challenges/{id}``: the standings of every entrant
over 8 boards, kept until the next result) and a board's traveller (``GET
/api/challenges/{id}/boards/1``) answered in under 100 ms with 1,000 entrants; the page just after a
new result (the standings made again from the store) is timed too. Results come from playing each
board with random players (one result per entrant, so the field's results are spread as real ones
are: mostly small, a few 满贯). The application runs in this process on a new SQLite file (Starlette's
test client, no network), the entrants' results written straight into its store; the baseline in the
same run is ``GET /api/leaderboard`` of the same store (every account, by lifetime score).
``--before`` loads another version of ``gongzhu/duplicate/scoring.py`` (a copy kept from before a
change) and times its ranking of the same results beside this one's, the calls taking turns.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from gongzhu.duplicate.scoring import score_board, standings
from gongzhu.players.observation import observe
from gongzhu.players.random_player import RandomPlayer
from gongzhu.rules.cards import Seat
from gongzhu.rules.options import Options
from gongzhu.server.app import create_app
from gongzhu.server.store import USERS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.client import local_client


def board_results(boards: Any, options: Any, n: int, rng: random.Random) -> list[int]:
    """South's results on a board played ``n`` times by four random players."""
    out = []
    for _ in range(n):
        deal = boards.deal(options)
        players = [RandomPlayer(seed=rng.getrandbits(32)) for _ in Seat]
        for s in list(deal.undeclared):
            deal.declare(s, players[s].choose_exposures(observe(deal, s)))
        while (turn := deal.turn) is not None:
            deal.play(players[turn].choose_play(observe(deal, turn)), turn)
        out.append(deal.score.result[Seat.S])
    return out


def timed(fn: Any, repeat: int, before: Any = None) -> list[float]:
    """Milliseconds of each of ``repeat`` calls of ``fn`` (``before(k)`` run untimed before each)."""
    times = []
    for k in range(repeat):
        if before is not None:
            before(k)
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"median_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--before", default=None, metavar="SCORING_PY",
                        help="another version of gongzhu/duplicate/scoring.py, timed beside this one")
    args = parser.parse_args()
    old: Any = None
    if args.before is not None:
        spec = importlib.util.spec_from_file_location("scoring_before", args.before)
        assert spec is not None and spec.loader is not None, args.before
        old = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = old  # (its dataclasses look their module up)
        spec.loader.exec_module(old)
    rng = random.Random(1)
    folder = tempfile.mkdtemp(prefix="gongzhu-bench-")
    app = create_app(f"sqlite:///{folder}/challenge.db", pace=0, par_replays=0, review_workers=0,
                     static_dir=Path(folder) / "no-static")
    report: dict[str, Any] = {"machine": f"{platform.node()} {platform.processor() or platform.machine()}",
                              "python": platform.python_version(), "entrants": args.entrants}
    with local_client(app) as client:
        challenges = app.state.challenges
        store = app.state.store
        today = challenges.daily()
        board_set = challenges.boards_of(today.id)
        options = Options.from_dict(today.options)
        results = {n: board_results(board_set[n - 1], options, args.entrants, rng) for n in range(1, today.count + 1)}
        users = [f"u-bench-{k:05d}" for k in range(args.entrants)]
        by_board = {n: dict(zip(users, rs, strict=True)) for n, rs in results.items()}
        if old is None:
            report["rank_one_board"] = summary(timed(lambda: score_board(by_board[1]), args.repeat))
            report["standings_8_boards"] = summary(timed(lambda: standings(by_board), args.repeat))
        else:  # the two versions take turns, so that both meet the machine's load alike
            pairs = [(timed(lambda: old.score_board(by_board[1]), 1)[0], timed(lambda: score_board(by_board[1]), 1)[0])
                     for _ in range(args.repeat)]
            report["rank_one_board_before"] = summary([a for a, _ in pairs])
            report["rank_one_board"] = summary([b for _, b in pairs])
            pairs = [(timed(lambda: old.standings(by_board), 1)[0], timed(lambda: standings(by_board), 1)[0])
                     for _ in range(args.repeat)]
            report["standings_8_boards_before"] = summary([a for a, _ in pairs])
            report["standings_8_boards"] = summary([b for _, b in pairs])
        with store.engine.begin() as c:
            c.execute(insert(USERS), [{"id": u, "name": f"Bench{k}", "name_key": f"bench{k}", "password_hash": None,
                                       "guest": False, "created": "2026-12-05T00:00:00+00:00",
                                       "lifetime": rng.randint(-5000, 5000), "deals": 8, "matches": 1, "pigs": 0,
                                       "session_epoch": 0, "name_skeleton": f"bench{k}"}
                                      for k, u in enumerate(users)])
        for n, rs in by_board.items():
            for u, r in rs.items():
                store.add_result(today.id, n, u, match_id=f"m-{u}", deal_index=n - 1, result=r)
        client.get("/api/me")  # the client's own guest, who finished board 1 too, asks for the pages
        me = app.state.identity.user_for(dict(client.cookies))
        store.add_result(today.id, 1, me.id, match_id="m-me", deal_index=0, result=0)
        report["challenge_page"] = summary(timed(lambda: client.get(f"/api/challenges/{today.id}"), args.repeat))
        late = [f"u-late-{k:05d}" for k in range(args.repeat)]
        with store.engine.begin() as c:
            c.execute(insert(USERS), [{"id": u, "name": f"Late{k}", "name_key": f"late{k}", "password_hash": None,
                                       "guest": False, "created": "2026-12-05T00:00:00+00:00", "lifetime": 0,
                                       "deals": 1, "matches": 1, "pigs": 0, "session_epoch": 0,
                                       "name_skeleton": f"late{k}"} for k, u in enumerate(late)])

        def one_more(k: int) -> None:
            store.add_result(today.id, 1, late[k], match_id=f"m-{late[k]}", deal_index=0, result=rng.choice(results[1]))

        report["challenge_page_after_a_result"] = summary(
            timed(lambda: client.get(f"/api/challenges/{today.id}"), args.repeat, one_more))
        report["traveller"] = summary(timed(lambda: client.get(f"/api/challenges/{today.id}/boards/1"), args.repeat))
        report["baseline_leaderboard"] = summary(timed(lambda: client.get("/api/leaderboard?limit=200"), args.repeat))
        report["results_spread"] = {"min": min(results[1]), "median": statistics.median(results[1]),
                                    "max": max(results[1])}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
