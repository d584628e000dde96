"""gongzhu — 拱猪 (Gongzhu, "chasing the pig"), the four-player trick-taking card game.

Layers, inner to outer (each imports only from the ones before it):

- ``gongzhu.messages`` the message catalog, every text a player reads in 中文 and English
                       (``zh.json``, ``en.json``); imports nothing of gongzhu, so it is the one
                       package below the rules core.
- ``gongzhu.rules``    the rules core (R1–R10 of the rule book): no I/O.
- ``gongzhu.search``   the C fast paths for search (encoding, playouts, playout policies).
- ``gongzhu.jsontext`` strict JSON reading and value names for messages (imports nothing).
- ``gongzhu.records``  deal records ``gongzhu-deal/1`` (R11): reading, writing, re-checking.
- ``gongzhu.players``  computer players (they see an observation, never the deal), hints, the
                       bot protocol.
- ``gongzhu.arena``    duplicate matches between players, with statistics.
- ``gongzhu.env``      research environments: PettingZoo's AEC interface, a batched one in C.
- ``gongzhu.learning`` expert self-play data and the training of the learned player's network.
- ``gongzhu.review``   deal review: what each decision of a seat cost, from what it could see and
                       in hindsight (the open-card solver), with par and luck.
- ``gongzhu.server``   the browser game's server (Starlette, WebSocket, SQLAlchemy storage).
- ``gongzhu.web``      the browser game's static page (HTML, JavaScript, CSS; imports nothing).
- ``gongzhu.cli``      the ``gongzhu`` command.
"""

__version__ = "0.1.0"
