"""The store's schema revisions, oldest first (``r0001_schema.py`` is the schema as it was before
it was versioned).  Each imports only Alembic's ``op`` and SQLAlchemy; Alembic loads them by file,
:data:`gongzhu.server.migrations.HEAD` names the newest."""
