"""What a release ships: the MIT licence in the repository and in the wheel, the typing marker,
and the metadata that says both (docs: CHANGELOG.md, 0.2.0)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def project() -> dict:
    from setuptools.config.pyprojecttoml import read_configuration

    return read_configuration(ROOT / "pyproject.toml", expand=False)["project"]


def test_the_licence_file_is_the_mit_licence_the_metadata_declares() -> None:
    meta = project()
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_the_classifiers_say_typed_pytest_and_the_python_versions() -> None:
    classifiers = project()["classifiers"]
    assert {"Typing :: Typed", "Framework :: Pytest", "Programming Language :: Python :: 3.10"} <= set(classifiers)
    assert any(c.startswith("Development Status ::") for c in classifiers)
    # PEP 639: the SPDX expression replaces the licence classifier (setuptools refuses both)
    assert not any(c.startswith("License ::") for c in classifiers)


@pytest.mark.slow
def test_the_built_wheel_carries_the_licence_and_the_typing_marker(tmp_path: Path) -> None:
    # Built from a copy, so that the build's own folders (build/, *.egg-info) never land in the
    # checkout; no build isolation: the setuptools already installed builds it, nothing is downloaded.
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "pytest_sprout", source / "pytest_sprout", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(source)], check=True, capture_output=True, text=True)
    (wheel,) = (tmp_path / "dist").glob("pytest_sprout-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        licence = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
        assert archive.read(licence).decode().startswith("MIT License")
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "pytest_sprout/py.typed" in names
    assert "License-Expression: MIT" in metadata and "Classifier: Typing :: Typed" in metadata
