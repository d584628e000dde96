"""The browser game's server (``gongzhu serve``): HTTP routes and the WebSocket
protocol of ``docs/web-protocol.md``.

- :mod:`gongzhu.server.app`   the Starlette application (:func:`create_app`): routes, the
                              WebSocket, the static page files of ``gongzhu/web/static``.
- :mod:`gongzhu.server.table` one table = one match in progress, server-authoritative: the game
                              loop, the computer players paced by the speed setting, the view of
                              the table as South sees it (never a card South may not see), and the
                              validation of every browser message.
- :mod:`gongzhu.server.store` persistence with SQLAlchemy (SQLite by default): matches, finished
                              deals as R11 records, the actions of the deal in progress, the local
                              player's lifetime score.
- :mod:`gongzhu.server.migrations` the store's schema revisions (Alembic) and their environment;
                              the store brings every database it opens to the newest.
- :mod:`gongzhu.server.reviews` deal reviews (复盘) on request, on the worker processes of
                              :mod:`gongzhu.review`, off the event loop; their progress, a short
                              line of waiting ones, the finished ones kept.
- :mod:`gongzhu.server.transport` how ``gongzhu serve`` runs the application under uvicorn:
                              the transport's own bounds (slow and large requests, WebSocket
                              messages).

May import ``gongzhu.rules``, ``gongzhu.formats``, ``gongzhu.records``, ``gongzhu.players``,
``gongzhu.review``, ``gongzhu.messages`` and ``gongzhu.jsontext``;
nothing imports this package but the command line (lazily, for ``gongzhu serve``).
"""

from gongzhu.server.app import create_app

__all__ = ["create_app"]
