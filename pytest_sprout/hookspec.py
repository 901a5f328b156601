"""Hooks that pytest-sprout adds; implement them in a conftest.py."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_sprout_make_system(config: pytest.Config) -> Any:
    """Return the system under test: a callable ``question -> Answer``.

    The callable may return an ``Answer``, a ``(text, passages)`` pair, or a dict with ``text`` and
    ``passages``; text carries ALCE-style citation markers (``[1]``). Give it ``name`` and
    ``version`` attributes to have them recorded with golden sets and cache keys.
    """
