"""The run's settings, read once per process: a frozen ``Settings`` built in one place
(``Settings.from_config``) from the pytest config and kept in ``config.stash`` (``get_settings``),
for the parts of a run that need options but not pytest's config: the controller, the snapshot
guard and the gates, and the worker half (run/, answers/wiring.py: the system, asking it, the
answer cache). An xdist worker builds its own from its config (the controller's command line and
ini). Paths are resolved against the rootdir here, so no caller joins them again. A value that is
not a number is a usage error now, before anything runs.

A tier's own options are not fields: each tier names the options it reads (core/tier.py), which a
fixed dataclass cannot list, and a bad one is an error only where the tier is used; ``tier_options``
reads them, when asked, for the tier's ``TierSettings``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
import os
from pathlib import Path
from typing import Any, Protocol

import pytest

from ..core.option_values import explicit_tiers
from . import options

SETTINGS_KEY = pytest.StashKey["Settings"]()


class ShardMerge(Protocol):
    """A merge of shard reports (``python -m pytest_sprout.merge``, cli/merge.py), which puts itself
    in ``config.stash[MERGE_KEY]`` before pytest is configured: the run then asks no system and its
    rows come from the reports."""

    @property
    def files(self) -> Mapping[str, str]:
        """Each shard report as given -> its absolute path: inputs no output may overwrite."""
        ...


MERGE_KEY = pytest.StashKey[ShardMerge]()


def get_settings(config: pytest.Config) -> Settings:
    """This process's settings (the session builds them in pytest_configure)."""
    return config.stash[SETTINGS_KEY]


@dataclass(frozen=True)
class ReportPaths:
    """Every report a run writes: the JSON reports (--sprout-report, repeatable), the Markdown
    summary and the HTML page."""

    json: tuple[Path, ...] = ()
    markdown: Path | None = None
    html: Path | None = None

    def by_option(self) -> dict[str, list[Path]]:
        """{option dest: paths}, as reports/write.py's ``write_reports`` takes them."""
        return {
            "sprout_report": list(self.json),
            "sprout_md": [self.markdown] if self.markdown else [],
            "sprout_html": [self.html] if self.html else [],
        }


