"""Shared test set-up: pytester, the `slow` marker, and a tiny NLI model that says yes to everything."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# pytester's in-process runs drop every module first imported during them, and numpy cannot be
# imported twice in one process. The reference system (through bm25s), ragas and torch import it,
# sometimes first inside an in-process run, and which tests share an xdist worker varies: import it
# once here, before any run. (The tests that check what importing the plugin loads run in
# subprocesses.)
try:
    import numpy  # noqa: F401
except ImportError:  # a core-only environment: nothing imports it then
    pass

# Hypothesis' default deadline (200 ms an example) is a wall-clock limit: on a loaded 2-core machine
# a property that is fast on average fails at random. No test is decided by the clock here, so the
# suite's profile has none; a property still fails on a wrong answer, never on a slow one.
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("sprout", deadline=None)
    _hypothesis_settings.load_profile("sprout")
except ImportError:  # the core install (make demo) has no hypothesis
    pass


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that runs pytest inside itself (the ``pytester`` fixture: in process, in a
    subprocess, or with xdist) is ``slow``: together they are most of the suite's time. The tests
    that start a process some other way carry the marker themselves. ``-m "not slow"`` is the
    quick loop while developing; ``make test`` runs everything."""
    for item in items:
        if "pytester" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _inner_runs_configured(request: pytest.FixtureRequest) -> None:
    """A pytest run inside a test gets the setting this repository's own configuration gives
    pytest-asyncio (a dependency of the llm extra), which otherwise warns once per run that
    ``asyncio_default_fixture_loop_scope`` is unset. Set after ``pytester`` starts (it clears
    PYTEST_ADDOPTS), so in-process, subprocess and xdist runs all read it; a test's own ini still
    applies. Without pytest-asyncio the key would be unknown, so it is then left out."""
    if "pytester" not in request.fixturenames or not request.config.pluginmanager.has_plugin("asyncio"):
        return
    request.getfixturevalue("pytester")
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-o asyncio_default_fixture_loop_scope=function")


@pytest.fixture(scope="session")
def yes_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny classifier forced to ENTAILMENT (tests/tiny_models.py), built once per process in
    its own folder (xdist workers never write the same files)."""
    from tiny_models import classifier

    return classifier(tmp_path_factory.mktemp("tiny-entailment"), force="ENTAILMENT")


@pytest.fixture(scope="module")
def llm_libraries() -> None:
    """Import Ragas and DeepEval (and pyarrow, numpy under them) before a test module's pytester
    runs: an in-process run drops the modules first imported during it, and pyarrow, like numpy,
    cannot be imported twice in one process. Test modules that run the ragas or llm tier in process
    use it (``pytestmark = pytest.mark.usefixtures("llm_libraries")``)."""
    import deepeval.metrics
    import deepeval.plugins.plugin  # noqa: F401
    import ragas.metrics.collections  # noqa: F401
