"""What the test modules share, by job.  Test modules import it from here
(``from helpers.deals import make_deal``), never from one another; ``tests/conftest.py`` holds
only pytest's side of it (fixtures, hypothesis profiles, the test session's environment).

- :mod:`helpers.deals` — hands and deals written as text, the rule book's tables and example hands.
- :mod:`helpers.fastpath` — the C fast path's option grid and its checks against the reference rules.
- :mod:`helpers.volume` — how much a test does in the fast suite (``scaled``, ``preset_variants``).
- :mod:`helpers.cli` — the command line run in the test process.
- :mod:`helpers.client` — the browser game's application through Starlette's test client: a
  match, a recording WebSocket that plays South, catalog refusals.
- :mod:`helpers.database` — a throwaway PostgreSQL server and the stores a server test runs on.
- :mod:`helpers.servers` — a live server in a thread (uvicorn) and a ``gongzhu serve`` process
  (which ``benchmarks/`` start with it too).
- :mod:`helpers.live` — people on a live server: an HTTP session (an account, with ``account``) and
  its table WebSockets.
- :mod:`helpers.population` — computer players of the arena's levels rated as accounts.
- :mod:`helpers.browser` — Chromium through Playwright: where it is, and selectors to wait on.
- :mod:`helpers.clock` — a clock that ticks when read, for code that keeps to a time budget.
- :mod:`helpers.containers` — container images (stand-ins built from Debian's packages, gongzhu's
  image from the working tree) and the deployed set of ``deploy/compose.yaml`` on loopback ports.

This file imports nothing, so that a benchmark can take one module (``helpers.servers``) without
what the others need.
"""
