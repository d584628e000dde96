"""The browser game's server (``gongzhu serve``): HTTP routes and the WebSocket
protocol of ``docs/web-protocol.md``.

- :mod:`gongzhu.server.app`       the Starlette application (:func:`create_app`): routes, WebSockets.
- :mod:`gongzhu.server.registry`  the open tables of one server, their rooms, the lobby, the bus.
- :mod:`gongzhu.server.table`     one match at a table: state, seats, commit; its messages: ``dispatch``.
- :mod:`gongzhu.server.views`     what one seat or spectator may see of a table.
- :mod:`gongzhu.server.rooms`     a table's connections on one server and its recent events.
- :mod:`gongzhu.server.thinking`, :mod:`gongzhu.server.clock`  computer players, hints, timers.
- :mod:`gongzhu.server.claiming`  claims (声称): checked exactly, or put to the others.
- :mod:`gongzhu.server.bus`, :mod:`gongzhu.server.cluster`     one server, or several on Redis.
- :mod:`gongzhu.server.store`, :mod:`gongzhu.server.migrations`  the database and its schema.
- :mod:`gongzhu.server.identity`, :mod:`gongzhu.server.accounts`  who you are.

``docs/architecture.md`` (The game server) draws every module and its floor.

May import ``gongzhu.rules``, ``gongzhu.search``, ``gongzhu.formats``, ``gongzhu.records``,
``gongzhu.players``, ``gongzhu.review``, ``gongzhu.duplicate``, ``gongzhu.messages`` and
``gongzhu.jsontext``;
nothing imports this package but the command line (lazily, for ``gongzhu serve``).
"""

from gongzhu.server.app import create_app

__all__ = ["create_app"]
