"""CI cannot stay green with the browser checks skipped: .ci/run fails under CI=true when Chromium
cannot be installed, and the browser tests fail instead of skipping when SPROUT_REQUIRE_BROWSER=1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def stub_path(tmp_path: Path) -> str:
    """A PATH with no browser, an apt-get that fails (as on a runner without root or network),
    and the few tools the script needs before it installs anything."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    apt = bin_dir / "apt-get"
    apt.write_text("#!/bin/sh\necho 'E: Could not open lock file' >&2\nexit 100\n", encoding="utf-8")
    apt.chmod(0o755)
    dirname = shutil.which("dirname")
    assert dirname is not None
    (bin_dir / "dirname").symlink_to(dirname)
    # A stand-in make that only says it was called: under CI=true it must never be reached.
    make = bin_dir / "make"
    make.write_text("#!/bin/sh\necho \"make $*\"\nexit 0\n", encoding="utf-8")
    make.chmod(0o755)
    return str(bin_dir)


def run_ci(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": stub_path(tmp_path), "HOME": str(tmp_path), "CI": ci}
    return subprocess.run(["/bin/bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=120)


def test_ci_run_fails_under_ci_when_chromium_cannot_be_installed(tmp_path: Path) -> None:
    result = run_ci(tmp_path, "true")
    assert result.returncode == 1
    assert "under CI=true the HTML browser tests must run, not skip" in result.stderr
    assert "make" not in result.stdout  # stopped before any test ran


def test_ci_run_only_warns_outside_ci(tmp_path: Path) -> None:
    result = run_ci(tmp_path, "")
    assert "warning: could not install chromium" in result.stdout
    # It went on to set up and test (the stand-in make installs nothing, so the run stops after).
    assert "make .venv/.core" in result.stdout


def test_browser_tests_fail_instead_of_skipping_when_a_browser_is_required() -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent), "SPROUT_REQUIRE_BROWSER": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:deepeval",
         "-q", "tests/test_html.py", "-k", "chromium or browser"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    last = result.stdout.strip().splitlines()[-1]
    assert "2 failed" in last and "skipped" not in last, result.stdout[-2000:]
    assert "neither chromium nor chromium-browser is on PATH" in result.stdout
