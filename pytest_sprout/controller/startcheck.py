"""Checks the controller makes before anything runs, beyond one option's value: every option's
value (options.check_values) and each tier's own (``option_problem``), the suites folder, and the
roles of the run's files: no output may be one of the run's inputs, or another output. Each
problem is a usage error (exit 4) that names the option and the file; nothing was written yet.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Protocol

import pytest

from ..config import options
from ..config.settings import MERGE_KEY, Settings
from ..run.worker import Run
from ..snapshot.guard import SnapshotGuard
from ..judges import tier_module
from ..core.model import TIERS
from ..suites.loader import SUFFIXES, SuiteSet, suite_paths


class Checked(Protocol):
    """What the checks read of the run about to start (session.py gives itself)."""

    @property
    def config(self) -> pytest.Config: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def guard(self) -> SnapshotGuard: ...

    @property
    def run(self) -> Run: ...

    @property
    def suites_root(self) -> Path: ...

    def option(self, dest: str) -> Any:
        """An option's value, as options.get reads it."""
        ...


def check_tier_options(sprout: Checked) -> None:
    """Every numeric option, then what each tier says is wrong with its own options (the llm
    tier: no model for the endpoint, an unknown metric): a usage error now, not a skipped tier."""
    options.check_values(sprout.config)
    for tier in TIERS:
        check = getattr(tier_module(tier), "option_problem", None)
        problem = check(sprout.run.tier_settings(tier)) if check is not None else None
        if problem:
            raise pytest.UsageError(problem)


def check_suites_root(sprout: Checked) -> None:
    """--sprout-suites must lie inside the rootdir: pytest collects only under it, so suites
    outside would load (and be pinned by the snapshot) but never run."""
    root = Path(os.path.normpath(sprout.suites_root))
    rootdir = Path(os.path.normpath(sprout.config.rootpath))
    if root != rootdir and rootdir not in root.parents:
        raise pytest.UsageError(
            f"--sprout-suites / sprout_suites: {sprout.option('sprout_suites')!r} is outside the rootdir {rootdir}; "
            "pytest collects only files under the rootdir, so its cases would never run: move (or link) the "
            "suites under the rootdir, or run pytest from a folder above both")


def _same(a: Path, b: Path) -> bool:
    from ..core.paths import same_file

    return same_file(a, b)


def _calibration(sprout: Checked) -> Path | None:
    """The calibration file the run reads (--sprout-calibration, else the rootdir's), if any."""
    from .calibration import resolve

    return resolve(Path(sprout.config.rootpath), sprout.settings.calibration_option)[0]


def inputs(sprout: Checked) -> list[tuple[str, Path]]:
    """(role, path) of every file this run (or the next) reads: the snapshot, the replayed golden
    set, the compared report, the labels file, a merge's shard reports and the suite files."""
    found: list[tuple[str, Path]] = [("the snapshot (--sprout-snapshot)", sprout.guard.path)]
    for option, role in (("sprout_golden", "the golden set it replays (--sprout-golden)"),
                         ("sprout_compare", "the report it compares with (--sprout-compare)"),
                         ("sprout_labels", "the labels file (--sprout-labels)")):
        value = sprout.option(option)
        if value:
            found.append((role, Path(sprout.config.rootpath, value)))
    calibration = _calibration(sprout)
    if calibration is not None and not sprout.settings.calibrate:  # --sprout-calibrate writes it instead
        found.append(("the calibration (--sprout-calibration)", calibration))
    merge = sprout.config.stash.get(MERGE_KEY, None)  # python -m pytest_sprout.merge (cli/merge.py)
    if merge is not None:
        found += [(f"a shard report it merges ({name})", Path(path)) for name, path in merge.files.items()]
    found += [("a suite file (--sprout-suites)", path) for path in suite_paths(sprout.suites_root)]
    return found


