"""Names that look alike, read anew: the look-alike key of every account (``users.name_skeleton``,
:func:`gongzhu.server.names.name_skeleton`) is worked out again from its name by the rules of
this revision — a key that reads ``i`` as ``l`` in any case, Japanese forms of Chinese
characters and small capitals folded — so that an account made before is kept apart from a new
name that looks like it as one made now is.  Deleted accounts keep what they had.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from gongzhu.server.names import name_skeleton

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    bind = op.get_bind()
    named = bind.execute(sa.text("SELECT id, name FROM users WHERE name_skeleton IS NOT NULL AND deleted IS NULL"))
    for user_id, name in named.all():
        bind.execute(sa.text("UPDATE users SET name_skeleton = :look WHERE id = :id"),
                     {"look": name_skeleton(name), "id": user_id})


def downgrade() -> None:
    """The keys stay as they are: the earlier rules' keys are not kept, and these catch more."""
