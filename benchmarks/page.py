"""The table page in a real browser: how long a card click takes to be answered on the page.

    python benchmarks/page.py [--deals N] [--before DIR] [--json]

Target: a card click answered in under 50 ms.  It starts ``gongzhu serve`` (a new SQLite file,
a free loopback port) and Debian's Chromium (Playwright, ``/usr/bin/chromium``), plays ``--deals``
deals at 1280 × 800 by clicking South's first legal card, and measures for each click

- *handler*: the click's own task (which play the card means, the message sent, the hand drawn
  again with nothing playable until the server answers);
- *frame*: from the click to the next frame painted after it (style, layout and paint included).

It does so with motion on (the deal dealt in, a played card flying in, the finished trick swept
to its taker, at the speed ``normal``) and, as the baseline in the same run, with motion off;
the server side of a click is measured by ``benchmarks/server.py``.

``--before DIR`` measures, in the same run, the page served from ``DIR`` too: another version's
static folder, e.g. ``git archive HEAD src/gongzhu/web/static | tar -x -C /tmp/before`` then
``--before /tmp/before/src/gongzhu/web/static``.  Both pages are then served alike, by the
application in this process (``LiveServer`` of ``tests/helpers/servers.py``, the computer players
at the table's own pace, as ``gongzhu serve`` plays them), each on a new SQLite file.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from server import start_serve  # benchmarks/server.py: gongzhu serve on a free port

CLICK = """(legal) => new Promise((resolve) => {
  const b = document.querySelector(legal);
  if (!b) return resolve(null);  // the deal finished by itself meanwhile (R5.4)
  const t0 = performance.now();
  b.click();
  const handler = performance.now() - t0;
  requestAnimationFrame(() => setTimeout(() => resolve([handler, performance.now() - t0]), 0));
})"""
LEGAL = '#hand button[data-card][aria-disabled="false"]'


def play(base: str, motion: bool, deals: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    handler: list[float] = []
    frame: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800}, base_url=base)
        page.goto("/")
        page.wait_for_selector("#setup[open]")  # the page's session is made: the matches below are its person's
        page.evaluate(f"localStorage.setItem('gongzhu.settings', JSON.stringify({{motion: {str(motion).lower()}}}))")
        for deal in range(deals):
            response = page.request.post("/api/matches", data=json.dumps({"speed": "normal", "seed": 100 + deal}),
                                         headers={"Content-Type": "application/json"})
            page.goto(f"/?match={response.json()['match_id']}")
            page.wait_for_selector('html[data-phase="expose"] #start:not([hidden]), html[data-phase="play"]')
            if page.locator('#start:not([hidden])').count():
                page.click("#start")
            while True:
                page.wait_for_selector(f'html[data-phase="play"] {LEGAL}, html[data-phase="deal-over"]',
                                       timeout=60_000)
                if page.evaluate("document.documentElement.dataset.phase") != "play":
                    break
                took = page.evaluate(CLICK, LEGAL)
                if took is not None:
                    handler.append(took[0])
                    frame.append(took[1])
        browser.close()
    return {"handler": handler, "frame": frame}


@contextlib.contextmanager
def serve_page(folder: str, static: Path | None, in_process: bool) -> Iterator[str]:
    """A server of the table page on a new SQLite file in ``folder``: ``gongzhu serve``, or, with
    ``in_process``, the application in this process serving the page from ``static`` (None: this
    checkout's); yields its base address."""
    if not in_process:
        with start_serve(f"sqlite:///{folder}/g.db", folder) as base:
            yield base
        return
    from helpers.servers import LiveServer  # tests/helpers: on sys.path once server.py is imported

    name = "before" if static is not None else "after"
    with LiveServer(f"sqlite:///{folder}/{name}.db", pace=None, static_dir=static) as live:  # type: ignore[arg-type]
        yield live.base


def summary(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"n": len(ms), "p50": round(statistics.median(ms), 2), "p95": round(ms[int(0.95 * (len(ms) - 1))], 2),
            "max": round(ms[-1], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3, help="deals played with motion on, and again off")
    parser.add_argument("--before", type=Path, metavar="DIR",
                        help="also measure the page served from DIR (another version's static folder)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    runs: dict[str, dict[str, list[float]]] = {}
    pages = [("before, ", args.before), ("", None)] if args.before else [("", None)]
    for label, static in pages:
        with tempfile.TemporaryDirectory() as tmp, serve_page(tmp, static, args.before is not None) as base:
            for name, motion in (("motion on", True), ("motion off", False)):
                runs[label + name] = play(base, motion, args.deals)
    result: dict[str, Any] = {
        "machine": f"{platform.machine()}, {platform.processor() or '?'}, Python {sys.version.split()[0]}",
        "command": "python benchmarks/page.py " + " ".join(sys.argv[1:]),
        **{name: {k: summary(v) for k, v in r.items()} for name, r in runs.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['machine']}\n{result['command']}\n")
    print(f"  {'':<20} {'':<8} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}   (target < 50 ms)")
    for name in runs:
        for kind in ("handler", "frame"):
            s = result[name][kind]
            print(f"  {name:<20} {kind:<8} {s['n']:>4} {s['p50']:>8} {s['p95']:>8} {s['max']:>8}")


if __name__ == "__main__":
    main()
