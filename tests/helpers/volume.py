"""How much a test does in the fast suite and in the full one.

``make test`` runs every property test at its written example count and every volume test over
all its deals; ``make test-fast`` loads the hypothesis profile ``fast`` (registered in
``tests/conftest.py``), under which :func:`scaled` gives a fifth, and leaves out what
:func:`preset_variants` marks ``slow``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import settings

__all__ = ["preset_variants", "scaled"]

def preset_variants(variants: list[tuple[str, dict[str, Any]]], fast: set[str] | None = None) -> list[Any]:
    """Parameters of a test run under every preset and some option variants: the presets as
    they are (or those named in ``fast``) in the fast suite, the rest marked ``slow`` (``make test``)."""
    return [v if not v[1] and (fast is None or v[0] in fast) else pytest.param(*v, marks=pytest.mark.slow)
            for v in variants]


def scaled(n: int) -> int:
    """A count of examples or of deals for a test that checks many: ``n`` under the default
    hypothesis profile, proportionally fewer (``n / 5``, at least 2) under the ``fast`` profile."""
    current = settings.default
    assert current is not None  # a profile is always loaded under pytest
    return max(2, n * current.max_examples // 100)
