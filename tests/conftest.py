"""Shared test set-up: pytester, and a tiny NLI model that says yes to everything."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def yes_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny classifier forced to ENTAILMENT (tests/tiny_models.py), built once per process in
    its own folder (xdist workers never write the same files)."""
    from tiny_models import classifier

    return classifier(tmp_path_factory.mktemp("tiny-entailment"), force="ENTAILMENT")
