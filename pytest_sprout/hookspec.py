"""Hooks that pytest-sprout adds; implement them in a conftest.py."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_sprout_make_system(config: pytest.Config) -> Any:
    """Return the system under test: a callable ``question -> Answer``.

    The callable may return an ``Answer``, a ``(text, passages)`` pair, or a dict with ``text`` and
    ``passages``; text carries ALCE-style citation markers (``[1]``). It may be ``async def``, and
    may have ``setup()``/``close()`` (or be a context manager), run once per process. Give it
    ``name`` and ``version`` attributes to have them recorded with golden sets and reports, and a
    ``fingerprint`` of everything its answers depend on to have them reused across runs.
    """
