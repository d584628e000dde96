"""static files of the browser game; imports nothing.

``static/`` holds the table page (``index.html``), the history page (``history.html``), their
scripts (plain ES modules, no build step: ``app.js`` starts the table from its modules, among them
``state.js`` what the page knows, ``connection.js`` the WebSocket and the pacing, ``view-*.js`` the
drawing, ``setup.js`` the new-match dialog; ``history.js`` the history page, ``replay.js`` the
trick-by-trick replay both use, ``cards.js`` the SVG card faces, ``i18n.js`` the 中文 / English
strings, which it loads from the message catalog ``gongzhu.messages`` at
``/messages/<lang>.json``), ``style.css`` and ``README.md``, the module map: which module does
what and what it may import.  The server (``gongzhu.server``) serves them under ``/static/``; see
``docs/web-protocol.md`` for what they talk to.
"""
