"""The version is written once, in pytest_sprout/version.py: the package exports it and
pyproject.toml reads it from there."""

from __future__ import annotations

from pathlib import Path

import pytest_sprout
from pytest_sprout.core.version import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_exports_the_version_module_s_version() -> None:
    assert pytest_sprout.__version__ == __version__
    assert "__version__" in pytest_sprout.__all__


def test_pyproject_reads_the_version_from_the_version_module() -> None:
    from setuptools.config.pyprojecttoml import read_configuration

    config = read_configuration(ROOT / "pyproject.toml", expand=False)
    assert "version" in config["project"]["dynamic"] and "version" not in config["project"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pytest_sprout.core.version.__version__"}
    from setuptools.config.expand import read_attr

    assert read_attr("pytest_sprout.core.version.__version__", root_dir=ROOT) == __version__
