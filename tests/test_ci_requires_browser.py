"""CI cannot stay green with the browser checks skipped: .ci/run fails under CI=true when Chromium
cannot be installed, and the browser tests fail instead of skipping when SPROUT_REQUIRE_BROWSER=1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent


def stub(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


def ci_tree(tmp_path: Path) -> tuple[Path, str]:
    """The real .ci/run in a tree of its own, every command it runs a stand-in that says it was
    called: a PATH with no browser, an apt-get that fails (as on a runner without root or network),
    a make, and the .venv's python and ruff. The script's decisions are tested, not the project's
    checks (those are the suite itself), so nothing here waits on a loaded machine."""
    tree = tmp_path / "tree"
    (tree / ".ci").mkdir(parents=True)
    shutil.copy2(ROOT / ".ci" / "run", tree / ".ci" / "run")
    bin_dir = tmp_path / "bin"
    stub(bin_dir / "apt-get", "echo 'E: Could not open lock file' >&2\nexit 100")
    stub(bin_dir / "make", f'echo "make $*" >> "{tmp_path}/calls"')
    dirname = shutil.which("dirname")
    assert dirname is not None
    (bin_dir / "dirname").symlink_to(dirname)
    for tool in ("python", "ruff"):
        stub(tree / ".venv" / "bin" / tool, f'echo "{tool} $*" >> "{tmp_path}/calls"')
    return tree, str(bin_dir)


def run_ci(tmp_path: Path, ci: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    tree, path = ci_tree(tmp_path)
    env = {"PATH": path, "HOME": str(tmp_path), "CI": ci}
    result = subprocess.run(["/bin/bash", str(tree / ".ci" / "run")], env=env, capture_output=True, text=True)
    calls = tmp_path / "calls"
    return result, calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []


def test_ci_run_fails_under_ci_when_chromium_cannot_be_installed(tmp_path: Path) -> None:
    result, calls = run_ci(tmp_path, "true")
    assert result.returncode == 1
    assert "under CI=true the HTML browser tests must run, not skip" in result.stderr
    assert calls == []  # stopped before any check ran


def test_ci_run_only_warns_outside_ci(tmp_path: Path) -> None:
    result, calls = run_ci(tmp_path, "")
    assert result.returncode == 0, result.stderr
    assert "warning: could not install chromium" in result.stdout
    # It went on to every check, in order: the snapshot, lint, types, then the tests.
    assert calls == ["make .venv/.core", "python -m pytest --sprout-check-snapshot -q -p no:cacheprovider",
                     "make .venv/.dev", "ruff check .", "python -m mypy pytest_sprout", "make test"]


@pytest.mark.slow  # a pytest subprocess (the .ci/run tests above run stand-ins only: about a second)
def test_browser_tests_fail_instead_of_skipping_when_a_browser_is_required() -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent), "SPROUT_REQUIRE_BROWSER": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:deepeval",
         "-q", "tests/test_html.py", "-k", "chromium or browser"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    last = result.stdout.strip().splitlines()[-1]
    assert "2 failed" in last and "skipped" not in last, result.stdout[-2000:]
    assert "neither chromium nor chromium-browser is on PATH" in result.stdout
