"""Wires the embedded reference RAG system as the system under test for the demo suites."""

from __future__ import annotations

from typing import Any

import pytest


# optionalhook: pytest accepts the hook even when pytest-sprout is not loaded (`-p no:sprout`).
@pytest.hookimpl(optionalhook=True)
def pytest_sprout_make_system(config: Any) -> Any:
    from pytest_sprout.reference import make_system

    return make_system()


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """pyproject.toml sets ``asyncio_default_fixture_loop_scope`` for pytest-asyncio (a dependency of
    the llm extra), which warns on every run without it. Without pytest-asyncio (the core install
    `make demo` uses, or ``-p no:asyncio``) pytest knows no such key and would warn
    "Unknown config option" instead: the key is declared here, and then means nothing."""
    if not pluginmanager.has_plugin("asyncio"):
        parser.addini("asyncio_default_fixture_loop_scope", "pytest-asyncio's option; unused: pytest-asyncio is not loaded")