@dataclass(frozen=True)
class Settings:
    """The options the controller, the snapshot guard, the gates and the worker half read (see the
    module). The defaults are the options' defaults, for a caller without a pytest config (the
    guard's tests)."""

    rootpath: Path
    suites_option: str = "suites"  # --sprout-suites as given (error messages quote it)
    suites_root: Path = Path("suites")
    suites_explicit: bool = False  # the user named the suites (command line or ini)
    snapshot: Path = Path("sprout.snapshot.json")
    check_snapshot: bool = False
    collect_only: bool = False  # pytest --co: nothing runs, nothing is written
    markexpr: str = ""  # pytest -m, as given (the snapshot's rebuild command keeps it)
    update_snapshot: bool = False
    record: Path | None = None
    golden_option: str | None = None  # --sprout-golden as given (the views say where answers came from)
    golden: Path | None = None
    reports: ReportPaths = ReportPaths()
    md_failures: int = 10
    mins: tuple[str, ...] = ()
    compare_option: str | None = None
    compare: Path | None = None
    fail_on_regression: bool = False
    fail_on: str = "any"  # --sprout-fail-on / sprout_fail_on: any, new or gates (core/fail_on.py)
    compare_any_dataset: bool = False
    compare_any_judging: bool = False  # --sprout-compare-any-judging: a baseline judged otherwise is compared anyway
    max_unscored: float = 0.5
    llm_base_url: str | None = None
    nli_endpoint: str | None = None
    labels: Path | None = None  # --sprout-labels
    label_sample: int | None = None  # --sprout-label-sample
    calibration_option: str | None = None  # --sprout-calibration / sprout_calibration, as given
    calibrate: bool = False  # --sprout-calibrate
    shard_option: str | None = None  # --sprout-shard=K/N, else the environment's SPROUT_SHARD, as given
    shard_where: str = "--sprout-shard"  # which of the two it came from (error messages name it)
    citations: str = "required"  # --sprout-citations / sprout_citations (core/citations.py; a case may override it)
    merging: bool = False  # python -m pytest_sprout.merge: the rows come from shard reports (cli/merge.py)
    # --- the worker half: the system under test and asking it (run/, answers/wiring.py) ---
    system_cli: str | None = None  # --sprout-system on the command line: it wins over the conftest hook
    system: str | None = None  # --sprout-system, else the ini's sprout_system (used when no hook answers)
    concurrency: int = 8  # --sprout-concurrency
    timeout: float | None = None  # --sprout-timeout (None: no limit)
    retries: int = 0  # --sprout-retries
    retry_on: tuple[str, ...] = ()  # --sprout-retry-on / sprout_retry_on, as given (answers/wiring.py imports them)
    reuse_answers: bool = False  # --sprout-reuse-answers
    mutate: bool = False  # --sprout-mutate
    nli_no_cache: bool = False  # --nli-no-cache: the alce tier's results are not cached either
    explicit_tiers: frozenset[str] = frozenset()  # the tiers -m names outright (their judge must be usable)
    dist_arg: str | None = None  # xdist's --dist as given on the command line (a worker overwrites config.option.dist)

    @classmethod
    def from_config(cls, config: pytest.Config) -> Settings:
        root = Path(config.rootpath)

        def path(value: str | None) -> Path | None:
            return None if value is None else Path(root, value)

        def get(dest: str) -> object:
            return options.get(config, dest)

        suites = str(get("sprout_suites"))
        golden = get("sprout_golden")
        compare = get("sprout_compare")
        return cls(
            rootpath=root,
            suites_option=suites,
            suites_root=Path(os.path.normpath(Path(root, suites))),  # "./suites/../suites" is "suites"
            suites_explicit=options.explicit(config, "sprout_suites"),
            snapshot=Path(root, str(get("sprout_snapshot") or "sprout.snapshot.json")),
            check_snapshot=bool(get("sprout_check_snapshot")),
            collect_only=bool(getattr(config.option, "collectonly", False)),
            markexpr=str(getattr(config.option, "markexpr", "") or ""),
            update_snapshot=bool(get("sprout_update_snapshot")),
            record=path(_text(get("sprout_record")) or None),  # an empty value records nothing
            golden_option=_text(golden),
            golden=path(_text(golden)),
            reports=ReportPaths(
                json=tuple(Path(root, p) for p in options.get_all(config, "sprout_report")),
                markdown=path(_text(get("sprout_md"))),
                html=path(_text(get("sprout_html"))),
            ),
            md_failures=int(str(get("sprout_md_failures"))),  # options.get made it an int already
            mins=tuple(str(v) for v in options.get(config, "sprout_min")),
            compare_option=_text(compare),
            compare=path(_text(compare)),
            fail_on_regression=bool(get("sprout_fail_on_regression")),
            fail_on=options.parse_fail_on(get("sprout_fail_on")),
            compare_any_dataset=bool(get("sprout_compare_any_dataset")),
            compare_any_judging=bool(get("sprout_compare_any_judging")),
            max_unscored=float(str(get("sprout_max_unscored"))),  # options.get made it a float already
            llm_base_url=_text(get("llm_base_url")),
            nli_endpoint=_text(get("nli_endpoint")),
            labels=path(_text(get("sprout_labels")) or None),
            label_sample=None if get("sprout_label_sample") is None else int(str(get("sprout_label_sample"))),
            calibration_option=_text(get("sprout_calibration")) or None,
            calibrate=bool(get("sprout_calibrate")),
            **_shard_option(config),
            citations=str(get("sprout_citations") or "required"),
            merging=MERGE_KEY in config.stash,
            system_cli=_text(config.getoption("sprout_system")),
            system=_text(get("sprout_system")),
            concurrency=int(str(get("sprout_concurrency"))),  # options.get made it an int already
            timeout=None if get("sprout_timeout") is None else float(str(get("sprout_timeout"))),
            retries=int(str(get("sprout_retries"))),
            retry_on=tuple(str(v) for v in options.get(config, "sprout_retry_on")),
            reuse_answers=bool(get("sprout_reuse_answers")),
            mutate=bool(get("sprout_mutate")),
            nli_no_cache=bool(get("nli_no_cache")),
            explicit_tiers=frozenset(explicit_tiers(str(getattr(config.option, "markexpr", "") or ""))),
            dist_arg=_text(getattr(getattr(config, "known_args_namespace", None), "dist", None)),
        )

    def shard(self) -> tuple[int, int] | None:
        """(K, N) of --sprout-shard / SPROUT_SHARD, else None; a bad value is a usage error."""
        return options.parse_shard(self.shard_option, self.shard_where) if self.shard_option else None


class TierOptions(Mapping[str, Any]):
    """A tier's options (``names``) as a read-only mapping, each read from the config when asked
    (command line, ini, default), so that a bad value is an error only where it is used."""

    def __init__(self, config: pytest.Config, names: Sequence[str]) -> None:
        self._config = config
        self.names = tuple(names)

    def __getitem__(self, dest: str) -> Any:
        if dest == "sprout_calibration":  # the file to use: the option's (from the rootdir), else the rootdir's default
            from ..core.calibration import FILE_NAME

            root = Path(self._config.rootpath)
            given = options.get(self._config, dest)
            path = Path(root, given) if given else Path(root, FILE_NAME)
            return str(path) if given or path.is_file() else None
        return options.get(self._config, dest)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def tier_options(config: pytest.Config, names: Sequence[str]) -> Mapping[str, Any]:
    """The options a tier reads (its module's ``OPTIONS``), for its ``TierSettings``."""
    return TierOptions(config, names)


def _shard_option(config: pytest.Config) -> dict[str, Any]:
    value, where = config.getoption("sprout_shard"), "--sprout-shard"
    if not value and os.environ.get("SPROUT_SHARD", "").strip():
        value, where = os.environ["SPROUT_SHARD"], "SPROUT_SHARD"
    return {"shard_option": str(value) if value else None, "shard_where": where}


def _text(value: object) -> str | None:
    return None if value is None else str(value)