def outputs(sprout: Checked) -> list[tuple[str, Path]]:
    """(option, path) of every file this run writes: the reports, the recorded golden set, the
    label sample and pytest's own --junitxml (relative to where pytest was started, as pytest
    writes it)."""
    flags = {"sprout_report": "--sprout-report", "sprout_md": "--sprout-md", "sprout_html": "--sprout-html"}
    found = [(flags[dest], path) for dest, paths in sprout.settings.reports.by_option().items() for path in paths]
    record = sprout.settings.record
    found += [("--sprout-record", record)] if record else []
    if sprout.settings.label_sample:
        from ..checks.labels import SAMPLE_NAME

        found.append(("the label sample (--sprout-label-sample)", Path(sprout.config.rootpath, SAMPLE_NAME)))
    if sprout.settings.calibrate:
        from ..core.calibration import FILE_NAME

        found.append(("the calibration --sprout-calibrate writes",
                      _calibration(sprout) or Path(sprout.config.rootpath, FILE_NAME)))
    junit = getattr(sprout.config.option, "xmlpath", None)
    if junit:
        found.append(("--junitxml", Path(sprout.config.invocation_params.dir, os.path.expanduser(str(junit)))))
    return found


def check_roles(sprout: Checked) -> None:
    """No output is an input of this run (a suite, the snapshot, the replayed golden set, the
    compared report, the labels, a merged shard report), a file the next run would read as a
    suite, or another output's path."""
    rel = sprout.guard.rel

    def name(flag: str, path: Path) -> str:
        return f"{flag}={rel(path)}" if flag.startswith("--") else f"{flag}: {rel(path)}"

    written = outputs(sprout)
    sources = inputs(sprout)
    for index, (flag, path) in enumerate(written):
        for role, source in sources:
            if _same(path, source):
                raise pytest.UsageError(f"{name(flag, path)} is also {role}: refusing to overwrite it; "
                                        "write the output to another path")
        root = Path(os.path.realpath(sprout.suites_root))
        real = Path(os.path.realpath(path))
        if path.suffix in SUFFIXES and root in real.parents:
            raise pytest.UsageError(f"{name(flag, path)} lies in the suites folder (--sprout-suites) with a suite's "
                                    "suffix: the next run would read it as a suite; write it elsewhere")
        for other_flag, other in written[:index]:
            if _same(path, other):
                raise pytest.UsageError(f"{name(flag, path)} is also {name(other_flag, other)}: two outputs on one "
                                        "path would keep only the last; give each its own")


def check_run_options(settings: Settings, suites: Callable[[], SuiteSet], snapshot: Path, report_paths: dict[str, list[Path]]) -> None:
    """The controller, before anything runs: options that would fail only at the end, or fail
    every item, are usage errors now (the report paths: ``Settings.reports.by_option()``)."""
    from ..reports.safe_write import clean_stale_tmp, output_problem

    if settings.llm_base_url:
        options.check_url(settings.llm_base_url)
    if settings.nli_endpoint:
        options.check_url(settings.nli_endpoint, "--nli-endpoint / sprout_nli_endpoint")
    options.check_fraction(settings.max_unscored, "--sprout-max-unscored")
    settings.shard()  # a bad --sprout-shard / SPROUT_SHARD stops the run now
    sample = settings.label_sample
    if sample is not None and sample < 1:
        raise pytest.UsageError(f"--sprout-label-sample must be a whole number of sentences, 1 or more, got {sample}")
    if settings.suites_explicit:
        root = settings.suites_root
        if not root.exists():
            raise pytest.UsageError(f"--sprout-suites / sprout_suites: {settings.suites_option!r} does not exist")
        if not suite_paths(root):
            raise pytest.UsageError(f"--sprout-suites / sprout_suites: {settings.suites_option!r} holds no suite file (*.yaml, *.yml)")
    if settings.update_snapshot and not suites().cases:
        raise pytest.UsageError("--sprout-update-snapshot: the suites hold no valid case; refusing to pin an empty dataset")
    flags = {"sprout_report": "--sprout-report", "sprout_md": "--sprout-md", "sprout_html": "--sprout-html"}
    checked = [(flag, p) for dest, flag in flags.items() for p in report_paths[dest]]
    checked += [("--sprout-record", settings.record)] if settings.record else []
    for flag, path in checked:
        problem = output_problem(path)
        if problem:
            raise pytest.UsageError(f"{flag}={path}: cannot write the report there: {problem}")
    for path in [p for _, p in checked] + [snapshot]:  # what a killed writer may have left
        clean_stale_tmp(path)
