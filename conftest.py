"""Wires the embedded reference RAG system as the system under test for the demo suites."""

from __future__ import annotations

from typing import Any

import pytest


# optionalhook: pytest accepts the hook even when pytest-sprout is not loaded (`-p no:sprout`).
@pytest.hookimpl(optionalhook=True)
def pytest_sprout_make_system(config: Any) -> Any:
    from pytest_sprout.reference import make_system

    return make_system()
