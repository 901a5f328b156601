"""Shared test set-up: pytester, the `slow` marker, and a tiny NLI model that says yes to everything."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import ASYNCIO_SCOPE, KEEP_OUT

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
    """A pytest run inside a test (in process, in a subprocess, with xdist) gets what this
    repository's own configuration gives pytest: DeepEval's and LangSmith's plugins kept out
    (`helpers.KEEP_OUT`: an in-process run imports DeepEval afresh each time, seconds per run),
    and, when pytest-asyncio is loaded, the loop scope it otherwise warns about once per run
    (`helpers.ASYNCIO_SCOPE`; without it the key would be unknown). Through PYTEST_ADDOPTS, set
    after ``pytester`` starts (it clears the variable), so a test's own ini and arguments still
    apply; a test about those plugins sets the variable itself."""
    if "pytester" not in request.fixturenames:
        return
    request.getfixturevalue("pytester")
    addopts = KEEP_OUT
    if request.config.pluginmanager.has_plugin("asyncio"):
        addopts += " " + ASYNCIO_SCOPE
    request.getfixturevalue("monkeypatch").setenv("PYTEST_ADDOPTS", addopts)


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
