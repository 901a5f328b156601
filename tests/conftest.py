"""Shared test set-up: pytester, and a tiny NLI model that says yes to everything."""

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
