"""The run's settings, read once: a frozen ``Settings`` built in one place (``Settings.from_config``)
from the pytest config, for the parts of a run that need options but not pytest's config: the
controller, the snapshot guard and the gates. Paths are resolved against the rootdir here, so no
caller joins them again. A value that is not a number is a usage error now, before anything runs.

The worker half (run/) still reads its own options through `options.get`: each tier names the
options it reads (core/tier.py), which a fixed dataclass cannot list.
"""

from __future__ import annotations

from dataclasses import dataclass
import os
from pathlib import Path
from typing import Any

import pytest

from . import options


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
    """The options the controller, the snapshot guard and the gates read (see the module). The
    defaults are the options' defaults, for a caller without a pytest config (the guard's tests)."""

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
    max_unscored: float = 0.5
    llm_base_url: str | None = None
    labels: Path | None = None  # --sprout-labels
    label_sample: int | None = None  # --sprout-label-sample
    shard_option: str | None = None  # --sprout-shard=K/N, else the environment's SPROUT_SHARD, as given
    shard_where: str = "--sprout-shard"  # which of the two it came from (error messages name it)
    citations: str = "required"  # --sprout-citations / sprout_citations (core/citations.py; a case may override it)
    merging: bool = False  # python -m pytest_sprout.merge: the rows come from shard reports (cli/merge.py)

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
            max_unscored=float(str(get("sprout_max_unscored"))),  # options.get made it a float already
            llm_base_url=_text(get("llm_base_url")),
            labels=path(_text(get("sprout_labels")) or None),
            label_sample=None if get("sprout_label_sample") is None else int(str(get("sprout_label_sample"))),
            **_shard_option(config),
            citations=str(get("sprout_citations") or "required"),
            merging=any(getattr(p, "sprout_merge", False) is True for p in config.pluginmanager.get_plugins()),
        )

    def shard(self) -> tuple[int, int] | None:
        """(K, N) of --sprout-shard / SPROUT_SHARD, else None; a bad value is a usage error."""
        return options.parse_shard(self.shard_option, self.shard_where) if self.shard_option else None


def _shard_option(config: pytest.Config) -> dict[str, Any]:
    value, where = config.getoption("sprout_shard"), "--sprout-shard"
    if not value and os.environ.get("SPROUT_SHARD", "").strip():
        value, where = os.environ["SPROUT_SHARD"], "SPROUT_SHARD"
    return {"shard_option": str(value) if value else None, "shard_where": where}


def _text(value: object) -> str | None:
    return None if value is None else str(value)
