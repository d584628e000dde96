"""static files of the browser game; imports nothing.

``static/`` holds the table page (``index.html``), the history page (``history.html``), their
scripts (plain ES modules, no build step: ``app.js`` the table, ``history.js`` the history page,
``replay.js`` the trick-by-trick replay both use, ``cards.js`` the SVG card faces, ``i18n.js`` the
中文 / English strings) and ``style.css``.  The server (``gongzhu.server``) serves them under
``/static/``; see ``docs/web-protocol.md`` for what they talk to.
"""
